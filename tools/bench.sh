#!/usr/bin/env bash
# Wall-clock benchmark of the demo: runs sgpu-demo as `make demo` does (its
# default frame count) but without the time budget, so every frame is
# rendered, and prints the wall time.  A measurement, not a test: it fails
# only when the demo itself fails.
#   tools/bench.sh [BIN_DIR]      (default build/bin; `make bench` builds it)
set -u
BIN=${1:-build/bin}
[ -x "$BIN/sgpu-demo" ] || { echo "bench: $BIN/sgpu-demo not built (run make bench)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
start=$(date +%s.%N)
"$BIN/sgpu-demo" --out "$T/demo" --budget 0 >"$T/log" 2>&1
rc=$?
end=$(date +%s.%N)
if [ "$rc" -ne 0 ]; then
  tail -n 20 "$T/log"
  echo "bench: sgpu-demo exited $rc" >&2
  exit 1
fi
frames=$(ls "$T"/demo/frame_*.png | wc -l)
speed=$(sed -n 's/^FIGURE demo model speed: \([0-9]*\) cycles\/s$/\1/p' "$T/log")
python3 - "$start" "$end" "$frames" "${speed:-0}" <<'PY'
import sys
start, end, frames, speed = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall = end - start
print("BENCH demo wall time: %.1f s for %d frames (%.2f s per frame, model %d cycles/s)"
      % (wall, frames, wall / frames, speed))
PY
