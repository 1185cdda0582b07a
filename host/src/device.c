/* device.c — open/close, errors, info, memory, registers, contexts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "packet_check.h"

/* ------------------------------------------------------------ errors */
/* Provided by asm.c (the assembler) when it is linked in. */
extern const char *sgpu_asm_strerror(int code) __attribute__((weak));

const char *sgpu_strerror(int code) {
  const char *m = sgpu__error_message(code);
  if (m) return m;
  if (code <= -200 && code > -300) {
    if (sgpu_asm_strerror) return sgpu_asm_strerror(code);
    return "assembler error";
  }
  return "unknown error code";
}

int sgpu__fail(sgpu_device *dev, int code, const char *fmt, ...) {
  if (dev) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dev->err, sizeof dev->err, fmt, ap);
    va_end(ap);
    /* A transport failure: say what the transport saw. */
    const char *why = code == SGPU_ERROR_IO && dev->tr && dev->tr->ops->why ? dev->tr->ops->why(dev->tr) : NULL;
    if (why && *why && n >= 0 && (size_t)n < sizeof dev->err && !strstr(dev->err, why))
      snprintf(dev->err + n, sizeof dev->err - (size_t)n, ": %s", why);
  }
  return code;
}

const char *sgpu_last_error(sgpu_device *dev) { return dev ? dev->err : "no device"; }

/* ------------------------------------------------------------ registers */
int sgpu__reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value) {
  int r = dev->tr->ops->reg_read(dev->tr, offset, value);
  if (r) return sgpu__fail(dev, r, "register read of offset 0x%03x got no answer", offset);
  return 0;
}

int sgpu__reg_write(sgpu_device *dev, uint32_t offset, uint32_t value) {
  int r = dev->tr->ops->reg_write(dev->tr, offset, value);
  if (r) return sgpu__fail(dev, r, "register write of offset 0x%03x got no answer", offset);
  return 0;
}

int sgpu_reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value) {
  if (!dev || !value) return SGPU_ERROR_INVALID_PARAM;
  if (offset & 3 || offset > 0xFFF)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS, "register offset 0x%x is not a word in 0..0xfff",
                      offset);
  sgpu__lock(dev);
  int r = sgpu__reg_read(dev, offset, value);
  sgpu__unlock(dev);
  return r;
}

int sgpu_reg_write(sgpu_device *dev, uint32_t offset, uint32_t value) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (offset & 3 || offset > 0xFFF)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS, "register offset 0x%x is not a word in 0..0xfff",
                      offset);
  sgpu__lock(dev);
  int r = sgpu__reg_write(dev, offset, value);
  sgpu__unlock(dev);
  return r;
}

/* ------------------------------------------------------------ allocator */
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

int sgpu_alloc(sgpu_device *dev, uint32_t segment_id, uint32_t size, uint32_t alignment,
               uint64_t *address) {
  if (!dev || !address) return SGPU_ERROR_INVALID_PARAM;
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
  sgpu__lock(dev);
  int s = seg_of(dev, address);
  int r = sgpu__fail(dev, SGPU_ERROR_NOT_ALLOCATED, "address 0x%llx is not the start of an allocation",
                     (unsigned long long)address);
  if (s >= 0) {
    sgpu_segment *seg = &dev->seg[s];
    for (size_t i = 0; i < seg->count; i++) {
      if (seg->blocks[i].addr != address || seg->blocks[i].internal) continue;
      free(seg->blocks[i].host);
      seg->used -= (seg->blocks[i].size + 3ull) & ~3ull;
      memmove(&seg->blocks[i], &seg->blocks[i + 1], (seg->count - i - 1) * sizeof *seg->blocks);
      seg->count--;
      r = 0;
      break;
    }
  }
  sgpu__unlock(dev);
  return r;
}

static int mem_access(sgpu_device *dev, uint64_t address, void *rdata, const void *wdata,
                      uint32_t size) {
  if (size == 0) return 0;
  if (address >= SGPU_HOST_ADDRESS_BASE) {
    sgpu_block *b = sgpu__host_block(dev, address, size);
    if (!b)
      return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS,
                        "host range 0x%llx+%u is not inside one segment-0 allocation",
                        (unsigned long long)address, size);
    if (rdata) memcpy(rdata, b->host + (address - b->addr), size);
    else memcpy(b->host + (address - b->addr), wdata, size);
    return 0;
  }
  if (address > dev->mem_size || size > dev->mem_size - address)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS,
                      "GPU range 0x%llx+%u leaves GPU memory (%u bytes)",
                      (unsigned long long)address, size, dev->mem_size);
  int r = rdata ? dev->tr->ops->mem_read(dev->tr, (uint32_t)address, rdata, size)
                : dev->tr->ops->mem_write(dev->tr, (uint32_t)address, wdata, size);
  if (r)
    return sgpu__fail(dev, r, "GPU memory %s of 0x%llx+%u failed", rdata ? "read" : "write",
                      (unsigned long long)address, size);
  sgpu__shadow_note(dev, (uint32_t)address, rdata ? rdata : wdata, size);
  return 0;
}

int sgpu_write(sgpu_device *dev, uint64_t address, const void *data, uint32_t size) {
  if (!dev || (!data && size)) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  int r = mem_access(dev, address, NULL, data, size);
  sgpu__unlock(dev);
  return r;
}

int sgpu_read(sgpu_device *dev, uint64_t address, void *data, uint32_t size) {
  if (!dev || (!data && size)) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  int r = mem_access(dev, address, data, NULL, size);
  sgpu__unlock(dev);
  return r;
}

/* ------------------------------------------------------------ open / close */
static int check_cfg_error(sgpu_device *dev, const char *what) {
  uint32_t e = 0, a = 0;
  int r = sgpu__reg_read(dev, SGPU_REG_CFG_ERROR, &e);
  if (r) return r;
  if (!e) return 0;
  sgpu__reg_read(dev, SGPU_REG_CFG_ERROR_ADDR, &a);
  sgpu__reg_write(dev, SGPU_REG_CFG_ERROR, e);
  return sgpu__fail(dev, SGPU_ERROR_IO, "%s: the chip rejected a write to register 0x%03x (CFG_ERROR 0x%x)",
                    what, a, e);
}

/* Reset a node and program its ring (used at open and by reset). */
int sgpu__program_node(sgpu_device *dev, uint32_t n) {
  sgpu_node *nd = &dev->node[n];
  uint32_t zero[2] = {0, (uint32_t)nd->completed64};
  int r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), 0))) return r;
  r = dev->tr->ops->mem_write(dev->tr, nd->ctrl_addr, zero, sizeof zero);
  if (r) return sgpu__fail(dev, r, "writing node %u's fence word failed", n);
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_RING_BASE), nd->ring_base))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_RING_SIZE), nd->ring_size))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_RPTR_ADDR), nd->rptr_addr | 1u))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_WATCHDOG), dev->watchdog))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE))) return r;
  sgpu__ring_reset(nd);
  nd->faulted = 0;
  char what[32];
  snprintf(what, sizeof what, "programming node %u", n);
  return check_cfg_error(dev, what);
}

static void free_device(sgpu_device *dev) {
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++) {
    for (size_t i = 0; i < dev->seg[s].count; i++) free(dev->seg[s].blocks[i].host);
    free(dev->seg[s].blocks);
  }
  for (uint32_t n = 0; n < SGPU_MAX_NODES; n++) free(dev->node[n].q);
  free(dev->evq);
  sgpu__shadow_free(dev);
  if (dev->tr) dev->tr->ops->close(dev->tr);
  pthread_mutex_destroy(&dev->lock);
  free(dev);
}

static int open_device(sgpu_device *dev, const sgpu_open_options *o) {
  uint32_t id = 0, v;
  int r;
  if ((r = sgpu__reg_read(dev, SGPU_REG_ID, &id))) return r;
  if (id != SGPU_HW_MAGIC)
    return sgpu__fail(dev, SGPU_ERROR_NO_DEVICE, "ID register reads 0x%08x, expected 0x%08x ('SGPU')",
                      id, SGPU_HW_MAGIC);
  if ((r = sgpu__reg_read(dev, SGPU_REG_VERSION, &dev->version))) return r;
  if ((r = sgpu__reg_read(dev, SGPU_REG_CAPS, &dev->caps))) return r;
  if ((r = sgpu__reg_read(dev, SGPU_REG_MEM_SIZE, &dev->mem_size))) return r;
  dev->nodes = SGPU_FIELD_GET(CAPS_NODES, dev->caps);
  dev->sources = SGPU_FIELD_GET(CAPS_SOURCES, dev->caps);
  if (dev->nodes == 0 || dev->nodes > SGPU_MAX_NODES || dev->sources > SGPU_MAX_SOURCES ||
      dev->mem_size < 16384)
    return sgpu__fail(dev, SGPU_ERROR_NO_DEVICE,
                      "CAPS 0x%08x / MEM_SIZE %u describe no usable chip (nodes 1..%u, sources "
                      "0..%u, >= 16 KiB)",
                      dev->caps, dev->mem_size, SGPU_MAX_NODES, SGPU_MAX_SOURCES);
  uint32_t b1, s1, b2, s2;
  if ((r = sgpu__reg_read(dev, SGPU_REG_SEG1_BASE, &b1)) || (r = sgpu__reg_read(dev, SGPU_REG_SEG1_SIZE, &s1)) ||
      (r = sgpu__reg_read(dev, SGPU_REG_SEG2_BASE, &b2)) || (r = sgpu__reg_read(dev, SGPU_REG_SEG2_SIZE, &s2)))
    return r;
  if ((uint64_t)b1 + s1 > dev->mem_size || (uint64_t)b2 + s2 > dev->mem_size || s1 < 8192 ||
      s2 < 4096)
    return sgpu__fail(dev, SGPU_ERROR_NO_DEVICE,
                      "segment registers 0x%x+0x%x / 0x%x+0x%x do not fit GPU memory of %u bytes",
                      b1, s1, b2, s2, dev->mem_size);
  dev->seg[0].base = SGPU_HOST_ADDRESS_BASE;
  dev->seg[0].size = SGPU_HOST_SEGMENT_SIZE;
  dev->seg[1].base = b1;
  dev->seg[1].size = s1;
  dev->seg[2].base = b2;
  dev->seg[2].size = s2;
  dev->watchdog = o->watchdog_set ? o->watchdog : SGPU_DEFAULT_WATCHDOG;
  dev->video_tiny = o->video_tiny;

  /* Let a boot stream still running finish (bounded), then take over. */
  for (uint32_t n = 0; n < dev->nodes; n++) {
    for (int i = 0; i < 400; i++) {
      if ((r = sgpu__reg_read(dev, SGPU_NODE_REG(n, SGPU_NREG_STATUS), &v))) return r;
      if (!(v & SGPU_STATUS_BUSY) || (v & SGPU_STATUS_FAULTED)) break;
      dev->tr->ops->run(dev->tr, 10000, 0);
    }
  }
  sgpu__reg_write(dev, SGPU_REG_CFG_ERROR, 0xFFFFFFFFu);
  /* A boot identity block stays out of the allocations; its firmware
   * version is kept, so sgpu_query_info moves nothing over the transport. */
  sgpu_identity boot_id;
  r = sgpu__identity_probe(dev, &boot_id);
  if (r && r != SGPU_ERROR_NO_FIRMWARE) return r;
  dev->fw_version = r ? 0 : boot_id.fw_version;
  dev->clock_hz = sgpu__board_clock_hz(r ? SGPU_BOARD_NONE : boot_id.board);
  dev->err[0] = 0;   /* no firmware is not an error of the open */

  uint32_t stage = SGPU_STAGE_BYTES;
  while (stage * dev->nodes > s2 / 4 && stage > 256) stage /= 2;
  uint64_t a;
  for (uint32_t n = 0; n < dev->nodes; n++) {
    sgpu_node *nd = &dev->node[n];
    if ((r = sgpu__seg_alloc(dev, SGPU_SEGMENT_LOCAL, SGPU_RING_BYTES, SGPU_RING_BYTES, 1, &a)))
      return r;
    nd->ring_base = (uint32_t)a;
    nd->ring_size = SGPU_RING_BYTES;
    if ((r = sgpu__seg_alloc(dev, SGPU_SEGMENT_LOCAL, 16, 16, 1, &a))) return r;
    nd->ctrl_addr = (uint32_t)a;
    nd->rptr_addr = (uint32_t)a;
    nd->fence_addr = (uint32_t)a + 4;
    if ((r = sgpu__seg_alloc(dev, SGPU_SEGMENT_APERTURE, stage, 16, 1, &a))) return r;
    nd->stage_base = (uint32_t)a;
    nd->stage_size = stage;
    if ((r = sgpu__program_node(dev, n))) return r;
  }
  if (dev->video_tiny || o->video_set) {
    for (uint32_t s = 0; s < dev->sources; s++) {
      uint32_t c;
      if ((r = sgpu__reg_read(dev, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_CONTROL), &c))) return r;
      c = dev->video_tiny ? (c | (1u << SGPU_DISP_TINY_SHIFT)) & ~0x3Cu
                          : c & ~(1u << SGPU_DISP_TINY_SHIFT);
      if ((r = sgpu__reg_write(dev, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_CONTROL), c))) return r;
    }
  }
  dev->int_enable = SGPU_INT_CFG_ERROR;
  for (uint32_t n = 0; n < dev->nodes; n++)
    dev->int_enable |= SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n);
  if ((r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS, 0xFFFFFFFFu))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_REG_INT_ENABLE, dev->int_enable))) return r;
  dev->next_ctx_id = 1;
  return check_cfg_error(dev, "opening the device");
}

int sgpu_open_detail(const char *uri, sgpu_device **out, char *msg, size_t msg_size) {
  if (msg && msg_size) msg[0] = 0;
  if (!out) {
    if (msg && msg_size) snprintf(msg, msg_size, "sgpu_open: device pointer is NULL");
    return SGPU_ERROR_INVALID_PARAM;
  }
  *out = NULL;
  sgpu_device *dev = calloc(1, sizeof *dev);
  if (!dev) {
    if (msg && msg_size) snprintf(msg, msg_size, "out of host memory");
    return SGPU_ERROR_NO_MEM;
  }
  pthread_mutex_init(&dev->lock, NULL);
  sgpu_open_options o;
  int r = sgpu_transport_open(uri, &dev->tr, &o, msg, msg_size);
  if (r == 0) {
    r = open_device(dev, &o);
    if (r && msg && msg_size) snprintf(msg, msg_size, "%s", dev->err);
  }
  if (r) {
    free_device(dev);
    return r;
  }
  dev->err[0] = 0;
  *out = dev;
  return 0;
}

int sgpu_open(const char *uri, sgpu_device **dev) { return sgpu_open_detail(uri, dev, NULL, 0); }

void sgpu_close(sgpu_device *dev) {
  if (!dev) return;
  /* Quiesce the chip: interrupts off, rings stopped. */
  dev->tr->ops->reg_write(dev->tr, SGPU_REG_INT_ENABLE, 0);
  for (uint32_t n = 0; n < dev->nodes; n++)
    dev->tr->ops->reg_write(dev->tr, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), 0);
  free_device(dev);
}

/* ------------------------------------------------------------ info */
int sgpu_query_info(sgpu_device *dev, sgpu_info *info) {
  if (!dev || !info) return SGPU_ERROR_INVALID_PARAM;
  memset(info, 0, sizeof *info);
  snprintf(info->transport, sizeof info->transport, "%s", dev->tr->ops->name);
  info->hw_version_major = SGPU_FIELD_GET(VERSION_MAJOR, dev->version);
  info->hw_version_minor = SGPU_FIELD_GET(VERSION_MINOR, dev->version);
  info->firmware_version = dev->fw_version;
  info->caps = dev->caps;
  info->node_count = dev->nodes;
  info->source_count = dev->sources;
  info->has_2d = SGPU_FIELD_GET(CAPS_BLIT, dev->caps);
  info->has_display = SGPU_FIELD_GET(CAPS_DISPLAY, dev->caps);
  info->has_preemption = SGPU_FIELD_GET(CAPS_PREEMPTION, dev->caps);
  info->has_perf_counters = SGPU_FIELD_GET(CAPS_PERF, dev->caps);
  info->ib_depth = sgpu__ib_depth(SGPU_FIELD_GET(CAPS_IB_DEPTH, dev->caps));
  info->mem_size = dev->mem_size;
  info->clock_hz = dev->clock_hz;
  sgpu__lock(dev);
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++) {
    info->segment[s].base = dev->seg[s].base;
    info->segment[s].size = dev->seg[s].size;
    info->segment[s].free = dev->seg[s].size - dev->seg[s].used;
  }
  sgpu__unlock(dev);
  for (uint32_t s = 0; s < dev->sources; s++) {
    int r = sgpu_get_display_mode(dev, s, &info->display_mode[s]);
    if (r) return r;
  }
  return 0;
}

/* ------------------------------------------------------------ contexts */
int sgpu_create_context_windowed(sgpu_device *dev, uint32_t node_ordinal, uint32_t window_base,
                                 uint32_t window_size, sgpu_context **ctx) {
  if (!dev || !ctx) return SGPU_ERROR_INVALID_PARAM;
  *ctx = NULL;
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)",
                      node_ordinal, dev->nodes);
  if ((window_base & 3) || (window_size & 3) || window_size == 0 ||
      (uint64_t)window_base + window_size > dev->mem_size)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_WINDOW,
                      "window 0x%x+0x%x is not a non-empty 4-aligned range of GPU memory (%u bytes)",
                      window_base, window_size, dev->mem_size);
  sgpu_context *c = calloc(1, sizeof *c);
  if (!c) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a context");
  sgpu__lock(dev);
  c->magic = SGPU_CONTEXT_MAGIC;
  c->dev = dev;
  c->node = node_ordinal;
  c->id = dev->next_ctx_id++;
  if (dev->next_ctx_id == 0) dev->next_ctx_id = 1;
  c->win_base = window_base;
  c->win_size = window_size;
  sgpu__unlock(dev);
  *ctx = c;
  return 0;
}

int sgpu_create_context(sgpu_device *dev, uint32_t node_ordinal, sgpu_context **ctx) {
  if (!dev || !ctx) return SGPU_ERROR_INVALID_PARAM;
  return sgpu_create_context_windowed(dev, node_ordinal, 0, dev->mem_size, ctx);
}

void sgpu_destroy_context(sgpu_context *ctx) {
  if (!ctx || ctx->magic != SGPU_CONTEXT_MAGIC) return;
  ctx->magic = 0;
  free(ctx);
}

uint32_t sgpu_context_id(const sgpu_context *ctx) { return ctx ? ctx->id : 0; }
uint32_t sgpu_context_node(const sgpu_context *ctx) { return ctx ? ctx->node : 0; }
