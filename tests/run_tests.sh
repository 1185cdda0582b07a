#!/usr/bin/env bash
# Run each test executable given as an argument, with a time limit; print a
# line per test and the closing "N passed, N failed" line.  Logs go to
# build/test-logs/<name>.log.
set -u
logdir=build/test-logs
mkdir -p "$logdir"
pass=0; fail=0; failed=()
limit=${SGPU_TEST_TIMEOUT:-900}
for t in "$@"; do
  name=$(basename "$t")
  log="$logdir/$name.log"
  start=$(date +%s)
  if timeout "$limit" "$t" >"$log" 2>&1; then
    pass=$((pass + 1)); status=PASS
  else
    fail=$((fail + 1)); status=FAIL; failed+=("$name")
  fi
  secs=$(( $(date +%s) - start ))
  printf '%-4s %-40s %4ss\n' "$status" "$name" "$secs"
  # Lines starting with "FIGURE" or "RESULT" are measurements worth seeing.
  grep -E '^(FIGURE|RESULT)' "$log" | sed 's/^/       /'
  if [ "$status" = FAIL ]; then tail -n 25 "$log" | sed 's/^/     | /'; fi
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
