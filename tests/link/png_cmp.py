#!/usr/bin/env python3
"""png_cmp.py PINS.png CAPTURE.png BITS — does a frame taken from a board's
video pins (sgpu-sim --frames-dir) show what the library captured from the
framebuffer (link_workload_small FRAME.png)?  BITS is how many top bits of
each colour the board's pins carry (4 on the iCEBreaker's 12-bit DVI Pmod,
8 on the ULX3S): each captured colour is cut to them and widened again by
replication, as the pins' PNG was.  Prints one line; exit 0 when every
pixel matches.  8-bit RGB PNGs only (what both writers make); no library
beyond zlib."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype != 2:
                raise ValueError(f"{path}: not 8-bit RGB")
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride, out, prev = 3 * w, bytearray(), bytearray(3 * w)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return w, h, bytes(out)


def main():
    pins, cap, bits = sys.argv[1], sys.argv[2], int(sys.argv[3])
    w1, h1, p1 = read_png(pins)
    w2, h2, p2 = read_png(cap)
    if (w1, h1) != (w2, h2):
        print(f"pins {w1}x{h1}, capture {w2}x{h2}")
        return 1
    keep = 8 - bits

    def widen(v):
        v >>= keep
        r, n = 0, 0
        while n < 8:
            r = (r << bits) | v
            n += bits
        return r >> (n - 8)

    table = [widen(v) for v in range(256)]
    want = bytes(table[v] for v in p2)
    bad = sum(1 for i in range(0, len(p1), 3) if p1[i:i + 3] != want[i:i + 3])
    if bad:
        i = next(i for i in range(0, len(p1), 3) if p1[i:i + 3] != want[i:i + 3]) // 3
        print(f"{bad} of {w1 * h1} pixels differ; first at ({i % w1}, {i // w1}): "
              f"pins {p1[3 * i:3 * i + 3].hex()}, capture cut to {bits} bits {want[3 * i:3 * i + 3].hex()}")
        return 1
    print(f"all {w1}x{h1} pixels equal (capture cut to {bits} bits a colour)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
