#!/usr/bin/env python3
"""No register offset, stride, field bit slice, range or reset value is
written by hand in rtl/ or host/: they come from tools/hwspec.py through the
generated files (build/gen/sgpu_hw.vh, sgpu_regs_*.vh, sgpu_hw.h).  This scan
finds the hand-written ones:

  RTL (rtl/**/*.v)
    addr-slice   a register offset signal sliced at a number (reg_addr_i[6:2]):
                 the generated decode (<p>_r_<reg>) or a width from the spec instead
    addr-const   a register offset signal compared with a number (roff == 12'h014)
    case-const   a case item that is a number inside a case on a register offset
    wdata-slice  written register data sliced at a number other than the word's
                 ends 31 and 0 (wr_data[23:0], reg_wdata_i[4:1], wr_data[1]):
                 a field's _LSB/_W or a register's _W / _ALIGN_LG instead
  host (host/**/*.c, *.h)
    reg-literal  a register access or offset macro given a number as the offset
                 (reg_write(t, 0x114, v), SGPU_NODE_REG(n, 0x14))
    reg-arith    a number added to a register offset (SGPU_REG_CYCLE_LO + 4)
    reg-layout   the block layout (SGPU_NODE_BASE/STRIDE, SGPU_SOURCE_BASE/STRIDE)
                 used by hand instead of sgpu_reg_<block>_<reg>(i)
    field-slice  a value read from a register shifted or masked by a number
                 ((st >> 4) & 0xF) instead of sgpu_<reg>_<field>(v)

Findings listed in tests/reg_literals_allow.txt ("path: text of the line")
are accepted.  --self-test runs the scan on snippets that must and must not
be flagged.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOW = os.path.join(ROOT, "tests", "reg_literals_allow.txt")

ADDR = r"(?:\w*reg_addr\w*|roff|ra|m\w*_addr)"
WDATA = r"(?:\w*reg_wdata\w*|wr_data|host_req_wdata_i)"
NUM = r"(?:\d+'[sS]?[hdbo][0-9a-fA-F_xzXZ]+|\d+)"


def _num_bound(b):
    b = b.strip()
    return re.fullmatch(r"\d+", b) is not None


def scan_verilog(path, text):
    out = []
    in_case = 0
    for i, line in enumerate(text.splitlines(), 1):
        code = line.split("//")[0]
        m = re.search(r"\bcase[zx]?\s*\(\s*(" + ADDR + r")\b", code)
        if m:
            in_case += 1
        elif in_case and re.search(r"\bendcase\b", code):
            in_case -= 1
        elif in_case and re.match(r"\s*" + NUM + r"\s*(,\s*" + NUM + r"\s*)*:", code):
            out.append((path, i, "case-const", line.strip()))
        for m in re.finditer(r"\b(" + ADDR + r")\s*\[([^\]]*)\]", code):
            if _num_bound(m.group(2).split(":")[0]):
                out.append((path, i, "addr-slice", line.strip()))
                break
        if re.search(r"\b" + ADDR + r"\b(\s*\[[^\]]*\])?\s*[!=]=\s*" + NUM, code) or \
           re.search(NUM + r"\s*[!=]=\s*" + ADDR + r"\b", code):
            out.append((path, i, "addr-const", line.strip()))
        for m in re.finditer(r"\b(" + WDATA + r")\s*\[([^\]]*)\]", code):
            bounds = [b.strip() for b in m.group(2).split(":")]
            if len(bounds) == 1:
                bad = _num_bound(bounds[0])
            else:
                bad = (_num_bound(bounds[0]) and bounds[0] != "31") or \
                      (_num_bound(bounds[1]) and bounds[1] != "0")
            if bad:
                out.append((path, i, "wdata-slice", line.strip()))
                break
    return out


REG_CALL = re.compile(r"\b(\w*reg_read|\w*reg_write|SGPU_NODE_REG|SGPU_SOURCE_REG|nreg|sreg)\s*\(")


def _args(text, start):
    """The top-level arguments of the call whose '(' is at text[start]."""
    depth, cur, args = 0, "", []
    for ch in text[start:]:
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append(cur)
                return args
        elif ch == "," and depth == 1:
            args.append(cur)
            cur = ""
            continue
        cur += ch
    return args


def scan_c(path, text):
    out = []
    lines = text.splitlines()
    # variables that hold a register's value
    held = set()
    for line in lines:
        for m in REG_CALL.finditer(line):
            a = _args(line, m.end() - 1)
            if a and "read" in m.group(1):
                mm = re.match(r"\s*&\s*([\w.>-]+)\s*$", a[-1])
                if mm:
                    held.add(mm.group(1))
        mm = re.search(r"\b(\w+)\s*=\s*\w+\s*\(.*\bSGPU_[NS]?REG_\w+", line)
        if mm:
            held.add(mm.group(1))
    held = {h.split("->")[-1].split(".")[-1] for h in held}
    for i, line in enumerate(lines, 1):
        code = re.sub(r"/\*.*?\*/|//.*", "", line)
        for m in REG_CALL.finditer(code):
            a = _args(code, m.end() - 1)
            name = m.group(1)
            # the offset argument: the second of an access (device, offset, ...),
            # the second of an offset macro (index, register)
            off = a[1] if len(a) >= 2 else None
            if name in ("nreg", "sreg") and len(a) >= 2:
                off = a[-1]
            if off is not None and re.search(r"(?<![\w])(0[xX][0-9a-fA-F]+|\d+)[uU]?\b", off) \
               and not re.search(r"SGPU_\w+", off):
                out.append((path, i, "reg-literal", line.strip()))
        if re.search(r"\bSGPU_(NODE|SOURCE)_REG\s*\([^()]*\)\s*[-+]\s*(0[xX])?\d", code) or \
           re.search(r"\bSGPU_[NS]?REG_\w+\s*[-+]\s*(0[xX])?\d", code):
            out.append((path, i, "reg-arith", line.strip()))
        if re.search(r"\bSGPU_(NODE|SOURCE)_(BASE|STRIDE)\b", code):
            out.append((path, i, "reg-layout", line.strip()))
        for h in held:
            if re.search(r"\b" + re.escape(h) + r"\b\s*(>>|<<)\s*\d+", code) or \
               re.search(r"\b" + re.escape(h) + r"\b\s*&\s*(0[xX][0-9a-fA-F]+|\d+)", code):
                out.append((path, i, "field-slice", line.strip()))
                break
    return out


def scan_file(path, text):
    if path.endswith((".v", ".vh", ".sv")):
        return scan_verilog(path, text)
    return scan_c(path, text)


def load_allow():
    allow = []
    if os.path.exists(ALLOW):
        with open(ALLOW) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.strip() and not line.startswith("#"):
                    p, _, t = line.partition(": ")
                    allow.append((p.strip(), t.strip()))
    return allow


def scan_tree():
    files = sorted(glob.glob(os.path.join(ROOT, "rtl", "**", "*.v"), recursive=True) +
                   glob.glob(os.path.join(ROOT, "host", "**", "*.[ch]"), recursive=True))
    found = []
    for fp in files:
        with open(fp, errors="replace") as f:
            found += scan_file(os.path.relpath(fp, ROOT), f.read())
    return found


SELF_BAD = [
    ("rtl/x.v", "  case (reg_addr_i)\n    8'h14: x = 1;\n  endcase\n", "case-const"),
    ("rtl/x.v", "  case (roff[6:0])\n    7'h2C: m_slot = 8'd4;\n  endcase\n", "case-const"),
    ("rtl/x.v", "  wire sel = (reg_addr_i[6:2] == 5'd5);\n", "addr-slice"),
    ("rtl/x.v", "  wire sel = (reg_addr_i[6:2] == 5'd5);\n", "addr-const"),
    ("rtl/x.v", "  wire hit = roff == 12'h114;\n", "addr-const"),
    ("rtl/x.v", "  assign f = wr_data[4:1];\n", "wdata-slice"),
    ("rtl/x.v", "  if (w) lim <= reg_wdata_i[23:0];\n", "wdata-slice"),
    ("rtl/x.v", "  else if (wr_data[1]) bad = 1'b1;\n", "wdata-slice"),
    ("host/src/x.c", "  r = sgpu__reg_write(dev, 0x114, v);\n", "reg-literal"),
    ("host/src/x.c", "  r = ops->reg_read(t, SGPU_NODE_REG(n, 0x14), &v);\n", "reg-literal"),
    ("host/src/x.c", "  uint32_t a = SGPU_NODE_BASE + n * 0x80u + SGPU_NREG_CONTROL;\n", "reg-layout"),
    ("host/src/x.c", "  r = sgpu__reg_read(dev, SGPU_REG_CYCLE_LO + 4, &hi);\n", "reg-arith"),
    ("host/src/x.c", "  r = sgpu__reg_read(dev, SGPU_NODE_REG(n, SGPU_NREG_STATUS) - 0x4u, &v);\n", "reg-arith"),
    ("host/src/x.c", "  sgpu__reg_read(dev, sgpu_reg_node_status(n), &st);\n  d = (st >> 4) & 0xFu;\n",
     "field-slice"),
    ("host/src/x.c", "  uint32_t line = sreg(c, SGPU_SREG_DISP_SCANLINE);\n  y = line & 0xFFFFu;\n",
     "field-slice"),
]
SELF_GOOD = [
    ("rtl/x.v", "  case (nreg_addr)\n    NREG_CONTROL: x = 1;\n    `SGPU_NREG_STATUS: y = 1;\n  endcase\n"),
    ("rtl/x.v", "  wire sel = nreg_r_control;\n  wire [NLG-1:0] a = roff[NLG-1:0];\n"),
    ("rtl/x.v", "  wire big = (nreg_wdata[31:IW] != 0);\n  assign w = wr_data[NREG_WATCHDOG_W-1:0];\n"),
    ("rtl/x.v", "  assign e = wr_data[`SGPU_CONTROL_ENABLE];\n  assign d = host_req_wdata_i[31:0];\n"),
    ("host/src/x.c", "  r = sgpu__reg_write(dev, sgpu_reg_node_control(n), SGPU_CONTROL_ENABLE);\n"),
    ("host/src/x.c", "  r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), 0);\n"),
    ("host/src/x.c", "  sgpu__reg_read(dev, sgpu_reg_node_status(n), &st);\n  d = sgpu_status_ib_depth(st);\n"),
    ("host/src/x.c", "  w = SGPU_FIELD_GET(DISP_TIMING_WIDTH, timing);\n  x = words[3] >> 16;\n"),
]


def self_test():
    bad = 0
    for path, text, rule in SELF_BAD:
        rules = {f[2] for f in scan_file(path, text)}
        if rule not in rules:
            print(f"self-test: not flagged as {rule}: {text.strip()!r} (got {sorted(rules)})")
            bad += 1
    for path, text in SELF_GOOD:
        f = scan_file(path, text)
        if f:
            print(f"self-test: flagged but fine: {text.strip()!r}: {f}")
            bad += 1
    print(f"check_reg_literals self-test: {len(SELF_BAD)} bad and {len(SELF_GOOD)} good snippets, "
          f"{bad} wrong")
    return bad == 0


def main():
    if "--self-test" in sys.argv:
        return 0 if self_test() else 1
    allow = load_allow()
    used = set()
    left = []
    for path, ln, rule, text in scan_tree():
        hit = next((k for k, (p, t) in enumerate(allow) if p == path and t == text), None)
        if hit is None:
            left.append((path, ln, rule, text))
        else:
            used.add(hit)
    for path, ln, rule, text in left:
        print(f"{path}:{ln}: {rule}: {text}")
    stale = [allow[k] for k in range(len(allow)) if k not in used]
    for p, t in stale:
        print(f"tests/reg_literals_allow.txt: no longer found, remove: {p}: {t}")
    if left or stale:
        print(f"check_reg_literals: {len(left)} hand-written register numbers, {len(stale)} stale allowances")
        return 1
    print(f"check_reg_literals: rtl/ and host/ take every register number from the spec "
          f"({len(allow)} allowed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
