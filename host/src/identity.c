/* identity.c — the boot firmware's identity block (docs/firmware.md). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "identity.h"
#include "remote.h"

#define IDW (SGPU_IDENTITY_BYTES / 4u)

int sgpu_identity_decode(const uint32_t words[SGPU_IDENTITY_BYTES / 4], sgpu_identity *id) {
  if (!words || !id) return SGPU_ERROR_INVALID_PARAM;
  uint32_t x = 0;
  for (uint32_t i = 0; i < SGPU_IDW_CHECK; i++) x ^= words[i];
  if (words[SGPU_IDW_MAGIC] != SGPU_IDENTITY_MAGIC ||
      words[SGPU_IDW_LAYOUT] != (SGPU_IDENTITY_LAYOUT_VERSION << 16 | SGPU_IDENTITY_BYTES) ||
      words[SGPU_IDW_CHECK] != x || words[SGPU_IDW_DONE] != SGPU_IDENTITY_DONE)
    return SGPU_ERROR_NO_FIRMWARE;
  memset(id, 0, sizeof *id);
  memcpy(id->words, words, sizeof id->words);
  id->hw_version = words[SGPU_IDW_HW_VERSION];
  id->fw_version = words[SGPU_IDW_FW_VERSION];
  id->board = words[SGPU_IDW_BOARD];
  id->caps = words[SGPU_IDW_CAPS];
  id->mem_size = words[SGPU_IDW_MEM_SIZE];
  id->fb_base = words[SGPU_IDW_FB_BASE];
  id->fb_width = words[SGPU_IDW_FB_SIZE] & 0xFFFFu;
  id->fb_height = words[SGPU_IDW_FB_SIZE] >> 16;
  id->disp_control = words[SGPU_IDW_DISP_CONTROL];
  for (uint32_t i = 0; i < SGPU_IDENTITY_NAME_BYTES; i++) {
    char c = (char)(words[SGPU_IDW_NAME + i / 4] >> (8 * (i % 4)));
    if (c == 0) break;
    id->board_name[i] = (c >= 0x20 && c < 0x7F) ? c : '?';
  }
  return 0;
}

uint32_t sgpu__board_clock_hz(uint32_t board) {
  switch (board) {
    case SGPU_BOARD_ICEBREAKER: return SGPU_BOARD_ICEBREAKER_CLOCK_HZ;
    case SGPU_BOARD_ULX3S: return SGPU_BOARD_ULX3S_CLOCK_HZ;
    default: return SGPU_NOMINAL_CLOCK_HZ; /* no board, or one this library does not know */
  }
}

/* Keep [SGPU_IDENTITY_ADDR, +SGPU_IDENTITY_BYTES) out of the allocator: an
 * internal block (sgpu_free refuses it) in the segment that holds it, unless
 * it is reserved already or something else was allocated there. */
static int reserve(sgpu_device *dev) {
  const uint64_t a = SGPU_IDENTITY_ADDR, end = a + SGPU_IDENTITY_BYTES;
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++) {
    sgpu_segment *seg = &dev->seg[s];
    if (a < seg->base || end > seg->base + seg->size) continue;
    size_t i = 0;
    while (i < seg->count && seg->blocks[i].addr < a) i++;
    if (i < seg->count && seg->blocks[i].addr == a && seg->blocks[i].internal) return 0;
    if (i > 0 && seg->blocks[i - 1].addr + ((seg->blocks[i - 1].size + 3ull) & ~3ull) > a) return 0;
    if (i < seg->count && seg->blocks[i].addr < end) return 0;
    return sgpu__seg_insert(dev, seg, i, a, SGPU_IDENTITY_BYTES, 1, NULL);
  }
  return 0;
}

/* Called with the device locked (or while opening it). */
int sgpu__identity_probe(sgpu_device *dev, sgpu_identity *id) {
  if ((uint64_t)SGPU_IDENTITY_ADDR + SGPU_IDENTITY_BYTES > dev->mem_size)
    return sgpu__fail(dev, SGPU_ERROR_NO_FIRMWARE, "GPU memory (%u bytes) is too small for an identity block",
                      dev->mem_size);
  uint32_t w[IDW];
  int r = dev->tr->ops->mem_read(dev->tr, SGPU_IDENTITY_ADDR, w, sizeof w);
  if (r) return sgpu__fail(dev, r, "reading the identity block at 0x%x failed", SGPU_IDENTITY_ADDR);
  sgpu_identity tmp;
  r = sgpu_identity_decode(w, id ? id : &tmp);
  if (r) return sgpu__fail(dev, r, "no valid boot identity block at 0x%x", SGPU_IDENTITY_ADDR);
  return reserve(dev);
}

int sgpu_read_identity(sgpu_device *dev, sgpu_identity *id) {
  if (!dev || !id) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_read_identity(dev, id);
  sgpu__lock(dev);
  int r = sgpu__identity_probe(dev, id);
  if (r == 0) { /* what sgpu_query_info reports */
    dev->fw_version = id->fw_version;
    dev->clock_hz = sgpu__board_clock_hz(id->board);
  }
  sgpu__unlock(dev);
  return r;
}
