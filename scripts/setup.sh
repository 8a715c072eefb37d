#!/usr/bin/env bash
# Installs whatever is missing to build and serve Kafka Visualiser, and puts
# the project's own tools on PATH: Rust's wasm32 target, wasm-bindgen-cli,
# trunk, wasm-opt and the workspace's crates. Quick when everything is
# present. Sourced by scripts/serve.sh and scripts/build.sh, and by
# scripts/setup-test.sh, which adds what only the tests use (browsers,
# drivers, fonts, the interop and accessibility checkers).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
TRUNK_VERSION=0.21.14
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

# 2. wasm-bindgen-cli: exactly the wasm-bindgen version in Cargo.lock, built
#    with the dependency versions its own published Cargo.lock names
#    (--locked), so a fresh machine builds what this one did.
WB_VERSION="$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' "$ROOT/Cargo.lock" 2>/dev/null || true)"
[ -n "$WB_VERSION" ] || WB_VERSION=0.2.130
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  say "installing wasm-bindgen-cli $WB_VERSION (a few minutes)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked --force
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

# 5. Every crate the workspace needs, for every target, from Cargo.lock. The
#    page is built with `trunk ... --offline` (so that trunk never downloads a
#    wasm-bindgen or wasm-opt of its own; Trunk.toml names the installed ones),
#    which also passes --offline to cargo: on a fresh machine nothing else
#    would have put the app's crates in the cargo cache by then.
say "fetching the workspace's crates (cargo fetch --locked)"
cargo fetch --locked --quiet
