#!/usr/bin/env bash
# The page built at opt-level "z" (the `page` profile it ships with), "s"
# and 3 (`page-s`, `page-3`), side by side in one run (issue 46):
#
# * size: the page's wasm as scripts/build_page.py ships it (wasm-bindgen,
#   then wasm-opt at the level named in index.html), gzipped, plus its JS;
# * speed in headless Chromium (tests/perf.rs): a step + render on 10
#   brokers / 1,000 partitions and a seek on a 100,000-event trace
#   (`step_render_and_seek_times_on_big_scenarios`), and where a step goes
#   at 100 brokers / 3,000 partitions / 40 groups of 40
#   (`where_a_step_goes_at_forty_groups`).
#
#   scripts/opt-level-report.sh            (after scripts/setup-test.sh)
#
# Nothing here asserts a speed; it prints the figures to choose with.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup-test.sh >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for level in z s 3; do
  case $level in z) profile=page ;; s) profile=page-s ;; 3) profile=page-3 ;; esac
  echo "== opt-level $level (profile $profile)"
  # The shipped build at this level.
  python3 scripts/build_page.py --profile "$profile" --dist "$OUT/dist-$level" >"$OUT/build-$level.log" 2>&1 \
    || { tail -20 "$OUT/build-$level.log"; exit 1; }
  total=0
  for f in "$OUT/dist-$level"/*.wasm "$OUT/dist-$level"/*.js; do
    total=$((total + $(gzip -9 -c "$f" | wc -c)))
  done
  echo "size: $total bytes gzipped (wasm + JS)"
  for t in step_render_and_seek_times_on_big_scenarios where_a_step_goes_at_forty_groups; do
    env -u GECKODRIVER -u SAFARIDRIVER WASM_BINDGEN_TEST_TIMEOUT=900 \
      cargo test -p kafka-visualiser --target wasm32-unknown-unknown --profile "$profile" \
      --test perf -- --include-ignored "$t" --nocapture 2>&1 \
      | grep -E "ms|MB|test result|panicked" | grep -v "^running" || true
  done
done
