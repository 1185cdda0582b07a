/* test_chip_preempt — the hardware half of preemption, at every kind of
 * boundary (docs/preemption.md): an idle node; a ring-level WAIT_MEM; a
 * WAIT_VSYNC in a level-1 buffer; a WAIT_SCANLINE in a level-2 buffer;
 * between packets of a level-1 buffer; a FILL and an overlapping COPY cut
 * after a chunk.  Each time: STATUS.PREEMPTED and INT_STATUS.DMA_PREEMPTED,
 * the save area's words against what the test knows of the stop (ring
 * offset, level, each level's next packet and end, what a cut rectangle
 * left), no memory write after the stop, and the preemption fence id last.
 * A second PREEMPT write while one is pending changes nothing; a faulted
 * node ignores one.  Figure: cycles from the PREEMPT write to
 * STATUS.PREEMPTED, worst over the cut rectangles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING 0x10000u
#define SAVE 0x20000u
#define FLAG 0x20100u  /* never written */
#define FENCE 0x20200u
#define IB1 0x21000u
#define IB2 0x22000u
#define DST 0x40000u   /* 1280 x 64 rows */
#define PITCH 1280u

static sgpu_sim *sim;
static chip_ring r;

static void fresh(void) {
  if (sim) sgpu_sim_destroy(sim);
  sim = chip_create(NULL);
  chip_ring_init(&r, sim, 0, RING, 1024);
  chip_nwr(sim, 0, SGPU_NREG_SAVE_ADDR, SAVE);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  for (uint32_t i = 0; i < SGPU_SAVE_BYTES / 4; i++) chip_poke(sim, SAVE + 4 * i, 0xEEEEEEEEu);
}

/* PREEMPT with id; runs until STATUS.PREEMPTED (fails after max cycles);
 * returns the cycles from the write to the status; reads the save area. */
static uint64_t preempt(uint32_t id, uint32_t *save) {
  chip_nwr(sim, 0, SGPU_NREG_PREEMPT, id);
  uint64_t t0 = sgpu_sim_last_host_write_cycle(sim), t = 0;
  for (int i = 0; i < 20000 && !t; i++) {
    sgpu_sim_run(sim, 1, 0);
    if (chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_PREEMPTED) t = sgpu_sim_cycle(sim);
  }
  CHIP_CHECK(t, "node 0 did not stop within 20000 polls of PREEMPT");
  CHIP_CHECK(!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_BUSY), "preempted node reads BUSY");
  CHIP_CHECK(chip_rd(sim, SGPU_REG_INT_STATUS) & SGPU_INT_DMA_PREEMPTED(0), "no DMA_PREEMPTED");
  for (uint32_t i = 0; i < SGPU_SAVE_BYTES / 4; i++) save[i] = chip_peek(sim, SAVE + 4 * i);
  CHIP_CHECK(save[SGPU_SAVE_PREEMPT_FENCE] == id, "PREEMPT_FENCE 0x%x, written 0x%x", save[SGPU_SAVE_PREEMPT_FENCE], id);
  /* stopped: no memory write afterwards */
  sgpu_sim_mem_log_enable(sim, 1u << 16);
  sgpu_sim_run(sim, 3000, 0);
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  for (size_t i = 0; i < n; i++)
    CHIP_CHECK(!ev[i].write, "a write at 0x%08x after the node stopped", ev[i].address);
  sgpu_sim_mem_log_enable(sim, 0);
  return t - t0;
}

static void expect(const uint32_t *s, uint32_t ring_next, uint32_t level, uint32_t ib1n, uint32_t ib1e, uint32_t ib2n,
                   uint32_t ib2e, const char *what) {
  CHIP_CHECK(s[SGPU_SAVE_RING_NEXT] == ring_next, "%s: RING_NEXT 0x%x, expected 0x%x", what, s[SGPU_SAVE_RING_NEXT], ring_next);
  CHIP_CHECK(s[SGPU_SAVE_LEVEL] == level, "%s: LEVEL 0x%x, expected 0x%x", what, s[SGPU_SAVE_LEVEL], level);
  if ((level & 3) >= 1)
    CHIP_CHECK(s[SGPU_SAVE_IB1_NEXT] == ib1n && s[SGPU_SAVE_IB1_END] == ib1e, "%s: IB1 0x%x..0x%x, expected 0x%x..0x%x",
               what, s[SGPU_SAVE_IB1_NEXT], s[SGPU_SAVE_IB1_END], ib1n, ib1e);
  if ((level & 3) == 2)
    CHIP_CHECK(s[SGPU_SAVE_IB2_NEXT] == ib2n && s[SGPU_SAVE_IB2_END] == ib2e, "%s: IB2 0x%x..0x%x, expected 0x%x..0x%x",
               what, s[SGPU_SAVE_IB2_NEXT], s[SGPU_SAVE_IB2_END], ib2n, ib2e);
  if (!(level & SGPU_SAVE_LEVEL_IN_RECT))
    CHIP_CHECK(!s[SGPU_SAVE_RECT] && !s[SGPU_SAVE_RECT_PART] && !s[SGPU_SAVE_RECT_ROW], "%s: RECT words set", what);
  printf("ok - %s\n", what);
}

static void put_buf(uint32_t addr, const chip_buf *b) { chip_mem_write(sim, addr, b->w, chip_buf_bytes(b)); }

int main(void) {
  uint32_t s[SGPU_SAVE_BYTES / 4];
  chip_buf b, ib;
  chip_buf_init(&b);
  chip_buf_init(&ib);

  /* 1. idle: at once, at the empty ring */
  fresh();
  preempt(0x11, s);
  expect(s, 0, 0, 0, 0, 0, 0, "idle node");

  /* 2. a ring-level WAIT_MEM: cut, resumes at its header (ring offset 0) */
  fresh();
  chip_poke(sim, FLAG, 0);
  chip_pkt_wait_mem(&b, FLAG, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  chip_submit(&r, &b);
  sgpu_sim_run(sim, 300, 0);
  preempt(0x22, s);
  expect(s, 0, SGPU_SAVE_LEVEL_IN_WAIT, 0, 0, 0, 0, "ring-level WAIT_MEM");
  /* a second request while taken changes nothing; after RESET the node runs */
  chip_nwr(sim, 0, SGPU_NREG_PREEMPT, 0x99);
  sgpu_sim_run(sim, 100, 0);
  CHIP_CHECK(chip_peek(sim, SAVE + 4 * SGPU_SAVE_PREEMPT_FENCE) == 0x22, "a second PREEMPT rewrote the save area");

  /* 3. a WAIT_VSYNC in a level-1 buffer, behind a FENCE of that buffer */
  fresh();
  chip_buf_clear(&ib);
  chip_pkt_fence(&ib, FENCE, 7, 0);
  chip_pkt_wait_vsync(&ib, 0);
  chip_pkt_fence(&ib, FENCE, 8, 0);
  put_buf(IB1, &ib);
  chip_buf_clear(&b);
  chip_pkt_indirect(&b, IB1, chip_buf_bytes(&ib), 5, 0);
  chip_submit(&r, &b);
  CHIP_CHECK(chip_wait_fence(sim, FENCE, 7, 5000) == 0, "the first FENCE");
  sgpu_sim_run(sim, 20, 0);
  preempt(0x33, s);
  expect(s, chip_buf_bytes(&b), 1 | SGPU_SAVE_LEVEL_IN_WAIT, IB1 + 12, IB1 + chip_buf_bytes(&ib), 0, 0,
         "WAIT_VSYNC in a level-1 buffer");
  CHIP_CHECK(chip_peek(sim, FENCE) == 7, "the FENCE after the cut WAIT ran");

  /* 4. a WAIT_MEM in a level-2 buffer, behind a NOP of level 1 */
  fresh();
  chip_buf clr;
  chip_buf_init(&clr);
  chip_pkt_wait_mem(&clr, FLAG, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ); /* never: stops here */
  put_buf(IB2, &clr);
  chip_buf_clear(&ib);
  chip_pkt_nop(&ib, 1);
  chip_pkt_indirect(&ib, IB2, chip_buf_bytes(&clr), 0, 0);
  chip_pkt_nop(&ib, 0);
  put_buf(IB1, &ib);
  chip_buf_clear(&b);
  chip_pkt_indirect(&b, IB1, chip_buf_bytes(&ib), 5, 0);
  chip_submit(&r, &b);
  sgpu_sim_run(sim, 600, 0);
  preempt(0x44, s);
  expect(s, chip_buf_bytes(&b), 2 | SGPU_SAVE_LEVEL_IN_WAIT, IB1 + 8 + 16, IB1 + chip_buf_bytes(&ib), IB2,
         IB2 + chip_buf_bytes(&clr), "WAIT_MEM in a level-2 buffer");
  chip_buf_free(&clr);

  /* 5. WAIT_SCANLINE at level 1 */
  fresh();
  chip_buf_clear(&ib);
  chip_pkt_wait_scanline(&ib, 0, 0, 470); /* the beam is in these lines for a while after reset */
  put_buf(IB1, &ib);
  chip_buf_clear(&b);
  chip_pkt_indirect(&b, IB1, chip_buf_bytes(&ib), 5, 0);
  chip_submit(&r, &b);
  sgpu_sim_run(sim, 300, 0);
  CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_WAITING, "WAIT_SCANLINE is not waiting");
  preempt(0x55, s);
  expect(s, chip_buf_bytes(&b), 1 | SGPU_SAVE_LEVEL_IN_WAIT, IB1, IB1 + chip_buf_bytes(&ib), 0, 0,
         "WAIT_SCANLINE in a level-1 buffer");

  /* 6. a FILL and an overlapping COPY (rows bottom-up) in a level-1 buffer,
   * cut at different points: what is left is at most part of a row and
   * whole rows, inside the rectangle, leaving something done */
  uint64_t worst = 0;
  uint32_t cuts = 0, parts = 0;
  for (int kind = 0; kind < 2; kind++)
    for (uint32_t delay = 200; delay < 40000; delay = delay * 3 / 2 + 77) {
      fresh();
      chip_buf_clear(&ib);
      const uint32_t h = 64, wid = kind ? 1000 : PITCH;
      if (kind) chip_pkt_copy(&ib, DST + 2 * PITCH + 3, PITCH, DST + 1, PITCH, wid, h - 2);
      else chip_pkt_fill(&ib, DST, PITCH, wid, h, 0x12345678u);
      put_buf(IB1, &ib);
      chip_buf_clear(&b);
      chip_pkt_indirect(&b, IB1, chip_buf_bytes(&ib), 5, 0);
      chip_submit(&r, &b);
      sgpu_sim_run(sim, delay, 0);
      if (!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_BUSY)) break;
      uint64_t lat = preempt(0x66, s);
      if (!(s[SGPU_SAVE_LEVEL] & SGPU_SAVE_LEVEL_IN_RECT)) continue;
      const uint32_t rows = kind ? h - 2 : h, first = s[SGPU_SAVE_RECT] & 0xFFFF, count = s[SGPU_SAVE_RECT] >> 16;
      const uint32_t part = (s[SGPU_SAVE_RECT_ROW] >> 16) & 1, prow = s[SGPU_SAVE_RECT_ROW] & 0xFFFF;
      const uint32_t lo = s[SGPU_SAVE_RECT_PART] & 0xFFFF, hi = s[SGPU_SAVE_RECT_PART] >> 16;
      CHIP_CHECK(s[SGPU_SAVE_LEVEL] == (1 | SGPU_SAVE_LEVEL_IN_RECT) && s[SGPU_SAVE_IB1_NEXT] == IB1,
                 "cut: LEVEL 0x%x IB1_NEXT 0x%x", s[SGPU_SAVE_LEVEL], s[SGPU_SAVE_IB1_NEXT]);
      CHIP_CHECK(first + count <= rows && (part || count) && (!part || (prow < rows && lo < hi && hi <= wid)) &&
                     !(count == rows),
                 "cut of %ux%u leaves part %u row %u bytes %u..%u, rows %u+%u", wid, rows, part, prow, lo, hi, first,
                 count);
      cuts++;
      parts += part;
      if (lat > worst) worst = lat;
    }
  printf("ok - %u FILL/COPY cuts (%u inside a row)\n", cuts, parts);
  CHIP_CHECK(cuts >= 10 && parts >= 3, "too few cuts: %u (%u inside a row)", cuts, parts);
  chip_figure("chip_preempt_rect_latency_max_cycles", (double)worst);

  /* 7. a faulted node ignores PREEMPT */
  fresh();
  chip_buf_clear(&b);
  chip_buf_word(&b, SGPU_PKT_HEADER(0x3F, 0, 0)); /* illegal opcode */
  chip_submit(&r, &b);
  sgpu_sim_run(sim, 300, 0);
  CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_FAULTED, "no fault");
  chip_nwr(sim, 0, SGPU_NREG_PREEMPT, 0x77);
  sgpu_sim_run(sim, 500, 0);
  CHIP_CHECK(!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_PREEMPTED), "a faulted node took PREEMPT");
  printf("ok - a faulted node ignores PREEMPT\n");

  chip_buf_free(&b);
  chip_buf_free(&ib);
  sgpu_sim_destroy(sim);
  printf("PASS test_chip_preempt\n");
  return 0;
}
