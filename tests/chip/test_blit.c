/* test_blit — FILL and COPY through the real command processor.
 *
 *  1. Random FILL/COPY packets (any byte alignment, width, height, pitches;
 *     half the copies overlap their source, some with different pitches so
 *     dst_row - src_row changes sign inside the rectangle) on both nodes at
 *     once, each node in its own region, with display source 0 scanning out
 *     and random memory back-pressure (stall_percent 0, 30, 45; read latency
 *     1..3; at 60% the memory alone cannot feed the display).  After each batch's fence the whole region is compared, through
 *     the sim backdoor, with a C reference: FILL sets byte a to byte a%4 of
 *     the pattern; COPY copies through a temporary (for equal pitches this is
 *     memmove per row).  The display never underflows.
 *  2. Figures on zero-wait memory, display off, from the memory log: FILL
 *     words written per cycle (first to last write of the rectangle) and
 *     COPY destination words per cycle (first source read to last write).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING0 0x00010000u
#define RING1 0x00012000u
#define RING_SIZE 0x1000u
#define FENCE0 0x0001F000u
#define FENCE1 0x0001F100u
#define FB 0x00020000u
#define REGION0 0x00100000u
#define REGION1 0x00140000u
#define REGION_SIZE 0x00010000u /* 64 KiB per node */
#define BATCH 12

typedef struct node_state {
  chip_ring ring;
  uint32_t region;
  uint32_t fence_addr, fence;
  uint8_t *ref;  /* expected content of the region */
  uint8_t *tmp;
} node_state;

static uint32_t rnd(uint32_t *rng, uint32_t n) { return n <= 1 ? 0 : chip_rand(rng) % n; }

static void ref_fill(uint8_t *ref, uint32_t region, uint32_t dst, uint32_t pitch, uint32_t w,
                     uint32_t h, uint32_t pat) {
  for (uint32_t r = 0; r < h; r++)
    for (uint32_t i = 0; i < w; i++) {
      uint32_t a = dst + r * pitch + i;
      ref[a - region] = (uint8_t)(pat >> (8 * (a % 4)));
    }
}

static void ref_copy(uint8_t *ref, uint8_t *tmp, uint32_t region, uint32_t dst, uint32_t dp,
                     uint32_t src, uint32_t sp, uint32_t w, uint32_t h) {
  for (uint32_t r = 0; r < h; r++) memcpy(tmp + (size_t)r * w, ref + (src - region) + r * sp, w);
  for (uint32_t r = 0; r < h; r++) memcpy(ref + (dst - region) + r * dp, tmp + (size_t)r * w, w);
}

/* One random command into b, applied to the reference. */
static void random_cmd(node_state *n, uint32_t *rng, chip_buf *b, uint32_t *ncopy, uint32_t *nover) {
  uint32_t k = rnd(rng, 10), w, h, dp, sp;
  w = k < 5 ? 1 + rnd(rng, 16) : k < 8 ? 1 + rnd(rng, 100) : 1 + rnd(rng, 600);
  k = rnd(rng, 10);
  h = k < 4 ? 1 + rnd(rng, 3) : k < 9 ? 1 + rnd(rng, 24) : 1 + rnd(rng, 40);
  if (w * h > 8000) h = 8000 / w;
  dp = (h <= 1 && rnd(rng, 3) == 0) ? rnd(rng, w + 8) : w + (rnd(rng, 2) ? rnd(rng, 8) : rnd(rng, 300));
  sp = (h <= 1 && rnd(rng, 3) == 0) ? rnd(rng, w + 8)
       : rnd(rng, 3) == 0 ? dp : w + (rnd(rng, 2) ? rnd(rng, 8) : rnd(rng, 300));
  uint32_t ext_d = (h - 1) * dp + w, ext_s = (h - 1) * sp + w;
  uint32_t dst = n->region + rnd(rng, REGION_SIZE - ext_d + 1);
  if (rnd(rng, 3) == 0) {
    chip_pkt_fill(b, dst, dp, w, h, chip_rand(rng));
    ref_fill(n->ref, n->region, dst, dp, w, h, b->w[b->n - 1]);
    return;
  }
  int64_t src = n->region + rnd(rng, REGION_SIZE - ext_s + 1);
  k = rnd(rng, 6);
  if (k < 2 && h >= 3 && dp != sp) {
    /* dst_row - src_row crosses zero at a row inside the rectangle */
    int64_t i0 = 1 + rnd(rng, h - 1);
    src = (int64_t)dst + i0 * ((int64_t)dp - sp) + rnd(rng, 9) - 4;
  } else if (k < 4) {
    int64_t off = (int64_t)rnd(rng, h + 1) * (rnd(rng, 2) ? sp : dp) + rnd(rng, w + 8) - 4;
    src = (int64_t)dst + (rnd(rng, 2) ? off : -off);
  }
  if (src < n->region || src > (int64_t)(n->region + REGION_SIZE - ext_s))
    src = n->region + rnd(rng, REGION_SIZE - ext_s + 1);
  chip_pkt_copy(b, dst, dp, (uint32_t)src, sp, w, h);
  ref_copy(n->ref, n->tmp, n->region, dst, dp, (uint32_t)src, sp, w, h);
  (*ncopy)++;
  if ((uint32_t)src < dst + ext_d && dst < (uint32_t)src + ext_s) (*nover)++;
}

static void check_region(sgpu_sim *sim, node_state *n, const char *what) {
  static uint8_t got[REGION_SIZE];
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, n->region, got, REGION_SIZE) == 0, "backdoor read");
  for (uint32_t i = 0; i < REGION_SIZE; i++)
    if (got[i] != n->ref[i])
      chip_fail(__FILE__, __LINE__, "%s: byte 0x%08x is 0x%02x, expected 0x%02x", what, n->region + i,
                got[i], n->ref[i]);
}

static void random_run(uint32_t stall, uint32_t latency, uint32_t seed, uint32_t batches) {
  sgpu_sim_config cfg = {0};
  cfg.mem_latency = latency;
  cfg.stall_percent = stall;
  cfg.seed = seed;
  sgpu_sim *sim = chip_create(&cfg);
  uint32_t rng = seed * 2654435761u + 1;

  /* Display source 0 scans a tiny-mode framebuffer the whole time. */
  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  chip_wr(sim, src0 + SGPU_SREG_DISP_PITCH, 128);
  chip_wr(sim, src0 + SGPU_SREG_DISP_BASE, FB);
  uint32_t ctrl = (1u << SGPU_DISP_ENABLE_SHIFT) | (1u << SGPU_DISP_TINY_SHIFT);
  /* With the pixel side on its own, faster clock (the boards' two-clock
   * display: 25.125 MHz pixels, 12 MHz system) RGB565 at one word per two
   * pixels needs more memory than a stalled port gives: scan out as the
   * iCEBreaker does, RGB332 with pixels doubled (1/8 word per pixel). */
  uint32_t num, den;
  sgpu_sim_pixel_ratio(sim, &num, &den);
  if (num != den)
    ctrl |= (SGPU_HW_FORMAT_RGB332 << SGPU_DISP_FORMAT_SHIFT) | (1u << SGPU_DISP_HREP_SHIFT);
  chip_wr(sim, src0 + SGPU_SREG_DISP_CONTROL, ctrl);

  uint32_t nodes = sgpu_sim_nodes(sim) >= 2 ? 2 : 1;
  node_state ns[2];
  for (uint32_t i = 0; i < nodes; i++) {
    node_state *n = &ns[i];
    n->region = i ? REGION1 : REGION0;
    n->fence_addr = i ? FENCE1 : FENCE0;
    n->fence = 0;
    n->ref = malloc(REGION_SIZE);
    n->tmp = malloc(65536);
    CHIP_CHECK(n->ref && n->tmp, "oom");
    for (uint32_t j = 0; j < REGION_SIZE; j++) n->ref[j] = (uint8_t)chip_rand(&rng);
    CHIP_CHECK(sgpu_sim_backdoor_write(sim, n->region, n->ref, REGION_SIZE) == 0, "backdoor write");
    chip_poke(sim, n->fence_addr, 0);
    chip_ring_init(&n->ring, sim, i, i ? RING1 : RING0, RING_SIZE);
  }

  uint32_t ncmd = 0, ncopy = 0, nover = 0;
  chip_buf b;
  chip_buf_init(&b);
  for (uint32_t bt = 0; bt < batches; bt++) {
    for (uint32_t i = 0; i < nodes; i++) {
      node_state *n = &ns[i];
      chip_buf_clear(&b);
      for (uint32_t c = 0; c < BATCH; c++, ncmd++) random_cmd(n, &rng, &b, &ncopy, &nover);
      chip_pkt_fence(&b, n->fence_addr, ++n->fence, 0);
      chip_submit(&n->ring, &b);
    }
    for (uint32_t i = 0; i < nodes; i++) {
      node_state *n = &ns[i];
      if (chip_wait_fence(sim, n->fence_addr, n->fence, 20000000) != 0) {
        chip_fault f;
        chip_read_fault(sim, i, &f);
        chip_fail(__FILE__, __LINE__, "node %u batch %u: fence not written (status 0x%x reason %u addr 0x%x)",
                  i, bt, f.status, f.reason, f.addr);
      }
      check_region(sim, n, "after batch");
    }
  }
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_UNDERFLOW), 0, "DISP_UNDERFLOW");
  printf("PASS stall %u%% latency %u: %u commands on %u nodes, %u copies (%u overlapping), display running\n",
         stall, latency, ncmd, nodes, ncopy, nover);
  chip_buf_free(&b);
  for (uint32_t i = 0; i < nodes; i++) {
    free(ns[i].ref);
    free(ns[i].tmp);
  }
  sgpu_sim_destroy(sim);
}

/* One command alone on zero-wait memory; words per cycle from the log. */
static double measure(int copy, uint32_t dst, uint32_t dp, uint32_t src, uint32_t sp, uint32_t w,
                      uint32_t h, const char *name) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  uint32_t rng = 99;
  uint32_t lo = dst, span = (h - 1) * dp + w;
  if (copy) {
    lo = dst < src ? dst : src;
    span = (h - 1) * (dp > sp ? dp : sp) + w + (dst > src ? dst - src : src - dst);
  }
  uint8_t *ref = malloc(span + 8), *tmp = malloc((size_t)w * h);
  CHIP_CHECK(ref && tmp, "oom");
  for (uint32_t i = 0; i < span; i++) ref[i] = (uint8_t)chip_rand(&rng);
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, lo, ref, span) == 0, "backdoor");

  chip_buf b;
  chip_buf_init(&b);
  if (copy) {
    chip_pkt_copy(&b, dst, dp, src, sp, w, h);
    ref_copy(ref, tmp, lo, dst, dp, src, sp, w, h);
  } else {
    chip_pkt_fill(&b, dst, dp, w, h, 0x5A3CC3A5u);
    ref_fill(ref, lo, dst, dp, w, h, 0x5A3CC3A5u);
  }
  chip_pkt_fence(&b, FENCE0, 1, 0);
  chip_poke(sim, FENCE0, 0);
  sgpu_sim_mem_log_enable(sim, 1u << 18);
  chip_submit(&ring, &b);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 1, 10000000) == 0, "%s: fence", name);

  const sgpu_sim_mem_event *ev;
  size_t nev = sgpu_sim_mem_log(sim, &ev);
  uint64_t first = 0, last = 0;
  uint32_t nwr = 0, nrd = 0;
  int seen = 0;
  for (size_t i = 0; i < nev; i++) {
    if (ev[i].address < (lo & ~3u) || ev[i].address >= lo + span) continue; /* not the blit's */
    if (!seen) first = ev[i].cycle;
    seen = 1;
    if (ev[i].write) {
      nwr++;
      last = ev[i].cycle;
    } else {
      nrd++;
    }
  }
  CHIP_CHECK(seen && nwr > 0, "%s: no blit traffic in the memory log", name);
  uint8_t *got = malloc(span);
  CHIP_CHECK(got != NULL, "oom");
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, lo, got, span) == 0, "backdoor");
  CHIP_CHECK(memcmp(got, ref, span) == 0, "%s: result differs from the reference", name);
  double wpc = (double)nwr / (double)(last - first + 1);
  printf("INFO %s: %u writes, %u reads in %llu cycles\n", name, nwr, nrd,
         (unsigned long long)(last - first + 1));
  chip_figure(name, wpc);
  free(got);
  free(ref);
  free(tmp);
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
  return wpc;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1;
  sgpu_sim *probe = chip_create(NULL);
  uint32_t caps = chip_rd(probe, SGPU_REG_CAPS);
  sgpu_sim_destroy(probe);
  CHIP_CHECK(caps & (1u << 8), "CAPS reports no 2D engine (0x%08x)", caps);

  double f = measure(0, 0x00100000u, 4096, 0, 0, 4096, 8, "fill_words_per_cycle");
  double fu = measure(0, 0x00100001u, 1100, 0, 0, 1001, 20, "fill_unaligned_words_per_cycle");
  double c = measure(1, 0x00100001u, 2050, 0x00180002u, 2000, 1999, 12, "copy_words_per_cycle");
  measure(1, 0x00100000u + 3001, 3000, 0x00100002u, 3000, 2048, 8, "copy_overlap_down_words_per_cycle");
  CHIP_CHECK(f >= 0.95 && fu >= 0.95, "FILL below 0.95 words per cycle");
  CHIP_CHECK(c >= 0.45, "COPY below 0.45 words per cycle");

  random_run(0, 1, seed, 30);
  random_run(30, 2, seed + 1, 30);
  random_run(45, 3, seed + 2, 20);
  printf("PASS test_blit\n");
  return 0;
}
