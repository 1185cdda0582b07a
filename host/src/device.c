/* device.c — the top of the library: open and close, info, contexts, and
 * the device's link (statistics, ping).  It calls everything below it and
 * nothing below calls it (docs/architecture.md, "The host library's
 * layers"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "alloc.h"
#include "evq.h"
#include "identity.h"
#include "link.h"
#include "packet_check.h"
#include "regs.h"
#include "remote.h"
#include "ring.h"
#include "shadow.h"
#include "vm.h"

/* ------------------------------------------------------------ open / close */
static void free_device(sgpu_device *dev) {
  sgpu__seg_free_all(dev);
  for (uint32_t n = 0; n < SGPU_MAX_NODES; n++) sgpu__ring_free(&dev->node[n]);
  sgpu__evq_free(dev);
  sgpu__shadow_free(dev);
  if (dev->tr) dev->tr->ops->close(dev->tr);
  sgpu__errors_free(&dev->errors);
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

  /* Ring blocks: node n's normal ring is block n; with CAPS.PRIORITY its
   * high-priority ring is block nodes + n, and with CAPS.TIME_SLICE (which
   * implies PRIORITY) its second normal ring block 2 x nodes + n. */
  uint32_t per_node = !SGPU_FIELD_GET(CAPS_PRIORITY, dev->caps) ? 1u
                      : SGPU_FIELD_GET(CAPS_TIME_SLICE, dev->caps) ? 3u : 2u;
  dev->rings = dev->nodes * per_node;
  if (dev->rings > SGPU_MAX_NODES)
    return sgpu__fail(dev, SGPU_ERROR_NO_DEVICE,
                      "CAPS 0x%08x: %u nodes with %u rings each make %u ring blocks (at most %u)",
                      dev->caps, dev->nodes, per_node, dev->rings, SGPU_MAX_NODES);
  /* Let a boot stream still running finish (bounded), then take over. */
  for (uint32_t n = 0; n < dev->rings; n++) {
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
  sgpu__clear_error(dev); /* no firmware is not an error of the open */

  uint32_t stage = SGPU_STAGE_BYTES;
  uint32_t extra_rings = (dev->rings - dev->nodes) * SGPU_RING_BYTES; /* in segment 2 too */
  while (stage * dev->rings + extra_rings > s2 / 4 && stage > 256) stage /= 2;
  uint64_t a;
  for (uint32_t n = 0; n < dev->rings; n++) {
    sgpu_node *nd = &dev->node[n];
    nd->node = n % dev->nodes;
    nd->priority = n / dev->nodes == 1 ? SGPU_PRIORITY_HIGH : SGPU_PRIORITY_NORMAL;
    nd->fence_seq = &dev->node[nd->node].node_submitted64;
    /* A high-priority or second normal ring's buffer goes to segment 2, by
     * its staging area: segment 1 then starts as it does with one ring per
     * node (the user's first allocations land where they always did). */
    uint32_t ring_segment = n >= dev->nodes ? SGPU_SEGMENT_APERTURE : SGPU_SEGMENT_LOCAL;
    if ((r = sgpu__seg_alloc(dev, ring_segment, SGPU_RING_BYTES, SGPU_RING_BYTES, 1, &a)))
      return r;
    nd->ring_base = (uint32_t)a;
    nd->ring_size = SGPU_RING_BYTES;
    /* rptr write-back word, fence word, and at +16 the preemption save area */
    if ((r = sgpu__seg_alloc(dev, SGPU_SEGMENT_LOCAL, (16 + SGPU_SAVE_BYTES + 15) & ~15u, 16, 1, &a)))
      return r;
    nd->ctrl_addr = (uint32_t)a;
    nd->rptr_addr = (uint32_t)a;
    nd->fence_addr = (uint32_t)a + 4;
    nd->save_addr = (uint32_t)a + 16;
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
  for (uint32_t n = 0; n < dev->rings; n++)
    dev->int_enable |= SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n);
  if ((r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS, 0xFFFFFFFFu))) return r;
  if ((r = sgpu__reg_write(dev, SGPU_REG_INT_ENABLE, dev->int_enable))) return r;
  dev->next_ctx_id = 1;
  dev->ban_threshold = SGPU_DEFAULT_BAN_THRESHOLD;
  return sgpu__check_cfg_error(dev, "opening the device");
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
  sgpu__errors_init(&dev->errors);
  sgpu_open_options o;
  int r;
  if (sgpu__remote_uri(uri)) {
    r = sgpu__remote_open(dev, uri, msg, msg_size);
    if (r) {
      sgpu__remote_close(dev);
      free_device(dev);
      return r;
    }
    sgpu__clear_error(dev);
    *out = dev;
    return 0;
  }
  r = sgpu_transport_open(uri, &dev->tr, &o, msg, msg_size);
  if (r == 0) {
    r = open_device(dev, &o);
    if (r && msg && msg_size) snprintf(msg, msg_size, "%s", sgpu_last_error(dev));
  }
  if (r) {
    free_device(dev);
    return r;
  }
  sgpu__clear_error(dev);
  *out = dev;
  return 0;
}

int sgpu_open(const char *uri, sgpu_device **dev) { return sgpu_open_detail(uri, dev, NULL, 0); }

void sgpu_close(sgpu_device *dev) {
  if (!dev) return;
  if (dev->remote) { /* the server destroys what the program left */
    sgpu__remote_close(dev);
    for (sgpu_context *c = dev->contexts; c; c = c->next) c->dev = NULL;
    free_device(dev);
    return;
  }
  /* Quiesce the chip: interrupts off, rings stopped. */
  dev->tr->ops->reg_write(dev->tr, SGPU_REG_INT_ENABLE, 0);
  for (uint32_t n = 0; n < dev->rings; n++)
    dev->tr->ops->reg_write(dev->tr, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), 0);
  /* Contexts outlive their device only to be destroyed (a VM context's
   * tables go with the device). */
  for (sgpu_context *c = dev->contexts; c; c = c->next) {
    if (c->vm) sgpu__vm_release(dev, c);
    c->dev = NULL;
  }
  free_device(dev);
}

/* ------------------------------------------------------------ info */
int sgpu_query_info(sgpu_device *dev, sgpu_info *info) {
  if (!dev || !info) return SGPU_ERROR_INVALID_PARAM;
  memset(info, 0, sizeof *info);
  if (dev->remote) {
    int r = sgpu__remote_query_info(dev, info);
    if (!r) snprintf(info->transport, sizeof info->transport, "sgpud");
    return r;
  }
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
  info->preemption_granularity = info->has_preemption ? SGPU_PREEMPTION_PACKET_BOUNDARY
                                                      : SGPU_PREEMPTION_DMA_BUFFER_BOUNDARY;
  info->has_perf_counters = SGPU_FIELD_GET(CAPS_PERF, dev->caps);
  info->ib_depth = sgpu__ib_depth(SGPU_FIELD_GET(CAPS_IB_DEPTH, dev->caps));
  info->mem_size = dev->mem_size;
  info->clock_hz = dev->clock_hz;
  info->has_priority = SGPU_FIELD_GET(CAPS_PRIORITY, dev->caps);
  info->has_time_slice = dev->rings > 2 * dev->nodes;
  info->has_vm = SGPU_FIELD_GET(CAPS_VM, dev->caps);
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
  if (dev->remote) return sgpu__remote_create_context(dev, node_ordinal, window_base, window_size, 1, ctx);
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
  c->priority = SGPU_PRIORITY_NORMAL;
  c->ring = sgpu__ring_of(dev->nodes, dev->rings, node_ordinal, c->priority, c->id,
                          dev->quantum[node_ordinal] != 0);
  c->next = dev->contexts;
  if (c->next) c->next->prev = c;
  dev->contexts = c;
  sgpu__unlock(dev);
  *ctx = c;
  return 0;
}

int sgpu_create_context(sgpu_device *dev, uint32_t node_ordinal, sgpu_context **ctx) {
  if (!dev || !ctx) return SGPU_ERROR_INVALID_PARAM;
  return sgpu_create_context_windowed(dev, node_ordinal, 0, dev->mem_size, ctx);
}

int sgpu_create_context_vm(sgpu_device *dev, uint32_t node_ordinal, sgpu_context **ctx) {
  if (!dev || !ctx) return SGPU_ERROR_INVALID_PARAM;
  *ctx = NULL;
  if (dev->remote) return sgpu__remote_create_context_vm(dev, node_ordinal, ctx);
  if (!SGPU_FIELD_GET(CAPS_VM, dev->caps))
    return sgpu__fail(dev, SGPU_ERROR_NOT_SUPPORTED,
                      "this device has no GPU virtual memory (CAPS.VM is 0): use sgpu_create_context");
  sgpu_context *c = NULL;
  int r = sgpu_create_context(dev, node_ordinal, &c);
  if (r) return r;
  sgpu__lock(dev);
  r = sgpu__vm_new(dev, c);
  sgpu__unlock(dev);
  if (r) {
    sgpu_destroy_context(c);
    return r;
  }
  *ctx = c;
  return 0;
}

void sgpu_destroy_context(sgpu_context *ctx) {
  if (!ctx || ctx->magic != SGPU_CONTEXT_MAGIC) return;
  sgpu_device *dev = ctx->dev;
  if (dev && dev->remote) {
    sgpu__remote_destroy_context(ctx);
    return;
  }
  if (dev) { /* still on the device's list (sgpu_close empties it) */
    sgpu__lock(dev);
    if (ctx->prev) ctx->prev->next = ctx->next;
    else dev->contexts = ctx->next;
    if (ctx->next) ctx->next->prev = ctx->prev;
    if (ctx->vm) sgpu__vm_release(dev, ctx);
    sgpu__unlock(dev);
  }
  ctx->magic = 0;
  free(ctx);
}

void sgpu__context_set_access(sgpu_context *ctx, sgpu_access_fn fn, void *user) {
  if (!ctx || ctx->magic != SGPU_CONTEXT_MAGIC) return;
  ctx->access = fn;
  ctx->access_user = user;
}

/* A submission of the context on its current ring not yet completed, or
 * preempted and not yet sent again. */
static int context_has_work(sgpu_device *dev, const sgpu_context *ctx) {
  sgpu_node *nd = &dev->node[ctx->ring];
  for (size_t i = 0; i < nd->q_count; i++) {
    const sgpu_pending *p = sgpu__ring_at(nd, i);
    if (p->owner == ctx->id && !p->dropped) return 1;
  }
  for (size_t i = 0; i < nd->pre_count; i++)
    if (nd->pre[i].owner == ctx->id) return 1;
  return 0;
}

int sgpu_set_context_priority(sgpu_context *ctx, uint32_t priority) {
  if (!ctx || ctx->magic != SGPU_CONTEXT_MAGIC || !ctx->dev) return SGPU_ERROR_INVALID_PARAM;
  sgpu_device *dev = ctx->dev;
  if (priority != SGPU_PRIORITY_NORMAL && priority != SGPU_PRIORITY_HIGH)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM,
                      "context priority %u is not SGPU_PRIORITY_NORMAL (0) or SGPU_PRIORITY_HIGH (1)",
                      priority);
  /* through sgpud every context is normal priority: asking for that is no change */
  if (dev->remote && priority == SGPU_PRIORITY_NORMAL) return 0;
  SGPU__NOT_CARRIED(dev, "sgpu_set_context_priority");
  sgpu__lock(dev);
  int r = 0;
  uint32_t ring = sgpu__ring_of(dev->nodes, dev->rings, ctx->node, priority, ctx->id,
                                dev->quantum[ctx->node] != 0);
  if (ring != ctx->ring) {
    r = sgpu__retire(dev, ctx->ring);
    if (!r && context_has_work(dev, ctx))
      r = sgpu__fail(dev, SGPU_ERROR_BUSY,
                     "context %u still has work on node %u's %s ring: its priority changes once "
                     "its fences have completed (its work must stay in order)",
                     ctx->id, ctx->node, sgpu__ring_kind(dev, ctx->ring));
  }
  if (!r) {
    ctx->priority = priority;
    ctx->ring = ring; /* sgpu_submit_command takes it as it is */
  }
  sgpu__unlock(dev);
  return r;
}

uint32_t sgpu_context_priority(const sgpu_context *ctx) {
  return ctx && ctx->magic == SGPU_CONTEXT_MAGIC ? ctx->priority : 0;
}

/* ------------------------------------------------------------ time slices */
int sgpu_set_time_slice(sgpu_device *dev, uint32_t node_ordinal, uint32_t quantum_cycles) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  SGPU__NOT_CARRIED(dev, "sgpu_set_time_slice");
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  if (quantum_cycles > SGPU_NREG_QUANTUM_MAX)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM,
                      "time slice of %u cycles is above the QUANTUM register's limit of %u (0x%X)",
                      quantum_cycles, SGPU_NREG_QUANTUM_MAX, SGPU_NREG_QUANTUM_MAX);
  if (dev->rings <= 2 * dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_NOT_SUPPORTED,
                      "no time slices (CAPS.TIME_SLICE): the chip has one normal ring per node; "
                      "contexts of equal priority run in submission order");
  sgpu__lock(dev);
  uint32_t n = node_ordinal, ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, n, ring);
  int r = 0;
  /* Turning slices on or off moves the node's even-id normal contexts
   * between its normal rings: refused while anything is queued or
   * preempted there, which would then run out of order.  A new non-zero
   * quantum moves nobody and is taken at once. */
  if ((dev->quantum[n] != 0) != (quantum_cycles != 0)) {
    size_t queued = 0, preempted = 0;
    for (uint32_t i = 0; i < k && !r; i++) r = sgpu__retire(dev, ring[i]);
    for (uint32_t i = 0; i < k; i++) {
      queued += dev->node[ring[i]].q_count;
      preempted += dev->node[ring[i]].pre_count;
    }
    if (!r && queued + preempted)
      r = sgpu__fail(dev, SGPU_ERROR_BUSY,
                     "node %u has unfinished work (%zu submissions queued, %zu preempted): turning "
                     "time slices %s would move its contexts' rings under queued work; wait for its "
                     "fences first", n, queued, preempted, quantum_cycles ? "on" : "off");
  }
  /* QUANTUM of both normal rings (A: block n, B: block 2 x nodes + n) */
  for (uint32_t i = 0; i < k && !r; i++)
    if (dev->node[ring[i]].priority == SGPU_PRIORITY_NORMAL)
      r = sgpu__reg_write(dev, SGPU_NODE_REG(ring[i], SGPU_NREG_QUANTUM), quantum_cycles);
  if (!r) r = sgpu__check_cfg_error(dev, "setting the time slice");
  if (!r) {
    dev->quantum[n] = quantum_cycles;
    for (sgpu_context *c = dev->contexts; c; c = c->next)
      if (c->node == n)
        c->ring = sgpu__ring_of(dev->nodes, dev->rings, n, c->priority, c->id, quantum_cycles != 0);
  }
  sgpu__unlock(dev);
  return r;
}

uint32_t sgpu_time_slice(const sgpu_device *dev, uint32_t node_ordinal) {
  return dev && !dev->remote && node_ordinal < dev->nodes ? dev->quantum[node_ordinal] : 0;
}

uint32_t sgpu_context_id(const sgpu_context *ctx) { return ctx ? ctx->id : 0; }
uint32_t sgpu_context_node(const sgpu_context *ctx) { return ctx ? ctx->node : 0; }

/* ------------------------------------------------------------ sharing */
int sgpu_list_programs(sgpu_device *dev, sgpu_program_info *programs, size_t max) {
  if (!dev || (!programs && max)) return SGPU_ERROR_INVALID_PARAM;
  if (!dev->remote)
    return sgpu__fail(dev, SGPU_ERROR_NOT_SUPPORTED,
                      "the %s device is not shared: sgpu_list_programs lists an sgpud device's "
                      "programs", dev->tr->ops->name);
  return sgpu__remote_list_programs(dev, programs, max);
}

/* ------------------------------------------------------------ link */
int sgpu_get_link_stats(sgpu_device *dev, sgpu_link_stats *stats) {
  if (!dev || !stats) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_get_link_stats(dev, stats);
  int r = sgpu__link_stats(dev->tr, stats);
  if (r)
    return sgpu__fail(dev, r, "the %s device is not on a link: no link statistics",
                      dev->tr->ops->name);
  return 0;
}

int sgpu_ping(sgpu_device *dev, uint32_t timeout_ms, uint32_t *rtt_us) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (!rtt_us) return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM, "sgpu_ping: rtt_us is NULL");
  if (timeout_ms < 1 || timeout_ms > 60000)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM, "ping timeout %u ms is not 1..60000",
                      timeout_ms);
  if (dev->remote) return sgpu__remote_ping(dev, timeout_ms, rtt_us); /* the server's link */
  sgpu__lock(dev);
  uint64_t ns = 0;
  char why[192] = "";
  int r = sgpu__link_ping(dev->tr, timeout_ms, &ns, why, sizeof why);
  if (r == SGPU_ERROR_NOT_SUPPORTED)
    sgpu__fail(dev, r, "the %s device is in-process: there is no link to ping", dev->tr->ops->name);
  else if (r == SGPU_ERROR_TIMEOUT)
    sgpu__fail(dev, r, "ping lost: %s within %u ms", why, timeout_ms);
  else if (r)
    sgpu__fail(dev, r, "ping failed");
  else
    *rtt_us = ns / 1000u > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000u);
  sgpu__unlock(dev);
  return r;
}
