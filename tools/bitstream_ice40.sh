#!/usr/bin/env bash
# bitstream_ice40.sh BOARD — synthesize, place and route an iCE40 board top
# with timing and area asserted, write build/BOARD/sgpu.bin and
# build/BOARD/report.txt.  Run by `make bitstream BOARD=...` (tools/board.mk)
# and, with SEEDS=1, by tests/pnr_icebreaker.sh once the build meets it.
#
# The area rule: synthesis maps the same RTL to a cell count that moves by
# about +-50 logic cells with the order in which yosys reads the sources (its
# LUT mapper, abc, meets the netlist in that order; docs/boards.md).  So the
# rule is checked at several orders, never at one chosen because it fits:
# every order of SYNTH_ORDERS (default "1 2 3 4", at least four) is
# synthesized and packed, each order's count goes in the report with their
# mean, and every one must be at most LC_MAX_PCT (90) % of the device.  Order
# 0 reads the chip sources (tools/rtl_srcs.sh) sorted by path, order k > 0
# sorted by the md5 of "k:path".
#
# Timing: the first order's netlist is placed and routed on each seed of SEEDS
# (default "1 2 3") with no override of failed timing, every clock
# constrained at MARGIN (1.15) times its frequency; a seed passes when nextpnr
# succeeds, every clock's Fmax is at least MARGIN times its frequency and the
# placed logic cells are within the limit.  The bitstream is the first seed's.
# Exit status 0 only when every order and every seed passes.
#
# Environment: BAUD (the board's UART rate, default the board top's),
# SEEDS, SYNTH_ORDERS, SYNTH_OPTS (extra synth_ice40 options, default
# "-dsp -abc2"), PNR_OPTS (extra nextpnr options), SWEEP=1 (instead: synthesize
# with each option set of SWEEP_SETS, place and route seed 1, print logic
# cells and Fmax of each; writes build/BOARD/sweep.txt).
set -u
cd "$(dirname "$0")/.."
board=${1:?usage: bitstream_ice40.sh BOARD}

case "$board" in
  icebreaker)
    top=icebreaker_top
    device="--up5k --package sg48"
    lc_total=5280
    # clock nets of the board top and their frequencies (MHz): the system
    # domain on the 12 MHz oscillator, the pixel domain on the PLL
    clocks="clk:12 clk_pix:25.125"
    ;;
  *) echo "bitstream_ice40.sh: unknown board '$board'" >&2; exit 2 ;;
esac

out=build/$board
mkdir -p "$out"
margin=${MARGIN:-1.15}
lc_max_pct=${LC_MAX_PCT:-90}
lc_max=$(( lc_total * lc_max_pct / 100 ))
seeds=${SEEDS:-1 2 3}
synth_opts=${SYNTH_OPTS--dsp -abc2}
pnr_opts=${PNR_OPTS-}
srcs=$(bash tools/rtl_srcs.sh | tr '\n' ' ')
orders=${SYNTH_ORDERS:-1 2 3 4}
min_orders=${MIN_ORDERS:-4}
set -- $orders
[ $# -ge "$min_orders" ] || { echo "bitstream_ice40.sh: the area rule needs at least $min_orders synthesis orders (SYNTH_ORDERS='$orders')" >&2; exit 2; }
# order_srcs K: the chip's sources (tools/rtl_srcs.sh) in synthesis order K
order_srcs() {
  if [ "$1" = 0 ]; then echo "$srcs"; return; fi
  for f in $srcs; do printf '%s %s\n' "$(printf '%s:%s' "$1" "$f" | md5sum | cut -c1-32)" "$f"; done \
    | sort | cut -d' ' -f2 | tr '\n' ' '
}
pcf=constraints/$top.pcf

# Constraints at margin x frequency, applied before packing.
pre=$out/clocks.py
: >"$pre"
for c in $clocks; do
  awk -v n="${c%%:*}" -v f="${c#*:}" -v m="$margin" \
    'BEGIN { printf "ctx.addClock(\"%s\", %.4f)\n", n, f * m }' >>"$pre"
done

chparam=""
[ -n "${BAUD:-}" ] && chparam="chparam -set BAUD $BAUD $top;"
synth() {  # synth OPTS JSON LOG [SOURCES]
  yosys -q -l "$3" -p "read_verilog -DSYNTHESIS -DSGPU_ICE40_DSP -Ibuild/gen -Irtl rtl/boards/$top.v ${4:-$srcs}; \
    $chparam synth_ice40 -device u -spram $1 -top $top -json $2" >/dev/null 2>&1
}
# packed_lc JSON LOG: logic cells after nextpnr's packing (no placement)
packed_lc() {
  nextpnr-ice40 $device --json "$1" --pcf "$pcf" --pack-only -l "$2" >/dev/null 2>&1
  grep -m1 -E 'ICESTORM_LC:' "$2" | sed -E 's/.*ICESTORM_LC: *([0-9]+)\/.*/\1/'
}

# pnr JSON SEED TAG -> sets p_rc p_lc p_ram p_dsp p_fmax ("clk=12.3 ...") p_ok
pnr() {
  local json=$1 seed=$2 tag=$3
  local log=$out/pnr-$tag.log rep=$out/pnr-$tag.json
  rm -f "$rep" "$out/$tag.asc"
  nextpnr-ice40 $device --json "$json" --pcf "$pcf" --pre-pack "$pre" --seed "$seed" \
    --asc "$out/$tag.asc" --report "$rep" $pnr_opts -l "$log" >/dev/null 2>&1
  p_rc=$?
  p_lc=$(grep -m1 -E 'ICESTORM_LC:' "$log" | sed -E 's/.*ICESTORM_LC: *([0-9]+)\/.*/\1/')
  p_ram=$(grep -m1 -E 'ICESTORM_RAM:' "$log" | sed -E 's/.*ICESTORM_RAM: *([0-9]+)\/.*/\1/')
  p_spram=$(grep -m1 -E 'ICESTORM_SPRAM:' "$log" | sed -E 's/.*ICESTORM_SPRAM: *([0-9]+)\/.*/\1/')
  p_dsp=$(grep -m1 -E 'ICESTORM_DSP:' "$log" | sed -E 's/.*ICESTORM_DSP: *([0-9]+)\/.*/\1/')
  p_fmax=""; p_ok=1
  [ "$p_rc" -eq 0 ] || p_ok=0
  [ -n "$p_lc" ] && [ "$p_lc" -le "$lc_max" ] || p_ok=0
  for c in $clocks; do
    local n=${c%%:*} f=${c#*:} a
    # the last report of the clock (after routing; after placement if routing failed)
    a=$(grep -E "Max frequency for clock +'$n'" "$log" | tail -1 | sed -E 's/.*: ([0-9.]+) MHz.*/\1/')
    [ -n "$a" ] || a=0
    local pf
    pf=$(awk -v a="$a" -v f="$f" -v m="$margin" 'BEGIN { print (a >= f * m) ? "PASS" : "FAIL" }')
    [ "$pf" = PASS ] || p_ok=0
    p_fmax="$p_fmax $n=$a MHz (target $f MHz x $margin = $(awk -v f="$f" -v m="$margin" 'BEGIN{printf "%.2f", f*m}') MHz) $pf;"
  done
}

if [ "${SWEEP:-0}" = 1 ]; then
  sets=${SWEEP_SETS:-"-abc2|-abc2 -dsp|-abc9|-abc9 -dsp|-retime -abc2|-abc2 -relut|(none)"}
  echo "option sweep for $top, seed 1 (logic cells of $lc_total, Fmax per clock):" | tee "$out/sweep.txt"
  IFS='|' read -r -a list <<<"$sets"
  for o in "${list[@]}"; do
    [ "$o" = "(none)" ] && o=""
    if ! synth "$o" "$out/sweep.json" "$out/sweep-yosys.log"; then
      echo "  synth_ice40 ${o:-(no options)}: yosys failed" | tee -a "$out/sweep.txt"; continue
    fi
    pnr "$out/sweep.json" 1 sweep
    echo "  synth_ice40 ${o:-(no options)} ${pnr_opts}: LC ${p_lc:-?} RAM ${p_ram:-?} DSP ${p_dsp:-?} nextpnr rc $p_rc;$p_fmax" \
      | tee -a "$out/sweep.txt"
  done
  exit 0
fi

# Every order is synthesized and packed; the first one's netlist is placed.
tried=""; lc_sum=0; n_orders=0; area_ok=1; first_order=""
for k in $orders; do
  echo "synthesizing $top, order $k (yosys synth_ice40 -device u -spram $synth_opts)..."
  if ! synth "$synth_opts" "$out/order.json" "$out/yosys-order.log" "$(order_srcs "$k")"; then
    echo "yosys failed; see $out/yosys-order.log" >&2; exit 1
  fi
  lc=$(packed_lc "$out/order.json" "$out/pack-order.log")
  [ -n "$lc" ] || { echo "nextpnr could not pack order $k; see $out/pack-order.log" >&2; exit 1; }
  res=$([ "$lc" -le "$lc_max" ] && echo PASS || echo FAIL)
  [ "$res" = PASS ] || area_ok=0
  echo "  order $k: $lc logic cells (max $lc_max) $res"
  echo "FIGURE ${board}_order${k}_lc $lc of $lc_total ($res against $lc_max, $lc_max_pct %)"
  tried="$tried $k:$lc"; lc_sum=$(( lc_sum + lc )); n_orders=$(( n_orders + 1 ))
  if [ -z "$first_order" ]; then
    first_order=$k
    mv "$out/order.json" "$out/$top.json"; mv "$out/yosys-order.log" "$out/yosys.log"
  fi
done
lc_mean=$(awk -v s="$lc_sum" -v n="$n_orders" 'BEGIN { printf "%.1f", s / n }')
echo "FIGURE ${board}_lc_mean $lc_mean over orders$tried"

rep=$out/report.txt
{
  echo "sgpu bitstream report: $board ($top)"
  echo "synthesis: yosys ${chparam:+$chparam }synth_ice40 -device u -spram $synth_opts at orders$(printf ' %s' $orders); placed: order $first_order"
  for t in $tried; do
    echo "order ${t%%:*}: ${t#*:} logic cells of $lc_total (max $lc_max) $([ "${t#*:}" -le "$lc_max" ] && echo PASS || echo FAIL)"
  done
  echo "logic cells over the orders: mean $lc_mean, $(printf '%s\n' $tried | cut -d: -f2 | sort -n | head -1) to $(printf '%s\n' $tried | cut -d: -f2 | sort -n | tail -1)"
  echo "place and route: nextpnr-ice40 $device --pre-pack $pre $pnr_opts (failed timing fails the run)"
  echo "checks: logic cells <= $lc_max ($lc_max_pct % of $lc_total) at every order; every clock's Fmax >= $margin x its frequency on every seed"
} >"$rep"
status=0
[ "$area_ok" = 1 ] || { status=1; echo "area: an order exceeds $lc_max logic cells (the rule holds at every order)" | tee -a "$rep"; }
first=1
for s in $seeds; do
  echo "placing and routing $top, seed $s..."
  pnr "$out/$top.json" "$s" "seed$s"
  res=$([ "$p_ok" = 1 ] && echo PASS || echo FAIL)
  lcres=$([ -n "$p_lc" ] && [ "$p_lc" -le "$lc_max" ] && echo PASS || echo FAIL)
  line="seed $s: $res  LC ${p_lc:-?}/$lc_total (max $lc_max) $lcres, RAM ${p_ram:-?}/30, SPRAM ${p_spram:-?}/4, DSP ${p_dsp:-?}/8, nextpnr exit $p_rc;$p_fmax"
  echo "$line" | tee -a "$rep"
  echo "FIGURE ${board}_seed${s}_lc ${p_lc:-?} of $lc_total ($lcres against $lc_max, $lc_max_pct %)"
  echo "FIGURE ${board}_seed${s}_ram ${p_ram:-?} of 30 block RAMs, ${p_spram:-?} of 4 SPRAMs, ${p_dsp:-?} of 8 DSPs"
  for c in $clocks; do
    n=${c%%:*}
    echo "FIGURE ${board}_seed${s}_fmax_$n $(echo "$p_fmax" | tr ';' '\n' | grep -E "^ *$n=" | sed -E 's/^ *[^=]+=//')"
  done
  [ "$p_ok" = 1 ] || status=1
  if [ "$first" = 1 ]; then
    first=0
    if [ "$p_ok" = 1 ] && icepack "$out/seed$s.asc" "$out/sgpu.bin"; then
      echo "bitstream: $out/sgpu.bin (seed $s)" | tee -a "$rep"
    else
      rm -f "$out/sgpu.bin"
      echo "no bitstream: seed $s does not meet the checks (log: $out/pnr-seed$s.log)" | tee -a "$rep"
    fi
  fi
done
echo "RESULT $board bitstream $([ $status = 0 ] && echo PASS || echo FAIL)" | tee -a "$rep"
echo "report: $rep"
exit $status
