#!/usr/bin/env bash
# Host cost of one sgpu_submit_command() excluding the transport, counted by
# callgrind: inclusive instructions of sgpu_submit_command minus the inclusive
# instructions of the transport functions it calls (sgpu_tr_*), per call.
# Fails when it is 1000 or more.
set -euo pipefail
bench=${SGPU_TEST_BIN:-build/tests/host}/bench_submit
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
[ -x "$bench" ] || { echo "missing $bench"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=200
valgrind --tool=callgrind --toggle-collect=sgpu_submit_command \
  --callgrind-out-file="$tmp/cg.out" "$bench" "$n" >"$tmp/bench.log" 2>"$tmp/vg.log" || {
  cat "$tmp/bench.log" "$tmp/vg.log"; exit 1; }
grep -q "submissions $n" "$tmp/bench.log"
callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$tmp/cg.out" >"$tmp/ann.txt"
python3 - "$tmp/ann.txt" "$n" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
num = lambda s: int(s.replace(',', ''))
total = None
submit = tr = 0
seen = set()
for line in text.splitlines():
    m = re.match(r'\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$', line)
    if not m:
        continue
    ir, what = num(m.group(1)), m.group(2)
    if 'PROGRAM TOTALS' in what:
        total = ir
    fn = what.split(' [')[0].split(':')[-1].strip()
    if fn in seen:
        continue
    seen.add(fn)
    if fn == 'sgpu_submit_command':
        submit = ir
    elif fn.startswith('sgpu_tr_'):
        tr += ir
if not submit:
    submit = total or 0
if not submit:
    print("could not find sgpu_submit_command in the callgrind output"); sys.exit(1)
per = (submit - tr) / n
print(f"submit inclusive {submit} transport {tr} calls {n}")
print(f"FIGURE submit_instructions {per:.0f}")
print(f"FIGURE submit_instructions_with_transport {submit / n:.0f}")
sys.exit(0 if per < 1000 else 1)
PY
