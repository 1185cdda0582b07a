/* test_ulx3s_sdram — the ULX3S image with its GPU memory on the SDRAM:
 * 640x480 RGB565 shown natively (no replication), double-buffered, under
 * continuous FILL/COPY load, seen on the cable.
 *
 * The board model (tests/ulx3s/ulx3s_board.v: ulx3s_top and the SDRAM
 * model, which checks every command against the part's timing rules) runs
 * from power-on; the test is the host on the UART pins (tests/board/
 * board_link.c's link code) and the C reference model (tests/model/sgpu_ref)
 * executes the same ring words.  Every frame the TMDS receiver decodes is
 * compared with the reference's memory, expanded as the display expands
 * RGB565 (bit replication):
 *  1. the boot finishes (identity block written); node 0 gets a ring;
 *  2. batch 1 draws three 640x480 RGB565 buffers, A, B and C, with FILLs
 *     (whole buffers and random rectangles) and COPYs (within A, A to B);
 *     then the display is set to 640x480 RGB565, no replication, pitch
 *     1280, base A: the next frame equals A;
 *  3. batch 2: a waiting FLIP to B, then load on A while B is on screen:
 *     a whole-screen FILL, a whole-screen COPY from C, random FILL and COPY
 *     rectangles; every frame from the flip on equals B pixel for pixel
 *     (the frame before it A), and each of them read B from the SDRAM
 *     exactly once (153,600 READs in B's range between two vsyncs);
 *  4. batch 3: FLIP back to A: the frame equals A as the reference drew it
 *     under the load.
 * At the end: DISP_UNDERFLOW 0 (no pixel shown before its row was
 * fetched), DISP_FLIP_COUNT 2, no fault, no TMDS error, VESA timing on
 * every frame, the TMDS-underflow LED dark.
 * FIGURE lines (SDRAM commands counted on its pins; the bus carries at
 * most one 32-bit word every two cycles): the scanout's READs per system
 * cycle and its share of the bus limit at 640x480; FILL and COPY words
 * per system cycle while the scanout runs; the bus use under the load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../host/src/pixfmt.h" /* the library's RGB565 -> RGB888 */
#include "board_link.h"
#include "sgpu_ref.h"
#include "ulx3s_sim.h"

#define MEM 33554432u
#define W 640u
#define H 480u
#define PITCH (W * 2u)
#define FB_BYTES (PITCH * H)
/* below 4 MB: the SDRAM model stores 1024 rows per bank */
#define RING 0x00040000u
#define RING_SIZE 0x00010000u
#define FENCE 0x00060000u
#define BUF_A 0x00100000u
#define BUF_B 0x00200000u
#define BUF_C 0x00300000u
#define FRAME_CYCLES 504000u /* system cycles of one 800 x 525 frame: 30 / 25 MHz */
#define FB_WORDS (FB_BYTES / 4u)

static uint32_t expect_a0[W * H], expect_b[W * H], expect_a1[W * H];
static uint32_t ring_words[1 << 14];

static void render(const uint8_t *mem, uint32_t base, uint32_t *out) {
  for (uint32_t y = 0; y < H; y++)
    for (uint32_t x = 0; x < W; x++) {
      const uint8_t *p = mem + base + y * PITCH + x * 2u;
      out[y * W + x] = sgpu__rgb565_to_888((uint16_t)(p[0] | p[1] << 8));
    }
}

static uint32_t rng = 0x5D1A7u;
static uint32_t rnd(uint32_t n) {
  rng = rng * 1103515245u + 12345u;
  return (rng >> 8) % n;
}

/* A random rectangle of whole pixels inside a buffer: byte address and width. */
static void rect(uint32_t base, uint32_t y0, uint32_t y1, uint32_t *addr, uint32_t *wbytes, uint32_t *h) {
  uint32_t w = 1 + rnd(W / 4), hh = 1 + rnd((y1 - y0) / 4);
  uint32_t x = rnd(W - w + 1), y = y0 + rnd(y1 - y0 - hh + 1);
  *addr = base + y * PITCH + x * 2u;
  *wbytes = w * 2u;
  *h = hh;
}

typedef struct ctx {
  ulx3s_sim *s;
  board_link l;
  bl_ring ring;
  sgpu_ref *ref;
  uint32_t ref_wptr;
} ctx;

/* The words to the chip's ring (doorbell) and to the reference's (doorbell). */
static void submit(ctx *c, const uint32_t *w, size_t n) {
  BL_CHECK(n * 4u < RING_SIZE, "batch larger than the ring");
  bl_ring_submit(&c->ring, w, n);
  for (size_t i = 0; i < n; i++) {
    BL_CHECK(sgpu_ref_mem_write(c->ref, RING + c->ref_wptr, &w[i], 4) == 0, "ref ring");
    c->ref_wptr = (c->ref_wptr + 4u) & (RING_SIZE - 1u);
  }
  BL_CHECK(sgpu_ref_reg_write(c->ref, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), c->ref_wptr) == 0, "ref doorbell");
  sgpu_ref_display_settle(c->ref);
  const sgpu_ref_fault *faults;
  BL_CHECK(sgpu_ref_faults(c->ref, &faults) == 0, "the reference model faults on the batch");
}

static uint32_t read_fence(ctx *c) {
  uint32_t v = 0;
  bl_read(&c->l, FENCE, &v, 1);
  return v;
}

/* Frame k: checks timing and size; returns 0 when it equals a, 1 when b,
 * fails otherwise. */
static int classify(const ulx3s_frame *f, const uint32_t *a, const uint32_t *b, const char *na, const char *nb) {
  BL_CHECK(f->timing_ok, "frame %llu timing: %s", (unsigned long long)f->number, f->timing_error);
  BL_CHECK(f->width == W && f->height == H, "frame %llu is %ux%u", (unsigned long long)f->number, f->width,
           f->height);
  if (a && memcmp(f->pixels, a, sizeof expect_a0) == 0) return 0;
  if (b && memcmp(f->pixels, b, sizeof expect_a0) == 0) return 1;
  const uint32_t *e = b ? b : a;
  uint32_t diff = 0, first = 0;
  for (uint32_t i = 0; i < W * H; i++)
    if (f->pixels[i] != e[i] && diff++ == 0) first = i;
  bl_fail(__FILE__, __LINE__, "frame %llu (vsync in cycle %llu) is neither %s nor %s: %u pixels differ from %s, "
          "first at x %u y %u: 0x%06x, want 0x%06x", (unsigned long long)f->number,
          (unsigned long long)f->start_cycle, na, nb ? nb : "-", diff, b ? nb : na, first % W, first / W,
          f->pixels[first], e[first]);
}

/* Run to the next complete frame. */
static void next_frame(ctx *c, ulx3s_frame *f) {
  const uint64_t n = ulx3s_sim_frames(c->s);
  ulx3s_sim_run_until_frame(c->s, 2ull * FRAME_CYCLES);
  BL_CHECK(ulx3s_sim_frames(c->s) == n + 1, "no frame within two frame times");
  ulx3s_sim_last_frame(c->s, f);
}

int main(void) {
  const clock_t t0 = clock();
  ctx c;
  memset(&c, 0, sizeof c);
  c.s = ulx3s_sim_create();
  BL_CHECK(c.s, "ulx3s_sim_create");
  bl_init(&c.l, ulx3s_sim_board(c.s));
  BL_CHECK(ulx3s_sim_run_to_reset_release(c.s, 200000) == 0, "reset never released");
  const uint64_t boot = bl_wait_boot(&c.l);
  BL_EQ(bl_rd(&c.l, SGPU_REG_MEM_SIZE), MEM, "MEM_SIZE");
  uint32_t id_mem = 0;
  bl_read(&c.l, SGPU_IDENTITY_ADDR + 4u * SGPU_IDW_MEM_SIZE, &id_mem, 1);
  BL_EQ(id_mem, MEM, "identity block MEM_SIZE");

  sgpu_ref_config rc = {MEM, 2, 1, SGPU_MAX_IB_DEPTH};
  c.ref = sgpu_ref_create(&rc);
  BL_CHECK(c.ref, "sgpu_ref_create");
  bl_ring_init(&c.ring, &c.l, RING, RING_SIZE);
  BL_CHECK(sgpu_ref_reg_write(c.ref, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), RING) == 0 &&
               sgpu_ref_reg_write(c.ref, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), RING_SIZE) == 0 &&
               sgpu_ref_reg_write(c.ref, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 1u << SGPU_CONTROL_ENABLE_SHIFT) == 0,
           "ref ring");

  /* ---- batch 1: draw A, B and C */
  uint32_t *w = ring_words;
  size_t n = 0;
  uint32_t a, wb, h, a2, wb2, h2;
  n = bl_pkt_fill(w, n, BUF_A, PITCH, PITCH, H, 0x18E3F81Fu);
  for (int i = 0; i < 20; i++) {
    rect(BUF_A, 0, H, &a, &wb, &h);
    n = bl_pkt_fill(w, n, a, PITCH, wb, h, rng ^ 0x9E3779B9u);
  }
  for (int i = 0; i < 8; i++) { /* top half to bottom half: no overlap */
    rect(BUF_A, 0, H / 2, &a, &wb, &h);
    rect(BUF_A, H / 2, H, &a2, &wb2, &h2);
    n = bl_pkt_copy(w, n, a2, PITCH, a, PITCH, wb < wb2 ? wb : wb2, h < h2 ? h : h2);
  }
  n = bl_pkt_fill(w, n, BUF_B, PITCH, PITCH, H, 0x07E0001Fu);
  n = bl_pkt_copy(w, n, BUF_B + 40 * PITCH + 60 * 2, PITCH, BUF_A + 100 * PITCH, PITCH, 400 * 2, 300);
  for (int i = 0; i < 12; i++) {
    rect(BUF_B, 0, H, &a, &wb, &h);
    n = bl_pkt_fill(w, n, a, PITCH, wb, h, rng);
  }
  n = bl_pkt_fill(w, n, BUF_C, PITCH, PITCH, H, 0xF800FFE0u);
  for (int i = 0; i < 12; i++) {
    rect(BUF_C, 0, H, &a, &wb, &h);
    n = bl_pkt_fill(w, n, a, PITCH, wb, h, rng * 7u);
  }
  n = bl_pkt_fence(w, n, FENCE, 1, 0);
  const uint64_t batch1 = ulx3s_sim_cycle(c.s);
  submit(&c, w, n);
  const uint8_t *rm = sgpu_ref_memory(c.ref);
  render(rm, BUF_A, expect_a0);
  render(rm, BUF_B, expect_b);

  /* the display: 640x480 RGB565, no replication, A */
  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  bl_wr(&c.l, src0 + SGPU_SREG_DISP_PITCH, PITCH);
  bl_wr(&c.l, src0 + SGPU_SREG_DISP_BASE, BUF_A);
  bl_wr(&c.l, src0 + SGPU_SREG_DISP_CONTROL, (1u << SGPU_DISP_ENABLE_SHIFT) |
                                                 (SGPU_HW_FORMAT_RGB565 << SGPU_DISP_CONTROL_FORMAT_SHIFT));
  BL_EQ(bl_rd(&c.l, SGPU_REG_CFG_ERROR), 0, "CFG_ERROR after the display mode");
  for (int tries = 0; read_fence(&c) != 1; tries++) {
    BL_CHECK(tries < 100, "batch 1's fence not written: node 0 STATUS 0x%08x RPTR 0x%x of WPTR 0x%x",
             bl_rd(&c.l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)), bl_rd(&c.l, SGPU_NODE_REG(0, SGPU_NREG_RING_RPTR)),
             c.ring.wptr);
    bl_run(&c.l, 100000);
  }
  printf("batch 1 done after %llu cycles\n", (unsigned long long)(ulx3s_sim_cycle(c.s) - batch1));
  {
    static uint32_t rb[PITCH / 4 * 2];
    bl_read(&c.l, BUF_B + 200 * PITCH, rb, PITCH / 4 * 2);
    BL_CHECK(memcmp(rb, rm + BUF_B + 200 * PITCH, sizeof rb) == 0, "buffer B rows 200..201 differ from the reference");
  }
  ulx3s_frame f;
  const uint64_t shown = ulx3s_sim_cycle(c.s);
  do next_frame(&c, &f); while (f.start_cycle < shown + FRAME_CYCLES / 50);
  classify(&f, expect_a0, NULL, "A", NULL);
  printf("frame %llu: A, 640x480 RGB565, equal to the reference\n", (unsigned long long)f.number);

  /* scanout alone (the engines idle): one frame's READs */
  ulx3s_sdram_stats s0, s1;
  ulx3s_sim_sdram_window(c.s, 0, BUF_A, BUF_A + FB_BYTES);
  ulx3s_sim_sdram_stats(c.s, &s0);
  next_frame(&c, &f);
  classify(&f, expect_a0, NULL, "A", NULL);
  ulx3s_sim_sdram_stats(c.s, &s1);
  const uint64_t idle_scan = s1.reads_in[0] - s0.reads_in[0], idle_cyc = s1.cycles - s0.cycles;
  BL_EQ(idle_scan, FB_WORDS, "scanout READs in one idle frame");
  const double scan_wpc = (double)idle_scan / (double)idle_cyc;

  /* ---- batch 2: FLIP to B, then load on A (C is only read) */
  n = 0;
  n = bl_pkt_flip(w, n, 0, BUF_B, 1, 0);
  n = bl_pkt_fence(w, n, FENCE, 2, 0);
  n = bl_pkt_fill(w, n, BUF_A, PITCH, PITCH, H, 0x39E7C618u);
  n = bl_pkt_copy(w, n, BUF_A, PITCH, BUF_C, PITCH, PITCH, H);
  for (int i = 0; i < 16; i++) {
    rect(BUF_A, 0, H, &a, &wb, &h);
    n = bl_pkt_fill(w, n, a, PITCH, wb, h, rng | 0x00010001u);
    rect(BUF_A, 0, H / 2, &a, &wb, &h);
    rect(BUF_A, H / 2, H, &a2, &wb2, &h2);
    n = bl_pkt_copy(w, n, a2, PITCH, a, PITCH, wb < wb2 ? wb : wb2, h < h2 ? h : h2);
  }
  n = bl_pkt_fence(w, n, FENCE, 3, 0);
  ulx3s_sim_sdram_window(c.s, 0, BUF_B, BUF_B + FB_BYTES);
  ulx3s_sim_sdram_window(c.s, 1, BUF_C, BUF_C + FB_BYTES);
  submit(&c, w, n);
  render(rm, BUF_A, expect_a1);

  /* every frame from here on: A until the flip, then only B; measured in
   * steps of 2000 cycles: the FILL runs from the first write to A to the
   * first read of C, the COPY from there to the last read of C */
  ulx3s_sdram_stats st, prev, frame0;
  ulx3s_sim_sdram_stats(c.s, &prev);
  frame0 = prev;
  const uint64_t load0 = prev.cycles;
  uint64_t t_fill = 0, t_copy = 0, t_copy_end = 0, fence_cycle = 0;
  int flipped = 0, frames_b = 0, polls = 0;
  uint64_t frames = ulx3s_sim_frames(c.s), scan_load_min = ~0ull, load_frames_full = 0;
  ulx3s_sdram_stats lf0 = prev, lf1 = prev; /* the frames that ran entirely under load */
  while (!fence_cycle || frames_b < 2) {
    BL_CHECK(ulx3s_sim_cycle(c.s) - load0 < 40ull * FRAME_CYCLES, "the load did not finish in 40 frames");
    ulx3s_sim_run(c.s, 2000);
    ulx3s_sim_sdram_stats(c.s, &st);
    if (!t_fill && st.writes > prev.writes + 100) t_fill = prev.cycles;
    if (!t_copy && st.reads_in[1] > prev.reads_in[1]) t_copy = prev.cycles;
    if (st.reads_in[1] > prev.reads_in[1]) t_copy_end = st.cycles;
    prev = st;
    if (ulx3s_sim_frames(c.s) == frames) continue;
    BL_CHECK(ulx3s_sim_frames(c.s) == frames + 1, "a frame went by unchecked");
    frames++;
    ulx3s_sim_last_frame(c.s, &f);
    const int k = classify(&f, flipped ? NULL : expect_a0, expect_b, "A", "B");
    const uint64_t scan = st.reads_in[0] - frame0.reads_in[0];
    if (k == 1) {
      if (flipped) { /* a whole frame of B: B read exactly once */
        BL_EQ(scan, FB_WORDS, "scanout READs of B in a frame");
        if (scan < scan_load_min) scan_load_min = scan;
        if (!fence_cycle) {
          if (!load_frames_full) lf0 = frame0;
          lf1 = st;
          load_frames_full++;
        }
      }
      flipped = 1;
      frames_b++;
    }
    frame0 = st;
    printf("frame %llu: %s, %llu scanout READs\n", (unsigned long long)f.number, k ? "B" : "A",
           (unsigned long long)scan);
    /* one fence poll per frame (about 4000 cycles of link traffic) */
    if (!fence_cycle) {
      polls++;
      if (read_fence(&c) == 3) fence_cycle = ulx3s_sim_cycle(c.s);
    }
  }
  BL_CHECK(t_fill && t_copy && t_copy_end > t_copy, "FILL/COPY phases not seen on the SDRAM pins");

  /* ---- batch 3: back to A */
  n = 0;
  n = bl_pkt_flip(w, n, 0, BUF_A, 1, 0);
  n = bl_pkt_fence(w, n, FENCE, 4, 0);
  submit(&c, w, n);
  const uint64_t flip_at = ulx3s_sim_cycle(c.s);
  int seen_a = 0;
  for (int k = 0; k < 4 && seen_a < 2; k++) {
    next_frame(&c, &f);
    const int r = classify(&f, seen_a ? NULL : expect_b, expect_a1, "B", "A after the load");
    if (r == 1) seen_a++;
  }
  BL_CHECK(seen_a == 2, "A never shown again after the flip back (%llu cycles)",
           (unsigned long long)(ulx3s_sim_cycle(c.s) - flip_at));
  BL_EQ(read_fence(&c), 4, "last fence");
  printf("frame %llu: A after the load, equal to the reference\n", (unsigned long long)f.number);

  /* ---- the end */
  BL_EQ(bl_rd(&c.l, src0 + SGPU_SREG_DISP_UNDERFLOW), 0, "DISP_UNDERFLOW");
  BL_EQ(bl_rd(&c.l, src0 + SGPU_SREG_DISP_FLIP_COUNT) & 0xFFFFu, 2, "DISP_FLIP_COUNT");
  BL_EQ(bl_rd(&c.l, src0 + SGPU_SREG_DISP_BASE), BUF_A, "DISP_BASE");
  BL_EQ(bl_rd(&c.l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED, 0, "node faulted");
  BL_EQ(bl_rd(&c.l, SGPU_REG_CFG_ERROR), 0, "CFG_ERROR");
  ulx3s_tmds_stats ts;
  ulx3s_sim_tmds_stats(c.s, &ts);
  BL_CHECK(ts.locked && ts.errors == 0, "TMDS: %llu errors; first: %s", (unsigned long long)ts.errors, ts.err);
  BL_EQ(ulx3s_sim_bad_frames(c.s), 0, "frames with bad timing");
  BL_EQ(ulx3s_sim_uart_errors(c.s), 0, "UART framing errors");
  const uint32_t leds = ulx3s_sim_leds(c.s);
  BL_CHECK(!(leds & 0x80u), "TMDS underflow LED lit");
  BL_CHECK(load_frames_full >= 2, "fewer than two whole frames under load (%llu)",
           (unsigned long long)load_frames_full);

  const double fill_wpc = (double)FB_WORDS / (double)(t_copy - t_fill);
  const double copy_wpc = (double)FB_WORDS / (double)(t_copy_end - t_copy);
  const uint64_t lc = lf1.cycles - lf0.cycles;
  const double bus = (double)((lf1.reads - lf0.reads) + (lf1.writes - lf0.writes)) / (double)lc;
  const double scan_l = (double)(lf1.reads_in[0] - lf0.reads_in[0]) / (double)lc;
  printf("FIGURE ulx3s_sdram_scanout_words_per_cycle %.4f READs per system cycle for 640x480 RGB565 "
         "(%llu words a frame of %llu cycles)\n", scan_wpc, (unsigned long long)idle_scan,
         (unsigned long long)idle_cyc);
  printf("FIGURE ulx3s_sdram_scanout_share %.1f %% of the SDRAM's limit (0.5 words per cycle: 16-bit bus, "
         "30 MHz)\n", 100.0 * scan_wpc / 0.5);
  printf("FIGURE ulx3s_sdram_fill_words_per_cycle %.4f (a 640x480 FILL, %.1f %% of the bus limit, %.1f %% of "
         "what the scanout leaves)\n", fill_wpc, 100.0 * fill_wpc / 0.5, 100.0 * fill_wpc / (0.5 - scan_wpc));
  printf("FIGURE ulx3s_sdram_copy_words_per_cycle %.4f destination words (plus as many READs; a 640x480 COPY: "
         "%.1f %% of the bus limit with its reads, %.1f %% of what the scanout leaves)\n", copy_wpc,
         200.0 * copy_wpc / 0.5, 100.0 * 2.0 * copy_wpc / (0.5 - scan_wpc));
  printf("FIGURE ulx3s_sdram_bus_use_under_load %.1f %% of the bus limit over %llu whole frames under load "
         "(scanout %.4f words per cycle of it)\n", 100.0 * bus / 0.5, (unsigned long long)load_frames_full,
         scan_l);
  printf("FIGURE ulx3s_sdram_underflows 0 (DISP_UNDERFLOW) over %llu frames of B under FILL/COPY load, each "
         "equal to the reference and read once (%llu READs)\n", (unsigned long long)frames_b,
         (unsigned long long)scan_load_min);
  printf("FIGURE ulx3s_sdram_load_cycles %llu from the doorbell to the load's fence seen (%d polls)\n",
         (unsigned long long)(fence_cycle - load0), polls);
  printf("FIGURE ulx3s_sdram_boot_cycles %llu from reset release to the identity block\n",
         (unsigned long long)boot);
  printf("FIGURE ulx3s_sdram_sim_seconds %.1f for %llu frames (%llu system cycles)\n",
         (double)(clock() - t0) / CLOCKS_PER_SEC, (unsigned long long)ulx3s_sim_frames(c.s),
         (unsigned long long)ulx3s_sim_cycle(c.s));
  sgpu_ref_destroy(c.ref);
  ulx3s_sim_destroy(c.s);
  printf("PASS test_ulx3s_sdram\n");
  return 0;
}
