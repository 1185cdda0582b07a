#!/usr/bin/env python3
"""Collect the FIGURE and RESULT lines the tests printed (build/test-logs/)
into docs/figures.md, so the recorded figures are always measured ones.

usage: collect_figures.py [LOGDIR] [OUT.md] [EXTRA.log ...]
  (after `make test`; EXTRA logs, such as the output of `make bitstream`,
  are read too)

The verification figures (differential test, coverage, fuzzing, formal) get
headline tables of their own; every figure is also in the full table.  A
section of OUT.md from "## Benchmark" on (written from `make bench`) is kept.
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

kept = ""
if os.path.exists(out):
    with open(out) as f:
        old = f.read()
    i = old.find("\n## Benchmark")
    if i >= 0:
        kept = old[i + 1:]


def pick(prefix):
    """{suffix: value} of the figures named prefix + suffix."""
    return {fig[len(prefix):]: val for test, fig, val in rows if fig.startswith(prefix)}


def table(title, note, header, items):
    if not items:
        return ""
    s = f"## {title}\n\n{note}\n\n| {' | '.join(header)} |\n|{'---|' * len(header)}\n"
    for item in items:
        s += "| " + " | ".join(str(x).replace("|", "/") for x in item) + " |\n"
    return s + "\n"


sections = []
diff = pick("diff_")
packets = pick("diff_packets_per_1000_seeds_")
faults = pick("diff_faults_per_1000_seeds_")
if diff:
    items = [(k, v) for k, v in diff.items() if not k.startswith(("packets_per", "faults_per"))]
    items += [(f"packets per 1,000 seeds: {k}", v) for k, v in packets.items()]
    items += [(f"faults per 1,000 seeds: {k}", v) for k, v in faults.items()]
    sections.append(table(
        "Differential testing (RTL against the reference model)",
        "`tests/diff`: 2,000 fixed seeds in `make test` (`make soak SEEDS=N` for more); "
        "every opcode and every fault reason must appear or the test fails.",
        ["figure", "value"], items))
cov_line, cov_toggle = pick("coverage_line_"), pick("coverage_toggle_")
if cov_line:
    sections.append(table(
        "RTL coverage (Verilator, from `make test`)",
        "Line and toggle coverage per module of `rtl/`; `make coverage` writes the annotated "
        "sources. Modules below 90% of lines are listed in tests/coverage/waivers.txt with the reason.",
        ["module", "lines %", "toggles %"],
        [(m, v, cov_toggle.get(m, "-")) for m, v in sorted(cov_line.items())]))
fuzz = pick("fuzz_execs_per_sec_")
if fuzz:
    sections.append(table(
        "Fuzzing (libFuzzer, ASan + UBSan)",
        "Executions per second of each target during its short run in `make test` "
        "(`make fuzz FUZZ_SECONDS=N` for long runs); the machine is shared, so these vary.",
        ["target", "executions/s"], sorted(fuzz.items())))
formal = pick("formal_depth_")
if formal:
    sections.append(table(
        "Formal proofs (SymbiYosys)",
        "`make formal` and `make test` run every proof; bmc N: no counterexample within N cycles, unbounded: proven for all time (abc pdr).",
        ["proof", "depth"], sorted(formal.items())))

with open(out, "w") as f:
    f.write("# Measured figures\n\n")
    f.write("Printed by the tests as `FIGURE` lines and collected by "
            "`python3 tools/collect_figures.py` after `make test` "
            f"(tree at commit {rev} plus the change that wrote this file). "
            "Cycle figures are simulation cycles and do not depend on the machine; "
            "the limits they must meet are asserted by the tests that print them (the iCE40 "
            "image's Fmax at 1.15x each clock on seed 1; its 80 % area limit only by `make "
            "bitstream`, whose three seeds are listed as bs3.out).\n\n")
    for s in sections:
        f.write(s)
    f.write("## All figures\n\n| test | figure | value |\n|---|---|---|\n")
    for test, fig, val in rows:
        f.write(f"| {test} | {fig} | {val.replace('|', '/')} |\n")
    if kept:
        f.write("\n" + kept)
print(f"{len(rows)} figures written to {out}")
