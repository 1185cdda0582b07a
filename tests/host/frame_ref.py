#!/usr/bin/env python3
"""Reference images for the host tests (standard library only).

An oracle that shares no code with the chip, the library or the demo: a
byte-level model of GPU memory with FILL and COPY as docs/interface.md
defines them, the display's scanout (RGB565 / RGB332, pixel replication,
expansion to 8 bits per channel by bit replication), a PNG decoder (every
filter type) and an independent rendering of the scene sgpu-demo draws.

  frame_ref.py demo DIR N     DIR/frame_000.png .. frame_{N-1}.png and the
                              N frames of DIR/demo.png equal the scene
  frame_ref.py png PNG        print "WIDTHxHEIGHT CRC32" of the decoded pixels
  frame_ref.py selftest       the PNG decoder inverts each filter type

Used as a module by test_cli.sh (screenshots of known fills).  Exit status 0
when the check holds, 1 with a message naming the first wrong pixels.
"""
import struct
import sys
import zlib

RGB565, RGB332 = 0, 1


# ------------------------------------------------------------ GPU memory

class Mem:
    """A buffer of GPU memory whose offset 0 is 4-byte aligned."""

    def __init__(self, size):
        self.b = bytearray(size)

    def fill(self, off, pitch, width, height, pattern):
        """FILL: byte i of a row takes byte (address + i) % 4 of the pattern."""
        pat = struct.pack("<I", pattern & 0xFFFFFFFF)
        for y in range(height):
            a = off + y * pitch
            rot = pat[a % 4:] + pat[:a % 4]
            self.b[a:a + width] = (rot * (width // 4 + 2))[:width]

    def copy_from(self, src, doff, dpitch, soff, spitch, width, height):
        """COPY from Mem src (maybe self): as if through a temporary."""
        rows = [bytes(src.b[soff + y * spitch:soff + y * spitch + width]) for y in range(height)]
        for y, r in enumerate(rows):
            self.b[doff + y * dpitch:doff + y * dpitch + width] = r


def expand_lut(fmt):
    """Pixel value -> 3 bytes R, G, B (bit replication to 8 bits)."""
    lut = []
    if fmt == RGB565:
        for p in range(65536):
            r, g, b = p >> 11, (p >> 5) & 63, p & 31
            lut.append(bytes(((r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2))))
    else:
        for p in range(256):
            r, g, b = p >> 5, (p >> 2) & 7, p & 3
            lut.append(bytes(((r << 5) | (r << 2) | (r >> 1), (g << 5) | (g << 2) | (g >> 1), b * 0x55)))
    return lut


_LUTS = {}


def scanout(mem, off, pitch, width, height, fmt, rep_x=1, rep_y=1):
    """RGB888 bytes of the (width*rep_x) x (height*rep_y) picture the display
    shows of a width x height framebuffer at off (pixels little-endian)."""
    if fmt not in _LUTS:
        _LUTS[fmt] = expand_lut(fmt)
    lut = _LUTS[fmt]
    out = []
    for y in range(height):
        a = off + y * pitch
        if fmt == RGB565:
            px = struct.unpack("<%dH" % width, bytes(mem.b[a:a + 2 * width]))
        else:
            px = mem.b[a:a + width]
        row = b"".join(lut[p] * rep_x for p in px)
        out.extend([row] * rep_y)
    return b"".join(out)


# ------------------------------------------------------------ PNG

def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def unfilter(raw, width, height, bpp):
    """Undo the PNG scanline filters; returns the pixel bytes."""
    stride = width * bpp
    out, prev, i = [], bytes(stride), 0
    m7, m8 = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for c in range(bpp):
                acc = 0
                for x in range(c, stride, bpp):
                    acc = (acc + line[x]) & 255
                    line[x] = acc
        elif f == 2:  # bytewise add without carries between bytes
            x, y = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            line = bytearray((((x & m7) + (y & m7)) ^ ((x ^ y) & m8)).to_bytes(stride, "big"))
        elif f == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                c = prev[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + _paeth(a, prev[x], c)) & 255
        elif f != 0:
            raise ValueError("bad filter type %d" % f)
        out.append(bytes(line))
        prev = line
    return b"".join(out)


def _chunks(data, path):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos = 8
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError("%s: bad CRC of chunk %r" % (path, kind))
        yield kind, body
        pos += 12 + n


def read_png(path):
    """(width, height, RGB888 bytes) of an 8-bit RGB, non-interlaced PNG."""
    idat, w, h = b"", 0, 0
    for kind, body in _chunks(open(path, "rb").read(), path):
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, ctype, interlace) != (8, 2, 0):
                raise ValueError("%s: not 8-bit RGB without interlace" % path)
        elif kind == b"IDAT":
            idat += body
    return w, h, unfilter(zlib.decompress(idat), w, h, 3)


def read_apng(path):
    """(width, height, [RGB888 bytes of each frame]) of a full-frame APNG."""
    w = h = 0
    frames, cur = [], None
    for kind, body in _chunks(open(path, "rb").read(), path):
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"fcTL":
            fw, fh, fx, fy = struct.unpack(">IIII", body[4:20])
            if (fw, fh, fx, fy) != (w, h, 0, 0):
                raise ValueError("%s: frame %d is not full size" % (path, len(frames)))
            cur = []
            frames.append(cur)
        elif kind == b"IDAT" and cur is not None:
            cur.append(body)
        elif kind == b"fdAT":
            cur.append(body[4:])
    return w, h, [unfilter(zlib.decompress(b"".join(f)), w, h, 3) for f in frames]


def diff(got, want, width, height, what, show=5):
    """None when equal, else a message with the count and first mismatches."""
    if len(got) != len(want):
        return "%s: %d bytes, expected %d" % (what, len(got), len(want))
    if got == want:
        return None
    bad = []
    for i in range(0, len(want), 3):
        if got[i:i + 3] != want[i:i + 3]:
            bad.append(i // 3)
    msg = ", ".join("(%d,%d) #%s not #%s" % (p % width, p // width, got[3 * p:3 * p + 3].hex(),
                                               want[3 * p:3 * p + 3].hex()) for p in bad[:show])
    return "%s: %d of %d pixels differ: %s" % (what, len(bad), width * height, msg)


# ------------------------------------------------------------ the demo's scene
# What sgpu-demo draws (host/examples/demo.c describes it): two 320x240
# RGB565 framebuffers shown 2x2-replicated on the 640x480 VGA timing; picture
# t is drawn into buffer (t + 1) % 2 with FILL and COPY and shown in capture t.

FB_W, FB_H, SPRITE = 320, 240, 32
PITCH = FB_W * 2


def rgb(r, g, b):
    return ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3)


def tri(x, n):
    x %= 2 * n
    return x if x < n else 2 * n - x


GLYPH_SGPU = [
    [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
    [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".###."],
    ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
    ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
]
GLYPH_DIGIT = [
    ["###", "#.#", "#.#", "#.#", "###"], [".#.", "##.", ".#.", ".#.", "###"],
    ["###", "..#", "###", "#..", "###"], ["###", "..#", "###", "..#", "###"],
    ["#.#", "#.#", "###", "..#", "..#"], ["###", "#..", "###", "..#", "###"],
    ["###", "#..", "###", "#.#", "###"], ["###", "..#", "..#", "..#", "..#"],
    ["###", "#.#", "###", "#.#", "###"], ["###", "#.#", "###", "..#", "###"],
]


class Scene:
    def __init__(self):
        self.fb = [Mem(PITCH * FB_H), Mem(PITCH * FB_H)]  # cleared by the set-up
        self.sheet = Mem(SPRITE * 2 * SPRITE)
        s = self.sheet
        s.fill(0, 64, 64, 32, 0x18E318E3)
        s.fill(2 * 64 + 4, 64, 56, 28, 0xFD20FD20)
        s.fill(6 * 64 + 12, 64, 40, 20, 0xFFE0FFE0)
        s.fill(10 * 64 + 24, 64, 16, 12, 0xF800F800)
        s.fill(4 * 64 + 8, 64, 8, 4, 0xFFFFFFFF)

    @staticmethod
    def rect(fb, x, y, w, h, c):
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, FB_W), min(y + h, FB_H)
        if x1 > x0 and y1 > y0:
            fb.fill(y0 * PITCH + 2 * x0, PITCH, 2 * (x1 - x0), y1 - y0, c | c << 16)

    @staticmethod
    def blit(fb, dx, dy, src, soff, spitch, w, h):
        sx = sy = 0
        if dx < 0:
            sx, w, dx = -dx, w + dx, 0
        if dy < 0:
            sy, h, dy = -dy, h + dy, 0
        w, h = min(w, FB_W - dx), min(h, FB_H - dy)
        if w > 0 and h > 0:
            fb.copy_from(src, dy * PITCH + 2 * dx, PITCH, soff + sy * spitch + 2 * sx, spitch, 2 * w, h)

    def glyph(self, fb, rows, x, y, scale, c):
        for r, s in enumerate(rows):
            for col, ch in enumerate(s):
                if ch == "#":  # runs of '#' are one FILL in the demo; same pixels
                    self.rect(fb, x + col * scale, y + r * scale, scale, scale, c)

    def draw(self, t):
        """Draw picture t into its buffer; returns that buffer."""
        fb = self.fb[(t + 1) % 2]
        for i in range(10):
            k = (i + tri(t // 6, 3)) % 13
            self.rect(fb, 0, 12 + 16 * i, FB_W, 16, rgb(min(20 + 14 * k, 255), 30 + 8 * k, max(120 - 5 * k, 20)))
        sx, sy = 20 + (t * 5) % 300, 40 + tri(t * 2, 30)
        for r, sp in enumerate([5, 8, 10, 11, 12, 12, 12, 12, 11, 10, 8, 5]):
            self.rect(fb, sx - sp, sy - 12 + 2 * r, 2 * sp, 2, rgb(255, 230, 90))
        self.rect(fb, 0, 172, FB_W, 68, rgb(30, 90, 40))
        for row in range(2):
            x = -((t * (6 if row else 3)) % 32)
            while x < FB_W:
                self.rect(fb, x, 180 + 28 * row, 16, 12, rgb(60, 150, 70) if row else rgb(90, 60, 30))
                x += 32
        for b in range(20):
            h = 4 + tri(t * 3 + b * 7, 28)
            self.rect(fb, 4 + 16 * b, 170 - h, 10, h, rgb(b * 12, 200, 255 - b * 10))
        for s in range(5):
            x = tri(s * 53 + t * (3 + s), FB_W - SPRITE)
            y = 14 + tri(s * 31 + t * (2 + s % 3), FB_H - SPRITE - 16)
            self.blit(fb, x, y, self.sheet, 0, 2 * SPRITE, SPRITE, SPRITE)
        ty = 60 + tri(t, 8)
        for g in range(4):
            self.glyph(fb, GLYPH_SGPU[g], 84 + 40 * g + 3, ty + 3, 6, rgb(10, 10, 30))
            self.glyph(fb, GLYPH_SGPU[g], 84 + 40 * g, ty, 6, rgb(250, 250, 250))
        # ticker: whole for t < 2, else scrolled 8 pixels left from picture t-2
        tick = [0xF800, 0x07E0, 0x001F, 0xFFE0]
        if t >= 2:
            self.blit(fb, 0, 0, fb, 16, PITCH, FB_W - 8, 12)
        for x in range(0 if t < 2 else FB_W - 8, FB_W, 4):
            self.rect(fb, x, 0, 4, 12, tick[(x + 4 * t) // 16 % 4] if (x + 4 * t) % 16 < 12 else 0)
        self.rect(fb, 270, 218, 46, 20, 0)
        for k, ch in enumerate("%03d" % (t % 1000)):
            self.glyph(fb, GLYPH_DIGIT[int(ch)], 274 + 14 * k, 221, 3, rgb(120, 255, 120))
        return fb


def check_demo(out_dir, n):
    scene, want = Scene(), []
    for t in range(n):
        fb = scene.draw(t)
        want.append(scanout(fb, 0, PITCH, FB_W, FB_H, RGB565, 2, 2))
    errors = []
    for t in range(n):
        path = "%s/frame_%03d.png" % (out_dir, t)
        try:
            w, h, px = read_png(path)
        except (OSError, ValueError, zlib.error) as ex:
            errors.append("%s: %s" % (path, ex))
            continue
        e = diff(px, want[t], 640, 480, path) if (w, h) == (640, 480) else "%s: %dx%d, not 640x480" % (path, w, h)
        print(e or "%s: 640x480, every pixel as the scene places it (crc32 %08x)" % (path, zlib.crc32(px)))
        if e:
            errors.append(e)
    # The animated PNG holds each picture at 320x240 (every second pixel).
    path = "%s/demo.png" % out_dir
    try:
        w, h, frames = read_apng(path)
    except (OSError, ValueError, zlib.error) as ex:
        w, h, frames = 0, 0, []
        errors.append("%s: %s" % (path, ex))
    if not frames:
        pass
    elif (w, h, len(frames)) != (FB_W, FB_H, n):
        errors.append("%s: %dx%d with %d frames, expected 320x240 with %d" % (path, w, h, len(frames), n))
    else:
        for t in range(n):
            small = b"".join(want[t][(2 * y) * 1920:(2 * y) * 1920 + 1920][i:i + 3]
                             for y in range(FB_H) for i in range(0, 1920, 6))
            e = diff(frames[t], small, FB_W, FB_H, "%s frame %d" % (path, t))
            if e:
                errors.append(e)
        if not errors:
            print("%s: %d frames of 320x240, each the scene's picture" % (path, n))
    for e in errors:
        print("MISMATCH " + e)
    return 1 if errors else 0


def _filter(line, prev, f, bpp):
    """PNG filter f of one scanline (the encoder side, for the self-test)."""
    out = bytearray(len(line))
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        c = prev[x - bpp] if x >= bpp else 0
        pred = [0, a, prev[x], (a + prev[x]) >> 1, _paeth(a, prev[x], c)][f]
        out[x] = (line[x] - pred) & 255
    return bytes(out)


def selftest():
    """The decoder inverts every filter type (random rows, each filter in turn)."""
    import random
    r = random.Random(1)
    w, h = 37, 25
    img = [bytes(r.randrange(256) if r.random() < 0.5 else 7 for _ in range(3 * w)) for _ in range(h)]
    prev, raw = bytes(3 * w), b""
    for y, line in enumerate(img):
        raw += bytes([y % 5]) + _filter(line, prev, y % 5, 3)
        prev = line
    got = unfilter(raw, w, h, 3)
    if got != b"".join(img):
        print("MISMATCH PNG unfilter self-test")
        return 1
    print("PNG unfilter self-test: filters 0..4 decode")
    return 0


def main(argv):
    if argv == ["selftest"]:
        return selftest()
    if len(argv) == 3 and argv[0] == "demo":
        return check_demo(argv[1], int(argv[2]))
    if len(argv) == 2 and argv[0] == "png":
        w, h, px = read_png(argv[1])
        print("%dx%d %08x" % (w, h, zlib.crc32(px)))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
