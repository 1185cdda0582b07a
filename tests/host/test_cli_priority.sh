#!/usr/bin/env bash
# `sgpu submit --priority normal|high`, `sgpu info`'s priority rings line and
# the ring `sgpu events` names (context priority, sgpu_set_context_priority):
#   - --help lists --priority; a bad value is a one-line usage error (exit 1)
#     naming it;
#   - on the model a high-priority submission completes; its event names the
#     high ring when info says the device has priority rings, and no ring
#     when it has none;
#   - on the iCEBreaker board model (no CAPS.PRIORITY) info says high-priority
#     contexts share the normal ring and a --priority high submission runs
#     there;
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

# --- help and a bad value
"$SGPU" submit --help >"$T/help" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q -- '--priority P .*normal (default) or high' "$T/help" \
  && ok "submit --help lists --priority" || bad "submit --help: exit $rc $(cat "$T/help")"
"$SGPU" submit --priority urgent "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "bad --priority 'urgent' (normal or high)" "$T/err" \
  && [ ! -s "$T/out" ] && ok "--priority urgent: one-line usage error, exit 1" \
  || bad "--priority urgent: exit $rc $(cat "$T/out" "$T/err")"
"$SGPU" submit --priority "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && ok "--priority without a value: exit 1" || bad "--priority FILE: exit $rc $(cat "$T/err")"

# --- the model
"$SGPU" info >"$T/info" 2>"$T/err" || bad "info: $(cat "$T/err")"
if grep -q '^priority rings: yes$' "$T/info"; then rings=yes
elif grep -q '^priority rings: no — high-priority contexts share the normal ring$' "$T/info"; then rings=no
else rings=; bad "info: no priority rings line: $(cat "$T/info")"; fi
[ -n "$rings" ] && ok "info: priority rings: $rings"
"$SGPU" --json info >"$T/info.json" 2>"$T/err" && python3 - "$T/info.json" "$rings" <<'PY' \
  && ok "info --json: has_priority" || bad "info --json: $(cat "$T/info.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["has_priority"] is (sys.argv[2] == "yes"), j
PY
"$SGPU" submit --priority high "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
if [ "$rings" = yes ]; then ev='^event DMA_COMPLETED .* node=0 fence=1 flags=0x0 priority=high$'
else ev='^event DMA_COMPLETED .* node=0 fence=1 flags=0x0$'; fi
[ "$rc" -eq 0 ] && grep -q 'fence 1 on node 0 (high priority) completed' "$T/out" && grep -q "$ev" "$T/out" \
  && ok "submit --priority high: completed, event as the device's rings say" \
  || bad "submit --priority high: exit $rc $(cat "$T/out" "$T/err")"
"$SGPU" submit --priority normal "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
if [ "$rings" = yes ]; then ev='^event DMA_COMPLETED .* node=0 fence=1 flags=0x0 priority=normal$'; fi
[ "$rc" -eq 0 ] && grep -q 'fence 1 on node 0 completed' "$T/out" && grep -q "$ev" "$T/out" \
  && ok "submit --priority normal" || bad "submit --priority normal: exit $rc $(cat "$T/out" "$T/err")"
"$SGPU" --json submit --priority high "$T/done.s" >"$T/sub.json" 2>"$T/err" && python3 - "$T/sub.json" "$rings" <<'PY' \
  && ok "submit --json: the priority and the event's ring" || bad "submit --json: $(cat "$T/sub.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["submissions"][0]["priority"] == "high", j
e = j["events"][0]
assert e.get("priority") == ("high" if sys.argv[2] == "yes" else None), e
PY

# --- the iCEBreaker board model: no priority rings
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
  grep -q '^priority rings: no — high-priority contexts share the normal ring$' "$T/out" \
    && ok "iCEBreaker info: high-priority contexts share the normal ring" || bad "iCEBreaker info: $(cat "$T/out" "$T/err")"
  "$SGPU" --device "$uri,giveup=60000" submit --priority high --timeout 2000 "$T/done.s" "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && grep -q 'fence 2 on node 0 (high priority) completed' "$T/out" \
    && grep -q '^event DMA_COMPLETED .* node=0 fence=1 flags=0x0$' "$T/out" \
    && grep -q '^event DMA_COMPLETED .* node=0 fence=2 flags=0x0$' "$T/out" \
    && ok "iCEBreaker submit --priority high: in order on the normal ring" \
    || bad "iCEBreaker submit --priority high: exit $rc $(cat "$T/out" "$T/err")"
else
  bad "sgpu-sim --board icebreaker did not start: $(cat "$T/ice.err")"
fi

# --- through sgpud: refused in one line
"$BIN/sgpud" --device sim:video=tiny --socket "$T/s.sock" >"$T/sgpud.out" 2>"$T/sgpud.err" &
pids+=($!)
for _ in $(seq 1 300); do grep -q '^sgpud: ready at' "$T/sgpud.out" 2>/dev/null && break; sleep 0.1; done
"$SGPU" --device "sgpud:$T/s.sock" submit --priority high "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'sgpu_set_context_priority is refused through sgpud' "$T/err" \
  && ok "through sgpud: --priority high refused in one line: $(cat "$T/err")" \
  || bad "sgpud --priority high: exit $rc $(cat "$T/out" "$T/err")"
"$SGPU" --device "sgpud:$T/s.sock" submit --priority normal "$T/done.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && ok "through sgpud: --priority normal runs" || bad "sgpud --priority normal: exit $rc $(cat "$T/out" "$T/err")"

tap_finish
