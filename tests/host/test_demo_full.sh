#!/usr/bin/env bash
# The demo as `make demo` runs it (default frame count; no time budget, so
# the run does not depend on the machine's speed): it must exit 0, render
# all of its default frames (at least 30), and every frame must equal, pixel
# for pixel, the independent rendering of the scene by
# tests/host/frame_ref.py (as must the animated PNG); every fence completes
# and a flip is taken per frame.  Wall time is a benchmark (`make bench`),
# not checked here.
set -u
BIN=${SGPU_BIN:?SGPU_BIN must name the directory of the built programs}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
N=$("$BIN/sgpu-demo" --help | sed -n 's/.*frames to render (default \([0-9]*\)).*/\1/p')
[ "${N:-0}" -ge 30 ] || { echo "sgpu-demo's default run is '${N:-?}' frames, expected at least 30"; exit 1; }
"$BIN/sgpu-demo" --out "$T/demo" --budget 0 >"$T/log" 2>&1
rc=$?
tail -n 20 "$T/log"
[ "$rc" -eq 0 ] || { echo "sgpu-demo exited $rc"; exit 1; }
frames=$(ls "$T"/demo/frame_*.png 2>/dev/null | wc -l)
[ "$frames" -eq "$N" ] || { echo "expected the default run of $N frames, got $frames"; exit 1; }
python3 "$HERE/frame_ref.py" demo "$T/demo" "$N" || { echo "frames differ from the reference rendering"; exit 1; }
R="$T/demo/report.txt"
set -- $(sed -n 's/^fences: *last submitted \([0-9]*\), last completed \([0-9]*\).*/\1 \2/p' "$R")
[ -n "${1:-}" ] && [ "$1" = "${2:-}" ] || { echo "fences: submitted ${1:-?}, completed ${2:-?}"; exit 1; }
flips=$(sed -n 's/^flips: *\([0-9]*\) taken.*/\1/p' "$R")
[ "${flips:-0}" -ge "$N" ] || { echo "flips taken: ${flips:-none} for $N frames"; exit 1; }
echo "demo: $N frames as the reference, fence $1 completed, $flips flips"
