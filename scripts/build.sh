#!/usr/bin/env bash
# Installs what is missing, then builds the page to publish into dist/:
# copy that folder to any static web server, at its root or under a sub-path.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/setup.sh
python3 scripts/build_page.py
echo "The page is in $ROOT/dist/: copy that folder to a static web server."
