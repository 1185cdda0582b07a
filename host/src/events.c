/* events.c — interrupts, fences, events, waiting (events.h). */
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "events.h"
#include "evq.h"
#include "regs.h"
#include "ring.h"

static uint32_t nreg(uint32_t n, uint32_t r) { return SGPU_NODE_REG(n, r); }

int sgpu__service_irq(sgpu_device *dev) {
  uint32_t st = 0;
  int r = sgpu__reg_read(dev, SGPU_REG_INT_STATUS, &st);
  if (r) return r;
  if (!st) return 0;
  if ((r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS, st))) return r;
  st &= dev->int_enable; /* latched but masked sources make no events */
  uint64_t now = dev->tr->ops->now(dev->tr);
  for (uint32_t n = 0; n < dev->rings; n++) { /* each ring block has its interrupt bits */
    sgpu_node *nd = &dev->node[n];
    if (st & (SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n)))
      if ((r = sgpu__retire(dev, n))) return r;
    if (st & SGPU_INT_DMA_FAULTED(n)) {
      uint32_t reason = 0, addr = 0, hdr = 0, fence = 0;
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_REASON), &reason);
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_ADDR), &addr);
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_OPCODE), &hdr);
      sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_FENCE), &fence);
      /* The submission in flight: the one whose fence the hardware names,
       * else the oldest pending one. */
      const sgpu_pending *hit = sgpu__ring_find(nd, fence);
      if (!hit) hit = sgpu__ring_oldest(nd);
      sgpu_event ev = sgpu__event_of(SGPU_EVENT_DMA_FAULTED, nd, now, hit);
      ev.fault_reason = reason;
      ev.fault_address = addr;
      ev.fault_opcode = hdr;
      if (reason == SGPU_FAULT_PAGE_NOT_PRESENT || reason == SGPU_FAULT_PAGE_PROTECTION) {
        uint32_t va = 0, acc = 0;
        sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_VA), &va);
        sgpu__reg_read(dev, nreg(n, SGPU_NREG_FAULT_ACCESS), &acc);
        ev.fault_va = va;
        ev.fault_access = SGPU_FIELD_GET(FAULT_ACCESS_ACCESS, acc);
        ev.fault_unit = SGPU_FIELD_GET(FAULT_ACCESS_UNIT, acc);
      }
      ev.fence_id = fence;
      ev.last_completed_fence_id = (uint32_t)nd->completed64;
      if (!hit) ev.fence_id64 = nd->completed64 + (uint32_t)(fence - (uint32_t)nd->completed64);
      nd->faulted = 1;
      dev->stats.faulted++;
      sgpu__push_event(dev, &ev);
    }
    /* DMA_PREEMPTED: sgpu_preempt, which asked for it, reads the save area,
     * resets the node and raises the event itself (preempt.c). */
  }
  for (uint32_t s = 0; s < dev->sources; s++) {
    if (!(st & SGPU_INT_CRTC_VSYNC(s))) continue;
    uint32_t base = 0, cnt = 0;
    sgpu__reg_read(dev, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE), &base);
    sgpu__reg_read(dev, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_VBLANK_COUNT), &cnt);
    sgpu_event ev = sgpu__event_of(SGPU_EVENT_CRTC_VSYNC, NULL, now, NULL);
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
#define WAIT_SLICE 65536u

int sgpu__wait_until(sgpu_device *dev, uint64_t cycles, sgpu_wait_pred pred, const void *arg,
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

/* ------------------------------------------------------------ fences */
/* A node's fence ids are one sequence over all of its rings (up to three),
 * and each ring completes in order but independently of the others.  So an
 * id is done when the submission that carried it is done (its ring's fence
 * word reached it); an id that no unfinished submission carries was carried
 * by one already retired, or by none (ids may skip values): it is done once
 * a ring of the node has passed it, or nothing is left on the node. */
typedef struct fence_arg {
  uint32_t node;
  uint64_t target;
} fence_arg;

/* The ring holding the unfinished submission (queued or preempted) that
 * carries fence id target on node n, else NULL; *preempted: a preempted one. */
static sgpu_node *ring_carrying(sgpu_device *dev, uint32_t n, uint64_t target, int *preempted) {
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, n, ring);
  *preempted = 0;
  for (uint32_t i = 0; i < k; i++) {
    sgpu_node *nd = &dev->node[ring[i]];
    for (size_t j = 0; j < nd->q_count; j++)
      if (sgpu__ring_at(nd, j)->fence64 == target) return nd;
    for (size_t j = 0; j < nd->pre_count; j++)
      if (nd->pre[j].fence64 == target) return *preempted = 1, nd;
  }
  return NULL;
}

static int fence_pred(sgpu_device *dev, const void *v) {
  const fence_arg *a = v;
  int preempted;
  const sgpu_node *own = ring_carrying(dev, a->node, a->target, &preempted);
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, a->node, ring);
  if (own) {
    if (own->completed64 >= a->target) return 1;
    if (own->faulted)
      return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED, "node %u faulted before fence %llu completed",
                        a->node, (unsigned long long)a->target);
    return 0;
  }
  int idle = 1;
  for (uint32_t i = 0; i < k; i++) {
    const sgpu_node *nd = &dev->node[ring[i]];
    if (nd->completed64 >= a->target) return 1;
    idle &= sgpu__ring_idle(nd);
  }
  if (idle) return 1;
  for (uint32_t i = 0; i < k; i++)
    if (dev->node[ring[i]].faulted)
      return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED, "node %u faulted before fence %llu completed",
                        a->node, (unsigned long long)a->target);
  return 0;
}

int sgpu_wait_fence(sgpu_device *dev, uint32_t node_ordinal, uint32_t fence_id, uint32_t timeout_ms) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_wait_fence(dev, node_ordinal, fence_id, timeout_ms);
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  uint64_t seq = dev->node[node_ordinal].node_submitted64;
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, node_ordinal, ring);
  int r = 0;
  if ((int32_t)(fence_id - (uint32_t)seq) > 0) {
    r = sgpu__fail(dev, SGPU_ERROR_FENCE_NOT_SUBMITTED,
                   "fence %u is ahead of the last one submitted on node %u (%u)", fence_id,
                   node_ordinal, (uint32_t)seq);
    goto out;
  }
  fence_arg a = {node_ordinal, seq - (uint32_t)((uint32_t)seq - fence_id)};
  for (uint32_t i = 0; i < k && !r; i++) r = sgpu__retire(dev, ring[i]);
  if (r) goto out;
  int preempted;
  const sgpu_node *own = ring_carrying(dev, node_ordinal, a.target, &preempted);
  /* Preempted work on the ring it went to (or, for an id no submission
   * carries, on a ring that has not passed it) runs no further until sent again. */
  for (uint32_t i = 0; i < k && !own; i++) {
    const sgpu_node *nd = &dev->node[ring[i]];
    if (nd->pre_count && a.target > nd->completed64 && nd->pre[0].fence64 <= a.target) own = nd, preempted = 1;
  }
  if (own && preempted) {
    r = sgpu__fail(dev, SGPU_ERROR_PREEMPTED,
                   "fence %u on node %u belongs to preempted work: send fence %u again with "
                   "flags.resubmission first", fence_id, node_ordinal, own->pre[0].fence32);
    goto out;
  }
  r = sgpu__wait_until(dev, ms_to_cycles(timeout_ms), fence_pred, &a, 1);
  if (r == SGPU_ERROR_TIMEOUT)
    sgpu__fail(dev, r, "fence %u on node %u not reached within %u ms (%llu cycles)", fence_id,
               node_ordinal, timeout_ms, (unsigned long long)ms_to_cycles(timeout_ms));
out:
  sgpu__unlock(dev);
  return r;
}

static int idle_pred(sgpu_device *dev, const void *v) {
  (void)v;
  for (uint32_t n = 0; n < dev->rings; n++)
    if (dev->node[n].q_count && !dev->node[n].faulted) return 0;
  return 1;
}

int sgpu_wait_idle(sgpu_device *dev, uint32_t timeout_ms) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_wait_idle(dev, timeout_ms);
  sgpu__lock(dev);
  int r = 0;
  for (uint32_t n = 0; n < dev->rings && !r; n++) r = sgpu__retire(dev, n);
  if (!r) r = sgpu__wait_until(dev, ms_to_cycles(timeout_ms), idle_pred, NULL, 1);
  if (r == SGPU_ERROR_TIMEOUT) sgpu__fail(dev, r, "work still pending after %u ms", timeout_ms);
  sgpu__unlock(dev);
  return r;
}

int sgpu_get_fence(sgpu_device *dev, uint32_t node_ordinal, sgpu_fence_info *info) {
  if (!dev || !info) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_get_fence(dev, node_ordinal, info);
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  /* the node's, over all of its rings */
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, node_ordinal, ring);
  int r = 0;
  for (uint32_t i = 0; i < k && !r; i++) r = sgpu__retire(dev, ring[i]);
  info->submitted = dev->node[node_ordinal].node_submitted64;
  info->completed = sgpu__node_completed(dev, node_ordinal);
  info->pending = 0;
  info->faulted = 0;
  for (uint32_t i = 0; i < k; i++) {
    info->pending += (uint32_t)dev->node[ring[i]].q_count;
    info->faulted |= (uint32_t)dev->node[ring[i]].faulted;
  }
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
  if (dev->remote) return sgpu__remote_next_event(dev, ev, timeout_ms);
  sgpu__lock(dev);
  int r = 0;
  if (!dev->ev_count) {
    for (uint32_t n = 0; n < dev->rings && !r; n++) r = sgpu__retire(dev, n);
    if (!r) r = sgpu__wait_until(dev, ms_to_cycles(timeout_ms), event_pred, NULL, 1);
  }
  if (r == 0) {
    sgpu__pop_event(dev, ev);
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
  if (dev->remote) return sgpu__remote_enable_vsync(dev, source, enable);
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

/* ------------------------------------------------------------ misc */
int sgpu_get_stats(sgpu_device *dev, sgpu_stats *stats) {
  if (!dev || !stats) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_get_stats(dev, stats);
  sgpu__lock(dev);
  *stats = dev->stats;
  sgpu__unlock(dev);
  return 0;
}

int sgpu_get_cycles(sgpu_device *dev, uint64_t *cycles) {
  if (!dev || !cycles) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_get_cycles(dev, cycles);
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
  if (dev->remote) return sgpu__remote_run_cycles(dev, cycles);
  sgpu__lock(dev);
  int r = sgpu__wait_until(dev, cycles, never_pred, NULL, 1);
  sgpu__unlock(dev);
  return r == SGPU_ERROR_TIMEOUT ? 0 : r;
}
