#!/usr/bin/env python3
"""Clients for tests/link/test_link_hostile.sh, against sgpu-sim --listen.

  hostile_client.py PORT silent SECONDS      connect, send nothing
  hostile_client.py PORT half SECONDS        a request's first 5 bytes, then nothing
  hostile_client.py PORT flood BYTES         BYTES zero bytes as fast as TCP takes them
  hostile_client.py PORT pinger SECONDS MS   a proper client: a PING every MS ms

Each prints one line "RESULT key=value ..." and exits 0 (the test judges);
the connection is made before the first line "connected" is printed.
"""
import socket
import struct
import sys
import time

SYNC = 0xA5
PING = 0x03
ACK, NAK = 0x81, 0x82


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


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    s = socket.create_connection(("127.0.0.1", port))
    print("connected", flush=True)
    t0 = time.monotonic()
    if mode in ("silent", "half"):
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
