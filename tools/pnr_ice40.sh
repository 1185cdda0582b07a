#!/usr/bin/env bash
# Synthesize, place and route each iCE40 board top (rtl/boards/icebreaker*.v
# with constraints/<top>.pcf) with yosys and nextpnr-ice40; print the logic
# cells used and the Fmax estimate.  Exits non-zero when a board does not fit.
# Run by `make synth-icebreaker`.  -abc2 (a second ABC pass) packs about 100
# cells fewer than the default flow, which the full board needs to fit.
set -eu
cd "$(dirname "$0")/.."
out=build/synth
mkdir -p "$out"
srcs=$(echo rtl/*.v)
status=0
for top_v in rtl/boards/icebreaker*.v; do
  [ -e "$top_v" ] || continue
  top=$(basename "$top_v" .v)
  pcf=constraints/$top.pcf
  echo "synthesizing $top (yosys)..."
  yosys -q -l "$out/$top.log" -p "read_verilog -DSYNTHESIS -DSGPU_ICE40_DSP -Ibuild/gen -Irtl $top_v $srcs; \
    synth_ice40 -device u -spram -dsp -abc2 -top $top -json $out/$top.json"
  echo "placing and routing $top (nextpnr-ice40, about a minute)..."
  if nextpnr-ice40 --up5k --package sg48 --json "$out/$top.json" --pcf "$pcf" \
      --asc "$out/$top.asc" --seed 1 --timing-allow-fail -l "$out/$top.pnr.log" >/dev/null 2>&1; then
    fmax=$(grep -E "Max frequency for clock" "$out/$top.pnr.log" | tail -1 | sed -E 's/.*: ([0-9.]+ MHz).*/\1/')
    echo "FIGURE ${top}_fmax $fmax (pixel clock 25.125 MHz)"
    icepack "$out/$top.asc" "$out/$top.bin" && echo "bitstream: $out/$top.bin"
  else
    echo "$top does not fit or route; see $out/$top.pnr.log" >&2
    status=1
  fi
  lcs=$(grep -m1 -E 'ICESTORM_LC:' "$out/$top.pnr.log" | sed -E 's/.*ICESTORM_LC: *([0-9]+)\/ *([0-9]+).*/\1 of \2/')
  echo "FIGURE ${top}_lc $lcs"
done
exit $status
