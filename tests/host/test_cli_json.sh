#!/usr/bin/env bash
# --json always answers in JSON (issue 22): every usage error, before the
# command (unknown command or option, no command, a missing -d/--device
# value) or in it, is one {"error": MESSAGE, "exit": 1} object on stdout,
# with --json before or after the command; the error line stays on stderr.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

check() {  # ARGS... : exit 1, one JSON object with "error" and "exit": 1
  "$SGPU" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" -eq 1 ] && python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
assert j["exit"] == 1 and j["error"], j' "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ]; then
    ok "sgpu $*: $(cat "$T/out")"
  else
    bad "sgpu $*: exit $rc, stdout $(cat "$T/out"), stderr $(cat "$T/err")"
  fi
}
check --json frob
check frob --json
check --json
check --json --bogus info
check --json -d
check --json --device
check --json info --bogus
check info --bogus --json
check --json asm
check --json top --count 3
check --json peek 0x3
check --json submit --bogus x.s

"$SGPU" --json --version >"$T/out" && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["version"]' "$T/out" \
  && ok "--json --version is JSON" || bad "--json --version: $(cat "$T/out")"
"$SGPU" frob >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$T/out" ] && grep -q "unknown command 'frob'" "$T/err" \
  && ok "without --json: the error on stderr only" || bad "plain usage error: exit $rc"

tap_finish
