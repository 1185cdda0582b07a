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
