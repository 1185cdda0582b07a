/* test_board_boot — the power-on screen of the iCEBreaker image.
 *
 * After power-on and the 2^11-cycle reset, the boot ROM (rtl/top/sgpu_boot.v,
 * build/firmware/boot_icebreaker.hex from tools/mkboot) plays its link frames
 * into the host bridge; the command processor draws the screen and writes the
 * identity block.  The test replays the same ROM image
 * (build/firmware/boot_icebreaker.bin: frames behind a length byte, a 0
 * length ends it) through the C reference model (tests/model/sgpu_ref): the
 * WRITE frames' memory and register writes, the ring they start.  The
 * reference rendering is the framebuffer the model computed, shown as the
 * display registers the ROM wrote say (base, pitch, format, replication),
 * as 12-bit pins.  Then:
 *  - the first complete frame on the DVI pins that equals the reference
 *    rendering, and the frame after it, are found; every frame has the VESA
 *    timing; FIGURE board_boot_first_frame_cycles: system cycles from the
 *    reset's release to the end of that first frame;
 *  - the identity block read over the UART link (which the feeder connects
 *    after the boot) equals the reference's, its DONE word included.
 * Usage: test_board_boot [ROM.bin]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_link.h"
#include "sgpu_ref.h"
#include "sgpu_ref_boot.h"

#define MEM 131072u

static uint16_t expect[480 * 640];


int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "build/firmware/boot_icebreaker.bin";
  static uint8_t rom[65536];
  size_t rom_len;
  sgpu_ref_config rc = {MEM, 1, 1, 1}; /* the UP5K build: one INDIRECT level */
  sgpu_ref *ref;
  sgpu_ref_boot boot;
  char why[200];
  BL_CHECK(sgpu_ref_boot_load(path, &rc, rom, sizeof rom, &rom_len, &ref, &boot, why, sizeof why) == 0, "%s", why);
  const uint32_t disp_ctl = boot.disp_control, disp_base = boot.disp_base, disp_pitch = boot.disp_pitch;
  const sgpu_ref_fault *faults;
  BL_EQ(sgpu_ref_faults(ref, &faults), 0, "faults in the boot stream (reference model)");
  printf("boot image: %zu bytes, %u frames (%u WRITE); display 0x%08x pitch %u control 0x%02x\n", boot.bytes,
         boot.frames, boot.writes, disp_base, disp_pitch, disp_ctl);
  BL_CHECK(disp_ctl & (1u << SGPU_DISP_ENABLE_SHIFT), "the boot does not enable the display");
  BL_CHECK(!(disp_ctl & (1u << SGPU_DISP_TINY_SHIFT)), "the boot picks the TINY timing");
  const uint32_t fmt = (disp_ctl >> SGPU_DISP_CONTROL_FORMAT_SHIFT) & 1u;
  const uint32_t hrep = (disp_ctl >> SGPU_DISP_CONTROL_HREP_SHIFT) & 3u;
  const uint32_t vrep = (disp_ctl >> SGPU_DISP_CONTROL_VREP_SHIFT) & 3u;
  const uint8_t *rm = sgpu_ref_memory(ref);
  for (uint32_t y = 0; y < 480; y++)
    for (uint32_t x = 0; x < 640; x++) {
      const uint32_t px = x >> hrep, a = disp_base + (y >> vrep) * disp_pitch + px * (fmt ? 1u : 2u);
      BL_CHECK(a + 2 <= MEM, "scanout address 0x%08x outside memory", a);
      expect[y * 640 + x] = fmt ? bl_pin_rgb332(rm[a]) : bl_pin_rgb565((uint16_t)(rm[a] | rm[a + 1] << 8));
    }

  /* ---- the board: power-on, reset, the first frame equal to the rendering */
  board_sim *b = board_sim_create();
  BL_CHECK(b, "board_sim_create");
  BL_CHECK(board_sim_run_to_reset_release(b, 200000) == 0, "reset never released");
  const uint64_t rel = board_sim_reset_release(b);
  board_frame f;
  uint64_t first = 0, first_end = 0;
  int matched = 0;
  while (matched < 2) {
    if (board_sim_cycle(b) - rel >= 30ull * 200597 && f.number) {
      /* what the last frame showed instead */
      uint32_t diff = 0, first_diff = 0;
      for (uint32_t i = 0; i < 640 * 480 && i < f.width * f.height; i++)
        if (f.pixels[i] != expect[i] && diff++ == 0) first_diff = i;
      bl_fail(__FILE__, __LINE__, "no power-on screen within 30 frames of reset: the last frame (%ux%u) "
              "differs in %u pixels, the first at (%u,%u): 0x%03x, rendering 0x%03x", f.width, f.height, diff,
              first_diff % 640, first_diff / 640, f.pixels[first_diff], expect[first_diff]);
    }
    BL_CHECK(board_sim_run_until_frame(b, 600000) < 600000, "no frame");
    board_sim_last_frame(b, &f);
    BL_CHECK(f.timing_ok, "frame %llu timing: %s", (unsigned long long)f.number, f.timing_error);
    const int eq = f.width == 640 && f.height == 480 && memcmp(f.pixels, expect, sizeof expect) == 0;
    if (matched == 1) {
      BL_CHECK(eq, "frame %llu after the first power-on frame differs from the rendering",
               (unsigned long long)f.number);
      matched = 2;
    } else if (eq) {
      first = f.number;
      first_end = board_sim_cycle(b);
      matched = 1;
    }
  }
  printf("first power-on frame: frame %llu, complete %llu system cycles after the reset's release "
         "(%.2f ms)\n", (unsigned long long)first, (unsigned long long)(first_end - rel),
         (first_end - rel) / 12000.0);
  bl_figure("board_boot_first_frame_cycles", (double)(first_end - rel));
  bl_figure("board_boot_first_frame_cycles_from_power_on", (double)first_end);

  /* ---- the identity block over the link */
  board_link l;
  bl_init(&l, b);
  BL_EQ(bl_ping(&l) & 0xFFu,
        SGPU_BOARD_ICEBREAKER_RX_FIFO_BYTES ? SGPU_LINK_VERSION : SGPU_LINK_VERSION_SINGLE, "PING after the boot");
  uint32_t id[16];
  bl_read(&l, SGPU_IDENTITY_ADDR, id, 16);
  for (int i = 0; i < 16; i++) {
    uint32_t e;
    memcpy(&e, rm + SGPU_IDENTITY_ADDR + 4 * i, 4);
    BL_CHECK(id[i] == e, "identity word %d: 0x%08x, reference 0x%08x", i, id[i], e);
  }
  BL_EQ(id[SGPU_IDW_MAGIC], SGPU_IDENTITY_MAGIC, "identity MAGIC");
  BL_EQ(id[SGPU_IDW_DONE], SGPU_IDENTITY_DONE, "identity DONE");
  BL_EQ(bl_rd(&l, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_UNDERFLOW)), 0, "DISP_UNDERFLOW");
  BL_EQ(board_sim_bad_frames(b), 0, "frames with bad timing");
  sgpu_ref_destroy(ref);
  board_sim_destroy(b);
  printf("test_board_boot: PASS\n");
  return 0;
}
