#!/usr/bin/env bash
# Regenerates docs/compare-chart.png the way a user makes it: under a virtual
# X server, measures Naive, Grid and SortedGrid (keys 1/2/3, then Enter) into
# the compare panel with Naive as the baseline and clicks "Save chart PNG".
# The click is a position in a 1280x800 window with the panel at its default
# place and three rows. Needs Xvfb and xdotool.
# Usage: docs/compare-chart.sh [BINARY] [UNITS]
set -eu
BIN=${1:-target/release/spatial-query-lab}
UNITS=${2:-20000}
BIN=$(realpath "$BIN")
OUT=$(mktemp -d)
cd "$OUT"
Xvfb :93 -screen 0 1280x800x24 >/dev/null 2>&1 &
XV=$!
trap 'kill $XV 2>/dev/null' EXIT
sleep 1
export DISPLAY=:93
"$BIN" --units "$UNITS" >app.log 2>&1 &
APP=$!
sleep 6
key() { xdotool key "$1"; sleep "$2"; }
key 1 2; key Return 15   # Naive (its frames are spread over refreshes)
key 2 3; key Return 8    # Grid
key 3 3; key Return 8    # SortedGrid
xdotool key F12; sleep 2                        # the whole window, for checking
xdotool mousemove 1080 606 click 1; sleep 2     # Save chart PNG
kill $APP
ls "$OUT"
echo "files in $OUT"
