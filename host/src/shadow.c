/* shadow.c — what the library knows of GPU memory without asking the chip:
 * a write-through copy of every word it wrote (or read) in GPU memory.
 * Validation reads command buffers from here, so a submission does not read
 * its own buffer back over the link; only words the library never saw are
 * fetched from the device (and remembered). */
#include <stdlib.h>
#include <string.h>

#include "shadow.h"

static int ensure(sgpu_device *dev) {
  sgpu_shadow *s = &dev->shadow;
  if (s->bytes) return 0;
  s->bytes = malloc(dev->mem_size);
  s->known = calloc((dev->mem_size / 4 + 31) / 32, sizeof *s->known);
  if (!s->bytes || !s->known) {
    free(s->bytes);
    free(s->known);
    s->bytes = NULL;
    s->known = NULL;
    return SGPU_ERROR_NO_MEM;
  }
  return 0;
}

static int known(const sgpu_shadow *s, uint32_t word) { return (s->known[word / 32] >> (word % 32)) & 1u; }

void sgpu__shadow_note(sgpu_device *dev, uint32_t address, const void *data, uint32_t size) {
  if (size == 0 || (uint64_t)address + size > dev->mem_size || ensure(dev)) return;
  sgpu_shadow *s = &dev->shadow;
  memcpy(s->bytes + address, data, size);
  /* Whole words are now known; a partly written word's other bytes are not. */
  uint32_t first = (address + 3) / 4, end = (address + size) / 4;
  for (uint32_t w = first; w < end; w++) s->known[w / 32] |= 1u << (w % 32);
  if (address % 4) s->known[address / 4 / 32] &= ~(1u << (address / 4 % 32));
  if ((address + size) % 4) {
    uint32_t w = (address + size) / 4;
    s->known[w / 32] &= ~(1u << (w % 32));
  }
}

/* Bits [lo, hi) of one bitmap word (0 <= lo < hi <= 32). */
static uint32_t bits(uint32_t lo, uint32_t hi) {
  return (hi == 32 ? 0xFFFFFFFFu : (1u << hi) - 1u) & ~((1u << lo) - 1u);
}

/* Make words [w, end) known, reading each unknown run from the device. */
static int fetch(sgpu_device *dev, uint32_t w, uint32_t end) {
  sgpu_shadow *s = &dev->shadow;
  while (w < end) {
    /* Known words are skipped a bitmap word at a time. */
    uint32_t hi = end - (w & ~31u) < 32 ? end % 32 : 32, m = bits(w % 32, hi);
    if ((s->known[w / 32] & m) == m) {
      w = (w & ~31u) + hi;
      continue;
    }
    while (known(s, w)) w++;
    uint32_t run = w;
    while (run < end && !known(s, run)) run++;
    int r = dev->tr->ops->mem_read(dev->tr, w * 4, s->bytes + w * 4, (run - w) * 4);
    if (r) return r;
    dev->stats.readback_bytes += (run - w) * 4ull;
    for (uint32_t k = w; k < run; k++) s->known[k / 32] |= 1u << (k % 32);
    w = run;
  }
  return 0;
}

int sgpu__shadow_view(sgpu_device *dev, uint32_t address, uint32_t size, const uint32_t **view) {
  if ((address | size) & 3u || (uint64_t)address + size > dev->mem_size) return SGPU_ERROR_INVALID_ADDRESS;
  int r = ensure(dev);
  if (r) return r;
  if ((r = fetch(dev, address / 4, (address + size) / 4))) return r;
  *view = (const uint32_t *)(const void *)(dev->shadow.bytes + address);
  return 0;
}

void sgpu__shadow_free(sgpu_device *dev) {
  free(dev->shadow.bytes);
  free(dev->shadow.known);
  memset(&dev->shadow, 0, sizeof dev->shadow);
}
