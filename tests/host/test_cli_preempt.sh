#!/usr/bin/env bash
# `sgpu preempt` and the preemption in the other commands (issue 23).
# A CLI run opens the device for itself, so what it preempts is its own
# --run work (submitted without waiting):
#   - a buffer waiting on a memory word is preempted inside its WAIT_MEM:
#     the DMA_PREEMPTED event's preemption fence (default: the last
#     submitted + 1, or as given), last completed fence and count, in text
#     and --json, the event in the events array with the same fields;
#   - two long FILLs preempted after some cycles and sent again with
#     --resubmit (flags.resubmission) complete, the running one resumed
#     where it stopped (fewer cycles than the FILL takes whole); a WAIT
#     resubmitted polls again (its fence does not come: exit 4);
#   - over tcp: (sgpu-sim --listen) the same; on the iCEBreaker board model
#     (no hardware preemption) info shows the drain granularity and preempt
#     says the node drained; through sgpud preempt is refused in one line;
#   - sgpud resets a node whose work hangs: `sgpu events` / `submit` print
#     DMA_DROPPED and ENGINE_RESET with their fields (text and --json), the
#     context banned at its third hang;
#   - a bad node is a one-line usage error naming it; --help; info's
#     granularity; top's preemptions and resets per second.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

cat >"$T/done.s" <<'S'
  write_data SCRATCH, 0
S
cat >"$T/wait.s" <<'S'
  wait_mem SCRATCH, ref=1           ; nobody writes 1: waits until preempted
  write_data SCRATCH+4, 0xbeef
S
# 1 MiB: 262,144 cycles of FILL
cat >"$T/fill.s" <<'S'
  fill 0x100000, 4096, 4096, 256, 0x11223344
S

# --- help
"$SGPU" preempt --help >"$T/help" 2>&1; rc=$?
[ "$rc" -eq 0 ] && grep -q '^usage: sgpu .*preempt .*\[NODE \[FENCE_ID\]\]' "$T/help" && grep -q -- '--resubmit' "$T/help" \
  && grep -q 'sgpud' "$T/help" && ok "preempt --help" || bad "preempt --help: exit $rc"
"$SGPU" --help | grep -q '^  preempt ' && ok "sgpu --help lists preempt" || bad "sgpu --help has no preempt"

# --- a WAIT_MEM preempted, text
"$SGPU" preempt --run "$T/done.s" --run "$T/wait.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q '^node 0 preempted: preemption fence 3, last completed fence 1, 1 submission preempted' "$T/out" \
  && grep -q '^event DMA_PREEMPTED .* node=0 preemption_fence=3 last_completed=1 preempted=1 latency=' "$T/out" \
  && grep -q '^granularity: packet boundary (inside buffers and WAITs)$' "$T/out" \
  && grep -q 'sent again with flags.resubmission' "$T/out" \
  && ok "a WAIT_MEM preempted: fence 3 (default), last completed 1, 1 preempted" \
  || bad "preempt text: exit $rc: $(cat "$T/out" "$T/err")"

# --- the same, --json, fence id given
"$SGPU" --json preempt --run "$T/done.s" --run "$T/wait.s" 0 77 >"$T/p.json" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && python3 - "$T/p.json" <<'PY' && ok "preempt --json: the event's fields" || bad "preempt --json: exit $rc $(cat "$T/p.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["node"] == 0 and j["preemption_fence"] == 77, j
assert j["granularity"] == "packet_boundary" and j["hardware_preemption"] is True and j["drained"] is False, j
p = j["preempted"]
assert p["preemption_fence"] == 77 and p["last_completed_fence"] == 1 and p["preempted_count"] == 1, p
ev = [e for e in j["events"] if e["type"] == "DMA_PREEMPTED"]
assert len(ev) == 1, j["events"]
e = ev[0]
assert e["node"] == 0 and e["fence"] == 77 and e["preemption_fence"] == 77, e
assert e["last_completed_fence"] == 1 and e["preempted_count"] == 1 and e["latency_cycles"] > 0, e
done = [e for e in j["events"] if e["type"] == "DMA_COMPLETED"]
assert [e["fence"] for e in done] == [1], j["events"]      # done.s completed, wait.s did not
assert j["resubmitted"] == [] and j["last_completed_fence"] == 1, j
PY

# --- nothing running: preempted at once, none preempted
"$SGPU" --json preempt >"$T/idle.json" 2>"$T/err" && python3 - "$T/idle.json" <<'PY' \
  && ok "an idle node: preempted at once, 0 submissions, fence 1" || bad "idle preempt: $(cat "$T/idle.json" "$T/err")"
import json, sys
p = json.load(open(sys.argv[1]))["preempted"]
assert p["preempted_count"] == 0 and p["preemption_fence"] == 1 and p["last_completed_fence"] == 0, p
PY

# --- two FILLs preempted mid-way and resubmitted: both complete, the first resumed
"$SGPU" --json submit "$T/fill.s" >"$T/whole.json" 2>"$T/err" || bad "submit fill.s: $(cat "$T/err")"
"$SGPU" --json preempt --run "$T/fill.s" --run "$T/fill.s" --after 100000 --resubmit >"$T/r.json" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && python3 - "$T/r.json" "$T/whole.json" <<'PY' && ok "--resubmit: 2 preempted FILLs complete, the running one resumed" \
  || bad "--resubmit: exit $rc $(cat "$T/r.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1])); whole = json.load(open(sys.argv[2]))["submissions"][0]["cycles"]
p = j["preempted"]
assert p["preempted_count"] == 2 and p["last_completed_fence"] == 0 and p["preemption_fence"] == 3, p
r = j["resubmitted"]
assert [x["fence"] for x in r] == [1, 2] and all(x["status"] == "completed" for x in r), r
# the first had run about 100,000 cycles of its FILL: the rest takes less than the whole
assert r[0]["cycles"] < whole - 50000, (r[0]["cycles"], whole)
done = [e for e in j["resubmitted_events"] if e["type"] == "DMA_COMPLETED"]
assert [e["fence"] for e in done] == [1, 2] and all(e["flags"] & 0x80 for e in done), done
assert j["last_completed_fence"] == 2 and j["pending"] == 0, j
PY
"$SGPU" preempt --run "$T/fill.s" --after 100000 --resubmit >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q '^resubmitted .*fill.s: fence 1 on node 0 completed after' "$T/out" \
  && grep -q '^event DMA_COMPLETED .* fence=1 flags=0x80' "$T/out" && ok "--resubmit, text" || bad "--resubmit text: exit $rc $(cat "$T/out" "$T/err")"

# --- a WAIT resubmitted waits again: its fence does not come
"$SGPU" --json preempt --run "$T/wait.s" --resubmit --timeout 5 >"$T/w.json" 2>"$T/err"; rc=$?
[ "$rc" -eq 4 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'did not complete within 5 ms' "$T/err" \
  && grep -q '"exit":4' "$T/w.json" && ok "a resubmitted WAIT_MEM polls again: exit 4, $(cat "$T/err")" \
  || bad "resubmitted wait: exit $rc $(cat "$T/w.json" "$T/err")"

# --- bad nodes: one line naming it
"$SGPU" preempt 7 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'node 7 does not exist: the device has 2 nodes' "$T/err" \
  && [ ! -s "$T/out" ] && ok "node 7: $(cat "$T/err")" || bad "node 7: exit $rc $(cat "$T/err")"
"$SGPU" --json preempt --node 9 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q '"error":"node 9 does not exist' "$T/out" && ok "--json --node 9: the error object" \
  || bad "--json node 9: exit $rc $(cat "$T/out")"
"$SGPU" preempt zero >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "bad node 'zero'" "$T/err" && ok "bad node 'zero'" \
  || bad "node zero: exit $rc $(cat "$T/err")"
"$SGPU" preempt 0 1 2 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "unexpected argument '2'" "$T/err" && ok "a third argument refused" || bad "0 1 2: exit $rc"

# --- info and top on sim
"$SGPU" info >"$T/out" 2>"$T/err" && grep -q '^preemption:  packet boundary (inside buffers and WAITs)$' "$T/out" \
  && ok "info: packet boundary" || bad "info: $(grep -i preempt "$T/out")"
"$SGPU" --json info | python3 -c '
import json, sys
p = json.load(sys.stdin)["preemption"]
assert p == {"granularity_code": 200, "granularity": "packet_boundary",
             "text": "packet boundary (inside buffers and WAITs)"}, p' && ok "info --json: preemption" || bad "info --json preemption"
"$SGPU" --json top --run "$T/done.s" --interval 1 >"$T/top.json" 2>"$T/err" && python3 - "$T/top.json" <<'PY' \
  && ok "top --json: preemptions and resets per second" || bad "top --json: $(cat "$T/top.json" "$T/err")"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["preemptions_per_second"] == 0.0 and t["resets_per_second"] == 0.0, t
assert t["preemptions"] == 0 and t["resets"] == 0, t
assert "fences_per_second" in t and len(t["nodes"]) == 2, t
PY
"$SGPU" top --interval 1 --count 1 | grep -q '^fences completed: .*/s  preemptions: 0.0/s  engine resets: 0.0/s$' \
  && ok "top text: preemptions and resets" || bad "top text"

# --- over tcp: to sgpu-sim --listen
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
if start_listen sim; then
  "$SGPU" --device "$uri,giveup=60000" --json preempt --run "$T/wait.s" >"$T/tcp.json" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && python3 - "$T/tcp.json" <<'PY' && ok "over tcp: the WAIT_MEM preempted" || bad "tcp preempt: exit $rc $(cat "$T/tcp.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["transport"] != "sim" and j["granularity"] == "packet_boundary", j
p = j["preempted"]
assert p["preempted_count"] == 1 and p["preemption_fence"] == 2 and p["last_completed_fence"] == 0, p
PY
else
  bad "sgpu-sim --listen did not start: $(cat "$T/sim.err")"
fi

# --- the iCEBreaker board model: no hardware preemption, the node drains
if start_listen ice --board icebreaker; then
  "$SGPU" --device "$uri,giveup=60000" info >"$T/out" 2>"$T/err"
  grep -q '^preemption:  drains to the end of the running buffer (no hardware preemption on this board)$' "$T/out" \
    && ok "iCEBreaker info: drains to the end of the running buffer" || bad "iCEBreaker info: $(grep -i preempt "$T/out") $(cat "$T/err")"
  "$SGPU" --device "$uri,giveup=60000" preempt >"$T/out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 0 ] && grep -q '^node 0 drained: preemption fence 1' "$T/out" \
    && grep -q '^this device has no hardware preemption' "$T/out" \
    && grep -q '^granularity: drains to the end of the running buffer' "$T/out" \
    && ok "iCEBreaker preempt: drained" || bad "iCEBreaker preempt: exit $rc $(cat "$T/out" "$T/err")"
  "$SGPU" --device "$uri,giveup=60000" --json preempt >"$T/ice.json" 2>"$T/err" && python3 - "$T/ice.json" <<'PY' \
    && ok "iCEBreaker preempt --json: drained" || bad "iCEBreaker --json: $(cat "$T/ice.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["drained"] is True and j["hardware_preemption"] is False and j["granularity"] == "dma_buffer_boundary", j
assert j["preempted"]["preempted_count"] == 0, j
PY
else
  bad "sgpu-sim --board icebreaker did not start: $(cat "$T/ice.err")"
fi

# --- through sgpud: not carried, one line
# (a short watchdog: the server resets a node that hangs, below)
"$BIN/sgpud" --device sim:video=tiny,watchdog=20000 --socket "$T/s.sock" >"$T/sgpud.out" 2>"$T/sgpud.err" &
pids+=($!)
for _ in $(seq 1 300); do grep -q '^sgpud: ready at' "$T/sgpud.out" 2>/dev/null && break; sleep 0.1; done
"$SGPU" --device "sgpud:$T/s.sock" preempt 1 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'node 1 cannot be preempted through sgpud: the server does not carry sgpu_preempt' "$T/err" \
  && ok "sgpud: $(cat "$T/err")" || bad "sgpud preempt: exit $rc $(cat "$T/out" "$T/err")"

# --- ENGINE_RESET and DMA_DROPPED: sgpud resets a node whose work hangs (the
# watchdog faults a WAIT_MEM nobody satisfies): the program gets DMA_FAULTED,
# its submission DMA_DROPPED and ENGINE_RESET naming its context; the third
# time its context is banned
cat >"$T/hang.s" <<'S'
  wait_mem SCRATCH, ref=1
S
"$SGPU" --device "sgpud:$T/s.sock" submit "$T/hang.s" "$T/hang.s" "$T/hang.s" >"$T/out" 2>"$T/err"; rc=$?
resets=$(grep -c '^event ENGINE_RESET' "$T/out")
[ "$rc" -eq 4 ] && [ "$resets" -eq 3 ] \
  && grep -q '^event DMA_DROPPED .* node=0 fence=1 context=[1-9][0-9]* last_completed=0 flags=0x0 (the guilty context' "$T/out" \
  && grep -q '^event ENGINE_RESET .* node=0 last_aborted=1 guilty_context=[1-9][0-9]* guilty_count=1 banned=no resubmitted=0\( priority=normal\)\{0,1\}$' "$T/out" \
  && grep -q '^event ENGINE_RESET .* node=0 last_aborted=2 guilty_context=[1-9][0-9]* guilty_count=2 banned=no resubmitted=0\( priority=normal\)\{0,1\}$' "$T/out" \
  && grep -q '^event ENGINE_RESET .* node=0 last_aborted=3 guilty_context=[1-9][0-9]* guilty_count=3 banned=yes resubmitted=0\( priority=normal\)\{0,1\}$' "$T/out" \
  && ok "events: three hangs, DMA_DROPPED and ENGINE_RESET with their fields, banned the third time" \
  || bad "hangs through sgpud: exit $rc, $resets resets: $(cat "$T/out" "$T/err")"
"$SGPU" --device "sgpud:$T/s.sock" --json events --run "$T/hang.s" --wait 100 >"$T/ev.json" 2>"$T/err"; rc=$?
[ "$rc" -eq 4 ] && python3 - "$T/ev.json" <<'PY' && ok "events --json: DMA_DROPPED and ENGINE_RESET fields" || bad "events --json: exit $rc $(cat "$T/ev.json" "$T/err")"
import json, sys
j = json.load(open(sys.argv[1]))
kinds = [e["type"] for e in j["events"]]
assert kinds == ["DMA_FAULTED", "DMA_DROPPED", "ENGINE_RESET"], kinds
d, r = j["events"][1], j["events"][2]
assert d["node"] == 0 and d["fence"] == 1 and d["last_completed_fence"] == 0, d
assert r["last_aborted_fence"] == 1 and r["guilty_context"] >= 1 and r["guilty_count"] == 1, r
assert r["banned"] is False and r["resubmitted"] == 0 and r["last_completed_fence"] == 0, r
PY

tap_finish
