/* test_chip_vm — GPU virtual memory on the whole chip (CAPS.VM).
 *
 * Page tables are written by hand in GPU memory; rings run CONTEXT(VM) and
 * INDIRECT to buffers at virtual addresses.  After every scene the whole
 * memory is compared byte for byte with an image built here independently:
 * the packets' effects applied with memcpy/memset to the physical pages the
 * test's own mapping table names (never by reading the page tables back).
 *
 * Scenes: translated WRITE_DATA / FENCE / TIMESTAMP / WAIT_MEM / FILL / COPY
 * and a nested INDIRECT, over pages whose frames are scattered;
 * PAGE_NOT_PRESENT (missing PTE, missing PDE, the IB fetch, a COPY source,
 * WAIT_MEM) and PAGE_PROTECTION (a FILL whose last page is read-only) with
 * FAULT_VA / FAULT_ACCESS / FAULT_REASON and nothing written by the faulting
 * packet; TLB_INVALIDATE (a stale entry used without it, a fault with it);
 * two VM contexts mapping one VA to different frames; a physical context
 * and the null context unchanged; TLB_INVALIDATE / CONTEXT in an IB fault
 * PRIVILEGED.  Then the figures: IB fetch, FILL and COPY words per cycle
 * with and without VM (asserted: fetch >= 0.95, COPY >= 0.45 with VM), the
 * page check of a 640x480x2 FILL, and that FILL's pages from the memory
 * request log: inside each page one word a cycle (asserted, VM and
 * physical) and the gap at each page crossing, the VM one a TLB miss (a
 * walk; asserted <= 8 cycles, reported as the cost of a miss).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING0 0x00010000u
#define RING_SIZE 0x4000u
#define FENCE0 0x0001F000u
#define PD_A 0x00030000u /* page directories */
#define PD_B 0x00031000u
#define PT_A 0x00032000u /* page tables (directory entry 0) */
#define PT_B 0x00033000u
#define FRAMES 0x00100000u /* physical frames the contexts map */
#define NFRAMES 256u
#define WIN_BASE 0x00300000u /* a physical context's window */
#define WIN_SIZE 0x00010000u

/* The test's own view of context A's (and B's) mapping: VA page -> frame. */
#define VPAGES 1024u /* directory entry 0: VA [0, 4 MiB) */
typedef struct map {
  int valid[VPAGES], writable[VPAGES];
  uint32_t frame[VPAGES]; /* physical address of the page */
} map;
static map ma, mb;
static uint32_t mem_bytes;
static uint8_t *expect; /* the memory image the chip must hold */
static uint8_t *actual;
static uint32_t fence_no = 0x100;

/* VA pages used */
#define VA_DATA 0x00100000u /* 32 data pages, scattered frames */
#define VA_IB 0x00200000u   /* 8 IB pages, scattered frames, read-only */
#define RO_PAGE 20u         /* data page 20: read-only */
#define NP_PAGE 25u         /* data page 25: not present */
#define STALE_PAGE 26u      /* data page 26: unmapped later (TLB_INVALIDATE scene) */
#define B_PAGE 0x120u       /* VA page mapped to different frames in A and B */

static uint32_t pte(uint32_t frame, int writable) {
  return (frame & SGPU_PTE_FRAME_MASK) | SGPU_PTE_VALID_MASK | (writable ? SGPU_PTE_WRITABLE_MASK : 0);
}
static void map_page(map *m, uint32_t pt, uint32_t vpage, uint32_t frame, int valid, int writable) {
  m->valid[vpage] = valid;
  m->writable[vpage] = writable;
  m->frame[vpage] = frame;
  uint32_t e = valid ? pte(frame, writable) : 0;
  memcpy(expect + pt + 4 * vpage, &e, 4);
}
/* physical address of va in m (the test's table, not the chip's) */
static uint32_t pa_of(const map *m, uint32_t va) {
  uint32_t p = va >> 12;
  CHIP_CHECK(p < VPAGES && m->valid[p], "test bug: va 0x%x not mapped", va);
  return m->frame[p] | (va & 0xFFFu);
}
static void exp_write(const map *m, uint32_t va, const void *src, uint32_t n) {
  const uint8_t *s = src;
  for (uint32_t i = 0; i < n; i++) expect[pa_of(m, va + i)] = s[i];
}
static void exp_read(const map *m, uint32_t va, void *dst, uint32_t n) {
  uint8_t *d = dst;
  for (uint32_t i = 0; i < n; i++) d[i] = expect[pa_of(m, va + i)];
}
/* A buffer placed at a VA: its bytes go to the frames (backdoor) and to the image. */
static void put_buf(sgpu_sim *sim, const map *m, uint32_t va, const chip_buf *b) {
  const uint8_t *s = (const uint8_t *)b->w;
  for (uint32_t i = 0; i < chip_buf_bytes(b); i += 4) {
    uint32_t pa = pa_of(m, va + i), w;
    memcpy(&w, s + i, 4);
    chip_poke(sim, pa, w);
    memcpy(expect + pa, &w, 4);
  }
}
static void phys_put(sgpu_sim *sim, uint32_t pa, const void *src, uint32_t n) {
  sgpu_sim_backdoor_write(sim, pa, src, n);
  memcpy(expect + pa, src, n);
}
static void exp_fill(const map *m, uint32_t va, uint32_t pitch, uint32_t w, uint32_t h, uint32_t pat) {
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      uint32_t a = va + y * pitch + x;
      expect[pa_of(m, a)] = (uint8_t)(pat >> (8 * (a % 4)));
    }
}
static void exp_copy(const map *m, uint32_t dst, uint32_t dp, uint32_t src, uint32_t sp, uint32_t w, uint32_t h) {
  uint8_t *tmp = malloc((size_t)w * h);
  for (uint32_t y = 0; y < h; y++) exp_read(m, src + y * sp, tmp + (size_t)y * w, w);
  for (uint32_t y = 0; y < h; y++) exp_write(m, dst + y * dp, tmp + (size_t)y * w, w);
  free(tmp);
}

/* Packets the chip_util builders do not make. */
static void pkt_context_vm(chip_buf *b, uint32_t id, uint32_t pd) {
  chip_buf_word(b, SGPU_PKT_HEADER(SGPU_OP_CONTEXT, SGPU_OP_CONTEXT_COUNT, SGPU_CONTEXT_FLAG_VM));
  chip_buf_word(b, id);
  chip_buf_word(b, pd);
  chip_buf_word(b, 4096);
}
static void pkt_tlb_invalidate(chip_buf *b) {
  chip_buf_word(b, SGPU_PKT_HEADER(SGPU_OP_TLB_INVALIDATE, 0, 0));
}

/* Compare the chip's memory with the image (the ring area excepted: the
 * host wrote the packets there). */
static void compare(sgpu_sim *sim, const char *scene) {
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, 0, actual, mem_bytes) == 0, "backdoor read");
  memcpy(expect + RING0, actual + RING0, RING_SIZE);
  for (uint32_t a = 0; a < mem_bytes; a++)
    if (actual[a] != expect[a]) {
      uint32_t n = 0;
      for (uint32_t b = a; b < mem_bytes; b++) n += actual[b] != expect[b];
      chip_fail(__FILE__, __LINE__, "%s: memory differs at 0x%08x: 0x%02x, expected 0x%02x (%u bytes differ)", scene,
                a, actual[a], expect[a], n);
    }
}

/* Submit ring packets, then a physical FENCE; wait for it (ok) or for a fault. */
static int run_ring(sgpu_sim *sim, chip_ring *ring, chip_buf *rb, uint64_t max_cycles, uint64_t *cycles) {
  uint32_t f = ++fence_no;
  chip_pkt_fence(rb, FENCE0, f, 0);
  uint64_t t0 = sgpu_sim_cycle(sim);
  chip_submit(ring, rb);
  int r = chip_wait_idle(sim, 0, max_cycles);
  if (cycles) *cycles = sgpu_sim_cycle(sim) - t0;
  if (r == 0) {
    CHIP_EQ(chip_peek(sim, FENCE0), f, "ring fence");
    memcpy(expect + FENCE0, &f, 4);
  }
  return r;
}
static void expect_fault(sgpu_sim *sim, chip_ring *ring, const char *scene, int r, uint32_t reason, uint32_t va,
                         uint32_t access, uint32_t unit) {
  CHIP_CHECK(r == 1, "%s: no fault (wait %d, STATUS 0x%x)", scene, r, chip_nrd(sim, 0, SGPU_NREG_STATUS));
  sgpu_sim_run(sim, 200, 0);
  uint32_t got = chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON);
  uint32_t fva = chip_nrd(sim, 0, SGPU_NREG_FAULT_VA), fac = chip_nrd(sim, 0, SGPU_NREG_FAULT_ACCESS);
  printf("%-28s reason %2u FAULT_VA 0x%08x FAULT_ACCESS 0x%x\n", scene, got, fva, fac);
  CHIP_EQ(got, reason, scene);
  if (reason == SGPU_FAULT_PAGE_NOT_PRESENT || reason == SGPU_FAULT_PAGE_PROTECTION) {
    CHIP_EQ(fva, va, "FAULT_VA");
    CHIP_EQ(fac, access | unit << SGPU_FAULT_ACCESS_UNIT_SHIFT, "FAULT_ACCESS");
  } else {
    CHIP_EQ(fva, 0, "FAULT_VA after another fault");
    CHIP_EQ(fac, 0, "FAULT_ACCESS after another fault");
  }
  compare(sim, scene);
  chip_ring_reset(ring);
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_FAULT_VA), 0, "FAULT_VA after reset");
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_FAULT_ACCESS), 0, "FAULT_ACCESS after reset");
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_VM_ROOT), 0, "VM_ROOT after reset");
}

/* One IB at VA_IB + off in context A, run from a ring with CONTEXT(VM). */
static int run_ib_a(sgpu_sim *sim, chip_ring *ring, chip_buf *ib, uint32_t off, uint64_t *cycles) {
  put_buf(sim, &ma, VA_IB + off, ib);
  chip_buf rb;
  chip_buf_init(&rb);
  pkt_context_vm(&rb, 1, PD_A);
  chip_pkt_indirect(&rb, VA_IB + off, chip_buf_bytes(ib), fence_no + 1, 0);
  int r = run_ring(sim, ring, &rb, 2000000, cycles);
  chip_buf_free(&rb);
  return r;
}

static void scene_translated(sgpu_sim *sim, chip_ring *ring) {
  chip_buf ib, ib2;
  chip_buf_init(&ib);
  chip_buf_init(&ib2);
  uint32_t d[6] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u, 0x55555555u, 0x66666666u};
  /* WRITE_DATA across data pages 0 -> 1 */
  chip_pkt_write_data(&ib, VA_DATA + 0xFF8, d, 4);
  exp_write(&ma, VA_DATA + 0xFF8, d, 16);
  chip_pkt_fence(&ib, VA_DATA + 0x2010, 0xFE11CE, 0);
  uint32_t fv = 0xFE11CE;
  exp_write(&ma, VA_DATA + 0x2010, &fv, 4);
  /* WAIT_MEM on the fence just written (translated read) */
  chip_pkt_wait_mem(&ib, VA_DATA + 0x2010, 0xFFFFFFFFu, 0xFE11CE, SGPU_WAIT_FUNC_EQ);
  chip_pkt_timestamp(&ib, VA_DATA + 0x3FFC); /* its two words straddle pages 3 -> 4 */
  /* FILL over pages 4..7 (rows' gaps included), then COPY out of it to pages 8..10 */
  chip_pkt_fill(&ib, VA_DATA + 0x4064, 300, 200, 40, 0xA1B2C3D4u);
  chip_pkt_copy(&ib, VA_DATA + 0x8006, 512, VA_DATA + 0x4070, 300, 150, 20);
  /* nested INDIRECT (second IB page) writing page 10 */
  chip_pkt_write_data(&ib2, VA_DATA + 0xA000, d + 4, 2);
  put_buf(sim, &ma, VA_IB + 0x1FF8, &ib2); /* straddles IB pages 1 -> 2 */
  chip_pkt_indirect(&ib, VA_IB + 0x1FF8, chip_buf_bytes(&ib2), 0, 0);
  uint64_t cyc;
  int r = run_ib_a(sim, ring, &ib, 0xFC0, &cyc); /* the IB straddles IB pages 0 -> 1 */
  CHIP_CHECK(r == 0, "translated: fault %u (FAULT_VA 0x%x)", chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON),
             chip_nrd(sim, 0, SGPU_NREG_FAULT_VA));
  /* TIMESTAMP: whatever count it wrote, at the translated addresses */
  uint32_t ts[2] = {chip_peek(sim, pa_of(&ma, VA_DATA + 0x3FFC)), chip_peek(sim, pa_of(&ma, VA_DATA + 0x4000))};
  CHIP_CHECK(ts[0] != 0 && ts[1] == 0, "timestamp 0x%08x%08x", ts[1], ts[0]);
  exp_write(&ma, VA_DATA + 0x3FFC, ts, 8);
  exp_fill(&ma, VA_DATA + 0x4064, 300, 200, 40, 0xA1B2C3D4u);
  exp_copy(&ma, VA_DATA + 0x8006, 512, VA_DATA + 0x4070, 300, 150, 20);
  exp_write(&ma, VA_DATA + 0xA000, d + 4, 8);
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_VM_ROOT), PD_A, "VM_ROOT in a VM context");
  compare(sim, "translated");
  printf("%-28s ok (%llu cycles)\n", "translated", (unsigned long long)cyc);
  chip_buf_free(&ib);
  chip_buf_free(&ib2);
}

static void scene_faults(sgpu_sim *sim, chip_ring *ring) {
  uint32_t d[4] = {0xBAD00001u, 0xBAD00002u, 0xBAD00003u, 0xBAD00004u};
  uint32_t mark = 0x600D0000u;
  chip_buf ib;
  chip_buf_init(&ib);
#define MARKER() do { mark++; chip_pkt_write_data(&ib, VA_DATA + 0x1F000, &mark, 1); \
                      exp_write(&ma, VA_DATA + 0x1F000, &mark, 4); } while (0)
  /* missing PTE: WRITE_DATA whose last two words fall on page NP_PAGE */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_write_data(&ib, VA_DATA + NP_PAGE * 0x1000 - 8, d, 4);
  expect_fault(sim, ring, "missing PTE (WRITE_DATA)", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               VA_DATA + NP_PAGE * 0x1000, SGPU_HW_ACCESS_WRITE, SGPU_HW_UNIT_CP);
  /* missing PDE: FENCE at 4 MiB (directory entry 1 not valid) */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_fence(&ib, 0x00400010u, 1, 0);
  expect_fault(sim, ring, "missing PDE (FENCE)", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               0x00400010u, SGPU_HW_ACCESS_WRITE, SGPU_HW_UNIT_CP);
  /* WAIT_MEM on a page not present */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_wait_mem(&ib, VA_DATA + NP_PAGE * 0x1000 + 0x40, 0xFFFFFFFFu, 0, SGPU_WAIT_FUNC_EQ);
  expect_fault(sim, ring, "WAIT_MEM not present", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               VA_DATA + NP_PAGE * 0x1000 + 0x40, SGPU_HW_ACCESS_READ, SGPU_HW_UNIT_CP);
  /* FILL whose last page is read-only: rows on pages RO-2, RO-1, RO */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_fill(&ib, VA_DATA + (RO_PAGE - 2) * 0x1000 + 0x800, 0x1000, 16, 3, 0xFFFFFFFFu);
  expect_fault(sim, ring, "FILL read-only last page", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_PROTECTION,
               VA_DATA + RO_PAGE * 0x1000, SGPU_HW_ACCESS_WRITE, SGPU_HW_UNIT_2D);
  /* WRITE_DATA to a read-only page */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_write_data(&ib, VA_DATA + RO_PAGE * 0x1000 + 0x100, d, 1);
  expect_fault(sim, ring, "WRITE_DATA read-only", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_PROTECTION,
               VA_DATA + RO_PAGE * 0x1000 + 0x100, SGPU_HW_ACCESS_WRITE, SGPU_HW_UNIT_CP);
  /* COPY: destination fine, source reaches a page not present */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_copy(&ib, VA_DATA + 0x11000, 256, VA_DATA + (NP_PAGE - 1) * 0x1000 + 0xF00, 256, 64, 3);
  expect_fault(sim, ring, "COPY source not present", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               VA_DATA + NP_PAGE * 0x1000, SGPU_HW_ACCESS_READ, SGPU_HW_UNIT_2D);
  /* COPY from a read-only page is fine (a read) */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_copy(&ib, VA_DATA + 0x11000, 256, VA_DATA + RO_PAGE * 0x1000, 256, 64, 3);
  CHIP_CHECK(run_ib_a(sim, ring, &ib, 0, NULL) == 0, "COPY from a read-only page faulted");
  exp_copy(&ma, VA_DATA + 0x11000, 256, VA_DATA + RO_PAGE * 0x1000, 256, 64, 3);
  compare(sim, "COPY from read-only");
  /* nested INDIRECT to a page not present */
  chip_buf_clear(&ib); MARKER();
  chip_pkt_indirect(&ib, VA_DATA + NP_PAGE * 0x1000, 64, 0, 0);
  expect_fault(sim, ring, "nested IB not present", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               VA_DATA + NP_PAGE * 0x1000, SGPU_HW_ACCESS_FETCH, SGPU_HW_UNIT_CP);
  /* the ring's INDIRECT: its buffer's second page is not present */
  {
    chip_buf rb;
    chip_buf_init(&rb);
    pkt_context_vm(&rb, 1, PD_A);
    chip_pkt_indirect(&rb, VA_DATA + NP_PAGE * 0x1000 - 0x100, 0x200, 0, 0);
    expect_fault(sim, ring, "ring IB not present", run_ring(sim, ring, &rb, 100000, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
                 VA_DATA + NP_PAGE * 0x1000, SGPU_HW_ACCESS_FETCH, SGPU_HW_UNIT_CP);
    chip_buf_free(&rb);
  }
  /* TLB_INVALIDATE and CONTEXT(VM) inside a buffer */
  chip_buf_clear(&ib); MARKER();
  pkt_tlb_invalidate(&ib);
  expect_fault(sim, ring, "TLB_INVALIDATE in an IB", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PRIVILEGED, 0, 0, 0);
  chip_buf_clear(&ib); MARKER();
  pkt_context_vm(&ib, 2, PD_B);
  expect_fault(sim, ring, "CONTEXT(VM) in an IB", run_ib_a(sim, ring, &ib, 0, NULL), SGPU_FAULT_PRIVILEGED, 0, 0, 0);
#undef MARKER
  chip_buf_free(&ib);
}

/* A stale translation is used until TLB_INVALIDATE; after it the page faults. */
static void scene_tlb_invalidate(sgpu_sim *sim, chip_ring *ring) {
  uint32_t va = VA_DATA + STALE_PAGE * 0x1000, pa = pa_of(&ma, va);
  uint32_t v1 = 0x57A1E001u, v2 = 0x57A1E002u, v3 = 0x57A1E003u;
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  chip_pkt_write_data(&ib, va, &v1, 1);
  CHIP_CHECK(run_ib_a(sim, ring, &ib, 0, NULL) == 0, "stale: first write faulted");
  exp_write(&ma, va, &v1, 4);
  /* unmap the page behind the TLB's back */
  map_page(&ma, PT_A, (va >> 12), pa & ~0xFFFu, 0, 0);
  chip_poke(sim, PT_A + 4 * (va >> 12), 0);
  /* no CONTEXT, no TLB_INVALIDATE: the stale entry is used */
  chip_buf_clear(&ib);
  chip_pkt_write_data(&ib, va + 4, &v2, 1);
  put_buf(sim, &ma, VA_IB + 0x100, &ib);
  chip_pkt_indirect(&rb, VA_IB + 0x100, chip_buf_bytes(&ib), 0, 0);
  CHIP_CHECK(run_ring(sim, ring, &rb, 100000, NULL) == 0, "stale: write through the stale entry faulted (%u)",
             chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  memcpy(expect + pa + 4, &v2, 4);
  compare(sim, "stale TLB entry used");
  printf("%-28s the unmapped page was still written through the TLB\n", "without TLB_INVALIDATE");
  /* with TLB_INVALIDATE first: PAGE_NOT_PRESENT */
  chip_buf_clear(&ib);
  chip_pkt_write_data(&ib, va + 8, &v3, 1);
  put_buf(sim, &ma, VA_IB + 0x200, &ib);
  chip_buf_clear(&rb);
  pkt_tlb_invalidate(&rb);
  chip_pkt_indirect(&rb, VA_IB + 0x200, chip_buf_bytes(&ib), 0, 0);
  expect_fault(sim, ring, "after TLB_INVALIDATE", run_ring(sim, ring, &rb, 100000, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               va + 8, SGPU_HW_ACCESS_WRITE, SGPU_HW_UNIT_CP);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

/* Two VM contexts, one VA, two frames; then a physical context and the null one. */
static void scene_contexts(sgpu_sim *sim, chip_ring *ring) {
  uint32_t va = B_PAGE << 12, va_a = 0xC0A7E00Au, va_b = 0xC0A7E00Bu, w = 0x3141592u, n = 0x2718281u;
  chip_buf iba, ibb, ibw, rb;
  chip_buf_init(&iba); chip_buf_init(&ibb); chip_buf_init(&ibw); chip_buf_init(&rb);
  chip_pkt_write_data(&iba, va + 0x10, &va_a, 1);
  chip_pkt_write_data(&ibb, va + 0x10, &va_b, 1);
  put_buf(sim, &ma, VA_IB + 0x3000, &iba);
  put_buf(sim, &mb, VA_IB + 0x3100, &ibb);
  chip_pkt_write_data(&ibw, WIN_BASE + 0x20, &w, 1);
  phys_put(sim, WIN_BASE + 0x1000, ibw.w, chip_buf_bytes(&ibw));
  pkt_context_vm(&rb, 1, PD_A);
  chip_pkt_indirect(&rb, VA_IB + 0x3000, chip_buf_bytes(&iba), 0, 0);
  pkt_context_vm(&rb, 2, PD_B);
  chip_pkt_indirect(&rb, VA_IB + 0x3100, chip_buf_bytes(&ibb), 0, 0);
  CHIP_CHECK(run_ring(sim, ring, &rb, 100000, NULL) == 0, "two contexts faulted (%u)",
             chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_VM_ROOT), PD_B, "VM_ROOT of context B");
  exp_write(&ma, va + 0x10, &va_a, 4);
  exp_write(&mb, va + 0x10, &va_b, 4);
  CHIP_CHECK(pa_of(&ma, va) != pa_of(&mb, va), "test bug: same frame");
  compare(sim, "two VM contexts");
  /* a physical (window) context, then the null context: physical addresses */
  chip_buf_clear(&rb);
  chip_pkt_context(&rb, 3, WIN_BASE, WIN_SIZE);
  chip_pkt_indirect(&rb, WIN_BASE + 0x1000, chip_buf_bytes(&ibw), 0, 0);
  chip_pkt_context(&rb, 0, 0, 0);
  chip_buf_clear(&ibw);
  chip_pkt_write_data(&ibw, 0x00500000u, &n, 1);
  phys_put(sim, 0x00501000u, ibw.w, chip_buf_bytes(&ibw));
  chip_pkt_indirect(&rb, 0x00501000u, chip_buf_bytes(&ibw), 0, 0);
  CHIP_CHECK(run_ring(sim, ring, &rb, 100000, NULL) == 0, "physical contexts faulted (%u)",
             chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  memcpy(expect + WIN_BASE + 0x20, &w, 4);
  memcpy(expect + 0x00500000u, &n, 4);
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_VM_ROOT), 0, "VM_ROOT of the null context");
  compare(sim, "physical and null contexts");
  /* a physical context's window still holds */
  chip_buf_clear(&rb);
  chip_pkt_context(&rb, 3, WIN_BASE, WIN_SIZE);
  chip_pkt_indirect(&rb, 0x00501000u, chip_buf_bytes(&ibw), 0, 0);
  expect_fault(sim, ring, "window context", run_ring(sim, ring, &rb, 100000, NULL), SGPU_FAULT_CONTEXT_WINDOW, 0, 0,
               0);
  printf("%-28s ok\n", "contexts");
  chip_buf_free(&iba); chip_buf_free(&ibb); chip_buf_free(&ibw); chip_buf_free(&rb);
}

/* FLIP in a buffer: the display takes the translation; at the ring's level
 * (physical) the address as written. */
static void scene_flip(sgpu_sim *sim, chip_ring *ring) {
  uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  chip_wr(sim, src0 + SGPU_SREG_DISP_BASE, 0x00700000u);
  chip_wr(sim, src0 + SGPU_SREG_DISP_CONTROL, (1u << SGPU_DISP_ENABLE_SHIFT) | (1u << SGPU_DISP_TINY_SHIFT));
  chip_buf ib;
  chip_buf_init(&ib);
  uint32_t va = VA_DATA + 0x5000 + 0x40;
  chip_pkt_flip(&ib, 0, va, 1, 0);
  CHIP_CHECK(run_ib_a(sim, ring, &ib, 0x600, NULL) == 0, "FLIP in a VM buffer faulted (%u)",
             chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_BASE), pa_of(&ma, va), "DISP_BASE after a FLIP in a VM buffer");
  /* the ring's own FLIP in the VM context: physical */
  chip_buf rb;
  chip_buf_init(&rb);
  chip_pkt_flip(&rb, 0, 0x00710000u, 1, 0);
  CHIP_CHECK(run_ring(sim, ring, &rb, 2000000, NULL) == 0, "ring FLIP faulted");
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_BASE), 0x00710000u, "DISP_BASE after the ring's FLIP");
  /* a FLIP to a page not present faults READ */
  chip_buf_clear(&ib);
  chip_pkt_flip(&ib, 0, VA_DATA + NP_PAGE * 0x1000 + 8, 1, 0);
  expect_fault(sim, ring, "FLIP not present", run_ib_a(sim, ring, &ib, 0x600, NULL), SGPU_FAULT_PAGE_NOT_PRESENT,
               VA_DATA + NP_PAGE * 0x1000 + 8, SGPU_HW_ACCESS_READ, SGPU_HW_UNIT_CP);
  chip_wr(sim, src0 + SGPU_SREG_DISP_CONTROL, 0);
  printf("%-28s DISP_BASE 0x%08x for VA 0x%08x\n", "FLIP", pa_of(&ma, va), va);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

/* The watchdog ends a WAIT_MEM that never holds in a VM context. */
static void scene_watchdog(sgpu_sim *sim, chip_ring *ring) {
  chip_nwr(sim, 0, SGPU_NREG_WATCHDOG, 3000);
  chip_buf ib;
  chip_buf_init(&ib);
  chip_pkt_wait_mem(&ib, VA_DATA + 0x1E000, 0xFFFFFFFFu, ~chip_peek(sim, pa_of(&ma, VA_DATA + 0x1E000)),
                    SGPU_WAIT_FUNC_EQ);
  expect_fault(sim, ring, "watchdog in a VM context", run_ib_a(sim, ring, &ib, 0x700, NULL), SGPU_FAULT_TIMEOUT, 0, 0,
               0);
  chip_nwr(sim, 0, SGPU_NREG_WATCHDOG, 100000);
  chip_buf_free(&ib);
}

/* Two rings sharing the 2D engine, in two VM contexts whose VAs name
 * different frames, run FILLs and COPYs at the same time. */
static void scene_shared_engine(sgpu_sim *sim, chip_ring *ring0) {
  chip_ring ring1;
  chip_ring_init(&ring1, sim, 1, RING0 + 0x8000, RING_SIZE);
  for (uint32_t p = 0; p < 4; p++) {
    map_page(&ma, PT_A, 0x140 + p, FRAMES + (50 + p) * 0x1000, 1, 1);
    map_page(&mb, PT_B, 0x140 + p, FRAMES + (54 + p) * 0x1000, 1, 1);
    chip_poke(sim, PT_A + 4 * (0x140 + p), pte(FRAMES + (50 + p) * 0x1000, 1));
    chip_poke(sim, PT_B + 4 * (0x140 + p), pte(FRAMES + (54 + p) * 0x1000, 1));
  }
  chip_buf ib[2], rb[2];
  const map *m[2] = {&ma, &mb};
  for (int r = 0; r < 2; r++) {
    chip_buf_init(&ib[r]);
    chip_buf_init(&rb[r]);
    for (int i = 0; i < 6; i++) {
      uint32_t pat = 0x10101010u * (uint32_t)(r + 1) + (uint32_t)i;
      chip_pkt_fill(&ib[r], 0x140000u + 0x100 * (uint32_t)i, 0x800, 0x300, 6, pat);
      exp_fill(m[r], 0x140000u + 0x100 * (uint32_t)i, 0x800, 0x300, 6, pat);
      chip_pkt_copy(&ib[r], 0x142000u + 0x80 * (uint32_t)i, 0x400, 0x140000u + 0x10 * (uint32_t)i, 0x800, 0x200, 5);
      exp_copy(m[r], 0x142000u + 0x80 * (uint32_t)i, 0x400, 0x140000u + 0x10 * (uint32_t)i, 0x800, 0x200, 5);
    }
    put_buf(sim, m[r], VA_IB + 0x5000 + 0x800 * (uint32_t)r, &ib[r]);
    pkt_context_vm(&rb[r], 1 + (uint32_t)r, r ? PD_B : PD_A);
    chip_pkt_indirect(&rb[r], VA_IB + 0x5000 + 0x800 * (uint32_t)r, chip_buf_bytes(&ib[r]), 0, 0);
    chip_pkt_fence(&rb[r], FENCE0 + 0x100 + 4 * (uint32_t)r, 0x5A5A0000u + (uint32_t)r, 0);
    uint32_t f = 0x5A5A0000u + (uint32_t)r;
    memcpy(expect + FENCE0 + 0x100 + 4 * r, &f, 4);
  }
  chip_ring_put(ring0, &rb[0]);
  chip_ring_put(&ring1, &rb[1]);
  chip_doorbell(ring0);
  chip_doorbell(&ring1);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0 + 0x100, 0x5A5A0000u, 2000000) == 0, "shared engine: ring 0 (%u)",
             chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  CHIP_CHECK(chip_wait_fence(sim, FENCE0 + 0x104, 0x5A5A0001u, 2000000) == 0, "shared engine: ring 1 (%u)",
             chip_nrd(sim, 1, SGPU_NREG_FAULT_REASON));
  CHIP_CHECK(chip_wait_idle(sim, 1, 100000) == 0, "ring 1 not idle");
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, RING0 + 0x8000, expect + RING0 + 0x8000, RING_SIZE) == 0, "backdoor");
  compare(sim, "two rings, one 2D engine, two VM contexts");
  printf("%-28s ok\n", "shared 2D engine");
  for (int r = 0; r < 2; r++) { chip_buf_free(&ib[r]); chip_buf_free(&rb[r]); }
}

/* PREEMPT cuts a FILL in a VM context: the save area (physical) is written,
 * nothing outside the rectangle changes; after the engine reset the FILL
 * runs again in full. */
static void scene_preempt(sgpu_sim *sim, chip_ring *ring) {
  const uint32_t save = 0x0001F800u;
  chip_nwr(sim, 0, SGPU_NREG_SAVE_ADDR, save);
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  chip_pkt_fill(&ib, 0x00300000u, 1280, 1280, 480, 0x3C3C3C3Cu);
  put_buf(sim, &ma, VA_IB + 0x6000, &ib);
  pkt_context_vm(&rb, 1, PD_A);
  chip_pkt_indirect(&rb, VA_IB + 0x6000, chip_buf_bytes(&ib), 0x777, 0);
  chip_submit(ring, &rb);
  sgpu_sim_run(sim, 60000, 0);
  chip_nwr(sim, 0, SGPU_NREG_PREEMPT, 0xAB);
  int stopped = 0;
  for (int i = 0; i < 20000 && !stopped; i++) {
    sgpu_sim_run(sim, 16, 0);
    stopped = (chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_PREEMPTED) != 0;
  }
  CHIP_CHECK(stopped, "VM FILL not preempted (STATUS 0x%x)", chip_nrd(sim, 0, SGPU_NREG_STATUS));
  uint32_t sv[SGPU_SAVE_BYTES / 4];
  sgpu_sim_backdoor_read(sim, save, sv, sizeof sv);
  CHIP_EQ(sv[SGPU_SAVE_PREEMPT_FENCE], 0xAB, "save area's PREEMPT_FENCE (physical)");
  memcpy(expect + save, sv, sizeof sv);
  /* the rectangle: each byte old or the pattern; everything else as before */
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, 0, actual, mem_bytes) == 0, "backdoor read");
  uint32_t done = 0;
  for (uint32_t a = 0; a < 1280 * 480; a++) {
    uint32_t p = pa_of(&ma, 0x00300000u + a);
    if (actual[p] == 0x3C && expect[p] != 0x3C) done++;
    if (actual[p] == 0x3C) expect[p] = 0x3C;
  }
  CHIP_CHECK(done > 0 && done < 1280 * 480, "preempted FILL: %u bytes done", done);
  compare(sim, "preempted VM FILL");
  chip_ring_reset(ring);
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_VM_ROOT), 0, "VM_ROOT after the engine reset");
  chip_buf_clear(&rb);
  pkt_context_vm(&rb, 1, PD_A);
  chip_pkt_indirect(&rb, VA_IB + 0x6000, chip_buf_bytes(&ib), 0x778, 0);
  CHIP_CHECK(run_ring(sim, ring, &rb, 2000000, NULL) == 0, "FILL after the preemption faulted");
  exp_fill(&ma, 0x00300000u, 1280, 1280, 480, 0x3C3C3C3Cu);
  compare(sim, "VM FILL run again");
  printf("%-28s cut after %u of %u bytes, run again in full\n", "preempted VM FILL", done, 1280 * 480);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

/* Tables changed under a running packet (a driver bug): a context C maps
 * its own page table at VA page 0x150 and a frame at 0x151; a FILL over
 * both passes the page check, then zeroes 0x151's entry on its way: the
 * 2D engine's walk for 0x151 finds it invalid, the node faults there and
 * nothing of the FILL reaches 0x151's frame. */
static void scene_tables_changed(sgpu_sim *sim, chip_ring *ring) {
  const uint32_t pd_c = 0x00034000u, pt_c = 0x00035000u, f1 = FRAMES + 60 * 0x1000;
  uint32_t z[1024] = {0}, e;
  phys_put(sim, pd_c, z, 4096);
  phys_put(sim, pt_c, z, 4096);
  e = (pt_c & SGPU_PDE_TABLE_MASK) | SGPU_PDE_VALID_MASK;
  phys_put(sim, pd_c, &e, 4);
  e = pte(pt_c, 1);
  phys_put(sim, pt_c + 4 * 0x150, &e, 4);
  e = pte(f1, 1);
  phys_put(sim, pt_c + 4 * 0x151, &e, 4);
  e = pte(pa_of(&ma, VA_IB + 0x7000), 0); /* the IB page, as in A */
  phys_put(sim, pt_c + 4 * ((VA_IB + 0x7000) >> 12), &e, 4);
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  chip_pkt_fill(&ib, 0x150540u, 0x2000, 0xBC0, 1, 0);
  put_buf(sim, &ma, VA_IB + 0x7000, &ib);
  pkt_context_vm(&rb, 9, pd_c);
  chip_pkt_indirect(&rb, VA_IB + 0x7000, chip_buf_bytes(&ib), 0, 0);
  int r = run_ring(sim, ring, &rb, 100000, NULL);
  memset(expect + pt_c + 0x540, 0, 0x1000 - 0x540); /* what the FILL wrote before the fault */
  expect_fault(sim, ring, "tables changed under a FILL", r, SGPU_FAULT_PAGE_NOT_PRESENT, 0x151000u,
               SGPU_HW_ACCESS_WRITE, SGPU_HW_UNIT_2D);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
}

/* Figures: cycles of one IB (doorbell to idle), VM and physical. */
static uint64_t timed(sgpu_sim *sim, chip_ring *ring, int vm, const chip_buf *ib) {
  chip_buf rb;
  chip_buf_init(&rb);
  uint32_t at = vm ? VA_IB + 0x4000 : 0x00600000u;
  if (vm) {
    put_buf(sim, &ma, at, ib);
    pkt_context_vm(&rb, 1, PD_A);
  } else {
    phys_put(sim, at, ib->w, chip_buf_bytes(ib));
    chip_pkt_context(&rb, 0, 0, 0);
  }
  chip_pkt_indirect(&rb, at, chip_buf_bytes(ib), 0, 0);
  /* doorbell to the ring's fence (seen within 8 cycles) */
  uint32_t f = ++fence_no;
  chip_pkt_fence(&rb, FENCE0, f, 0);
  chip_ring_put(ring, &rb);
  uint64_t t0 = sgpu_sim_cycle(sim);
  chip_doorbell(ring);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, f, 20000000) == 0, "timed run: no fence (fault %u)",
             chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON));
  uint64_t c = sgpu_sim_cycle(sim) - t0;
  CHIP_CHECK(chip_wait_idle(sim, 0, 100000) == 0, "timed run: not idle");
  memcpy(expect + FENCE0, &f, 4);
  chip_buf_free(&rb);
  return c;
}
/* A large FILL's pages, from the memory request log: its writes to the
 * frames [pa, pa + bytes) (one page after the other), per 4 KiB page the
 * words written and the cycles from the page's first write to its last
 * (both ends counted: equal when one word a cycle); between two pages, the
 * cycles without a write of the FILL (the gap) and the reads of context A's
 * tables there (a walk: table entry, and directory entry unless kept). */
typedef struct fill_pages {
  uint64_t words, cycles, gap_min, gap_max, table_reads, dir_reads;
  double min_rate, gap_mean;
} fill_pages;
static void fill_pages_measure(sgpu_sim *sim, int vm, uint32_t pa, uint32_t bytes, fill_pages *r) {
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  uint32_t pages = bytes / 4096;
  uint64_t *first = calloc(pages, sizeof *first), *last = calloc(pages, sizeof *last);
  uint32_t *cnt = calloc(pages, sizeof *cnt);
  memset(r, 0, sizeof *r);
  for (size_t i = 0; i < n; i++) {
    const sgpu_sim_mem_event *e = &ev[i];
    if (!e->write || e->address < pa || e->address >= pa + bytes) continue;
    uint32_t p = (e->address - pa) / 4096;
    if (!cnt[p]++) first[p] = e->cycle;
    last[p] = e->cycle;
    /* one page after the other: no write of an earlier page after this one began */
    CHIP_CHECK(p == 0 || (cnt[p - 1] == 1024 && last[p - 1] < first[p]), "FILL %s: page %u written out of order",
               vm ? "VM" : "phys", p);
  }
  r->min_rate = 1e9;
  r->gap_min = UINT64_MAX;
  for (uint32_t p = 0; p < pages; p++) {
    CHIP_EQ(cnt[p], 1024, "FILL: writes to a page (log lost some?)");
    uint64_t span = last[p] - first[p] + 1;
    r->words += cnt[p];
    r->cycles += span;
    if ((double)cnt[p] / (double)span < r->min_rate) r->min_rate = (double)cnt[p] / (double)span;
    if (p) {
      uint64_t gap = first[p] - last[p - 1] - 1;
      r->gap_mean += (double)gap / (pages - 1);
      if (gap < r->gap_min) r->gap_min = gap;
      if (gap > r->gap_max) r->gap_max = gap;
    }
  }
  /* table reads inside the gaps (context A: PD_A, PT_A) */
  uint32_t p = 1;
  for (size_t i = 0; i < n && p < pages; i++) {
    const sgpu_sim_mem_event *e = &ev[i];
    while (p < pages && e->cycle >= first[p]) p++;
    if (p >= pages || e->cycle <= last[p - 1] || e->write) continue;
    if (e->address >= PT_A && e->address < PT_A + 4096) r->table_reads++;
    if (e->address >= PD_A && e->address < PD_A + 4096) r->dir_reads++;
  }
  free(first);
  free(last);
  free(cnt);
}

static void figures(sgpu_sim *sim, chip_ring *ring) {
  chip_buf ib, nop;
  chip_buf_init(&ib);
  chip_buf_init(&nop);
  /* IB fetch: a 16 KiB buffer of NOPs (4 pages, the TLB holds them), minus an empty one */
  for (int i = 0; i < 4; i++) chip_pkt_nop(&ib, 1023);
  chip_pkt_nop(&nop, 0);
  double words = chip_buf_bytes(&ib) / 4 - 1;
  for (int vm = 0; vm < 2; vm++) {
    uint64_t c = timed(sim, ring, vm, &ib) - timed(sim, ring, vm, &nop);
    printf("IB fetch %s: %.0f words in %llu cycles\n", vm ? "VM" : "phys", words, (unsigned long long)c);
    chip_figure(vm ? "vm_fetch_words_per_cycle" : "phys_fetch_words_per_cycle", words / (double)c);
    CHIP_CHECK(words / (double)c >= 0.95, "IB fetch %s: %.3f words a cycle, below 0.95", vm ? "VM" : "phys",
               words / (double)c);
  }
  /* FILL and COPY within 4 pages (the 2D engine's TLB holds them after a walk each) */
  struct { const char *name; int copy; uint32_t w, h; } ops[] = {
      {"fill", 0, 4096, 4}, {"copy", 1, 4096, 2}};
  for (int o = 0; o < 2; o++)
    for (int vm = 0; vm < 2; vm++) {
      uint32_t base = vm ? VA_DATA + 0x4000 : 0x00400000u;
      chip_buf_clear(&ib);
      if (ops[o].copy)
        chip_pkt_copy(&ib, base, 4096, base + 0x2000, 4096, ops[o].w, ops[o].h);
      else
        chip_pkt_fill(&ib, base, 4096, ops[o].w, ops[o].h, 0x01020304u);
      uint64_t c = timed(sim, ring, vm, &ib) - timed(sim, ring, vm, &nop);
      if (vm) {
        if (ops[o].copy) exp_copy(&ma, base, 4096, base + 0x2000, 4096, ops[o].w, ops[o].h);
        else exp_fill(&ma, base, 4096, ops[o].w, ops[o].h, 0x01020304u);
      } else {
        if (ops[o].copy) memmove(expect + base, expect + base + 0x2000, (size_t)ops[o].w * ops[o].h);
        else for (uint32_t a = 0; a < ops[o].w * ops[o].h; a++) expect[base + a] = (uint8_t)(0x01020304u >> (8 * (a % 4)));
      }
      double wds = ops[o].w * ops[o].h / 4.0;
      printf("%s %s: %.0f words in %llu cycles (page check and walks included)\n", ops[o].name, vm ? "VM" : "phys", wds,
             (unsigned long long)c);
      char nm[64];
      snprintf(nm, sizeof nm, "%s_%s_words_per_cycle", vm ? "vm" : "phys", ops[o].name);
      chip_figure(nm, wds / (double)c);
      /* FILL's 1.0 while the TLB hits is asserted page by page below */
      if (ops[o].copy)
        CHIP_CHECK(wds / (double)c >= 0.45, "COPY %s: %.3f words a cycle, below 0.45", vm ? "VM" : "phys",
                   wds / (double)c);
    }
  compare(sim, "figures");
  /* 640x480x2 FILL: VM (150 pages checked, each a walk) against physical.
   * Context A maps VA [0x300000, 0x400000) to frames 0x400000.. in order. */
  for (uint32_t p = 0; p < 256; p++) {
    map_page(&ma, PT_A, 0x300 + p, 0x00400000u + p * 0x1000, 1, 1);
    uint32_t e = pte(0x00400000u + p * 0x1000, 1);
    chip_poke(sim, PT_A + 4 * (0x300 + p), e);
  }
  uint64_t c[2];
  fill_pages fp[2];
  for (int vm = 0; vm < 2; vm++) {
    chip_buf_clear(&ib);
    chip_pkt_fill(&ib, vm ? 0x00300000u : 0x00400000u, 1280, 1280, 480, 0x55AA55AAu);
    sgpu_sim_mem_log_enable(sim, 1u << 20);
    uint64_t ci = timed(sim, ring, vm, &ib);
    fill_pages_measure(sim, vm, 0x00400000u, 1280 * 480, &fp[vm]);
    sgpu_sim_mem_log_enable(sim, 0);
    c[vm] = ci - timed(sim, ring, vm, &nop);
    printf("640x480x2 FILL %s: %llu cycles\n", vm ? "VM" : "phys", (unsigned long long)c[vm]);
  }
  /* Inside each page: one word a cycle (the TLB hitting: no added cycle). */
  for (int vm = 0; vm < 2; vm++) {
    const char *k = vm ? "VM" : "phys";
    printf("640x480x2 FILL %s, per page: %llu words in %llu cycles from each page's first write to its last "
           "(slowest page %.4f words a cycle); page crossings %.2f cycles on average (%llu to %llu)\n",
           k, (unsigned long long)fp[vm].words, (unsigned long long)fp[vm].cycles, fp[vm].min_rate, fp[vm].gap_mean,
           (unsigned long long)fp[vm].gap_min, (unsigned long long)fp[vm].gap_max);
    CHIP_CHECK(fp[vm].min_rate == 1.0 && fp[vm].words == fp[vm].cycles,
               "FILL %s inside a page: %llu words in %llu cycles (slowest page %.4f words a cycle), not 1.0", k,
               (unsigned long long)fp[vm].words, (unsigned long long)fp[vm].cycles, fp[vm].min_rate);
    CHIP_CHECK(fp[vm].gap_max <= 8, "FILL %s: a page crossing of %llu cycles (more than 8)", k,
               (unsigned long long)fp[vm].gap_max);
  }
  /* Every VM crossing is a walk: the table entry read (the directory entry
   * kept), nothing at a physical one. */
  CHIP_EQ(fp[1].table_reads, 149, "walks (table entry reads) at the VM FILL's 149 page crossings");
  CHIP_EQ(fp[1].dir_reads, 0, "directory entry reads at the VM FILL's page crossings");
  CHIP_EQ(fp[0].table_reads + fp[0].dir_reads, 0, "table reads at the physical FILL's page crossings");
  CHIP_CHECK(fp[1].gap_min >= 1, "a VM page crossing without a bubble: no walk?");
  chip_figure("phys_fill_in_page_words_per_cycle", (double)fp[0].words / (double)fp[0].cycles);
  chip_figure("vm_fill_in_page_words_per_cycle", (double)fp[1].words / (double)fp[1].cycles);
  chip_figure("phys_fill_page_crossing_cycles", fp[0].gap_mean);
  chip_figure("vm_fill_page_crossing_cycles", fp[1].gap_mean);
  chip_figure("vm_fill_page_crossing_max_cycles", (double)fp[1].gap_max);
  chip_figure("vm_tlb_miss_cycles", fp[1].gap_mean - fp[0].gap_mean);
  exp_fill(&ma, 0x00300000u, 1280, 1280, 480, 0x55AA55AAu);
  compare(sim, "640x480 FILL");
  chip_figure("fill_640x480_phys_cycles", (double)c[0]);
  chip_figure("fill_640x480_vm_cycles", (double)c[1]);
  chip_figure("fill_640x480_vm_extra_cycles", (double)c[1] - (double)c[0]);
  /* The page check alone: the same FILL with its last page (149) read-only
   * faults after 150 probes, with its first page read-only after one. */
  uint64_t pc[2];
  for (int k = 0; k < 2; k++) {
    uint32_t vp = 0x300 + (k ? 149 : 0);
    chip_poke(sim, PT_A + 4 * vp, pte(0x00400000u + (vp - 0x300) * 0x1000, 0));
    chip_buf_clear(&ib);
    chip_pkt_fill(&ib, 0x00300000u, 1280, 1280, 480, 0x55AA55AAu);
    put_buf(sim, &ma, VA_IB + 0x4000, &ib);
    chip_buf rb;
    chip_buf_init(&rb);
    pkt_context_vm(&rb, 1, PD_A);
    chip_pkt_indirect(&rb, VA_IB + 0x4000, chip_buf_bytes(&ib), 0, 0);
    chip_ring_put(ring, &rb);
    uint64_t t0 = sgpu_sim_cycle(sim);
    chip_doorbell(ring);
    int st = 0;
    while (!st && sgpu_sim_cycle(sim) - t0 < 100000) {
      sgpu_sim_run(sim, 4, 0);
      st = (chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_FAULTED) != 0;
    }
    pc[k] = sgpu_sim_cycle(sim) - t0;
    CHIP_CHECK(st && chip_nrd(sim, 0, SGPU_NREG_FAULT_REASON) == SGPU_FAULT_PAGE_PROTECTION, "page check figure");
    chip_ring_reset(ring);
    chip_poke(sim, PT_A + 4 * vp, pte(0x00400000u + (vp - 0x300) * 0x1000, 1));
    chip_buf_free(&rb);
  }
  printf("page check of a 640x480x2 FILL: %llu cycles to a fault at page 149, %llu at page 0\n",
         (unsigned long long)pc[1], (unsigned long long)pc[0]);
  chip_figure("page_check_640x480_fill_cycles", (double)pc[1] - (double)pc[0]);
  chip_figure("page_check_cycles_per_page", ((double)pc[1] - (double)pc[0]) / 149.0);
  chip_buf_free(&ib);
  chip_buf_free(&nop);
}

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  mem_bytes = chip_rd(sim, SGPU_REG_MEM_SIZE);
  CHIP_CHECK(chip_rd(sim, SGPU_REG_CAPS) & SGPU_CAPS_VM_MASK, "CAPS.VM not set");
  expect = calloc(mem_bytes, 1);
  actual = calloc(mem_bytes, 1);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, 0, expect, mem_bytes) == 0, "backdoor read");

  /* Context A: directory entry 0 -> PT_A; entry 1 not valid.  B: entry 0 -> PT_B. */
  uint32_t z[1024] = {0};
  phys_put(sim, PD_A, z, 4096);
  phys_put(sim, PD_B, z, 4096);
  phys_put(sim, PT_A, z, 4096);
  phys_put(sim, PT_B, z, 4096);
  uint32_t pde = (PT_A & SGPU_PDE_TABLE_MASK) | SGPU_PDE_VALID_MASK;
  phys_put(sim, PD_A, &pde, 4);
  pde = (PT_B & SGPU_PDE_TABLE_MASK) | SGPU_PDE_VALID_MASK;
  phys_put(sim, PD_B, &pde, 4);
  /* data pages: scattered frames (a permutation of frames 0..31), IB pages 32..39 */
  for (uint32_t i = 0; i < 32; i++) {
    uint32_t f = FRAMES + ((i * 7 + 3) % 32) * 0x1000;
    map_page(&ma, PT_A, (VA_DATA >> 12) + i, f, i != NP_PAGE, i != RO_PAGE);
    map_page(&mb, PT_B, (VA_DATA >> 12) + i, f, i != NP_PAGE, i != RO_PAGE);
  }
  for (uint32_t i = 0; i < 8; i++) {
    uint32_t f = FRAMES + (32 + (i * 5 + 2) % 8) * 0x1000;
    map_page(&ma, PT_A, (VA_IB >> 12) + i, f, 1, 0);
    map_page(&mb, PT_B, (VA_IB >> 12) + i, f, 1, 0);
  }
  map_page(&ma, PT_A, B_PAGE, FRAMES + 48 * 0x1000, 1, 1);
  map_page(&mb, PT_B, B_PAGE, FRAMES + 49 * 0x1000, 1, 1);
  /* the tables as the image holds them, and random frame contents */
  sgpu_sim_backdoor_write(sim, PT_A, expect + PT_A, 4096);
  sgpu_sim_backdoor_write(sim, PT_B, expect + PT_B, 4096);
  uint32_t seed = 12345;
  for (uint32_t a = FRAMES; a < FRAMES + NFRAMES * 0x1000; a += 4) {
    uint32_t v = chip_rand(&seed);
    phys_put(sim, a, &v, 4);
  }
  compare(sim, "set-up");

  scene_translated(sim, &ring);
  scene_faults(sim, &ring);
  scene_tlb_invalidate(sim, &ring);
  scene_contexts(sim, &ring);
  figures(sim, &ring);
  scene_flip(sim, &ring);
  scene_watchdog(sim, &ring);
  scene_shared_engine(sim, &ring);
  scene_preempt(sim, &ring);
  scene_tables_changed(sim, &ring);
  free(expect);
  free(actual);
  sgpu_sim_destroy(sim);
  printf("test_chip_vm: all passed\n");
  return 0;
}
