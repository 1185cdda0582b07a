#!/usr/bin/env python3
"""Line and toggle coverage of rtl/ per module, from the Verilator coverage
files the test suite wrote (one per run: <bench>-verilator.<pid>.dat from the
unit testbenches, sim.<pid>.<n>.dat from each chip of the chip tests).

Merges them with verilator_coverage (merged.dat, annotated sources), writes
report.md, prints FIGURE lines, and with --check fails when a module's line
coverage is below the threshold (90 %) or below the minimum its waiver
(waivers.txt) allows.

Counting: coverage points of all instances of a module are added up per source
position (file, line, column, signal), over every run.  A source line counts
as hit when every line/branch point on it was reached; a signal bit counts as
toggled when it changed value at least once.
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys

LINE_MIN = 90.0


def parse_dat(path, points):
    """Add the counts of one coverage file to points[(kind, file, key)]."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            if not raw.startswith("C '"):
                continue
            end = raw.rindex("'")
            fields = dict(kv.split("\x02", 1) for kv in raw[3:end].split("\x01") if "\x02" in kv)
            count = int(raw[end + 1:])
            page = fields.get("page", "")
            kind = page.split("/", 1)[0]
            fname = fields.get("f", "")
            if kind == "v_toggle":
                key = fields.get("o", "")
                lines = ()
            elif kind in ("v_line", "v_branch"):
                key = (fields.get("l", ""), fields.get("n", ""), fields.get("o", ""))
                lines = tuple(spans(fields.get("S", fields.get("l", "0"))))
            else:
                continue
            k = (kind, fname, key)
            old = points.get(k)
            points[k] = (count + (old[0] if old else 0), lines)


def spans(text):
    """'10-12,15' -> 10, 11, 12, 15."""
    for part in text.split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            yield from range(int(a), int(b) + 1)
        else:
            yield int(part)


def module_of(fname, rtl_dir):
    """rtl/<subsystem>/<module>.v -> module; None for files outside the
    subsystem folders (testbenches, the board tops of rtl/boards/)."""
    norm = os.path.normpath(fname)
    parts = os.path.relpath(norm, os.path.normpath(rtl_dir)).split(os.sep)
    if len(parts) != 2 or parts[0] in ("..", "boards") or not norm.endswith(".v"):
        return None
    return parts[1][:-2]


def summarize(points, rtl_dir):
    """Per module: lines hit, lines total, bits toggled, bits total."""
    line_pts = collections.defaultdict(lambda: collections.defaultdict(list))
    tog = collections.defaultdict(lambda: [0, 0])
    for (kind, fname, _key), (count, lines) in points.items():
        mod = module_of(fname, rtl_dir)
        if mod is None:
            continue
        if kind == "v_toggle":
            tog[mod][1] += 1
            tog[mod][0] += count > 0
        else:
            for ln in lines:
                line_pts[mod][ln].append(count)
    out = {}
    for mod in set(line_pts) | set(tog):
        per_line = line_pts.get(mod, {})
        hit = sum(1 for counts in per_line.values() if all(c > 0 for c in counts))
        out[mod] = (hit, len(per_line), tog[mod][0], tog[mod][1])
    return out


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def read_waivers(path):
    """module -> (minimum line %, reason).  Format: module  min%  reason..."""
    waivers = {}
    errors = []
    if not os.path.exists(path):
        return waivers, errors
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
            if not text:
                continue
            m = re.match(r"^(\S+)\s+(\d+(?:\.\d+)?)%?\s+(.*)$", text)
            if not m or len(m.group(3).split()) < 4:
                errors.append(f"{path}:{n}: want 'module min% reason' with a reason that says why")
                continue
            waivers[m.group(1)] = (float(m.group(2)), m.group(3).strip())
    return waivers, errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.environ.get("SGPU_COVERAGE_DIR"),
                    help="folder of the .dat files (default: $SGPU_COVERAGE_DIR)")
    ap.add_argument("--out", help="report folder (default: the parent of --data)")
    ap.add_argument("--rtl", default="rtl")
    ap.add_argument("--benches", default="tests/rtl",
                    help="each tb_*.v there must have left coverage data")
    ap.add_argument("--waivers", default="tests/coverage/waivers.txt")
    ap.add_argument("--check", action="store_true", help="fail below threshold without waiver")
    args = ap.parse_args()
    if not args.data:
        sys.exit("coverage: no data folder (set SGPU_COVERAGE_DIR; `make test` and `make coverage` do)")
    out = args.out or os.path.dirname(os.path.abspath(args.data))
    problems = []

    files = sorted(glob.glob(os.path.join(args.data, "*.dat")))
    bench_files = [f for f in files if os.path.basename(f).startswith("tb_")]
    chip_files = [f for f in files if os.path.basename(f).startswith("sim.")]
    for tb in sorted(glob.glob(os.path.join(args.benches, "tb_*.v"))):
        name = os.path.basename(tb)[:-2] + "-verilator."
        if not any(os.path.basename(f).startswith(name) for f in bench_files):
            problems.append(f"no coverage data from {name[:-1]} (did it run with SGPU_COVERAGE_DIR set?)")
    if not chip_files:
        problems.append("no coverage data from the chip tests (sim.*.dat)")

    groups = {}
    for label, group in (("bench", bench_files), ("chip", chip_files)):
        pts = {}
        for f in group:
            parse_dat(f, pts)
        groups[label] = pts
    merged_pts = {}
    for pts in groups.values():
        for k, (c, lines) in pts.items():
            old = merged_pts.get(k)
            merged_pts[k] = (c + (old[0] if old else 0), lines)
    total = summarize(merged_pts, args.rtl)
    by_bench = summarize(groups["bench"], args.rtl)
    by_chip = summarize(groups["chip"], args.rtl)

    # The merged file and annotated sources, by Verilator's own tool.
    os.makedirs(out, exist_ok=True)
    merged = os.path.join(out, "merged.dat")
    annotated = os.path.join(out, "annotated")
    if files:
        subprocess.run(["verilator_coverage", "--write", merged] + files, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["verilator_coverage", "--annotate", annotated, "--annotate-min", "1", merged],
                       check=True, stdout=subprocess.DEVNULL)

    waivers, errs = read_waivers(args.waivers)
    problems += errs
    modules = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(args.rtl, "*", "*.v"))
                     if module_of(p, args.rtl))
    for w in sorted(set(waivers) - set(modules)):
        problems.append(f"waiver for {w}, which is not a module in {args.rtl}/")

    rows = []
    all_hit = all_lines = 0
    for mod in modules:
        hit, lines, thit, tbits = total.get(mod, (0, 0, 0, 0))
        all_hit += hit
        all_lines += lines
        lp, tp = pct(hit, lines), pct(thit, tbits)
        minimum, reason = waivers.get(mod, (LINE_MIN, ""))
        status = "ok"
        if lines == 0 and tbits == 0:
            status = "NOT COVERED (no coverage points: no test instantiates it)"
            if mod in waivers:
                status = "not covered, waived"
            if minimum > 0:
                problems.append(f"{mod}: no test instantiates it under Verilator")
        elif lines == 0:
            lp = 100.0  # only wiring: no statements to reach
            status = "ok (no statements)"
        elif lp + 1e-9 < minimum:
            status = f"BELOW {minimum:g}%"
            problems.append(f"{mod}: line coverage {lp:.1f}% < {minimum:g}%"
                            + ("" if mod in waivers else " (no waiver in " + args.waivers + ")"))
        elif mod in waivers:
            status = f"waived to {minimum:g}%" if lp < LINE_MIN else "ok (waiver not needed)"
        b = by_bench.get(mod, (0, 0, 0, 0))
        c = by_chip.get(mod, (0, 0, 0, 0))
        rows.append((mod, hit, lines, lp, thit, tbits, tp, pct(b[0], b[1]) if b[1] else None,
                     pct(c[0], c[1]) if c[1] else None, status, reason))
        print(f"FIGURE coverage_line_{mod} {lp:.1f}")
        print(f"FIGURE coverage_toggle_{mod} {tp:.1f}")
    print(f"FIGURE coverage_line_rtl_total {pct(all_hit, all_lines):.1f}")
    if pct(all_hit, all_lines) < LINE_MIN:
        problems.append(f"all of {args.rtl}/: line coverage {pct(all_hit, all_lines):.1f}% < {LINE_MIN:g}%")

    def opt(v):
        return "—" if v is None else f"{v:.1f}"

    md = ["# RTL coverage (Verilator, from the test suite)", "",
          f"{len(bench_files)} unit-testbench runs, {len(chip_files)} chip instances "
          "of the chip tests.  A line is hit when every line/branch point on it was "
          "reached (all instances and runs added up); a bit is toggled when it "
          "changed value at least once.  Line threshold "
          f"{LINE_MIN:g}% per module unless `tests/coverage/waivers.txt` says otherwise.", "",
          "| module | lines hit/total | line % | toggle bits | toggle % | line % by unit tb | "
          "line % by chip tests | status |",
          "|---|---|---|---|---|---|---|---|"]
    for (mod, hit, lines, lp, thit, tbits, tp, bp, cp, status, _reason) in rows:
        md.append(f"| {mod} | {hit}/{lines} | {lp:.1f} | {thit}/{tbits} | {tp:.1f} | {opt(bp)} | "
                  f"{opt(cp)} | {status} |")
    md.append(f"| **all** | {all_hit}/{all_lines} | {pct(all_hit, all_lines):.1f} | | | | | |")
    waived = [(r[0], r[10]) for r in rows if r[10]]
    if waived:
        md += ["", "## Waivers", ""]
        md += [f"- **{m}**: {why}" for m, why in waived]
    md += ["", "Annotated sources (lines starting with `%` were not reached): `annotated/`.", ""]
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md))
    print("\n".join(md[6:]))
    print(f"report: {os.path.join(out, 'report.md')}, annotated sources: {annotated}/")

    if problems:
        for p in problems:
            print("coverage: " + p, file=sys.stderr)
        if args.check:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
