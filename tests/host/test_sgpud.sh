#!/bin/bash
# test_sgpud.sh — sgpud, the device server (docs/sgpud.md), on the simulated
# chip: its socket's access control, the same errors as in-process, the
# calls a shared device refuses refused with their reasons, two programs
# with their own fences and events, isolation of their memory and display
# sources, a program SIGKILLed mid-submission cleaned up while the others
# finish, hostile connections closed, the default path, a stale socket, and
# the figures against in-process.
# Timeouts are hang guards only; nothing asserts wall time.
set -euo pipefail
root=${SGPU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${SGPU_BIN:-$root/build/bin}
tbin=${SGPU_TEST_BIN:-$root/build/tests/host}
# the server with sanitizers when it is built (hostile input must not crash it)
sgpud=${SGPU_ASAN_BIN:-$root/build/asan/bin}/sgpud
[ -x "$sgpud" ] || sgpud=$bin/sgpud
# the test program: with sanitizers (the library's client side) where built;
# the plain one (valgrind, figures) as $bench
bench=$tbin/bench_sgpud
client=${SGPU_ASAN_BIN:-$root/build/asan/bin}/../tests/bench_sgpud
[ -x "$client" ] || client=$bench
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "test_sgpud: FAILED: $*"; for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }

# start_server NAME ARGS...: sgpud in the background, waits for its ready line.
start_server() {
  local name=$1; shift
  "$sgpud" --device sim:video=tiny "$@" >"$tmp/$name.out" 2>"$tmp/$name.log" &
  server=$!
  pids+=("$server")
  for _ in $(seq 1 600); do
    grep -q '^sgpud: ready at' "$tmp/$name.out" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || fail "sgpud $name exited: $(cat "$tmp/$name.log")"
    sleep 0.2
  done
  fail "sgpud $name never said ready"
}

sock=$tmp/sgpud.sock
start_server main --socket "$sock" --stall-ms 1000
main=$server
uri=sgpud:$sock

# --- the socket's access control
[ -S "$sock" ] || fail "$sock is not a socket"
mode=$(stat -c %a "$sock")
[ "$mode" = 660 ] || fail "socket mode $mode, expected 660"
echo "socket: mode $mode, owner $(stat -c %U:%G "$sock")"
grp=$(id -gn)
start_server group --socket "$tmp/g.sock" --group "$grp"
[ "$(stat -c %G "$tmp/g.sock")" = "$grp" ] || fail "group socket's group is $(stat -c %G "$tmp/g.sock")"
[ "$(stat -c %a "$tmp/g.sock")" = 660 ] || fail "group socket mode"
kill -TERM "$server"; wait "$server" || fail "sgpud did not stop cleanly on SIGTERM"
[ ! -e "$tmp/g.sock" ] || fail "sgpud left its socket behind on SIGTERM"
echo "socket: --group $grp sets the group; SIGTERM removes the socket"
if "$sgpud" --device sim:video=tiny --socket "$tmp/n.sock" --group no-such-group-sgpud \
    >/dev/null 2>"$tmp/nogroup.txt"; then fail "an unknown group was accepted"; fi
grep -q "no group" "$tmp/nogroup.txt" || fail "unknown group: $(cat "$tmp/nogroup.txt")"
if "$sgpud" --device sim:video=tiny --socket "$sock" >/dev/null 2>"$tmp/twice.txt"; then
  fail "a second server started on a socket a server answers at"
fi
grep -q "already answers" "$tmp/twice.txt" || fail "second server: $(cat "$tmp/twice.txt")"
echo "socket: a second server on the same path refuses: $(cat "$tmp/twice.txt")"

# --- the service files, installed by make install (here: its install-sgpud part)
make -s -C "$root" install-sgpud DESTDIR="$tmp/dest" >"$tmp/install.log" 2>&1 || fail "install-sgpud: $(cat "$tmp/install.log")"
unit=$(find "$tmp/dest" -name sgpud.service)
rules=$(find "$tmp/dest" -name 70-sgpu.rules)
[ -n "$unit" ] && [ -n "$rules" ] && [ -x "$(find "$tmp/dest" -path '*/bin/sgpud')" ] || fail "installed: $(find "$tmp/dest")"
grep -q '^ExecStart=/.*/bin/sgpud --device ${SGPUD_DEVICE} --socket /run/sgpu/sgpud.sock --group sgpu$' "$unit" ||
  fail "unit ExecStart: $(grep ExecStart "$unit")"
grep -q 'GROUP="sgpu"' "$rules" || fail "udev rule"
if command -v systemd-analyze >/dev/null; then
  # the binary is under DESTDIR, not yet at its path: that is the one complaint allowed
  systemd-analyze verify "$unit" 2>&1 | grep -v 'is not executable' | tee "$tmp/verify.txt" || true
  [ ! -s "$tmp/verify.txt" ] || fail "systemd-analyze verify: $(cat "$tmp/verify.txt")"
fi
echo "install: $(cd "$tmp/dest" && find . -type f | sort | tr '\n' ' ')"

# --- the CLI through sgpud: a command file submitted, its fence and event
printf 'FILL SCRATCH, 16, 16, 2, 0x11223344\nFENCE SCRATCH, 7\n' >"$tmp/fill.sgs"
"$bin/sgpu" --device "$uri" submit "$tmp/fill.sgs" >"$tmp/cli-submit.txt" 2>&1 ||
  fail "sgpu submit through sgpud: $(cat "$tmp/cli-submit.txt")"
grep -q "fence 1 on node 0 completed" "$tmp/cli-submit.txt" && grep -q "event DMA_COMPLETED .*fence=1" "$tmp/cli-submit.txt" ||
  fail "sgpu submit: $(cat "$tmp/cli-submit.txt")"
echo "cli: $(head -1 "$tmp/cli-submit.txt")"

# --- calls refused (NOT_SUPPORTED, why) and carried (raw writes, vsync events, runs)
"$client" unsupported "$uri" | tee "$tmp/unsupported.txt"
grep -q '^OK unsupported' "$tmp/unsupported.txt" || fail "unsupported calls"

# --- the same codes and texts as in-process
# (context ids differ: the server has served other programs before)
"$client" errors sim:video=tiny | sed -E 's/context [0-9]+/context N/g' >"$tmp/errors-sim.txt"
"$client" errors "$uri" | sed -E 's/context [0-9]+/context N/g' >"$tmp/errors-sgpud.txt"
if ! diff "$tmp/errors-sim.txt" "$tmp/errors-sgpud.txt"; then fail "errors differ from in-process"; fi
echo "errors: $(wc -l <"$tmp/errors-sim.txt") wrong calls give the same code and text as in-process"

# --- a thread of a program waits; another thread of it is not held meanwhile
timeout 300 "$client" threads "$uri" | tee "$tmp/threads.txt"
grep -q '^OK threads' "$tmp/threads.txt" || fail "threads"

# --- isolation
"$client" isolate "$uri" | tee "$tmp/isolate.txt"
grep -q '^OK isolate' "$tmp/isolate.txt" || fail "isolation"
"$client" isolate-vm "$uri" | tee "$tmp/isolate-vm.txt"
grep -q '^OK isolate-vm' "$tmp/isolate-vm.txt" || fail "isolation of VM contexts"

# --- two programs counting fences from 1, a third SIGKILLed mid-submission
read -r f0 f1 f2 < <("$client" free "$uri")
"$client" victim "$uri" >"$tmp/victim.out" 2>&1 &
victim=$!
pids+=("$victim")
for _ in $(seq 1 600); do grep -q READY "$tmp/victim.out" && break; sleep 0.1; done
grep -q READY "$tmp/victim.out" || fail "victim never ready: $(cat "$tmp/victim.out")"
"$client" fences "$uri" 60 1 >"$tmp/a.out" 2>&1 &
a=$!
"$client" fences "$uri" 60 2 >"$tmp/b.out" 2>&1 &
b=$!
pids+=("$a" "$b")
sleep 0.3
kill -9 "$victim"
wait "$victim" 2>/dev/null || true
ra=0; wait "$a" || ra=$?
rb=0; wait "$b" || rb=$?
cat "$tmp/a.out" "$tmp/b.out"
[ $ra = 0 ] && [ $rb = 0 ] || fail "a program sharing the device failed ($ra, $rb)"
grep -q '^OK fences 60 tag 1' "$tmp/a.out" && grep -q '^OK fences 60 tag 2' "$tmp/b.out" ||
  fail "fences"
# the dead program's memory comes back (its queued work drains first)
for _ in $(seq 1 300); do
  read -r g0 g1 g2 < <("$client" free "$uri")
  [ "$g0 $g1 $g2" = "$f0 $f1 $f2" ] && break
  sleep 0.2
done
[ "$g0 $g1 $g2" = "$f0 $f1 $f2" ] || fail "free bytes $g0 $g1 $g2 after the kill, $f0 $f1 $f2 before"
grep -q "cleaned up" "$tmp/main.log" || fail "no cleanup logged"
echo "kill: free bytes back to $f0 $f1 $f2 (segments 0, 1, 2); $(grep 'cleaned up' "$tmp/main.log" | grep -v "'bench_sgpud'.*0 allocations" | tail -1)"
kill -0 "$main" || fail "sgpud died"

# --- a program SIGKILLed with work queued (nobody waits: it stays queued
# until the server drains it after the death, then frees the memory)
"$client" queue "$uri" 12 >"$tmp/queue.out" 2>&1 &
q=$!
pids+=("$q")
for _ in $(seq 1 600); do grep -q READY "$tmp/queue.out" && break; sleep 0.1; done
grep -q 'READY 12 queued' "$tmp/queue.out" || fail "queue: $(cat "$tmp/queue.out")"
# a second program with work queued at the same time: sgpu top shows both
"$client" queue "$uri" 5 >"$tmp/queue2.out" 2>&1 &
q2=$!
pids+=("$q2")
for _ in $(seq 1 600); do grep -q READY "$tmp/queue2.out" && break; sleep 0.1; done
grep -q 'READY 5 queued' "$tmp/queue2.out" || fail "queue 2: $(cat "$tmp/queue2.out")"
# sgpu info and sgpu top list the programs connected
"$bin/sgpu" --device "$uri" info >"$tmp/info.txt" || fail "sgpu info: $(cat "$tmp/info.txt")"
grep -q "^  [0-9]*: pid $q bench_sgpud *1 contexts, 2 allocations (65600 bytes), 12 submissions, 12 queued$" \
  "$tmp/info.txt" || fail "sgpu info programs: $(cat "$tmp/info.txt")"
grep -q "pid [0-9]* sgpu .*(this sgpu)" "$tmp/info.txt" || fail "sgpu info: itself"
"$bin/sgpu" --device "$uri" top --count 1 --interval 100 >"$tmp/top.txt" || fail "sgpu top"
grep -Eq "^ *[0-9]+ +$q bench_sgpud +1 +2 +65600 +0.0 +0.0 +12 *$" "$tmp/top.txt" ||
  fail "sgpu top: $(cat "$tmp/top.txt")"
"$bin/sgpu" --device "$uri" --json top --count 1 --interval 100 >"$tmp/top.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); by={x["pid"]: x for x in d["programs"]}; p, p2 = by[int(sys.argv[2])], by[int(sys.argv[3])]; assert p["queued"]==12 and p["memory"]==65600, p; assert p2["queued"]==5 and p2["memory"]==65600, p2' \
  "$tmp/top.json" "$q" "$q2" || fail "sgpu top --json (both programs): $(cat "$tmp/top.json")"
echo "sgpu info / top: $(grep "pid $q" "$tmp/info.txt")"
kill -9 "$q"
wait "$q" 2>/dev/null || true
for _ in $(seq 1 300); do grep -q "pid $q .*cleaned up" "$tmp/main.log" && break; sleep 0.2; done
grep -q "pid $q .*gone: connection closed; 12 submissions still queued" "$tmp/main.log" ||
  fail "the queued program's death: $(grep "pid $q" "$tmp/main.log")"
grep -q "pid $q .*cleaned up: 1 contexts destroyed, 2 allocations (65600 bytes) freed" "$tmp/main.log" ||
  fail "the queued program's cleanup: $(grep "pid $q" "$tmp/main.log")"
# then the second one (its work ran with the first one's drain)
kill -9 "$q2"
wait "$q2" 2>/dev/null || true
for _ in $(seq 1 300); do grep -q "pid $q2 .*cleaned up" "$tmp/main.log" && break; sleep 0.2; done
grep -q "pid $q2 .*cleaned up: 1 contexts destroyed, 2 allocations (65600 bytes) freed" "$tmp/main.log" ||
  fail "the second queued program's cleanup: $(grep "pid $q2" "$tmp/main.log")"
read -r g0 g1 g2 < <("$client" free "$uri")
[ "$g0 $g1 $g2" = "$f0 $f1 $f2" ] || fail "free bytes $g0 $g1 $g2 after the queued kill, $f0 $f1 $f2 before"
echo "kill with work queued: $(grep "pid $q " "$tmp/main.log" | sed 's/^sgpud: //' | tr '\n' ' ')"
"$client" fences "$uri" 10 4 | grep -q '^OK' || fail "fences after the queued kill"

# --- a hang: the server resets the node, the innocent program does not notice
start_server fault --socket "$tmp/fault.sock" --device sim:video=tiny,watchdog=20000
"$client" fault "sgpud:$tmp/fault.sock" | tee "$tmp/fault.txt"
grep -q '^OK fault' "$tmp/fault.txt" || fail "hang recovery"
grep -q "node 0 faulted: engine reset, 2 innocent submissions put back" "$tmp/fault.log" ||
  fail "no reset logged: $(cat "$tmp/fault.log")"
[ "$(grep -c "node 0 faulted: engine reset" "$tmp/fault.log")" = 3 ] ||
  fail "resets: $(grep "engine reset" "$tmp/fault.log")"
kill -TERM "$server"; wait "$server" || fail "fault server exit status"

# --- per-program limits
start_server limits --socket "$tmp/limits.sock" --max-memory 65536 --max-contexts 2
"$client" limits "sgpud:$tmp/limits.sock" | tee "$tmp/limits.txt"
grep -q '^OK limits' "$tmp/limits.txt" || fail "limits"
kill -TERM "$server"; wait "$server" || fail "limits server exit status"

# --- hostile connections: half a request (closed after --stall-ms), oversize
"$client" hostile "$sock" half | tee -a "$tmp/hostile.txt"
"$client" hostile "$sock" oversize | tee -a "$tmp/hostile.txt"
for seed in 1 2 3; do "$client" garbage "$sock" 1500 $seed | tee -a "$tmp/hostile.txt"; done
"$client" edges "$sock" | tee -a "$tmp/hostile.txt"
grep -q '^OK edges' "$tmp/hostile.txt" || fail "the requests' edges"
[ "$(grep -c '^OK hostile' "$tmp/hostile.txt")" = 2 ] || fail "hostile connections"
[ "$(grep -c '^OK garbage' "$tmp/hostile.txt")" = 3 ] || fail "random requests"
! grep -q "Sanitizer" "$tmp/main.log" || fail "sanitizer report: $(grep -A20 Sanitizer "$tmp/main.log")"
grep -q "stalled half-sent" "$tmp/main.log" || fail "no stall close logged"
grep -q "oversize request" "$tmp/main.log" || fail "no oversize close logged"
"$client" fences "$uri" 5 3 | grep -q '^OK' || fail "sgpud unusable after hostile connections"
kill -0 "$main" || fail "sgpud died"
echo "hostile: a half request and an oversize one were closed, 4,500 random requests answered, 12 edges of the display, capture, run, ping and raw-write requests refused; the server serves on"

# --- the server dies under a program: its calls fail cleanly (SGPU_ERROR_IO)
start_server lost --socket "$tmp/lost.sock"
mkfifo "$tmp/lost.in"
"$client" lost "sgpud:$tmp/lost.sock" <"$tmp/lost.in" >"$tmp/lost.out" 2>&1 &
lost=$!
pids+=("$lost")
exec 8>"$tmp/lost.in"
for _ in $(seq 1 600); do grep -q READY "$tmp/lost.out" && break; sleep 0.1; done
kill -9 "$server"; wait "$server" 2>/dev/null || true
echo go >&8
exec 8>&-
rl=0; wait "$lost" || rl=$?
cat "$tmp/lost.out"
[ $rl = 0 ] && grep -q '^OK lost' "$tmp/lost.out" || fail "calls after the server died"

# --- the default path ($XDG_RUNTIME_DIR/sgpud.sock) and the bare URI
mkdir -p "$tmp/xdg"
XDG_RUNTIME_DIR=$tmp/xdg start_server xdg
[ -S "$tmp/xdg/sgpud.sock" ] || fail "no socket at \$XDG_RUNTIME_DIR/sgpud.sock"
XDG_RUNTIME_DIR=$tmp/xdg "$client" free sgpud >/dev/null || fail "URI sgpud (default path)"
# a stale socket (its server killed) is removed by the next server
kill -9 "$server"; wait "$server" 2>/dev/null || true
[ -S "$tmp/xdg/sgpud.sock" ] || fail "SIGKILL removed the socket?"
XDG_RUNTIME_DIR=$tmp/xdg start_server xdg2
grep -q "stale socket" "$tmp/xdg2.log" || fail "stale socket not reported"
XDG_RUNTIME_DIR=$tmp/xdg "$client" free sgpud >/dev/null || fail "after the stale socket"
kill -TERM "$server"; wait "$server" || true
echo "paths: sgpud alone opens \$XDG_RUNTIME_DIR/sgpud.sock; a stale socket is replaced"

# --- figures (reported, never asserted), against an optimized server
start_server fig --socket "$tmp/fig.sock" --quiet
fig=$server
n=${SGPUD_BENCH_N:-2000}
best() { # best of three runs (the machine may be loaded): the line with the most submissions/s
  for _ in 1 2 3; do "$bench" bench "$1" "$n"; done |
    awk '/^RESULT/ {for (i = 1; i <= NF; i++) if ($i == "submissions/s;") v = $(i-1); if (v > b) {b = v; l = $0}} END {print l}'
}
best sim:video=tiny | sed 's/^RESULT/FIGURE sgpud wall, in-process/'
best "sgpud:$tmp/fig.sock" | sed 's/^RESULT/FIGURE sgpud wall, through sgpud (optimized server)/'
kill -TERM "$fig"; wait "$fig" || true
# Instructions (callgrind), N=400 minus N=0 (the open and close): the program
# in-process; the program and the server through sgpud; and what one
# sgpu_submit_command costs inside the program (inclusive).
if command -v valgrind >/dev/null && [ -x "$bin/sgpud" ]; then
  total() { sed -n 's/^totals: *//p' "$1"; }
  incl() { callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$1" 2>/dev/null |
    awk -v f="$2" '{g = $NF; sub(/.*:/, "", g); sub(/ .*/, "", g)} index($0, f " [") || $NF ~ (":" f "$") {gsub(",", "", $1); print $1; exit}'; }
  cg() { valgrind --tool=callgrind --callgrind-out-file="$1" "${@:2}" >/dev/null 2>>"$tmp/vg.log"; }
  cg "$tmp/in0.cg" "$bench" bench sim:video=tiny 0
  cg "$tmp/in.cg" "$bench" bench sim:video=tiny 400
  for k in 0 400; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/srv$k.cg" "$bin/sgpud" --device sim:video=tiny \
      --socket "$tmp/cg$k.sock" --quiet >"$tmp/cgsrv$k.out" 2>>"$tmp/vg.log" &
    cgs=$!
    pids+=("$cgs")
    for _ in $(seq 1 600); do grep -q '^sgpud: ready' "$tmp/cgsrv$k.out" 2>/dev/null && break; sleep 0.2; done
    cg "$tmp/cli$k.cg" "$bench" bench "sgpud:$tmp/cg$k.sock" $k
    kill -TERM "$cgs"; wait "$cgs" || true
  done
  in_per=$(( ($(total "$tmp/in.cg") - $(total "$tmp/in0.cg")) / 400 ))
  cli_per=$(( ($(total "$tmp/cli400.cg") - $(total "$tmp/cli0.cg")) / 400 ))
  srv_per=$(( ($(total "$tmp/srv400.cg") - $(total "$tmp/srv0.cg")) / 400 ))
  echo "FIGURE sgpud instructions per submission (with one sgpu_get_fence, a wait every 32, and the simulated chip's cycles): in-process $in_per; through sgpud $cli_per in the program + $srv_per in the server"
  echo "FIGURE sgpud instructions inside one sgpu_submit_command (inclusive, of 400): in-process $(( $(incl "$tmp/in.cg" sgpu_submit_command) / 400 )), through sgpud (the program's side) $(( $(incl "$tmp/cli400.cg" sgpu_submit_command) / 400 ))"
fi

# memory per connected program: the server's RSS with 32 idle programs more
k=32
rss0=$(awk '/VmRSS/ {print $2}' "/proc/$main/status")
mkfifo "$tmp/idle.in"
"$client" idle "$uri" $k <"$tmp/idle.in" >"$tmp/idle.out" 2>&1 &
idle=$!
pids+=("$idle")
exec 9>"$tmp/idle.in"
for _ in $(seq 1 600); do grep -q '^OPEN' "$tmp/idle.out" && break; sleep 0.1; done
grep -q '^OPEN' "$tmp/idle.out" || fail "idle programs: $(cat "$tmp/idle.out")"
rss1=$(awk '/VmRSS/ {print $2}' "/proc/$main/status")
exec 9>&-
wait "$idle" || true
per=$(grep -o '[0-9]* bytes per program' "$tmp/main.log" | head -1)
echo "FIGURE sgpud memory: server RSS ${rss0} kB, ${rss1} kB with $k idle programs more: $(( (rss1 - rss0) * 1024 / k )) bytes per program ($per in its record; sanitizer build: $([ "$sgpud" = "$bin/sgpud" ] && echo no || echo yes))"

kill -TERM "$main"; wait "$main" || fail "sgpud exit status"
[ ! -e "$sock" ] || fail "socket left behind"
echo "test_sgpud: all passed"
