#!/usr/bin/env bash
# Installs what serving needs (scripts/setup.sh), builds the page into dist/
# (scripts/build_page.py), then serves it on http://127.0.0.1:8080 (PORT to
# change it) with Python's http.server. After a change, run it again.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/setup.sh
python3 scripts/build_page.py
echo "Serving Kafka Visualiser on http://127.0.0.1:${PORT:-8080} (Ctrl-C to stop)"
exec python3 -m http.server --bind 127.0.0.1 --directory dist "${PORT:-8080}"
