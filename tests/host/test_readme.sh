#!/usr/bin/env bash
# Every example of README.md runs (issue 22).  tests/host/readme_examples.py
# takes the fenced blocks from README.md itself (the rule: sh blocks run in
# order in one scratch directory linked to the repository's root; a
# `<!-- readme-test: skip (REASON) -->` comment before a block skips it, a
# `<!-- readme-test: file NAME -->` saves it, as the C program is), after
# its self-test (a broken block fails; the README with its first runnable
# block broken fails).  Then what the examples printed and wrote is
# checked:
#   - the C program, compiled against the library `make install` put under
#     $HOME/.local with pkg-config alone, runs with no LD_LIBRARY_PATH (the
#     .pc's rpath: ldd finds libsgpu.so in the prefix), prints its fence's
#     DMA_COMPLETED event and a blue centre, and hello.png holds the 80x40
#     rectangle (4x4 pixels each on the 640x480 timing) on black;
#   - hello.s writes SCRATCH and FB0, not a reserved word: submit completes
#     fence 1, disasm shows the symbols' values, peek SCRATCH prints the two
#     words written, shot.png has the 32x16 blue rectangle and black
#     elsewhere;
#   - sgpu preempt: wait.s is preempted inside its WAIT_MEM (1 submission,
#     preemption fence 2), fill.s cut after 100,000 cycles and resubmitted
#     completes in fewer cycles than the whole FILL's 262,144;
#   - the board model behind sgpu-sim answers `sgpu info` as an iCEBreaker,
#     and the C program draws its rectangle there too.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
ROOT=${SGPU_ROOT:?SGPU_ROOT must name the repository}
PY="$ROOT/tests/host/readme_examples.py"
W="$T/work"

python3 "$PY" --self-test "$ROOT" >"$T/self" 2>&1 && ok "extractor self-test: $(grep -c '^self-test ok' "$T/self") cases" \
  || { bad "extractor self-test"; cat "$T/self"; }

# the README's build tree must be the one under test
[ "$BIN" -ef "$ROOT/build/bin" ] || echo "note: SGPU_BIN $BIN is not $ROOT/build/bin; the README's commands use the latter"
python3 "$PY" "$ROOT/README.md" "$ROOT" "$W" >"$T/run" 2>&1 && ok "every runnable README block: $(tail -n 1 "$T/run")" \
  || bad "README blocks: $(grep -c '^not ok' "$T/run") failed"
cat "$T/run"

# block_out PATTERN: the output of the README block whose text matches PATTERN
block_out() {
  local f
  f=$(grep -l -e "$1" "$W"/.readme/*.sh 2>/dev/null | head -n 1)
  [ -n "$f" ] && cat "${f%.sh}.out"
}
export PYTHONPATH="$ROOT/tests/host"

# ---- the C program against the installed library
out=$(block_out '^\./hello')
grep -q "^fence 1 done: event DMA_COMPLETED at cycle [0-9]" <<<"$out" \
  && grep -qE "^frame [0-9]+: 640x480, centre #0000ff$" <<<"$out" \
  && ok "hello: $(tail -n 2 <<<"$out" | tr '\n' ' ')" || bad "hello printed: $out"
pre="$W/home/.local"
if [ -f "$pre/lib/libsgpu.so" ]; then
  ldd "$W/hello" >"$T/ldd" 2>&1
  grep -q "libsgpu.so => $pre/lib/libsgpu.so" "$T/ldd" \
    && readelf -d "$W/hello" | grep -q "R.*PATH.*\[$pre/lib\]" \
    && ok "hello finds the installed libsgpu.so through the rpath of sgpu.pc" \
    || bad "hello's libsgpu: $(cat "$T/ldd"; readelf -d "$W/hello" | grep -i path)"
else
  [ -f "$pre/lib/libsgpu.a" ] && ok "only libsgpu.a installed (no shared build): hello is linked statically" \
    || bad "make install put no libsgpu under $pre/lib"
fi
grep -q -- "-Wl,-rpath,\${libdir}" "$pre/lib/pkgconfig/sgpu.pc" && ok "sgpu.pc's Libs carry the rpath" \
  || bad "sgpu.pc: $(grep Libs "$pre/lib/pkgconfig/sgpu.pc")"
python3 - "$W/hello.png" <<'PY' && ok "hello.png: the 80x40 blue rectangle at (40,40), 4x4 each, on black" || bad "hello.png"
import sys
from frame_ref import read_png
w, h, px = read_png(sys.argv[1])
assert (w, h) == (640, 480), (w, h)
bad = 0
for y in range(h):
    for x in range(w):
        inside = 160 <= x < 480 and 160 <= y < 320
        want = b"\x00\x00\xff" if inside else b"\x00\x00\x00"
        bad += px[3 * (y * w + x):3 * (y * w + x) + 3] != want
assert bad == 0, f"{bad} pixels differ"
PY

# ---- hello.s through the CLI
out=$(block_out 'cat > hello.s')
scratch=$(sed -n 's/^symbols: *SCRATCH=\(0x[0-9a-f]*\) .*/\1/p' <<<"$out" | head -n 1)
fb0=$(sed -n 's/^symbols: .* FB0=\(0x[0-9a-f]*\) .*/\1/p' <<<"$out" | head -n 1)
[ -n "$scratch" ] && [ -n "$fb0" ] && ok "info names SCRATCH=$scratch and FB0=$fb0" || bad "info symbols: $out"
grep -qE "^  $(printf '0x%08x' "$scratch")-0x[0-9a-f]+ +4096  allocated: SCRATCH$" <<<"$out" \
  && ok "SCRATCH is an allocated area of the user's" || bad "info areas: $out"
grep -q "^hello.s: fence 1 on node 0 completed after [0-9]* cycles" <<<"$out" && ok "submit hello.s: fence 1 completed" \
  || bad "submit: $out"
grep -q "^write_data $scratch, 0xdeadbeef, 0x2a$" <<<"$out" && grep -q "^fill $fb0, 640, 64, 16, 0x1f001f$" <<<"$out" \
  && ok "disasm: write_data SCRATCH and fill FB0 with their values" || bad "disasm: $out"
grep -q "^$(printf '0x%08x' "$scratch"): 0xdeadbeef$" <<<"$out" \
  && grep -q "^$(printf '0x%08x' $((scratch + 4))): 0x0000002a$" <<<"$out" \
  && ok "peek SCRATCH 2 prints the words hello.s wrote" || bad "peek: $out"
python3 - "$W/shot.png" <<'PY' && ok "shot.png: 64x48, the 32x16 blue rectangle top left, black elsewhere" || bad "shot.png"
import sys
from frame_ref import read_png
w, h, px = read_png(sys.argv[1])
assert (w, h) == (64, 48), (w, h)
blue = sum(px[3 * i:3 * i + 3] == b"\x00\x00\xff" for i in range(w * h))
for y in range(h):
    for x in range(w):
        want = b"\x00\x00\xff" if x < 32 and y < 16 else b"\x00\x00\x00"
        assert px[3 * (y * w + x):3 * (y * w + x) + 3] == want, (x, y, px[3 * (y * w + x):3 * (y * w + x) + 3])
assert blue == 32 * 16, blue
PY

# ---- sgpu preempt: the WAIT_MEM preempted, the FILL cut and resumed
out=$(block_out 'cat > wait.s')
grep -q "^node 0 preempted: preemption fence 2, last completed fence 0, 1 submission preempted" <<<"$out" \
  && grep -q "^event DMA_PREEMPTED .* preemption_fence=2 last_completed=0 preempted=1 " <<<"$out" \
  && ok "preempt wait.s: its WAIT_MEM preempted" || bad "preempt wait.s: $out"
resumed=$(sed -n 's/^resubmitted fill.s: fence 1 on node 0 completed after \([0-9]*\) cycles$/\1/p' <<<"$out")
[ -n "$resumed" ] && [ "$resumed" -lt 262144 ] && grep -q "^event DMA_COMPLETED .* fence=1 flags=0x80\( priority=normal\)\{0,1\}$" <<<"$out" \
  && ok "preempt fill.s --resubmit: resumed, $resumed cycles left of 262,144" || bad "preempt fill.s: $out"

# ---- the board model behind sgpu-sim
out=$(block_out 'sgpu-sim --board icebreaker')
grep -q "board icebreaker" <<<"$out" && grep -q "^nodes: *1$" <<<"$out" && grep -q "^memory: *131072 bytes$" <<<"$out" \
  && ok "sgpu info through sgpu-sim --board icebreaker: board icebreaker, 1 node, 128 KiB" || bad "board info: $out"
grep -qE "^frame [0-9]+: 640x480, centre #0000ff$" <<<"$out" && ok "hello on the board model: a blue centre" \
  || bad "hello on the board model: $out"

tap_finish
