/* fuzz_link_client.c — libFuzzer target: the host link client (host/src/
 * link.c) against a device whose every answer the input controls.
 *
 * The device is tests/host/link_fake_dev.h (a correct device: memory,
 * registers, DUPLICATE for repeated WRITEs) behind an in-memory channel on a
 * virtual clock: a wait with nothing to receive moves the clock by the
 * wait, so time-outs and the give-up cost nothing.  The input is
 *   byte 0          [3:0] number of client operations (0..15); [4] the
 *                   channel hands answers over whole (whole_answers, as
 *                   tcp: does: a broken answer is repeated with no gap);
 *                   [5] the device speaks link version 3 (a receive FIFO:
 *                   the client pipelines its writes; OUT_OF_ORDER NAKs)
 *   8 bytes each    the operations: register read/write, memory read/write
 *                   (any alignment, up to 2 KiB), wait for an interrupt,
 *                   interrupt line, frame capture (display registers from
 *                   the input), time
 *   the rest        the device's script: for each frame the host sends, its
 *                   fate (answered intact, a bit flipped, truncated,
 *                   dropped, NAKed, wrong kind or length, sent twice,
 *                   preceded by noise, by input bytes, by ACKs with forged
 *                   SEQs or by EVENTs, not executed at all, the channel
 *                   failing); when the host waits with nothing queued,
 *                   spontaneous EVENTs, noise or silence; how the bytes are
 *                   cut into reads.  Once the script runs out the device
 *                   answers intact.
 * Properties:
 *   - every operation returns 0 or SGPU_ERROR_IO (INVALID_SOURCE for a
 *     capture of a source that does not exist; ADDRESS_REFUSED when the
 *     host received during it a validly framed NAK BAD_ADDR: the device
 *     refuses none of these addresses, so only a lying NAK, which the
 *     client takes as final); once the link is dead,
 *     every later access fails at once without sending;
 *   - each operation ends within a bounded virtual time (its frames times
 *     the per-frame limit);
 *   - what a successful read returns is what the device holds, and what a
 *     successful write wrote is in the device, once, unless the bytes the
 *     host received during the operation hold a validly framed ACK for one
 *     of its SEQs that is not the device's answer, or an OUT_OF_ORDER NAK
 *     the device did not send (a forged CRC: only the input's raw bytes or
 *     data the input wrote earlier can carry one);
 *   - no crash, leak or undefined behaviour (ASan/UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/src/link.h"
#include "../host/link_fake_dev.h"
#include "fuzz_util.h"

#define NS_PER_MS 1000000ull
#define LOG_CAP (1u << 20)        /* bytes the host received, for the forgery scan */
#define FRAME_LIMIT_NS (2200ull * NS_PER_MS) /* one frame: 3 tries (375+750+750 ms) + slack */

typedef struct fchan {
  fake_dev *dev;
  fz *script;
  uint64_t now;          /* virtual clock, ns */
  int gone;              /* the channel failed */
  int dead_seen;         /* the link reported IO (not a capture refusal) */
  /* bytes queued to the host; a quiet mark makes the next recv return 0 */
  uint8_t *q;
  size_t q_n, q_off, q_cap;
  size_t quiet_at[64];
  size_t n_quiet, quiet_off;
  /* log of the bytes the host received since op_log_start */
  uint8_t *log;
  size_t log_n;
  int log_full;
  /* this operation's SEQs and the device's answer to each */
  uint8_t legit[256][SGPU_LINK_MAX_RSP_FRAME], legit0[256][SGPU_LINK_MAX_RSP_FRAME];
  size_t legit_n[256], legit0_n[256];
  int op_seq_seen[256];
  uint8_t ooo_sent[256 * 256 / 8]; /* this operation's OUT_OF_ORDER NAKs: bit SEQ * 256 + L */
  unsigned op_sends, op_new_seqs;
  int have_last_seq;
  uint8_t last_seq;
} fchan;

static void push(fchan *c, const uint8_t *p, size_t n) {
  if (c->q_n + n > c->q_cap) {
    size_t cap = c->q_cap ? c->q_cap : 4096;
    while (cap < c->q_n + n) cap *= 2;
    c->q = realloc(c->q, cap);
    FZ_CHECK(c->q != NULL, "out of memory");
    c->q_cap = cap;
  }
  memcpy(c->q + c->q_n, p, n);
  c->q_n += n;
}

static void quiet(fchan *c) {
  if (c->n_quiet < sizeof c->quiet_at / sizeof c->quiet_at[0]) c->quiet_at[c->n_quiet++] = c->q_n;
}

static void push_events(fchan *c, unsigned k) {
  for (unsigned i = 0; i < k; i++) {
    uint8_t e[16];
    size_t n = fake_event(c->dev, e, sizeof e);
    push(c, e, n);
  }
}

static void push_script_bytes(fchan *c, size_t n) {
  for (size_t i = 0; i < n && c->script->n; i++) {
    uint8_t b = fz_u8(c->script);
    push(c, &b, 1);
  }
}

static int ch_send(void *ctx, const uint8_t *data, size_t len, char *why, size_t why_size) {
  fchan *c = ctx;
  c->now += 50000; /* 50 us per frame on the wire */
  if (c->gone) {
    snprintf(why, why_size, "fuzz channel: gone");
    return -1;
  }
  c->op_sends++;
  uint8_t fate = fz_u8(c->script) % 16;
  size_t off = 0;
  while (off < len) {
    uint8_t ans[SGPU_LINK_MAX_RSP_FRAME];
    size_t used = 0, n = 0;
    fake_req rq;
    if (fate == 13) c->dev->lose_next = 1; /* lost on the way: not executed, no answer */
    int got = fake_feed(c->dev, data + off, len - off, &used, ans, sizeof ans, &n, &rq);
    off += used;
    c->dev->lose_next = 0;
    if (!got) break;
    if (!c->have_last_seq || rq.seq != c->last_seq) c->op_new_seqs++;
    c->have_last_seq = 1;
    c->last_seq = rq.seq;
    if (n == 0) continue; /* lost */
    if (rq.nak == SGPU_LINK_NAK_OUT_OF_ORDER) {
      unsigned bit = rq.seq * 256u + c->dev->last_seq;
      c->ooo_sent[bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
    if (!rq.nak) { /* the device's answers to this SEQ in this operation (first and last) */
      if (!c->op_seq_seen[rq.seq]) {
        memcpy(c->legit0[rq.seq], ans, n);
        c->legit0_n[rq.seq] = n;
      }
      memcpy(c->legit[rq.seq], ans, n);
      c->legit_n[rq.seq] = n;
      c->op_seq_seen[rq.seq] = 1;
    }
    switch (fate) {
      case 1: { /* a bit flipped: the CRC catches it */
        uint16_t bit = fz_u16(c->script) % (uint16_t)(8 * n);
        ans[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        push(c, ans, n);
        break;
      }
      case 2: /* truncated, then the line goes quiet */
        push(c, ans, 1 + fz_u8(c->script) % (n - 1));
        quiet(c);
        break;
      case 3: /* executed, answer lost */
        break;
      case 4: /* noise, then the answer */
        push_script_bytes(c, 1 + fz_u8(c->script) % 64);
        push(c, ans, n);
        break;
      case 5: { /* an ACK with another SEQ, then the answer */
        uint32_t junk[SGPU_LINK_MAX_WORDS];
        for (unsigned i = 0; i < SGPU_LINK_MAX_WORDS; i++) junk[i] = fz_u32(c->script) ^ 0x5A5A0000u;
        uint16_t cnt = rq.cmd == SGPU_LINK_CMD_READ ? rq.count : rq.cmd == SGPU_LINK_CMD_PING ? 1 : 0;
        uint8_t f[SGPU_LINK_MAX_RSP_FRAME];
        size_t k = fake_answer((uint8_t)(rq.seq + 1 + fz_u8(c->script) % 255), SGPU_LINK_KIND_ACK, 0,
                               junk, cnt, f, sizeof f);
        push(c, f, k);
        push(c, ans, n);
        break;
      }
      case 6: /* EVENTs, then the answer */
        push_events(c, fz_u8(c->script) % 32);
        push(c, ans, n);
        break;
      case 7: { /* a NAK (the device executed it all the same) */
        uint8_t f[16];
        size_t k = fake_answer(rq.seq, SGPU_LINK_KIND_NAK, (uint8_t)(1 + fz_u8(c->script) % 5), NULL, 0,
                               f, sizeof f);
        push(c, f, k);
        break;
      }
      case 8: { /* the right SEQ, the wrong kind or length */
        uint32_t junk[SGPU_LINK_MAX_WORDS] = {0};
        uint16_t right = rq.cmd == SGPU_LINK_CMD_READ ? rq.count : rq.cmd == SGPU_LINK_CMD_PING ? 1 : 0;
        uint8_t f[SGPU_LINK_MAX_RSP_FRAME];
        size_t k = (fz_u8(c->script) & 1)
                       ? fake_answer(rq.seq, SGPU_LINK_KIND_EVENT, 0, junk, 1, f, sizeof f)
                       : fake_answer(rq.seq, SGPU_LINK_KIND_ACK, 0, junk,
                                     (uint16_t)(right == SGPU_LINK_MAX_WORDS ? 0 : right + 1), f, sizeof f);
        push(c, f, k);
        break;
      }
      case 9: /* twice */
        push(c, ans, n);
        push(c, ans, n);
        break;
      case 10: /* input bytes (may hold anything), then the answer */
        push_script_bytes(c, fz_u8(c->script));
        push(c, ans, n);
        break;
      case 11: /* the answer after a quiet spell */
        quiet(c);
        push(c, ans, n);
        break;
      case 12: /* the channel fails */
        c->gone = 1;
        break;
      default:
        push(c, ans, n);
        break;
    }
  }
  return 0;
}

static void log_bytes(fchan *c, const uint8_t *p, size_t n) {
  if (c->log_n + n > LOG_CAP) {
    c->log_full = 1;
    return;
  }
  memcpy(c->log + c->log_n, p, n);
  c->log_n += n;
}

static long ch_recv(void *ctx, uint8_t *buf, size_t cap, int timeout_ms, char *why,
                    size_t why_size) {
  fchan *c = ctx;
  c->now += 10000;
  if (c->gone) {
    snprintf(why, why_size, "fuzz channel: gone");
    return -1;
  }
  if (c->quiet_off < c->n_quiet && c->quiet_at[c->quiet_off] <= c->q_off) { /* a quiet spell */
    c->quiet_off++;
    c->now += (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * NS_PER_MS;
    return 0;
  }
  if (c->q_off >= c->q_n) { /* nothing queued: the device's own doing */
    c->q_off = c->q_n = 0;
    c->n_quiet = c->quiet_off = 0;
    uint8_t act = fz_u8(c->script) % 8;
    if (act == 1)
      push_events(c, 1 + fz_u8(c->script) % 64);
    else if (act == 2)
      push_script_bytes(c, 1 + fz_u8(c->script) % 128);
    else if (act == 3 && fz_u8(c->script) == 0xA5)
      c->gone = 1;
    if (c->gone) {
      snprintf(why, why_size, "fuzz channel: gone");
      return -1;
    }
    if (c->q_off >= c->q_n) {
      c->now += (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * NS_PER_MS;
      return 0;
    }
  }
  size_t end = c->q_n;
  if (c->quiet_off < c->n_quiet && c->quiet_at[c->quiet_off] < end) end = c->quiet_at[c->quiet_off];
  size_t chunk = fz_u8(c->script);
  size_t n = end - c->q_off;
  if (chunk && chunk < n) n = chunk;
  if (n > cap) n = cap;
  memcpy(buf, c->q + c->q_off, n);
  log_bytes(c, buf, n);
  c->q_off += n;
  return (long)n;
}

static uint64_t ch_clock(void *ctx) { return ((fchan *)ctx)->now; }

static void op_begin(fchan *c) {
  c->log_n = 0;
  c->log_full = 0;
  c->op_sends = c->op_new_seqs = 0;
  memset(c->op_seq_seen, 0, sizeof c->op_seq_seen);
  memset(c->ooo_sent, 0, sizeof c->ooo_sent);
}

/* Did the host receive, during this operation, a validly framed ACK for one
 * of its SEQs that is not the device's answer, or an OUT_OF_ORDER NAK the
 * device did not send (its L retires or renumbers frames)? */
static int forgery_received(fchan *c) {
  if (c->log_full) return 1;
  for (size_t i = 0; i < c->log_n; i++) {
    if (c->log[i] != SGPU_LINK_SYNC) continue;
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    sgpu_link_frame f;
    size_t used = 0;
    int r = sgpu_link_decode(&d, c->log + i, c->log_n - i, &used, &f);
    if (r == SGPU_LINK_FRAME && f.kind == SGPU_LINK_KIND_NAK && f.info == SGPU_LINK_NAK_OUT_OF_ORDER) {
      unsigned bit = f.seq * 256u + (f.data[0] & 0xFFu);
      if ((f.data[0] >> 8) || !(c->ooo_sent[bit / 8] & (1u << (bit % 8)))) return 1;
      continue;
    }
    if (r != SGPU_LINK_FRAME || f.kind != SGPU_LINK_KIND_ACK) continue;
    uint8_t b[SGPU_LINK_MAX_RSP_FRAME];
    int n = sgpu_link_encode_answer(&f, b, sizeof b);
    if (n <= 0) continue;
    if (!c->op_seq_seen[f.seq]) return 1;
    int is_last = c->legit_n[f.seq] == (size_t)n && !memcmp(b, c->legit[f.seq], (size_t)n);
    int is_first = c->legit0_n[f.seq] == (size_t)n && !memcmp(b, c->legit0[f.seq], (size_t)n);
    if (!is_last && !is_first) return 1;
  }
  return 0;
}

/* Did the host receive, during this operation, a validly framed NAK
 * BAD_ADDR (the device's are all lies: every address here is inside it)? */
static int bad_addr_received(fchan *c) {
  if (c->log_full) return 1;
  for (size_t i = 0; i < c->log_n; i++) {
    if (c->log[i] != SGPU_LINK_SYNC) continue;
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    sgpu_link_frame f;
    size_t used = 0;
    if (sgpu_link_decode(&d, c->log + i, c->log_n - i, &used, &f) == SGPU_LINK_FRAME &&
        f.kind == SGPU_LINK_KIND_NAK && f.info == SGPU_LINK_NAK_BAD_ADDR)
      return 1;
  }
  return 0;
}

static void check_rc(fchan *c, int r, const char *what) {
  FZ_CHECK(r == 0 || r == SGPU_ERROR_IO || (r == SGPU_ERROR_ADDRESS_REFUSED && bad_addr_received(c)),
           "%s returned %d", what, r);
  if (c->dead_seen) FZ_CHECK(r == SGPU_ERROR_IO && c->op_sends == 0, "%s after the link died: %d, %u sends", what, r, c->op_sends);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz in = {data, size};
  uint8_t b0 = fz_u8(&in);
  unsigned nops = b0 % 16;
  uint8_t ops[16][8];
  memset(ops, 0, sizeof ops);
  for (unsigned i = 0; i < nops; i++)
    for (unsigned k = 0; k < 8; k++) ops[i][k] = fz_u8(&in);
  fz script = in;

  fchan *c = calloc(1, sizeof *c);
  FZ_CHECK(c != NULL, "out of memory");
  c->dev = malloc(sizeof *c->dev);
  c->log = malloc(LOG_CAP);
  FZ_CHECK(c->dev && c->log, "out of memory");
  fake_init(c->dev, 0x1234u);
  if ((b0 >> 5) & 1) c->dev->version = 3;
  c->script = &script;
  c->now = 1000 * NS_PER_MS;

  sgpu_link_chan ch = {c, ch_send, ch_recv, NULL};
  sgpu_link_options lo;
  memset(&lo, 0, sizeof lo);
  lo.clock_ns = ch_clock;
  lo.clock_ctx = c;
  lo.whole_answers = (b0 >> 4) & 1; /* as on tcp: no gap after a broken answer */
  sgpu_transport *tr = NULL;
  char msg[256];
  op_begin(c);
  uint64_t t0 = c->now;
  int r = sgpu_link_open("fuzz", &ch, &lo, &tr, msg, sizeof msg);
  FZ_CHECK(r == 0 || r == SGPU_ERROR_IO || r == SGPU_ERROR_NO_DEVICE, "open returned %d", r);
  FZ_CHECK(c->now - t0 <= (uint64_t)(c->op_new_seqs + 1) * FRAME_LIMIT_NS, "open took %llu ms",
           (unsigned long long)((c->now - t0) / NS_PER_MS));
  if (r) goto done;

  uint8_t *buf = malloc(2048 + 8), *want = malloc(2048 + 8);
  FZ_CHECK(buf && want, "out of memory");
  for (unsigned i = 0; i < nops; i++) {
    const uint8_t *o = ops[i];
    uint32_t arg = (uint32_t)o[1] | (uint32_t)o[2] << 8 | (uint32_t)o[3] << 16;
    uint32_t val = (uint32_t)o[4] | (uint32_t)o[5] << 8 | (uint32_t)o[6] << 16 | (uint32_t)o[7] << 24;
    op_begin(c);
    t0 = c->now;
    const char *what = "";
    switch (o[0] % 8) {
      case 0: { /* register read */
        uint32_t off = arg & 0xFFCu, v = 0xFFFFFFFFu;
        what = "reg_read";
        r = tr->ops->reg_read(tr, off, &v);
        check_rc(c, r, what);
        if (r == 0 && v != fake_read_word(c->dev, SGPU_REG_SPACE | off))
          FZ_CHECK(forgery_received(c), "register 0x%03x read 0x%08x, the device holds 0x%08x", off,
                   v, fake_read_word(c->dev, SGPU_REG_SPACE | off));
        break;
      }
      case 1: { /* register write */
        uint32_t off = arg & 0xFFCu;
        uint64_t applied = c->dev->writes_applied;
        what = "reg_write";
        r = tr->ops->reg_write(tr, off, val);
        check_rc(c, r, what);
        if (c->dev->writes_applied - applied > 1)
          FZ_CHECK(forgery_received(c), "one register write applied %llu times",
                   (unsigned long long)(c->dev->writes_applied - applied));
        if (r == 0 && c->dev->writes_applied == applied)
          FZ_CHECK(forgery_received(c), "a register write acknowledged but never applied");
        break;
      }
      case 2: { /* memory read */
        uint32_t addr = arg % FAKE_MEM_BYTES, n = 1 + (val % 2048);
        if (addr + n > FAKE_MEM_BYTES) n = FAKE_MEM_BYTES - addr;
        memset(buf, 0xEE, 2048 + 8);
        what = "mem_read";
        r = tr->ops->mem_read(tr, addr, buf, n);
        check_rc(c, r, what);
        FZ_CHECK(buf[n] == 0xEE, "read past the end of the caller's buffer");
        if (r == 0) {
          for (uint32_t k = 0; k < n; k++) {
            uint32_t a = addr + k, w = c->dev->mem[a / 4];
            if (buf[k] != (uint8_t)(w >> (8 * (a & 3)))) {
              FZ_CHECK(forgery_received(c), "memory 0x%x+%u: byte %u reads 0x%02x, device 0x%02x", addr,
                       n, k, buf[k], (uint8_t)(w >> (8 * (a & 3))));
              break;
            }
          }
        }
        break;
      }
      case 3: { /* memory write of input bytes */
        uint32_t addr = arg % FAKE_MEM_BYTES, n = 1 + (val % 2048);
        if (addr + n > FAKE_MEM_BYTES) n = FAKE_MEM_BYTES - addr;
        for (uint32_t k = 0; k < n; k++) want[k] = (uint8_t)(k * 7 + val) ^ fz_u8(&script);
        what = "mem_write";
        r = tr->ops->mem_write(tr, addr, want, n);
        check_rc(c, r, what);
        if (r == 0) {
          for (uint32_t k = 0; k < n; k++) {
            uint32_t a = addr + k, w = c->dev->mem[a / 4];
            if (want[k] != (uint8_t)(w >> (8 * (a & 3)))) {
              FZ_CHECK(forgery_received(c), "memory 0x%x+%u: byte %u written 0x%02x, device 0x%02x",
                       addr, n, k, want[k], (uint8_t)(w >> (8 * (a & 3))));
              break;
            }
          }
        }
        break;
      }
      case 4: /* wait for an interrupt */
        what = "run";
        r = tr->ops->run(tr, 1 + (val % (SGPU_NOMINAL_CLOCK_HZ / 2)), o[1] & 1);
        FZ_CHECK(r == 0 || r == SGPU_ERROR_IO, "run returned %d", r);
        break;
      case 5: /* interrupt line */
        r = tr->ops->irq(tr);
        FZ_CHECK(r == 0 || r == 1, "irq returned %d", r);
        r = 0;
        break;
      case 6: { /* frame capture with display registers from the input */
        uint32_t src = o[1] % (SGPU_MAX_SOURCES + 1);
        if (src < SGPU_MAX_SOURCES) {
          c->dev->reg[SGPU_SOURCE_REG(src, SGPU_SREG_DISP_CONTROL) / 4] = o[2];
          /* small timings are captured (rows over the link); one side past
           * 4095 must be refused */
          c->dev->reg[SGPU_SOURCE_REG(src, SGPU_SREG_DISP_TIMING) / 4] =
              (o[1] & 0x80) ? val | ((o[1] & 0x40) ? 0x10000000u : 0x1000u) : (val & 0x003F003Fu);
          c->dev->reg[SGPU_SOURCE_REG(src, SGPU_SREG_DISP_BASE) / 4] = (uint32_t)o[3] << 8;
          c->dev->reg[SGPU_SOURCE_REG(src, SGPU_SREG_DISP_PITCH) / 4] = (uint32_t)o[4] << 2;
        }
        uint64_t sends = c->op_sends;
        r = tr->ops->run_until_frame(tr, src, 1000);
        if ((o[1] & 0x80) && src < SGPU_MAX_SOURCES && !c->dead_seen && !c->gone)
          FZ_CHECK(r == SGPU_ERROR_IO || (r == SGPU_ERROR_ADDRESS_REFUSED && bad_addr_received(c)),
                   "a capture of a %s timing returned %d",
                   (o[1] & 0x40) ? "4096-line" : "4096-pixel", r);
        (void)sends;
        FZ_CHECK(r == 0 || r == SGPU_ERROR_IO || (r == SGPU_ERROR_INVALID_SOURCE && src >= SGPU_MAX_SOURCES) ||
                     (r == SGPU_ERROR_ADDRESS_REFUSED && bad_addr_received(c)),
                 "run_until_frame(%u) returned %d", src, r);
        sgpu_tr_frame f;
        memset(&f, 0, sizeof f);
        int fr = tr->ops->frame(tr, src, &f);
        FZ_CHECK(fr == 0 || (fr == SGPU_ERROR_INVALID_SOURCE && src >= SGPU_MAX_SOURCES), "frame %d", fr);
        if (fr == 0 && f.rgb) {
          FZ_CHECK(f.width >= 1 && f.width <= 2048 && f.height >= 1 && f.height <= 2048, "frame %ux%u",
                   f.width, f.height);
          volatile uint8_t last = f.rgb[(size_t)f.width * f.height * 3 - 1]; /* ASan: the whole frame */
          (void)last;
        }
        if (c->dead_seen) FZ_CHECK(c->op_sends == 0, "capture sent after the link died");
        /* a refused timing leaves the link alive: not a dead link */
        if (r == SGPU_ERROR_IO && c->gone) c->dead_seen = 1;
        r = 0;
        break;
      }
      default: { /* time moves forward */
        uint64_t a = tr->ops->now(tr), b = tr->ops->now(tr);
        FZ_CHECK(b >= a, "time went back");
        r = 0;
        break;
      }
    }
    FZ_CHECK(c->now - t0 <= (uint64_t)(c->op_new_seqs + 1) * FRAME_LIMIT_NS,
             "op %u (%s) took %llu ms for %u frames", i, what,
             (unsigned long long)((c->now - t0) / NS_PER_MS), c->op_new_seqs);
    if (r == SGPU_ERROR_IO) c->dead_seen = 1;
  }
  free(buf);
  free(want);
  tr->ops->close(tr);
done:
  free(c->q);
  free(c->log);
  free(c->dev);
  free(c);
  return 0;
}
