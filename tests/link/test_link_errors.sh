#!/usr/bin/env bash
# A damaged link: sgpu-sim --link-errors drop=0.01,corrupt=0.01,dup=0.01
# (each byte, both directions) under a workload through tcp: (words written
# and read back, two submissions and their fences: link_errors.c checks
# every result against what it computes itself).  The faults the server
# says it injected are the independent count: each kind must have happened
# both ways, and the client's counters must show them seen and recovered
# (repeated frames, NAKs or timeouts, CRC errors).  Seed 1 (under a second
# since the bridge NAKs a damaged header at once and the client pads its
# requests on a noisy line; 20 to 30 s before, when each lost header byte
# cost the bridge its 5 ms gap timeout).  The 1 MiB upload through the same
# faults: test_link_upload_errors.sh (make link-upload-errors).
source "$SGPU_ROOT/tests/link/link_lib.sh"
E=$SGPU_LINK_BIN/link_errors
stat() { sed -n "s/^stat $1 //p" "$2"; }
for seed in 1; do
  start_server err$seed --listen tcp:127.0.0.1:0 --link-errors drop=0.01,corrupt=0.01,dup=0.01,seed=$seed || { bad "seed $seed: no server"; continue; }
  out=$T/errors$seed.txt
  if "$E" "$SRV_URI" >"$out" 2>"$T/errors$seed.err"; then ok "seed $seed: workload correct through 1% drop, corrupt and dup both ways"
  else bad "seed $seed: $(grep FAIL "$out" | head -3) $(head -3 "$T/errors$seed.err")"; fi
  kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
  cat "$out"
  server_faults "$T/err$seed.err"
  line=$SRV_LINE d=$SRV_DROPPED x=$SRV_CORRUPTED u=$SRV_DUPLICATED srv_naks=$SRV_NAKS
  if [ "${d:-0}" -gt 0 ] && [ "${x:-0}" -gt 0 ] && [ "${u:-0}" -gt 0 ]; then ok "seed $seed: the server injected $d drops, $x corruptions, $u duplicates"
  else bad "seed $seed: faults injected: '$line'"; fi
  rt=$(stat retransmissions "$out"); nk=$(stat naks "$out"); to=$(stat timeouts "$out"); crc=$(stat crc_errors "$out")
  if [ "${rt:-0}" -gt 0 ] && [ $(( ${nk:-0} + ${to:-0} )) -gt 0 ] && [ "${crc:-0}" -gt 0 ]; then
    ok "seed $seed: the client saw them: $rt retransmissions, $nk NAKs, $to timeouts, $crc CRC errors"
  else bad "seed $seed: client counters: retransmissions '$rt' naks '$nk' timeouts '$to' crc '$crc'"; fi
  # the bridge counts the NAKs it sent; the client cannot have received more
  if [ -n "$srv_naks" ] && [ "${nk:-0}" -le "$srv_naks" ]; then ok "seed $seed: NAKs received ($nk) <= NAKs the bridge sent ($srv_naks)"
  else bad "seed $seed: $nk NAKs received, the bridge sent '$srv_naks'"; fi
done
finish
