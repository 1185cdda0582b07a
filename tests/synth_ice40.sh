#!/usr/bin/env bash
# The chip (1 node, 1 source, 128 KiB like the iCEBreaker's SPRAM) must
# synthesize for the iCE40UP5K with yosys, with no latches, and its LUTs and
# flip-flops must each stay within the 5280 logic cells.  Prints the cell
# counts.  Placing and routing the whole board (tools/bitstream_ice40.sh,
# `make bitstream`, and seed 1 in tests/pnr_icebreaker.sh) is a separate
# step.
set -eu
cd "$(dirname "$0")/.."
out=build/synth
mkdir -p "$out"
srcs=$(bash tools/rtl_srcs.sh | tr '\n' ' ')

# Latch check on the generic netlist: after `proc` a latch is a $dlatch cell.
yosys -q -l "$out/latch.log" -p "read_verilog -Ibuild/gen -Irtl $srcs; \
  chparam -set NODES 1 -set SOURCES 1 -set MEM_BYTES 131072 sgpu_top; \
  hierarchy -top sgpu_top; proc; select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr; \
  tee -o $out/latches.txt select -count t:\$dlatch t:\$adlatch"
echo "no latches in sgpu_top"

# The count with the iCEBreaker's PRIORITY and VM (no high-priority rings, no MMUs: they
# would not fit); the latch check above covers them (PRIORITY's and VM's default 1).
yosys -q -l "$out/sgpu_top.log" -p "read_verilog -Ibuild/gen -Irtl $srcs; \
  chparam -set NODES 1 -set SOURCES 1 -set MEM_BYTES 131072 -set PRIORITY 0 -set TIME_SLICE 0 -set VM 0 sgpu_top; \
  synth_ice40 -device u -dsp -top sgpu_top -json $out/sgpu_top.json; \
  tee -o $out/sgpu_top.stat stat"
count() { awk -v c="$1" '$1 == c { n += $2 } END { print n + 0 }' "$out/sgpu_top.stat"; }
luts=$(count SB_LUT4)
carry=$(count SB_CARRY)
ffs=$(awk '$1 ~ /^SB_DFF/ { n += $2 } END { print n + 0 }' "$out/sgpu_top.stat")
brams=$(count SB_RAM40_4K)
# A logic cell holds one LUT4 and one flip-flop; yosys does not pack them, so
# the cells needed lie between max(LUTs, FFs) and LUTs + FFs; nextpnr packs
# the exact number (tools/bitstream_ice40.sh).
lc_lo=$(( luts > ffs ? luts : ffs ))
lc_hi=$(( luts + ffs ))
echo "RESULT ice40up5k sgpu_top (1 node, 1 source): SB_LUT4=$luts SB_DFF=$ffs SB_CARRY=$carry SB_RAM40_4K=$brams"
echo "FIGURE ice40_core_logic_cells between $lc_lo and $lc_hi (of 5280)"

if [ "$luts" -gt 5280 ] || [ "$ffs" -gt 5280 ] || [ "$brams" -gt 30 ]; then
  echo "does not fit the iCE40UP5K" >&2; exit 1
fi
