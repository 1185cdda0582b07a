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
 *  vm_translated_execution   (not a regression: the model's VM against
 *      addresses worked out by hand, and against the chip when it has
 *      CAPS.VM) a VM context whose adjacent virtual pages lie apart:
 *      WRITE_DATA, FILL and COPY rows split across them, FENCE, WAIT_MEM,
 *      TIMESTAMP and FLIP translated, the ring's FENCE physical, VM_ROOT;
 *      then a write to a read-only page: PAGE_PROTECTION with FAULT_VA /
 *      FAULT_ACCESS, nothing written, and all three 0 after RESET.
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

/* The model alone, or (chip_vm) both, run the ring packets b. */
static void run_vm(pair *p, int chip_vm, const chip_buf *b, const char *name) {
  if (chip_vm) {
    submit_both(p, b, name);
    return;
  }
  uint32_t at = p->ring.wptr;
  for (size_t i = 0; i < b->n; i++) {
    uint32_t a = RING + ((at + 4 * (uint32_t)i) & (RING_SIZE - 1));
    CHIP_CHECK(sgpu_ref_mem_write(p->ref, a, &b->w[i], 4) == 0, "model ring");
  }
  p->ring.wptr = (at + 4 * (uint32_t)b->n) & (RING_SIZE - 1);
  ref_wr(p, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), p->ring.wptr);
}

static void vm_translated_execution(void) {
  enum { PD = 0x00700000u, BUF = 0x00100000u, VA = 0x00205000u, VB = 0x00206000u, VRO = 0x00207000u };
  enum { FBUF = 0x00300000u, FA = 0x00350000u, FB = 0x00347000u, FRO = 0x00352000u };
  pair p;
  open_pair(&p, 100000, 0);
  const int chip_vm = SGPU_FIELD_GET(CAPS_VM, chip_rd(p.sim, SGPU_REG_CAPS)) != 0;
  sgpu_ref_set_vm(p.ref, 1);
  const uint32_t map[][2] = {{BUF, FBUF | SGPU_PTE_VALID_MASK},
                             {VA, FA | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK},
                             {VB, FB | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK},
                             {VRO, FRO | SGPU_PTE_VALID_MASK}};
  chip_buf t, ib, rb;
  chip_buf_init(&t);
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  for (uint32_t i = 0; i < 2 * SGPU_PT_ENTRIES; i++) chip_buf_word(&t, 0);
  t.w[0] = (PD + SGPU_PAGE_BYTES) | SGPU_PDE_VALID_MASK;
  for (size_t i = 0; i < 4; i++) t.w[SGPU_PT_ENTRIES + map[i][0] / SGPU_PAGE_BYTES % SGPU_PT_ENTRIES] = map[i][1];
  put_both(&p, PD, &t);
  const uint32_t wd[2] = {0xA1A1A1A1u, 0xA2A2A2A2u};
  chip_pkt_write_data(&ib, VA + 0xFFC, wd, 2);             /* -> FA+0xFFC, FB */
  chip_pkt_fill(&ib, VA + 0xFF0, 0x20, 0x20, 2, 0x44332211u); /* row 0 in both pages, row 1 in VB */
  chip_pkt_copy(&ib, VB + 0x100, 16, VA + 0xFF8, 16, 16, 1); /* source split, destination FB+0x100 */
  chip_pkt_fence(&ib, VB + 0x200, 0x77, 0);
  chip_pkt_wait_mem(&ib, VB + 0x200, 0xFFFFFFFFu, 0x77, SGPU_WAIT_FUNC_EQ); /* holds only if translated */
  chip_pkt_timestamp(&ib, VB + 0x300);
  if (sgpu_sim_sources(p.sim)) chip_pkt_flip(&ib, 0, VRO + 0x40, SGPU_HW_FLIP_INTERVAL_IMMEDIATE, 0);
  put_both(&p, FBUF, &ib); /* the buffer's frame */
  chip_buf_word(&rb, SGPU_PKT_HEADER(SGPU_OP_CONTEXT, SGPU_OP_CONTEXT_COUNT, SGPU_CONTEXT_FLAG_VM));
  chip_buf_word(&rb, 5);
  chip_buf_word(&rb, PD + 0x48C); /* bits [11:0] ignored */
  chip_buf_word(&rb, SGPU_PAGE_BYTES);
  chip_pkt_indirect(&rb, BUF, chip_buf_bytes(&ib), 0x51, 0);
  chip_pkt_fence(&rb, FENCE, 1, 0); /* ring level: physical */
  run_vm(&p, chip_vm, &rb, "VM buffer");
  /* what the tables say, worked out by hand */
  const uint8_t *m = sgpu_ref_memory(p.ref);
  uint32_t w;
  const struct { uint32_t pa, v; } want[] = {
      {FA + 0xFF0, 0x44332211u}, {FA + 0xFFC, 0x44332211u}, {FB, 0x44332211u}, {FB + 0xC, 0x44332211u},
      {FB + 0x10, 0x44332211u}, {FB + 0x2C, 0x44332211u}, {FB + 0x30, 0},     {FB + 0x100, 0x44332211u},
      {FB + 0x10C, 0x44332211u}, {FB + 0x200, 0x77},     {FENCE, 1},         {VB + 0x200, 0}};
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED, 0, "model: no fault");
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    memcpy(&w, m + want[i].pa, 4);
    if (w != want[i].v) chip_fail(__FILE__, __LINE__, "model: word at 0x%08x is 0x%08x, want 0x%08x", want[i].pa, w, want[i].v);
    if (chip_vm && chip_peek(p.sim, want[i].pa) != want[i].v)
      chip_fail(__FILE__, __LINE__, "chip: word at 0x%08x is 0x%08x, want 0x%08x", want[i].pa, chip_peek(p.sim, want[i].pa),
                want[i].v);
  }
  CHIP_EQ(sgpu_ref_chip_defined(p.ref)[FB + 0x300] && sgpu_ref_chip_defined(p.ref)[FB + 0x307], 1,
          "model: TIMESTAMP in the translated frame");
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_VM_ROOT)), PD, "model: VM_ROOT");
  if (sgpu_sim_sources(p.sim)) {
    const sgpu_ref_flip *fl;
    CHIP_EQ(sgpu_ref_flips(p.ref, &fl), 1, "model: one flip");
    CHIP_EQ(fl[0].addr, FRO + 0x40, "model: the display gets the physical address");
    if (chip_vm) CHIP_EQ(chip_rd(p.sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE)), FRO + 0x40, "chip: DISP_BASE");
  }
  if (chip_vm) {
    CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_VM_ROOT), PD, "chip: VM_ROOT");
    CHIP_CHECK(chip_peek(p.sim, FB + 0x300) | chip_peek(p.sim, FB + 0x304), "chip: TIMESTAMP in the translated frame");
  }
  /* a write to the read-only page: faults, writes nothing */
  chip_buf_clear(&ib);
  const uint32_t two[2] = {1, 2};
  chip_pkt_write_data(&ib, VB + 0xFFC, two, 2); /* its second word lies in VRO */
  put_both(&p, FBUF + 0x800, &ib);
  chip_buf_clear(&rb);
  chip_pkt_indirect(&rb, BUF + 0x800, chip_buf_bytes(&ib), 0x52, 0);
  run_vm(&p, chip_vm, &rb, "write to a read-only page");
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_FAULT_REASON)), SGPU_FAULT_PAGE_PROTECTION, "model: FAULT_REASON");
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_FAULT_ADDR)), BUF + 0x800, "model: FAULT_ADDR (virtual)");
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_FAULT_VA)), VRO, "model: FAULT_VA (the read-only page's base)");
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_FAULT_ACCESS)), SGPU_HW_ACCESS_WRITE, "model: FAULT_ACCESS");
  memcpy(&w, m + FB + 0xFFC, 4);
  CHIP_EQ(w, 0, "model: the faulting WRITE_DATA wrote nothing");
  if (chip_vm) {
    CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_FAULT_VA), VRO, "chip: FAULT_VA");
    CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_FAULT_ACCESS), SGPU_HW_ACCESS_WRITE, "chip: FAULT_ACCESS");
    CHIP_EQ(chip_peek(p.sim, FB + 0xFFC), 0, "chip: the faulting WRITE_DATA wrote nothing");
    reset_both(&p);
    CHIP_EQ(chip_nrd(p.sim, 0, SGPU_NREG_FAULT_VA) | chip_nrd(p.sim, 0, SGPU_NREG_FAULT_ACCESS) |
                chip_nrd(p.sim, 0, SGPU_NREG_VM_ROOT),
            0, "chip: FAULT_VA, FAULT_ACCESS, VM_ROOT after RESET");
  } else {
    ref_wr(&p, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
  }
  CHIP_EQ(ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_FAULT_VA)) | ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_FAULT_ACCESS)) |
              ref_rd(&p, SGPU_NODE_REG(0, SGPU_NREG_VM_ROOT)),
          0, "model: FAULT_VA, FAULT_ACCESS, VM_ROOT after RESET");
  chip_buf_free(&t);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
  close_pair(&p);
  printf("vm_translated_execution: model == the tables%s\n", chip_vm ? ", chip == model" : " (the chip has no CAPS.VM)");
}

int main(void) {
  fault_fence_survives_reset();
  scanline_wait_ends_in_vblank();
  vm_translated_execution();
  printf("test_diff_regressions: PASS\n");
  return 0;
}
