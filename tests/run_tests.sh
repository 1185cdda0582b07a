#!/usr/bin/env bash
# Run each test executable given as an argument, with a time limit; print a
# line per test and the closing "N passed, N failed" line.  Logs go to
# build/test-logs/<name>.log.
#
#   run_tests.sh TEST... [--last TEST...]
#
# The tests before --last run SGPU_TEST_JOBS at a time (default: one per
# core; most tests are single-threaded, so this halves make test's wall time
# on two cores); lines appear as tests finish.  The ones after --last run one
# by one once all others are done: they check what the others left
# (coverage).
set -u
logdir=build/test-logs
mkdir -p "$logdir"
limit=${SGPU_TEST_TIMEOUT:-900}
jobs=${SGPU_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
status_dir=$(mktemp -d)
trap 'rm -rf "$status_dir"' EXIT

first=(); last=(); seen_last=0
for a in "$@"; do
  if [ "$a" = --last ]; then seen_last=1
  elif [ $seen_last = 1 ]; then last+=("$a")
  else first+=("$a"); fi
done

# run_one INDEX TEST: runs it, leaves "STATUS SECONDS" in the status folder.
run_one() {
  local name log start status
  name=$(basename "$2")
  log="$logdir/$name.log"
  start=$(date +%s)
  if timeout "$limit" "$2" >"$log" 2>&1; then status=PASS; else status=FAIL; fi
  echo "$status $(( $(date +%s) - start )) $name" >"$status_dir/$1.tmp"
  mv "$status_dir/$1.tmp" "$status_dir/$1"
}

pass=0; fail=0; failed=()
# report INDEX: prints the finished test's line, its figures and, on failure,
# the end of its log.
report() {
  local status secs name log
  read -r status secs name <"$status_dir/$1"
  log="$logdir/$name.log"
  printf '%-4s %-40s %4ss\n' "$status" "$name" "$secs"
  # Lines starting with "FIGURE" or "RESULT" are measurements worth seeing.
  grep -E '^(FIGURE|RESULT)' "$log" | sed 's/^/       /'
  if [ "$status" = PASS ]; then pass=$((pass + 1))
  else fail=$((fail + 1)); failed+=("$name"); tail -n 25 "$log" | sed 's/^/     | /'; fi
  rm -f "$status_dir/$1"
}
# report_done: reports every test that has finished.
report_done() {
  local f
  for f in "$status_dir"/*; do
    case "$f" in *.tmp|*'*') continue ;; esac
    report "$(basename "$f")"
  done
}

running=0
for i in "${!first[@]}"; do
  while [ "$running" -ge "$jobs" ]; do
    wait -n 2>/dev/null || true
    running=$((running - 1))
    report_done
  done
  run_one "$i" "${first[$i]}" &
  running=$((running + 1))
done
wait
report_done

for i in "${!last[@]}"; do
  run_one "last$i" "${last[$i]}"
  report "last$i"
done

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
