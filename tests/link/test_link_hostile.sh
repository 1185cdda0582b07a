#!/usr/bin/env bash
# sgpu-sim --listen against hostile clients (issue 22), with --idle-ms 300:
# a silent connection, one that stops inside a frame (half a PING), a flood
# of 10 MB of zero bytes, each followed by a proper client (`sgpu info`);
# a second program while one is connected.  Asserted:
#  * while the hostile connection is open, a proper client is told "device
#    in use by another connection" (the server's NAK IN_USE), not a PING
#    timeout, and the hostile connection is closed by the idle rule: the
#    server's own figure, "no ACK for X ms", is under the limit + 1 s;
#  * a proper client is served after it; the wall time from the hostile
#    connection to the proper client's answer is reported and asserted under
#    a generous bound (limit + 10 s: a loaded machine only slows it);
#  * the server's memory: VmHWM (its peak RSS) after the flood stays within
#    RSS_SLACK_KB of its VmRSS before it.  The server holds at most
#    SGPU_LINK_RX_FIFO_BYTES (2 KiB) of a client's bytes, so the flood adds
#    nothing but allocator noise; 4 MiB leaves room for that and is a tenth
#    of what the unbounded server grew by (16.7 -> 45.2 MB in 5 s);
#  * a proper client PINGing every 100 ms is not closed as idle, and a second
#    client while it is connected gets "in use" at once;
#  * frames addressed outside GPU memory or the register block (a write at
#    the memory size, at twice it, a burst straddling the end, a register
#    write at SCRATCH + 4 KiB, a read at 0xFFFFF000...: 11 of them) are each
#    NAKed BAD_ADDR and change nothing: the words they would have hit by
#    aliasing (memory modulo its size, registers modulo 4 KiB) read back as
#    before, the in-range reads at the ends are served, and the next WRITE
#    with the SEQ the refused ones carried is executed (they did not count
#    as executed).  On the chip model (sgpu-sim --listen) and, through
#    their UART pins, boot feeder and bridge, on the iCEBreaker and ULX3S
#    board models (--board).
# Prints FIGURE lines (docs/figures.md).
source "$SGPU_ROOT/tests/link/link_lib.sh"
IDLE=300
RSS_SLACK_KB=4096
CLIENT="$SGPU_ROOT/tests/link/hostile_client.py"
SGPU=$SGPU_BIN/sgpu
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
status_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$SRV_PID/status"; }

start_server hostile --listen tcp:127.0.0.1:0 --idle-ms $IDLE || { bad "no server"; finish; exit 1; }
PORT=${SRV_URI##*:}
ERR=$T/hostile.err
if "$SGPU" --device "$SRV_URI" info >"$T/info0.txt" 2>&1; then ok "a proper client first: served"
else bad "a proper client first: $(head -3 "$T/info0.txt")"; fi

# proper_after NAME: with a hostile client NAME connected, a proper client
# is told "in use"; then proper clients retry until one is served.
proper_after() {
  local name=$1 t0=$2 t1 t2 tries=0
  t1=$(now_ms)
  if "$SGPU" --device "$SRV_URI" info >"$T/$name.busy" 2>&1; then
    bad "$name: a proper client was served while the hostile connection was open"
  elif grep -q "device in use by another connection" "$T/$name.busy"; then
    ok "$name: a proper client meanwhile: '$(grep -m1 -o 'device in use by another connection[^;]*' "$T/$name.busy")' after $(( $(now_ms) - t1 )) ms"
    echo "FIGURE link_hostile_${name}_in_use_ms $(( $(now_ms) - t1 ))"
  else bad "$name: a proper client meanwhile: $(head -3 "$T/$name.busy")"; fi
  while :; do
    tries=$((tries + 1))
    if "$SGPU" --device "$SRV_URI" info >"$T/$name.info" 2>&1; then break; fi
    if ! grep -q "in use" "$T/$name.info" || [ $(( $(now_ms) - t0 )) -gt $((IDLE + 10000)) ]; then
      bad "$name: no proper client served: $(head -3 "$T/$name.info")"; return
    fi
    sleep 0.05
  done
  t2=$(now_ms)
  local ms=$((t2 - t0))
  [ "$ms" -lt $((IDLE + 10000)) ] && ok "$name: a proper client served $ms ms after the hostile connection (idle limit $IDLE ms, $tries tries)" \
    || bad "$name: a proper client served only after $ms ms"
  echo "FIGURE link_hostile_${name}_proper_served_ms $ms"
  local line x
  line=$(grep "closed a connection" "$ERR" | tail -n 1)
  x=$(sed -n 's/.*no ACK for \([0-9]*\)\.[0-9] ms.*/\1/p' <<<"$line")
  if [ -n "$x" ] && [ "$x" -ge "$IDLE" ] && [ "$x" -lt $((IDLE + 1000)) ]; then
    ok "$name: the server closed it: '${line#sgpu-sim: }'"
  else bad "$name: the server's close: '$line'"; fi
  echo "FIGURE link_hostile_${name}_closed_after_ms ${x:-0}"
  # in the server's own times: its close, the next client's connection
  local tc tn
  tc=$(sed -n 's/.*closed a connection at t=\([0-9]*\)\..*/\1/p' "$ERR" | tail -n 1)
  tn=$(awk -v tc="$tc" '/client connected at t=/ { sub(/.*t=/, ""); sub(/ ms.*/, ""); if ($0 + 0 >= tc + 0) { print int($0); exit } }' "$ERR")
  if [ -n "$tc" ] && [ -n "$tn" ] && [ $((tn - tc)) -lt 5000 ]; then
    ok "$name: the next client connected $((tn - tc)) ms after the close (server's times; a new sgpu process every 50 ms)"
  else bad "$name: the next client after the close at '$tc' ms: '$tn'"; fi
  echo "FIGURE link_hostile_${name}_next_client_after_close_ms $(( ${tn:-0} - ${tc:-0} ))"
}

# 1. silent
python3 "$CLIENT" "$PORT" silent 5 >"$T/silent.out" &
c=$!; t0=$(now_ms)
for i in $(seq 1 100); do grep -q connected "$T/silent.out" && break; sleep 0.02; done
proper_after silent "$t0"
wait $c
grep -q "RESULT closed=yes" "$T/silent.out" && ok "silent: its connection was closed ($(grep RESULT "$T/silent.out"))" \
  || bad "silent: $(cat "$T/silent.out")"

# 2. half a frame
python3 "$CLIENT" "$PORT" half 5 >"$T/half.out" &
c=$!; t0=$(now_ms)
for i in $(seq 1 100); do grep -q connected "$T/half.out" && break; sleep 0.02; done
proper_after half "$t0"
wait $c
grep -q "RESULT closed=yes" "$T/half.out" && ok "half: its connection was closed ($(grep RESULT "$T/half.out"))" \
  || bad "half: $(cat "$T/half.out")"

# 3. a flood of 10 MB of zero bytes; the server's memory sampled meanwhile
rss0=$(status_kb VmRSS); hwm0=$(status_kb VmHWM)
python3 "$CLIENT" "$PORT" flood 10000000 >"$T/flood.out" &
c=$!; t0=$(now_ms)
for i in $(seq 1 100); do grep -q connected "$T/flood.out" && break; sleep 0.02; done
( while kill -0 "$c" 2>/dev/null; do status_kb VmRSS; sleep 0.01; done ) >"$T/flood.rss" &
s=$!
proper_after flood "$t0"
wait $c; wait $s
peak=$(sort -n "$T/flood.rss" | tail -n 1)
hwm=$(status_kb VmHWM); rss=$(status_kb VmRSS)
echo "flood: $(grep RESULT "$T/flood.out"); server VmRSS before ${rss0} kB, sampled peak ${peak} kB, after ${rss} kB; VmHWM before ${hwm0} kB, after ${hwm} kB"
if [ -n "$hwm" ] && [ $((hwm - rss0)) -lt $RSS_SLACK_KB ]; then
  ok "flood: the server's peak memory ${hwm} kB, $((hwm - rss0)) kB over its ${rss0} kB before (bound $RSS_SLACK_KB kB)"
else bad "flood: the server's peak memory ${hwm} kB against ${rss0} kB before"; fi
grep -q "most [0-9]* bytes queued" "$ERR" && q=$(grep "closed a connection" -A1 "$ERR" | sed -n 's/.*at most \([0-9]*\) bytes queued.*/\1/p' | tail -n 1)
echo "FIGURE link_hostile_flood_vmrss_before_kB $rss0"
echo "FIGURE link_hostile_flood_vmhwm_after_kB $hwm"
echo "FIGURE link_hostile_flood_vmrss_after_kB $rss"
echo "FIGURE link_hostile_flood_bytes_sent $(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$T/flood.out")"
echo "FIGURE link_hostile_flood_queued_max_bytes ${q:-?}"

# 4. a proper client holding the device (a PING every 100 ms for 1.5 s):
# not idle; a second client meanwhile is told "in use" at once
python3 "$CLIENT" "$PORT" pinger 1.5 100 >"$T/pinger.out" &
c=$!
for i in $(seq 1 100); do grep -q connected "$T/pinger.out" && break; sleep 0.02; done
sleep 0.4
t1=$(now_ms)
if "$SGPU" --device "$SRV_URI" info >"$T/second.txt" 2>&1; then bad "second client: served while another is connected"
elif grep -q "device in use by another connection" "$T/second.txt"; then
  ok "second client: '$(head -1 "$T/second.txt")' after $(( $(now_ms) - t1 )) ms"
  echo "FIGURE link_hostile_second_in_use_ms $(( $(now_ms) - t1 ))"
else bad "second client: $(head -3 "$T/second.txt")"; fi
wait $c
r=$(grep RESULT "$T/pinger.out")
acks=$(sed -n 's/.*acks=\([0-9]*\).*/\1/p' <<<"$r"); lost=$(sed -n 's/.*lost=\([0-9]*\).*/\1/p' <<<"$r")
[ "${acks:-0}" -ge 5 ] && [ "${lost:-1}" = 0 ] && ok "pinger: kept (not idle): $r" || bad "pinger: $r"
# 5. frames addressed outside memory and the register block
# badaddr_check NAME PORT [boot]: the client's frames, judged by its RESULT line
# (boot: a board model; wait for its boot firmware first)
badaddr_check() {
  timeout 300 python3 "$CLIENT" "$2" badaddr ${3:-} >"$T/badaddr_$1.out" 2>&1
  local r; r=$(grep RESULT "$T/badaddr_$1.out")
  if grep -q "refused=11 of=11 unchanged=yes in_range=yes next_write=applied" <<<"$r" &&
     ! grep -q refused-not "$T/badaddr_$1.out"; then
    ok "$1: out-of-range frames NAKed BAD_ADDR, nothing changed: ${r#RESULT }"
  else bad "$1: out-of-range frames: $(cat "$T/badaddr_$1.out")"; fi
  echo "FIGURE link_badaddr_${1}_refused $(sed -n 's/.*refused=\([0-9]*\).*/\1/p' <<<"$r") of 11"
}
badaddr_check sim "$PORT"
if "$SGPU" --device "$SRV_URI" info >"$T/info9.txt" 2>&1; then ok "a proper client last: served"
else bad "a proper client last: $(head -3 "$T/info9.txt")"; fi
kill -0 "$SRV_PID" 2>/dev/null && ok "the server is alive" || bad "the server died"
echo "--- server log"; cat "$ERR"
for b in icebreaker ulx3s; do
  start_server "$b" --board "$b" --listen tcp:127.0.0.1:0 || { bad "$b: no server"; continue; }
  badaddr_check "$b" "${SRV_URI##*:}" boot
  kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null
done
finish
