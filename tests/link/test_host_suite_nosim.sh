#!/usr/bin/env bash
# The host test suite (tests/host/test_*.c), built against the library
# without the model (-DSGPU_NO_SIM, sanitizers on), run through tcp: to
# sgpu-sim --listen.  A test on sim gets a fresh chip per fixture; here each
# test function runs in a process of its own (SGPU_TEST_FILTER) against
# fresh servers: SGPU_TEST_DEVICE=tcp:127.0.0.1:PORT and a second one,
# SGPU_TEST_DEVICE2, for tests that need two devices.  Programs without a
# device (assembler, frame codec) run once as they are.  Every test that
# does not need the model must pass; those that do (simulated-time figures,
# sim-only URI options) skip and say why (tests/host/host_test.h).
# FIGURE host_suite_nosim_tests_passed / _skipped.
source "$SGPU_ROOT/tests/link/link_lib.sh"
D=$SGPU_LINK_BIN/nosim
passed=0; skipped=0
runs=0
run_one() {  # PROGRAM [FILTER]
  local t=$1 filter=${2:-} name; name=$(basename "$1")${2:+:$2}
  local log="$T/${name//:/_}.log" u1 u2
  runs=$((runs + 1))
  start_server "a$runs" --listen tcp:127.0.0.1:0 || { bad "$name: no server"; return; }
  u1=$SRV_URI; local p1=$SRV_PID
  start_server "b$runs" --listen tcp:127.0.0.1:0 || { bad "$name: no second server"; kill "$p1"; return; }
  u2=$SRV_URI; local p2=$SRV_PID
  local t0; t0=$(date +%s)
  if SGPU_TEST_DEVICE=$u1 SGPU_TEST_DEVICE2=$u2 SGPU_TEST_FILTER=$filter timeout 600 "$t" >"$log" 2>&1; then
    local p s
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    p=${p:-0}; s=${s:-0}
    passed=$((passed + p)); skipped=$((skipped + s))
    if [ "$p" = 0 ] && [ "$s" = 0 ]; then bad "$name: no test ran"; else
      ok "$name through $u1: $p passed, $s skipped ($(( $(date +%s) - t0 )) s)"; fi
    grep "needs the model" "$log" | sed 's/^/     /'
  else
    bad "$name through $u1"
    grep -E '^\[  (FAILED|ERROR) \]|ERROR|runtime error|error: |Failure' "$log" | head -20 | sed 's/^/     /'
    tail -5 "$log" | sed 's/^/     | /'
  fi
  kill "$p1" "$p2" 2>/dev/null; wait "$p1" "$p2" 2>/dev/null
}
for t in "$D"/test_*; do
  src=$SGPU_ROOT/tests/host/$(basename "$t").c
  if grep -q '#include "host_test.h"' "$src"; then
    for fn in $(grep -oE 'cmocka_unit_test(_setup_teardown)?\([a-z0-9_]*' "$src" | sed 's/.*(//'); do run_one "$t" "$fn"; done
  else
    run_one "$t"
  fi
done
echo "FIGURE host_suite_nosim_tests_passed $passed"
echo "FIGURE host_suite_nosim_tests_skipped $skipped"
finish
