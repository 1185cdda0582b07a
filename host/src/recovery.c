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

/* Reset node n; the innocent submissions put back are counted in *resubmitted. */
static int reset_node(sgpu_device *dev, uint32_t n, uint32_t *last_aborted, int *resubmitted) {
  sgpu_node *nd = &dev->node[n];
  /* Stop it first, so that what it completes is settled before we look. */
  int r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
  if (!r && dev->tr->ops->irq(dev->tr)) r = sgpu__service_irq(dev);
  if (!r) r = sgpu__retire(dev, n);
  if (r) return r;

  /* The oldest pending submission was running: its context is guilty.  (An
   * oldest one already dropped is a bare FENCE: nothing of substance ran.) */
  const sgpu_pending *running = sgpu__ring_oldest(nd);
  if (running && running->dropped) running = NULL;
  uint32_t guilty = running ? running->owner : 0;
  uint32_t aborted = (uint32_t)nd->completed64;
  uint64_t aborted64 = nd->completed64;
  uint64_t now = dev->tr->ops->now(dev->tr);
  int put_back = 0;
  for (size_t i = 0; i < nd->q_count; i++) {
    sgpu_pending *p = sgpu__ring_at(nd, i);
    /* Without a context (paging), only the running submission is guilty. */
    int is_guilty = p == running || (running && guilty && p->owner == guilty);
    if (is_guilty && !p->dropped) {
      p->dropped = 1;
      sgpu_event ev = sgpu__event_of(SGPU_EVENT_DMA_DROPPED, n, now, p);
      ev.last_completed_fence_id = (uint32_t)nd->completed64;
      ev.context_id = p->owner;
      sgpu__push_event(dev, &ev);
      dev->stats.dropped++;
      aborted = p->fence32;
      aborted64 = p->fence64;
    } else if (!p->dropped) {
      p->flags |= SGPU_SUBMIT_RESUBMISSION;
      dev->stats.resubmission++;
      put_back++;
    }
  }
  if ((r = sgpu__ring_restart(dev, n))) return r;
  r = sgpu__reg_write(dev, SGPU_REG_INT_STATUS,
                      SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n));
  if (r) return r;
  dev->stats.resets++;

  sgpu_event ev = sgpu__event_of(SGPU_EVENT_ENGINE_RESET, n, now, NULL);
  ev.fence_id = aborted;
  ev.fence_id64 = aborted64;
  ev.last_completed_fence_id = (uint32_t)nd->completed64;
  ev.resubmitted = (uint32_t)put_back;
  sgpu_context *c = running && guilty ? find_context(dev, guilty) : NULL;
  if (c) {
    c->guilty++;
    if (dev->ban_threshold && c->guilty >= dev->ban_threshold && !c->banned) {
      c->banned = 1;
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
    sgpu_node *nd = &dev->node[n];
    uint32_t st = 0;
    if ((r = sgpu__retire(dev, n))) break;
    if ((r = sgpu__reg_read(dev, SGPU_NODE_REG(n, SGPU_NREG_STATUS), &st))) break;
    if (!nd->faulted && !(st & SGPU_STATUS_FAULTED) && nd->q_count == 0) continue;
    r = reset_node(dev, n, NULL, &put_back);
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
