/* events.c — interrupts, fences, events, waiting, reset. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void sgpu__push_event(sgpu_device *dev, const sgpu_event *ev) {
  if (dev->ev_count == dev->ev_cap) {
    if (dev->ev_cap >= SGPU_EVENT_QUEUE_MAX) { /* full: drop the oldest */
      dev->ev_head = (dev->ev_head + 1) % dev->ev_cap;
      dev->ev_count--;
      dev->stats.events_lost++;
    } else {
      size_t ncap = dev->ev_cap ? dev->ev_cap * 2 : 64;
      sgpu_event *nq = malloc(ncap * sizeof *nq);
      if (!nq) {
        dev->stats.events_lost++;
        return;
      }
      for (size_t i = 0; i < dev->ev_count; i++) nq[i] = dev->evq[(dev->ev_head + i) % dev->ev_cap];
      free(dev->evq);
      dev->evq = nq;
      dev->ev_cap = ncap;
      dev->ev_head = 0;
    }
  }
  dev->evq[(dev->ev_head + dev->ev_count) % dev->ev_cap] = *ev;
  dev->ev_count++;
}

static sgpu_pending *q_front(sgpu_node *nd) { return nd->q_count ? &nd->q[nd->q_head] : NULL; }

static void q_pop(sgpu_node *nd) {
  sgpu_pending *p = &nd->q[nd->q_head];
  if (p->staged) {
    nd->stage_tail = p->stage_end;
    if (--nd->stage_live == 0) nd->stage_head = nd->stage_tail = 0;
  }
  nd->q_head = (nd->q_head + 1) % nd->q_cap;
  nd->q_count--;
}

/* A cleared event of one kind, stamped with the node and the cycle. */
static sgpu_event event_of(sgpu_event_type type, uint32_t node, uint64_t cycle) {
  sgpu_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = type;
  ev.node_ordinal = node;
  ev.cycle = cycle;
  return ev;
}

static void fill_from_pending(sgpu_event *ev, const sgpu_pending *p) {
  ev->fence_id = p->fence32;
  ev->fence_id64 = p->fence64;
  ev->flags = p->flags;
  ev->private_data = p->priv;
  ev->private_data_size = p->priv_size;
}

/* Read the node's fence word; emit one COMPLETED event per submission passed. */
int sgpu__retire(sgpu_device *dev, uint32_t n) {
  sgpu_node *nd = &dev->node[n];
  if (nd->q_count == 0) return 0;
  uint32_t word = 0;
  int r = dev->tr->ops->mem_read(dev->tr, nd->fence_addr, &word, 4);
  if (r) return sgpu__fail(dev, r, "reading node %u's fence word failed", n);
  /* The hardware writes exactly the fence id of the submission that completed
   * last, and a ring completes in order: find it among the pending ones (no
   * wrap-around guess, so any spacing of ids works). */
  size_t k, hit = 0;
  for (k = 0; k < nd->q_count; k++)
    if (nd->q[(nd->q_head + k) % nd->q_cap].fence32 == word) {
      hit = k + 1;
      break;
    }
  if (!hit) return 0;
  uint64_t c = nd->q[(nd->q_head + hit - 1) % nd->q_cap].fence64;
  nd->completed64 = c;
  uint64_t now = dev->tr->ops->now(dev->tr);
  sgpu_pending *p;
  while ((p = q_front(nd)) && p->fence64 <= c) {
    sgpu_event ev = event_of(SGPU_EVENT_DMA_COMPLETED, n, now);
    fill_from_pending(&ev, p);
    ev.last_completed_fence_id = (uint32_t)c;
    sgpu__push_event(dev, &ev);
    dev->stats.completed++;
    q_pop(nd);
  }
  return 0;
}

static uint32_t nreg(uint32_t n, uint32_t r) { return SGPU_NODE_REG(n, r); }

int sgpu__service_irq(sgpu_device *dev) {
  uint32_t st = 0;
  int r = sgpu__reg_read(dev, SGPU_REG_INT_STATUS, &st);
  if (r) return r;
  if (!st) return 0;
  if ((r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS, st))) return r;
  st &= dev->int_enable; /* latched but masked sources make no events */
  uint64_t now = dev->tr->ops->now(dev->tr);
  for (uint32_t n = 0; n < dev->nodes; n++) {
    sgpu_node *nd = &dev->node[n];
    if (st & (SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n)))
      if ((r = sgpu__retire(dev, n))) return r;
    if (st & SGPU_INT_DMA_FAULTED(n)) {
      uint32_t reason = 0, addr = 0, hdr = 0, fence = 0;
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_REASON), &reason);
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_ADDR), &addr);
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_OPCODE), &hdr);
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_FENCE), &fence);
      sgpu_event ev = event_of(SGPU_EVENT_DMA_FAULTED, n, now);
      ev.fault_reason = reason;
      ev.fault_address = addr;
      ev.fault_opcode = hdr;
      ev.fence_id = fence;
      ev.last_completed_fence_id = (uint32_t)nd->completed64;
      /* The submission in flight: the one whose fence the hardware names,
       * else the oldest pending one. */
      const sgpu_pending *hit = NULL;
      for (size_t i = 0; i < nd->q_count && !hit; i++) {
        const sgpu_pending *p = &nd->q[(nd->q_head + i) % nd->q_cap];
        if (p->fence32 == fence) hit = p;
      }
      if (!hit) hit = q_front(nd);
      if (hit) {
        fill_from_pending(&ev, hit);
        ev.fence_id = fence;
      } else {
        ev.fence_id64 = nd->completed64 + (uint32_t)(fence - (uint32_t)nd->completed64);
      }
      nd->faulted = 1;
      dev->stats.faulted++;
      sgpu__push_event(dev, &ev);
    }
    if (st & SGPU_INT_DMA_PREEMPTED(n)) {
      uint32_t last = 0;
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_LAST_FENCE), &last);
      sgpu_event ev = event_of(SGPU_EVENT_DMA_PREEMPTED, n, now);
      ev.fence_id = last;
      ev.fence_id64 = nd->completed64;
      ev.last_completed_fence_id = (uint32_t)nd->completed64;
      dev->stats.preempted++;
      sgpu__push_event(dev, &ev);
    }
  }
  for (uint32_t s = 0; s < dev->sources; s++) {
    if (!(st & SGPU_INT_CRTC_VSYNC(s))) continue;
    uint32_t base = 0, cnt = 0;
    sgpu__reg_read(dev, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE), &base);
    sgpu__reg_read(dev, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_VBLANK_COUNT), &cnt);
    sgpu_event ev = event_of(SGPU_EVENT_CRTC_VSYNC, 0, now);
    ev.source_id = s;
    ev.scanout_address = base;
    ev.vblank_count = cnt;
    dev->stats.vsyncs++;
    sgpu__push_event(dev, &ev);
  }
  if (st & SGPU_INT_CFG_ERROR) {
    uint32_t e = 0;
    sgpu__reg_read(dev, SGPU_REG_CFG_ERROR, &e);
    if (e) sgpu__reg_write(dev, SGPU_REG_CFG_ERROR, e);
  }
  return 0;
}

/* Advance time until pred() holds, servicing interrupts, up to `cycles`.
 * Called with the device lock held; with `unlock` the lock is released while
 * time advances (the transport serialises its own ops), so other threads can
 * submit, read and wait meanwhile (not inside a submission waiting for ring
 * room: its staging offsets must not move).  Each slice is at most WAIT_SLICE cycles
 * so that another thread never waits long for the transport. */
typedef int (*wait_pred)(sgpu_device *dev, const void *arg);
#define WAIT_SLICE 65536u

static int wait_until(sgpu_device *dev, uint64_t cycles, wait_pred pred, const void *arg,
                      int unlock) {
  const sgpu_transport_ops *ops = dev->tr->ops;
  uint64_t deadline = ops->now(dev->tr) + cycles;
  for (;;) {
    int stuck = 0;
    if (ops->irq(dev->tr)) {
      int r = sgpu__service_irq(dev);
      if (r) return r;
      stuck = ops->irq(dev->tr); /* a source we do not clear: do not spin */
    }
    int p = pred(dev, arg);
    if (p) return p > 0 ? 0 : p;
    uint64_t now = ops->now(dev->tr);
    if (now >= deadline) return SGPU_ERROR_TIMEOUT;
    uint64_t left = deadline - now;
    if (left > WAIT_SLICE) left = WAIT_SLICE;
    if (unlock) sgpu__unlock(dev);
    if (stuck) ops->run(dev->tr, left < 256 ? left : 256, 0);
    else ops->run(dev->tr, left, 1);
    if (unlock) sgpu__lock(dev);
  }
}

static uint64_t ms_to_cycles(uint32_t ms) { return (uint64_t)ms * SGPU_CYCLES_PER_MS; }

/* ------------------------------------------------------------ ring room */
typedef struct room_arg {
  uint32_t n, ring_bytes, stage_bytes;
  uint32_t *stage_off;
} room_arg;

static int ring_free(sgpu_device *dev, sgpu_node *nd, uint32_t n, uint32_t need) {
  /* Bytes needed including a wrap pad. */
  uint32_t total = nd->wptr + need > nd->ring_size ? nd->ring_size - nd->wptr + need : need;
  uint32_t freeb = (nd->rptr_cache - nd->wptr - 4) & (nd->ring_size - 1);
  if (freeb >= total) return 1;
  uint32_t rp = 0;
  int r = dev->tr->ops->mem_read(dev->tr, nd->rptr_addr, &rp, 4);
  if (r) return sgpu__fail(dev, r, "reading node %u's rptr writeback failed", n);
  nd->rptr_cache = rp & (nd->ring_size - 1);
  freeb = (nd->rptr_cache - nd->wptr - 4) & (nd->ring_size - 1);
  return freeb >= total;
}

static int stage_fit(sgpu_node *nd, uint32_t len, uint32_t *off) {
  len = (len + 3) & ~3u;
  if (nd->stage_live == 0) {
    nd->stage_head = nd->stage_tail = 0;
    if (len <= nd->stage_size) { *off = 0; return 1; }
    return 0;
  }
  if (nd->stage_head >= nd->stage_tail) {
    if (nd->stage_size - nd->stage_head >= len) { *off = nd->stage_head; return 1; }
    if (nd->stage_tail > len) { *off = 0; return 1; }
    return 0;
  }
  if (nd->stage_tail - nd->stage_head > len) { *off = nd->stage_head; return 1; }
  return 0;
}

static int room_pred(sgpu_device *dev, const void *v) {
  const room_arg *a = v;
  sgpu_node *nd = &dev->node[a->n];
  if (nd->faulted)
    return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED,
                      "node %u faulted while waiting for ring room; call sgpu_reset_from_timeout", a->n);
  if (a->stage_bytes) {
    if (!stage_fit(nd, a->stage_bytes, a->stage_off)) {
      int r = sgpu__retire(dev, a->n);
      if (r) return r;
      if (!stage_fit(nd, a->stage_bytes, a->stage_off)) return 0;
    }
  }
  return ring_free(dev, nd, a->n, a->ring_bytes);
}

int sgpu__wait_room(sgpu_device *dev, uint32_t n, uint32_t ring_bytes, uint32_t stage_bytes,
                    uint32_t *stage_off) {
  room_arg a = {n, ring_bytes, stage_bytes, stage_off};
  int p = room_pred(dev, &a);
  if (p) return p > 0 ? 0 : p;
  dev->stats.ring_waits++;
  uint64_t limit = (uint64_t)(dev->watchdog ? dev->watchdog : SGPU_DEFAULT_WATCHDOG) * 4;
  int r = wait_until(dev, limit, room_pred, &a, 0);
  if (r == SGPU_ERROR_TIMEOUT)
    return sgpu__fail(dev, r, "node %u: no ring/staging room after %llu cycles", n,
                      (unsigned long long)limit);
  return r;
}

/* ------------------------------------------------------------ fences */
typedef struct fence_arg {
  uint32_t n;
  uint64_t target;
} fence_arg;

static int fence_pred(sgpu_device *dev, const void *v) {
  const fence_arg *a = v;
  sgpu_node *nd = &dev->node[a->n];
  if (nd->completed64 >= a->target) return 1;
  if (nd->faulted)
    return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED, "node %u faulted before fence %llu completed",
                      a->n, (unsigned long long)a->target);
  return 0;
}

int sgpu_wait_fence(sgpu_device *dev, uint32_t node_ordinal, uint32_t fence_id, uint32_t timeout_ms) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  sgpu_node *nd = &dev->node[node_ordinal];
  int r;
  if ((int32_t)(fence_id - (uint32_t)nd->submitted64) > 0) {
    r = sgpu__fail(dev, SGPU_ERROR_FENCE_NOT_SUBMITTED,
                   "fence %u is ahead of the last one submitted on node %u (%u)", fence_id,
                   node_ordinal, (uint32_t)nd->submitted64);
    goto out;
  }
  fence_arg a = {node_ordinal, nd->submitted64 - (uint32_t)((uint32_t)nd->submitted64 - fence_id)};
  if ((r = sgpu__retire(dev, node_ordinal))) goto out;
  r = wait_until(dev, ms_to_cycles(timeout_ms), fence_pred, &a, 1);
  if (r == SGPU_ERROR_TIMEOUT)
    sgpu__fail(dev, r, "fence %u on node %u not reached within %u ms (%llu cycles)", fence_id,
               node_ordinal, timeout_ms, (unsigned long long)ms_to_cycles(timeout_ms));
out:
  sgpu__unlock(dev);
  return r;
}

static int idle_pred(sgpu_device *dev, const void *v) {
  (void)v;
  for (uint32_t n = 0; n < dev->nodes; n++)
    if (dev->node[n].q_count && !dev->node[n].faulted) return 0;
  return 1;
}

int sgpu_wait_idle(sgpu_device *dev, uint32_t timeout_ms) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  int r = 0;
  for (uint32_t n = 0; n < dev->nodes && !r; n++) r = sgpu__retire(dev, n);
  if (!r) r = wait_until(dev, ms_to_cycles(timeout_ms), idle_pred, NULL, 1);
  if (r == SGPU_ERROR_TIMEOUT) sgpu__fail(dev, r, "work still pending after %u ms", timeout_ms);
  sgpu__unlock(dev);
  return r;
}

int sgpu_get_fence(sgpu_device *dev, uint32_t node_ordinal, sgpu_fence_info *info) {
  if (!dev || !info) return SGPU_ERROR_INVALID_PARAM;
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  int r = sgpu__retire(dev, node_ordinal);
  sgpu_node *nd = &dev->node[node_ordinal];
  info->submitted = nd->submitted64;
  info->completed = nd->completed64;
  info->pending = (uint32_t)nd->q_count;
  info->faulted = (uint32_t)nd->faulted;
  sgpu__unlock(dev);
  return r;
}

/* ------------------------------------------------------------ events */
static int event_pred(sgpu_device *dev, const void *v) {
  (void)v;
  return dev->ev_count ? 1 : 0;
}

int sgpu_next_event(sgpu_device *dev, sgpu_event *ev, uint32_t timeout_ms) {
  if (!dev || !ev) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  int r = 0;
  if (!dev->ev_count) {
    for (uint32_t n = 0; n < dev->nodes && !r; n++) r = sgpu__retire(dev, n);
    if (!r) r = wait_until(dev, ms_to_cycles(timeout_ms), event_pred, NULL, 1);
  }
  if (r == 0 && dev->ev_count) {
    *ev = dev->evq[dev->ev_head];
    dev->ev_head = (dev->ev_head + 1) % dev->ev_cap;
    dev->ev_count--;
  } else if (r == SGPU_ERROR_TIMEOUT) {
    sgpu__fail(dev, r, "no event within %u ms", timeout_ms);
  }
  sgpu__unlock(dev);
  return r;
}

int sgpu_enable_vsync_events(sgpu_device *dev, uint32_t source, int enable) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (source >= dev->sources)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_SOURCE, "display source %u does not exist (%u sources)",
                      source, dev->sources);
  sgpu__lock(dev);
  uint32_t e = enable ? dev->int_enable | SGPU_INT_CRTC_VSYNC(source)
                      : dev->int_enable & ~SGPU_INT_CRTC_VSYNC(source);
  int r = 0;
  if (!enable) r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS, SGPU_INT_CRTC_VSYNC(source));
  if (!r && enable) r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS, SGPU_INT_CRTC_VSYNC(source));
  if (!r) r = sgpu__reg_write(dev, SGPU_REG_INT_ENABLE, e);
  if (!r) dev->int_enable = e;
  sgpu__unlock(dev);
  return r;
}

/* ------------------------------------------------------------ reset */
int sgpu_reset_from_timeout(sgpu_device *dev) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  int r = 0, dropped = 0;
  if (dev->tr->ops->irq(dev->tr)) r = sgpu__service_irq(dev);
  for (uint32_t n = 0; n < dev->nodes && !r; n++) {
    sgpu_node *nd = &dev->node[n];
    uint32_t st = 0;
    if ((r = sgpu__retire(dev, n))) break;
    if ((r = sgpu__reg_read(dev, nreg(n, SGPU_NREG_STATUS), &st))) break;
    if (!nd->faulted && !(st & SGPU_STATUS_FAULTED) && nd->q_count == 0) continue;
    /* Everything not completed is lost: report it so it can be resubmitted. */
    uint64_t now = dev->tr->ops->now(dev->tr);
    while (nd->q_count) {
      sgpu_event ev = event_of(SGPU_EVENT_DMA_DROPPED, n, now);
      fill_from_pending(&ev, q_front(nd));
      ev.last_completed_fence_id = (uint32_t)nd->completed64;
      sgpu__push_event(dev, &ev);
      q_pop(nd);
      dropped++;
      dev->stats.dropped++;
    }
    nd->submitted64 = nd->completed64;
    if ((r = sgpu__program_node(dev, n))) break;
    if ((r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS,
                             SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) |
                                 SGPU_INT_DMA_PREEMPTED(n))))
      break;
    dev->stats.resets++;
  }
  sgpu__unlock(dev);
  return r ? r : dropped;
}

/* ------------------------------------------------------------ misc */
int sgpu_get_stats(sgpu_device *dev, sgpu_stats *stats) {
  if (!dev || !stats) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  *stats = dev->stats;
  sgpu__unlock(dev);
  return 0;
}

int sgpu_get_ring_info(sgpu_device *dev, uint32_t node_ordinal, sgpu_ring_info *info) {
  if (!dev || !info) return SGPU_ERROR_INVALID_PARAM;
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  sgpu_node *nd = &dev->node[node_ordinal];
  memset(info, 0, sizeof *info);
  info->base = nd->ring_base;
  info->size = nd->ring_size;
  info->wptr = nd->wptr;
  info->rptr_address = nd->rptr_addr;
  info->fence_address = nd->fence_addr;
  int r = sgpu__reg_read(dev, nreg(node_ordinal, SGPU_NREG_RING_RPTR), &info->rptr);
  if (!r) r = sgpu__reg_read(dev, nreg(node_ordinal, SGPU_NREG_STATUS), &info->status);
  sgpu__unlock(dev);
  return r;
}

int sgpu_get_cycles(sgpu_device *dev, uint64_t *cycles) {
  if (!dev || !cycles) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  *cycles = dev->tr->ops->now(dev->tr);
  sgpu__unlock(dev);
  return 0;
}

static int never_pred(sgpu_device *dev, const void *v) {
  (void)dev;
  (void)v;
  return 0;
}

int sgpu_run_cycles(sgpu_device *dev, uint64_t cycles) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  sgpu__lock(dev);
  int r = wait_until(dev, cycles, never_pred, NULL, 1);
  sgpu__unlock(dev);
  return r == SGPU_ERROR_TIMEOUT ? 0 : r;
}
