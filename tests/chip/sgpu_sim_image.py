#!/usr/bin/env python3
"""Image checks for the sgpu-sim tests (standard library only).

  sgpu_sim_image.py pattern PNG             PNG equals sgpu-sim's --pattern
  sgpu_sim_image.py scaled BMP PNG SCALE    BMP (window screenshot) is the PNG
                                            frame scaled by SCALE, pixel exact
Exit status 0 when the check holds, 1 with a message when not.
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, ctype, interlace) != (8, 2, 0):
                raise ValueError(f"{path}: expected 8-bit RGB, not interlaced")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride, bpp = w * 3, 3
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, [[tuple(r[3 * x:3 * x + 3]) for x in range(w)] for r in rows]


def read_bmp(path):
    d = open(path, "rb").read()
    if d[:2] != b"BM":
        raise ValueError(f"{path}: not a BMP")
    off = struct.unpack("<I", d[10:14])[0]
    w, h, _, bpp, comp = struct.unpack("<iiHHI", d[18:34])
    if comp not in (0, 3) or bpp not in (24, 32):
        raise ValueError(f"{path}: unsupported BMP ({bpp} bpp, compression {comp})")
    masks = None
    if comp == 3:  # BITFIELDS: masks follow the 40-byte header (or are in a V4/V5 header)
        masks = struct.unpack("<III", d[54:66])
    bottom_up, h = h > 0, abs(h)
    step = bpp // 8
    stride = (w * step + 3) & ~3
    pix = []
    for y in range(h):
        row = off + (h - 1 - y if bottom_up else y) * stride
        line = []
        for x in range(w):
            p = d[row + x * step:row + x * step + step]
            if masks:
                v = int.from_bytes(p, "little")
                line.append(tuple(((v & m) >> ((m & -m).bit_length() - 1)) & 255 for m in masks))
            else:
                line.append((p[2], p[1], p[0]))
        pix.append(line)
    return w, h, pix


def pattern_rgb(x, y, w, h):
    """Mirror of sgpu_sim_pattern_rgb() in sim/sgpu_sim_main.c."""
    if y < h * 3 // 4:
        c = [7, 6, 3, 2, 5, 4, 1, 0][x * 8 // w]
        return (255 if c & 4 else 0, 255 if c & 2 else 0, 255 if c & 1 else 0)
    g = x * 32 // w * 8
    return (g, g, g)


def main(argv):
    if len(argv) >= 3 and argv[1] == "pattern":
        w, h, px = read_png(argv[2])
        bad = 0
        for y in range(h):
            for x in range(w):
                exp = pattern_rgb(x, y, w, h)
                # RGB565 -> RGB888 expansion may replicate high bits: allow < 8
                if any(abs(a - b) >= 8 for a, b in zip(px[y][x], exp)):
                    if bad < 5:
                        print(f"pixel ({x},{y}) = {px[y][x]}, expected ~{exp}")
                    bad += 1
        if bad:
            print(f"{argv[2]}: {bad} of {w * h} pixels differ from the pattern")
            return 1
        print(f"{argv[2]}: {w}x{h} matches the test pattern")
        return 0
    if len(argv) >= 5 and argv[1] == "scaled":
        bw, bh, bpx = read_bmp(argv[2])
        fw, fh, fpx = read_png(argv[3])
        s = int(argv[4])
        if (bw, bh) != (fw * s, fh * s):
            print(f"window {bw}x{bh}, expected {fw * s}x{fh * s}")
            return 1
        bad = sum(1 for y in range(bh) for x in range(bw) if bpx[y][x] != fpx[y // s][x // s])
        if bad:
            print(f"{bad} window pixels differ from the captured frame")
            return 1
        print(f"window {bw}x{bh} is the {fw}x{fh} frame scaled by {s}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
