/* test_firmware_boot — the boot ROM image on the chip behind its real host
 * bridge (sim/sgpu_link_sim.h: rtl/link/sgpu_link_top.v), without a board top.
 *
 *  1. The ROM's frames (build/firmware/boot_icebreaker.bin: each behind a
 *     length byte, a 0 length ends it) enter the bridge as the feeder
 *     (rtl/top/sgpu_boot.v) sends them: one byte every 16 cycles, the next frame
 *     once the bridge's answer to the previous one has started.  Every
 *     answer must be an ACK of its frame.
 *  2. A host then connects through the library's link client (its own PING
 *     takes the link over) and polls the identity block's DONE word, which
 *     the boot FENCE writes: FIGURE firmware_boot_fence_cycles (from the
 *     reset to the poll that saw it, in the link simulation's clock).
 *  3. After a frame period, the library captures the displayed frame over
 *     the link (the framebuffer the display scans out, rendered with its
 *     format and replication).  Independently, the same ROM frames run
 *     through the C reference model (tests/model/sgpu_ref): its memory
 *     writes, register writes and the ring they start; the reference
 *     rendering is its framebuffer shown as the display registers the ROM
 *     wrote say.  The two must match pixel for pixel.  The capture is saved
 *     as build/firmware/poweron.png.
 *  4. The identity block read back equals the model's, and the library
 *     decodes it (board icebreaker, firmware version, memory, CAPS);
 *     sgpu_read_identity on a device and its allocator: no block -> NO_FIRMWARE;
 *     a valid block -> decoded, its range never allocated.
 * Usage: test_firmware_boot [ROM.bin [OUT.png]]
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "link_frame.h"
#include "sgpu.h"
#include "sgpu_link_sim.h"
#include "sgpu_ref.h"
#include "sgpu_ref_boot.h"

#define MEM 8388608u    /* the link simulation's memory (sim/sim.mk SIM_MEM) */
#define GAP 16u         /* the feeder's cycles per byte */

static int failures;
#define CHECK(cond, ...)                                    \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);  \
      fprintf(stderr, __VA_ARGS__);                         \
      fputc('\n', stderr);                                  \
      failures++;                                           \
    }                                                       \
  } while (0)
#define REQUIRE(cond, ...)        \
  do {                            \
    if (!(cond)) {                \
      CHECK(cond, __VA_ARGS__);   \
      return 1;                   \
    }                             \
  } while (0)

/* ------------------------------------------------------------ a link channel over the model */
static long chan_recv(void *ctx, uint8_t *buf, size_t cap, int timeout_ms, char *why, size_t why_size) {
  (void)why, (void)why_size;
  sgpu_lsim *s = ctx;
  uint64_t budget = (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * (SGPU_NOMINAL_CLOCK_HZ / 1000u);
  if (budget > 4000000u) budget = 4000000u;
  uint64_t run = 0;
  size_t n = 0;
  do {
    run += sgpu_lsim_run(s, 64, buf, cap, &n);
  } while (n == 0 && run < budget);
  return (long)n;
}
static int chan_send(void *ctx, const uint8_t *data, size_t len, char *why, size_t why_size) {
  (void)why, (void)why_size;
  return sgpu_lsim_send(ctx, data, len) ? -1 : 0;
}
static void chan_close(void *ctx) { (void)ctx; }

/* ------------------------------------------------------------ RGB332 shown as the display does */
static void render(const uint8_t *mem, uint32_t base, uint32_t pitch, uint32_t ctl, uint32_t w, uint32_t h,
                   uint8_t *rgb) {
  uint32_t hrep = SGPU_FIELD_GET(DISP_CONTROL_HREP, ctl), vrep = SGPU_FIELD_GET(DISP_CONTROL_VREP, ctl);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      uint8_t p = mem[base + (y >> vrep) * pitch + (x >> hrep)];
      uint32_t r = p >> 5, g = (p >> 2) & 7, b = p & 3;
      uint8_t *o = rgb + 3 * ((size_t)y * w + x);
      o[0] = (uint8_t)(r << 5 | r << 2 | r >> 1);
      o[1] = (uint8_t)(g << 5 | g << 2 | g >> 1);
      o[2] = (uint8_t)(b * 0x55);
    }
}

int main(int argc, char **argv) {
  const char *rom_path = argc > 1 ? argv[1] : "build/firmware/boot_icebreaker.bin";
  const char *png_path = argc > 2 ? argv[2] : "build/firmware/poweron.png";
  static uint8_t rom[65536];
  size_t rom_len;
  /* ---- the reference: the ROM's frames through the model */
  sgpu_ref_config rc = {MEM, 1, 1, 1}; /* the iCEBreaker build: one INDIRECT level */
  sgpu_ref *ref;
  sgpu_ref_boot boot;
  char why[200];
  REQUIRE(sgpu_ref_boot_load(rom_path, &rc, rom, sizeof rom, &rom_len, &ref, &boot, why, sizeof why) == 0,
          "%s", why);
  const uint32_t disp_ctl = boot.disp_control, disp_base = boot.disp_base, disp_pitch = boot.disp_pitch;
  const uint32_t nframes = boot.frames;
  uint32_t st = 0;
  sgpu_ref_reg_read(ref, SGPU_NODE_REG(0, SGPU_NREG_STATUS), &st);
  CHECK(!(st & (SGPU_STATUS_FAULTED | SGPU_STATUS_BUSY)), "the model ends the boot stream with STATUS 0x%x", st);
  CHECK(SGPU_FIELD_GET(DISP_CONTROL_FORMAT, disp_ctl) == SGPU_HW_FORMAT_RGB332 &&
            SGPU_FIELD_GET(DISP_CONTROL_ENABLE, disp_ctl),
        "the ROM sets no RGB332 display (DISP_CONTROL 0x%x)", disp_ctl);
  const uint32_t W = SGPU_TIMING_VGA_H_ACTIVE, H = SGPU_TIMING_VGA_V_ACTIVE;
  static uint8_t expect[SGPU_TIMING_VGA_H_ACTIVE * SGPU_TIMING_VGA_V_ACTIVE * 3];
  render(sgpu_ref_memory(ref), disp_base, disp_pitch, disp_ctl, W, H, expect);
  uint32_t ref_id[SGPU_IDENTITY_BYTES / 4];
  sgpu_ref_mem_read(ref, SGPU_IDENTITY_ADDR, ref_id, sizeof ref_id);

  /* ---- the chip: the frames as the feeder sends them */
  sgpu_lsim_config lc = {GAP};
  sgpu_lsim *sim = sgpu_lsim_create(&lc);
  REQUIRE(sim, "sgpu_lsim_create");
  sgpu_link_decoder dec;
  sgpu_link_decoder_init(&dec);
  uint32_t acks = 0, naks = 0;
  uint8_t out[4096];
  size_t pos = 0;
  uint64_t t0 = sgpu_lsim_cycle(sim);
  for (uint32_t k = 0; k < nframes; k++) {
    size_t len = rom[pos++];
    const uint8_t *f = rom + pos;
    pos += len;
    sgpu_lsim_send(sim, f, len);
    /* until the answer starts (and collect what arrives meanwhile) */
    uint64_t waited = 0;
    int started = 0;
    while (!started) {
      size_t n = 0;
      waited += sgpu_lsim_run(sim, GAP, out, sizeof out, &n);
      REQUIRE(waited < 2000000u, "no answer to frame %u", k);
      if (n && sgpu_lsim_rx_queued(sim) == 0) started = 1;
      for (size_t used = 0, c = 0; used < n; used += c) {
        sgpu_link_frame fr;
        int r = sgpu_link_decode(&dec, out + used, n - used, &c, &fr);
        if (r == SGPU_LINK_FRAME) {
          if (fr.kind == SGPU_LINK_KIND_ACK) acks++;
          else naks++;
        }
      }
    }
  }
  uint64_t doorbell = sgpu_lsim_cycle(sim) - t0;
  /* the rest of the last answer */
  {
    size_t n = 0;
    sgpu_lsim_run(sim, 40 * GAP, out, sizeof out, &n);
    for (size_t used = 0, c = 0; used < n; used += c) {
      sgpu_link_frame fr;
      if (sgpu_link_decode(&dec, out + used, n - used, &c, &fr) == SGPU_LINK_FRAME) {
        if (fr.kind == SGPU_LINK_KIND_ACK) acks++;
        else naks++;
      }
    }
  }
  CHECK(acks == nframes && naks == 0, "%u frames: %u ACKs, %u other answers", nframes, acks, naks);
  CHECK(sgpu_lsim_frames_err(sim) == 0, "the bridge sent %llu NAKs",
        (unsigned long long)sgpu_lsim_frames_err(sim));

  /* ---- a host takes over */
  sgpu_link_chan ch = {sim, chan_send, chan_recv, chan_close};
  sgpu_link_options lo = {0};
  sgpu_transport *tr = NULL;
  char msg[256] = "";
  REQUIRE(sgpu_link_open("lsim", &ch, &lo, &tr, msg, sizeof msg) == 0, "link open: %s", msg);
  uint32_t done = 0;
  uint64_t fence_cycles = 0;
  for (int i = 0; i < 2000 && done != SGPU_IDENTITY_DONE; i++) {
    REQUIRE(tr->ops->mem_read(tr, SGPU_IDENTITY_ADDR + 4 * SGPU_IDW_DONE, &done, 4) == 0, "READ failed");
    fence_cycles = sgpu_lsim_cycle(sim) - t0;
  }
  REQUIRE(done == SGPU_IDENTITY_DONE, "the boot FENCE never wrote DONE (0x%08x)", done);
  printf("FIGURE firmware_rom_frames %u\n", nframes);
  printf("FIGURE firmware_doorbell_cycles %llu\n", (unsigned long long)doorbell);
  printf("FIGURE firmware_boot_fence_cycles %llu\n", (unsigned long long)fence_cycles);

  /* ---- the displayed frame */
  size_t n = 0;
  sgpu_lsim_run(sim, (uint64_t)SGPU_TIMING_VGA_H_TOTAL * SGPU_TIMING_VGA_V_TOTAL * 2, out, sizeof out, &n);
  uint32_t st_chip = 0;
  tr->ops->reg_read(tr, SGPU_NODE_REG(0, SGPU_NREG_STATUS), &st_chip);
  CHECK(!(st_chip & (SGPU_STATUS_FAULTED | SGPU_STATUS_BUSY)), "node 0 STATUS 0x%x after the boot", st_chip);
  sgpu_tr_frame fr;
  REQUIRE(tr->ops->run_until_frame(tr, 0, 0) == 0 && tr->ops->frame(tr, 0, &fr) == 0,
          "frame capture over the link failed");
  REQUIRE(fr.width == W && fr.height == H, "captured %ux%u, expected %ux%u", fr.width, fr.height, W, H);
  uint32_t diff = 0, first = 0;
  for (uint32_t i = 0; i < W * H; i++)
    if (memcmp(fr.rgb + 3 * i, expect + 3 * i, 3)) {
      if (!diff) first = i;
      diff++;
    }
  CHECK(diff == 0, "%u pixels differ from the reference rendering, first at (%u, %u)", diff, first % W, first / W);
  uint32_t ink = 0;
  for (uint32_t i = 0; i < W * H; i++) ink += fr.rgb[3 * i] == 0xFF && fr.rgb[3 * i + 1] == 0xFF;
  CHECK(ink > 500, "only %u white pixels: no text on the screen", ink);
  printf("FIGURE firmware_screen_text_pixels %u\n", ink);
  sgpu_frame pf = {W, H, (uint8_t *)fr.rgb, 0, disp_base, 1, 0};
  CHECK(sgpu_write_png(&pf, png_path) == 0, "writing %s", png_path);

  /* ---- the identity block */
  uint32_t id_words[SGPU_IDENTITY_BYTES / 4];
  REQUIRE(tr->ops->mem_read(tr, SGPU_IDENTITY_ADDR, id_words, sizeof id_words) == 0, "READ failed");
  CHECK(!memcmp(id_words, ref_id, sizeof id_words), "the identity block differs from the model's");
  sgpu_identity id;
  CHECK(sgpu_identity_decode(id_words, &id) == 0, "the identity block is not valid");
  CHECK(id.board == SGPU_BOARD_ICEBREAKER && !strcmp(id.board_name, "icebreaker"), "board %u '%s'", id.board,
        id.board_name);
  CHECK(id.mem_size == 131072 && SGPU_FIELD_GET(CAPS_NODES, id.caps) == 1 &&
            SGPU_FIELD_GET(CAPS_BLIT, id.caps) && id.fw_version != 0 &&
            id.hw_version == ((uint32_t)SGPU_HW_VERSION_MAJOR << 16 | SGPU_HW_VERSION_MINOR),
        "identity: mem %u caps 0x%x fw 0x%x hw 0x%x", id.mem_size, id.caps, id.fw_version, id.hw_version);
  CHECK(id.fb_base == disp_base && id.fb_width * 2 == W && id.fb_height * 2 == H && id.disp_control == disp_ctl,
        "identity: screen 0x%x %ux%u ctl 0x%x", id.fb_base, id.fb_width, id.fb_height, id.disp_control);
  uint32_t bad[SGPU_IDENTITY_BYTES / 4];
  memcpy(bad, id_words, sizeof bad);
  bad[SGPU_IDW_MEM_SIZE] ^= 1;
  CHECK(sgpu_identity_decode(bad, &id) == SGPU_ERROR_NO_FIRMWARE, "a block with a wrong CHECK is accepted");
  tr->ops->close(tr);
  sgpu_lsim_destroy(sim);

  /* ---- the library: sgpu_read_identity and the allocator */
  sgpu_device *dev;
  REQUIRE(sgpu_open("sim", &dev) == 0, "sgpu_open(sim)");
  sgpu_identity got;
  CHECK(sgpu_read_identity(dev, &got) == SGPU_ERROR_NO_FIRMWARE, "identity found in fresh memory");
  CHECK(strlen(sgpu_strerror(SGPU_ERROR_NO_FIRMWARE)) > 0, "no message for SGPU_ERROR_NO_FIRMWARE");
  REQUIRE(sgpu_write(dev, SGPU_IDENTITY_ADDR, id_words, sizeof id_words) == 0, "sgpu_write");
  CHECK(sgpu_read_identity(dev, &got) == 0 && got.board == SGPU_BOARD_ICEBREAKER, "sgpu_read_identity: %s",
        sgpu_last_error(dev));
  sgpu_info info;
  CHECK(sgpu_query_info(dev, &info) == 0 && info.firmware_version == got.fw_version,
        "sgpu_info.firmware_version 0x%x", info.firmware_version);
  uint32_t seg = 0;
  for (uint32_t s = 1; s < SGPU_SEGMENT_COUNT; s++)
    if (SGPU_IDENTITY_ADDR >= info.segment[s].base &&
        SGPU_IDENTITY_ADDR < info.segment[s].base + info.segment[s].size)
      seg = s;
  REQUIRE(seg != 0, "no segment holds the identity block");
  uint32_t overlaps = 0, allocs = 0;
  for (;;) {
    uint64_t a;
    if (sgpu_alloc(dev, seg, 256, 64, &a)) break;
    allocs++;
    if (a < SGPU_IDENTITY_ADDR + SGPU_IDENTITY_BYTES && a + 256 > SGPU_IDENTITY_ADDR) overlaps++;
    if (a > SGPU_IDENTITY_ADDR + 0x1000) break;
  }
  CHECK(overlaps == 0 && allocs > 0, "%u of %u allocations overlap the identity block", overlaps, allocs);
  CHECK(sgpu_free(dev, SGPU_IDENTITY_ADDR) == SGPU_ERROR_NOT_ALLOCATED, "sgpu_free freed the identity block");
  sgpu_close(dev);
  sgpu_ref_destroy(ref);

  if (failures) {
    fprintf(stderr, "test_firmware_boot: %d failure(s)\n", failures);
    return 1;
  }
  printf("test_firmware_boot: PASS (%u frames, %zu ROM bytes, screen saved as %s)\n", nframes, rom_len, png_path);
  return 0;
}
