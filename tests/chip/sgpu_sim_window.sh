#!/usr/bin/env bash
# `sgpu-sim --window` under Xvfb: the window shows display source 0 live;
# its contents (saved as BMP at exit) must be the last captured frame scaled
# pixel-exactly, and that frame must be the test pattern drawn through the
# host port.
set -u
SIM=${SGPU_SIM:-build/bin/sgpu-sim}
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v xvfb-run >/dev/null || fail "xvfb-run missing (Debian package xvfb)"

for scale in 4 3; do
  out=$(SDL_VIDEODRIVER=x11 timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" \
        "$SIM" --window --pattern --tiny --frames 3 --scale $scale \
        --screenshot "$tmp/win$scale.bmp" --png "$tmp/frame$scale.png") || fail "sgpu-sim --window failed: $out"
  echo "$out"
  echo "$out" | grep -q "^frames [3-9]" || fail "fewer than 3 frames shown"
  [ -s "$tmp/win$scale.bmp" ] || fail "no screenshot"
  python3 "$HERE/sgpu_sim_image.py" scaled "$tmp/win$scale.bmp" "$tmp/frame$scale.png" $scale || fail "window != frame"
  python3 "$HERE/sgpu_sim_image.py" pattern "$tmp/frame$scale.png" || fail "frame is not the pattern"
done
echo "sgpu_sim_window: PASS"
