#!/usr/bin/env bash
# `sgpu vm` (the mappings of each node's current context, from its page
# tables) and `sgpu info`'s virtual-memory line:
#   - --help describes it; a bad --node / --root is a one-line usage error;
#   - info says whether the device has GPU virtual memory, --json has has_vm;
#   - without CAPS.VM `sgpu vm` is refused in one line (exit 3) naming CAPS.VM,
#     with --json as an error object;
#   - with CAPS.VM: a fresh chip's nodes are physical (VM_ROOT 0), --node 0
#     says so in one line (exit 3), --root of a zeroed page maps nothing,
#     --root of tables a set-up file wrote lists their runs, --json lists
#     the spaces.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

"$SGPU" vm --help >"$T/help" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q -- '--root ADDR' "$T/help" && grep -q 'VM_ROOT' "$T/help" \
  && ok "vm --help" || bad "vm --help: exit $rc $(cat "$T/help")"
"$SGPU" --help >"$T/help" 2>&1
grep -q '^ *vm ' "$T/help" && ok "sgpu --help lists vm" || bad "sgpu --help lacks vm"
for v in "--node x" "--root 0x1001x" "--root"; do
  # shellcheck disable=SC2086
  "$SGPU" vm $v >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 1 ] && one_line "$T/err" && ok "vm $v: usage error" || bad "vm $v: exit $rc $(cat "$T/err")"
done

"$SGPU" info >"$T/info" 2>&1 || bad "info failed"
"$SGPU" --json info >"$T/info.json" 2>&1 || bad "info --json failed"
has=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["has_vm"])' "$T/info.json" 2>/dev/null)
case "$has" in
True)
  grep -q '^virtual memory: yes' "$T/info" && ok "info: virtual memory yes" || bad "info line: $(grep -i virtual "$T/info")"
  "$SGPU" vm >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && grep -q '^node 0: physical context (VM_ROOT 0)$' "$T/out" \
    && ok "vm: fresh nodes are physical" || bad "vm: exit $rc $(cat "$T/out" "$T/err")"
  "$SGPU" vm --node 0 >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] && one_line "$T/err" && grep -q 'physical (VM_ROOT 0)' "$T/err" \
    && ok "vm --node 0: physical context refused" || bad "vm --node 0: exit $rc $(cat "$T/err")"
  "$SGPU" vm --root 0x7ff000 >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && grep -q 'nothing mapped' "$T/out" && ok "vm --root: a zeroed directory maps nothing" \
    || bad "vm --root: exit $rc $(cat "$T/out" "$T/err")"
  # a directory and a table written by a set-up file: runs merged, access shown
  cat >"$T/tables.s" <<'S'
  write_data 0x200000, 0x201001
  write_data 0x201004, 0x300007, 0x301007
  write_data 0x201014, 0x400001
S
  "$SGPU" vm --root 0x200000 --run "$T/tables.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && grep -q '^  va 0x00001000-0x00002fff -> pa 0x00300000-0x00301fff  rw  2 pages$' "$T/out" \
    && grep -q '^  va 0x00005000-0x00005fff -> pa 0x00400000-0x00400fff  r   1 page$' "$T/out" \
    && [ "$(grep -c '^  va ' "$T/out")" -eq 2 ] && ok "vm --root: two runs, merged, with their access" \
    || bad "vm --root tables: exit $rc $(cat "$T/out" "$T/err")"
  "$SGPU" --json vm >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["spaces"][0]["physical"]' "$T/out" \
    && ok "vm --json" || bad "vm --json: exit $rc $(cat "$T/out" "$T/err")"
  ;;
False)
  grep -q '^virtual memory: no — contexts use physical addresses and windows (CAPS.VM = 0)$' "$T/info" \
    && ok "info: no virtual memory" || bad "info line: $(grep -i virtual "$T/info")"
  "$SGPU" vm >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] && one_line "$T/err" && grep -q 'no GPU virtual memory (CAPS.VM = 0)' "$T/err" \
    && ok "vm without CAPS.VM: refused" || bad "vm without CAPS.VM: exit $rc $(cat "$T/err")"
  "$SGPU" --json vm >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "CAPS.VM" in d["error"] and d["exit"] == 3' "$T/out" \
    && ok "vm --json without CAPS.VM: error object" || bad "vm --json: exit $rc $(cat "$T/out")"
  ;;
*) bad "info --json has no has_vm: $(cat "$T/info.json")" ;;
esac
tap_finish
