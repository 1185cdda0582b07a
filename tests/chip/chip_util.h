/* chip_util.h — small helpers for chip-level tests (tests/chip/test_*.c).
 *
 * Every test_*.c in tests/chip/ is built by sim/sim.mk against
 * libsgpu_sim.a and chip_util.c; it passes by returning 0 from main and fails
 * through CHIP_CHECK / chip_fail (exit status 1, message on stderr).
 * Measured figures are printed with chip_figure() as "FIGURE name value".
 *
 * Typical use:
 *
 *   sgpu_sim *sim = chip_create(NULL);            // zero-wait memory
 *   chip_ring ring;
 *   chip_ring_init(&ring, sim, 0, 0x10000, 4096); // node 0, ring at 64 KiB
 *   chip_buf b;  chip_buf_init(&b);
 *   chip_pkt_write_data(&b, 0x20000, data, 4);
 *   chip_pkt_fence(&b, 0x30000, 1, 1);
 *   chip_submit(&ring, &b);                       // packets into ring + doorbell
 *   CHIP_CHECK(chip_wait_fence(sim, 0x30000, 1, 100000) == 0, "fence 1");
 *   chip_buf_free(&b);  sgpu_sim_destroy(sim);
 *
 * Packet builders append to a growable chip_buf and use only the generated
 * SGPU_PKT_HEADER / SGPU_OP_* / flag macros from sgpu_hw.h.
 */
#ifndef CHIP_UTIL_H
#define CHIP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu_hw.h"
#include "sgpu_sim.h"

/* ------------------------------------------------------------- failures */
void chip_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
#define CHIP_CHECK(cond, ...) \
  do { if (!(cond)) chip_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
/* Compare two uint32 values, failing with both printed. */
#define CHIP_EQ(a, b, what) \
  do { uint32_t a_ = (uint32_t)(a), b_ = (uint32_t)(b); \
       if (a_ != b_) chip_fail(__FILE__, __LINE__, "%s: got 0x%08x, expected 0x%08x", (what), a_, b_); \
  } while (0)

void chip_figure(const char *name, double value); /* prints "FIGURE name value" */

/* ------------------------------------------------------------- the chip */
/* sgpu_sim_create that fails the test on error. */
sgpu_sim *chip_create(const sgpu_sim_config *cfg);
/* Register access by offset (SGPU_REG_*, SGPU_NODE_REG(), SGPU_SOURCE_REG()); fail on timeout. */
uint32_t chip_rd(sgpu_sim *sim, uint32_t offset);
/* The chip's ring blocks: its nodes, then (CAPS.PRIORITY) node n's
 * high-priority ring at block nodes + n, then (CAPS.TIME_SLICE) node n's
 * second normal ring at block 2 x nodes + n. */
uint32_t chip_rings(sgpu_sim *sim);
void chip_wr(sgpu_sim *sim, uint32_t offset, uint32_t value);
/* Node register shorthands: chip_nrd(sim, 0, SGPU_NREG_STATUS). */
uint32_t chip_nrd(sgpu_sim *sim, uint32_t node, uint32_t nreg);
void chip_nwr(sgpu_sim *sim, uint32_t node, uint32_t nreg, uint32_t value);
/* Memory through the host port / through the backdoor; fail on error. */
void chip_mem_write(sgpu_sim *sim, uint32_t addr, const void *data, uint32_t size);
void chip_mem_read(sgpu_sim *sim, uint32_t addr, void *data, uint32_t size);
uint32_t chip_peek(sgpu_sim *sim, uint32_t addr);          /* backdoor word read */
void chip_poke(sgpu_sim *sim, uint32_t addr, uint32_t v);  /* backdoor word write */

/* ------------------------------------------------------------- packets */
typedef struct chip_buf {
  uint32_t *w;   /* words */
  size_t n;      /* words used */
  size_t cap;    /* words allocated */
} chip_buf;
void chip_buf_init(chip_buf *b);
void chip_buf_free(chip_buf *b);
void chip_buf_clear(chip_buf *b);
void chip_buf_word(chip_buf *b, uint32_t w);              /* append one raw word */
uint32_t chip_buf_bytes(const chip_buf *b);               /* b->n * 4 */

void chip_pkt_nop(chip_buf *b, uint32_t payload_words);
void chip_pkt_indirect(chip_buf *b, uint32_t addr, uint32_t len_bytes, uint32_t fence_id, int skip);
void chip_pkt_fence(chip_buf *b, uint32_t addr, uint32_t value, int irq);
void chip_pkt_write_data(chip_buf *b, uint32_t addr, const uint32_t *data, uint32_t nwords);
void chip_pkt_wait_mem(chip_buf *b, uint32_t addr, uint32_t mask, uint32_t ref, uint32_t func);
void chip_pkt_wait_vsync(chip_buf *b, uint32_t source);
void chip_pkt_wait_scanline(chip_buf *b, uint32_t source, uint32_t first, uint32_t last);
void chip_pkt_fill(chip_buf *b, uint32_t dst, uint32_t pitch, uint32_t width_bytes, uint32_t height,
                   uint32_t pattern);
void chip_pkt_copy(chip_buf *b, uint32_t dst, uint32_t dst_pitch, uint32_t src, uint32_t src_pitch,
                   uint32_t width_bytes, uint32_t height);
void chip_pkt_flip(chip_buf *b, uint32_t source, uint32_t addr, uint32_t interval, int no_wait);
void chip_pkt_context(chip_buf *b, uint32_t id, uint32_t base, uint32_t size);
void chip_pkt_timestamp(chip_buf *b, uint32_t addr);

/* ------------------------------------------------------------- rings */
typedef struct chip_ring {
  sgpu_sim *sim;
  uint32_t node;
  uint32_t base, size;  /* ring area in GPU memory (size a power of two) */
  uint32_t wptr;        /* byte offset of the next packet word */
} chip_ring;
/* Reset the node, clear the ring memory (backdoor), program RING_BASE/SIZE,
 * WATCHDOG (100000 cycles), enable.  INT_ENABLE is left to the test. */
void chip_ring_init(chip_ring *r, sgpu_sim *sim, uint32_t node, uint32_t base, uint32_t size);
/* Copy the words into the ring at wptr through the host port (wrapping at
 * the end), then write the doorbell (RING_WPTR).  Fails if they do not fit
 * in the free space (rptr read from the chip). */
void chip_submit(chip_ring *r, const chip_buf *b);
/* Same without the doorbell; chip_doorbell() rings it. */
void chip_ring_put(chip_ring *r, const chip_buf *b);
void chip_doorbell(chip_ring *r);
/* Engine reset (CONTROL.RESET, then ENABLE): rptr = wptr = 0 on the chip and here. */
void chip_ring_reset(chip_ring *r);

/* ------------------------------------------------------------- running */
/* Run until the word at addr (backdoor) equals value; returns 0, or -1 after
 * max_cycles.  Checks every 8 cycles. */
int chip_wait_fence(sgpu_sim *sim, uint32_t addr, uint32_t value, uint64_t max_cycles);
/* Run until STATUS of the node shows neither BUSY nor WAITING and RING_RPTR ==
 * RING_WPTR, or FAULTED; returns 0 idle, 1 faulted, -1 timeout.  Polls the
 * registers through the host port every 64 cycles. */
int chip_wait_idle(sgpu_sim *sim, uint32_t node, uint64_t max_cycles);

typedef struct chip_fault {
  uint32_t status, reason, addr, opcode, fence;
} chip_fault;
void chip_read_fault(sgpu_sim *sim, uint32_t node, chip_fault *f);

/* Deterministic PRNG for tests (xorshift32; seed 0 is remapped). */
uint32_t chip_rand(uint32_t *state);

#endif
