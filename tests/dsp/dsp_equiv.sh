#!/usr/bin/env bash
# sgpu_dsp_add / sgpu_dsp_counter / sgpu_dsp_ge_held / sgpu_dsp_counter_held
# on the iCE40 DSP path: the module testbench tests/rtl/tb_sgpu_dsp_add.v
# (which make test also runs on the plain-Verilog path) compiled with
# -DSYNTHESIS -DSGPU_ICE40_DSP against the yosys SB_MAC16 simulation model
# (ice40/cells_sim.v), so the SB_MAC16 configuration is checked against the
# same reference arithmetic.  Then the cost: synth_ice40 must map each module
# (default W) onto one SB_MAC16 and at most one LUT (the carry-in XOR of the
# adder, the rst_ni inverter of the counter, the load inverter of the held
# compare; the held down counter three: rst_ni's, dld_i's and that of co_o,
# the not-borrow turned around, which a user that leaves co_o open does not
# get) and no SB_CARRY or flip-flop (the held operand is in the DSP's input
# registers).
set -eu
cd "$(dirname "$0")/../.."
out=build/tests/dsp
mkdir -p "$out"
datdir=$(yosys-config --datdir 2>/dev/null || echo "$(dirname "$(command -v yosys)")/../share/yosys")
cells="$datdir/ice40/cells_sim.v"
[ -f "$cells" ] || { echo "no yosys iCE40 simulation model at $cells" >&2; exit 1; }

# cells_sim.v gives some ports SystemVerilog default values unless
# NO_ICE40_DEFAULT_ASSIGNMENTS is defined; every SB_MAC16 port is connected.
iverilog -g2005 -Wall -Wno-timescale -Wno-implicit-dimensions \
  -DNO_ICE40_DEFAULT_ASSIGNMENTS -DSYNTHESIS -DSGPU_ICE40_DSP -Irtl -Itests/rtl \
  -s tb_sgpu_dsp_add -o "$out/tb_sgpu_dsp_add_mac16" \
  tests/rtl/tb_sgpu_dsp_add.v rtl/prim/sgpu_dsp_add.v "$cells" 2>"$out/iverilog.log" \
  || { cat "$out/iverilog.log" >&2; exit 1; }
# The SB_MAC16 path, not the plain one, must be what was compiled.
n=$(grep -c '"u_mac" "SB_MAC16"' "$out/tb_sgpu_dsp_add_mac16" || true)
[ "$n" -eq 16 ] || { echo "expected 16 SB_MAC16 instances in the testbench, found $n" >&2; exit 1; }
vvp -n "$out/tb_sgpu_dsp_add_mac16" | tee "$out/sim.log"
grep -q '^PASS tb_sgpu_dsp_add' "$out/sim.log"

for top in sgpu_dsp_add sgpu_dsp_counter sgpu_dsp_ge_held sgpu_dsp_counter_held; do
  yosys -q -l "$out/$top.log" -p "read_verilog -DSYNTHESIS -DSGPU_ICE40_DSP rtl/prim/sgpu_dsp_add.v; \
    synth_ice40 -device u -top $top; tee -o $out/$top.stat stat" >/dev/null
  count() { awk -v c="$1" '$1 == c { n += $2 } END { print n + 0 }' "$out/$top.stat"; }
  mac=$(count SB_MAC16); lut=$(count SB_LUT4); carry=$(count SB_CARRY)
  ff=$(awk '$1 ~ /^SB_DFF/ { n += $2 } END { print n + 0 }' "$out/$top.stat")
  echo "RESULT ice40up5k $top (default W): SB_MAC16=$mac SB_LUT4=$lut SB_CARRY=$carry SB_DFF=$ff"
  # the held down counter: rst_ni, the hold of dld_i and co_o
  maxlut=1; [ "$top" = sgpu_dsp_counter_held ] && maxlut=3
  if [ "$mac" -ne 1 ] || [ "$lut" -gt "$maxlut" ] || [ "$carry" -ne 0 ] || [ "$ff" -ne 0 ]; then
    echo "$top does not map onto one SB_MAC16" >&2; exit 1
  fi
done
echo "PASS dsp_equiv"
