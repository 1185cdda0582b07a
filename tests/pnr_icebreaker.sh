#!/usr/bin/env bash
# The iCEBreaker image, as `make bitstream BOARD=icebreaker` builds it, on
# seed 1 (tools/bitstream_ice40.sh; seeds 2 and 3 are make bitstream's):
# nextpnr with no override of failed timing, every clock domain's Fmax at least
# 1.15 times its frequency, the design placed and routed, a bitstream
# written.  Area: here the image must fit the UP5K (LC_MAX_PCT 100); the 80 %
# limit is make bitstream's own check, which the build does not meet yet
# (docs/boards.md, "iCEBreaker image").  Prints FIGURE lines per clock.
set -eu
cd "$(dirname "$0")/.."
SEEDS=1 LC_MAX_PCT=${LC_MAX_PCT:-100} exec bash tools/bitstream_ice40.sh icebreaker
