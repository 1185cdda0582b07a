#!/usr/bin/env bash
# One workload (fills, a copy, a flip, fences, a fault and its reset) run on
# the in-process model, through tcp: to sgpu-sim --listen, through serial: on
# sgpu-sim --pty, and with the library built without the model through tcp:
# gives the same log and the same framebuffer and frame checksums.
source "$SGPU_ROOT/tests/link/link_lib.sh"
W=$SGPU_LINK_BIN/link_workload

if "$W" sim >"$T/sim.txt" 2>"$T/sim.err"; then ok "workload on sim"; else bad "workload on sim: $(cat "$T/sim.err")"; fi
cat "$T/sim.txt"

start_server tcp --listen tcp:127.0.0.1:0
if "$W" "$SRV_URI" >"$T/tcp.txt" 2>"$T/tcp.err"; then ok "workload on $SRV_URI"; else bad "workload on tcp: $(cat "$T/tcp.err")"; fi
kill "$SRV_PID"

start_server pty --pty
if "$W" "$SRV_URI@3000000" >"$T/pty.txt" 2>"$T/pty.err"; then ok "workload on $SRV_URI@3000000"; else bad "workload on serial: $(cat "$T/pty.err")"; fi
kill "$SRV_PID"

start_server nosim --listen tcp:127.0.0.1:0
if "$W"_nosim "$SRV_URI" >"$T/nosim.txt" 2>"$T/nosim.err"; then ok "workload, library without the model, on $SRV_URI"; else bad "workload nosim: $(cat "$T/nosim.err")"; fi
if "$W"_nosim sim >/dev/null 2>"$T/nosim-sim.err"; then bad "the library without the model opened sim"; 
elif grep -q "built without the simulation model" "$T/nosim-sim.err"; then ok "without the model, sim is refused: $(cat "$T/nosim-sim.err")";
else bad "nosim sim: $(cat "$T/nosim-sim.err")"; fi
kill "$SRV_PID"

for v in tcp pty nosim; do
  if [ -s "$T/sim.txt" ] && cmp -s "$T/sim.txt" "$T/$v.txt"; then ok "$v log and checksums equal sim's"
  else bad "$v differs from sim: $(diff "$T/sim.txt" "$T/$v.txt" | head -20)"; fi
done
finish
