#!/usr/bin/env python3
"""readme_figures.py — the figures README.md quotes are those of docs/figures.md.

The README's "## Figures" section quotes measured figures in one table, a
row per figure:

  | what it is | VALUE with its unit | `TEST FIGURE` |

where `TEST FIGURE` names a row of the "## All figures" table of
docs/figures.md (its test and figure columns; collected from the FIGURE
lines of `make test` by tools/collect_figures.py).  The check, for each
row: the key names exactly one row of docs/figures.md, and the README's
number equals that row's first number rounded to as many decimals as the
README writes (0.496 quotes 0.496282; 7 does not quote 6; thousands
separators are ignored).  The section's text outside the table may hold no
number (every number there is a quoted figure, so it must be in the
table).

  readme_figures.py README.md FIGURES.md   check; exit 1 naming each problem
  readme_figures.py --self-test README.md FIGURES.md
      show that it fails on a README copy with a figure changed, an unknown
      key, a number outside the table, a row without a number, no table
"""
import decimal
import re
import sys
import tempfile

NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def section(text, title):
    """Lines of the '## title' section (up to the next '## ')."""
    out, inside = [], False
    for i, ln in enumerate(text.split("\n"), 1):
        if ln.startswith("## "):
            inside = ln[3:].strip() == title
            continue
        if inside:
            out.append((i, ln))
    return out


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def figures_table(path):
    rows = {}
    for _, ln in section(open(path, encoding="utf-8").read(), "All figures"):
        if not ln.startswith("|") or set(ln) <= set("|-: "):
            continue
        c = cells(ln)
        if len(c) < 3 or c[:2] == ["test", "figure"]:
            continue
        rows.setdefault((c[0], c[1]), []).append(c[2])
    return rows


def check(readme, figures):
    problems = []
    rows = figures_table(figures)
    if not rows:
        return [f"{figures}: no '## All figures' table"]
    sec = section(open(readme, encoding="utf-8").read(), "Figures")
    if not sec:
        return [f"{readme}: no '## Figures' section"]
    quoted = 0
    for line, ln in sec:
        if ln.startswith("|"):
            if set(ln) <= set("|-: "):
                continue
            c = cells(ln)
            key = re.fullmatch(r"`(\S+) (\S+)`", c[-1]) if len(c) >= 3 else None
            if not key:
                if quoted == 0 and not NUM.search(ln):
                    continue  # the header row
                problems.append(f"{readme}:{line}: a figure row needs `TEST FIGURE` in its last cell: {ln}")
                continue
            k = (key.group(1), key.group(2))
            m = NUM.search(c[1])
            if not m:
                problems.append(f"{readme}:{line}: no number in '{c[1]}'")
                continue
            quoted += 1
            if k not in rows:
                problems.append(f"{readme}:{line}: {k[0]} {k[1]} is not a row of {figures}'s All figures")
                continue
            if len(rows[k]) > 1:
                problems.append(f"{readme}:{line}: {k[0]} {k[1]} names {len(rows[k])} rows of {figures}")
                continue
            fm = NUM.search(rows[k][0])
            if not fm:
                problems.append(f"{readme}:{line}: {figures} has no number for {k[0]} {k[1]}: {rows[k][0]}")
                continue
            r = decimal.Decimal(m.group(0).replace(",", ""))
            f = decimal.Decimal(fm.group(0).replace(",", ""))
            places = -r.as_tuple().exponent if r.as_tuple().exponent < 0 else 0
            fr = f.quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)
            if fr != r:
                problems.append(f"{readme}:{line}: says {m.group(0)} for {k[0]} {k[1]}, "
                                f"{figures} says {rows[k][0]}")
        else:
            prose = re.sub(r"`[^`]*`", "", ln)
            if NUM.search(prose):
                problems.append(f"{readme}:{line}: a number outside the figures table "
                                f"(quote it in the table with its key): {ln.strip()}")
    if quoted == 0:
        problems.append(f"{readme}: the Figures section quotes no figure")
    return problems


def self_test(readme, figures):
    text = open(readme, encoding="utf-8").read()
    sec = section(text, "Figures")
    rows = [(i, ln) for i, ln in sec if ln.startswith("|") and re.search(r"`\S+ \S+` *\|\s*$", ln)]
    if not rows:
        print("self-test FAILED - no figure rows to alter")
        return False
    lines = text.split("\n")
    i, ln = rows[0]
    c = cells(ln)
    m = NUM.search(c[1])

    def bump(s):  # the number with its last digit changed
        return s[:-1] + str((int(s[-1]) + 1) % 10)

    def with_line(new):
        ls = list(lines)
        ls[i - 1] = new
        return "\n".join(ls)

    cases = [
        ("a figure changed", with_line(ln.replace(c[1], c[1].replace(m.group(0), bump(m.group(0)), 1), 1))),
        ("an unknown key", with_line(ln.replace(c[-1], "`no_such_test no_such_figure`"))),
        ("a row without a key", with_line(ln.replace(c[-1], "somewhere"))),
        ("a row without a number", with_line(ln.replace(c[1], "fast"))),
        ("a number in the section's text", with_line(ln + "\n\nFILL moves 12 words a cycle.")),
        ("no figure rows", "\n".join(l for k, l in enumerate(lines, 1) if (k, l) not in rows)),
    ]
    ok = not check(readme, figures)
    print(("self-test ok - " if ok else "self-test FAILED - ") + "the README as it is passes")
    for name, t in cases:
        with tempfile.NamedTemporaryFile("w", suffix=".md") as f:
            f.write(t)
            f.flush()
            p = check(f.name, figures)
        if p:
            print(f"self-test ok - {name}: fails ({p[0].split(': ', 1)[1]})")
        else:
            print(f"self-test FAILED - {name}: passes")
            ok = False
    return ok


def main(argv):
    if len(argv) == 4 and argv[1] == "--self-test":
        return 0 if self_test(argv[2], argv[3]) else 1
    if len(argv) != 3:
        print(__doc__)
        return 1
    problems = check(argv[1], argv[2])
    for p in problems:
        print("not ok - " + p)
    if not problems:
        print(f"ok - every figure {argv[1]} quotes is the one {argv[2]} records")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
