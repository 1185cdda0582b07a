#!/usr/bin/env bash
# The full design on the iCEBreaker (board top, chip, host bridge, SPRAM)
# must place and route on the iCE40UP5K; prints the logic cells and the
# nextpnr Fmax estimate (tools/pnr_ice40.sh, also `make synth-icebreaker`).
set -eu
cd "$(dirname "$0")/.."
exec bash tools/pnr_ice40.sh
