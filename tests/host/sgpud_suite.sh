#!/usr/bin/env bash
# sgpud_suite.sh — the host test suite (tests/host/test_*.c, the sanitizer
# builds) through sgpud: each test function in a process of its own
# (SGPU_TEST_FILTER) with SGPU_TEST_DEVICE=sgpud:SOCKET (and a second,
# SGPU_TEST_DEVICE2, for tests that need two devices), against fresh
# servers on sim:video=tiny (as tests/link/test_host_suite_nosim.sh runs it
# through tcp:).  Not in make test yet: most tests use calls sgpud does not
# carry; it reports how many pass, skip and fail, and the first failure of
# each test that fails.
#   SGPU_ROOT=. bash tests/host/sgpud_suite.sh [TEST...]
set -u
root=${SGPU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
sgpud=$root/build/bin/sgpud
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0; skipped=0; failed=0; n=0
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=($(cd "$root/tests/host" && grep -l '#include "host_test.h"' test_*.c | sed 's/\.c$//'))
for t in "${tests[@]}"; do
  src=$root/tests/host/$t.c
  for fn in $(grep -o 'cmocka_unit_test([a-z0-9_]*)' "$src" | sed 's/.*(\(.*\))/\1/'); do
    n=$((n + 1))
    sock=$tmp/s$n.sock
    sock2=$tmp/t$n.sock
    "$sgpud" --device sim:video=tiny --socket "$sock" --quiet >"$tmp/srv.out" 2>&1 &
    srv=$!
    "$sgpud" --device sim:video=tiny --socket "$sock2" --quiet >"$tmp/srv2.out" 2>&1 &
    srv2=$!
    for _ in $(seq 1 100); do [ -S "$sock" ] && [ -S "$sock2" ] && break; sleep 0.05; done
    log=$tmp/$t.$fn.log
    if SGPU_TEST_DEVICE=sgpud:$sock SGPU_TEST_DEVICE2=sgpud:$sock2 SGPU_TEST_FILTER=$fn \
        timeout 120 "$root/build/tests/host/$t" >"$log" 2>&1; then
      if grep -q '^\[  SKIPPED \]' "$log"; then skipped=$((skipped + 1)); r=skip; else passed=$((passed + 1)); r=pass; fi
    else
      failed=$((failed + 1)); r=FAIL
    fi
    printf '%-5s %s:%s\n' "$r" "$t" "$fn"
    [ $r = FAIL ] && grep -m1 -E 'FAIL|error|Error|!=|not carried' "$log" | cut -c1-200 | sed 's/^/      /'
    kill "$srv" "$srv2" 2>/dev/null; wait "$srv" "$srv2" 2>/dev/null
  done
done
echo "FIGURE sgpud_suite: $passed passed, $skipped skipped, $failed failed of $n test functions"
