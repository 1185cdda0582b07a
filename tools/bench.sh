#!/usr/bin/env bash
# `make bench`: measure the chip, its driver and its simulator and write
# OUT/report.md, OUT/results.json and OUT/*.png (tools/bench_report.py).
#   tools/bench.sh BUILD OUT [QUICK]      (make bench builds the programs)
# BENCH_OLD_DESC / BENCH_NEW_DESC (environment, from tests/bench/bench.mk):
# what the old and the new model builds are, for the report.
# QUICK=1: the reduced run of tests/bench/bench_quick.sh (short workloads,
# the same figures).  Machine-dependent figures (model cycles per second) are
# measurements, never checked against a duration here.
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
  IDLE=300000 BLIT=300000 IRCYC=20000 CGCYC=20000 DEMOF=1 SUBN=50 CMDN=200 REPS=1
else
  IDLE=2000000 BLIT=1500000 IRCYC=100000 CGCYC=100000 DEMOF=4 SUBN=200 CMDN=2000 REPS=3
fi
echo "QUICK $QUICK" >>"$RAW"

# 1. Chip figures (cycles).
say "chip figures"
"$B/bench_chip" $([ "$QUICK" = 1 ] && echo --quick) >"$T/chip" || fail "bench_chip failed"
cat "$T/chip" >>"$RAW"

# 2. Model speed, old options against new, same workloads, same run; the
#    fingerprints must match (cycle-exact behaviour unchanged).  The machine
#    is shared: each program runs REPS times, old and new alternating, and
#    the best run of each counts (CPU time of the simulating thread).
say "model speed (old and new build options)"
echo "MODELDESC old ${BENCH_OLD_DESC:-old build options}" >>"$RAW"
echo "MODELDESC new ${BENCH_NEW_DESC:-new build options}" >>"$RAW"
for w in idle blit; do
  n=$IDLE; [ $w = blit ] && n=$BLIT
  for r in $(seq "$REPS"); do
    for v in old new; do
      "$B/bench_model-$v" $w $n >"$T/m" || fail "bench_model-$v $w failed"
      sed "s/^MODEL /MODEL model=$v rep=$r /" "$T/m" >>"$RAW"
    done
  done
done
# Host instructions per simulated cycle (callgrind: independent of the load
# other programs put on the machine).
for v in old new; do
  valgrind --tool=callgrind --toggle-collect=sgpu_sim_run_until_frame --callgrind-out-file="$T/cg.$v" \
    "$B/bench_model-$v" idle $CGCYC >/dev/null 2>"$T/vg.$v" || fail "callgrind of bench_model-$v failed"
  ir=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$T/vg.$v" | tr -d ,)
  echo "IRCYCLE model=$v $ir $CGCYC" >>"$RAW"
done
# The demo on both models: identical frames (crc32) and cycles, its speed.
for r in $(seq "$REPS"); do
  for v in old new; do
    "$B/sgpu-demo-$v" --out "$T/demo-$v" --frames $DEMOF --budget 0 >"$T/demo.$v" 2>&1 || {
      tail -n 5 "$T/demo.$v"; fail "sgpu-demo-$v failed"; }
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
