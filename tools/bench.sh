#!/usr/bin/env bash
# `make bench`: measure the chip, its driver and its simulator and write
# OUT/report.md, OUT/results.json and OUT/*.png (tools/bench_report.py).
#   tools/bench.sh BUILD OUT [QUICK]      (make bench builds the programs)
# Environment, from tests/bench/bench.mk: BENCH_BASE (the BASE given),
# BENCH_BASE_SHA and BENCH_BASE_BIN (the base commit and the folder of its
# bench_model and bench_demo); without them the current model is measured
# alone.
# QUICK=1: the reduced run of tests/bench/bench_quick.sh (short workloads,
# no demo under callgrind).  Machine-dependent figures (model cycles per
# second) are measurements, never checked against a duration here.
set -u
BUILD=${1:-build}
OUT=${2:-$BUILD/bench}
QUICK=${3:-0}
B=$BUILD/bench
mkdir -p "$OUT"
RAW=$OUT/raw.txt
: >"$RAW"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
say() { echo "bench: $*" >&2; }
fail() { say "$*"; exit 1; }

if [ "$QUICK" = 1 ]; then
  IDLE=300000 BLIT=300000 IRCYC=20000 CGCYC=20000 DEMOF=1 CGDEMO=0 SUBN=50 CMDN=200 REPS=1
else
  IDLE=2000000 BLIT=1500000 IRCYC=100000 CGCYC=100000 DEMOF=4 CGDEMO=1 SUBN=200 CMDN=2000 REPS=3
fi
echo "QUICK $QUICK" >>"$RAW"

# The sides: the current tree, and the base commit when there is one.
declare -A BIN=([cur]=$B)
SIDES=cur
head=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' with uncommitted changes')
echo "MODELDESC cur the working tree at $head$dirty" >>"$RAW"
if [ -n "${BENCH_BASE_SHA:-}" ]; then
  BIN[base]=$BENCH_BASE_BIN
  SIDES="base cur"
  echo "BASE ${BENCH_BASE:-?} $BENCH_BASE_SHA" >>"$RAW"
  echo "MODELDESC base BASE=${BENCH_BASE:-?}: commit $(git log -1 --format='%h of %ad' --date=short "$BENCH_BASE_SHA")" >>"$RAW"
fi

# 1. Chip figures (cycles).
say "chip figures"
"$B/bench_chip" $([ "$QUICK" = 1 ] && echo --quick) >"$T/chip" || fail "bench_chip failed"
cat "$T/chip" >>"$RAW"

# 2. Model speed, base against current, same workloads, same run.  The
#    machine is shared: each program runs REPS times, the sides alternating,
#    and the best run of each counts (CPU time of the simulating thread).
#    Hashes and fingerprints say whether both sides behaved the same.
say "model speed ($SIDES)"
for w in idle blit; do
  n=$IDLE; [ $w = blit ] && n=$BLIT
  for r in $(seq "$REPS"); do
    for v in $SIDES; do
      "${BIN[$v]}/bench_model" $w $n >"$T/m" || fail "bench_model ($v) $w failed"
      sed "s/^MODEL /MODEL model=$v rep=$r /" "$T/m" >>"$RAW"
    done
  done
done
# Host instructions per simulated cycle (callgrind: independent of the load
# other programs put on the machine).  Idle: what the model's
# sgpu_sim_run_until_frame runs over CGCYC cycles of scanout.  Demo: the
# demo's one frame (the set-up, the frame drawn and the capture of the
# frames around it, ~1.3 M cycles), every entry point of the model that runs
# cycles counted, divided by the cycles the chip ran (bench_demo_wrap.c).
ir_of() { sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$1" | tr -d ,; }
for v in $SIDES; do
  valgrind --tool=callgrind --toggle-collect=sgpu_sim_run_until_frame --callgrind-out-file="$T/cg.$v" \
    "${BIN[$v]}/bench_model" idle $CGCYC >/dev/null 2>"$T/vg.$v" || fail "callgrind of bench_model ($v) failed"
  echo "IRCYCLE model=$v workload=idle $(ir_of "$T/vg.$v") $CGCYC" >>"$RAW"
done
if [ "$CGDEMO" = 1 ]; then
  say "demo under callgrind ($SIDES)"
  for v in $SIDES; do
    tog=""
    for f in run run_until_frame reg_read reg_write mem_read mem_write; do tog="$tog --toggle-collect=sgpu_sim_$f"; done
    valgrind --tool=callgrind $tog --callgrind-out-file="$T/cgd.$v" \
      "${BIN[$v]}/bench_demo" --out "$T/cgdemo-$v" --frames 1 --budget 0 >"$T/cgd.out.$v" 2>"$T/vgd.$v" || {
      tail -n 5 "$T/vgd.$v"; fail "callgrind of bench_demo ($v) failed"; }
    cyc=$(sed -n 's/^BENCH_SIM_CYCLES \([0-9]*\)$/\1/p' "$T/vgd.$v")
    [ -n "$cyc" ] || fail "bench_demo ($v) did not report its cycles"
    echo "IRCYCLE model=$v workload=demo $(ir_of "$T/vgd.$v") $cyc" >>"$RAW"
  done
fi
# The demo on each side: its frames (crc32) and cycles, its speed.
for r in $(seq "$REPS"); do
  for v in $SIDES; do
    "${BIN[$v]}/bench_demo" --out "$T/demo-$v" --frames $DEMOF --budget 0 >"$T/demo.$v" 2>&1 || {
      tail -n 5 "$T/demo.$v"; fail "bench_demo ($v) failed"; }
    speed=$(sed -n 's/^FIGURE demo model speed: \([0-9]*\) cycles\/s$/\1/p' "$T/demo.$v")
    sum=$(grep '^frame ' "$T/demo.$v" | sed 's/, [0-9.]* s$//' | md5sum | cut -c1-16)
    echo "DEMO model=$v rep=$r cycles_per_s=${speed:-0} frames=$DEMOF fingerprint=$sum" >>"$RAW"
  done
done

# 3. Icarus Verilog on the same RTL: N cycles minus 0 cycles (elaboration).
say "Icarus Verilog"
t0=$(date +%s.%N); vvp -n "$B/tb_speed.vvp" +cycles=0 >/dev/null || fail "vvp failed"
t1=$(date +%s.%N); vvp -n "$B/tb_speed.vvp" +cycles=$IRCYC >"$T/iv" || fail "vvp failed"
t2=$(date +%s.%N)
grep -q "ICARUS cycles=$IRCYC" "$T/iv" || fail "tb_speed did not finish"
echo "ICARUS $IRCYC $(python3 -c "print(max(1e-6, ($t2-$t1)-($t1-$t0)))")" >>"$RAW"

# 4. Host cost (callgrind instructions).
say "host cost (callgrind)"
SUB=$BUILD/tests/host/bench_submit
valgrind --tool=callgrind --toggle-collect=sgpu_submit_command --callgrind-out-file="$T/cg.sub" \
  "$SUB" $SUBN >"$T/sub.log" 2>"$T/vg.sub" || fail "bench_submit under callgrind failed"
callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$T/cg.sub" >"$T/sub.ann"
echo "CALLGRIND submit $SUBN $T/sub.ann" >>"$RAW"
valgrind --tool=callgrind --callgrind-out-file="$T/cg.cmd" "$B/bench_cmd" $CMDN >/dev/null 2>"$T/vg.cmd" ||
  fail "bench_cmd under callgrind failed"
callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$T/cg.cmd" >"$T/cmd.ann"
echo "CALLGRIND cmd $CMDN $T/cmd.ann" >>"$RAW"

# 5. Board and link reports, when present.
for f in "$BUILD/icebreaker/report.txt" "$BUILD/synth/pnr.txt" "$BUILD/link/report.txt" \
         "$BUILD"/test-logs/pnr_icebreaker.sh.log "$BUILD"/test-logs/test_link*.log; do
  [ -f "$f" ] && echo "REPORT $f" >>"$RAW"
done

say "report"
python3 tools/bench_report.py "$RAW" "$OUT" || fail "bench_report.py failed"
