#!/usr/bin/env bash
# Installs what is missing, then serves Kafka Visualiser on http://127.0.0.1:8080
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/setup.sh
echo "Serving Kafka Visualiser on http://127.0.0.1:${PORT:-8080} (Ctrl-C to stop)"
trunk serve --offline --release --address 127.0.0.1 --port "${PORT:-8080}"
