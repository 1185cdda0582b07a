#!/usr/bin/env bash
# Several frames in flight (link protocol version 3) through sgpu-sim's
# chip, with the iCEBreaker's 3 Mbaud and an FT2232H's 1 ms latency timer
# (--baud 3000000 --latency-us 1000): link_upload's 16 KiB upload, read
# back identical, and its 40 submissions applied once each, with the URI's
# ,window=on (more than one WRITE frame unanswered at a time), ,window=off
# (one) and the default window=auto (both frame sizes measured, so more
# than one at first); `sgpu info` shows the window (the chip's 2048-byte
# FIFO less one largest frame: 1778 request bytes).  The window's upload is
# about twice as fast (docs/figures.md): not asserted, as the client's
# answer timeouts and auto's round trips are wall time and a loaded machine
# slows the model; only that neither on nor auto is slower than off by more than
# a tenth.  Prints FIGURE lines (payload bytes per second of simulated
# time, and as a share of the wire's 300,000 bytes/s).
source "$SGPU_ROOT/tests/link/link_lib.sh"
U=$SGPU_LINK_BIN/link_upload_nosim
BYTES=16384 WIRE=300000
fig() { sed -n "s/^figure $1 //p" "$2"; }
for mode in on off auto; do
  start_server "$mode" --listen tcp:127.0.0.1:0 --baud 3000000 --latency-us 1000 || { bad "no server"; finish; exit 1; }
  if "$U" "$SRV_URI,window=$mode$GIVEUP" "$BYTES" >"$T/$mode.txt" 2>"$T/$mode.err"; then
    ok "window=$mode: $(grep '^window:' "$T/$mode.txt")"
  else bad "window=$mode: upload: $(head -5 "$T/$mode.err")"; fi
  if [ "$mode" = auto ]; then
    "$SGPU_BIN/sgpu" --device "$SRV_URI$GIVEUP" info >"$T/info.txt" 2>&1
    if grep -q "^link window: version 3, 1778 request bytes in flight at most" "$T/info.txt"; then ok "info: $(grep '^link window:' "$T/info.txt")"
    else bad "info shows no window: $(grep '^link' "$T/info.txt")"; fi
  fi
  kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
done
for m in on auto; do
  n=$(fig upload_in_flight_max "$T/$m.txt")
  [ "${n:-0}" -gt 1 ] && ok "window=$m: up to $n frames in flight" || bad "frames in flight with window=$m: '$n'"
done
n=$(fig upload_in_flight_max "$T/off.txt")
[ "${n:-0}" = 1 ] && ok "window=off: one frame in flight" || bad "frames in flight with window=off: '$n'"
obps=$(fig upload_payload_Bps_sim "$T/off.txt")
for m in on auto; do
  b=$(fig upload_payload_Bps_sim "$T/$m.txt")
  if [ -n "$b" ] && [ -n "$obps" ] && awk -v w="$b" -v o="$obps" 'BEGIN { exit !(w > 0.9 * o) }'; then
    ok "upload: $b payload bytes/s with window=$m, $obps with one frame"
  else bad "upload: $b payload bytes/s with window=$m, $obps with one frame"; fi
done
for m in on off auto; do
  b=$(fig upload_payload_Bps_sim "$T/$m.txt")
  echo "FIGURE link_latency1ms_window_${m}_upload_payload_Bps_sim ${b:-0}"
  echo "FIGURE link_latency1ms_window_${m}_upload_wire_pct $(awk -v b="${b:-0}" -v w=$WIRE 'BEGIN { printf "%.1f", 100 * b / w }')"
done
finish
