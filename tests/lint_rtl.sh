#!/usr/bin/env bash
# verilator --lint-only -Wall must be clean on all of rtl/: the chip from its
# top, every module on its own (so modules not yet used by a top are linted
# too), and each board top.  Twice: as the chip is built, and as the model
# with assertions on sees it (sim/sim.mk, SIM_ASSERT_VFLAGS: FORMAL defined,
# so the assertion code next to the handshakes is linted too; its clocked
# checks sample rst_ni, -Wno-SYNCASYNCNET), with that model's top,
# sim/sgpu_sim_top.v.  And once more as the fast model is built (below).
set -eu
cd "$(dirname "$0")/.."
srcs=$(bash tools/rtl_srcs.sh)
for cfg in plain assert; do
  flags=(); tag=""
  if [ $cfg = assert ]; then
    flags=(--assert +define+FORMAL -Wno-SYNCASYNCNET); tag=" (assertions on)"
    verilator --lint-only -Wall "${flags[@]}" -Ibuild/gen -Irtl --top-module sgpu_sim_top $srcs sim/sgpu_sim_top.v
    echo "lint clean: sgpu_sim_top$tag"
  fi
  verilator --lint-only -Wall ${flags[@]+"${flags[@]}"} -Ibuild/gen -Irtl --top-module sgpu_top $srcs
  echo "lint clean: sgpu_top$tag"
  for f in $srcs; do
    m=$(basename "$f" .v)
    [ "$m" = sgpu_top ] && continue
    verilator --lint-only -Wall ${flags[@]+"${flags[@]}"} -Ibuild/gen -Irtl --top-module "$m" $srcs
    echo "lint clean: $m$tag"
  done
  for b in rtl/boards/*.v; do
    [ -e "$b" ] || continue
    top=$(basename "$b" .v)
    verilator --lint-only -Wall ${flags[@]+"${flags[@]}"} -Ibuild/gen -Irtl --top-module "$top" "$b" $srcs
    echo "lint clean: $top$tag"
  done
done
# The fast model's build (sim/sim.mk: SGPU_SIM_GATE, each ring on a clock of
# its own, code inside `ifdef VERILATOR that synthesis never sees): its top's
# hierarchy.  sgpu_link_top is left out: the link model is built without
# the define, and under it sgpu_top has the ring-clock ports it leaves open.
gate_srcs=$(grep -v '/sgpu_link_top\.v$' <<<"$srcs")
verilator --lint-only -Wall +define+SGPU_SIM_GATE -Ibuild/gen -Irtl --top-module sgpu_sim_top $gate_srcs sim/sgpu_sim_top.v
echo "lint clean: sgpu_sim_top (ring clocks, SGPU_SIM_GATE)"
