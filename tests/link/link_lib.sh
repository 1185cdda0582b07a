# Shared helpers of the link tests: start sgpu-sim link servers, stop them.
# Every server started here is killed by its PID when the test exits.
set -u
T=$(mktemp -d)
SERVERS=()
cleanup() {
  for p in "${SERVERS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
PASS=0
FAIL=0
ok() { echo "ok - $*"; PASS=$((PASS + 1)); }
bad() { echo "not ok - $*"; FAIL=$((FAIL + 1)); }
finish() { echo "$PASS passed, $FAIL failed"; [ "$FAIL" -eq 0 ]; }

# Appended to a link URI by the tests whose device is a model behind
# sgpu-sim (a board, a slowed line, a faulty one): the client's give-up
# time is wall time (1.5 s by default: docs/link-protocol.md) and a loaded
# machine slows the model, so a minute here; a slow machine makes such a
# run slower, never wrong.
GIVEUP=,giveup=60000

# start_server NAME ARGS... : runs sgpu-sim ARGS in the background, waits for
# its first line; sets SRV_PID and SRV_URI (tcp:127.0.0.1:PORT or serial:PTY).
start_server() {
  local name=$1; shift
  "$SGPU_BIN/sgpu-sim" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  SRV_PID=$!
  SERVERS+=("$SRV_PID")
  local i
  for i in $(seq 1 100); do
    if [ -s "$T/$name.out" ]; then break; fi
    sleep 0.05
  done
  local line; line=$(head -n1 "$T/$name.out")
  case "$line" in
    "listening on "*) SRV_URI=${line#listening on } ;;
    "serving on "*) SRV_URI=serial:${line#serving on } ;;
    *) echo "server $name did not start: $(cat "$T/$name.err")"; SRV_URI=; return 1 ;;
  esac
}

# server_faults ERRFILE: the server's last "client gone at cycle C (F frames,
# N naks, Q cycles of kept silence; faults: D dropped, X corrupted, U
# duplicated)" line, echoed as "server: ..."; sets SRV_LINE, SRV_CYCLES,
# SRV_NAKS, SRV_DROPPED, SRV_CORRUPTED, SRV_DUPLICATED (empty when missing).
server_faults() {
  SRV_LINE=$(grep "client gone" "$1" | tail -n 1)
  echo "server: $SRV_LINE"
  SRV_CYCLES=$(sed -n 's/.*client gone at cycle \([0-9]*\) .*/\1/p' <<<"$SRV_LINE")
  SRV_NAKS=$(sed -n 's/.* \([0-9]*\) naks.*/\1/p' <<<"$SRV_LINE")
  SRV_DROPPED=$(sed -n 's/.*faults: \([0-9]*\) dropped.*/\1/p' <<<"$SRV_LINE")
  SRV_CORRUPTED=$(sed -n 's/.* \([0-9]*\) corrupted.*/\1/p' <<<"$SRV_LINE")
  SRV_DUPLICATED=$(sed -n 's/.* \([0-9]*\) duplicated.*/\1/p' <<<"$SRV_LINE")
}
