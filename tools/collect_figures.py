#!/usr/bin/env python3
"""Collect the FIGURE and RESULT lines the tests printed (build/test-logs/)
into docs/figures.md, so the recorded figures are always measured ones.

usage: collect_figures.py [LOGDIR] [OUT.md] [EXTRA.log ...]
  (after `make test`; EXTRA logs such as build/synth/pnr.txt from
  `make synth-icebreaker` are read too)
"""
import os
import subprocess
import sys

logdir = sys.argv[1] if len(sys.argv) > 1 else "build/test-logs"
out = sys.argv[2] if len(sys.argv) > 2 else "docs/figures.md"

rows = []
logs = [os.path.join(logdir, n) for n in sorted(os.listdir(logdir))] + sys.argv[3:]
for path in logs:
    name = os.path.basename(path)
    test = name[:-4] if name.endswith(".log") else name
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("FIGURE "):
                parts = line.split(None, 2)
                rows.append((test, parts[1], parts[2].strip() if len(parts) > 2 else ""))
            elif line.startswith("RESULT "):
                rows.append((test, "result", line[len("RESULT "):].strip()))

try:
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True, check=True).stdout.strip()
except (OSError, subprocess.CalledProcessError):
    rev = "unknown"

with open(out, "w") as f:
    f.write("# Measured figures\n\n")
    f.write("Printed by the tests as `FIGURE` lines and collected by "
            "`python3 tools/collect_figures.py` after `make test` "
            f"(tree at commit {rev} plus the change that wrote this file). "
            "Cycle figures are simulation cycles and do not depend on the machine; "
            "the limits they must meet are asserted by the tests that print them, except the "
            "iCE40 Fmax, which is reported only.\n\n")
    f.write("| test | figure | value |\n|---|---|---|\n")
    for test, fig, val in rows:
        f.write(f"| {test} | {fig} | {val.replace('|', '/')} |\n")
print(f"{len(rows)} figures written to {out}")
