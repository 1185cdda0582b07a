#!/usr/bin/env bash
# CLI smoke tests for `sgpu`: --help everywhere, asm/disasm round trips
# through files, submit/peek/poke/fence/ring/events/flip/screenshot on the sim
# device, one-line errors with the documented exit codes, --json that parses.
# Needs SGPU_BIN (directory of the built programs).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
check() { # check DESC COMMAND... : passes when the command exits 0
  local d=$1; shift
  if "$@"; then ok "$d"; else bad "$d"; fi
}
# expect_exit CODE DESC -- COMMAND...: runs it, keeps stdout/stderr in $T/out, $T/err
expect_exit() {
  local want=$1 d=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok "$d (exit $got)"; else bad "$d: exit $got, want $want; stderr: $(head -c 300 "$T/err")"; fi
}
one_line_err() { # the last command wrote exactly one line to stderr, containing $1
  local n; n=$(wc -l <"$T/err")
  if [ "$n" -eq 1 ] && grep -qF -- "$1" "$T/err"; then ok "one-line error: $(cat "$T/err")"
  else bad "want one stderr line containing '$1', got $n: $(head -c 300 "$T/err")"; fi
}
json_ok() { # stdin parses as one JSON object; prints nothing
  python3 -c 'import json,sys; json.load(sys.stdin)'
}
json_get() { # json_get EXPR < file: python expression on d
  python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"
}

[ -x "$SGPU" ] || { echo "not ok - $SGPU missing"; exit 1; }

# ------------------------------------------------------------ help
expect_exit 0 "sgpu --help" -- "$SGPU" --help
for c in info submit asm disasm flip fence events screenshot ring peek poke; do
  grep -q "^  $c " "$T/out" || bad "top-level help lists $c"
done
for code in 0 1 2 3 4 5; do grep -q "^  $code  " "$T/out" || bad "help documents exit code $code"; done
ok "top-level help lists every command and exit codes 0..5"
for c in info submit asm disasm flip fence events screenshot ring peek poke; do
  "$SGPU" "$c" --help >"$T/out" 2>"$T/err"
  rc=$?
  if [ $rc -eq 0 ] && grep -q "^usage: sgpu" "$T/out" && [ ! -s "$T/err" ]; then ok "sgpu $c --help"
  else bad "sgpu $c --help (exit $rc)"; fi
done
expect_exit 1 "no command is a usage error" -- "$SGPU"
one_line_err "no command given"
expect_exit 1 "--device without a value" -- "$SGPU" --device
one_line_err "option --device needs a value (see sgpu --help)"
expect_exit 1 "unknown command" -- "$SGPU" frobnicate
one_line_err "unknown command 'frobnicate'"
expect_exit 1 "unknown option" -- "$SGPU" submit --bogus x.s
one_line_err "unknown option '--bogus'"
expect_exit 1 "bad number" -- "$SGPU" submit --node x1 x.s
one_line_err "bad number 'x1' for --node"
expect_exit 1 "bad device URI" -- "$SGPU" --device 'nonsense:' info
one_line_err "invalid device URI"
# A failed open says the specific reason (sgpu_open_detail), not only the code's text.
expect_exit 3 "tcp device refused" -- "$SGPU" --device tcp:127.0.0.1:1 info
one_line_err "tcp:127.0.0.1:1: cannot connect"
expect_exit 1 "bad tcp port" -- "$SGPU" --device tcp:localhost:0 info
one_line_err "port '0' is not 1..65535"
expect_exit 1 "unknown sim option" -- "$SGPU" --device sim:foo=1 fence
one_line_err "cannot open device 'sim:foo=1': unknown sim option 'foo'"
expect_exit 1 "bad serial baud rate" -- "$SGPU" --device serial:/dev/ttyUSB0@5 info
one_line_err "baud rate '5' is not 300..20000000"

# ------------------------------------------------------------ asm / disasm
cat >"$T/all.s" <<'EOF'
; every packet, labels, .org, .equ
.org 0x2000
.equ FB, 0x40000
start:
  nop
  nop 1, 2, 3
  indirect ib, ib_end - ib, fence=7, skip
  fence 0x100, 5, irq
  write_data 0x300, 1, 2, 0xffffffff
  wait_mem 0x200, mask=0xff, ref=3, func=geq_wrap
  wait_vsync 0
  wait_scanline 1, 10, 200
  fill FB, 640, 640, 480, 0x001f001f
  copy FB, 640, FB + 4, 640, 100, 16
  flip 0, FB, interval=1, nowait
  context 1, 0x10000, 0x10000
  timestamp 0x400
ib: .word 0xdeadbeef, start
ib_end:
EOF
expect_exit 0 "asm all.s" -- "$SGPU" asm "$T/all.s" -o "$T/all.bin"
[ "$(stat -c %s "$T/all.bin")" -eq $((4 * 51)) ] && ok "all.s assembles to 51 words" || bad "all.bin size $(stat -c %s "$T/all.bin")"
expect_exit 0 "disasm all.bin" -- "$SGPU" disasm "$T/all.bin" -o "$T/all2.s"
expect_exit 0 "re-assemble the disassembly" -- "$SGPU" asm "$T/all2.s" -o "$T/all2.bin"
check "asm(disasm(asm(all.s))) == asm(all.s)" cmp -s "$T/all.bin" "$T/all2.bin"
grep -q "^flip 0, 0x40000, interval=1, nowait$" "$T/all2.s" && ok "disasm prints canonical flip" || bad "flip line: $(grep flip "$T/all2.s")"
# default output name: IN with .bin
cp "$T/all.s" "$T/named.s"
expect_exit 0 "asm with default output" -- "$SGPU" asm "$T/named.s"
check "default output is named.bin" cmp -s "$T/all.bin" "$T/named.bin"
# stdin / stdout and --addresses
"$SGPU" asm - -o - <"$T/all.s" >"$T/stdout.bin" && cmp -s "$T/all.bin" "$T/stdout.bin" && ok "asm - -o - (pipes)" || bad "asm through pipes"
"$SGPU" disasm --addresses --base 0x2000 "$T/all.bin" >"$T/addr.s" && grep -q "; 0x00002000" "$T/addr.s" \
  && "$SGPU" asm "$T/addr.s" -o "$T/addr.bin" && cmp -s "$T/all.bin" "$T/addr.bin" \
  && ok "disasm --addresses --base round trip" || bad "disasm --addresses"
# random binary words round trip (any words at all)
for seed in 1 2 3 4 5; do
  python3 -c "
import random,struct,sys
r=random.Random($seed)
w=[]
for i in range(2000):
  k=r.randrange(4)
  if k==0: w.append(r.getrandbits(32))
  elif k==1: w.append(0xC0000000|(r.randrange(8)<<16)|(r.randrange(2)<<8)|r.randrange(13))
  elif k==2: w.append(r.randrange(4))
  else: w.append(0xC0000000|(r.getrandbits(14)<<16)|r.getrandbits(16))
sys.stdout.buffer.write(struct.pack('<%dI'%len(w),*w))" >"$T/rand.bin"
  "$SGPU" disasm "$T/rand.bin" >"$T/rand.s" && "$SGPU" asm "$T/rand.s" -o "$T/rand2.bin" && cmp -s "$T/rand.bin" "$T/rand2.bin" \
    && ok "random words round trip (seed $seed)" || bad "random words round trip (seed $seed)"
done
[ "$("$SGPU" --json disasm "$T/all.bin" | json_get 'd["words"]')" = 51 ] && ok "disasm --json" || bad "disasm --json"
[ "$("$SGPU" asm --json "$T/all.s" -o "$T/j.bin" | json_get 'd["words"], d["bytes"]')" = "51 204" ] && ok "asm --json (after the command)" || bad "asm --json"
# errors
printf 'nop\nfense 1, 2\n' >"$T/bad.s"
expect_exit 2 "asm of bad assembly" -- "$SGPU" asm "$T/bad.s" -o "$T/bad.bin"
one_line_err "$T/bad.s:2:1: error: unknown mnemonic 'fense'"
[ ! -e "$T/bad.bin" ] && ok "no output file after an error" || bad "bad.bin written"
printf 'fence 0x100, 0x1zz\n' >"$T/bad2.s"
expect_exit 2 "bad number in assembly" -- "$SGPU" asm "$T/bad2.s"
one_line_err "$T/bad2.s:1:14: error: bad number '0x1zz'"
printf 'fill 0, 1, 2\n' >"$T/bad3.s"
expect_exit 2 "missing operand in assembly" -- "$SGPU" asm "$T/bad3.s"
one_line_err "bad3.s:1:13: error: missing operand: fill needs height"
printf 'flip 0, 0, interval=9\n' >"$T/bad4.s"
expect_exit 2 "value out of range in assembly" -- "$SGPU" asm "$T/bad4.s"
one_line_err "bad4.s:1:21: error: interval 9 out of range 0..5"
printf 'abcdefg' >"$T/odd.bin"
expect_exit 2 "disasm of a 7-byte file" -- "$SGPU" disasm "$T/odd.bin"
one_line_err "not a whole number of 32-bit words"
expect_exit 2 "missing input file" -- "$SGPU" asm "$T/none.s"
one_line_err "cannot open '$T/none.s'"
"$SGPU" --json asm "$T/bad.s" -o "$T/x.bin" 2>/dev/null | json_ok && ok "--json error object parses" || bad "--json error object"
[ "$("$SGPU" --json asm "$T/bad.s" -o "$T/x.bin" 2>/dev/null | json_get 'd["exit"]')" = 2 ] && ok "--json error carries exit 2" || bad "--json error exit"

# ------------------------------------------------------------ device commands
cat >"$T/small.s" <<'EOF'
; a small stream: inline data, a fence and a timestamp into SCRATCH
  write_data SCRATCH, 0x11, 0x22
  fence SCRATCH + 8, 42, irq
  timestamp SCRATCH + 16
EOF
expect_exit 0 "submit small.s" -- "$SGPU" submit "$T/small.s"
grep -q "fence 1 on node 0 completed" "$T/out" && ok "submit reports fence 1 completed" || bad "submit output: $(cat "$T/out")"
grep -q "event DMA_COMPLETED .* fence=1" "$T/out" && ok "submit reports the DMA_COMPLETED event" || bad "no DMA_COMPLETED event"
"$SGPU" --json submit "$T/small.s" >"$T/sub.json" 2>"$T/err"
json_ok <"$T/sub.json" && ok "submit --json parses" || bad "submit --json: $(cat "$T/sub.json")"
[ "$(json_get 'd["submissions"][0]["fence"], d["submissions"][0]["status"], d["events"][0]["type"]' <"$T/sub.json")" = "1 completed DMA_COMPLETED" ] \
  && ok "submit --json: fence 1 completed, DMA_COMPLETED" || bad "submit --json content: $(cat "$T/sub.json")"
cyc=$(json_get 'd["cycles"]' <"$T/sub.json")
echo "FIGURE cli submit of a 3-packet stream: $cyc cycles from submit to fence"
# several files, fences count up; binary input; segment 1 with labels
printf '.word 0xc0020002, 0x3000, 7\n' >"$T/raw.s"
"$SGPU" asm "$T/raw.s" -o "$T/raw.bin" >/dev/null
expect_exit 0 "submit two files (text + binary)" -- "$SGPU" submit "$T/small.s" "$T/raw.bin"
grep -q "raw.bin: fence 2 on node 0 completed" "$T/out" && ok "second file gets fence 2" || bad "fence 2: $(cat "$T/out")"
cat >"$T/ib.s" <<'EOF'
; labels are GPU addresses with --segment 1
  indirect sub, sub_end - sub
  fence SCRATCH, 5
  .word 0xc0000000          ; a nop as a raw word
sub: write_data SCRATCH + 4, 0x77
sub_end:
EOF
expect_exit 0 "submit --segment 1 with labels (nested indirect)" -- "$SGPU" submit --segment 1 --node 1 --fence 100 "$T/ib.s"
grep -q "fence 100 on node 1 completed" "$T/out" && ok "--node 1 --fence 100" || bad "node/fence options: $(cat "$T/out")"
expect_exit 0 "flags by name (null_rendering)" -- "$SGPU" submit --flags null_rendering,present "$T/small.s"
expect_exit 0 "flags by value" -- "$SGPU" submit --flags 0x2 "$T/small.s"
expect_exit 1 "unknown flag name" -- "$SGPU" submit --flags warp "$T/small.s"
one_line_err "unknown submit flag 'warp'"
expect_exit 2 "submit of bad assembly" -- "$SGPU" submit "$T/bad.s"
one_line_err "$T/bad.s:2:1: error: unknown mnemonic 'fense'"
printf '.word 0xc00000ff\n' >"$T/illegal.s"
expect_exit 5 "illegal opcode rejected by validation" -- "$SGPU" submit "$T/illegal.s"
one_line_err "illegal opcode"
printf 'wait_mem SCRATCH, ref=1\n' >"$T/hang.s"
expect_exit 4 "never-satisfied WAIT_MEM faults (watchdog)" -- "$SGPU" --device sim:watchdog=20000 submit "$T/hang.s"
grep -q "reason=TIMEOUT" "$T/out" && grep -q "faulting packet: wait_mem" "$T/out" && ok "fault event names TIMEOUT and the packet" || bad "fault output: $(cat "$T/out")"
"$SGPU" --json --device sim:watchdog=20000 submit "$T/hang.s" 2>/dev/null | json_get 'd["events"][0]["reason"], d["faulted"]' >"$T/j" ; [ "$(cat "$T/j")" = "TIMEOUT True" ] && ok "fault in --json" || bad "fault json: $(cat "$T/j")"

# peek / poke
expect_exit 0 "peek reg:ID" -- "$SGPU" peek reg:ID
grep -q "0x53475055" "$T/out" && ok "ID register reads SGPU" || bad "peek reg:ID: $(cat "$T/out")"
[ "$("$SGPU" --json peek reg:0x0 2 | json_get 'd["values"][0], d["names"][1]')" = "1397182549 VERSION" ] && ok "peek --json reg:0x0 2" || bad "peek json"
expect_exit 0 "poke memory and read back" -- "$SGPU" poke 0x100000 0x1234 0xabcd
grep -q "0x00100004: 0x0000abcd" "$T/out" && ok "poke reads back" || bad "poke output: $(cat "$T/out")"
expect_exit 0 "poke reg:SCRATCH" -- "$SGPU" poke reg:scratch 0x5a5a
grep -q "SCRATCH *0x00005a5a" "$T/out" && ok "poke register reads back" || bad "poke reg: $(cat "$T/out")"
expect_exit 0 "peek after --run" -- "$SGPU" peek --run "$T/small.s" 0x3000 3
vals=$("$SGPU" --json peek --run "$T/small.s" reg:LAST_FENCE@0 | json_get 'd["values"][0]')
[ "$vals" != "0" ] && ok "LAST_FENCE@0 non-zero after --run ($vals)" || bad "LAST_FENCE after run: $vals"
expect_exit 1 "unknown register" -- "$SGPU" peek reg:NOPE
one_line_err "unknown register 'NOPE'"
expect_exit 1 "misaligned peek" -- "$SGPU" peek 0x1002
one_line_err "not 4-byte aligned"
expect_exit 1 "poke without value" -- "$SGPU" poke 0x1000
expect_exit 3 "peek outside GPU memory" -- "$SGPU" peek 0x7ffffff0
one_line_err "reading address"

# fence / ring / events / info
expect_exit 0 "fence after --run" -- "$SGPU" fence --run "$T/small.s" --run "$T/small.s"
grep -q "node 0: submitted 2, completed 2" "$T/out" && ok "fence shows 2 submitted/completed" || bad "fence: $(cat "$T/out")"
"$SGPU" --json fence | json_ok && ok "fence --json parses" || bad "fence --json"
expect_exit 0 "ring --all after --run" -- "$SGPU" ring --all --run "$T/small.s"
grep -q "indirect 0x" "$T/out" && grep -q "fence 0x" "$T/out" && ok "ring dump decodes INDIRECT and FENCE" || bad "ring: $(cat "$T/out")"
expect_exit 0 "ring --pending --follow" -- "$SGPU" ring --pending --follow --run "$T/small.s"
grep -q "write_data 0x" "$T/out" && ok "ring --follow decodes the indirect buffer" || bad "ring follow: $(cat "$T/out")"
"$SGPU" --json ring --all --run "$T/small.s" | json_ok && ok "ring --json parses" || bad "ring --json"
expect_exit 0 "info" -- "$SGPU" info
grep -q "^nodes: " "$T/out" && ok "info prints nodes" || bad "info: $(cat "$T/out")"
[ "$("$SGPU" --json info | json_get 'd["hw_version_major"], d["node_count"] > 0, len(d["segments"])')" = "0 True 3" ] && ok "info --json" || bad "info --json"
expect_exit 0 "events after --run" -- "$SGPU" events --run "$T/small.s"
grep -q "DMA_COMPLETED" "$T/out" && ok "events lists DMA_COMPLETED" || bad "events: $(cat "$T/out")"
"$SGPU" --json events --run "$T/small.s" | json_ok && ok "events --json parses" || bad "events --json"

# display: flip, vsync events, screenshot (tiny video mode keeps them fast)
TINY="sim:video=tiny"
expect_exit 0 "flip (tiny video)" -- "$SGPU" --device "$TINY" flip --mode 32x24
grep -q "flip taken" "$T/out" && ok "flip taken at vsync" || bad "flip: $(cat "$T/out")"
[ "$("$SGPU" --json --device "$TINY" flip --mode 32x24 --interval 2 | json_get 'd["taken"], d["flips"]')" = "True 1" ] && ok "flip --json interval 2 taken once" || bad "flip --json"
expect_exit 0 "vsync events" -- "$SGPU" --device "$TINY" events --mode 32x24 --vsync --count 3
[ "$(grep -c CRTC_VSYNC "$T/out")" -eq 3 ] && ok "3 CRTC_VSYNC events" || bad "vsync events: $(cat "$T/out")"
# Screenshots against reference images: tests/host/frame_ref.py models GPU
# memory (FILL: byte i of a row takes byte (address+i)%4 of the pattern;
# COPY as if through a temporary), the scanout (little-endian pixels,
# RGB565/RGB332 expanded to 8 bits by bit replication, DISP_CONTROL pixel
# replication to the timing) and decodes the PNG; every pixel must match.
# shot_ref NAME WxH FMT REP_X REP_Y PNG JSON: the Python lines on stdin draw
# into `m` (offsets from FB0, pitch P); compares PNG and the JSON's crc32.
shot_ref() {
  local name=$1 size=$2 fmt=$3 rx=$4 ry=$5 png=$6 json=$7
  if python3 - "$HERE" "$size" "$fmt" "$rx" "$ry" "$png" "$json" "$(cat)" >"$T/ref.out" 2>&1 <<'PY'
import json, sys, zlib
here, size, fmt, rx, ry, png, js, code = sys.argv[1:]
sys.path.insert(0, here)
import frame_ref as f
w, h = map(int, size.split("x")); rx, ry = int(rx), int(ry)
fmt = f.RGB332 if fmt == "rgb332" else f.RGB565
P = (w * (1 if fmt == f.RGB332 else 2) + 3) & ~3   # pitch the CLI documents for --mode
m = f.Mem(P * h)                                   # cleared to black by --mode
exec(code)
want = f.scanout(m, 0, P, w, h, fmt, rx, ry)
gw, gh, got = f.read_png(png)
if (gw, gh) != (w * rx, h * ry):
    sys.exit("%s is %dx%d, not %dx%d" % (png, gw, gh, w * rx, h * ry))
e = f.diff(got, want, gw, gh, png)
if e:
    sys.exit(e)
crc = json.load(open(js))["crc32"]
if crc != zlib.crc32(got):
    sys.exit("--json crc32 %08x is not that of the PNG's pixels %08x" % (crc, zlib.crc32(got)))
print("%dx%d, every pixel as expected" % (gw, gh))
PY
  then ok "screenshot $name equals the reference image ($(cat "$T/ref.out"))"
  else bad "screenshot $name: $(head -c 600 "$T/ref.out")"; fi
}
python3 "$HERE/frame_ref.py" selftest >/dev/null && ok "reference PNG decoder inverts every filter type" || bad "PNG decoder self-test"

# RGB565, 32x24 replicated 2x2 to the 64x48 tiny timing
cat >"$T/draw.s" <<'EOF'
  fill FB0, FB_PITCH, FB_WIDTH * 2, FB_HEIGHT, 0x001f001f     ; blue
  fill FB0 + 4 * FB_PITCH + 8, FB_PITCH, 8 * 2, 8, 0xf800f800 ; red square
EOF
expect_exit 0 "screenshot after drawing" -- "$SGPU" --device "$TINY" --json screenshot --mode 32x24 --run "$T/draw.s" "$T/shot.png"
cp "$T/out" "$T/s.json"
shot_ref "rgb565 32x24 x2" 32x24 rgb565 2 2 "$T/shot.png" "$T/s.json" <<'PY'
m.fill(0, P, 64, 24, 0x001f001f)
m.fill(4 * P + 8, P, 16, 8, 0xf800f800)
PY
"$SGPU" --json --device "$TINY" screenshot --mode 32x24 "$T/black.png" >"$T/b.json"
shot_ref "with nothing drawn (black)" 32x24 rgb565 2 2 "$T/black.png" "$T/b.json" </dev/null
"$SGPU" --device "$TINY" screenshot --mode 32x24 --run "$T/draw.s" "$T/shot2.png" >/dev/null
check "screenshot is deterministic" cmp -s "$T/shot.png" "$T/shot2.png"

# RGB565, 64x48 unreplicated: every channel bit pattern, two different pixels
# in one pattern word (odd start), a byte-granular fill over half pixels and a
# COPY that moves the striped block from odd to even x.
cat >"$T/draw565.s" <<'EOF'
  fill FB0, FB_PITCH, FB_WIDTH * 2, FB_HEIGHT, 0x84108410
  fill FB0 + 3 * FB_PITCH + 2 * 5, FB_PITCH, 2 * 9, 7, 0x07e0f81f
  fill FB0 + 20 * FB_PITCH + 2 * 40, FB_PITCH, 2 * 20, 10, 0x52aa35c7
  fill FB0 + 40 * FB_PITCH + 1, FB_PITCH, 3, 2, 0xffffffff
  copy FB0 + 30 * FB_PITCH + 2 * 2, FB_PITCH, FB0 + 3 * FB_PITCH + 2 * 5, FB_PITCH, 2 * 9, 7
  fill FB0 + (FB_HEIGHT - 1) * FB_PITCH + 2 * (FB_WIDTH - 1), FB_PITCH, 2, 1, 0x0000ffff
EOF
"$SGPU" --json --device "$TINY" screenshot --mode 64x48:rgb565 --run "$T/draw565.s" "$T/s565.png" >"$T/s565.json" 2>"$T/err" \
  || bad "screenshot rgb565 64x48: $(cat "$T/err")"
shot_ref "rgb565 64x48 x1" 64x48 rgb565 1 1 "$T/s565.png" "$T/s565.json" <<'PY'
m.fill(0, P, 128, 48, 0x84108410)
m.fill(3 * P + 10, P, 18, 7, 0x07e0f81f)
m.fill(20 * P + 80, P, 40, 10, 0x52aa35c7)
m.fill(40 * P + 1, P, 3, 2, 0xffffffff)
m.copy_from(m, 30 * P + 4, P, 3 * P + 10, P, 18, 7)
m.fill(47 * P + 126, P, 2, 1, 0x0000ffff)
PY

# RGB332, 16x12 replicated 4x4: four pixels per pattern word, byte-granular
# fills at odd offsets.
cat >"$T/draw332.s" <<'EOF'
  fill FB0, FB_PITCH, FB_WIDTH, FB_HEIGHT, 0x44332211
  fill FB0 + 2 * FB_PITCH + 3, FB_PITCH, 5, 3, 0xe01c03ff
  fill FB0 + 8 * FB_PITCH + 1, FB_PITCH, FB_WIDTH - 2, 3, 0x926db649
EOF
"$SGPU" --json --device "$TINY" screenshot --mode 16x12:rgb332 --run "$T/draw332.s" "$T/s332.png" >"$T/s332.json" 2>"$T/err" \
  || bad "screenshot rgb332 16x12: $(cat "$T/err")"
shot_ref "rgb332 16x12 x4" 16x12 rgb332 4 4 "$T/s332.png" "$T/s332.json" <<'PY'
m.fill(0, P, 16, 12, 0x44332211)
m.fill(2 * P + 3, P, 5, 3, 0xe01c03ff)
m.fill(8 * P + 1, P, 14, 3, 0x926db649)
PY
expect_exit 1 "screenshot without output" -- "$SGPU" screenshot
expect_exit 1 "bad --mode" -- "$SGPU" screenshot --mode 12 "$T/x.png"
one_line_err "bad --mode '12'"

tap_finish
