/* alloc.c — the segment allocator (alloc.h) and the public sgpu_alloc /
 * sgpu_free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "alloc.h"

int sgpu__seg_alloc(sgpu_device *dev, uint32_t s, uint32_t size, uint32_t align, int internal,
                    uint64_t *addr) {
  sgpu_segment *seg = &dev->seg[s];
  if (align == 0) align = 4;
  if (align & (align - 1) || align > (1u << 24))
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ALIGNMENT,
                      "alignment %u is not a power of two up to 16 MiB", align);
  if (size == 0) return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM, "allocation size is 0");
  uint64_t rsize = ((uint64_t)size + 3) & ~3ull;
  uint64_t cur = seg->base, end = seg->base + seg->size;
  size_t i;
  uint64_t a = 0;
  for (i = 0;; i++) {
    uint64_t limit = i < seg->count ? seg->blocks[i].addr : end;
    a = (cur + align - 1) & ~((uint64_t)align - 1);
    if (a + rsize <= limit) break;
    if (i == seg->count)
      return sgpu__fail(dev, SGPU_ERROR_OUT_OF_GPU_MEMORY,
                        "segment %u has no free range of %u bytes aligned to %u (%llu of %llu used)",
                        s, size, align, (unsigned long long)seg->used,
                        (unsigned long long)seg->size);
    cur = seg->blocks[i].addr + ((seg->blocks[i].size + 3ull) & ~3ull);
  }
  uint8_t *host = NULL;
  if (s == SGPU_SEGMENT_SYSTEM) {
    host = calloc(1, rsize);
    if (!host)
      return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for %u bytes", size);
  }
  int r = sgpu__seg_insert(dev, seg, i, a, size, internal, host);
  if (r) {
    free(host);
    return r;
  }
  *addr = a;
  return 0;
}

int sgpu__seg_insert(sgpu_device *dev, sgpu_segment *seg, size_t i, uint64_t addr, uint32_t size,
                     int internal, uint8_t *host) {
  if (seg->count == seg->cap) {
    size_t ncap = seg->cap ? seg->cap * 2 : 16;
    sgpu_block *nb = realloc(seg->blocks, ncap * sizeof *nb);
    if (!nb) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for the allocator");
    seg->blocks = nb;
    seg->cap = ncap;
  }
  memmove(&seg->blocks[i + 1], &seg->blocks[i], (seg->count - i) * sizeof *seg->blocks);
  seg->blocks[i].addr = addr;
  seg->blocks[i].size = size;
  seg->blocks[i].internal = (uint32_t)internal;
  seg->blocks[i].maps = 0;
  seg->blocks[i].host = host;
  seg->count++;
  seg->used += ((uint64_t)size + 3) & ~3ull;
  return 0;
}

static int seg_of(const sgpu_device *dev, uint64_t addr) {
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++)
    if (addr >= dev->seg[s].base && addr < dev->seg[s].base + dev->seg[s].size) return (int)s;
  return -1;
}

sgpu_block *sgpu__host_block(sgpu_device *dev, uint64_t addr, uint64_t size) {
  sgpu_segment *seg = &dev->seg[SGPU_SEGMENT_SYSTEM];
  size_t lo = 0, hi = seg->count;
  while (lo < hi) { /* last block with block.addr <= addr */
    size_t mid = (lo + hi) / 2;
    if (seg->blocks[mid].addr <= addr) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return NULL;
  sgpu_block *b = &seg->blocks[lo - 1];
  /* addr >= b->addr here; compare lengths, which cannot wrap. */
  if (size > b->size || addr - b->addr > b->size - size) return NULL;
  return b;
}

sgpu_block *sgpu__gpu_block(sgpu_device *dev, uint64_t addr, uint64_t size) {
  for (uint32_t s = SGPU_SEGMENT_LOCAL; s < SGPU_SEGMENT_COUNT; s++) {
    sgpu_segment *seg = &dev->seg[s];
    for (size_t i = 0; i < seg->count; i++) {
      sgpu_block *b = &seg->blocks[i];
      if (b->addr > addr) break;
      if (!b->internal && size <= b->size && addr - b->addr <= b->size - size) return b;
    }
  }
  return NULL;
}

static void seg_remove(sgpu_segment *seg, size_t i) {
  free(seg->blocks[i].host);
  seg->used -= (seg->blocks[i].size + 3ull) & ~3ull;
  memmove(&seg->blocks[i], &seg->blocks[i + 1], (seg->count - i - 1) * sizeof *seg->blocks);
  seg->count--;
}

void sgpu__seg_free_internal(sgpu_device *dev, uint64_t addr) {
  for (uint32_t s = SGPU_SEGMENT_LOCAL; s < SGPU_SEGMENT_COUNT; s++) {
    sgpu_segment *seg = &dev->seg[s];
    for (size_t i = 0; i < seg->count; i++)
      if (seg->blocks[i].addr == addr && seg->blocks[i].internal) {
        seg_remove(seg, i);
        return;
      }
  }
}

const sgpu_block *sgpu__reserved_block(const sgpu_device *dev, uint64_t addr, uint64_t size) {
  if (size == 0) return NULL;
  for (uint32_t s = SGPU_SEGMENT_LOCAL; s < SGPU_SEGMENT_COUNT; s++) {
    const sgpu_segment *seg = &dev->seg[s];
    for (size_t i = 0; i < seg->count; i++) {
      const sgpu_block *b = &seg->blocks[i];
      if (b->addr >= addr + size) break; /* sorted: the rest start after the range */
      if (b->internal && addr < b->addr + ((b->size + 3ull) & ~3ull)) return b;
    }
  }
  return NULL;
}

void sgpu__block_name(const sgpu_device *dev, const sgpu_block *b, char *buf, size_t size) {
  for (uint32_t n = 0; n < dev->rings; n++) {
    const sgpu_node *nd = &dev->node[n];
    /* its kind, but for the first normal ring (as on a chip with one per node) */
    const char *high = n / dev->nodes == 1 ? " high-priority" : n / dev->nodes == 2 ? " second normal" : "";
    if (b->addr == nd->ring_base) {
      snprintf(buf, size, "node %u's%s ring", nd->node, high);
      return;
    }
    if (b->addr == nd->ctrl_addr) {
      snprintf(buf, size, "node %u's%s rptr and fence words", nd->node, high);
      return;
    }
    if (b->addr == nd->stage_base) {
      snprintf(buf, size, "node %u's%s staging area", nd->node, high);
      return;
    }
  }
  if (b->addr == SGPU_IDENTITY_ADDR) snprintf(buf, size, "the boot identity block");
  else snprintf(buf, size, "a library area");
}

int sgpu_get_areas(sgpu_device *dev, sgpu_area *areas, size_t max) {
  if (!dev || (!areas && max)) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_get_areas(dev, areas, max);
  sgpu__lock(dev);
  size_t n = 0;
  for (uint32_t s = SGPU_SEGMENT_LOCAL; s < SGPU_SEGMENT_COUNT; s++) {
    const sgpu_segment *seg = &dev->seg[s];
    uint64_t cur = seg->base, end = seg->base + seg->size;
    for (size_t i = 0; i <= seg->count; i++) {
      const sgpu_block *b = i < seg->count ? &seg->blocks[i] : NULL;
      uint64_t start = b ? b->addr : end;
      if (start > cur) { /* the gap before the block: free */
        if (n < max) {
          memset(&areas[n], 0, sizeof areas[n]);
          areas[n].segment = s;
          areas[n].kind = SGPU_AREA_FREE;
          areas[n].base = cur;
          areas[n].size = start - cur;
        }
        n++;
      }
      if (!b) break;
      uint64_t bend = b->addr + ((b->size + 3ull) & ~3ull);
      if (n < max) {
        memset(&areas[n], 0, sizeof areas[n]);
        areas[n].segment = s;
        areas[n].kind = b->internal ? SGPU_AREA_RESERVED : SGPU_AREA_ALLOCATED;
        areas[n].base = b->addr;
        areas[n].size = bend - b->addr;
        if (b->internal) sgpu__block_name(dev, b, areas[n].name, sizeof areas[n].name);
      }
      n++;
      if (bend > cur) cur = bend;
    }
  }
  sgpu__unlock(dev);
  return n > INT32_MAX ? INT32_MAX : (int)n;
}

void sgpu__seg_free_all(sgpu_device *dev) {
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++) {
    for (size_t i = 0; i < dev->seg[s].count; i++) free(dev->seg[s].blocks[i].host);
    free(dev->seg[s].blocks);
    dev->seg[s].blocks = NULL;
    dev->seg[s].count = dev->seg[s].cap = 0;
  }
}

int sgpu_alloc(sgpu_device *dev, uint32_t segment_id, uint32_t size, uint32_t alignment,
               uint64_t *address) {
  if (!dev || !address) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_alloc(dev, segment_id, size, alignment, address);
  if (segment_id >= SGPU_SEGMENT_COUNT)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_SEGMENT, "segment id %u is not 0, 1 or 2",
                      segment_id);
  sgpu__lock(dev);
  int r = sgpu__seg_alloc(dev, segment_id, size, alignment, 0, address);
  sgpu__unlock(dev);
  return r;
}

int sgpu_free(sgpu_device *dev, uint64_t address) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_free(dev, address);
  sgpu__lock(dev);
  int s = seg_of(dev, address);
  if (s >= 0) {
    sgpu_segment *seg = &dev->seg[s];
    for (size_t i = 0; i < seg->count; i++) {
      if (seg->blocks[i].addr != address || seg->blocks[i].internal) continue;
      if (seg->blocks[i].maps) { /* a VM context's tables still point at it */
        uint32_t m = seg->blocks[i].maps;
        sgpu__unlock(dev);
        return sgpu__fail(dev, SGPU_ERROR_BUSY,
                          "allocation 0x%llx is still mapped %u time%s in VM contexts: sgpu_unmap it first",
                          (unsigned long long)address, m, m == 1 ? "" : "s");
      }
      seg_remove(seg, i);
      sgpu__unlock(dev);
      return 0;
    }
  }
  sgpu__unlock(dev);
  return sgpu__fail(dev, SGPU_ERROR_NOT_ALLOCATED, "address 0x%llx is not the start of an allocation",
                    (unsigned long long)address);
}
