#!/usr/bin/env bash
# Serves the browser build locally: scripts/web-serve.sh [DIR] [PORT]
# (default target/web-page on port 8000), then open http://localhost:PORT/.
# Any static file server works; this one is Python's standard http.server.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-target/web-page}"
port="${2:-8000}"
if [ ! -f "$dir/index.html" ]; then
    echo "web-serve.sh: $dir/index.html not found; build it first with scripts/web-build.sh" >&2
    exit 1
fi
command -v python3 >/dev/null || { echo "web-serve.sh: python3 not found; serve $dir with any static file server" >&2; exit 1; }
echo "web-serve.sh: open http://localhost:$port/ (Ctrl+C stops)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir"
