#!/usr/bin/env bash
# run_valgrind.sh TEST...: run each host test program (built without
# sanitizers) under valgrind memcheck.  A test passes when it passes and
# valgrind reports no error and no definitely/indirectly lost block
# (Verilator's runtime keeps some allocations until exit: "still reachable"
# is not an error).  Logs: build/valgrind/logs/<test>.log.
# SGPU_VALGRIND_SKIP="name ..." skips tests (each skip is printed); the
# default skips test_capture: it simulates whole video frames (8 s natively,
# several minutes under valgrind) and has no reduced mode.  Likewise the
# scenes that run 640x480 FILLs on the model (each some 300,000 cycles of a
# chip with six command processors) are skipped inside their programs
# (SGPU_TEST_SKIP, a cmocka glob): memcheck would spend nearly all of their
# ten minutes in the Verilator model; the library calls they make are the
# ones the other functions make, and the whole suite runs them under
# AddressSanitizer and UBSan.
set -u
# program -> the test functions skipped under valgrind (one glob each)
skip_functions() {
  case "$1" in
    test_preempt) echo "test_preempt_inside_fill_and_copy" ;;
    test_priority) echo "test_priority_overtakes_fill" ;;
    test_time_slice) echo "test_time_slice_o*" ;;  # overtakes_fill, off_in_order
    test_vm) echo "test_preempted_vm_submission_resumes" ;;
  esac
}
root=$(cd "$(dirname "$0")/../.." && pwd)
logdir=$root/build/valgrind/logs
mkdir -p "$logdir"
skip=" ${SGPU_VALGRIND_SKIP-test_capture} "
status=0
total_start=$(date +%s)
for t in "$@"; do
  name=$(basename "$t")
  if [[ "$skip" == *" $name "* ]]; then
    echo "SKIP $name (too slow under valgrind; see tests/valgrind/run_valgrind.sh)"
    continue
  fi
  log=$logdir/$name.log
  start=$(date +%s)
  fskip=$(skip_functions "$name")
  [ -n "$fskip" ] && echo "     ($name: skipping $fskip under valgrind)"
  SGPU_TEST_SKIP=$fskip valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    --num-callers=30 --log-file="$log.vg" "$t" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log.vg" | tail -n 1)
  if [ $rc -eq 0 ]; then
    printf 'PASS %-36s %4ss  (valgrind: %s errors)\n' "$name" "$secs" "${errs:-?}"
  else
    status=1
    printf 'FAIL %-36s %4ss  (exit %d, valgrind: %s errors)\n' "$name" "$secs" "$rc" "${errs:-?}"
    grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in|   (at|by) )' "$log.vg" | head -n 40
    tail -n 5 "$log"
  fi
done
echo "FIGURE valgrind_host_suite_seconds $(( $(date +%s) - total_start ))"
exit $status
