#!/usr/bin/env bash
# `sgpu top`: counters sampled over a simulated interval.  A node running a
# long FILL is busy for the whole interval and fetches words, an idle node
# is not; a short workload's fence completes within the interval; one text
# block per sample when not on a terminal; bad options are one-line errors.
# Over tcp: to sgpu-sim --listen the rates come from the chip's cycle
# counter too: a FILL taking about half of the interval shows the same busy
# share (within a few points) and 60 vblanks a second as on sim; on a
# terminal `q` quits.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

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

# the same workload on sim and over tcp: a 1 MiB FILL (262,144 cycles) in a
# 20 ms interval (503,500 cycles) keeps node 0 busy about 52 % of it
cat >"$T/half.s" <<'S'
  fill 0x100000, 4096, 4096, 256, 0x55aa55aa
S
busy_of() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["nodes"][0]["busy_percent"])' "$1"; }
"$SGPU" --json top --run "$T/half.s" --interval 20 >"$T/sim.json" 2>"$T/err" || bad "top on sim: $(cat "$T/err")"
sim_busy=$(busy_of "$T/sim.json")
"$BIN/sgpu-sim" --listen tcp:127.0.0.1:0 >"$T/srv.out" 2>"$T/srv.err" &
srv=$!
# up to a minute on a loaded machine; a server that exits ends the wait
for _ in $(seq 1 1200); do [ -s "$T/srv.out" ] && break; kill -0 "$srv" 2>/dev/null || break; sleep 0.05; done
uri=$(sed -n 's/^listening on //p' "$T/srv.out" | head -n 1)
if [ -z "$uri" ]; then
  bad "sgpu-sim --listen did not start: $(cat "$T/srv.err")"
else
  "$SGPU" --device "$uri,giveup=60000" --json top --run "$T/half.s" --interval 20 >"$T/tcp.json" 2>"$T/err" \
    || bad "top over $uri: $(cat "$T/err")"
  tcp_busy=$(busy_of "$T/tcp.json")
  python3 - "$T/sim.json" "$T/tcp.json" <<'PY' && ok "busy share: sim $sim_busy %, tcp $tcp_busy % (chip cycles on both)" \
    || bad "busy share over tcp differs: sim $sim_busy %, tcp $tcp_busy %"
import json, sys
s, t = (json.load(open(f)) for f in sys.argv[1:3])
assert t["transport"] != "sim", t["transport"]
bs, bt = s["nodes"][0]["busy_percent"], t["nodes"][0]["busy_percent"]
assert 30 < bs < 75, bs
assert abs(bs - bt) < 5, (bs, bt)
# the interval is the chip's: at least 20 ms worth of cycles, and seconds from cycles
for j in (s, t):
    assert j["interval_cycles"] >= 503500, j["interval_cycles"]
    assert abs(j["interval_seconds"] - j["interval_cycles"] / 25175000) < 0.001, j
PY
  # vblanks a second with a display on: about 60 (chip time), not the host's
  "$SGPU" --device "$uri,giveup=60000" --json top --mode 160x120 --interval 200 >"$T/vb.json" 2>"$T/err" \
    || bad "top --mode over tcp: $(cat "$T/err")"
  python3 - "$T/vb.json" <<'PY' && ok "vblanks over tcp: 60 a second of chip time" || bad "vblanks over tcp: $(cat "$T/vb.json")"
import json, sys
j = json.load(open(sys.argv[1]))
rate = j["sources"][0]["vblanks"] / j["interval_seconds"]
assert 50 <= rate <= 70, rate
PY
  kill "$srv" 2>/dev/null
  wait "$srv" 2>/dev/null
fi

# on a terminal, q quits (the sampling would otherwise go on for ever)
python3 - "$SGPU" <<'PY' && ok "q quits top on a terminal" || bad "q did not quit top"
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "top", "--interval", "20"])
out, sent, t0 = b"", False, time.time()
while time.time() - t0 < 60:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            out += os.read(fd, 4096)
        except OSError:  # the terminal closed: top exited
            _, status = os.waitpid(pid, 0)
            assert sent and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (sent, status)
            assert b"[q quits]" in out
            sys.exit(0)
    if not sent and out.count(b"sgpu top") >= 2:
        os.write(fd, b"q")
        sent = True
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        assert sent and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (sent, status)
        assert b"[q quits]" in out
        sys.exit(0)
os.kill(pid, 9)
sys.exit(1)
PY
# stdin not a terminal: the samples asked for, no key handling
n=$(echo q | "$SGPU" top --interval 1 --count 2 | grep -c '^sgpu top')
[ "$n" -eq 2 ] && ok "stdin not a terminal: --count samples" || bad "non-tty stdin: $n blocks"

tap_finish
