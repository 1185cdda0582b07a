/* recovery.c — timeout detection and recovery: resetting one engine without
 * losing the innocent work queued on it (DxgkDdiResetEngine,
 * DxgkDdiResetFromTimeout), the guilty context's count and its ban.
 *
 * The hardware's part is CONTROL.RESET: the node stops all memory traffic
 * and forgets its ring.  Everything else is the library's: it knows every
 * submission not yet retired (ring.h's queue, oldest first), so the oldest is
 * the one that was running, the others had not started (a ring runs in
 * order) and can be put back as they were. */
#include "events.h"
#include "evq.h"
#include "regs.h"
#include "ring.h"

static sgpu_context *find_context(sgpu_device *dev, uint32_t id) {
  for (sgpu_context *c = dev->contexts; c; c = c->next)
    if (c->id == id) return c;
  return NULL;
}

/* Node n's ring that was running (an index into ring[]): one that faulted,
 * else its high-priority ring when that has work (the normal ones hold
 * behind it), else the normal ring whose oldest unfinished submission is
 * the node's oldest (with time slices either may have been running; the
 * watchdog's fault names the one that hung), else the first normal ring. */
static uint32_t running_ring(sgpu_device *dev, const uint32_t *ring, uint32_t rings) {
  for (uint32_t i = 0; i < rings; i++)
    if (dev->node[ring[i]].faulted) return i;
  uint32_t best = 0;
  uint64_t oldest = UINT64_MAX;
  for (uint32_t i = 0; i < rings; i++) {
    const sgpu_pending *p = sgpu__ring_oldest(&dev->node[ring[i]]);
    if (!p || p->dropped) continue;
    if (dev->node[ring[i]].priority == SGPU_PRIORITY_HIGH) return i;
    if (p->fence64 < oldest) oldest = p->fence64, best = i;
  }
  return best;
}

/* Reset node n, all its rings; the innocent submissions put back are
 * counted in *resubmitted. */
static int reset_node(sgpu_device *dev, uint32_t n, uint32_t *last_aborted, int *resubmitted) {
  uint32_t ring[SGPU__NODE_RINGS_MAX], rings = sgpu__node_rings(dev, n, ring);
  /* Stop them first, so that what they complete is settled before we look.
   * The high ring last: while it has work the normal rings hold behind it,
   * and a chip that runs on between two writes (a link) would let a normal
   * ring run once the high one is gone. */
  int r = 0;
  for (int high = 0; high < 2; high++)
    for (uint32_t i = 0; i < rings && !r; i++)
      if ((dev->node[ring[i]].priority == SGPU_PRIORITY_HIGH) == high)
        r = sgpu__reg_write(dev, SGPU_NODE_REG(ring[i], SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
  if (!r && dev->tr->ops->irq(dev->tr)) r = sgpu__service_irq(dev);
  for (uint32_t i = 0; i < rings && !r; i++) r = sgpu__retire(dev, ring[i]);
  if (r) return r;

  /* The oldest pending submission of the running ring was running: its
   * context is guilty.  (An oldest one already dropped is a bare FENCE:
   * nothing of substance ran.)  A normal submission held behind
   * high-priority work, or behind the other normal ring's time slice, is
   * innocent: it goes back whole. */
  sgpu_node *run = &dev->node[ring[running_ring(dev, ring, rings)]];
  const sgpu_pending *running = sgpu__ring_oldest(run);
  if (running && running->dropped) running = NULL;
  uint32_t guilty = running ? running->owner : 0;
  uint32_t aborted = (uint32_t)run->completed64;
  uint64_t aborted64 = run->completed64;
  uint64_t now = dev->tr->ops->now(dev->tr);
  int put_back = 0;
  for (uint32_t i = 0; i < rings; i++) {
    sgpu_node *nd = &dev->node[ring[i]];
    for (size_t j = 0; j < nd->q_count; j++) {
      sgpu_pending *p = sgpu__ring_at(nd, j);
      /* Without a context (paging), only the running submission is guilty. */
      int is_guilty = p == running || (running && guilty && p->owner == guilty);
      if (is_guilty && !p->dropped) {
        p->dropped = 1;
        sgpu_event ev = sgpu__event_of(SGPU_EVENT_DMA_DROPPED, nd, now, p);
        ev.last_completed_fence_id = (uint32_t)nd->completed64;
        ev.context_id = p->owner;
        sgpu__push_event(dev, &ev);
        dev->stats.dropped++;
        if (nd == run) {
          aborted = p->fence32;
          aborted64 = p->fence64;
        }
      } else if (!p->dropped) {
        p->flags |= SGPU_SUBMIT_RESUBMISSION;
        dev->stats.resubmission++;
        put_back++;
      }
    }
  }
  /* Each ring rebuilt from its own queue: the innocent work goes back once,
   * on the ring it was on. */
  for (uint32_t i = 0; i < rings && !r; i++) {
    if ((r = sgpu__ring_restart(dev, ring[i]))) break;
    r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS,
                        SGPU_INT_DMA_COMPLETED(ring[i]) | SGPU_INT_DMA_FAULTED(ring[i]) |
                            SGPU_INT_DMA_PREEMPTED(ring[i]));
  }
  if (r) return r;
  dev->stats.resets++;

  /* One ENGINE_RESET for the node, from the ring that was running. */
  sgpu_event ev = sgpu__event_of(SGPU_EVENT_ENGINE_RESET, run, now, NULL);
  ev.fence_id = aborted;
  ev.fence_id64 = aborted64;
  ev.last_completed_fence_id = (uint32_t)run->completed64;
  ev.resubmitted = (uint32_t)put_back;
  sgpu_context *c = running && guilty ? find_context(dev, guilty) : NULL;
  if (c) {
    c->guilty++;
    if (dev->ban_threshold && c->guilty >= dev->ban_threshold && !c->banned) {
      c->banned = 1;
      c->off_path |= SGPU__CTX_BANNED;
      ev.banned = 1;
    }
    ev.context_id = c->id;
    ev.guilty_count = c->guilty;
  } else if (running) {
    ev.context_id = guilty; /* a context destroyed meanwhile, or none (0) */
  }
  sgpu__push_event(dev, &ev);
  if (last_aborted) *last_aborted = aborted;
  *resubmitted += put_back;
  return 0;
}

int sgpu_reset_engine(sgpu_device *dev, uint32_t node_ordinal, uint32_t *last_aborted_fence_id) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  SGPU__NOT_CARRIED(dev, "sgpu_reset_engine");
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  int put_back = 0;
  int r = reset_node(dev, node_ordinal, last_aborted_fence_id, &put_back);
  sgpu__unlock(dev);
  return r ? r : put_back;
}

int sgpu_reset_from_timeout(sgpu_device *dev) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  SGPU__NOT_CARRIED(dev, "sgpu_reset_from_timeout");
  sgpu__lock(dev);
  int r = 0, put_back = 0;
  if (dev->tr->ops->irq(dev->tr)) r = sgpu__service_irq(dev);
  for (uint32_t n = 0; n < dev->nodes && !r; n++) {
    /* a node is reset, all its rings, when any of them faulted or has work */
    uint32_t ring[SGPU__NODE_RINGS_MAX], rings = sgpu__node_rings(dev, n, ring);
    int needed = 0;
    for (uint32_t i = 0; i < rings && !r; i++) {
      sgpu_node *nd = &dev->node[ring[i]];
      uint32_t st = 0;
      if ((r = sgpu__retire(dev, ring[i]))) break;
      if ((r = sgpu__reg_read(dev, SGPU_NODE_REG(ring[i], SGPU_NREG_STATUS), &st))) break;
      needed |= nd->faulted || (st & SGPU_STATUS_FAULTED) || nd->q_count != 0;
    }
    if (!r && needed) r = reset_node(dev, n, NULL, &put_back);
  }
  sgpu__unlock(dev);
  return r ? r : put_back;
}

int sgpu_set_ban_threshold(sgpu_device *dev, uint32_t guilty_count) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  SGPU__NOT_CARRIED(dev, "sgpu_set_ban_threshold");
  sgpu__lock(dev);
  dev->ban_threshold = guilty_count;
  sgpu__unlock(dev);
  return 0;
}

uint32_t sgpu_context_guilty_count(const sgpu_context *ctx) {
  return ctx && ctx->magic == SGPU_CONTEXT_MAGIC ? ctx->guilty : 0;
}

int sgpu_context_banned(const sgpu_context *ctx) {
  return ctx && ctx->magic == SGPU_CONTEXT_MAGIC ? ctx->banned : 0;
}
