#!/usr/bin/env bash
# `sgpu submit --quantum CYCLES` and `sgpu info`'s time-slice line (time
# slices between contexts of equal priority, sgpu_set_time_slice):
#   - --help lists --quantum; a bad value (not a number, above 0xFFFFFF) is a
#     one-line usage error (exit 1) naming it;
#   - info says whether the device has two normal rings per node, and
#     --json has has_time_slice;
#   - on the model a submission with --quantum completes when the device
#     has time slices, and is refused in one line (exit 3) when it has none;
#   - on the iCEBreaker board model (no CAPS.TIME_SLICE) info says contexts
#     of equal priority run in submission order and --quantum is refused;
#   - through sgpud it is refused in one line (NOT_SUPPORTED).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

cat >"$T/done.s" <<'S'
  write_data SCRATCH, 0x77
S
yes_line='^time slices: two normal rings per node (quantum set per node with sgpu_set_time_slice or submit --quantum; 0 = off)$'
no_line='^time slices: none — contexts of equal priority run in submission order$'

# --- help and bad values
"$SGPU" submit --help >"$T/help" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q -- '--quantum CYCLES .*time slice' "$T/help" \
  && ok "submit --help lists --quantum" || bad "submit --help: exit $rc $(cat "$T/help")"
for v in soon 16777216 0x1000000; do
  "$SGPU" submit --quantum "$v" "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 1 ] && one_line "$T/err" && grep -q "bad --quantum '$v' (cycles, 0..16777215; 0 = no time slices)" "$T/err" \
    && [ ! -s "$T/out" ] && ok "--quantum $v: one-line usage error, exit 1" \
    || bad "--quantum $v: exit $rc $(cat "$T/out" "$T/err")"
done
"$SGPU" submit --quantum >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && ok "--quantum without a value: exit 1" || bad "--quantum alone: exit $rc $(cat "$T/err")"

# --- the model
"$SGPU" info >"$T/info" 2>"$T/err" || bad "info: $(cat "$T/err")"
if grep -q "$yes_line" "$T/info"; then ts=yes
elif grep -q "$no_line" "$T/info"; then ts=no
else ts=; bad "info: no time-slice line: $(cat "$T/info")"; fi
[ -n "$ts" ] && ok "info: time slices: $ts"
"$SGPU" --json info >"$T/info.json" 2>"$T/err" && python3 - "$T/info.json" "$ts" <<'PY' \
  && ok "info --json: has_time_slice" || bad "info --json: $(cat "$T/info.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["has_time_slice"] is (sys.argv[2] == "yes"), j
if j["has_time_slice"]:
    assert j["has_priority"] is True, j  # TIME_SLICE implies PRIORITY
PY
"$SGPU" submit --quantum 2000 "$T/done.s" "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
if [ "$ts" = yes ]; then
  [ "$rc" -eq 0 ] && grep -q 'fence 2 on node 0 completed' "$T/out" \
    && grep -q '^event DMA_COMPLETED .* node=0 fence=2 flags=0x0 priority=normal$' "$T/out" \
    && ok "submit --quantum 2000: completed on a normal ring" \
    || bad "submit --quantum 2000: exit $rc $(cat "$T/out" "$T/err")"
  "$SGPU" submit --quantum 0 --node 1 "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && grep -q 'fence 1 on node 1 completed' "$T/out" \
    && ok "submit --quantum 0 --node 1: completed" || bad "submit --quantum 0: exit $rc $(cat "$T/out" "$T/err")"
  "$SGPU" submit --quantum 2000 --node 9 "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -ne 0 ] && one_line "$T/err" && grep -q 'node 9 does not exist' "$T/err" \
    && ok "submit --quantum --node 9: refused in one line: $(cat "$T/err")" \
    || bad "submit --quantum --node 9: exit $rc $(cat "$T/out" "$T/err")"
else
  [ "$rc" -eq 3 ] && one_line "$T/err" && grep -q 'one normal ring per node' "$T/err" \
    && ok "submit --quantum 2000 without time slices: refused in one line" \
    || bad "submit --quantum 2000 (no time slices): exit $rc $(cat "$T/out" "$T/err")"
fi

# --- the iCEBreaker board model: no time slices
start_listen() { # NAME ARGS...: sgpu-sim --listen in the background; sets uri
  local name=$1; shift
  "$BIN/sgpu-sim" --listen tcp:127.0.0.1:0 "$@" >"$T/$name.out" 2>"$T/$name.err" &
  pids+=($!)
  uri=
  for _ in $(seq 1 600); do
    uri=$(sed -n 's/^listening on //p' "$T/$name.out" | head -n 1)
    [ -n "$uri" ] && return 0
    sleep 0.1
  done
  return 1
}
if start_listen ice --board icebreaker; then
  "$SGPU" --device "$uri,giveup=60000" info >"$T/out" 2>"$T/err"
  grep -q "$no_line" "$T/out" \
    && ok "iCEBreaker info: contexts of equal priority run in submission order" \
    || bad "iCEBreaker info: $(cat "$T/out" "$T/err")"
  "$SGPU" --device "$uri,giveup=60000" submit --quantum 2000 --timeout 2000 "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] && one_line "$T/err" \
    && grep -q 'the chip has one normal ring per node; contexts of equal priority run in submission order' "$T/err" \
    && ok "iCEBreaker submit --quantum: refused in one line: $(cat "$T/err")" \
    || bad "iCEBreaker submit --quantum: exit $rc $(cat "$T/out" "$T/err")"
  "$SGPU" --device "$uri,giveup=60000" submit --timeout 2000 "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && ok "iCEBreaker submit without --quantum runs" \
    || bad "iCEBreaker submit: exit $rc $(cat "$T/out" "$T/err")"
else
  bad "sgpu-sim --board icebreaker did not start: $(cat "$T/ice.err")"
fi

# --- through sgpud: refused in one line
"$BIN/sgpud" --device sim:video=tiny --socket "$T/s.sock" >"$T/sgpud.out" 2>"$T/sgpud.err" &
pids+=($!)
for _ in $(seq 1 300); do grep -q '^sgpud: ready at' "$T/sgpud.out" 2>/dev/null && break; sleep 0.1; done
"$SGPU" --device "sgpud:$T/s.sock" submit --quantum 2000 "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 3 ] && one_line "$T/err" && grep -q 'sgpu_set_time_slice is refused through sgpud' "$T/err" \
  && ok "through sgpud: --quantum refused in one line: $(cat "$T/err")" \
  || bad "sgpud --quantum: exit $rc $(cat "$T/out" "$T/err")"
"$SGPU" --device "sgpud:$T/s.sock" submit "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && ok "through sgpud: submit without --quantum runs" || bad "sgpud submit: exit $rc $(cat "$T/out" "$T/err")"

tap_finish
