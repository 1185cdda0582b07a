#!/usr/bin/env bash
# The iCEBreaker image, as `make bitstream BOARD=icebreaker` builds it, on
# seed 1 (tools/bitstream_ice40.sh; seeds 2 and 3 are make bitstream's):
# nextpnr with no override of failed timing, every clock domain's Fmax at least
# 1.15 times its frequency, the design placed and routed, a bitstream
# written, and at most 80 % of the UP5K's logic cells used (LC_MAX_PCT; the
# synthesis orders are the script's default list, docs/boards.md, "The
# iCEBreaker image").  Prints FIGURE lines per clock.
set -eu
cd "$(dirname "$0")/.."
SEEDS=1 LC_MAX_PCT=${LC_MAX_PCT:-80} exec bash tools/bitstream_ice40.sh icebreaker
