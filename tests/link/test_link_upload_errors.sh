#!/usr/bin/env bash
# A 1 MiB upload through sgpu-sim --link-errors drop=0.01,corrupt=0.01,dup=0.01
# (each byte, both directions; tcp: unpaced): link_upload writes a
# pseudo-random MiB, reads it back and compares it with its own copy, then
# 40 submissions each write their slot once and signal their fence (every
# write applied once, every fence and completion event seen).  The server's
# fault counts are the independent evidence that the faults happened.
# Prints FIGURE lines (wall time, simulated cycles, repeats, payload rates).
#
# In `make test` since link protocol version 2: its CRC-32 lets a damaged
# frame through about once in 2^32, and a MiB each way puts some 100,000
# damaged frames through a check, so a wrong frame is expected about once
# in 40,000 runs (with version 1's CRC-16, about once a run:
# docs/link-protocol.md, "A MiB through 1 % faults").  `make
# link-upload-errors` runs it alone.
#
# usage: test_link_upload_errors.sh [BYTES [SEED]]   (SGPU_BIN, SGPU_LINK_BIN as for the tests)
source "$SGPU_ROOT/tests/link/link_lib.sh"
U=$SGPU_LINK_BIN/link_upload_nosim
BYTES=${1:-1048576} SEED=${2:-1}
start_server up --listen tcp:127.0.0.1:0 --link-errors drop=0.01,corrupt=0.01,dup=0.01,seed=$SEED || { bad "no server"; finish; exit 1; }
t0=$(date +%s.%N)
# $GIVEUP (link_lib.sh): the test is about the faults, not the machine.
if "$U" "$SRV_URI$GIVEUP" "$BYTES" >"$T/up.txt" 2>"$T/up.err"; then
  ok "$BYTES bytes uploaded through 1% drop, corrupt and dup both ways read back identical; 40 submissions applied once, 40 fences and events"
else bad "upload: $(head -5 "$T/up.err")"; fi
t1=$(date +%s.%N)
for i in $(seq 1 50); do grep -q "client gone" "$T/up.err" 2>/dev/null && break; sleep 0.1; done
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
grep -v '^figure ' "$T/up.txt"
server_faults "$T/up.err"
line=$SRV_LINE d=$SRV_DROPPED x=$SRV_CORRUPTED u=$SRV_DUPLICATED cyc=$SRV_CYCLES
if [ "${d:-0}" -gt 1000 ] && [ "${x:-0}" -gt 1000 ] && [ "${u:-0}" -gt 1000 ]; then ok "the server injected $d drops, $x corruptions, $u duplicates"
else bad "faults injected: '$line'"; fi
sed -n 's/^figure \([a-z_A-Z]*\) /FIGURE link_errors_1m_\1 /p' "$T/up.txt"
echo "FIGURE link_errors_1m_session_wall_s $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')"
echo "FIGURE link_errors_1m_session_cycles ${cyc:-0}"
echo "FIGURE link_errors_1m_faults $(( ${d:-0} + ${x:-0} + ${u:-0} ))"
finish
