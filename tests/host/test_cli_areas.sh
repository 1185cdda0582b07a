#!/usr/bin/env bash
# Which GPU addresses are whose, through the CLI (issue 22):
#   - `sgpu info` lists the areas: the library's (rings, rptr/fence words,
#     staging areas) as reserved and named, the set-up's SCRATCH (and FB0 /
#     FB1 with --mode) as allocated, the rest free; --json has "areas" and
#     "symbols";
#   - `sgpu asm` knows SCRATCH, FB0, FB1, FB_PITCH... with the values the
#     device commands give them (same mode), so `fill FB0, ...` and
#     `write_data SCRATCH, ...` assemble, and the words land there when
#     submitted;
#   - the display line of `sgpu info --mode` names FB0;
#   - `sgpu peek`/`poke` take the symbols as addresses (SCRATCH+4, FB1);
#   - `sgpu poke` over a reserved area writes with a warning naming it;
#     poke of a read-only register is refused (exit 3, "read-only").
set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

"$SGPU" info >"$T/info" 2>"$T/err" || bad "info: $(cat "$T/err")"
grep -q "reserved: node 0's ring" "$T/info" && grep -q "reserved: node 0's rptr and fence words" "$T/info" \
  && grep -q "reserved: node 0's staging area" "$T/info" && grep -q "allocated: SCRATCH" "$T/info" \
  && grep -qE "^  0x[0-9a-f]+-0x[0-9a-f]+ +[0-9]+  free$" "$T/info" \
  && ok "info lists reserved, SCRATCH and free areas" || bad "info areas: $(cat "$T/info")"

"$SGPU" --json info --mode 160x120:rgb332 >"$T/info.json" 2>"$T/err" || bad "info --json: $(cat "$T/err")"
python3 - "$T/info.json" <<'PY' && ok "info --json: areas cover the segments, FB0/FB1/SCRATCH named and in symbols" || bad "info --json areas"
import json, sys
j = json.load(open(sys.argv[1]))
a, sym, segs = j["areas"], j["symbols"], {s["id"]: s for s in j["segments"]}
for seg in (1, 2):
    xs = [x for x in a if x["segment"] == seg]
    cur = segs[seg]["base"]
    for x in xs:
        assert x["base"] == cur, (x, cur)
        cur += x["size"]
    assert cur == segs[seg]["base"] + segs[seg]["size"]
    assert sum(x["size"] for x in xs if x["kind"] == "free") == segs[seg]["free"]
named = {x["name"]: x for x in a if x["name"]}
for n in ("SCRATCH", "FB0", "FB1"):
    assert named[n]["kind"] == "allocated" and named[n]["base"] == sym[n], (n, named.get(n), sym)
assert named["FB0"]["size"] >= 160 * 120 and sym["FB_PITCH"] == 160 and sym["FB_HEIGHT"] == 120, sym
assert all(x["kind"] == "reserved" for x in a if "ring" in x["name"] or "fence" in x["name"])
PY

# the display line names FB0: scanned out, or from the next vblank when the
# mode was only just written (DISP_BASE still reads the old address)
"$SGPU" info --mode 160x120:rgb332 >"$T/info.txt" 2>"$T/err"
fb0=$(python3 -c 'import json,sys; print("0x%x" % json.load(open(sys.argv[1]))["symbols"]["FB0"])' "$T/info.json")
grep -qE "^display 0: +160x120 RGB332 .*(at 0x0*${fb0#0x},|\(FB0 $fb0 from the next vblank\))" "$T/info.txt" \
  && ok "info: display 0 shows FB0 ($fb0)" || bad "info display line: $(grep display "$T/info.txt") $(cat "$T/err")"

cat >"$T/draw.s" <<'S'
  fill FB0, FB_PITCH, FB_WIDTH, FB_HEIGHT, 0x5a5a5a5a
  write_data SCRATCH, 0x11, 0x22, 0x33
  fence SCRATCH + 12, FB1
S
"$SGPU" asm --mode 160x120:rgb332 "$T/draw.s" -o "$T/draw.bin" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && ok "asm: fill FB0 / write_data SCRATCH assemble" || bad "asm with symbols: exit $rc, $(cat "$T/err")"
python3 - "$T/draw.bin" "$T/info.json" <<'PY' && ok "asm: the symbols have the addresses info gives" || bad "asm symbol values"
import json, struct, sys
w = struct.unpack("<%dI" % (len(open(sys.argv[1], "rb").read()) // 4), open(sys.argv[1], "rb").read())
s = json.load(open(sys.argv[2]))["symbols"]
assert w[1] == s["FB0"] and w[2] == 160 and w[3] == 160 and w[4] == 120, w[:6]
assert w[7] == s["SCRATCH"] and w[-2] == s["SCRATCH"] + 12 and w[-1] == s["FB1"], (w, s)
PY
# the binary, submitted with the same mode, writes where the text says
"$SGPU" peek --mode 160x120:rgb332 --run "$T/draw.bin" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["symbols"]["SCRATCH"])' "$T/info.json")" 4 >"$T/out" 2>"$T/err"
python3 - "$T/out" "$T/info.json" <<'PY' && ok "submitted: SCRATCH holds the words, the fence wrote FB1's address" || bad "peek SCRATCH: $(cat "$T/out" "$T/err")"
import json, sys
vals = [int(l.split()[1], 16) for l in open(sys.argv[1])]
fb1 = json.load(open(sys.argv[2]))["symbols"]["FB1"]
assert vals == [0x11, 0x22, 0x33, fb1], vals
PY
"$SGPU" asm --help | grep -q "SCRATCH" && ok "asm --help names the symbols" || bad "asm --help"

# peek and poke take the symbols too (SYMBOL[+N]), with the set-up's values
"$SGPU" peek --mode 160x120:rgb332 --run "$T/draw.bin" SCRATCH+4 3 >"$T/sym" 2>"$T/err"
python3 - "$T/sym" "$T/info.json" <<'PY' && ok "peek SCRATCH+4 3: the words at SCRATCH + 4" || bad "peek SCRATCH+4: $(cat "$T/sym" "$T/err")"
import json, sys
s = json.load(open(sys.argv[2]))["symbols"]
rows = [l.split() for l in open(sys.argv[1])]
assert [int(a.rstrip(":"), 16) for a, _ in rows] == [s["SCRATCH"] + 4 * k for k in (1, 2, 3)], rows
assert [int(v, 16) for _, v in rows] == [0x22, 0x33, s["FB1"]], rows
PY
"$SGPU" poke --mode 160x120:rgb332 FB1 0x5a >"$T/sym" 2>"$T/err"; rc=$?
fb1=$(python3 -c 'import json,sys; print("0x%08x" % json.load(open(sys.argv[1]))["symbols"]["FB1"])' "$T/info.json")
[ "$rc" -eq 0 ] && grep -q "^$fb1: 0x0000005a$" "$T/sym" && ok "poke FB1 writes FB1's first word" \
  || bad "poke FB1: exit $rc, $(cat "$T/sym" "$T/err")"
"$SGPU" peek FB0 >"$T/sym" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "unknown symbol 'FB0' .*need --mode" "$T/err" && ok "peek FB0 without a mode: $(cat "$T/err")" \
  || bad "peek FB0 without --mode: exit $rc, $(cat "$T/sym" "$T/err")"
"$SGPU" peek SCRATCH+2 >"$T/sym" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "not 4-byte aligned" "$T/err" && ok "peek SCRATCH+2 refused: not aligned" \
  || bad "peek SCRATCH+2: exit $rc, $(cat "$T/err")"

# poke: the raw path, with a warning; read-only registers refused
fence=$(python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["areas"]
print([x["base"] + 4 for x in a if x["name"] == "node 0'"'"'s rptr and fence words"][0])' "$T/info.json")
"$SGPU" poke "$fence" 7 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q "warning: .* is in node 0's rptr and fence words .*reserved by the library: overriding it" "$T/err" \
  && grep -q ": 0x00000007" "$T/out" && ok "poke over the fence words: written, with a warning: $(cat "$T/err")" \
  || bad "poke reserved: exit $rc, $(cat "$T/out" "$T/err")"
"$SGPU" poke reg:ID 1 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 3 ] && grep -q "read-only" "$T/err" && ok "poke reg:ID refused: $(cat "$T/err")" || bad "poke reg:ID: exit $rc, $(cat "$T/err")"
"$SGPU" poke reg:RING_WPTR@1 0 >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && grep -q "warning: RING_WPTR@1 is programmed by the library" "$T/err" \
  && ok "poke of a library register warns" || bad "poke RING_WPTR: exit $rc, $(cat "$T/err")"

tap_finish
