/* test_board_underflow — no scanout underflow on the iCEBreaker image under
 * a continuous FILL / COPY load.
 *
 * For each display mode (320x240 RGB332 shown x2, the largest that fits the
 * 128 KiB of SPRAM, then 160x120 RGB565 x4) the ring is kept non-empty with
 * large FILL and COPY packets over the framebuffer being scanned out, for
 * several frames: the host polls RING_RPTR over the link and tops the ring
 * up; the ring must never be found empty.  Then: DISP_UNDERFLOW (read over
 * the link) is 0, every captured frame had DE, hsync and vsync exactly where
 * VESA 640x480@60 puts them, and a frame captured after the closing FENCE
 * equals the framebuffer the reference model (tests/model/sgpu_ref) computed
 * from the same packets.  Figures: FILL and COPY words per system cycle
 * during the 320x240 RGB332 scanout (TIMESTAMP packets around a blit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_link.h"
#include "sgpu_ref.h"

#define MEM 131072u
#define FB 0x00000000u
#define RING 0x0001C000u
#define RING_SIZE 0x1000u
#define FENCE 0x0001F000u
#define TS 0x0001F100u
#define LOAD_FRAMES 4

typedef struct mode {
  const char *name;
  uint32_t w, h, bpp, fmt, rep;
} mode;

static uint32_t rnd(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static board_link l;
static bl_ring ring;
static sgpu_ref *ref;
static uint32_t ref_wptr;

static void submit(const uint32_t *w, size_t n) {
  bl_ring_submit(&ring, w, n);
  for (size_t i = 0; i < n; i++) {
    BL_CHECK(sgpu_ref_mem_write(ref, RING + ref_wptr, &w[i], 4) == 0, "ref ring");
    ref_wptr = (ref_wptr + 4) & (RING_SIZE - 1);
  }
  BL_CHECK(sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), ref_wptr) == 0, "ref doorbell");
}

static void wait_fence(uint32_t value) {
  uint32_t v = 0;
  for (int tries = 0;; tries++) {
    bl_read(&l, FENCE, &v, 1);
    if (v == value) return;
    BL_CHECK(tries < 400, "fence %u not written (0x%08x)", value, v);
    bl_run(&l, 10000);
  }
}

static void run_mode(const mode *m, uint32_t *rng, uint32_t fence) {
  const uint32_t pitch = m->w * m->bpp, size = pitch * m->h;
  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  uint32_t ctl = (1u << SGPU_DISP_ENABLE_SHIFT) | (m->fmt << SGPU_DISP_CONTROL_FORMAT_SHIFT) |
                 (m->rep << SGPU_DISP_CONTROL_HREP_SHIFT) | (m->rep << SGPU_DISP_CONTROL_VREP_SHIFT);
  bl_wr(&l, src0 + SGPU_SREG_DISP_PITCH, pitch);
  bl_wr(&l, src0 + SGPU_SREG_DISP_BASE, FB);
  bl_wr(&l, src0 + SGPU_SREG_DISP_CONTROL, ctl);
  /* the configuration takes effect at the next vblank: start counting after it */
  board_sim_run_until_frame(l.b, 600000);
  const uint32_t uf0 = bl_rd(&l, src0 + SGPU_SREG_DISP_UNDERFLOW);
  BL_EQ(uf0, 0, "DISP_UNDERFLOW before the load");
  const uint64_t frames0 = board_sim_frames(l.b), bad0 = board_sim_bad_frames(l.b);
  uint64_t words = 0, polls = 0, empty = 0, packets = 0;
  const uint64_t c0 = board_sim_cycle(l.b);
  int started = 0;
  while (board_sim_frames(l.b) < frames0 + LOAD_FRAMES) {
    uint32_t rptr = bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_RING_RPTR));
    polls++;
    if (started && rptr == ring.wptr) empty++;
    uint32_t used = (ring.wptr - rptr) & (RING_SIZE - 1);
    if (used <= 4 * 28) { /* at most one batch pending: the load stays about LOAD_FRAMES long */
      uint32_t w[48];
      size_t n = 0;
      for (int k = 0; k < 4; k++) {
        /* large rectangles: a third to all of the framebuffer */
        uint32_t wb = pitch / 2 + rnd(rng) % (pitch / 2 + 1), h = m->h / 3 + rnd(rng) % (m->h * 2 / 3 + 1);
        uint32_t x = rnd(rng) % (pitch - wb + 1), y = rnd(rng) % (m->h - h + 1);
        if (k % 2 == 0) {
          n = bl_pkt_fill(w, n, FB + y * pitch + x, pitch, wb, h, rnd(rng));
        } else {
          uint32_t sx = rnd(rng) % (pitch - wb + 1), sy = rnd(rng) % (m->h - h + 1);
          n = bl_pkt_copy(w, n, FB + y * pitch + x, pitch, FB + sy * pitch + sx, pitch, wb, h);
        }
        words += (uint64_t)wb * h / 4;
        packets++;
      }
      submit(w, n);
      started = 1;
    } else {
      bl_run(&l, 4000);
    }
  }
  const uint64_t load_cycles = board_sim_cycle(l.b) - c0;
  uint32_t w[8];
  size_t n = bl_pkt_fence(w, 0, FENCE, fence, 0);
  submit(w, n);
  wait_fence(fence);
  const uint32_t uf = bl_rd(&l, src0 + SGPU_SREG_DISP_UNDERFLOW);
  printf("%s: %llu packets (%llu words) over %llu frames, %llu cycles; ring polled %llu times, empty %llu; "
         "DISP_UNDERFLOW %u\n", m->name, (unsigned long long)packets, (unsigned long long)words,
         (unsigned long long)(board_sim_frames(l.b) - frames0), (unsigned long long)load_cycles,
         (unsigned long long)polls, (unsigned long long)empty, uf);
  BL_EQ(uf, 0, "DISP_UNDERFLOW after the load");
  BL_EQ(empty, 0, "times the ring was found empty during the load");
  BL_EQ(board_sim_bad_frames(l.b) - bad0, 0, "frames with DE or syncs out of place");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED, 0, "node faulted");

  /* a frame after the fence shows the reference's framebuffer */
  const uint64_t after = board_sim_cycle(l.b);
  board_frame f;
  do {
    BL_CHECK(board_sim_run_until_frame(l.b, 600000) < 600000, "no frame");
    board_sim_last_frame(l.b, &f);
  } while (f.start_cycle < after);
  BL_CHECK(f.timing_ok, "frame timing: %s", f.timing_error);
  BL_CHECK(f.width == 640 && f.height == 480, "frame %ux%u", f.width, f.height);
  const uint8_t *rm = sgpu_ref_memory(ref);
  const uint32_t sh = m->rep;
  for (uint32_t y = 0; y < 480; y++)
    for (uint32_t x = 0; x < 640; x++) {
      const uint8_t *p = rm + FB + (y >> sh) * pitch + (x >> sh) * m->bpp;
      uint16_t e = m->bpp == 2 ? bl_pin_rgb565((uint16_t)(p[0] | p[1] << 8)) : bl_pin_rgb332(p[0]);
      BL_CHECK(f.pixels[y * 640 + x] == e, "%s: pixel (%u,%u) on the pins 0x%03x, reference 0x%03x", m->name,
               x, y, f.pixels[y * 640 + x], e);
    }
  (void)size;
}

/* Cycles of one blit: [ts][ts][blit][ts] minus the empty pair. */
static double blit_cycles(const uint32_t *blit, size_t nblit, uint32_t fence) {
  uint32_t w[32];
  size_t n = 0;
  for (int i = 0; i < 2; i++) {
    w[n++] = SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0);
    w[n++] = TS + 8u * (uint32_t)i;
  }
  memcpy(&w[n], blit, 4 * nblit);
  n += nblit;
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0);
  w[n++] = TS + 16;
  n = bl_pkt_fence(w, n, FENCE, fence, 0);
  submit(w, n);
  wait_fence(fence);
  uint32_t ts[6];
  bl_read(&l, TS, ts, 6);
  return (double)(ts[4] - ts[2]) - (double)(ts[2] - ts[0]);
}

int main(void) {
  board_sim *b = board_sim_create();
  BL_CHECK(b, "board_sim_create");
  bl_init(&l, b);
  BL_CHECK(board_sim_run_to_reset_release(b, 200000) == 0, "reset never released");
  bl_wait_boot(&l); /* the power-on screen is drawn; the link is the test's */
  sgpu_ref_config rc = {MEM, 1, 1, 1}; /* the UP5K build: one INDIRECT level */
  ref = sgpu_ref_create(&rc);
  BL_CHECK(ref, "sgpu_ref_create");
  bl_ring_init(&ring, &l, RING, RING_SIZE);
  BL_CHECK(sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), RING) == 0 &&
               sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), RING_SIZE) == 0 &&
               sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 1) == 0,
           "ref ring");
  /* memory the load reads starts known (the boot drew its screen there) */
  {
    uint32_t w[16];
    size_t n = bl_pkt_fill(w, 0, FB, 320, 320, 240, 0x5A3C1E0Fu);
    n = bl_pkt_fence(w, n, FENCE, 0xF0, 0);
    submit(w, n);
    wait_fence(0xF0);
  }
  uint32_t rng = 0x0DF10Bu;
  static const mode modes[] = {
      {"320x240 RGB332 x2", 320, 240, 1, SGPU_HW_FORMAT_RGB332, 1},
      {"160x120 RGB565 x4", 160, 120, 2, SGPU_HW_FORMAT_RGB565, 2},
  };
  run_mode(&modes[0], &rng, 1);
  /* blit rates while 320x240 RGB332 is scanned out */
  uint32_t blit[8];
  size_t nb = bl_pkt_fill(blit, 0, FB, 320, 320, 200, 0xA5C3E1F0u); /* 16000 words */
  double fc = blit_cycles(blit, nb, 2);
  nb = bl_pkt_copy(blit, 0, FB + 320 * 120, 320, FB, 320, 320, 100); /* 8000 words */
  double cc = blit_cycles(blit, nb, 3);
  printf("320x240 RGB332 scanout: FILL 16000 words in %.0f cycles, COPY 8000 words in %.0f cycles\n", fc, cc);
  bl_figure("board_fill_words_per_cycle_scanout332", 16000.0 / fc);
  bl_figure("board_copy_words_per_cycle_scanout332", 8000.0 / cc);
  run_mode(&modes[1], &rng, 4);
  BL_EQ(board_sim_uart_errors(b), 0, "TX pin framing errors");
  printf("simulated %llu system cycles, %llu frames\n", (unsigned long long)board_sim_cycle(b),
         (unsigned long long)board_sim_frames(b));
  sgpu_ref_destroy(ref);
  board_sim_destroy(b);
  printf("test_board_underflow: PASS\n");
  return 0;
}
