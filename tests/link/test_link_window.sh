#!/usr/bin/env bash
# Several frames in flight (link protocol version 3) through sgpu-sim's
# chip: with the iCEBreaker's 3 Mbaud and an FT2232H's 1 ms latency timer
# (--baud 3000000 --latency-us 1000) link_upload's 32 KiB upload has more
# than one WRITE frame unanswered at a time, reads back identical, its 40
# submissions apply once each, with one frame in flight (the URI's
# ,window=off) too; `sgpu info` shows the window.  The window's upload is
# about 12 % faster (docs/figures.md): not asserted, as the client's
# timeouts are wall time and a loaded machine slows the model; only that it
# is not slower by more than a tenth.  Prints FIGURE lines (payload bytes
# per second of simulated time, and as a share of the wire's 300,000
# bytes/s).
source "$SGPU_ROOT/tests/link/link_lib.sh"
U=$SGPU_LINK_BIN/link_upload_nosim
BYTES=32768 WIRE=300000
fig() { sed -n "s/^figure $1 //p" "$2"; }
for mode in window one; do
  start_server "$mode" --listen tcp:127.0.0.1:0 --baud 3000000 --latency-us 1000 || { bad "no server"; finish; exit 1; }
  uri=$SRV_URI; [ "$mode" = one ] && uri="$uri,window=off"
  if "$U" "$uri" "$BYTES" >"$T/$mode.txt" 2>"$T/$mode.err"; then
    ok "$mode: $(grep '^window:' "$T/$mode.txt")"
  else bad "$mode: upload: $(head -5 "$T/$mode.err")"; fi
  if [ "$mode" = window ]; then
    "$SGPU_BIN/sgpu" --device "$SRV_URI" info >"$T/info.txt" 2>&1
    if grep -q "^link window: version 3, 242 request bytes in flight at most" "$T/info.txt"; then ok "info: $(grep '^link window:' "$T/info.txt")"
    else bad "info shows no window: $(grep '^link' "$T/info.txt")"; fi
  fi
  kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
done
wmax=$(fig upload_in_flight_max "$T/window.txt") omax=$(fig upload_in_flight_max "$T/one.txt")
wbps=$(fig upload_payload_Bps_sim "$T/window.txt") obps=$(fig upload_payload_Bps_sim "$T/one.txt")
[ "${wmax:-0}" -gt 1 ] && ok "up to $wmax frames in flight" || bad "frames in flight with the window: '$wmax'"
[ "${omax:-0}" = 1 ] && ok "window=off: one frame in flight" || bad "frames in flight with window=off: '$omax'"
if [ -n "$wbps" ] && [ -n "$obps" ] && awk -v w="$wbps" -v o="$obps" 'BEGIN { exit !(w > 0.9 * o) }'; then
  ok "upload: $wbps payload bytes/s with the window, $obps with one frame"
else bad "upload: $wbps payload bytes/s with the window, $obps with one frame"; fi
for m in window one; do
  b=$(fig upload_payload_Bps_sim "$T/$m.txt")
  echo "FIGURE link_latency1ms_${m}_upload_payload_Bps_sim ${b:-0}"
  echo "FIGURE link_latency1ms_${m}_upload_wire_pct $(awk -v b="${b:-0}" -v w=$WIRE 'BEGIN { printf "%.1f", 100 * b / w }')"
done
finish
