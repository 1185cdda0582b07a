#!/usr/bin/env bash
# verilator --lint-only -Wall must be clean on all of rtl/ (chip and boards).
set -eu
cd "$(dirname "$0")/.."
srcs=$(ls rtl/*.v)
verilator --lint-only -Wall -Ibuild/gen -Irtl --top-module sgpu_top $srcs
echo "lint clean: sgpu_top"
for b in rtl/boards/*.v; do
  [ -e "$b" ] || continue
  top=$(basename "$b" .v)
  verilator --lint-only -Wall -Ibuild/gen -Irtl --top-module "$top" "$b" $srcs
  echo "lint clean: $top"
done
