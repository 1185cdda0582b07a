#!/usr/bin/env bash
# sgpu ping and the link counters of sgpu info, through tcp: to sgpu-sim
# (clean, and with 1% byte faults), and on sim (no link: a clear error);
# link_stats: the counters are per device and count the frame format's
# bytes.  Independent oracle: the bridge RTL counts the frames it executed
# (the server prints it when the client goes); on a clean link that is every
# frame the client sent: info's frames_sent plus the close's writes
# (INT_ENABLE and each node's CONTROL).
source "$SGPU_ROOT/tests/link/link_lib.sh"
S=$SGPU_BIN/sgpu
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$@"; }
bridge_frames() { sed -n 's/.*client gone at cycle [0-9]* (\([0-9]*\) frames.*/\1/p' "$1" | tail -n 1; }

start_server a --listen tcp:127.0.0.1:0; UA=$SRV_URI; PA=$SRV_PID
start_server b --listen tcp:127.0.0.1:0; UB=$SRV_URI; PB=$SRV_PID
if "$SGPU_LINK_BIN/link_stats" "$UA" "$UB" >"$T/stats.txt" 2>&1; then ok "$(tail -n 1 "$T/stats.txt")"
else bad "link_stats: $(grep FAIL "$T/stats.txt" | head -5)"; fi
kill "$PA" "$PB"; wait "$PA" "$PB" 2>/dev/null

start_server c --listen tcp:127.0.0.1:0
if "$S" --device "$SRV_URI" --json ping --count 7 >"$T/ping.json" 2>"$T/ping.err"; then
  r=$(jget "$T/ping.json" "['count'], d['received'], d['lost'], len(d['rtt_us']), d['min_us'] <= d['avg_us'] <= d['max_us'], d['min_us'] > 0")
  if [ "$r" = "(7, 7, 0, 7, True, True)" ]; then ok "ping --count 7: 7 answered, min <= avg <= max: $(jget "$T/ping.json" "['min_us'], d['avg_us'], d['max_us']")"
  else bad "ping json: $r: $(cat "$T/ping.json")"; fi
else bad "ping: $(cat "$T/ping.err")"; fi
"$S" --device "$SRV_URI" ping --count 3 >"$T/ping.txt" 2>&1
if grep -q "^3 pings, 3 answered, 0 lost; round trip min/avg/max [0-9]*/[0-9.]*/[0-9]* us (tcp" "$T/ping.txt" &&
   [ "$(grep -c '^ping [123]: [0-9]* us$' "$T/ping.txt")" = 3 ]; then ok "ping text: $(tail -n 1 "$T/ping.txt")"
else bad "ping text: $(cat "$T/ping.txt")"; fi
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null

start_server d --listen tcp:127.0.0.1:0; PD=$SRV_PID
if "$S" --device "$SRV_URI" --json info >"$T/info.json" 2>"$T/info.err"; then
  # the server reports the closed connection once it has seen it: wait for
  # that line (up to 20 s) before stopping the server
  for _ in $(seq 200); do grep -q 'client gone' "$T/d.err" && break; sleep 0.1; done
  kill "$PD"; wait "$PD" 2>/dev/null
  sent=$(jget "$T/info.json" "['link']['frames_sent']"); recv=$(jget "$T/info.json" "['link']['frames_received']")
  errs=$(jget "$T/info.json" "['link']['retransmissions'] + d['link']['naks'] + d['link']['timeouts'] + d['link']['crc_errors'] + d['link']['duplicates']")
  # closing stops every ring block: each node's, its high-priority ring's and its second normal ring's
  nodes=$(jget "$T/info.json" "['node_count'] * (3 if d.get('has_time_slice') else 2 if d['has_priority'] else 1)"); bf=$(bridge_frames "$T/d.err")
  if [ "$sent" -gt 0 ] && [ "$sent" = "$recv" ] && [ "$errs" = 0 ]; then ok "info --json link: $sent frames sent and answered, no errors"
  else bad "info link: sent $sent received $recv errors $errs"; fi
  if [ -n "$bf" ] && [ "$bf" = $((sent + 1 + nodes)) ]; then ok "the bridge executed $bf frames = $sent (info) + $((1 + nodes)) (close: one per ring block and one)"
  else bad "the bridge executed '$bf' frames, the client sent $sent + $((1 + nodes))"; fi
  bps=$(jget "$T/info.json" "['link']['bytes_per_second'] > 0")
  [ "$bps" = True ] && ok "info: $(jget "$T/info.json" "['link']['bytes_per_second']") bytes/s" || bad "bytes_per_second: $bps"
else bad "info: $(cat "$T/info.err")"; kill "$PD"; fi
start_server e --listen tcp:127.0.0.1:0
"$S" --device "$SRV_URI" info >"$T/info.txt" 2>&1
if grep -q "^link: .* frames sent, .* received, 0 retransmissions, 0 timeouts, 0 NAKs, 0 CRC errors, 0 duplicates$" "$T/info.txt" &&
   grep -q "^link bytes: .* bytes/s on the wire" "$T/info.txt"; then ok "info text shows the link: $(grep '^link:' "$T/info.txt")"
else bad "info text: $(cat "$T/info.txt")"; fi
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null

# a damaged link: every ping answered or lost, none in between
start_server f --listen tcp:127.0.0.1:0 --link-errors drop=0.01,corrupt=0.01,dup=0.01,seed=3
if "$S" --device "$SRV_URI" --json ping --count 20 --timeout 1000 >"$T/pingf.json" 2>"$T/pingf.err"; then
  r=$(jget "$T/pingf.json" "['received'] + d['lost'] == 20 and len(d['rtt_us']) == d['received'] and d['received'] > 0")
  [ "$r" = True ] && ok "20 pings through 1% faults: $(jget "$T/pingf.json" "['received']") answered, $(jget "$T/pingf.json" "['lost']") lost" || bad "faulty pings: $(cat "$T/pingf.json")"
else bad "faulty ping: $(cat "$T/pingf.err" "$T/pingf.json")"; fi
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null

# no link
"$S" ping >"$T/sim.out" 2>"$T/sim.err"; rc=$?
if [ $rc = 3 ] && grep -q "in-process model: there is no link to ping" "$T/sim.err" && [ "$(wc -l <"$T/sim.err")" = 1 ]; then ok "ping on sim: exit 3, $(cat "$T/sim.err")"
else bad "ping on sim: rc $rc: $(cat "$T/sim.err")"; fi
"$S" --json ping >"$T/simj.out" 2>/dev/null; rc=$?
[ $rc = 3 ] && [ "$(jget "$T/simj.out" "['exit']")" = 3 ] && ok "ping --json on sim: error object" || bad "ping --json on sim: rc $rc $(cat "$T/simj.out")"
"$S" --json info >"$T/siminfo.json" 2>&1
[ "$(jget "$T/siminfo.json" "['transport'], 'link' in d")" = "('sim', False)" ] && ok "info on sim: no link object" || bad "info on sim: $(head -c 300 "$T/siminfo.json")"
for a in "--count 0" "--count x" "--timeout 0" "--interval 60001" "--bogus" "extra"; do
  "$S" ping $a >/dev/null 2>"$T/use.err"; rc=$?
  [ $rc = 1 ] && [ "$(wc -l <"$T/use.err")" = 1 ] && ok "ping $a: usage error: $(cat "$T/use.err")" || bad "ping $a: rc $rc $(cat "$T/use.err")"
done
"$S" ping --help | grep -q "^usage: sgpu .*ping \[--count N\]" && ok "ping --help" || bad "ping --help"
finish
