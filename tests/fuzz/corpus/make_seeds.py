#!/usr/bin/env python3
"""Write the hand-made seed inputs of the fuzz targets (tests/fuzz/corpus/<target>/).

Each seed follows the input layout its harness documents (tests/fuzz/fuzz_<target>.c).
Run from anywhere: python3 tests/fuzz/corpus/make_seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def hdr(op, count, flags=0):
    return (3 << 30) | (count << 16) | (flags << 8) | op


NOP, INDIRECT, FENCE, WRITE_DATA, WAIT_MEM, WAIT_VSYNC, WAIT_SCANLINE, FILL, COPY, FLIP, CONTEXT, TIMESTAMP = range(12)

WORDS = {
    "fence_timestamp": [hdr(FENCE, 2), 0x2000, 5, hdr(TIMESTAMP, 1), 0x2100],
    "write_fill": [hdr(WRITE_DATA, 3), 0x3000, 0xDEADBEEF, 42, hdr(FILL, 5), 0x4000, 64, 64, 4, 0x11223344],
    "copy_wait": [hdr(COPY, 6), 0x5000, 64, 0x4000, 64, 64, 4, hdr(WAIT_MEM, 3, 0), 0x3000, 0xFFFFFFFF, 0xDEADBEEF],
    "nop_pad": [hdr(NOP, 2), 1, 2, hdr(NOP, 0)],
    "flip": [hdr(FLIP, 3), 0, 0x40000, 1],
    "context_bad": [hdr(CONTEXT, 3), 1, 0, 0x1000],
}

ASM = {
    "hello": "  write_data 0x1000, 0xdeadbeef, 42     ; two words\n"
             "  fill 0x2000, 64, 64, 4, 0x11223344\n  timestamp 0x3000\n",
    "labels": ".equ N, 4\n.org 0x100\nstart:\n  indirect start, N*4, fence=7, skip\n"
              "  fence end, 5, irq\nend: .word 0xc0000000, 1, 2\n",
    "named": "wait_mem 0x200, mask=0xff, ref=3, func=geq_wrap\nflip 0, FB0, interval=immediate, nowait\n"
             "copy dst=FB0, dst_pitch=640, src=FB1, src_pitch=640, width_bytes=64, height=2\n",
    "misc": "nop\nnop 1, 2\nwait_vsync 1\nwait_scanline 0, 10, 20\ncontext 3, 0x10000, 0x20000\n"
            "# hash comment\n  .set X, (1 << 4) | 0x3 ^ ~0 & 0xff\n.word X, -5, 0b101 % 3\n",
    "error": "fill 0x2000, 64\n",
    # nesting at and past the assembler's limit (SGPU_ASM_MAX_NESTING = 64):
    # parentheses, unary chains, mixed; the mutator grows these further
    "deep": "fence 0, " + "(" * 64 + "1" + ")" * 64 + "\n"
            "nop " + "(" * 70 + "2" + ")" * 70 + "\n"
            ".word " + "-~" * 40 + "3\n"
            ".equ D, " + "((-" * 30 + "4" + "))" * 30 + "\n",
}


def put(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def le_words(ws):
    return b"".join(struct.pack("<I", w) for w in ws)


def crc(b):
    """CRC-32/MPEG-2 (docs/link-protocol.md): polynomial 0x04C11DB7, init
    0xFFFFFFFF, MSB first, no reflection, no final xor."""
    c = 0xFFFFFFFF
    for x in bytes(b):
        c ^= x << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if c & 0x80000000 else (c << 1) & 0xFFFFFFFF
    return c


assert crc(b"123456789") == 0x0376E6E7


def answer(seq, kind, info, data=()):
    b = bytes([0xA5, seq, kind, info]) + struct.pack("<H", len(data)) + le_words(data)
    return b + struct.pack(">I", crc(b[1:]))


def submit_seed(op, fields, words):
    b = bytes([op]) + bytes(fields)
    assert len(b) <= 96
    return b + bytes(96 - len(b)) + le_words(words)


def main():
    # fuzz_asm: header byte (base, symbols, API) + text
    for i, (name, text) in enumerate(ASM.items()):
        put("asm", name, bytes([0x10 | i]) + text.encode())
    # fuzz_disasm: header byte (flags, base) + words
    for i, (name, ws) in enumerate(WORDS.items()):
        put("disasm", name, bytes([i * 5 & 0x7F]) + le_words(ws))
    put("disasm", "garbage", bytes([0x83]) + le_words([0xFFFFFFFF, 0x12345678, hdr(FILL, 2), 0]))
    # fuzz_link: mode, gap_every, 8 chunk sizes, then the device->host stream
    stream = (answer(1, 0x81, 0, [0x4001]) + answer(3, 0x81, 0, [0x11223344, 0xA5A5A5A5])
              + answer(0, 0x83, 0, [1]) + answer(6, 0x82, 1) + answer(7, 0x81, 1))
    put("link", "frames", bytes([0, 0]) + bytes([0, 3, 7, 1, 11, 2, 5, 30]) + stream)
    put("link", "noise_gaps", bytes([0, 9]) + bytes(8) + b"\x00\x5a" + stream[:15] + stream)
    put("link", "requests", bytes([0xFF]) + bytes([1, 3, 0, 0, 0, 0, 0, 0, 0, 1])
        + bytes([2, 1, 0x15, 2, 0, 0x40, 0, 0, 0, 1]) + bytes([3, 2, 0x10, 64, 0, 8, 1, 0, 0x80, 1]))
    # fuzz_link_client: number of ops, 8 bytes per op (kind, 3-byte arg,
    # 4-byte value), then the device's script (see fuzz_link_client.c)
    def op(kind, arg, val):
        return bytes([kind]) + struct.pack("<I", arg)[:3] + struct.pack("<I", val)
    ops = (op(0, 0x000, 0) + op(1, 0x038, 0x5C5C0001) + op(2, 0x100, 299) + op(3, 0x1003, 99)
           + op(4, 0x01, 20000) + op(5, 0, 0) + op(6, 0x0100, 0x00100010) + op(7, 0, 0))
    put("link_client", "clean", bytes([8]) + ops)
    # every fate once, with its parameters, then idle actions (events, noise)
    script = bytes([1, 7, 0, 2, 5, 3, 4, 9, 1, 2, 3, 5, 40, 6, 3, 7, 2, 8, 1, 9, 10, 4, 0xA5, 1, 3,
                    0x81, 11, 12 + 4, 13, 0, 1, 5, 2, 9, 0xA5, 0x01, 0x81])
    put("link_client", "hostile", bytes([8]) + ops + script)
    put("link_client", "capture_refused", bytes([2]) + op(6, 0x0080, 0x00100010) + op(6, 0x00C0, 0x7)
        + bytes([6, 2, 6, 1]))
    put("link_client", "lost_then_gone", bytes([3]) + op(1, 0x038, 1) + op(3, 0x20, 600) + op(0, 0, 0)
        + bytes([13, 13, 3, 0, 12]))
    # fuzz_cli: op, hdr, file
    put("cli", "text_auto", bytes([0, 0x00]) + ASM["hello"].encode())
    put("cli", "binary_bin", bytes([0, 0x01]) + le_words(WORDS["write_fill"]))
    put("cli", "binary_detect", bytes([1, 0x02]) + le_words(WORDS["copy_wait"]))
    put("cli", "asm_cmd", bytes([2, 0x04]) + ASM["labels"].encode())
    put("cli", "disasm_cmd", bytes([2, 0x21]) + le_words(WORDS["fence_timestamp"]))
    put("cli", "number", bytes([3, 0]) + b"0x1000")
    put("cli", "deep", bytes([2, 0x04]) + ASM["deep"].encode())
    # fuzz_submit: op, then fields in the harness's order (see fuzz_submit.c)
    fence = WORDS["fence_timestamp"]
    nbytes = 4 * len(fence)
    # submit on context 0 from segment 1, 4 KiB buffer, range [0, nbytes)
    seg1 = [1, 1, 4, 0, 0, 2, 0x00, 0x10, 2, 0, 0, 2, nbytes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    put("submit", "seg1_fence", submit_seed(0, seg1, fence))
    # the same from host memory (segment 0), staged by the library
    seg0 = [1, 0, 4, 0, 0, 2, 0x00, 0x10, 2, 0, 0, 2, nbytes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    put("submit", "seg0_fence", submit_seed(0, seg0, fence))
    # paging with no context, with private data
    paging = [0, 2, 4, 0, 0, 2, 0x00, 0x10, 2, 0, 0, 2, nbytes, 0, 1, 16, 0, 8, 0, 0, 0, 1, 0, 0, 0]
    put("submit", "paging_private", submit_seed(0, paging, fence))
    # a flip on windowed context w0 (runs a simulated millisecond)
    flip = [3, 1, 4, 0, 0, 2, 0x00, 0x10, 2, 0, 0, 2, 16, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 1]
    put("submit", "flip_windowed", submit_seed(2, flip, WORDS["flip"]))
    # validate: commands at the segment-1 buffer, one context
    val = [4, 0, 0, 2, nbytes, 0, 0, 0, 1, 0, 0, 0]
    put("submit", "validate", submit_seed(1, val, fence))
    val2 = [4, 0, 0, 2, 40, 0, 1, 0, 0, 0, 0, 3, 1, 2, 3, 6, 0x11, 8, 4, 7]
    put("submit", "validate_multi", submit_seed(1, val2, WORDS["write_fill"]))


if __name__ == "__main__":
    main()
