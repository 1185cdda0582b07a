/* test_flip — flips through the real command processor (issue 4 "Must hold").
 *
 * Tiny timing, four framebuffers of random RGB565 pixels.  Many Flip and
 * FlipWithNoWait submissions with random intervals 0..5 at random times,
 * each bracketed by a WRITE_DATA marker before and a FENCE after.  Every
 * frame is captured from the RTL's video outputs (sgpu_sim_last_frame) and
 * every line identified by its buffer; the memory request log gives the
 * cycle of each marker and fence write and of each frame's first scanout
 * read (row 0 of the buffer the frame starts from, a few cycles after the
 * vblank strobe).
 *
 *  1. Every frame comes entirely from one buffer, except frames in which an
 *     IMMEDIATE / ALLOW_TEARING flip was taken; those change buffer only in
 *     flip order.
 *  2. Each vsync flip appears on exactly the vblank the rule says:
 *     accepted before vblank n, previous flip taken at vblank t (an
 *     immediate one counts as the vblank before it) -> taken at
 *     max(n, t + N).  When a vblank falls within the few cycles in which
 *     the acceptance time is uncertain, both outcomes are allowed (counted).
 *  3. A FENCE after a Flip (not NoWait) is written only after the scanout
 *     has started reading the new buffer.
 *  4. No underflow; DISP_FLIP_COUNT counts every flip.
 *  5. Default mode: one frame's sync measured by the capture is 800x525,
 *     hsync 96, vsync 2 lines, 640x480 active, and a 320x240 RGB565 buffer
 *     with 2x replication is shown pixel-exact.
 *
 * Usage: test_flip [flips] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/src/pixfmt.h" /* the library's RGB565 -> RGB888, as the scanout does */
#include "chip_util.h"

#define HA ((int)SGPU_TIMING_TINY_H_ACTIVE)
#define VA ((int)SGPU_TIMING_TINY_V_ACTIVE)
#define HT ((int)SGPU_TIMING_TINY_H_TOTAL)
#define VT ((int)SGPU_TIMING_TINY_V_TOTAL)
#define NB 4
#define PITCH (HA * 2)
#define BUF0 0x00200000u
#define BUF_STRIDE 0x00002000u
#define RING0 0x00010000u
#define RING_SIZE 0x4000u
#define MARK 0x00100000u  /* WRITE_DATA marker before each flip */
#define FENCE_ADDR 0x00100100u
#define DELTA 48u         /* cycles from a marker to the flip handshake, at most */
#define OFF 3u            /* vblank strobe -> first scanout read accepted (zero-wait memory) */
#define SLACK 4u          /* uncertainty of OFF */
#define MAXV 200000

static uint32_t bufaddr(int b) { return BUF0 + (uint32_t)b * BUF_STRIDE; }
static int buf_of(uint32_t a) {
  for (int b = 0; b < NB; b++)
    if (a == bufaddr(b)) return b;
  return -1;
}

typedef struct flip_rec {
  uint32_t interval, nowait;
  int buf;
  uint64_t mark, fence; /* cycles of the marker write and the fence write (0 = not seen) */
} flip_rec;

typedef struct frame_rec {
  uint64_t start;       /* vsync start cycle */
  int8_t line[VA];      /* buffer of each line, -1 none */
} frame_rec;

/* observations */
static uint64_t vb_cycle[MAXV]; /* first scanout read of each frame (row 0) */
static int vb_buf[MAXV];
static size_t nvb;
static frame_rec *frames;
static size_t nframes, frames_cap;
static flip_rec *flips;
static uint8_t expect_rgb[NB][VA][HA * 3];

/* system cycles of a tiny frame (the pixel clock may run faster than clk_i) */
static uint64_t frame_cycles(const sgpu_sim *sim) {
  uint32_t num, den;
  sgpu_sim_pixel_ratio(sim, &num, &den);
  return (uint64_t)HT * VT * den / num;
}

static void process_log(sgpu_sim *sim, uint32_t nflips) {
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  for (size_t i = 0; i < n; i++) {
    const sgpu_sim_mem_event *e = &ev[i];
    if (!e->write) {
      int b = buf_of(e->address);
      if (b >= 0) {
        CHIP_CHECK(nvb < MAXV, "too many frames");
        CHIP_CHECK(nvb == 0 || e->cycle - vb_cycle[nvb - 1] > frame_cycles(sim) / 2,
                   "two frame starts %llu cycles apart",
                   (unsigned long long)(e->cycle - vb_cycle[nvb - 1]));
        vb_cycle[nvb] = e->cycle;
        vb_buf[nvb] = b;
        nvb++;
      }
    } else if (e->address == MARK) {
      /* the marker carries the flip number; the log has its data */
      CHIP_CHECK(e->data < nflips, "marker value %u", e->data);
      flips[e->data].mark = e->cycle;
    } else if (e->address == FENCE_ADDR) {
      CHIP_CHECK(e->data >= 1 && e->data <= nflips, "fence value %u", e->data);
      flips[e->data - 1].fence = e->cycle;
    }
  }
  sgpu_sim_mem_log_enable(sim, 1u << 16); /* clears */
}

static uint64_t last_frame_no;
static void poll_frame(sgpu_sim *sim) {
  sgpu_sim_frame f;
  CHIP_CHECK(sgpu_sim_last_frame(sim, 0, &f) == 0, "last_frame");
  if (f.frame_number == last_frame_no) return;
  CHIP_CHECK(f.frame_number == last_frame_no + 1, "missed a frame (%llu -> %llu)",
             (unsigned long long)last_frame_no, (unsigned long long)f.frame_number);
  last_frame_no = f.frame_number;
  if (f.width != HA || f.height != VA) return; /* before the tiny mode took over */
  if (nframes == frames_cap) {
    frames_cap = frames_cap ? frames_cap * 2 : 1024;
    frames = realloc(frames, frames_cap * sizeof *frames);
    CHIP_CHECK(frames != NULL, "oom");
  }
  frame_rec *r = &frames[nframes++];
  r->start = f.start_cycle;
  for (int y = 0; y < VA; y++) {
    r->line[y] = -1;
    for (int b = 0; b < NB && r->line[y] < 0; b++)
      if (memcmp(&f.rgb[(size_t)y * HA * 3], expect_rgb[b][y], HA * 3) == 0) r->line[y] = (int8_t)b;
  }
}

/* index of the first vblank strobe after cycle t (strobe = first read - OFF) */
static size_t nidx(uint64_t t) {
  size_t lo = 0, hi = nvb;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (vb_cycle[mid] - OFF > t) hi = mid; else lo = mid + 1;
  }
  return lo;
}

static void expand565(uint16_t p, uint8_t *rgb) { sgpu__rgb888_bytes(sgpu__rgb565_to_888(p), rgb); }

/* ------------------------------------------------------------------ flips */
static void test_flips(uint32_t nflips, uint32_t seed) {
  sgpu_sim *sim = chip_create(NULL);
  uint32_t rng = seed;
  flips = calloc(nflips, sizeof *flips);
  CHIP_CHECK(flips != NULL, "oom");

  /* framebuffers */
  for (int b = 0; b < NB; b++) {
    static uint16_t px[VA][HA];
    for (int y = 0; y < VA; y++)
      for (int x = 0; x < HA; x++) {
        px[y][x] = (uint16_t)chip_rand(&rng);
        expand565(px[y][x], &expect_rgb[b][y][x * 3]);
      }
    CHIP_CHECK(sgpu_sim_backdoor_write(sim, bufaddr(b), px, sizeof px) == 0, "backdoor");
  }
  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  chip_wr(sim, src0 + SGPU_SREG_DISP_PITCH, PITCH);
  chip_wr(sim, src0 + SGPU_SREG_DISP_BASE, bufaddr(0));
  chip_wr(sim, src0 + SGPU_SREG_DISP_CONTROL, (1u << SGPU_DISP_ENABLE_SHIFT) | (1u << SGPU_DISP_TINY_SHIFT));
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_TIMING), (VA << 16) | HA, "DISP_TIMING tiny");
  sgpu_sim_mem_log_enable(sim, 1u << 16);

  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  chip_buf b;
  chip_buf_init(&b);

  uint32_t submitted = 0, last_buf = 0;
  size_t nfence_seen = 0;
  uint64_t deadline = 0;
  for (;;) {
    sgpu_sim_run(sim, 200 + chip_rand(&rng) % 900, 0);
    process_log(sim, nflips);
    poll_frame(sim);
    while (nfence_seen < submitted && flips[nfence_seen].fence) nfence_seen++;
    if (submitted == nflips) {
      if (nfence_seen == nflips) {
        if (!deadline) deadline = sgpu_sim_cycle(sim) + 6ull * HT * VT; /* let the last flip show */
        if (sgpu_sim_cycle(sim) >= deadline) break;
      }
      continue;
    }
    /* keep a few submissions in flight; sometimes several back to back */
    if (submitted - nfence_seen >= 3 || chip_rand(&rng) % 3 == 0) continue;
    uint32_t burst = 1 + (chip_rand(&rng) % 4 == 0 ? chip_rand(&rng) % 3 : 0);
    chip_buf_clear(&b);
    for (uint32_t k = 0; k < burst && submitted < nflips; k++, submitted++) {
      flip_rec *f = &flips[submitted];
      f->interval = chip_rand(&rng) % 6;
      f->nowait = chip_rand(&rng) % 2;
      last_buf = (last_buf + 1 + chip_rand(&rng) % (NB - 1)) % NB; /* always another buffer */
      f->buf = (int)last_buf;
      uint32_t mark = submitted;
      chip_pkt_write_data(&b, MARK, &mark, 1);
      chip_pkt_flip(&b, 0, bufaddr(f->buf), f->interval, (int)f->nowait);
      chip_pkt_fence(&b, FENCE_ADDR, submitted + 1, 0);
    }
    chip_submit(&ring, &b);
    CHIP_CHECK(sgpu_sim_cycle(sim) < 400ull * HT * VT + (uint64_t)nflips * 8 * HT * VT, "stuck");
  }
  chip_buf_free(&b);
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_FAULTED, 0, "node faulted");
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_UNDERFLOW), 0, "DISP_UNDERFLOW");
  uint32_t flip_count = chip_rd(sim, src0 + SGPU_SREG_DISP_FLIP_COUNT);
  CHIP_EQ(flip_count, nflips, "DISP_FLIP_COUNT");
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_BASE), bufaddr(flips[nflips - 1].buf), "final DISP_BASE");

  /* ---- 2 and 3: replay the flip rule against the observed frame starts */
  long t_lo = -1000, t_hi = -1000;  /* vblank index of the last take (range) */
  uint64_t T_prev = 0;              /* earliest cycle the previous flip can have been taken */
  size_t n_floor = 0;               /* a flip is accepted after the previous one was taken */
  uint32_t ambiguous = 0, n_vs = 0, n_imm = 0, n_wait = 0;
  long max_late = 0;
  int64_t min_fence_after = INT64_MAX, max_fence_after = INT64_MIN;
  /* immediate flips may tear the frame they are taken in: [lo, hi] take cycles */
  uint64_t *imm_lo = calloc(nflips, sizeof *imm_lo), *imm_hi = calloc(nflips, sizeof *imm_hi);
  CHIP_CHECK(imm_lo && imm_hi, "oom");
  for (uint32_t i = 0; i < nflips; i++) {
    flip_rec *f = &flips[i];
    CHIP_CHECK(f->mark && f->fence, "flip %u: marker/fence not seen", i);
    uint64_t L = f->mark > T_prev ? f->mark : T_prev;
    uint64_t U = L + DELTA;
    if (f->fence < U) U = f->fence;
    CHIP_CHECK(U >= L, "flip %u: fence before its marker", i);
    size_t n_lo = nidx(L > SLACK ? L - SLACK : 0), n_hi = nidx(U + SLACK);
    if (n_lo < n_floor) n_lo = n_floor;
    if (n_hi < n_lo) n_hi = n_lo;
    if (f->interval == 0 || f->interval == 5) {
      n_imm++;
      imm_lo[i] = L;
      imm_hi[i] = U + 2;
      t_lo = (long)n_lo - 1;
      t_hi = (long)n_hi - 1;
      if (n_lo != n_hi) ambiguous++;
      T_prev = L;
      n_floor = n_lo;
    } else {
      n_vs++;
      long N = (long)f->interval;
      long m_lo = (long)n_lo > t_lo + N ? (long)n_lo : t_lo + N;
      long m_hi = (long)n_hi > t_hi + N ? (long)n_hi : t_hi + N;
      if (m_lo != m_hi) ambiguous++;
      /* observed: the first frame start at or after n_lo reading the flip's buffer */
      size_t m = n_lo;
      while (m < nvb && vb_buf[m] != f->buf) m++;
      CHIP_CHECK(m < nvb, "flip %u (buffer %d, interval %u) never scanned out", i, f->buf, f->interval);
      if ((long)m < m_lo || (long)m > m_hi) {
        chip_fail(__FILE__, __LINE__,
                  "flip %u (interval %u, %s): shown from frame start %zu, rule says %ld..%ld "
                  "(accepted in %zu..%zu, previous take %ld..%ld)",
                  i, f->interval, f->nowait ? "NoWait" : "Wait", m, m_lo, m_hi, n_lo, n_hi, t_lo, t_hi);
      }
      long late = (long)m - m_hi;
      if (late > max_late) max_late = late;
      t_lo = t_hi = (long)m;
      T_prev = vb_cycle[m] - OFF - SLACK; /* the take is a few cycles before the first read */
      n_floor = m + 1;
      if (!f->nowait) {
        /* 3: the fence only after the scanout reads the new buffer */
        n_wait++;
        int64_t d = (int64_t)f->fence - (int64_t)vb_cycle[m];
        if (d < min_fence_after) min_fence_after = d;
        if (d > max_fence_after) max_fence_after = d;
        CHIP_CHECK(d > 0, "flip %u: FENCE written %lld cycles before the new buffer's first read", i,
                   (long long)-d);
      }
    }
  }

  /* ---- 1: every frame from one buffer, or torn only by immediate flips */
  size_t checked = 0, torn = 0;
  for (size_t fi = 0; fi < nframes; fi++) {
    frame_rec *r = &frames[fi];
    size_t k = nidx(r->start);
    if (k == 0 || k >= nvb) continue; /* before the log or after the last frame start */
    k--;
    uint64_t w0 = vb_cycle[k] - 8, w1 = (k + 1 < nvb) ? vb_cycle[k + 1] : UINT64_MAX;
    int allowed[64];
    int na = 0;
    allowed[na++] = vb_buf[k];
    for (uint32_t i = 0; i < nflips && na < 64; i++)
      if (imm_hi[i] && imm_hi[i] > w0 && imm_lo[i] < w1) allowed[na++] = flips[i].buf;
    int p = 0;
    for (int y = 0; y < VA; y++) {
      CHIP_CHECK(r->line[y] >= 0, "frame %zu line %d is from no buffer", fi, y);
      while (p < na && allowed[p] != r->line[y]) p++;
      CHIP_CHECK(p < na, "frame %zu line %d shows buffer %d; frame started with buffer %d, %d immediate flips",
                 fi, y, r->line[y], allowed[0], na - 1);
    }
    if (na == 1) {
      for (int y = 0; y < VA; y++)
        CHIP_CHECK(r->line[y] == allowed[0], "frame %zu not from one buffer", fi);
    } else {
      torn++;
    }
    checked++;
  }
  CHIP_CHECK(checked + 8 >= nvb && checked > nflips / 2, "too few frames checked (%zu of %zu)", checked, nvb);
  printf("flips %u (%u at vblank, %u of them Wait; %u immediate), %u ambiguous by a few cycles; "
         "frames %zu checked, %zu with immediate flips\n",
         nflips, n_vs, n_wait, n_imm, ambiguous, checked, torn);
  CHIP_CHECK(ambiguous * 20 <= nflips, "too many ambiguous flips (%u)", ambiguous);
  chip_figure("chip_flips", nflips);
  chip_figure("chip_flip_frames_checked", (double)checked);
  chip_figure("chip_flip_latency_lines", (double)max_late * VT);
  chip_figure("flip_wait_fence_after_first_read_cycles_min", (double)min_fence_after);
  chip_figure("flip_wait_fence_after_first_read_cycles_max", (double)max_fence_after);
  free(imm_lo);
  free(imm_hi);
  free(flips);
  free(frames);
  frames = NULL;
  nframes = frames_cap = 0;
  nvb = 0;
  last_frame_no = 0;
  sgpu_sim_destroy(sim);
}

/* ------------------------------------------------------------------ VESA mode */
static void test_vga(uint32_t seed) {
  sgpu_sim *sim = chip_create(NULL);
  uint32_t rng = seed;
  enum { W = 320, H = 240 };
  static uint16_t px[H][W];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) px[y][x] = (uint16_t)chip_rand(&rng);
  const uint32_t fb = 0x00300000u;
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, fb, px, sizeof px) == 0, "backdoor");
  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  chip_wr(sim, src0 + SGPU_SREG_DISP_PITCH, W * 2);
  chip_wr(sim, src0 + SGPU_SREG_DISP_BASE, fb);
  /* via TINY and back: the timing restarts at the start of vblank, so the
   * first whole frame is captured after ~10 lines instead of ~490 */
  chip_wr(sim, src0 + SGPU_SREG_DISP_CONTROL, 1u << SGPU_DISP_TINY_SHIFT);
  chip_wr(sim, src0 + SGPU_SREG_DISP_CONTROL,
          (1u << SGPU_DISP_ENABLE_SHIFT) | (1u << SGPU_DISP_HREP_SHIFT) | (1u << SGPU_DISP_VREP_SHIFT));
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_TIMING), (480u << 16) | 640u, "DISP_TIMING VGA");
  sgpu_sim_frame f;
  uint64_t ran = 0;
  do {
    ran += sgpu_sim_run(sim, 20000, 0);
    CHIP_CHECK(sgpu_sim_last_frame(sim, 0, &f) == 0, "last_frame");
  } while (f.frame_number < 1 && ran < 3000000);
  CHIP_CHECK(f.frame_number >= 1, "no frame captured in VGA mode");
  printf("VGA frame: %ux%u active, %u x %u total, hsync %u, vsync %u lines\n", f.width, f.height,
         f.h_total, f.v_total, f.hsync_width, f.vsync_lines);
  CHIP_EQ(f.h_total, SGPU_TIMING_VGA_H_TOTAL, "h total");
  CHIP_EQ(f.h_total, 800, "h total (VESA)");
  CHIP_EQ(f.v_total, 525, "v total (VESA)");
  CHIP_EQ(f.hsync_width, 96, "hsync width (VESA)");
  CHIP_EQ(f.vsync_lines, 2, "vsync lines (VESA)");
  CHIP_EQ(f.width, 640, "active width");
  CHIP_EQ(f.height, 480, "active height");
  for (uint32_t y = 0; y < 480; y++)
    for (uint32_t x = 0; x < 640; x++) {
      uint8_t e[3];
      expand565(px[y / 2][x / 2], e);
      CHIP_CHECK(memcmp(&f.rgb[(y * 640 + x) * 3], e, 3) == 0, "VGA pixel (%u,%u)", x, y);
    }
  CHIP_EQ(chip_rd(sim, src0 + SGPU_SREG_DISP_UNDERFLOW), 0, "DISP_UNDERFLOW (VGA)");
  chip_figure("vga_h_total", f.h_total);
  chip_figure("vga_v_total", f.v_total);
  sgpu_sim_destroy(sim);
}

int main(int argc, char **argv) {
  uint32_t nflips = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 2000;
  uint32_t seed = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 0xF11Bu;
  CHIP_CHECK(nflips >= 10, "need at least 10 flips");
  test_flips(nflips, seed);
  test_vga(seed ^ 0x5A5A5A5Au);
  printf("test_flip: PASS\n");
  return 0;
}
