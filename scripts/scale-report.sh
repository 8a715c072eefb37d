#!/usr/bin/env bash
# Issue 24's scale figures, before and after, side by side in one run.
#
#   scripts/scale-report.sh [BEFORE_REV]   (default 76ff24f, the commit
#                                           before the scale work began)
#
# Builds the release CLI and the `timeline_limits` example at BEFORE_REV
# (in a temporary worktree, with its own target directory) and at the
# working tree, generates the scale scenarios with `examples/scale.rs`
# (100 brokers, RF 3, three producers x 30,000 records, groups of 40), and
# runs each with both builds:
#
# * headless: `kafka-sim digest` (runs the scenario, hashing each event's
#   JSON line as it goes, keeping no trace): events, CPU seconds, us/event,
#   peak RSS;
# * as the page keeps it: `timeline_limits` with the page's cap of
#   1,000,000 events (every event kept, checkpoints for seeking): CPU
#   seconds, peak RSS, bytes of peak RSS per event, a seek to the middle.
#
# A run that passes LIMIT_S seconds (default 120) is stopped and shown as
# such. Figures are CPU time (user + system) and peak RSS from
# /usr/bin/time; nothing here asserts a speed.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:-76ff24f}
LIMIT_S=${LIMIT_S:-120}
WORK=$(mktemp -d)
trap 'git worktree remove --force "$WORK/before" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

echo "Building $BEFORE and the working tree (release)..." >&2
git worktree add --detach "$WORK/before" "$BEFORE" >/dev/null 2>&1
(cd "$WORK/before" && CARGO_TARGET_DIR="$WORK/before-target" \
    cargo build -q --release -p kafka-sim-cli -p kafka-sim --bins --example timeline_limits)
cargo build -q --release -p kafka-sim-cli -p kafka-sim --bins --example timeline_limits --example scale
B_CLI="$WORK/before-target/release/kafka-sim"
B_TL="$WORK/before-target/release/examples/timeline_limits"
A_CLI=target/release/kafka-sim
A_TL=target/release/examples/timeline_limits

# measure CMD...: prints "cpu_s rss_mb output", or "stopped" after LIMIT_S,
# or "failed: " and what the command said.
measure() {
    local out="$WORK/out" tm="$WORK/time" rc=0
    /usr/bin/time -f "%U %S %M" -o "$tm" timeout "$LIMIT_S" "$@" >"$out" 2>"$WORK/err" || rc=$?
    if [ "$rc" = 0 ]; then
        read -r user sys rss <"$tm"
        printf '%s %d %s\n' "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')" \
            $((rss / 1024)) "$(tr '\n' ' ' <"$out")"
    elif [ "$rc" = 124 ]; then
        echo "stopped"
    else
        echo "failed: $(head -c 300 "$WORK/err")"
    fi
}

headless() { # label cli scenario
    local r events cpu
    r=$(measure "$2" digest "$3")
    case "$r" in
        stopped) printf '%-8s %s\n' "$1" "stopped after ${LIMIT_S} s"; return ;;
        failed:*) printf '%-8s %s\n' "$1" "$r"; return ;;
    esac
    read -r cpu rss _ events _ <<<"$r"
    events=${events#(}
    printf '%-8s %9s events  %6.1f s CPU  %5.1f us/event  %6d MB peak\n' \
        "$1" "$events" "$cpu" "$(awk -v c="$cpu" -v e="$events" 'BEGIN { print c * 1e6 / e }')" "$rss"
}

paged() { # label timeline_limits scenario
    local r cpu rss events seek
    r=$(measure "$2" "$3" 1000000)
    case "$r" in
        stopped) printf '%-8s %s\n' "$1" "stopped after ${LIMIT_S} s"; return ;;
        failed:*) printf '%-8s %s\n' "$1" "$r"; return ;;
    esac
    read -r cpu rss events _ <<<"$r"
    seek=$(sed -E 's/.*middle ([0-9.]+) ms.*/\1/' "$WORK/out")
    printf '%-8s %9s events  %6.1f s CPU  %6d MB peak  %5d B/event  seek to the middle %s ms\n' \
        "$1" "$events" "$cpu" "$rss" $((rss * 1048576 / events)) "$seek"
}

echo "== headless run (kafka-sim digest): before $BEFORE / after $(git rev-parse --short HEAD)$(git diff --quiet || echo +changes)"
for spec in "1000 1" "3000 1" "10000 1" "3000 10" "3000 40"; do
    set -- $spec
    f="$WORK/scale-$1-$2.json"
    target/release/examples/scale "$1" "$2" 40 --write "$f" >/dev/null
    echo "-- $1 partitions, $2 group(s) of 40"
    headless before "$B_CLI" "$f"
    headless after "$A_CLI" "$f"
done

echo
echo "== as the page keeps it (every event, checkpoints; cap 1,000,000 events)"
for spec in "1000 1" "3000 1" "10000 1" "3000 10" "3000 40"; do
    set -- $spec
    f="$WORK/scale-$1-$2.json"
    echo "-- $1 partitions, $2 group(s) of 40"
    paged before "$B_TL" "$f"
    paged after "$A_TL" "$f"
done
