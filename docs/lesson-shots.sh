#!/usr/bin/env bash
# Takes the README's lesson screenshots from a release build: the algorithms
# lesson while it is measured (the scene paused and dimmed), mid-way (step 2)
# and its summary page with the chart.
# Needs Xvfb and xdotool. Usage: docs/lesson-shots.sh [BIN] [OUTDIR]
set -eu
BIN=${1:-target/release/spatial-query-lab}
OUT=${2:-docs}
BIN=$(realpath "$BIN")
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
WORK=$(mktemp -d)
cd "$WORK"
# -displayfd: the server picks a free display and writes its number once
# it accepts connections.
Xvfb -displayfd 3 -screen 0 1280x800x24 3>display >/dev/null 2>&1 &
XV=$!
trap 'kill $XV 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -s display ] && break; sleep 0.2; done
export DISPLAY=:$(cat display)
"$BIN" --lesson algorithms >app.log 2>&1 &
APP=$!
key() { xdotool key "$1"; sleep "$2"; }
sleep 3           # the lesson measures: 3 steps x 5 rounds, the scene paused
key F12 2         # spatial-query-lab-001.png: measuring
sleep 20          # (5 to 10 s for the whole lesson on a 2-core VM)
key Next 3        # Page Down: step 2 (Grid)
key F12 2         # spatial-query-lab-002.png: a lesson mid-way
key Next 3        # step 3 (SortedGrid)
key Next 3        # the summary page and its chart
key F12 2         # spatial-query-lab-003.png
kill $APP || { echo "the window exited early:" >&2; cat app.log >&2; exit 1; }
mv spatial-query-lab-001.png "$OUT/lesson-measuring.png"
mv spatial-query-lab-002.png "$OUT/lesson-step.png"
mv spatial-query-lab-003.png "$OUT/lesson-chart.png"
echo "wrote $OUT/lesson-measuring.png, $OUT/lesson-step.png and $OUT/lesson-chart.png"
