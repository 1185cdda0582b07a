#!/usr/bin/env python3
"""Clients for tests/link/test_link_hostile.sh, against sgpu-sim --listen.

  hostile_client.py PORT silent SECONDS      connect, send nothing
  hostile_client.py PORT half SECONDS        a request's first 5 bytes, then nothing
  hostile_client.py PORT flood BYTES         BYTES zero bytes as fast as TCP takes them
  hostile_client.py PORT pinger SECONDS MS   a proper client: a PING every MS ms
  hostile_client.py PORT badaddr             frames addressed outside GPU memory and the
                                             register block (each must be NAKed BAD_ADDR),
                                             then reads back what they would have hit

Each prints one line "RESULT key=value ..." and exits 0 (the test judges);
the connection is made before the first line "connected" is printed.
"""
import socket
import struct
import sys
import time

SYNC = 0xA5
WRITE, READ, PING = 0x01, 0x02, 0x03
ACK, NAK, EVENT = 0x81, 0x82, 0x83
NAK_BAD_ADDR = 5
FLAG_NO_INCR = 0x10
REGS = 0x80000000
REG_ID, REG_MEM_SIZE, REG_SCRATCH = 0x000, 0x00C, 0x038


def crc32_mpeg2(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) if c & 0x80000000 else (c << 1)
            c &= 0xFFFFFFFF
    return c


def ping_frame(seq):
    body = bytes([seq, PING, 0]) + struct.pack("<HI", 0, 0)
    return bytes([SYNC]) + body + struct.pack(">I", crc32_mpeg2(body))


def frame(seq, cmd, flags, count, addr, words=()):
    body = bytes([seq, cmd, flags]) + struct.pack("<HI", count, addr & 0xFFFFFFFF)
    body += b"".join(struct.pack("<I", w) for w in words)
    return bytes([SYNC]) + body + struct.pack(">I", crc32_mpeg2(body))


class Link:
    """One request at a time, its answer (EVENT frames skipped)."""

    def __init__(self, s):
        self.s, self.buf, self.seq = s, b"", 0
        s.settimeout(10.0)

    def take(self, n):
        while len(self.buf) < n:
            d = self.s.recv(4096)
            if not d:
                raise OSError("closed")
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def answer(self):
        while True:
            while self.take(1)[0] != SYNC:
                pass
            seq, kind, info, count = struct.unpack("<BBBH", self.take(5))
            data = self.take(4 * count)
            crc = self.take(4)
            body = bytes([seq, kind, info]) + struct.pack("<H", count) + data
            if crc32_mpeg2(body + crc) != 0:
                raise OSError("answer with a bad CRC")
            if kind != EVENT:
                return seq, kind, info, list(struct.unpack("<%dI" % count, data))

    def request(self, cmd, addr, count=1, words=(), flags=0, seq=None):
        """Send with the next SEQ (or the one given); returns kind, info, words."""
        if seq is None:
            self.seq = (self.seq + 1) & 0xFF
            seq = self.seq
        self.s.sendall(frame(seq, cmd, flags, count, addr, words))
        aseq, kind, info, data = self.answer()
        if aseq != seq:
            raise OSError("answer for SEQ %d, sent %d" % (aseq, seq))
        return kind, info, data


IDENTITY_DONE_ADDR = 0x1FFC0 + 60   # the boot identity block's DONE word
IDENTITY_DONE = 0x454E4F44


def badaddr(s, wait_boot):
    """Frames outside memory / the register block: NAK BAD_ADDR each, and
    nothing they would have hit (aliased before: an address modulo the
    memory size, a register offset modulo 4 KiB) changed; the next WRITE
    with the next SEQ is executed (not a duplicate).  On a board, first wait
    for its boot firmware to finish (the DONE word of the identity block):
    it writes the words at the end of the iCEBreaker's memory that the
    markers below use."""
    ln = Link(s)
    ln.request(PING, 0, 0)
    if wait_boot:
        for _ in range(3000):  # a hang guard only: the boot takes ~52,000 cycles
            _, _, (done,) = ln.request(READ, IDENTITY_DONE_ADDR)
            if done == IDENTITY_DONE:
                break
            time.sleep(0.01)
        else:
            print("RESULT boot-not-done", flush=True)
            return
    _, _, (mem,) = ln.request(READ, REGS | REG_MEM_SIZE)
    _, _, (ident,) = ln.request(READ, REGS | REG_ID)
    # known values where the refused frames would land if they aliased
    ln.request(WRITE, 0, 4, [0x11110000 + i for i in range(4)])
    ln.request(WRITE, mem - 16, 4, [0x22220000 + i for i in range(4)])
    ln.request(WRITE, REGS | REG_SCRATCH, 1, [0x33330000])
    _, _, low0 = ln.request(READ, 0, 4)
    _, _, high0 = ln.request(READ, mem - 16, 4)
    bad = [  # (what, cmd, addr, count, flags)
        ("write at the memory size", WRITE, mem, 1, 0),
        ("write at twice the memory size", WRITE, 2 * mem, 1, 0),
        ("burst straddling the end", WRITE, mem - 8, 4, 0),
        ("full burst one word over", WRITE, mem - 252, 64, 0),
        ("NO_INCR burst past the end", WRITE, mem, 4, FLAG_NO_INCR),
        ("write at 0x7FFFFFFC", WRITE, 0x7FFFFFFC, 1, 0),
        ("register write past the block (SCRATCH + 4 KiB)", WRITE, REGS | 0x1000 | REG_SCRATCH, 1, 0),
        ("register burst straddling the block's end", WRITE, REGS | 0xFF8, 4, 0),
        ("read at 0xFFFFF000 (ID + 0x7FFFF000)", READ, 0xFFFFF000, 1, 0),
        ("read at the memory size", READ, mem, 1, 0),
        ("read straddling the end", READ, mem - 4, 2, 0),
    ]
    naks = 0
    for what, cmd, addr, count, flags in bad:
        words = [0xBAD00000 + i for i in range(count)] if cmd == WRITE else ()
        # the same SEQ each time: a refused WRITE is not executed, so the
        # next SEQ stays the one after the last executed
        kind, info, _ = ln.request(cmd, addr, count, words, flags, seq=(ln.seq + 1) & 0xFF)
        if kind == NAK and info == NAK_BAD_ADDR:
            naks += 1
        else:
            print("refused-not: %s: kind 0x%02x info %d" % (what, kind, info), flush=True)
    # in range at the ends: executed
    k1, _, edge = ln.request(READ, mem - 16, 4)
    k2, _, blk = ln.request(READ, REGS | 0xFFC, 1)
    k3, i3, _ = ln.request(WRITE, REGS | REG_SCRATCH, 1, [0x44440000])
    _, _, low1 = ln.request(READ, 0, 4)
    _, _, high1 = ln.request(READ, mem - 16, 4)
    _, _, (scratch,) = ln.request(READ, REGS | REG_SCRATCH)
    _, _, (ident1,) = ln.request(READ, REGS | REG_ID)
    unchanged = low1 == low0 and high1 == high0 and edge == high0
    print("RESULT mem=%d refused=%d of=%d unchanged=%s in_range=%s next_write=%s scratch=0x%08x id=0x%08x"
          % (mem, naks, len(bad), "yes" if unchanged else "no:%s/%s" % (low1, high1),
             "yes" if k1 == ACK and k2 == ACK else "no",
             "applied" if k3 == ACK and i3 == 0 and scratch == 0x44440000 else "k%x-i%d-%08x" % (k3, i3, scratch),
             scratch, ident1), flush=True)


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    s = socket.create_connection(("127.0.0.1", port))
    print("connected", flush=True)
    t0 = time.monotonic()
    if mode == "badaddr":
        badaddr(s, len(sys.argv) > 3 and sys.argv[3] == "boot")
    elif mode in ("silent", "half"):
        if mode == "half":
            s.sendall(ping_frame(1)[:5])
        s.settimeout(float(sys.argv[3]))
        closed = "no"
        try:
            while True:
                d = s.recv(4096)
                if not d:
                    closed = "yes"
                    break
        except socket.timeout:
            pass
        except OSError:
            closed = "yes"
        print("RESULT closed=%s after_ms=%.0f" % (closed, (time.monotonic() - t0) * 1000), flush=True)
    elif mode == "flood":
        total, sent = int(sys.argv[3]), 0
        chunk = bytes(65536)
        err = "none"
        try:
            while sent < total:
                n = s.send(chunk[: min(len(chunk), total - sent)])
                sent += n
        except OSError as e:
            err = type(e).__name__
        print("RESULT sent=%d error=%s after_ms=%.0f" % (sent, err, (time.monotonic() - t0) * 1000),
              flush=True)
    elif mode == "pinger":
        secs, ms = float(sys.argv[3]), float(sys.argv[4])
        acks = naks = lost = 0
        seq = 0
        buf = b""
        s.settimeout(1.0)
        while time.monotonic() - t0 < secs:
            seq = (seq + 1) & 0xFF
            s.sendall(ping_frame(seq))
            try:
                while len(buf) < 14:
                    d = s.recv(4096)
                    if not d:
                        raise OSError("closed")
                    buf += d
            except socket.timeout:
                lost += 1
                continue
            except OSError:
                lost += 1
                break
            i = buf.find(bytes([SYNC]))
            kind = buf[i + 2] if i >= 0 and len(buf) > i + 2 else 0
            acks += kind == ACK
            naks += kind == NAK
            buf = b""
            time.sleep(ms / 1000.0)
        print("RESULT acks=%d naks=%d lost=%d" % (acks, naks, lost), flush=True)
    s.close()


if __name__ == "__main__":
    main()
