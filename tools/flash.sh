#!/usr/bin/env bash
# flash.sh BOARD — program build/BOARD/sgpu.bin into the board's
# configuration flash with openFPGALoader (Debian package openfpgaloader).
# Run by `make flash BOARD=...` (tools/board.mk).  DRY_RUN=1 prints the
# command and does nothing else.  Without a board (or programmer) attached
# it prints one line and exits non-zero; every openFPGALoader call has a
# time limit, so it never hangs.
set -u
cd "$(dirname "$0")/.."
board=${1:?usage: flash.sh BOARD}
case "$board" in
  icebreaker) cable_board=ice40_generic ;;   # the iCEBreaker's FT2232H, SPI flash
  *) echo "flash: unknown board '$board'" >&2; exit 2 ;;
esac
bin=build/$board/sgpu.bin
cmd=(openFPGALoader -b "$cable_board" "$bin")

if [ "${DRY_RUN:-0}" = 1 ]; then
  echo "${cmd[*]}"
  exit 0
fi
if ! command -v openFPGALoader >/dev/null 2>&1; then
  echo "flash: openFPGALoader is not installed (Debian package openfpgaloader)" >&2; exit 1
fi
if [ ! -s "$bin" ]; then
  echo "flash: $bin does not exist; run 'make bitstream BOARD=$board' first" >&2; exit 1
fi
# Is a programmer there at all?  (--detect fails at once without the FTDI.)
if ! timeout 20 openFPGALoader -b "$cable_board" --detect >/dev/null 2>&1; then
  echo "flash: no $board found (openFPGALoader -b $cable_board --detect failed: board not attached or no USB access)" >&2
  exit 1
fi
if ! timeout 300 "${cmd[@]}"; then
  echo "flash: programming $board failed or timed out" >&2; exit 1
fi
