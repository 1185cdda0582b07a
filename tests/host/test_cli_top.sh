#!/usr/bin/env bash
# `sgpu top`: counters sampled over a simulated interval.  A node running a
# long FILL is busy for the whole interval and fetches words, an idle node
# is not; a short workload's fence completes within the interval; one text
# block per sample when not on a terminal; bad options are one-line errors.
set -u
BIN=${SGPU_BIN:?SGPU_BIN must name the directory of the built programs}
SGPU="$BIN/sgpu"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }

cat >"$T/long.s" <<'S'
  fill 0x100000, 4096, 4096, 256, 0x11223344   ; 1 MiB: longer than the interval
S
cat >"$T/short.s" <<'S'
  write_data 0x3000, 1, 2, 3
S
# 2 simulated ms = 2 * clock / 1000 cycles
clock=$("$SGPU" --json info | python3 -c 'import json,sys; print(json.load(sys.stdin)["clock_hz"])')

"$SGPU" --json top --run "$T/long.s" --interval 2 >"$T/long.json" 2>"$T/err" || bad "top --json exit $?: $(cat "$T/err")"
python3 - "$T/long.json" "$clock" <<'PY' && ok "busy node, idle node, interval in cycles" || bad "long workload sample"
import json, sys
s = json.load(open(sys.argv[1])); clock = int(sys.argv[2])
assert s["perf_counters"] is True, s
assert s["interval_cycles"] >= 2 * clock // 1000, s["interval_cycles"]
n0, n1 = s["nodes"][0], s["nodes"][1]
assert n0["busy_percent"] > 99.0, n0          # the FILL outlasts the interval
assert n1["busy_percent"] == 0.0 and n1["words"] == 0 and n1["packets"] == 0, n1
assert n0["status"] & 1, n0                   # STATUS.BUSY at the end of the sample
assert len(s["sources"]) >= 1
PY

"$SGPU" --json top --run "$T/short.s" --interval 2 >"$T/short.json" 2>"$T/err" || bad "top --json (short) exit $?"
python3 - "$T/short.json" <<'PY' && ok "a fence completes within the interval" || bad "short workload sample"
import json, sys
s = json.load(open(sys.argv[1]))
n0 = s["nodes"][0]
assert s["fences_per_second"] > 0, s
assert n0["last_fence"] >= 1 and n0["packets"] >= 2 and n0["busy_percent"] < 50, n0
PY

n=$("$SGPU" top --interval 1 --count 3 | grep -c '^sgpu top')
[ "$n" -eq 3 ] && ok "three text blocks for --count 3" || bad "want 3 blocks, got $n"

"$SGPU" top --interval 0 >/dev/null 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "--interval" "$T/err" \
  && ok "--interval 0 refused: $(cat "$T/err")" || bad "--interval 0: exit $rc, $(cat "$T/err")"
"$SGPU" --json top --count 3 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q '"exit":1' "$T/out" && ok "--json with --count 3 refused" || bad "--json --count 3: exit $rc"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
