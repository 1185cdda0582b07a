/* test_diff_regressions — directed cases, chip against the reference model,
 * for the points where the differential test first disagreed and the model
 * was fixed (the interface text left them open):
 *
 *  fault_fence_survives_reset   RESET clears the fault, IB stack, context and
 *      pointers, not the fence in flight: a ring-level fault after RESET
 *      reports the fence id of the last ring-level INDIRECT before it.
 *  scanline_wait_ends_in_vblank   the beam is on a line only outside
 *      vertical blanking: WAIT_SCANLINE over lines 0..65535 ends by the next
 *      vblank instead of timing out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"
#include "sgpu_ref.h"

#define RING 0x00010000u
#define RING_SIZE 0x400u
#define IB 0x00020000u
#define FENCE 0x00030000u

typedef struct pair {
  sgpu_sim *sim;
  sgpu_ref *ref;
  chip_ring ring;
} pair;

static void ref_wr(pair *p, uint32_t off, uint32_t v) {
  CHIP_CHECK(sgpu_ref_reg_write(p->ref, off, v) == 0, "model register 0x%03x", off);
}

static uint32_t ref_rd(pair *p, uint32_t off) {
  uint32_t v = 0;
  CHIP_CHECK(sgpu_ref_reg_read(p->ref, off, &v) == 0, "model register 0x%03x", off);
  return v;
}

static void open_pair(pair *p, uint32_t watchdog, int display) {
  p->sim = chip_create(NULL);
  sgpu_ref_config rc = {sgpu_sim_mem_bytes(p->sim), sgpu_sim_nodes(p->sim), sgpu_sim_sources(p->sim),
                        SGPU_MAX_IB_DEPTH};
  p->ref = sgpu_ref_create(&rc);
  CHIP_CHECK(p->ref != NULL, "sgpu_ref_create");
  if (display)
    chip_wr(p->sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL), (1u << SGPU_DISP_ENABLE_SHIFT) | (1u << SGPU_DISP_TINY_SHIFT));
  chip_ring_init(&p->ring, p->sim, 0, RING, RING_SIZE);
  chip_nwr(p->sim, 0, SGPU_NREG_WATCHDOG, watchdog);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), RING);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), RING_SIZE);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_WATCHDOG), watchdog);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
}

static void close_pair(pair *p) {
  sgpu_ref_destroy(p->ref);
  sgpu_sim_destroy(p->sim);
}

static void put_both(pair *p, uint32_t addr, const chip_buf *b) {
  chip_mem_write(p->sim, addr, b->w, chip_buf_bytes(b));
  CHIP_CHECK(sgpu_ref_mem_write(p->ref, addr, b->w, chip_buf_bytes(b)) == 0, "model memory");
}

/* Ring the packets on both; run the chip until idle or faulted; compare. */
static void submit_both(pair *p, const chip_buf *b, const char *name) {
  uint32_t at = p->ring.wptr;
  chip_ring_put(&p->ring, b);
  for (size_t i = 0; i < b->n; i++) {
    uint32_t a = RING + ((at + 4 * (uint32_t)i) & (RING_SIZE - 1));
    CHIP_CHECK(sgpu_ref_mem_write(p->ref, a, &b->w[i], 4) == 0, "model ring");
  }
  chip_doorbell(&p->ring);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), p->ring.wptr);
  int st = chip_wait_idle(p->sim, 0, 200000);
  CHIP_CHECK(st >= 0, "%s: chip neither idle nor faulted", name);
  static const uint32_t regs[] = {SGPU_NREG_FAULT_REASON, SGPU_NREG_FAULT_ADDR, SGPU_NREG_FAULT_OPCODE,
                                  SGPU_NREG_FAULT_FENCE, SGPU_NREG_RING_RPTR, SGPU_NREG_LAST_FENCE};
  static const char *const names[] = {"FAULT_REASON", "FAULT_ADDR", "FAULT_OPCODE", "FAULT_FENCE", "RING_RPTR", "LAST_FENCE"};
  uint32_t ms = ref_rd(p, SGPU_NODE_REG(0, SGPU_NREG_STATUS));
  CHIP_EQ(st == 1, (ms & SGPU_STATUS_FAULTED) != 0, "STATUS.FAULTED (chip vs model)");
  for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
    uint32_t c = chip_nrd(p->sim, 0, regs[i]), m = ref_rd(p, SGPU_NODE_REG(0, regs[i]));
    if (c != m) chip_fail(__FILE__, __LINE__, "%s: %s chip 0x%08x, model 0x%08x", name, names[i], c, m);
  }
}

static void reset_both(pair *p) {
  chip_ring_reset(&p->ring);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
}

static void fault_fence_survives_reset(void) {
  pair p;
  open_pair(&p, 100000, 0);
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  chip_buf_word(&ib, 0); /* BAD_HEADER inside the submission 0x1234 */
  put_both(&p, IB, &ib);
  chip_pkt_indirect(&rb, IB, 4, 0x1234, 0);
  submit_both(&p, &rb, "fault in the IB");
  CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_FAULT_FENCE), 0x1234, "FAULT_FENCE of the faulting submission");
  reset_both(&p);
  chip_buf_clear(&rb);
  chip_pkt_wait_vsync(&rb, 7); /* BAD_PARAM in the ring itself, no INDIRECT since RESET */
  submit_both(&p, &rb, "ring-level fault after RESET");
  CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_FAULT_REASON), SGPU_FAULT_BAD_PARAM, "FAULT_REASON");
  CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_FAULT_FENCE), 0x1234, "FAULT_FENCE after RESET (the last ring-level INDIRECT)");
  chip_buf_free(&ib);
  chip_buf_free(&rb);
  close_pair(&p);
  printf("fault_fence_survives_reset: chip == model\n");
}

static void scanline_wait_ends_in_vblank(void) {
  pair p;
  open_pair(&p, 20000, 1); /* watchdog above a TINY frame (4480 cycles) */
  chip_buf rb;
  chip_buf_init(&rb);
  chip_pkt_wait_scanline(&rb, 0, 0, 0xFFFF); /* every line: ends only in vblank */
  chip_pkt_wait_scanline(&rb, 0, 10, 10);
  chip_pkt_fence(&rb, FENCE, 77, 0);
  submit_both(&p, &rb, "WAIT_SCANLINE 0..65535");
  CHIP_EQ(chip_peek(p.sim, FENCE), 77, "fence after the scanline waits");
  chip_buf_free(&rb);
  close_pair(&p);
  printf("scanline_wait_ends_in_vblank: chip == model\n");
}

int main(void) {
  fault_fence_survives_reset();
  scanline_wait_ends_in_vblank();
  printf("test_diff_regressions: PASS\n");
  return 0;
}
