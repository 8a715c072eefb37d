#!/usr/bin/env bash
# Installs whatever is missing to build and serve Kafka Visualiser, and puts
# the project's own tools on PATH: Rust's wasm32 target, wasm-bindgen (with
# its test runner), wasm-opt and the workspace's crates. Quick when
# everything is present. (The page is built by scripts/build_page.py and
# served by Python's http.server: no trunk to compile.) Sourced by
# scripts/serve.sh and scripts/build.sh, and by scripts/setup-test.sh, which
# adds what only the tests use (browsers, drivers, fonts, the interop and
# accessibility checkers).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
BINARYEN_VERSION=132
# `cargo install` puts tools in $CARGO_HOME/bin (~/.cargo/bin unless set).
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$TOOLS/node_modules/.bin:$PATH"
# The rustup proxies (cargo, rustc) live in ~/.cargo/bin: found there when
# the shell's PATH does not have them yet (a new login on a fresh machine).
command -v cargo >/dev/null || export PATH="$PATH:$HOME/.cargo/bin"

say() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[setup] %s\033[0m\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root to run: $*"; fi; }

command -v cargo >/dev/null || die "cargo is missing: install Rust (rustup) first"

# 1. The wasm32 target.
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen and wasm-bindgen-test-runner: the wasm-bindgen-cli library
#    at exactly the version of `wasm-bindgen` in Cargo.lock, every
#    dependency pinned by tools/wasm-bindgen-cli/Cargo.lock (`cargo install
#    wasm-bindgen-cli` floats them; its own published lock names versions a
#    registry may no longer hold).
WB_VERSION="$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' "$ROOT/Cargo.lock" 2>/dev/null || true)"
WB_PINNED="$(awk -F'"' '/^wasm-bindgen-cli = /{print $2; exit}' "$ROOT/tools/wasm-bindgen-cli/Cargo.toml")"
[ "=$WB_VERSION" = "$WB_PINNED" ] || die "Cargo.lock has wasm-bindgen $WB_VERSION but tools/wasm-bindgen-cli/Cargo.toml pins wasm-bindgen-cli $WB_PINNED: make them equal"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ] \
   || [ "$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  say "installing wasm-bindgen $WB_VERSION from tools/wasm-bindgen-cli (about 4 minutes on 2 cores)"
  cargo install --path "$ROOT/tools/wasm-bindgen-cli" --locked --force
fi

# 3. wasm-opt from binaryen on npm (Debian's binaryen is too old for rustc 1.95).
if ! wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION"; then
  command -v npm >/dev/null || die "npm is missing (needed for binaryen's wasm-opt)"
  say "installing wasm-opt (binaryen@$BINARYEN_VERSION) into .tools/"
  mkdir -p "$TOOLS"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "binaryen@$BINARYEN_VERSION" >/dev/null
fi

# 4. Every crate the workspace needs, for every target, from Cargo.lock: the
#    page is built `--offline --locked` (scripts/build_page.py), so that a
#    build never resolves or downloads anything of its own.
say "fetching the workspace's crates (cargo fetch --locked)"
cargo fetch --locked --quiet
