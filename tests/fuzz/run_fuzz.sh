#!/usr/bin/env bash
# run_fuzz.sh [--seconds N] [--keep-corpus] TARGET...
# For each libFuzzer target $FUZZ_DIR/fuzz_TARGET: replay every input of
# tests/fuzz/regressions/TARGET/ (each must run clean), then fuzz for N
# seconds from the seed corpus tests/fuzz/corpus/TARGET/ and print
#   FIGURE fuzz_execs_per_sec_TARGET <n>
# New inputs go to a scratch folder (or, with --keep-corpus, to
# $FUZZ_DIR/corpus/TARGET, kept between runs); the committed seeds are never
# touched.  A crash leaves its input in $FUZZ_DIR/artifacts/TARGET/ and
# makes the script fail.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fuzz_dir=${FUZZ_DIR:-$root/build/fuzz}
seconds=60
keep=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --keep-corpus) keep=1; shift ;;
    --regressions) shift ;;  # always done; accepted for the test wrappers
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || { echo "run_fuzz.sh: no target given" >&2; exit 2; }

# Options per target: fuzz_cli's error messages go to stderr on every bad
# input, so its stdout/stderr are closed (libFuzzer keeps its own reports).
# The assembler's inputs go up to 64 KiB so that expressions can nest far
# past SGPU_ASM_MAX_NESTING (a 20,000-deep one is 40 KB); its dictionary
# offers the tokens that build them.
target_opts() {
  case "$1" in
    asm) echo "-max_len=65536 -dict=$root/tests/fuzz/asm.dict" ;;
    cli) echo "-close_fd_mask=3 -max_len=65536 -dict=$root/tests/fuzz/asm.dict" ;;
    submit) echo "-max_len=4200" ;;
    *) echo "-max_len=4096" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  bin=$fuzz_dir/fuzz_$t
  [ -x "$bin" ] || { echo "FAIL $t: $bin not built"; status=1; continue; }
  seeds=$root/tests/fuzz/corpus/$t
  regs=$root/tests/fuzz/regressions/$t
  art=$fuzz_dir/artifacts/$t
  mkdir -p "$art"
  log=$fuzz_dir/logs/$t.log
  mkdir -p "$(dirname "$log")"
  : >"$log"
  opts=$(target_opts "$t")

  # 1. regression inputs: each one alone, no fuzzing
  if [ -d "$regs" ] && [ -n "$(ls -A "$regs" 2>/dev/null)" ]; then
    for r in "$regs"/*; do
      rlog=$fuzz_dir/logs/$t.regression.log
      if ! "$bin" $opts -runs=1 "$r" >"$rlog" 2>&1; then
        echo "FAIL $t: regression input ${r#$root/} crashes:"
        grep -E 'ERROR|SUMMARY|runtime error|property violated' "$rlog" | head -n 5
        status=1
      fi
    done
  fi

  # 2. fuzzing
  if [ $keep -eq 1 ]; then
    work=$fuzz_dir/corpus/$t
    mkdir -p "$work"
  else
    work=$(mktemp -d "${TMPDIR:-/tmp}/sgpu-fuzz-$t.XXXXXX")
  fi
  start=$(date +%s)
  "$bin" $opts -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/" "$work" "$seeds" >>"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  [ $keep -eq 1 ] || rm -rf "$work"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [ -z "$eps" ]; then
    # a crash ends the run before the final stats: use the last status line
    eps=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+')
  fi
  echo "FIGURE fuzz_execs_per_sec_$t ${eps:-0}"
  echo "$t: ${execs:-?} executions in ${secs}s, corpus $(ls "$seeds" 2>/dev/null | wc -l) seeds"
  if [ $rc -ne 0 ]; then
    status=1
    echo "FAIL $t: the fuzzer found a crash (exit $rc); log $log"
    grep -E 'ERROR|SUMMARY|runtime error|property violated|Test unit written|#[0-9]+ 0x' "$log" | head -n 30
  fi
done
exit $status
