/* chip_util.c — helpers for chip-level tests; see chip_util.h. */
#include "chip_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chip_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "FAIL %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stdout);
  fflush(stderr);
  _Exit(1); /* no leak report of the abandoned model on failure */
}

void chip_figure(const char *name, double value) {
  printf("FIGURE %s %g\n", name, value);
  fflush(stdout);
}

sgpu_sim *chip_create(const sgpu_sim_config *cfg) {
  sgpu_sim *sim = sgpu_sim_create(cfg);
  CHIP_CHECK(sim != NULL, "sgpu_sim_create failed");
  return sim;
}

uint32_t chip_rd(sgpu_sim *sim, uint32_t offset) {
  uint32_t v = 0;
  CHIP_CHECK(sgpu_sim_reg_read(sim, offset, &v) == 0, "register read 0x%03x timed out", offset);
  return v;
}

uint32_t chip_rings(sgpu_sim *sim) {
  const uint32_t nodes = sgpu_sim_nodes(sim);
  const uint32_t caps = chip_rd(sim, SGPU_REG_CAPS);
  if (SGPU_FIELD_GET(CAPS_TIME_SLICE, caps)) return 3u * nodes;
  return SGPU_FIELD_GET(CAPS_PRIORITY, caps) ? 2u * nodes : nodes;
}

void chip_wr(sgpu_sim *sim, uint32_t offset, uint32_t value) {
  CHIP_CHECK(sgpu_sim_reg_write(sim, offset, value) == 0, "register write 0x%03x timed out", offset);
}

uint32_t chip_nrd(sgpu_sim *sim, uint32_t node, uint32_t nreg) {
  return chip_rd(sim, SGPU_NODE_REG(node, nreg));
}

void chip_nwr(sgpu_sim *sim, uint32_t node, uint32_t nreg, uint32_t value) {
  chip_wr(sim, SGPU_NODE_REG(node, nreg), value);
}

void chip_mem_write(sgpu_sim *sim, uint32_t addr, const void *data, uint32_t size) {
  int r = sgpu_sim_mem_write(sim, addr, data, size);
  CHIP_CHECK(r == 0, "memory write 0x%08x+%u failed (%d)", addr, size, r);
}

void chip_mem_read(sgpu_sim *sim, uint32_t addr, void *data, uint32_t size) {
  int r = sgpu_sim_mem_read(sim, addr, data, size);
  CHIP_CHECK(r == 0, "memory read 0x%08x+%u failed (%d)", addr, size, r);
}

uint32_t chip_peek(sgpu_sim *sim, uint32_t addr) {
  uint32_t v = 0;
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, addr, &v, 4) == 0, "backdoor read 0x%08x", addr);
  return v;
}

void chip_poke(sgpu_sim *sim, uint32_t addr, uint32_t v) {
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, addr, &v, 4) == 0, "backdoor write 0x%08x", addr);
}

/* ------------------------------------------------------------- packets */
void chip_buf_init(chip_buf *b) {
  b->w = NULL;
  b->n = 0;
  b->cap = 0;
}

void chip_buf_free(chip_buf *b) {
  free(b->w);
  chip_buf_init(b);
}

void chip_buf_clear(chip_buf *b) { b->n = 0; }

void chip_buf_word(chip_buf *b, uint32_t w) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    uint32_t *nw = realloc(b->w, cap * sizeof *nw);
    CHIP_CHECK(nw != NULL, "out of memory");
    b->w = nw;
    b->cap = cap;
  }
  b->w[b->n++] = w;
}

uint32_t chip_buf_bytes(const chip_buf *b) { return (uint32_t)(b->n * 4); }

static void hdr(chip_buf *b, uint32_t op, uint32_t count, uint32_t flags) {
  chip_buf_word(b, SGPU_PKT_HEADER(op, count, flags));
}

void chip_pkt_nop(chip_buf *b, uint32_t payload_words) {
  hdr(b, SGPU_OP_NOP, payload_words, 0);
  for (uint32_t i = 0; i < payload_words; i++) chip_buf_word(b, 0x4E4F5000u + i);
}

void chip_pkt_indirect(chip_buf *b, uint32_t addr, uint32_t len_bytes, uint32_t fence_id, int skip) {
  hdr(b, SGPU_OP_INDIRECT, SGPU_OP_INDIRECT_COUNT, skip ? SGPU_INDIRECT_FLAG_SKIP : 0);
  chip_buf_word(b, addr);
  chip_buf_word(b, len_bytes);
  chip_buf_word(b, fence_id);
}

void chip_pkt_fence(chip_buf *b, uint32_t addr, uint32_t value, int irq) {
  hdr(b, SGPU_OP_FENCE, SGPU_OP_FENCE_COUNT, irq ? SGPU_FENCE_FLAG_IRQ : 0);
  chip_buf_word(b, addr);
  chip_buf_word(b, value);
}

void chip_pkt_write_data(chip_buf *b, uint32_t addr, const uint32_t *data, uint32_t nwords) {
  hdr(b, SGPU_OP_WRITE_DATA, 1 + nwords, 0);
  chip_buf_word(b, addr);
  for (uint32_t i = 0; i < nwords; i++) chip_buf_word(b, data[i]);
}

void chip_pkt_wait_mem(chip_buf *b, uint32_t addr, uint32_t mask, uint32_t ref, uint32_t func) {
  hdr(b, SGPU_OP_WAIT_MEM, SGPU_OP_WAIT_MEM_COUNT, (func & SGPU_WAIT_FUNC_MASK) * SGPU_WAIT_MEM_FLAG_FUNC);
  chip_buf_word(b, addr);
  chip_buf_word(b, mask);
  chip_buf_word(b, ref);
}

void chip_pkt_wait_vsync(chip_buf *b, uint32_t source) {
  hdr(b, SGPU_OP_WAIT_VSYNC, SGPU_OP_WAIT_VSYNC_COUNT, 0);
  chip_buf_word(b, source);
}

void chip_pkt_wait_scanline(chip_buf *b, uint32_t source, uint32_t first, uint32_t last) {
  hdr(b, SGPU_OP_WAIT_SCANLINE, SGPU_OP_WAIT_SCANLINE_COUNT, 0);
  chip_buf_word(b, source);
  chip_buf_word(b, (first & 0xFFFFu) | (last << 16));
}

void chip_pkt_fill(chip_buf *b, uint32_t dst, uint32_t pitch, uint32_t width_bytes, uint32_t height,
                   uint32_t pattern) {
  hdr(b, SGPU_OP_FILL, SGPU_OP_FILL_COUNT, 0);
  chip_buf_word(b, dst);
  chip_buf_word(b, pitch);
  chip_buf_word(b, width_bytes);
  chip_buf_word(b, height);
  chip_buf_word(b, pattern);
}

void chip_pkt_copy(chip_buf *b, uint32_t dst, uint32_t dst_pitch, uint32_t src, uint32_t src_pitch,
                   uint32_t width_bytes, uint32_t height) {
  hdr(b, SGPU_OP_COPY, SGPU_OP_COPY_COUNT, 0);
  chip_buf_word(b, dst);
  chip_buf_word(b, dst_pitch);
  chip_buf_word(b, src);
  chip_buf_word(b, src_pitch);
  chip_buf_word(b, width_bytes);
  chip_buf_word(b, height);
}

void chip_pkt_flip(chip_buf *b, uint32_t source, uint32_t addr, uint32_t interval, int no_wait) {
  hdr(b, SGPU_OP_FLIP, SGPU_OP_FLIP_COUNT, no_wait ? SGPU_FLIP_FLAG_NO_WAIT : 0);
  chip_buf_word(b, source);
  chip_buf_word(b, addr);
  chip_buf_word(b, interval);
}

void chip_pkt_context(chip_buf *b, uint32_t id, uint32_t base, uint32_t size) {
  hdr(b, SGPU_OP_CONTEXT, SGPU_OP_CONTEXT_COUNT, 0);
  chip_buf_word(b, id);
  chip_buf_word(b, base);
  chip_buf_word(b, size);
}

void chip_pkt_timestamp(chip_buf *b, uint32_t addr) {
  hdr(b, SGPU_OP_TIMESTAMP, SGPU_OP_TIMESTAMP_COUNT, 0);
  chip_buf_word(b, addr);
}

/* ------------------------------------------------------------- rings */
void chip_ring_init(chip_ring *r, sgpu_sim *sim, uint32_t node, uint32_t base, uint32_t size) {
  r->sim = sim;
  r->node = node;
  r->base = base;
  r->size = size;
  r->wptr = 0;
  chip_nwr(sim, node, SGPU_NREG_CONTROL, SGPU_CONTROL_RESET);
  chip_nwr(sim, node, SGPU_NREG_CONTROL, 0);
  uint8_t *zero = calloc(size, 1);
  CHIP_CHECK(zero != NULL, "out of memory");
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, base, zero, size) == 0, "ring outside memory");
  free(zero);
  chip_nwr(sim, node, SGPU_NREG_RING_BASE, base);
  chip_nwr(sim, node, SGPU_NREG_RING_SIZE, size);
  CHIP_EQ(chip_nrd(sim, node, SGPU_NREG_RING_BASE), base, "RING_BASE read back");
  CHIP_EQ(chip_nrd(sim, node, SGPU_NREG_RING_SIZE), size, "RING_SIZE read back");
  chip_nwr(sim, node, SGPU_NREG_WATCHDOG, 100000);
  chip_nwr(sim, node, SGPU_NREG_CONTROL, SGPU_CONTROL_ENABLE);
}

void chip_ring_put(chip_ring *r, const chip_buf *b) {
  const uint32_t rptr = chip_nrd(r->sim, r->node, SGPU_NREG_RING_RPTR);
  const uint32_t used = (r->wptr - rptr) & (r->size - 1);
  CHIP_CHECK(chip_buf_bytes(b) + used < r->size, "ring full: %u bytes used, %u more", used,
             chip_buf_bytes(b));
  uint32_t done = 0;
  while (done < b->n) {
    uint32_t room = (r->size - r->wptr) / 4;
    uint32_t n = (uint32_t)(b->n - done) < room ? (uint32_t)(b->n - done) : room;
    chip_mem_write(r->sim, r->base + r->wptr, b->w + done, n * 4);
    done += n;
    r->wptr = (r->wptr + n * 4) & (r->size - 1);
  }
}

void chip_doorbell(chip_ring *r) { chip_nwr(r->sim, r->node, SGPU_NREG_RING_WPTR, r->wptr); }

void chip_submit(chip_ring *r, const chip_buf *b) {
  chip_ring_put(r, b);
  chip_doorbell(r);
}

void chip_ring_reset(chip_ring *r) {
  chip_nwr(r->sim, r->node, SGPU_NREG_CONTROL, SGPU_CONTROL_RESET);
  chip_nwr(r->sim, r->node, SGPU_NREG_CONTROL, SGPU_CONTROL_ENABLE);
  r->wptr = 0;
}

/* ------------------------------------------------------------- running */
int chip_wait_fence(sgpu_sim *sim, uint32_t addr, uint32_t value, uint64_t max_cycles) {
  uint64_t n = 0;
  for (;;) {
    if (chip_peek(sim, addr) == value) return 0;
    if (n >= max_cycles) return -1;
    n += sgpu_sim_run(sim, 8, 0);
  }
}

int chip_wait_idle(sgpu_sim *sim, uint32_t node, uint64_t max_cycles) {
  const uint64_t start = sgpu_sim_cycle(sim);
  for (;;) {
    uint32_t st = chip_nrd(sim, node, SGPU_NREG_STATUS);
    if (st & SGPU_STATUS_FAULTED) return 1;
    if (!(st & (SGPU_STATUS_BUSY | SGPU_STATUS_WAITING)) &&
        chip_nrd(sim, node, SGPU_NREG_RING_RPTR) == chip_nrd(sim, node, SGPU_NREG_RING_WPTR))
      return 0;
    if (sgpu_sim_cycle(sim) - start >= max_cycles) return -1;
    sgpu_sim_run(sim, 64, 0);
  }
}

void chip_read_fault(sgpu_sim *sim, uint32_t node, chip_fault *f) {
  f->status = chip_nrd(sim, node, SGPU_NREG_STATUS);
  f->reason = chip_nrd(sim, node, SGPU_NREG_FAULT_REASON);
  f->addr = chip_nrd(sim, node, SGPU_NREG_FAULT_ADDR);
  f->opcode = chip_nrd(sim, node, SGPU_NREG_FAULT_OPCODE);
  f->fence = chip_nrd(sim, node, SGPU_NREG_FAULT_FENCE);
}

uint32_t chip_rand(uint32_t *state) {
  uint32_t s = *state ? *state : 0x2545F491u;
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  *state = s;
  return s;
}
