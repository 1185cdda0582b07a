/* test_chip_capture — frame capture from the RTL's video outputs, per
 * source: both sources in the tiny timing with different framebuffers
 * (RGB565 and RGB332), frames assembled from data-enable pixels only,
 * measured h_total / v_total / sync widths equal the generated timing,
 * frame numbers and start cycles advance by exactly one frame, and
 * sgpu_sim_run(stop_on_irq) stops on the CRTC_VSYNC interrupt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/src/pixfmt.h" /* the library's RGB565/RGB332 -> RGB888 */
#include "chip_util.h"

#define FB0 0x00200000u
#define FB1 0x00300000u
#define W SGPU_TIMING_TINY_H_ACTIVE
#define H SGPU_TIMING_TINY_V_ACTIVE

static int near(uint8_t a, uint8_t b, int tol) { return abs((int)a - (int)b) < tol; }

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  sgpu_sim_frame f;
  CHIP_CHECK(sgpu_sim_last_frame(sim, sgpu_sim_sources(sim), &f) == -1, "bad source accepted");
  CHIP_CHECK(sgpu_sim_last_frame(sim, 0, &f) == 0 && f.frame_number == 0, "a frame before the display ran");
  uint32_t rng = 77;
  /* source 0: random RGB565 framebuffer; source 1: random RGB332 */
  uint16_t *fb0 = malloc(W * H * 2);
  uint8_t *fb1 = malloc(W * H);
  CHIP_CHECK(fb0 && fb1, "oom");
  for (uint32_t i = 0; i < W * H; i++) {
    fb0[i] = (uint16_t)chip_rand(&rng);
    fb1[i] = (uint8_t)chip_rand(&rng);
  }
  chip_mem_write(sim, FB0, fb0, W * H * 2);
  chip_mem_write(sim, FB1, fb1, W * H);
  const uint32_t tiny = 1u << SGPU_DISP_TINY_SHIFT, en = 1u << SGPU_DISP_ENABLE_SHIFT;
  chip_wr(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE), FB0);
  chip_wr(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_PITCH), W * 2);
  chip_wr(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL), en | tiny);
  uint32_t two_sources = sgpu_sim_sources(sim) > 1;
  if (two_sources) {
    chip_wr(sim, SGPU_SOURCE_REG(1, SGPU_SREG_DISP_BASE), FB1);
    chip_wr(sim, SGPU_SOURCE_REG(1, SGPU_SREG_DISP_PITCH), W);
    chip_wr(sim, SGPU_SOURCE_REG(1, SGPU_SREG_DISP_CONTROL),
            en | tiny | (SGPU_HW_FORMAT_RGB332 << SGPU_DISP_FORMAT_SHIFT));
  }
  const uint32_t frame_cycles = SGPU_TIMING_TINY_H_TOTAL * SGPU_TIMING_TINY_V_TOTAL;
  sgpu_sim_run(sim, 3 * frame_cycles, 0);
  sgpu_sim_frame prev[2];
  for (uint32_t s = 0; s <= two_sources; s++) {
    CHIP_CHECK(sgpu_sim_last_frame(sim, s, &prev[s]) == 0 && prev[s].frame_number >= 2, "source %u: no frames", s);
  }
  sgpu_sim_run(sim, frame_cycles, 0);
  for (uint32_t s = 0; s <= two_sources; s++) {
    sgpu_sim_last_frame(sim, s, &f);
    printf("source %u: frame %llu %ux%u h_total %u v_total %u hsync %u vsync %u start %llu\n", s,
           (unsigned long long)f.frame_number, f.width, f.height, f.h_total, f.v_total, f.hsync_width,
           f.vsync_lines, (unsigned long long)f.start_cycle);
    CHIP_EQ(f.frame_number, prev[s].frame_number + 1, "one more frame after one frame time");
    CHIP_EQ(f.start_cycle - prev[s].start_cycle, frame_cycles, "frame period");
    CHIP_EQ(f.width, W, "width");
    CHIP_EQ(f.height, H, "height");
    CHIP_EQ(f.h_total, SGPU_TIMING_TINY_H_TOTAL, "h_total");
    CHIP_EQ(f.v_total, SGPU_TIMING_TINY_V_TOTAL, "v_total");
    CHIP_EQ(f.hsync_width, SGPU_TIMING_TINY_H_SYNC, "hsync width");
    CHIP_EQ(f.vsync_lines, SGPU_TIMING_TINY_V_SYNC, "vsync lines");
    uint32_t bad = 0;
    for (uint32_t y = 0; y < H; y++)
      for (uint32_t x = 0; x < W; x++) {
        uint8_t e[3];
        const uint8_t *p = f.rgb + 3 * (y * W + x);
        if (s == 0) {
          sgpu__rgb888_bytes(sgpu__rgb565_to_888(fb0[y * W + x]), e);
        } else {
          sgpu__rgb888_bytes(sgpu__rgb332_to_888(fb1[y * W + x]), e);
        }
        int tol = s == 0 ? 8 : 37; /* expansion of the low bits is the display's choice */
        if (!near(p[0], e[0], tol) || !near(p[1], e[1], tol) || !near(p[2], e[2], tol)) {
          if (bad < 4)
            fprintf(stderr, "source %u pixel (%u,%u) = %02x%02x%02x expected ~%02x%02x%02x\n", s, x, y, p[0], p[1],
                    p[2], e[0], e[1], e[2]);
          bad++;
        }
      }
    CHIP_CHECK(bad == 0, "source %u: %u pixels differ from the framebuffer", s, bad);
  }
  /* stop_on_irq: CRTC_VSYNC of source 0 */
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  chip_wr(sim, SGPU_REG_INT_ENABLE, SGPU_INT_CRTC_VSYNC(0));
  sgpu_sim_run(sim, 1, 0);
  CHIP_CHECK(!sgpu_sim_irq(sim), "irq high without a pending vsync");
  uint64_t ran = sgpu_sim_run(sim, 2 * frame_cycles, 1);
  CHIP_CHECK(ran < frame_cycles + 2 && sgpu_sim_irq(sim), "stop_on_irq ran %llu cycles, irq %d",
             (unsigned long long)ran, sgpu_sim_irq(sim));
  uint32_t line = chip_rd(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_SCANLINE));
  CHIP_CHECK(line & (1u << 16), "stopped on vsync irq outside vblank (DISP_SCANLINE 0x%x)", line);
  chip_figure("capture_total_cycles", (double)sgpu_sim_cycle(sim));
  free(fb0);
  free(fb1);
  sgpu_sim_destroy(sim);
  printf("test_chip_capture: PASS\n");
  return 0;
}
