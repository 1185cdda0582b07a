#!/usr/bin/env bash
# The iCEBreaker image, as `make bitstream BOARD=icebreaker` builds it, at
# one synthesis order and one seed (tools/bitstream_ice40.sh; make bitstream
# checks orders 1-4 and seeds 1-3): nextpnr with no override of failed
# timing, every clock domain's Fmax at least 1.15 times its frequency, the
# design placed and routed, a bitstream written, and at most 90 % of the
# UP5K's logic cells used.  The order is the default list's first, so the
# order make test checks is one of those make bitstream checks.  Prints
# FIGURE lines per order and clock.
set -eu
cd "$(dirname "$0")/.."
SEEDS=1 SYNTH_ORDERS=1 MIN_ORDERS=1 exec bash tools/bitstream_ice40.sh icebreaker
