#!/usr/bin/env bash
# verilator --lint-only -Wall must be clean on all of rtl/: the chip from its
# top, every module on its own (so modules not yet used by a top are linted
# too), and each board top.
set -eu
cd "$(dirname "$0")/.."
srcs=$(bash tools/rtl_srcs.sh)
verilator --lint-only -Wall -Ibuild/gen -Irtl --top-module sgpu_top $srcs
echo "lint clean: sgpu_top"
for f in $srcs; do
  m=$(basename "$f" .v)
  [ "$m" = sgpu_top ] && continue
  verilator --lint-only -Wall -Ibuild/gen -Irtl --top-module "$m" $srcs
  echo "lint clean: $m"
done
for b in rtl/boards/*.v; do
  [ -e "$b" ] || continue
  top=$(basename "$b" .v)
  verilator --lint-only -Wall -Ibuild/gen -Irtl --top-module "$top" "$b" $srcs
  echo "lint clean: $top"
done
