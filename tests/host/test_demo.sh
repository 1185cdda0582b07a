#!/usr/bin/env bash
# sgpu-demo with a short frame count, checked against an independent oracle:
# tests/host/frame_ref.py renders the demo's scene itself (a byte-level model
# of FILL/COPY, RGB565 scanout with 2x2 replication and bit-replicated
# expansion) and every pixel of every frame_NNN.png and of every frame of the
# animated PNG must equal it.  Frame 2 and 3 also check the ticker's
# overlapping COPY inside the back buffer, which holds the picture before the
# last.  Besides: the animated PNG is well-formed (chunk CRCs, acTL frame
# count, fcTL/fdAT sequence numbers), and the report agrees with the images
# (its per-frame CRC-32 is that of the decoded frame), shows every fence
# completed, a flip per frame (DISP_FLIP_COUNT), no underflow and no fault.
set -u
BIN=${SGPU_BIN:?SGPU_BIN must name the directory of the built programs}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }
N=4

"$BIN/sgpu-demo" --out "$T/demo" --frames $N --budget 0 >"$T/log" 2>&1
rc=$?
cat "$T/log"
[ $rc -eq 0 ] && ok "sgpu-demo --frames $N exits 0" || bad "sgpu-demo exit $rc"

python3 "$HERE/frame_ref.py" selftest && ok "the oracle's PNG decoder inverts every filter type" || bad "PNG decoder self-test"
python3 "$HERE/frame_ref.py" demo "$T/demo" $N >"$T/ref" 2>&1
rc=$?
cat "$T/ref"
[ $rc -eq 0 ] && ok "frames 0..$((N - 1)) and demo.png equal the independent rendering of the scene, pixel for pixel" \
  || bad "frames differ from the independent rendering of the scene (see MISMATCH lines)"

for i in $(seq 1 $((N - 1))); do
  a=$(printf '%s/demo/frame_%03d.png' "$T" $((i - 1))); b=$(printf '%s/demo/frame_%03d.png' "$T" "$i")
  if [ -s "$a" ] && [ -s "$b" ] && ! cmp -s "$a" "$b"; then ok "frame $i differs from frame $((i - 1))"
  else bad "frame $i equals frame $((i - 1))"; fi
done

python3 - "$T/demo/demo.png" "$N" <<'EOF' && ok "demo.png is a well-formed APNG of $N frames" || bad "demo.png APNG check"
import struct, sys, zlib
path, n = sys.argv[1], int(sys.argv[2])
d = open(path, 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'signature'
p, chunks = 8, []
while p < len(d):
    ln, = struct.unpack('>I', d[p:p + 4]); typ = d[p + 4:p + 8]; body = d[p + 8:p + 8 + ln]
    crc, = struct.unpack('>I', d[p + 8 + ln:p + 12 + ln])
    assert zlib.crc32(typ + body) & 0xffffffff == crc, 'CRC of %r' % typ
    chunks.append((typ, body)); p += 12 + ln
types = [t for t, _ in chunks]
assert types[0] == b'IHDR' and types[-1] == b'IEND', types
w, h = struct.unpack('>II', chunks[0][1][:8])
actl = [b for t, b in chunks if t == b'acTL'][0]
assert struct.unpack('>I', actl[:4])[0] == n, 'acTL frames'
assert types.count(b'fcTL') == n and types.count(b'IDAT') == 1 and types.count(b'fdAT') == n - 1
seqs = [struct.unpack('>I', b[:4])[0] for t, b in chunks if t in (b'fcTL', b'fdAT')]
assert seqs == list(range(len(seqs))), seqs
# Every frame decompresses to h rows of 1 + 3w bytes.
for t, b in chunks:
    if t == b'IDAT': raw = zlib.decompress(b)
    elif t == b'fdAT': raw = zlib.decompress(b[4:])
    else: continue
    assert len(raw) == h * (1 + 3 * w), (len(raw), w, h)
print('APNG %dx%d, %d frames' % (w, h, n))
EOF

R="$T/demo/report.txt"
if [ -s "$R" ]; then ok "report.txt written"; else bad "report.txt missing"; fi
grep -q "^frames rendered: *$N of $N" "$R" && ok "report: $N frames rendered" || bad "report frames"
grep -q "^scanout underflows: *0$" "$R" && ok "report: no underflow" || bad "report underflow: $(grep underflow "$R")"
grep -q "^GPU faults: *0$" "$R" && ok "report: no GPU fault" || bad "report faults"
sub=$(sed -n 's/^fences: *last submitted \([0-9]*\), last completed \([0-9]*\).*/\1 \2/p' "$R")
set -- $sub
[ -n "${1:-}" ] && [ "$1" = "${2:-}" ] && ok "report: every fence completed ($1)" || bad "report fences: $sub"
flips=$(sed -n 's/^flips: *\([0-9]*\) taken.*/\1/p' "$R")
[ "${flips:-0}" -ge "$N" ] && ok "report: $flips flips taken" || bad "report flips: $flips"
distinct=$(sed -n 's/^distinct frames: *\([0-9]*\) of.*/\1/p' "$R")
[ "${distinct:-0}" -eq "$N" ] && ok "report: $N distinct frame checksums" || bad "report distinct: $distinct"
# The report's CRC-32 of each frame is that of the pixels in its PNG.
for i in $(seq 0 $((N - 1))); do
  f=$(printf '%s/demo/frame_%03d.png' "$T" "$i")
  png=$(python3 "$HERE/frame_ref.py" png "$f" 2>/dev/null | awk '{print $2}')
  rep=$(awk -v i="$i" '$1 == i && NF == 7 {print $7}' "$R")
  [ -n "$png" ] && [ "$png" = "$rep" ] && ok "report: crc32 of frame $i matches its PNG ($rep)" \
    || bad "report crc32 of frame $i '$rep', PNG pixels '$png'"
done

# Bad arguments give one line and exit 1.
"$BIN/sgpu-demo" --frames 0 >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok "bad --frames: exit 1, one line" || bad "bad --frames: exit $rc"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
