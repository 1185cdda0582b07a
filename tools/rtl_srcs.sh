#!/usr/bin/env bash
# The chip's Verilog sources, one path per line, sorted: every module of
# rtl/<subsystem>/ except the board tops of rtl/boards/.  The one list that
# the make fragments, lint, synthesis and the board flows read.
cd "$(dirname "$0")/.." || exit 1
ls rtl/*/*.v | grep -v '^rtl/boards/'
