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
# The title: simulated frames per second and the ratio to real time, live
# (as the X server has it) and the last one printed at exit, whose two
# figures must agree: frames/s = ratio x 25.175 MHz / 4,480 cycles a tiny
# frame (80 x 56), within a factor 1.5 (the interval's frames are whole).
command -v xwininfo >/dev/null || fail "xwininfo missing (Debian package x11-utils)"
live=$(SDL_VIDEODRIVER=x11 timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" bash "$HERE/sgpu_sim_window_title.sh" "$SIM")
echo "$live"
echo "$live" | grep -Eq '^live title: "sgpu-sim: source 0, [0-9.]+ frames/s, [0-9.]+ x real time"$' || fail "no live title with frames/s"
out=$(SDL_VIDEODRIVER=x11 timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" \
      "$SIM" --window --pattern --tiny --frames 40) || fail "sgpu-sim --window --frames 40 failed: $out"
title=$(echo "$out" | sed -n 's/^window title: //p')
echo "title at exit: $title"
fps=$(echo "$title" | sed -n 's/.*, \([0-9.]*\) frames\/s, .*/\1/p')
ratio=$(echo "$title" | sed -n 's/.*, \([0-9.]*\) x real time$/\1/p')
[ -n "$fps" ] && [ -n "$ratio" ] || fail "title '$title' lacks frames/s or the ratio"
awk -v f="$fps" -v r="$ratio" 'BEGIN { e = r * 25175000 / 4480; exit !(f > 0 && r > 0 && f < 1.5 * e && f > e / 1.5) }' \
  || fail "title '$title': $fps frames/s does not match $ratio x real time"
echo "sgpu_sim_window: PASS"
