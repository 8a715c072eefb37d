#!/usr/bin/env bash
# Installs whatever is missing to build, serve and test Kafka Visualiser, and
# puts the project's own tools on PATH. Quick when everything is present.
# Sourced by scripts/serve.sh and scripts/test.sh; safe to run on its own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
GECKODRIVER_VERSION=0.37.1
AXE_VERSION=4.14.1
# `cargo install` puts tools in $CARGO_HOME/bin (~/.cargo/bin unless set).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$TOOLS/node_modules/.bin:$PATH"
# The rustup proxies (cargo, rustc) live in ~/.cargo/bin: found there when
# the shell's PATH does not have them yet (a new login on a fresh machine).
command -v cargo >/dev/null || export PATH="$PATH:$HOME/.cargo/bin"

say() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[setup] %s\033[0m\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root to run: $*"; fi; }

command -v cargo >/dev/null || die "cargo is missing: install Rust (rustup) first"

# 1. The wasm32 target and the rustfmt/clippy components.
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for c in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
    say "adding the $c component"; rustup component add "$c"
  fi
done

# 2. wasm-bindgen-cli: exactly the wasm-bindgen version in Cargo.lock.
WB_VERSION="$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' "$ROOT/Cargo.lock" 2>/dev/null || true)"
[ -n "$WB_VERSION" ] || WB_VERSION=0.2.130
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  say "installing wasm-bindgen-cli $WB_VERSION (a few minutes)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# 3. trunk (0.22 needs a newer rustc than this machine has).
if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (about 12 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --force
fi

# 4. wasm-opt from binaryen on npm (Debian's binaryen is too old for rustc 1.95).
if ! wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION"; then
  command -v npm >/dev/null || die "npm is missing (needed for binaryen's wasm-opt)"
  say "installing wasm-opt (binaryen@$BINARYEN_VERSION) into .tools/"
  mkdir -p "$TOOLS"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "binaryen@$BINARYEN_VERSION" >/dev/null
fi

# 5. kafka-python (PyPI), an independent Kafka implementation used to check
#    that the segment files kafka-sim writes are readable by other Kafka code.
if ! "$TOOLS/py/bin/python" -c 'import kafka.record' 2>/dev/null; then
  say "installing kafka-python into .tools/py (interop check)"
  mkdir -p "$TOOLS"
  python3 -m venv "$TOOLS/py"
  "$TOOLS/py/bin/pip" install --quiet --disable-pip-version-check kafka-python==3.0.12
fi

# 6. Chromium and ChromeDriver for the browser tests and screenshots.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing Debian's chromium and chromium-driver"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
fi
export CHROMEDRIVER="$(command -v chromedriver)"

# 6b. Firefox ESR and geckodriver: classrooms use Firefox too, and the
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

# 6c. axe-core (npm), the accessibility audit the built-page test runs in
#     every view.
if [ "$(node -p "require('$TOOLS/node_modules/axe-core/package.json').version" 2>/dev/null)" != "$AXE_VERSION" ]; then
  say "installing axe-core@$AXE_VERSION into .tools/"
  mkdir -p "$TOOLS"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "axe-core@$AXE_VERSION" >/dev/null
fi
export AXE_JS="$TOOLS/node_modules/axe-core/axe.min.js"

# 7. Every crate the workspace needs, for every target, from Cargo.lock. The
#    page is built with `trunk ... --offline` (so that trunk never downloads a
#    wasm-bindgen or wasm-opt of its own; Trunk.toml names the installed ones),
#    which also passes --offline to cargo: on a fresh machine nothing else
#    would have put the app's crates in the cargo cache by then.
say "fetching the workspace's crates (cargo fetch --locked)"
cargo fetch --locked --quiet
