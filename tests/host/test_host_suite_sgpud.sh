#!/usr/bin/env bash
# test_host_suite_sgpud.sh — the host library's own test suite
# (tests/host/test_*.c, the sanitizer builds) run unchanged through sgpud:
# each test function in a process of its own (SGPU_TEST_FILTER) with
# SGPU_TEST_DEVICE=sgpud:SOCKET (and SGPU_TEST_DEVICE2 on a second server,
# for tests that need two devices), against fresh servers on
# sim:video=tiny, as tests/link/test_host_suite_nosim.sh runs it through
# tcp:.  Fails if any test function fails; a skip must print its reason
# (TEST_NEEDS_MODEL: the model itself; TEST_NEEDS_LOCAL: what a program of
# a shared device may not do; tests/host/host_test.h, docs/sgpud.md).
# FIGURE host_suite_sgpud_tests_passed / _skipped.
#   SGPU_ROOT=. bash tests/host/test_host_suite_sgpud.sh [TEST...]
set -u
root=${SGPU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${SGPU_BIN:-$root/build/bin}
tbin=${SGPU_TEST_BIN:-$root/build/tests/host}
sgpud=$bin/sgpud
tmp=$(mktemp -d)
srv=; srv2=
cleanup() {
  [ -n "$srv" ] && kill "$srv" 2>/dev/null
  [ -n "$srv2" ] && kill "$srv2" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
passed=0; skipped=0; failed=0; n=0
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=($(cd "$root/tests/host" && grep -l '#include "host_test.h"' test_*.c | sed 's/\.c$//'))
for t in "${tests[@]}"; do
  src=$root/tests/host/$t.c
  [ -x "$tbin/$t" ] || { echo "FAIL  $t: $tbin/$t is not built"; failed=$((failed + 1)); continue; }
  for fn in $(grep -oE 'cmocka_unit_test(_setup_teardown)?\([a-z0-9_]*' "$src" | sed 's/.*(//'); do
    n=$((n + 1))
    sock=$tmp/s$n.sock
    sock2=$tmp/t$n.sock
    "$sgpud" --device sim:video=tiny --socket "$sock" --quiet >"$tmp/srv.out" 2>&1 &
    srv=$!
    "$sgpud" --device sim:video=tiny --socket "$sock2" --quiet >"$tmp/srv2.out" 2>&1 &
    srv2=$!
    # Up to a minute for both sockets (a loaded machine starts the two
    # models slowly); a server that exits ends the wait.
    for _ in $(seq 1 1200); do
      [ -S "$sock" ] && [ -S "$sock2" ] && break
      kill -0 "$srv" 2>/dev/null && kill -0 "$srv2" 2>/dev/null || break
      sleep 0.05
    done
    log=$tmp/$t.$fn.log
    if ! [ -S "$sock" ] || ! [ -S "$sock2" ]; then
      failed=$((failed + 1))
      echo "FAIL  $t:$fn: sgpud did not start: $(cat "$tmp/srv.out" "$tmp/srv2.out" | head -n 2 | tr '\n' ' ')"
      kill "$srv" "$srv2" 2>/dev/null; wait "$srv" "$srv2" 2>/dev/null
      srv=; srv2=
      continue
    fi
    if SGPU_TEST_DEVICE=sgpud:$sock SGPU_TEST_DEVICE2=sgpud:$sock2 SGPU_TEST_FILTER=$fn \
        timeout 300 "$tbin/$t" >"$log" 2>&1; then
      if grep -q '^\[  SKIPPED \]' "$log"; then
        if grep -q '^skipped on ' "$log"; then
          skipped=$((skipped + 1)); r=skip
        else
          failed=$((failed + 1)); r=FAIL
        fi
      else
        passed=$((passed + 1)); r=pass
      fi
    else
      failed=$((failed + 1)); r=FAIL
    fi
    printf '%-5s %s:%s\n' "$r" "$t" "$fn"
    if [ $r = skip ]; then
      grep -m1 '^skipped on ' "$log" | sed 's/^skipped on [^ ]* /      /' | cut -c1-240
    elif [ $r = FAIL ]; then
      grep '^\[  SKIPPED \]' "$log" >/dev/null && ! grep -q '^skipped on ' "$log" &&
        echo "      skipped without a reason"
      grep -E 'ERROR|LINE|not carried' "$log" | head -n 5 | cut -c1-240 | sed 's/^/      /'
    fi
    kill "$srv" "$srv2" 2>/dev/null; wait "$srv" "$srv2" 2>/dev/null
    srv=; srv2=
  done
done
echo "FIGURE host_suite_sgpud_tests_passed $passed"
echo "FIGURE host_suite_sgpud_tests_skipped $skipped"
echo "host suite through sgpud: $passed passed, $skipped skipped, $failed failed of $n test functions"
if [ $failed -ne 0 ]; then
  echo "test_host_suite_sgpud: FAILED"
  exit 1
fi
echo "test_host_suite_sgpud: OK"
