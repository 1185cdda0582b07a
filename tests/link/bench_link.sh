#!/usr/bin/env bash
# The host link's efficiency at the iCEBreaker's 3 Mbaud (sgpu-sim --baud
# 3000000: each byte takes 10 bit times of simulated time, 300,000 bytes/s
# each way), through tcp: and through the pseudo-terminal (serial:), and
# through tcp: unpaced (2 cycles a byte, the sim bridge's fastest) for
# comparison: payload bytes per second of a 16 KiB upload and download
# against the wire rate, and the round trip of a register read, on the
# chip's clock (simulated time: what the link itself costs) and on the wall
# clock (what this machine's simulation costs); and through tcp: at 3 Mbaud
# with an FT2232H's 1 ms latency timer on the answers (--latency-us 1000),
# with one frame in flight (the URI's ,window=off), the window of link
# version 3 (,window=on) and the client's choice (window=auto).  A measurement for `make bench` (make
# link-bench), not a test: nothing here depends on the wall clock passing
# or failing.
#
# usage: bench_link.sh SGPU_SIM LINK_BENCH [OUT.md]
#   prints FIGURE lines; OUT.md gets the "Host link" table (markdown).
set -u
SIM=$1 BENCH=$2 OUT=${3:-}
T=$(mktemp -d)
# start runs in $(...), a subshell: the servers' PIDs go to a file, not an
# array (an array there never reached the parent, and make link-bench left
# its three servers running)
trap 'for p in $(cat "$T/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
BYTES=16384 READS=200 BAUD=3000000

start() {  # NAME ARGS... -> URI on stdout
  local name=$1; shift
  "$SIM" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  local pid=$!
  echo $pid >>"$T/pids"
  # up to a minute on a loaded machine; a server that exits ends the wait
  for _ in $(seq 1 1200); do [ -s "$T/$name.out" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
  local line; line=$(head -n1 "$T/$name.out")
  case "$line" in
    "listening on "*) echo "${line#listening on }" ;;
    "serving on "*) echo "serial:${line#serving on }@$BAUD" ;;
    *) echo "bench_link: server $name did not start: $(cat "$T/$name.err")" >&2; exit 1 ;;
  esac
}

declare -A V
run() {  # KEY URI
  "$BENCH" "$2" $BYTES $READS >"$T/$1.txt" || { echo "bench_link: $1 failed" >&2; exit 1; }
  while read -r k v; do V[$1.$k]=$v; echo "FIGURE link_${1}_$k $v"; done <"$T/$1.txt"
}
run tcp3m "$(start tcp3m --listen tcp:127.0.0.1:0 --baud $BAUD)"
run pty3m "$(start pty3m --pty --baud $BAUD)"
run tcp "$(start tcp --listen tcp:127.0.0.1:0)"
run lat1ms_off "$(start lat1ms_off --listen tcp:127.0.0.1:0 --baud $BAUD --latency-us 1000),window=off"
run lat1ms_on "$(start lat1ms_on --listen tcp:127.0.0.1:0 --baud $BAUD --latency-us 1000),window=on"
run lat1ms_auto "$(start lat1ms_auto --listen tcp:127.0.0.1:0 --baud $BAUD --latency-us 1000)"

wire=$((BAUD / 10))
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f %%", 100 * a / b }'; }
row() {  # KEY LABEL RATE
  local k=$1 rate=$3
  printf '| %s | %s B/s (%s of %s) | %s B/s (%s) | %s / %s | %.3f / %.3f | %s / %s | %s us (%s cycles) | %s us |\n' \
    "$2" "${V[$k.upload_payload_Bps_sim]}" "$(pct "${V[$k.upload_payload_Bps_sim]}" "$rate")" "$rate" \
    "${V[$k.download_payload_Bps_sim]}" "$(pct "${V[$k.download_payload_Bps_sim]}" "$rate")" \
    "${V[$k.upload_payload_Bps_wall]}" "${V[$k.download_payload_Bps_wall]}" \
    "$(awk -v w="${V[$k.upload_wire_bytes]}" -v n=$BYTES 'BEGIN{print w/n}')" \
    "$(awk -v w="${V[$k.download_wire_bytes]}" -v n=$BYTES 'BEGIN{print w/n}')" \
    "${V[$k.upload_repeats]}" "${V[$k.download_repeats]}" \
    "${V[$k.reg_read_rtt_us_sim]}" "${V[$k.reg_read_rtt_cycles]}" "${V[$k.reg_read_rtt_us_wall]}"
}
table() {
  echo "| link | upload, simulated | download, simulated | upload / download, wall (B/s) | wire bytes per payload byte, up / down | frames repeated, up / down | register read round trip, simulated | register read round trip, wall |"
  echo "|---|---|---|---|---|---|---|---|"
  row tcp3m "tcp: at 3 Mbaud" $wire
  row pty3m "serial: (--pty) at 3 Mbaud" $wire
  row tcp "tcp: unpaced (2 cycles a byte)" $((25175000 / 2))
  row lat1ms_off "tcp: at 3 Mbaud, 1 ms latency timer, window=off (one frame)" $wire
  row lat1ms_on "tcp: at 3 Mbaud, 1 ms latency timer, window=on" $wire
  row lat1ms_auto "tcp: at 3 Mbaud, 1 ms latency timer, window=auto" $wire
}
table
if [ -n "$OUT" ]; then table >"$OUT"; fi
