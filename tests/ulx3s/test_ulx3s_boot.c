/* test_ulx3s_boot — the ULX3S image's power-on screen, seen on the cable.
 *
 * The boot ROM (build/firmware/boot_ulx3s.bin, the image ulx3s_top's
 * sgpu_boot plays) is replayed through the C reference model (the board
 * table's nodes, sources and INDIRECT depth, 32 MB: the GPU memory is the
 * SDRAM, here the SDRAM model that checks every command's timing); the
 * reference rendering is the framebuffer the model computed,
 * shown as the display registers the ROM wrote say, expanded to 8 bits per
 * colour by bit replication as the display does.  Then the board model
 * (tests/ulx3s/ulx3s_sim.cpp) runs from power-on and its TMDS receiver
 * decodes the GPDI lanes:
 *  - the receiver finds the symbol boundary and decodes every symbol with
 *    no error (clock lane pattern, lanes agreeing, control symbols,
 *    running disparity within -8..+8);
 *  - every complete frame has the VESA 640x480@60 timing;
 *  - a decoded frame equals the reference rendering pixel for pixel, and so
 *    does the frame after it;
 *  - the TMDS underflow LED stays dark, the PLL-locked LED is lit.
 * FIGURE lines: system cycles from reset release to the end of the first
 * matching frame; symbols decoded.
 * Usage: test_ulx3s_boot [ROM.bin]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../host/src/pixfmt.h" /* the library's RGB565/RGB332 -> RGB888 */
#include "sgpu_ref.h"
#include "sgpu_ref_boot.h"
#include "ulx3s_sim.h"

#define MEM 33554432u
#define FRAME_CYCLES 504000u /* system cycles of one 420,000-pixel frame: 30 / 25 MHz */

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static uint32_t expect[480 * 640];

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "build/firmware/boot_ulx3s.bin";
  static uint8_t rom[65536];
  size_t rom_len;
  sgpu_ref_config rc = {MEM, SGPU_BOARD_ULX3S_NODES, SGPU_BOARD_ULX3S_SOURCES, SGPU_BOARD_ULX3S_IB_DEPTH};
  sgpu_ref *ref;
  sgpu_ref_boot boot;
  char why[200];
  CHECK(sgpu_ref_boot_load(path, &rc, rom, sizeof rom, &rom_len, &ref, &boot, why, sizeof why) == 0, "%s", why);
  const sgpu_ref_fault *faults;
  CHECK(sgpu_ref_faults(ref, &faults) == 0, "faults in the boot stream (reference model)");
  const uint32_t ctl = boot.disp_control;
  CHECK(ctl & (1u << SGPU_DISP_ENABLE_SHIFT), "the boot does not enable the display");
  CHECK(!(ctl & (1u << SGPU_DISP_TINY_SHIFT)), "the boot picks the TINY timing");
  const uint32_t fmt = (ctl >> SGPU_DISP_CONTROL_FORMAT_SHIFT) & 1u;
  const uint32_t hrep = (ctl >> SGPU_DISP_CONTROL_HREP_SHIFT) & 3u;
  const uint32_t vrep = (ctl >> SGPU_DISP_CONTROL_VREP_SHIFT) & 3u;
  const uint8_t *rm = sgpu_ref_memory(ref);
  for (uint32_t y = 0; y < 480; y++)
    for (uint32_t x = 0; x < 640; x++) {
      const uint32_t a = boot.disp_base + (y >> vrep) * boot.disp_pitch + (x >> hrep) * (fmt ? 1u : 2u);
      CHECK(a + 2 <= MEM, "scanout address 0x%08x outside memory", a);
      expect[y * 640 + x] = fmt ? sgpu__rgb332_to_888(rm[a]) : sgpu__rgb565_to_888((uint16_t)(rm[a] | rm[a + 1] << 8));
    }
  printf("boot image: %zu bytes, %u frames; display 0x%08x pitch %u control 0x%02x\n", boot.bytes,
         boot.frames, boot.disp_base, boot.disp_pitch, ctl);

  const clock_t t0 = clock();
  ulx3s_sim *s = ulx3s_sim_create();
  CHECK(s, "ulx3s_sim_create");
  CHECK(ulx3s_sim_run_to_reset_release(s, 200000) == 0, "reset never released");
  const uint64_t rel = ulx3s_sim_reset_release(s);
  ulx3s_frame f;
  uint64_t first_end = 0;
  int matched = 0;
  while (matched < 2) {
    CHECK(ulx3s_sim_cycle(s) - rel < 8ull * FRAME_CYCLES, "no decoded frame equal to the power-on screen "
          "after %llu cycles (%llu frames)", (unsigned long long)(ulx3s_sim_cycle(s) - rel),
          (unsigned long long)ulx3s_sim_frames(s));
    ulx3s_sim_run_until_frame(s, 2ull * FRAME_CYCLES);
    ulx3s_sim_last_frame(s, &f);
    if (!f.number) continue;
    CHECK(f.timing_ok, "frame %llu: %s", (unsigned long long)f.number, f.timing_error);
    CHECK(f.width == 640 && f.height == 480, "frame %llu is %ux%u", (unsigned long long)f.number, f.width,
          f.height);
    uint32_t diff = 0, first_diff = 0;
    for (uint32_t i = 0; i < 640 * 480; i++)
      if (f.pixels[i] != expect[i] && diff++ == 0) first_diff = i;
    printf("frame %llu: %u pixels differ from the rendering", (unsigned long long)f.number, diff);
    if (diff)
      printf(" (first at x %u y %u: 0x%06x, want 0x%06x)", first_diff % 640, first_diff / 640,
             f.pixels[first_diff], expect[first_diff]);
    printf("\n");
    if (diff == 0) {
      if (!matched) first_end = ulx3s_sim_cycle(s);
      matched++;
    } else {
      CHECK(!matched, "the frame after a matching one differs");
    }
  }
  ulx3s_tmds_stats st;
  ulx3s_sim_tmds_stats(s, &st);
  CHECK(st.locked, "the TMDS receiver never found the symbol boundary");
  CHECK(st.errors == 0, "%llu TMDS errors; first: %s", (unsigned long long)st.errors, st.err);
  CHECK(ulx3s_sim_bad_frames(s) == 0, "frames with bad timing");
  const uint32_t leds = ulx3s_sim_leds(s);
  CHECK(!(leds & 0x80u), "TMDS underflow LED lit");
  CHECK(leds & 0x40u, "PLL-locked LED dark");
  ulx3s_sdram_stats sd;
  ulx3s_sim_sdram_stats(s, &sd);
  CHECK(sd.reads > 0 && sd.writes > 0 && sd.refreshes > 0, "no SDRAM traffic");
  const double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  printf("FIGURE ulx3s_boot_first_frame_cycles %llu system cycles from reset release to the end of the "
         "first decoded frame equal to the power-on screen\n",
         (unsigned long long)(first_end - rel));
  printf("FIGURE ulx3s_tmds_symbols %llu per lane decoded (%llu control), boundary at bit phase %u, 0 errors\n",
         (unsigned long long)st.symbols, (unsigned long long)st.control_symbols, st.phase);
  printf("FIGURE ulx3s_boot_sdram_commands %llu READ, %llu WRITE, %llu ACTIVATE, %llu REFRESH in %llu cycles, "
         "every one checked by the SDRAM model\n", (unsigned long long)sd.reads, (unsigned long long)sd.writes,
         (unsigned long long)sd.activates, (unsigned long long)sd.refreshes, (unsigned long long)sd.cycles);
  printf("FIGURE ulx3s_board_sim_seconds %.1f for %llu frames\n", secs, (unsigned long long)ulx3s_sim_frames(s));
  ulx3s_sim_destroy(s);
  sgpu_ref_destroy(ref);
  printf("PASS test_ulx3s_boot\n");
  return 0;
}
