#!/usr/bin/env bash
# Run inside xvfb-run by sgpu_sim_window.sh: `sgpu-sim --window` (tiny
# pattern, endless) in the background; prints its window's title as the X
# server has it ("live title: ..."), read with xwininfo within 20 s.
SIM=$1
"$SIM" --window --pattern --tiny --frames 1000000 --quiet &
p=$!
t=""
for i in $(seq 1 200); do
  t=$(xwininfo -root -tree 2>/dev/null | grep -o '"sgpu-sim: source 0, [^"]*"' | head -n 1)
  [ -n "$t" ] && break
  sleep 0.1
done
kill $p; wait $p 2>/dev/null
echo "live title: $t"
