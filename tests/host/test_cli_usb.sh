#!/usr/bin/env bash
# `sgpu list` and the usb transport seen from the CLI: the list (text and
# --json) and its "no boards found" line, --help, the usb: URI's parse
# errors (exit 1, one line naming the wrong part, SGPU_ERROR_INVALID_URI),
# and the "no board" error (exit 3, one line, SGPU_ERROR_NO_DEVICE) within
# a few seconds.  This machine has no board; on one with a board attached
# the listing is checked instead of the "no board" lines.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# NAME RC PATTERN COMMAND...: exit code, exactly one stderr line matching,
# and back within 10 s (a missing board must never hang).
expect_rc() {
  local name=$1 want=$2 pat=$3; shift 3
  local t0; t0=$(date +%s%N)
  timeout 10 "$@" >"$T/out" 2>"$T/err"; local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local lines; lines=$(wc -l <"$T/err")
  if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -q -- "$pat" "$T/err"; then ok "$name (${ms} ms): $(cat "$T/err")"; else
    bad "$name: rc $rc (want $want) after $ms ms, stderr: $(cat "$T/err")"; fi
}

# ---------------------------------------------------------------- sgpu list
timeout 10 "$SGPU" list >"$T/list" 2>"$T/list.err"; rc=$?
timeout 10 "$SGPU" --json list >"$T/list.json" 2>"$T/list.json.err"; jrc=$?
if grep -q "built without USB support" "$T/list.err"; then
  # a build without libftdi1/libusb-1.0: it says so, exit 3
  if [ "$rc" = 3 ]; then ok "list without USB support: $(cat "$T/list.err")"; else bad "list without USB: rc $rc"; fi
  boards=-1
elif [ "$rc" = 0 ] && [ "$jrc" = 0 ]; then
  boards=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["count"]==len(d["boards"]); print(d["count"])' "$T/list.json" 2>"$T/py.err") \
    || { bad "list --json is not {boards, count}: $(cat "$T/list.json") $(cat "$T/py.err")"; boards=-1; }
fi
case "$boards" in
  0)
    if [ ! -s "$T/list" ] && [ "$(cat "$T/list.err")" = "sgpu list: no boards found" ]; then
      ok "list: nothing on stdout, 'no boards found' on stderr, exit 0"
    else bad "list with no board: stdout '$(cat "$T/list")', stderr '$(cat "$T/list.err")'"; fi
    if [ "$(cat "$T/list.json")" = '{"boards":[],"count":0}' ] && grep -q "no boards found" "$T/list.json.err"; then
      ok "list --json: {\"boards\":[],\"count\":0}, exit 0"
    else bad "list --json with no board: '$(cat "$T/list.json")'"; fi ;;
  -1) ;;
  *)
    # boards attached: one line per board after the header, each with a usb: URI
    n=$(tail -n +2 "$T/list" | grep -c ' usb:[0-9a-f]\{4\}:[0-9a-f]\{4\}')
    if [ "$n" = "$boards" ] && head -n1 "$T/list" | grep -q "^BOARD"; then ok "list: $boards board(s): $(cat "$T/list")"
    else bad "list: $boards in --json, $n lines: $(cat "$T/list")"; fi
    if python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for b in d["boards"]:
    assert b["uri"].startswith("usb:%s:%s" % (b["vid"], b["pid"])), b
    assert b["name"] in ("icebreaker", "ulx3s") and b["interface"] in ("A", "B") and b["baud"] > 0, b' "$T/list.json"
    then ok "list --json fields"; else bad "list --json fields: $(cat "$T/list.json")"; fi ;;
esac
expect_rc "list takes no argument" 1 "unknown option 'x'" "$SGPU" list x
if "$SGPU" list --help >"$T/help" && grep -q "usage: sgpu \[--json\] list" "$T/help" && grep -q "0403:6010" "$T/help"
then ok "list --help"; else bad "list --help: $(cat "$T/help")"; fi
if "$SGPU" --help | grep -q "^  list .*boards attached over USB"; then ok "sgpu --help names list"; else bad "sgpu --help has no list"; fi

# ---------------------------------------------------------------- usb: URIs
bad_uri() {  # URI PATTERN
  expect_rc "URI '$1'" 1 "$2.*invalid device URI, -3" "$SGPU" --device "$1" info
}
bad_uri "usb:" "expected usb:VID:PID"
bad_uri "usb:0403" "expected usb:VID:PID"
bad_uri "usb:0403:" "PID '' is not 4 hex digits"
bad_uri "usb:403:6010" "expected usb:VID:PID"
bad_uri "usb:040g:6010" "expected usb:VID:PID"
bad_uri "usb:0403:60100" "PID '60100' is not 4 hex digits"
bad_uri "usb:0403:6010:" "empty serial number"
bad_uri "usb:0403:6010:a b" "bad character in serial number"
bad_uri "usb:0403:6010:$(printf 'x%.0s' $(seq 1 70))" "serial number longer than 63"
bad_uri "usb:0000:0000" "0000:0000 names no device"
bad_uri "usb@" "baud rate '' is not 300..20000000"
bad_uri "usb:0403:6010@fast" "baud rate 'fast'"
bad_uri "usb@99999999" "baud rate '99999999'"
expect_rc "URI 'usbx'" 1 "unknown device URI 'usbx'" "$SGPU" --device usbx info

if [ "$boards" -ge 0 ] 2>/dev/null; then
  # No such serial number on any board: SGPU_ERROR_NO_DEVICE (or, with a
  # board attached but not accessible, the permission message).
  expect_rc "usb:0403:6010:SERIAL that no board has" 3 \
    "no USB device 0403:6010 attached.*-6)\|no attached 0403:6010 device has serial number 'sgpu-no-such-board'.*-6)\|no permission" \
    "$SGPU" --device usb:0403:6010:sgpu-no-such-board info
  expect_rc "usb:1d50:00ff (nothing has it)" 3 "usb:1d50:00ff: no USB device 1d50:00ff attached.*-6)" \
    "$SGPU" --device usb:1d50:00ff peek 0
  if [ "$boards" = 0 ]; then
    expect_rc "bare usb, no board" 3 "no sgpu board attached (looked for icebreaker 0403:6010, ulx3s 0403:6015).*-6)" \
      "$SGPU" --device usb info
    expect_rc "usb@1000000, no board" 3 "no sgpu board attached.*-6)" "$SGPU" --device usb@1000000 info
    expect_rc "usb:0403:6015, no board" 3 "no USB device 0403:6015 attached" "$SGPU" --device usb:0403:6015 info
    # --json: the error object on stdout, the same line on stderr
    timeout 10 "$SGPU" --json --device usb info >"$T/j" 2>/dev/null; rc=$?
    if [ "$rc" = 3 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exit"]==3 and "no sgpu board attached" in d["error"]' "$T/j"
    then ok "--json usb info, no board: $(cat "$T/j")"; else bad "--json usb info: rc $rc: $(cat "$T/j")"; fi
  fi
fi

tap_finish
