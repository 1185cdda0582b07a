/* board_link.c — see board_link.h. */
#include "board_link.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/src/pixfmt.h" /* the library's RGB565/RGB332 -> RGB888 */

#define ANSWER_TIMEOUT 200000u /* system cycles (16 ms); a 64-word READ answer is ~11000 */

void bl_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s:%d: FAIL: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

void bl_figure(const char *name, double value) {
  printf("FIGURE %s %.6g\n", name, value);
  fflush(stdout);
}

void bl_init(board_link *l, board_sim *b) {
  memset(l, 0, sizeof *l);
  l->b = b;
  sgpu_link_decoder_init(&l->dec);
}

/* Feed received bytes to the decoder; returns 1 with *f when a non-EVENT
 * frame completed (EVENTs are stored), 0 when more bytes are needed. */
static int pump(board_link *l, sgpu_link_frame *f) {
  uint8_t buf[64];
  size_t n;
  static uint8_t held[4096];
  static size_t nheld;
  while ((n = board_sim_uart_recv(l->b, buf, sizeof buf)) > 0) {
    BL_CHECK(nheld + n <= sizeof held, "receive buffer overflow");
    memcpy(held + nheld, buf, n);
    nheld += n;
  }
  for (;;) {
    size_t used = 0;
    int r = sgpu_link_decode(&l->dec, held, nheld, &used, f);
    memmove(held, held + used, nheld - used);
    nheld -= used;
    if (r == SGPU_LINK_NEED_MORE) return 0;
    BL_CHECK(r == SGPU_LINK_FRAME, "device frame rejected by the decoder: %s", sgpu_link_strerror(r));
    if (f->kind == SGPU_LINK_KIND_EVENT) {
      BL_CHECK(f->seq == l->next_event_seq, "EVENT seq %u, expected %u (lost event)", f->seq,
               l->next_event_seq);
      l->next_event_seq++;
      BL_CHECK(l->nevents < BL_MAX_EVENTS, "too many events");
      l->event_cycle[l->nevents] = board_sim_cycle(l->b);
      l->events[l->nevents++] = f->data[0];
      continue;
    }
    return 1;
  }
}

void bl_run(board_link *l, uint64_t cycles) {
  sgpu_link_frame f;
  while (cycles) {
    uint64_t step = cycles < 400 ? cycles : 400;
    board_sim_run(l->b, step);
    cycles -= step;
    BL_CHECK(!pump(l, &f), "unexpected %s frame (seq %u) with no request outstanding",
             f.kind == SGPU_LINK_KIND_ACK ? "ACK" : "NAK", f.seq);
  }
}

static int request(board_link *l, uint8_t cmd, uint32_t addr, const uint32_t *wdata, uint16_t count,
                   uint32_t *rdata, uint64_t timeout, int resend);

void bl_request(board_link *l, uint8_t cmd, uint32_t addr, const uint32_t *wdata, uint16_t count,
                uint32_t *rdata) {
  request(l, cmd, addr, wdata, count, rdata, ANSWER_TIMEOUT, 0);
}

/* One frame and its answer; -1 when none came within timeout cycles (only
 * when timeout is not ANSWER_TIMEOUT, else that fails).  resend: the same
 * SEQ again (a repeat, docs/link-protocol.md). */
static int request(board_link *l, uint8_t cmd, uint32_t addr, const uint32_t *wdata, uint16_t count,
                   uint32_t *rdata, uint64_t timeout, int resend) {
  sgpu_link_request q;
  memset(&q, 0, sizeof q);
  q.seq = resend ? l->seq : ++l->seq;
  q.cmd = cmd;
  q.count = count;
  q.address = addr;
  q.data = wdata;
  uint8_t out[SGPU_LINK_MAX_REQ_FRAME];
  int len = sgpu_link_encode_request(&q, out, sizeof out);
  BL_CHECK(len > 0, "encode: %s", sgpu_link_strerror(len));
  board_sim_uart_send(l->b, out, (size_t)len);
  l->frames_sent++;
  sgpu_link_frame f;
  uint64_t start = board_sim_cycle(l->b);
  for (;;) {
    board_sim_run(l->b, 20);
    if (pump(l, &f)) break;
    if (timeout != ANSWER_TIMEOUT && board_sim_cycle(l->b) - start >= timeout + 40ull * (size_t)len) return -1;
    BL_CHECK(board_sim_cycle(l->b) - start < ANSWER_TIMEOUT + 40ull * (size_t)len,
             "no answer to %s seq %u at 0x%08x within %u cycles", cmd == SGPU_LINK_CMD_WRITE ? "WRITE"
             : cmd == SGPU_LINK_CMD_READ ? "READ" : "PING", q.seq, addr, ANSWER_TIMEOUT);
  }
  BL_CHECK(f.kind == SGPU_LINK_KIND_ACK, "request seq %u answered NAK %s", q.seq,
           sgpu_link_nak_name(f.info) ? sgpu_link_nak_name(f.info) : "?");
  BL_EQ(f.seq, q.seq, "ACK seq");
  BL_EQ(f.info, 0, "ACK info (DUPLICATE on a fresh SEQ)");
  uint32_t want = cmd == SGPU_LINK_CMD_READ ? count : cmd == SGPU_LINK_CMD_PING ? 1 : 0;
  BL_EQ(f.count, want, "ACK data words");
  if (rdata && f.count) memcpy(rdata, f.data, 4u * f.count);
  return 0;
}

uint64_t bl_wait_boot(board_link *l) {
  uint32_t info = 0;
  int tries = 0;
  while (request(l, SGPU_LINK_CMD_PING, 0, NULL, 0, &info, 50000, tries > 0) != 0)
    BL_CHECK(++tries < 100, "no answer to PING within 100 tries (5M cycles) after reset");
  /* version 3 with a receive FIFO (its size in [23:16]), version 2's rules without one */
  BL_CHECK((info & 0xFFu) == (((info >> 16) & 0xFFu) ? SGPU_LINK_VERSION : SGPU_LINK_VERSION_SINGLE),
           "PING version %u with a %u-byte receive FIFO", info & 0xFFu,
           ((info >> 16) & 0xFFu) * SGPU_LINK_RX_FIFO_UNIT);
  uint32_t done = 0;
  for (int i = 0;; i++) {
    bl_read(l, SGPU_IDENTITY_ADDR + 4u * SGPU_IDW_DONE, &done, 1);
    if (done == SGPU_IDENTITY_DONE) break;
    BL_CHECK(i < 200, "the boot never wrote the identity block's DONE word (0x%08x)", done);
    bl_run(l, 10000);
  }
  /* leave the chip as reset would, but for memory: no interrupts pending */
  bl_wr(l, SGPU_REG_INT_ENABLE, 0);
  bl_wr(l, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  const uint64_t rel = board_sim_reset_release(l->b);
  return board_sim_cycle(l->b) - rel;
}

uint32_t bl_ping(board_link *l) {
  uint32_t info = 0;
  bl_request(l, SGPU_LINK_CMD_PING, 0, NULL, 0, &info);
  return info;
}

void bl_write(board_link *l, uint32_t addr, const uint32_t *words, size_t n) {
  while (n) {
    uint16_t c = (uint16_t)(n < SGPU_LINK_MAX_WORDS ? n : SGPU_LINK_MAX_WORDS);
    bl_request(l, SGPU_LINK_CMD_WRITE, addr, words, c, NULL);
    addr += 4u * c;
    words += c;
    n -= c;
  }
}

void bl_read(board_link *l, uint32_t addr, uint32_t *words, size_t n) {
  while (n) {
    uint16_t c = (uint16_t)(n < SGPU_LINK_MAX_WORDS ? n : SGPU_LINK_MAX_WORDS);
    bl_request(l, SGPU_LINK_CMD_READ, addr, NULL, c, words);
    addr += 4u * c;
    words += c;
    n -= c;
  }
}

void bl_wr(board_link *l, uint32_t reg, uint32_t value) { bl_write(l, SGPU_REG_SPACE | reg, &value, 1); }

uint32_t bl_rd(board_link *l, uint32_t reg) {
  uint32_t v = 0;
  bl_read(l, SGPU_REG_SPACE | reg, &v, 1);
  return v;
}

int bl_wait_event(board_link *l, uint64_t max_cycles, uint32_t *status) {
  uint64_t start = board_sim_cycle(l->b);
  size_t have = l->nevents;
  while (l->nevents == have) {
    if (board_sim_cycle(l->b) - start >= max_cycles) return -1;
    bl_run(l, 40);
  }
  if (status) *status = l->events[have];
  return 0;
}

/* ---------------------------------------------------------------- rings */
void bl_ring_init(bl_ring *r, board_link *l, uint32_t base, uint32_t size) {
  r->l = l;
  r->base = base;
  r->size = size;
  r->wptr = 0;
  bl_wr(l, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 0); /* the boot left it enabled */
  bl_wr(l, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 1u << SGPU_CONTROL_RESET_SHIFT);
  bl_wr(l, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), base);
  bl_wr(l, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), size);
  bl_wr(l, SGPU_NODE_REG(0, SGPU_NREG_WATCHDOG), 0);
  bl_wr(l, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 1u << SGPU_CONTROL_ENABLE_SHIFT);
  BL_EQ(bl_rd(l, SGPU_REG_CFG_ERROR), 0, "CFG_ERROR after programming the ring");
}

void bl_ring_submit(bl_ring *r, const uint32_t *words, size_t n) {
  while (n) {
    size_t room = (r->size - r->wptr) / 4u;
    size_t c = n < room ? n : room;
    bl_write(r->l, r->base + r->wptr, words, c);
    r->wptr = (r->wptr + 4u * (uint32_t)c) & (r->size - 1u);
    words += c;
    n -= c;
  }
  bl_wr(r->l, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), r->wptr);
}

/* ---------------------------------------------------------------- packets */
size_t bl_pkt_fill(uint32_t *w, size_t n, uint32_t dst, uint32_t pitch, uint32_t width, uint32_t height,
                   uint32_t pattern) {
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_FILL, 5, 0);
  w[n++] = dst;
  w[n++] = pitch;
  w[n++] = width;
  w[n++] = height;
  w[n++] = pattern;
  return n;
}

size_t bl_pkt_copy(uint32_t *w, size_t n, uint32_t dst, uint32_t dpitch, uint32_t src, uint32_t spitch,
                   uint32_t width, uint32_t height) {
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_COPY, 6, 0);
  w[n++] = dst;
  w[n++] = dpitch;
  w[n++] = src;
  w[n++] = spitch;
  w[n++] = width;
  w[n++] = height;
  return n;
}

size_t bl_pkt_fence(uint32_t *w, size_t n, uint32_t addr, uint32_t value, int irq) {
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, irq ? SGPU_FENCE_FLAG_IRQ : 0);
  w[n++] = addr;
  w[n++] = value;
  return n;
}

size_t bl_pkt_flip(uint32_t *w, size_t n, uint32_t source, uint32_t addr, uint32_t interval, int no_wait) {
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_FLIP, 3, no_wait ? SGPU_FLIP_FLAG_NO_WAIT : 0);
  w[n++] = source;
  w[n++] = addr;
  w[n++] = interval;
  return n;
}

size_t bl_pkt_write_data(uint32_t *w, size_t n, uint32_t addr, const uint32_t *data, uint32_t count) {
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_WRITE_DATA, 1 + count, 0);
  w[n++] = addr;
  for (uint32_t i = 0; i < count; i++) w[n++] = data[i];
  return n;
}

/* ---------------------------------------------------------------- pixels */
/* The 4 bits a channel of the board's pins carries: the top of its 8. */
static uint16_t pin_of_888(uint32_t rgb) {
  return (uint16_t)(((rgb >> 20) & 15u) << 8 | ((rgb >> 12) & 15u) << 4 | ((rgb >> 4) & 15u));
}

uint16_t bl_pin_rgb565(uint16_t p) { return pin_of_888(sgpu__rgb565_to_888(p)); }

uint16_t bl_pin_rgb332(uint8_t p) { return pin_of_888(sgpu__rgb332_to_888(p)); }
