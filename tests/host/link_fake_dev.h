/* link_fake_dev.h — a software device on the far end of the host link, for
 * tests that attack the library's link client (header only, no I/O, no
 * global state).
 *
 * It answers request frames as docs/link-protocol.md says a device does:
 * PING (info word, sets the remembered SEQ), READ (always executed), WRITE
 * (applied once: a repeat of the last executed SEQ is acknowledged
 * DUPLICATE and not applied again; BYTE_DISABLE and NO_INCR honoured), NAK
 * BAD_CRC / BAD_LENGTH / BAD_CMD / BAD_ADDR for frames it refuses (BAD_ADDR:
 * misaligned, or a word of the burst outside the mem_limit bytes of memory
 * its bridge takes or the register block, as the bridge's rule).  As a
 * version-3 device (version = 3) it reports a receive FIFO and applies a
 * WRITE only when its SEQ follows the last one, NAKing any other
 * OUT_OF_ORDER with its last SEQ; its callers feed it every frame they
 * receive, so nothing is lost to a full FIFO.  Behind
 * it: GPU memory and a register file that is just enough for sgpu_open()
 * (ID, VERSION, CAPS with one node and one source, MEM_SIZE, segments, w1c
 * INT_STATUS and CFG_ERROR, idle STATUS).  It counts what it applied, so a
 * test can tell a write lost from a write applied twice.
 *
 * What the host receives is the test's business: a hostile test mangles,
 * drops, delays or forges these answers, or sends things of its own.
 */
#ifndef LINK_FAKE_DEV_H
#define LINK_FAKE_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../host/src/link_frame.h"
#include "sgpu_hw.h"

#define FAKE_MEM_BYTES (128u * 1024u)
#define FAKE_REGS 1024u /* words of register space (offsets 0..0xFFF) */

typedef struct fake_dev {
  uint32_t mem[FAKE_MEM_BYTES / 4];
  uint32_t reg[FAKE_REGS];
  int have_last;
  uint8_t last_seq;        /* SEQ of the last executed frame */
  uint8_t evt_seq;         /* next EVENT's counter */
  uint64_t frames_executed, writes_applied, writes_duplicate, naks;
  uint64_t scratch_writes; /* WRITEs applied to SCRATCH: the test's doorbell */
  uint64_t scratch_skips;  /* of them, values not the one before + 1 (a test writes 1, 2, 3...) */
  uint32_t version;        /* link version it speaks: 2 (one frame) or 3 (a receive FIFO) */
  uint32_t mem_limit;      /* bytes of memory its bridge takes (FAKE_MEM_BYTES; a test may lower
                              it below what MEM_SIZE says) */
  uint32_t fifo_units;     /* version 3: its FIFO in SGPU_LINK_RX_FIFO_UNIT bytes */
  uint64_t out_of_order;   /* NAKs OUT_OF_ORDER sent */
  /* memory WRITE frames applied below the end of the one before (an upload
   * runs upwards, so any is a write out of order), and per word the times
   * it was written */
  uint64_t mem_order_breaks;
  uint32_t mem_last_end;
  uint8_t mem_applied[FAKE_MEM_BYTES / 4];
  int lose_next;           /* the next complete frame is lost: neither executed nor answered */
  /* request parser */
  uint8_t rx[SGPU_LINK_MAX_REQ_FRAME];
  size_t rx_n;
} fake_dev;

/* A request the device executed or refused (for the test's bookkeeping). */
typedef struct fake_req {
  uint8_t seq, cmd, flags, nak; /* nak: NAK reason sent, 0 = executed */
  uint16_t count;
  uint32_t address;
  int duplicate;                /* a WRITE acknowledged DUPLICATE */
} fake_req;

static inline void fake_init(fake_dev *d, uint32_t seed) {
  memset(d, 0, sizeof *d);
  d->version = 2;
  d->mem_limit = FAKE_MEM_BYTES;
  d->fifo_units = SGPU_LINK_RX_FIFO_BYTES / SGPU_LINK_RX_FIFO_UNIT;
  for (uint32_t i = 0; i < FAKE_MEM_BYTES / 4; i++) /* a pattern the host never wrote */
    d->mem[i] = (i * 0x9E3779B1u) ^ seed;
  memset(d->mem + SGPU_IDENTITY_ADDR / 4, 0, SGPU_IDENTITY_BYTES); /* no boot firmware */
  d->reg[SGPU_REG_ID / 4] = SGPU_HW_MAGIC;
  d->reg[SGPU_REG_VERSION / 4] =
      (uint32_t)SGPU_HW_VERSION_MAJOR << SGPU_VERSION_MAJOR_SHIFT | SGPU_HW_VERSION_MINOR;
  d->reg[SGPU_REG_CAPS / 4] = 1u << SGPU_CAPS_NODES_SHIFT | 1u << SGPU_CAPS_SOURCES_SHIFT;
  d->reg[SGPU_REG_MEM_SIZE / 4] = FAKE_MEM_BYTES;
  d->reg[SGPU_REG_SEG1_BASE / 4] = 0;
  d->reg[SGPU_REG_SEG1_SIZE / 4] = FAKE_MEM_BYTES / 2;
  d->reg[SGPU_REG_SEG2_BASE / 4] = FAKE_MEM_BYTES / 2;
  d->reg[SGPU_REG_SEG2_SIZE / 4] = FAKE_MEM_BYTES / 2 - 4096; /* the identity block stays out */
}

static inline uint32_t fake_read_word(fake_dev *d, uint32_t a) {
  if (a & SGPU_REG_SPACE) {
    uint32_t off = a & 0xFFFu;
    return d->reg[off / 4];
  }
  return a < FAKE_MEM_BYTES ? d->mem[a / 4] : 0;
}

static inline void fake_write_word(fake_dev *d, uint32_t a, uint32_t v, uint32_t keep_mask) {
  if (a & SGPU_REG_SPACE) {
    uint32_t off = a & 0xFFFu, *r = &d->reg[off / 4], prev = *r;
    v &= ~keep_mask;
    if (off == SGPU_REG_INT_STATUS || off == SGPU_REG_CFG_ERROR)
      *r &= ~v; /* write 1 to clear */
    else if (off == SGPU_REG_ID || off == SGPU_REG_VERSION || off == SGPU_REG_CAPS ||
             off == SGPU_REG_MEM_SIZE || (off >= SGPU_REG_SEG1_BASE && off <= SGPU_REG_SEG2_SIZE))
      ; /* read-only */
    else
      *r = (*r & keep_mask) | v;
    if (off == SGPU_REG_SCRATCH) {
      if (d->scratch_writes++ && v != prev + 1) d->scratch_skips++;
    }
    return;
  }
  if (a < FAKE_MEM_BYTES) {
    d->mem[a / 4] = (d->mem[a / 4] & keep_mask) | (v & ~keep_mask);
    if (d->mem_applied[a / 4] < 255) d->mem_applied[a / 4]++;
  }
}

/* Encode an answer; returns its length. */
static inline size_t fake_answer(uint8_t seq, uint8_t kind, uint8_t info, const uint32_t *data,
                                 uint16_t count, uint8_t *out, size_t cap) {
  sgpu_link_frame f;
  memset(&f, 0, sizeof f);
  f.seq = seq;
  f.kind = kind;
  f.info = info;
  f.count = count;
  if (count) memcpy(f.data, data, 4u * count);
  int n = sgpu_link_encode_answer(&f, out, cap);
  return n > 0 ? (size_t)n : 0;
}

/* An EVENT frame carrying INT_STATUS; the event counter advances. */
static inline size_t fake_event(fake_dev *d, uint8_t *out, size_t cap) {
  uint32_t st = d->reg[SGPU_REG_INT_STATUS / 4];
  return fake_answer(d->evt_seq++, SGPU_LINK_KIND_EVENT, 0, &st, 1, out, cap);
}

static inline uint16_t fake_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t fake_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The bridge's address rule: the burst's words (NO_INCR: one) inside
 * memory (bit 31 clear) or the register block (set). */
static inline int fake_out_of_range(const fake_dev *d, uint32_t addr, uint16_t count, uint8_t flags) {
  uint64_t span = (flags & SGPU_LINK_FLAG_NO_INCR_MASK) ? 4u : 4u * (uint64_t)count;
  uint64_t lim = (addr & SGPU_REG_SPACE) ? SGPU_REG_BLOCK_BYTES : d->mem_limit;
  return (uint64_t)(addr & ~SGPU_REG_SPACE) + span > lim;
}

/* Execute one complete request frame (CRC already checked); the correct
 * answer goes to out.  Returns its length. */
static inline size_t fake_execute(fake_dev *d, const uint8_t *fr, uint8_t *out, size_t cap,
                                  fake_req *rq) {
  uint8_t seq = fr[1], cmd = fr[2], flags = fr[3];
  uint16_t count = fake_le16(fr + 4);
  uint32_t addr = fake_le32(fr + 6);
  memset(rq, 0, sizeof *rq);
  rq->seq = seq;
  rq->cmd = cmd;
  rq->flags = flags;
  rq->count = count;
  rq->address = addr;
  uint8_t nak = 0;
  if (cmd != SGPU_LINK_CMD_WRITE && cmd != SGPU_LINK_CMD_READ && cmd != SGPU_LINK_CMD_PING)
    nak = SGPU_LINK_NAK_BAD_CMD;
  else if (flags & SGPU_LINK_FLAGS_RESERVED_MASK)
    nak = SGPU_LINK_NAK_BAD_CMD;
  else if (cmd == SGPU_LINK_CMD_PING ? count != 0 : count == 0 || count > SGPU_LINK_MAX_WORDS)
    nak = SGPU_LINK_NAK_BAD_LENGTH;
  else if (cmd != SGPU_LINK_CMD_PING && ((addr & 3) || fake_out_of_range(d, addr, count, flags)))
    nak = SGPU_LINK_NAK_BAD_ADDR;
  if (nak) {
    d->naks++;
    rq->nak = nak;
    return fake_answer(seq, SGPU_LINK_KIND_NAK, nak, NULL, 0, out, cap);
  }
  uint32_t step = (flags & SGPU_LINK_FLAG_NO_INCR_MASK) ? 0 : 4;
  d->frames_executed++;
  if (cmd == SGPU_LINK_CMD_PING) {
    d->have_last = 1;
    d->last_seq = seq;
    uint32_t info = d->version | SGPU_LINK_MAX_WORDS << 8;
    if (d->version >= 3) info |= d->fifo_units << 16;
    return fake_answer(seq, SGPU_LINK_KIND_ACK, 0, &info, 1, out, cap);
  }
  if (cmd == SGPU_LINK_CMD_READ) {
    uint32_t w[SGPU_LINK_MAX_WORDS];
    for (uint32_t i = 0; i < count; i++) w[i] = fake_read_word(d, addr + i * step);
    d->have_last = 1;
    d->last_seq = seq;
    return fake_answer(seq, SGPU_LINK_KIND_ACK, 0, w, count, out, cap);
  }
  if (d->have_last && d->last_seq == seq) { /* a repeat: never applied twice */
    d->writes_duplicate++;
    rq->duplicate = 1;
    return fake_answer(seq, SGPU_LINK_KIND_ACK, SGPU_LINK_ACK_DUPLICATE, NULL, 0, out, cap);
  }
  if (d->version >= 3 && d->have_last && seq != (uint8_t)(d->last_seq + 1)) {
    /* a frame before it was lost: nothing applied, the host learns the last SEQ */
    uint32_t last = d->last_seq;
    d->out_of_order++;
    d->naks++;
    rq->nak = SGPU_LINK_NAK_OUT_OF_ORDER;
    return fake_answer(seq, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_OUT_OF_ORDER, &last, 1, out, cap);
  }
  uint32_t dis = (flags & SGPU_LINK_FLAG_BYTE_DISABLE_MASK) >> SGPU_LINK_FLAG_BYTE_DISABLE_SHIFT;
  uint32_t keep = 0;
  for (uint32_t b = 0; b < 4; b++)
    if (dis & (1u << b)) keep |= 0xFFu << (8 * b);
  if (!(addr & SGPU_REG_SPACE) && step) {
    if (addr < d->mem_last_end) d->mem_order_breaks++;
    d->mem_last_end = addr + 4u * count;
  }
  for (uint32_t i = 0; i < count; i++)
    fake_write_word(d, addr + i * step, fake_le32(fr + SGPU_LINK_REQ_HDR_BYTES + 4 * i), keep);
  d->writes_applied++;
  d->have_last = 1;
  d->last_seq = seq;
  return fake_answer(seq, SGPU_LINK_KIND_ACK, 0, NULL, 0, out, cap);
}

/* Feed host->device bytes.  Stops after the first complete frame: returns
 * 1 with its answer in out (*out_n bytes) and rq filled, 0 when every byte
 * was taken without completing one.  With lose_next set, the frame is
 * parsed (rq.seq, rq.cmd) but neither executed nor answered (*out_n 0).  *used is the number of bytes taken.
 * Bytes outside frames that are not SYNC are skipped; a header that is not
 * a request's is NAKed at once (BAD_CMD, BAD_LENGTH), a frame whose CRC
 * fails BAD_CRC. */
static inline int fake_feed(fake_dev *d, const uint8_t *in, size_t n, size_t *used, uint8_t *out,
                            size_t cap, size_t *out_n, fake_req *rq) {
  size_t i = 0;
  *out_n = 0;
  while (i < n) {
    uint8_t b = in[i++];
    if (d->rx_n == 0 && b != SGPU_LINK_SYNC) continue;
    d->rx[d->rx_n++] = b;
    if (d->rx_n < SGPU_LINK_REQ_HDR_BYTES) continue;
    uint8_t cmd = d->rx[2];
    uint16_t count = fake_le16(d->rx + 4);
    size_t words = cmd == SGPU_LINK_CMD_WRITE ? count : 0;
    if (d->rx_n == SGPU_LINK_REQ_HDR_BYTES) {
      /* As the bridge does: a header it cannot take (a damaged one, or a
       * data byte taken for SYNC) is NAKed at once and the rest hunted
       * through, so a false frame never swallows the host's repeats. */
      uint8_t nak = 0;
      if ((cmd != SGPU_LINK_CMD_WRITE && cmd != SGPU_LINK_CMD_READ && cmd != SGPU_LINK_CMD_PING) ||
          (d->rx[3] & SGPU_LINK_FLAGS_RESERVED_MASK))
        nak = SGPU_LINK_NAK_BAD_CMD;
      else if (cmd == SGPU_LINK_CMD_PING ? count != 0 : count == 0 || count > SGPU_LINK_MAX_WORDS)
        nak = SGPU_LINK_NAK_BAD_LENGTH;
      if (nak) {
        d->rx_n = 0;
        *used = i;
        memset(rq, 0, sizeof *rq);
        rq->seq = d->rx[1];
        rq->cmd = cmd;
        rq->nak = nak;
        d->naks++;
        *out_n = fake_answer(rq->seq, SGPU_LINK_KIND_NAK, nak, NULL, 0, out, cap);
        return 1;
      }
    }
    size_t need = SGPU_LINK_REQ_HDR_BYTES + 4 * words + SGPU_LINK_CRC_BYTES;
    if (d->rx_n < need) continue;
    d->rx_n = 0;
    *used = i;
    if (sgpu_link_crc32(SGPU_LINK_CRC_INIT, d->rx + 1, need - 1) != 0) {
      memset(rq, 0, sizeof *rq);
      rq->seq = d->rx[1];
      rq->nak = SGPU_LINK_NAK_BAD_CRC;
      d->naks++;
      *out_n = fake_answer(d->rx[1], SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_BAD_CRC, NULL, 0, out, cap);
      return 1;
    }
    if (d->lose_next) {
      d->lose_next = 0;
      memset(rq, 0, sizeof *rq);
      rq->seq = d->rx[1];
      rq->cmd = d->rx[2];
      return 1;
    }
    *out_n = fake_execute(d, d->rx, out, cap, rq);
    return 1;
  }
  *used = i;
  return 0;
}

#endif
