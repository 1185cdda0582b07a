#!/usr/bin/env bash
# sgpu-sim --board icebreaker and --board ulx3s: the link served by the
# board-level simulations (the bytes cross each board's UART pins at
# 3 Mbaud, through its UART, boot feeder and bridge RTL).  One workload
# (link_workload --small: fills, a copy, a flip, fences, a fault and its
# reset, sized for the iCEBreaker's 128 KiB) through tcp: to each board
# prints the same log and framebuffer and frame checksums as on the
# in-process model and on sgpu-sim --board sim.  The last frame on each
# board's video pins (--frames-dir) equals the frame the library captured
# from the framebuffer and the frame the in-process model captured from its
# pixel outputs (cut to the 4 bits a colour of the iCEBreaker's pins).  The device persists: a second connection (sgpu info) finds the
# display the workload left.  The iCEBreaker also serves it through --pty
# (serial:).  --board's errors.  SGPU_LINK_BOARDS_FULL=1 also runs the full
# link_workload on the ULX3S (about 3 minutes; docs/figures.md).
source "$SGPU_ROOT/tests/link/link_lib.sh"
W=("$SGPU_LINK_BIN/link_workload" --small)
SIM=$SGPU_BIN/sgpu-sim
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }
gone_cycle() { sed -n 's/.*client gone at cycle \([0-9]*\) .*/\1/p' "$1" | head -n 1; }
booted_cycle() { sed -n 's/.*booted: \([0-9]*\) cycles.*/\1/p' "$1" | tail -n 1; }
# wait_gone FILE [N]: until the server has seen N clients go (default 1)
wait_gone() {
  for _ in $(seq 300); do [ "$(grep -c 'client gone' "$1")" -ge "${2:-1}" ] && return 0; sleep 0.1; done
  return 1
}

# --- usage
"$SIM" --board nosuch --listen tcp:127.0.0.1:0 >"$T/u1.out" 2>"$T/u1.err"; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/u1.err")" = 1 ] && grep -q "unknown board 'nosuch'" "$T/u1.err" &&
   [ ! -s "$T/u1.out" ]; then ok "unknown board: exit 2, $(cat "$T/u1.err")"
else bad "unknown board: exit $rc: $(cat "$T/u1.out" "$T/u1.err")"; fi
"$SIM" --board icebreaker >/dev/null 2>"$T/u2.err"; rc=$?
if [ $rc = 2 ] && grep -q "needs --listen or --pty" "$T/u2.err"; then ok "--board icebreaker alone: exit 2, $(cat "$T/u2.err")"
else bad "--board icebreaker alone: exit $rc: $(cat "$T/u2.err")"; fi
"$SIM" --listen tcp:127.0.0.1:0 --frames-dir "$T" >/dev/null 2>"$T/u3.err"; rc=$?
if [ $rc = 2 ] && grep -q "frames-dir needs --board icebreaker or ulx3s" "$T/u3.err"; then ok "--frames-dir on sim refused: $(cat "$T/u3.err")"
else bad "--frames-dir on sim: exit $rc: $(cat "$T/u3.err")"; fi
"$SIM" --board ulx3s --listen tcp:127.0.0.1:0 --baud 115200 >/dev/null 2>"$T/u4.err"; rc=$?
if [ $rc = 2 ] && grep -q "3000000 baud only" "$T/u4.err"; then ok "--baud on a board refused: $(cat "$T/u4.err")"
else bad "--baud on a board: exit $rc: $(cat "$T/u4.err")"; fi
if "$SIM" --help | grep -q -- "--board B" && "$SIM" --help | grep -q -- "--frames-dir DIR"; then ok "--help documents --board and --frames-dir"
else bad "--help lacks --board or --frames-dir"; fi

# --- the reference: the in-process model, then the chip behind its bridge
if "${W[@]}" sim "$T/sim.png" >"$T/sim.txt" 2>"$T/sim.err"; then ok "workload on sim"; else bad "workload on sim: $(cat "$T/sim.err")"; fi
cat "$T/sim.txt"
start_server srv-bsim --board sim --listen tcp:127.0.0.1:0
t0=$(now)
if "${W[@]}" "$SRV_URI" >"$T/bsim.txt" 2>"$T/bsim.err"; then ok "workload on --board sim ($SRV_URI)"; else bad "workload on --board sim: $(cat "$T/bsim.err")"; fi
t1=$(now); wait_gone "$T/srv-bsim.err"; kill "$SRV_PID"
echo "FIGURE link_boards_sim_wall_s $(secs "$t0" "$t1")"
echo "FIGURE link_boards_sim_cycles $(gone_cycle "$T/srv-bsim.err")"

# --- each board, its frames on the pins written to a folder
# The clients take $GIVEUP (link_lib.sh): the ULX3S model, 0.25 to 0.4 M
# cycles a second alone, needs 28,000 cycles for a 64-word READ and its
# answer, which a loaded machine can stretch past the default give-up.
for b in icebreaker ulx3s; do
  rm -rf "$T/frames-$b"; mkdir -p "$T/frames-$b"
  start_server "srv-$b" --board "$b" --listen tcp:127.0.0.1:0 --frames-dir "$T/frames-$b" || { bad "$b server"; continue; }
  t0=$(now)
  if "${W[@]}" "$SRV_URI$GIVEUP" "$T/$b.png" >"$T/$b.txt" 2>"$T/$b.err"; then ok "workload on --board $b ($SRV_URI$GIVEUP)"
  else bad "workload on --board $b: $(cat "$T/$b.err")"; fi
  t1=$(now)
  # its preemption: the ULX3S stops inside the buffer, the iCEBreaker (no
  # CAPS.PREEMPTION) drains it; the pixels are the same (compared below)
  g=200; [ $b = icebreaker ] && g=100
  if grep -q "^preempt: granularity $g," "$T/$b.err"; then ok "$b: $(grep '^preempt:' "$T/$b.err")"
  else bad "$b: preemption: $(grep '^preempt' "$T/$b.err")"; fi
  # a second connection finds the display the workload left (fb1 shown)
  "$SGPU_BIN/sgpu" --device "$SRV_URI$GIVEUP" info >"$T/$b-info.txt" 2>&1
  if grep -q "^display 0: *160x120 RGB565 pitch 320 .*replication 4x4" "$T/$b-info.txt"; then
    ok "$b: the device persists: $(grep '^display 0' "$T/$b-info.txt")"
  else bad "$b: second connection: $(cat "$T/$b-info.txt")"; fi
  # its CYCLE counter's rate, from the board its firmware names (docs/boards.md:
  # the iCEBreaker's 12 MHz oscillator, the ULX3S PLL's 30 MHz)
  hz=12000000; [ $b = ulx3s ] && hz=30000000
  if grep -q "^clock: *$hz Hz (the board's system clock" "$T/$b-info.txt"; then ok "$b: $(grep '^clock' "$T/$b-info.txt")"
  else bad "$b: clock: $(grep '^clock' "$T/$b-info.txt")"; fi
  wait_gone "$T/srv-$b.err" 2 || bad "$b: the server did not see the clients go"
  kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
  boot=$(booted_cycle "$T/srv-$b.err"); end=$(gone_cycle "$T/srv-$b.err")
  echo "FIGURE link_boards_${b}_wall_s $(secs "$t0" "$t1")"
  echo "FIGURE link_boards_${b}_cycles $(( ${end:-0} - ${boot:-0} ))"
  sed 's/^/# /' "$T/srv-$b.err"
  n=$(ls "$T/frames-$b" | wc -l); last=$(ls "$T/frames-$b" | sort | tail -n 1)
  bits=8; [ $b = icebreaker ] && bits=4
  if [ "$n" -ge 2 ] && r=$(python3 "$SGPU_ROOT/tests/link/png_cmp.py" "$T/frames-$b/$last" "$T/$b.png" $bits); then
    ok "$b: $n frames from the pins; the last ($last) equals the captured frame: $r"
  else bad "$b: $n frames from the pins; last $last: ${r:-}"; fi
  # and the frame the in-process model captured from its own pixel outputs
  if [ -n "$last" ] && r=$(python3 "$SGPU_ROOT/tests/link/png_cmp.py" "$T/frames-$b/$last" "$T/sim.png" $bits); then
    ok "$b: the last frame on the pins equals the in-process model's frame: $r"
  else bad "$b: the last frame on the pins differs from the in-process model's: ${r:-}"; fi
done

# --- the iCEBreaker through a pseudo-terminal
start_server srv-pty --board icebreaker --pty
if "${W[@]}" "$SRV_URI@3000000$GIVEUP" >"$T/pty.txt" 2>"$T/pty.err"; then ok "workload on --board icebreaker --pty ($SRV_URI@3000000$GIVEUP)"
else bad "workload on --board icebreaker --pty: $(cat "$T/pty.err")"; fi
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null

for v in bsim icebreaker ulx3s pty; do
  if [ -s "$T/sim.txt" ] && cmp -s "$T/sim.txt" "$T/$v.txt"; then ok "$v: log and checksums equal sim's"
  else bad "$v differs from sim: $(diff "$T/sim.txt" "$T/$v.txt" | head -20)"; fi
done

# --- optional: link_workload itself (320x240 framebuffers at 1 MiB) on the ULX3S
if [ "${SGPU_LINK_BOARDS_FULL:-0}" = 1 ]; then
  "$SGPU_LINK_BIN/link_workload" sim >"$T/full-sim.txt" 2>&1
  start_server srv-full --board ulx3s --listen tcp:127.0.0.1:0
  t0=$(now)
  "$SGPU_LINK_BIN/link_workload" "$SRV_URI$GIVEUP" >"$T/full-ulx3s.txt" 2>&1
  t1=$(now); wait_gone "$T/srv-full.err"; kill "$SRV_PID"
  echo "FIGURE link_boards_full_ulx3s_wall_s $(secs "$t0" "$t1")"
  echo "FIGURE link_boards_full_ulx3s_cycles $(( $(gone_cycle "$T/srv-full.err") - $(booted_cycle "$T/srv-full.err") ))"
  if cmp -s "$T/full-sim.txt" "$T/full-ulx3s.txt"; then ok "link_workload on ulx3s equals sim's"
  else bad "link_workload on ulx3s: $(diff "$T/full-sim.txt" "$T/full-ulx3s.txt" | head)"; fi
fi
finish
