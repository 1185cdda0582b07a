# tap.sh — sourced by the CLI's shell tests: the built programs' folder
# ($BIN and $SGPU; from $TAP_BIN if the test set it, else $SGPU_BIN), a
# scratch folder $T removed at exit (a test that needs more clean-up sets
# its own trap), ok/bad counters, and tap_finish: the closing "N passed,
# N failed" line and the exit status.
BIN=${TAP_BIN:-${SGPU_BIN:?SGPU_BIN must name the directory of the built programs}}
SGPU="$BIN/sgpu"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }
# one_line FILE: the file holds exactly one line (a one-line error).
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }
tap_finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
