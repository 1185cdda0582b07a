#!/usr/bin/env bash
# Link loss: killing the server in the middle of a 1 MiB upload makes the
# call fail with SGPU_ERROR_IO within 2 seconds (the issue's bound; the TCP
# connection's end is seen at once, so the bound has ample slack even on a
# loaded machine), the next call fails at once, and a new open works.
# Also: 4 KiB uploads and 40 submissions on a clean link (FIGUREs).
source "$SGPU_ROOT/tests/link/link_lib.sh"
U=$SGPU_LINK_BIN/link_upload

start_server clean --listen tcp:127.0.0.1:0
if "$U" "$SRV_URI" 4096 >"$T/up.txt" 2>"$T/up.err"; then ok "4 KiB upload and 40 submissions on $SRV_URI"
else bad "upload: $(cat "$T/up.err")"; fi
cat "$T/up.txt"
awk '/wire bytes for/ {print "FIGURE link_payload_fraction_4k " $NF}
     /per second/ {print "FIGURE link_tcp_submissions_per_s " $2; print "FIGURE link_tcp_wire_bytes_per_submission " $5}' "$T/up.txt"
kill "$SRV_PID"

start_server victim --listen tcp:127.0.0.1:0
"$U" "$SRV_URI" 1048576 kill >"$T/kill.txt" 2>"$T/kill.err" &
UP=$!
for i in $(seq 1 100); do grep -q UPLOADING "$T/kill.txt" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
kill -9 "$SRV_PID"
wait "$UP"; rc=$?
cat "$T/kill.txt"
if [ $rc -eq 0 ] && grep -q "^error -5 " "$T/kill.txt"; then ok "killed server: SGPU_ERROR_IO"; else bad "killed server: rc $rc: $(cat "$T/kill.txt" "$T/kill.err" | head -5)"; fi
t=$(sed -n 's/^error .* after \([0-9.]*\) s:.*/\1/p' "$T/kill.txt")
if [ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t < 2.0) }'; then ok "the failing call returned after $t s (< 2 s)"; else bad "the failing call took '$t' s"; fi
# (the link's own reason, "the device closed the connection", is kept by the
# transport; the core's message (regs.c, mem.c) names the access that failed.)
start_server again --listen tcp:127.0.0.1:0
if "$SGPU_BIN/sgpu" --device "$SRV_URI" info >/dev/null 2>"$T/info.err"; then ok "a new open works"; else bad "reopen: $(cat "$T/info.err")"; fi
kill "$SRV_PID"
finish
