/* test_chip_faults — every fault kind on the real RTL (issue 2 "Must hold").
 *
 * Each case submits ring: INDIRECT(ib, fence id F) ; FENCE.  The IB holds a
 * good WRITE_DATA (marker A), the faulting packet, and another WRITE_DATA
 * (marker B).  Expected: marker A written, nothing of the faulting packet
 * written (its target stays as the backdoor filled it), marker B and the
 * ring fence not written; STATUS.FAULTED; FAULT_REASON / FAULT_ADDR (the
 * faulting header's byte address) / FAULT_OPCODE (its header word) /
 * FAULT_FENCE (F); DMA_FAULTED in INT_STATUS and on irq_o.  Then
 * CONTROL.RESET and a good submission runs and fences normally.
 *
 * Also: the watchdog turns a never-satisfied WAIT_MEM into TIMEOUT, and
 * NullRendering (INDIRECT SKIP) writes the fence and raises DMA_COMPLETED
 * without fetching or executing the buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING0 0x00010000u
#define RING_SIZE 0x1000u
#define FENCE0 0x0001E000u
#define IB0 0x00020000u
#define IB1 0x00021000u
#define IB2 0x00022000u
#define IB3 0x00023000u
#define MARK_A 0x00100000u
#define MARK_B 0x00100004u
#define TARGET 0x00100100u /* what the faulting packet would write */
#define GUARD 0xDEADC0DEu
#define WIN_BASE 0x00200000u /* context window of the window case */
#define WIN_SIZE 0x00010000u

typedef struct fault_case {
  const char *name;
  uint32_t reason;
  int in_window;     /* run the IB under context 1 with the window above */
  int nest;          /* the fault is an INDIRECT nested too deep */
} fault_case;

static uint32_t mem_bytes;

/* Append the faulting packet of case c to b; returns nothing, records the
 * header offset in *hdr_off (bytes from b start). */
static void bad_packet(const char *name, chip_buf *b, uint32_t *hdr_off, uint32_t *buf_len_cut) {
  *hdr_off = chip_buf_bytes(b);
  *buf_len_cut = 0;
  uint32_t d[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
  if (!strcmp(name, "illegal_opcode")) {
    chip_buf_word(b, SGPU_PKT_HEADER(0x3Fu, 1, 0));
    chip_buf_word(b, TARGET);
  } else if (!strcmp(name, "bad_header")) {
    chip_buf_word(b, 0x00000000u); /* a cleared word is never a header */
  } else if (!strcmp(name, "bad_count")) {
    chip_buf_word(b, SGPU_PKT_HEADER(SGPU_OP_FENCE, 3, 0));
    chip_buf_word(b, TARGET);
    chip_buf_word(b, 1);
    chip_buf_word(b, 2);
  } else if (!strcmp(name, "overrun")) {
    /* WRITE_DATA of 4 words whose buffer ends after 2 of them */
    chip_pkt_write_data(b, TARGET, d, 4);
    *buf_len_cut = 2 * 4; /* the IB length stops 2 words short */
  } else if (!strcmp(name, "misaligned")) {
    chip_pkt_write_data(b, TARGET + 2, d, 2);
  } else if (!strcmp(name, "misaligned_fence")) {
    chip_pkt_fence(b, TARGET + 1, 0x1234, 0);
  } else if (!strcmp(name, "out_of_range")) {
    /* first word inside memory, second outside: nothing may be written */
    chip_pkt_write_data(b, mem_bytes - 4, d, 2);
  } else if (!strcmp(name, "out_of_range_high")) {
    chip_pkt_fence(b, 0xFFFFFF00u, 0x1234, 0);
  } else if (!strcmp(name, "window")) {
    chip_pkt_write_data(b, WIN_BASE + WIN_SIZE - 4, d, 2); /* straddles the window end */
  } else if (!strcmp(name, "window_below")) {
    chip_pkt_write_data(b, TARGET, d, 1);
  } else if (!strcmp(name, "privileged")) {
    chip_pkt_context(b, 1, WIN_BASE, WIN_SIZE);
  } else if (!strcmp(name, "nesting")) {
    chip_pkt_indirect(b, IB3, 8, 0xF00D, 0);
  } else if (!strcmp(name, "bad_wait_func")) {
    chip_pkt_wait_mem(b, TARGET, 0xFFFFFFFFu, 0, 7);
  } else {
    chip_fail(__FILE__, __LINE__, "unknown case %s", name);
  }
}

static void check_untouched(sgpu_sim *sim, const char *name) {
  for (uint32_t a = TARGET - 16; a < TARGET + 32; a += 4)
    CHIP_CHECK(chip_peek(sim, a) == GUARD, "%s: faulting packet wrote 0x%08x (=0x%08x)", name, a, chip_peek(sim, a));
  CHIP_CHECK(chip_peek(sim, mem_bytes - 4) == GUARD, "%s: faulting packet wrote the last memory word", name);
  CHIP_CHECK(chip_peek(sim, WIN_BASE + WIN_SIZE - 4) == GUARD && chip_peek(sim, WIN_BASE + WIN_SIZE) == GUARD,
             "%s: faulting packet wrote at the window end", name);
}

static void guard_fill(sgpu_sim *sim) {
  for (uint32_t a = TARGET - 16; a < TARGET + 32; a += 4) chip_poke(sim, a, GUARD);
  chip_poke(sim, mem_bytes - 4, GUARD);
  chip_poke(sim, WIN_BASE + WIN_SIZE - 4, GUARD);
  chip_poke(sim, WIN_BASE + WIN_SIZE, GUARD);
  chip_poke(sim, MARK_A, 0);
  chip_poke(sim, MARK_B, 0);
  chip_poke(sim, WIN_BASE, 0);
  chip_poke(sim, WIN_BASE + 4, 0);
  chip_poke(sim, FENCE0, 0);
}

/* After a fault: reset the engine and show that the next submission runs. */
static void recover(sgpu_sim *sim, chip_ring *ring, const char *name, uint32_t fence) {
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu); /* w1c everything */
  chip_ring_reset(ring);
  uint32_t st = chip_nrd(sim, 0, SGPU_NREG_STATUS);
  CHIP_CHECK(!(st & SGPU_STATUS_FAULTED), "%s: STATUS.FAULTED (0x%x) still set after RESET", name, st);
  CHIP_CHECK((chip_rd(sim, SGPU_REG_INT_STATUS) & SGPU_INT_DMA_FAULTED(0)) == 0, "%s: DMA_FAULTED not cleared", name);
  CHIP_CHECK(!sgpu_sim_irq(sim), "%s: irq still high after acknowledge", name);
  /* a normal submission, with an IB outside the old context window */
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  uint32_t d = 0x600D0000u | fence;
  chip_pkt_write_data(&ib, MARK_B + 8, &d, 1);
  chip_mem_write(sim, IB2 + 0x800, ib.w, chip_buf_bytes(&ib));
  chip_pkt_indirect(&rb, IB2 + 0x800, chip_buf_bytes(&ib), fence, 0);
  chip_pkt_fence(&rb, FENCE0, fence, 1);
  chip_submit(ring, &rb);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, fence, 20000) == 0, "%s: no fence after reset (STATUS 0x%x REASON %u)", name,
             chip_nrd(sim, 0, SGPU_NREG_STATUS), chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  CHIP_EQ(chip_peek(sim, MARK_B + 8), d, "write of the submission after reset");
  CHIP_CHECK(chip_rd(sim, SGPU_REG_INT_STATUS) & SGPU_INT_DMA_COMPLETED(0), "%s: no DMA_COMPLETED after reset", name);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

static void run_case(sgpu_sim *sim, chip_ring *ring, const fault_case *c, uint32_t fence) {
  guard_fill(sim);
  chip_buf ib, ib_b, rb;
  chip_buf_init(&ib);
  chip_buf_init(&ib_b);
  chip_buf_init(&rb);
  uint32_t a_addr = c->in_window ? WIN_BASE : MARK_A;
  uint32_t b_addr = c->in_window ? WIN_BASE + 4 : MARK_B;
  uint32_t ib_addr = c->in_window ? WIN_BASE + 0x1000 : IB0;
  uint32_t a = 0xAAAA0000u | fence, b = 0xBBBB0000u | fence;
  uint32_t fault_ib = ib_addr, hdr_off, cut = 0, hdr_word;
  if (c->nest) {
    /* ring -> IB0 -> IB1 (depth MAX_IB_DEPTH = 2, allowed) -> IB3 (too deep) */
    chip_buf l1;
    chip_buf_init(&l1);
    chip_pkt_write_data(&ib, a_addr, &a, 1);
    /* IB1 holds the faulting INDIRECT */
    bad_packet(c->name, &l1, &hdr_off, &cut);
    hdr_word = l1.w[hdr_off / 4];
    chip_pkt_write_data(&l1, b_addr, &b, 1);
    chip_mem_write(sim, IB1, l1.w, chip_buf_bytes(&l1));
    uint32_t ib3[2] = {SGPU_PKT_HEADER(SGPU_OP_WRITE_DATA, 2, 0), TARGET};
    chip_mem_write(sim, IB3, ib3, 8); /* would write TARGET (payload short on purpose) */
    chip_pkt_indirect(&ib, IB1, chip_buf_bytes(&l1), fence, 0);
    fault_ib = IB1;
    chip_buf_free(&l1);
  } else {
    chip_pkt_write_data(&ib, a_addr, &a, 1);
    bad_packet(c->name, &ib, &hdr_off, &cut);
    hdr_word = ib.w[hdr_off / 4];
    if (!cut) chip_pkt_write_data(&ib, b_addr, &b, 1);
  }
  chip_mem_write(sim, ib_addr, ib.w, chip_buf_bytes(&ib));
  if (c->in_window) chip_pkt_context(&rb, 1, WIN_BASE, WIN_SIZE);
  chip_pkt_indirect(&rb, ib_addr, chip_buf_bytes(&ib) - cut, fence, 0);
  if (c->in_window) chip_pkt_context(&rb, 0, 0, 0);
  chip_pkt_fence(&rb, FENCE0, fence, 1);
  chip_submit(ring, &rb);
  int r = chip_wait_idle(sim, 0, 20000);
  CHIP_CHECK(r == 1, "%s: engine did not fault (wait result %d, STATUS 0x%x, fence 0x%x)", c->name, r,
             chip_nrd(sim, 0, SGPU_NREG_STATUS), chip_peek(sim, FENCE0));
  sgpu_sim_run(sim, 200, 0); /* nothing may happen after the fault either */
  chip_fault f;
  chip_read_fault(sim, 0, &f);
  printf("%-18s reason %2u addr 0x%08x opcode 0x%08x fence 0x%08x status 0x%x\n", c->name, f.reason, f.addr,
         f.opcode, f.fence, f.status);
  CHIP_EQ(f.reason, c->reason, c->name);
  CHIP_EQ(f.addr, fault_ib + hdr_off, "FAULT_ADDR");
  CHIP_EQ(f.opcode, hdr_word, "FAULT_OPCODE (header word)");
  CHIP_EQ(f.fence, fence, "FAULT_FENCE (fence in flight)");
  CHIP_EQ(chip_peek(sim, a_addr), a, "write before the faulting packet");
  CHIP_CHECK(chip_peek(sim, b_addr) != b, "%s: packet after the fault executed", c->name);
  CHIP_CHECK(chip_peek(sim, FENCE0) != fence, "%s: fence written despite the fault", c->name);
  check_untouched(sim, c->name);
  uint32_t is = chip_rd(sim, SGPU_REG_INT_STATUS);
  CHIP_CHECK(is & SGPU_INT_DMA_FAULTED(0), "%s: DMA_FAULTED not in INT_STATUS (0x%08x)", c->name, is);
  CHIP_CHECK(!(is & SGPU_INT_DMA_COMPLETED(0)), "%s: DMA_COMPLETED raised for a faulted buffer", c->name);
  CHIP_CHECK(sgpu_sim_irq(sim), "%s: irq_o low with DMA_FAULTED enabled", c->name);
  recover(sim, ring, c->name, fence + 1);
  chip_buf_free(&ib);
  chip_buf_free(&ib_b);
  chip_buf_free(&rb);
}

static void test_watchdog(sgpu_sim *sim, chip_ring *ring) {
  guard_fill(sim);
  chip_nwr(sim, 0, SGPU_NREG_WATCHDOG, 3000);
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_WATCHDOG), 3000, "WATCHDOG read back");
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  chip_poke(sim, TARGET, 0);
  chip_pkt_wait_mem(&ib, TARGET, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ); /* never true */
  uint32_t d = 1;
  chip_pkt_write_data(&ib, MARK_B, &d, 1);
  chip_mem_write(sim, IB0, ib.w, chip_buf_bytes(&ib));
  chip_pkt_indirect(&rb, IB0, chip_buf_bytes(&ib), 0xCAFE, 0);
  chip_pkt_fence(&rb, FENCE0, 0xCAFE, 1);
  uint64_t t0 = sgpu_sim_cycle(sim);
  chip_submit(ring, &rb);
  sgpu_sim_run(sim, 1000, 0);
  CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_WAITING, "WAIT_MEM not waiting");
  int r = chip_wait_idle(sim, 0, 20000);
  uint64_t t1 = sgpu_sim_cycle(sim);
  CHIP_CHECK(r == 1, "watchdog did not fire (wait %d, STATUS 0x%x)", r, chip_nrd(sim, 0, SGPU_NREG_STATUS));
  chip_fault f;
  chip_read_fault(sim, 0, &f);
  printf("%-18s reason %2u addr 0x%08x opcode 0x%08x fence 0x%08x after ~%llu cycles\n", "watchdog", f.reason,
         f.addr, f.opcode, f.fence, (unsigned long long)(t1 - t0));
  CHIP_EQ(f.reason, SGPU_FAULT_TIMEOUT, "watchdog FAULT_REASON");
  CHIP_EQ(f.addr, IB0, "watchdog FAULT_ADDR (the WAIT_MEM)");
  CHIP_EQ(f.opcode, ib.w[0], "watchdog FAULT_OPCODE");
  CHIP_EQ(f.fence, 0xCAFE, "watchdog FAULT_FENCE");
  CHIP_CHECK(chip_peek(sim, MARK_B) == 0 && chip_peek(sim, FENCE0) != 0xCAFE, "work after the hung WAIT_MEM ran");
  CHIP_CHECK(chip_rd(sim, SGPU_REG_INT_STATUS) & SGPU_INT_DMA_FAULTED(0), "watchdog: no DMA_FAULTED");
  recover(sim, ring, "watchdog", 0xCB00);
  chip_nwr(sim, 0, SGPU_NREG_WATCHDOG, 100000);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

static void test_null_rendering(sgpu_sim *sim, chip_ring *ring) {
  guard_fill(sim);
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  uint32_t d = 0x4E554C4Cu;
  chip_pkt_write_data(&ib, MARK_A, &d, 1);
  chip_pkt_write_data(&ib, TARGET, &d, 1);
  chip_mem_write(sim, IB1, ib.w, chip_buf_bytes(&ib));
  chip_pkt_indirect(&rb, IB1, chip_buf_bytes(&ib), 0xD00D, 1);
  chip_pkt_fence(&rb, FENCE0, 0xD00D, 1);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  sgpu_sim_mem_log_enable(sim, 1u << 16);
  chip_submit(ring, &rb);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 0xD00D, 20000) == 0, "NullRendering: fence not written");
  CHIP_CHECK(chip_wait_idle(sim, 0, 20000) == 0, "NullRendering: engine not idle");
  CHIP_EQ(chip_peek(sim, MARK_A), 0, "NullRendering: a packet of the buffer executed");
  check_untouched(sim, "null_rendering");
  CHIP_CHECK(chip_rd(sim, SGPU_REG_INT_STATUS) & SGPU_INT_DMA_COMPLETED(0), "NullRendering: no DMA_COMPLETED");
  CHIP_CHECK(sgpu_sim_irq(sim), "NullRendering: irq_o low");
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  for (size_t i = 0; i < n; i++)
    CHIP_CHECK(ev[i].write || ev[i].address < IB1 || ev[i].address >= IB1 + chip_buf_bytes(&ib),
               "NullRendering: the skipped buffer was fetched (read 0x%08x)", ev[i].address);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  sgpu_sim_run(sim, 2, 0);
  CHIP_CHECK(!sgpu_sim_irq(sim), "irq_o high after acknowledging");
  sgpu_sim_mem_log_enable(sim, 0);
  printf("%-18s fence written, DMA_COMPLETED raised, buffer not fetched\n", "null_rendering");
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  mem_bytes = chip_rd(sim, SGPU_REG_MEM_SIZE);
  CHIP_EQ(mem_bytes, sgpu_sim_mem_bytes(sim), "MEM_SIZE register");
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  chip_wr(sim, SGPU_REG_INT_ENABLE, SGPU_INT_DMA_COMPLETED(0) | SGPU_INT_DMA_FAULTED(0));
  static const fault_case cases[] = {
      {"illegal_opcode", SGPU_FAULT_ILLEGAL_OPCODE, 0, 0},
      {"bad_header", SGPU_FAULT_BAD_HEADER, 0, 0},
      {"bad_count", SGPU_FAULT_BAD_COUNT, 0, 0},
      {"overrun", SGPU_FAULT_OVERRUN, 0, 0},
      {"misaligned", SGPU_FAULT_MISALIGNED, 0, 0},
      {"misaligned_fence", SGPU_FAULT_MISALIGNED, 0, 0},
      {"out_of_range", SGPU_FAULT_OUT_OF_RANGE, 0, 0},
      {"out_of_range_high", SGPU_FAULT_OUT_OF_RANGE, 0, 0},
      {"nesting", SGPU_FAULT_NESTING, 0, 1},
      {"window", SGPU_FAULT_CONTEXT_WINDOW, 1, 0},
      {"window_below", SGPU_FAULT_CONTEXT_WINDOW, 1, 0},
      {"privileged", SGPU_FAULT_PRIVILEGED, 0, 0},
      {"bad_wait_func", SGPU_FAULT_BAD_PARAM, 0, 0},
  };
  uint32_t fence = 0x100;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, fence += 0x10) run_case(sim, &ring, &cases[i], fence);
  test_watchdog(sim, &ring);
  test_null_rendering(sim, &ring);
  chip_figure("faults_total_cycles", (double)sgpu_sim_cycle(sim));
  sgpu_sim_destroy(sim);
  printf("test_chip_faults: PASS\n");
  return 0;
}
