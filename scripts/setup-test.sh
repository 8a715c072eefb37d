#!/usr/bin/env bash
# Installs whatever is missing to run every test and gate, on top of what
# serving needs (scripts/setup.sh, sourced first): the rustfmt and clippy
# components, kafka-python for the interop check, Chromium and ChromeDriver,
# Firefox ESR with geckodriver, WebKitGTK's WebKitWebDriver with Xvfb (the
# engine of Safari), the Noto CJK fonts and axe-core. Sourced by
# scripts/test.sh; safe to run on its own.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/setup.sh"
GECKODRIVER_VERSION=0.37.1
AXE_VERSION=4.14.1

# 1. The rustfmt and clippy components (the formatting and lint gates).
for c in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
    say "adding the $c component"; rustup component add "$c"
  fi
done

# 2. kafka-python (PyPI), an independent Kafka implementation used to check
#    that the segment files kafka-sim writes are readable by other Kafka code.
if ! "$TOOLS/py/bin/python" -c 'import kafka.record' 2>/dev/null; then
  say "installing kafka-python into .tools/py (interop check)"
  mkdir -p "$TOOLS"
  python3 -m venv "$TOOLS/py"
  "$TOOLS/py/bin/pip" install --quiet --disable-pip-version-check kafka-python==3.0.12
fi

# 3. Chromium and ChromeDriver for the browser tests and screenshots.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing Debian's chromium and chromium-driver"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
fi
export CHROMEDRIVER="$(command -v chromedriver)"

# 4. Firefox ESR and geckodriver: classrooms use Firefox too, and the
#     built-page test walks the page in it. Noto CJK so that 简体中文 is
#     drawn (not boxes) in both browsers' screenshots.
if ! command -v firefox-esr >/dev/null || ! fc-list 2>/dev/null | grep -q "Noto Sans CJK"; then
  say "installing Debian's firefox-esr and fonts-noto-cjk"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq firefox-esr fonts-noto-cjk >/dev/null
fi
if [ "$(geckodriver --version 2>/dev/null | awk 'NR==1{print $2}')" != "$GECKODRIVER_VERSION" ]; then
  say "installing geckodriver $GECKODRIVER_VERSION (a few minutes)"
  cargo install geckodriver --version "$GECKODRIVER_VERSION" --locked --force
fi
# Not exported as GECKODRIVER: wasm-bindgen-test-runner would then run the
# wasm browser tests in Firefox instead of Chromium (their figures are
# Chromium's); the built-page test finds geckodriver on PATH.

# 5. axe-core (npm), the accessibility audit the built-page test runs in
#     every view.
if [ "$(node -p "require('$TOOLS/node_modules/axe-core/package.json').version" 2>/dev/null)" != "$AXE_VERSION" ]; then
  say "installing axe-core@$AXE_VERSION into .tools/"
  mkdir -p "$TOOLS"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "axe-core@$AXE_VERSION" >/dev/null
fi
export AXE_JS="$TOOLS/node_modules/axe-core/axe.min.js"

# 6. WebKitGTK's WebDriver (WebKitWebDriver, which starts its MiniBrowser)
#    and Xvfb to give it a display: the built-page walk runs in WebKit too,
#    the engine of Safari on the iPads many classrooms use.
if ! command -v WebKitWebDriver >/dev/null || ! command -v xvfb-run >/dev/null; then
  say "installing Debian's webkit2gtk-driver and xvfb"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq webkit2gtk-driver xvfb xauth >/dev/null
fi
