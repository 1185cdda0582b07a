#!/usr/bin/env bash
# Tests of the sgpu-sim program without a display: options, exit codes,
# PNG frame capture of the test pattern (tiny and VGA timing), traces.
set -u
SIM=${SGPU_SIM:-build/bin/sgpu-sim}
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SIM" --help >"$tmp/help" || fail "--help exit status $?"
grep -q "^usage: sgpu-sim" "$tmp/help" || fail "--help prints no usage"
for bad in "--bogus" "--cycles" "--cycles abc" "--cycles -5" "--scale 0" "--latency 0" \
           "--stall 100" "--screenshot x.bmp" "--tiny"; do
  # shellcheck disable=SC2086
  "$SIM" $bad >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "'$bad' exit status $rc, expected 2"
  [ -s "$tmp/err" ] || fail "'$bad' gives no message"
done

# a bounded run reports its cycles
out=$("$SIM" --cycles 5000) || fail "--cycles 5000 failed"
cyc=$(echo "$out" | awk '/^cycles/ {print $2}')
[ "$cyc" -ge 5000 ] && [ "$cyc" -lt 5100 ] || fail "--cycles 5000 ran $cyc cycles"

# the test pattern through the host port and the display, captured as PNG
out=$("$SIM" --pattern --tiny --frames 2 --png "$tmp/tiny.png") || fail "tiny pattern run failed"
echo "$out"
echo "$out" | grep -q "source0 64x48 h_total 80 v_total 56 hsync 8 vsync_lines 2" || fail "tiny timing measured wrong"
python3 "$HERE/sgpu_sim_image.py" pattern "$tmp/tiny.png" || fail "tiny frame is not the pattern"
out=$("$SIM" --pattern --frames 1 --png "$tmp/vga.png" --stall 30 --seed 5) || fail "VGA pattern run failed"
echo "$out"
echo "$out" | grep -q "source0 640x480 h_total 800 v_total 525 hsync 96 vsync_lines 2" || fail "VGA timing measured wrong"
python3 "$HERE/sgpu_sim_image.py" pattern "$tmp/vga.png" || fail "VGA frame is not the pattern"
echo "FIGURE sgpu_sim_vga_frame1_cycles $(echo "$out" | awk '/^cycles/ {print $2}')"

# without a complete frame there is no PNG
"$SIM" --cycles 100 --png "$tmp/none.png" >/dev/null 2>&1 && fail "--png without a frame succeeded"

# traces
"$SIM" --cycles 200 --trace "$tmp/t.vcd" >/dev/null || fail "VCD trace run failed"
grep -q 'enddefinitions' "$tmp/t.vcd" && grep -q 'clk_i' "$tmp/t.vcd" || fail "VCD trace incomplete"
"$SIM" --cycles 200 --trace "$tmp/t.fst" >/dev/null || fail "FST trace run failed"
[ "$(head -c 1 "$tmp/t.fst" | od -An -tx1 | tr -d ' ')" = "00" ] || fail "FST trace has no FST header block"
"$SIM" --cycles 10 --trace /nonexistent/dir/t.vcd >/dev/null 2>&1 && fail "unwritable trace path accepted"
echo "sgpu_sim_cli: PASS"
