#!/usr/bin/env bash
# `sgpu flash` and `make flash`: the exact openFPGALoader command of each
# board with --dry-run / DRY_RUN=1, and one-line errors with distinct exit
# codes for a bad board, a missing bitstream and no board attached (this
# machine has none).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
ROOT=${SGPU_ROOT:?SGPU_ROOT must name the repository}
expect_out() {  # NAME EXPECTED COMMAND...
  local name=$1 want=$2; shift 2
  local got
  got=$("$@" 2>"$T/err"); local rc=$?
  if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then ok "$name"; else
    bad "$name: rc $rc, got '$got', want '$want' ($(cat "$T/err"))"; fi
}
expect_rc() {  # NAME RC PATTERN COMMAND...: exit code, one stderr line matching
  local name=$1 want=$2 pat=$3; shift 3
  "$@" >/dev/null 2>"$T/err"; local rc=$?
  local lines; lines=$(wc -l <"$T/err")
  if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -q -- "$pat" "$T/err"; then ok "$name"; else
    bad "$name: rc $rc (want $want), stderr: $(cat "$T/err")"; fi
}

expect_out "icebreaker dry run" "openFPGALoader -b ice40_generic build/icebreaker/sgpu.bin" \
  "$SGPU" flash --board icebreaker --dry-run
expect_out "ulx3s dry run (SRAM)" "openFPGALoader -b ulx3s build/ulx3s/sgpu.bit" \
  "$SGPU" flash --board ulx3s --dry-run
expect_out "ulx3s dry run (flash)" "openFPGALoader -b ulx3s -f build/ulx3s/sgpu.bit" \
  "$SGPU" flash --board=ulx3s --flash --dry-run
expect_out "other file" "openFPGALoader -b ice40_generic /tmp/x.bin" \
  "$SGPU" flash --board icebreaker --file /tmp/x.bin --dry-run
expect_out "make flash DRY_RUN=1" "openFPGALoader -b ice40_generic build/icebreaker/sgpu.bin" \
  make -s --no-print-directory -C "$ROOT" flash BOARD=icebreaker DRY_RUN=1
expect_out "make flash BOARD=ulx3s DRY_RUN=1" "openFPGALoader -b ulx3s build/ulx3s/sgpu.bit" \
  make -s --no-print-directory -C "$ROOT" flash BOARD=ulx3s DRY_RUN=1
expect_out "make flash BOARD=ulx3s FLASH=1 DRY_RUN=1" "openFPGALoader -b ulx3s -f build/ulx3s/sgpu.bit" \
  make -s --no-print-directory -C "$ROOT" flash BOARD=ulx3s FLASH=1 DRY_RUN=1

expect_rc "no --board" 1 "needs --board" "$SGPU" flash --dry-run
expect_rc "unknown board" 1 "unknown board 'nope'" "$SGPU" flash --board nope
expect_rc "--flash on the iCEBreaker" 1 "always programmed through its flash" \
  "$SGPU" flash --board icebreaker --flash
expect_rc "unknown option" 1 "unknown option" "$SGPU" flash --board icebreaker --fast
expect_rc "missing bitstream" 2 "does not exist; run 'make bitstream BOARD=icebreaker'" \
  "$SGPU" flash --board icebreaker --file "$T/none.bin"
echo "not a bitstream" >"$T/x.bin"
# No board here: openFPGALoader's probe fails (or it is missing): exit 3.
expect_rc "no board attached" 3 "no icebreaker found\|openFPGALoader is not installed" \
  "$SGPU" flash --board icebreaker --file "$T/x.bin"

tap_finish
