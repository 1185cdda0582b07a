#!/usr/bin/env bash
# The demo as `make demo` runs it (default frame count, no time budget): it
# must finish in under one minute of wall time on this machine, build
# excluded, complete every fence and show one flip per frame.
set -u
BIN=${SGPU_BIN:?SGPU_BIN must name the directory of the built programs}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
start=$(date +%s.%N)
"$BIN/sgpu-demo" --out "$T/demo" --budget 0 >"$T/log" 2>&1
rc=$?
end=$(date +%s.%N)
tail -n 20 "$T/log"
secs=$(python3 -c "print(round($end - $start, 1))")
frames=$(ls "$T"/demo/frame_*.png 2>/dev/null | wc -l)
echo "FIGURE demo_wall_seconds $secs for $frames frames (limit 60)"
[ "$rc" -eq 0 ] || { echo "sgpu-demo exited $rc"; exit 1; }
[ "$frames" -ge 30 ] || { echo "expected the default run of at least 30 frames, got $frames"; exit 1; }
python3 -c "import sys; sys.exit(0 if $secs < 60 else 1)" || { echo "demo took $secs s, over one minute"; exit 1; }
echo "demo finished in $secs s"
