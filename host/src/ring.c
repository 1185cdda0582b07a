/* ring.c — each node's ring, and only here (ring.h): programming it, room
 * (ring bytes and staging space), staging a segment-0 DMA buffer, emitting
 * the ring packets and the doorbell, and retiring submissions as the fence
 * word passes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "regs.h"
#include "remote.h"
#include "ring.h"

/* ------------------------------------------------------------ pending queue */
static sgpu_pending *q_at(sgpu_node *nd, size_t i) { return &nd->q[(nd->q_head + i) % nd->q_cap]; }

sgpu_pending *sgpu__ring_at(sgpu_node *nd, size_t i) { return i < nd->q_count ? q_at(nd, i) : NULL; }

const sgpu_pending *sgpu__ring_oldest(sgpu_node *nd) { return nd->q_count ? q_at(nd, 0) : NULL; }

const sgpu_pending *sgpu__ring_find(sgpu_node *nd, uint32_t fence32) {
  for (size_t i = 0; i < nd->q_count; i++)
    if (q_at(nd, i)->fence32 == fence32) return q_at(nd, i);
  return NULL;
}

/* Drop the oldest submission, giving back its staging space. */
void sgpu__ring_pop(sgpu_node *nd) {
  sgpu_pending *p = q_at(nd, 0);
  if (p->staged) {
    nd->stage_tail = p->stage_end;
    if (--nd->stage_live == 0) nd->stage_head = nd->stage_tail = 0;
  }
  nd->q_head = (nd->q_head + 1) % nd->q_cap;
  nd->q_count--;
}

/* The queue's next free slot, growing the queue when full (NULL: out of
 * memory).  It becomes an entry when q_count is raised. */
__attribute__((always_inline)) static inline sgpu_pending *next_slot(sgpu_device *dev, sgpu_node *nd) {
  if (nd->q_count == nd->q_cap) {
    sgpu_pending *nq = sgpu__queue_grow(nd->q, sizeof *nd->q, &nd->q_head, nd->q_count, &nd->q_cap);
    if (!nq) {
      sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for the submission queue");
      return NULL;
    }
    nd->q = nq;
  }
  return q_at(nd, nd->q_count);
}

/* The node's ring as the hardware starts it after a reset: empty, context unknown. */
void sgpu__ring_reset(sgpu_node *nd) {
  nd->wptr = 0;
  nd->rptr_cache = 0;
  nd->ctx_known = 0;
  nd->stage_head = nd->stage_tail = 0;
  nd->stage_live = 0;
}

/* ------------------------------------------------------------ retire */
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
  const sgpu_pending *last = sgpu__ring_find(nd, word);
  if (!last) return 0;
  uint64_t c = last->fence64;
  nd->completed64 = c;
  uint64_t now = dev->tr->ops->now(dev->tr);
  const sgpu_pending *p;
  while ((p = sgpu__ring_oldest(nd)) && p->fence64 <= c) {
    if (!p->dropped) { /* a dropped one had its DMA_DROPPED event at the reset */
      sgpu_event ev = sgpu__event_of(SGPU_EVENT_DMA_COMPLETED, nd, now, p);
      ev.last_completed_fence_id = (uint32_t)c;
      sgpu__push_event(dev, &ev);
      dev->stats.completed++;
    }
    sgpu__ring_pop(nd);
  }
  /* Dropped submissions left behind preempted ones (preempt.c) pass with
   * the last of those. */
  if (!nd->q_count && !nd->pre_count) nd->completed64 = nd->submitted64;
  return 0;
}

/* ------------------------------------------------------------ room */
__attribute__((always_inline)) static inline int ring_free(sgpu_device *dev, sgpu_node *nd, uint32_t n,
                                                        uint32_t need) {
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

__attribute__((always_inline)) static inline int ring_room(sgpu_device *dev, uint32_t n, uint32_t ring_bytes, uint32_t stage_bytes,
                     uint32_t *stage_off) {
  sgpu_node *nd = &dev->node[n];
  if (nd->faulted)
    return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED,
                      "node %u faulted while waiting for ring room; call sgpu_reset_from_timeout", n);
  if (stage_bytes) {
    if (!stage_fit(nd, stage_bytes, stage_off)) {
      int r = sgpu__retire(dev, n);
      if (r) return r;
      if (!stage_fit(nd, stage_bytes, stage_off)) return 0;
    }
  }
  return ring_free(dev, nd, n, ring_bytes);
}

/* ------------------------------------------------------------ emit */
/* CONTEXT (when the node's context changes), INDIRECT, FENCE. */
static int need_context(const sgpu_node *nd, uint32_t ctx_id) {
  return !nd->ctx_known || nd->cur_ctx_id != ctx_id;
}

__attribute__((always_inline)) static inline int ring_write(sgpu_device *dev, uint32_t n,
                                                           const uint32_t *ring, uint32_t k);

/* p's CONTEXT packet into ring[0..3]; the node's context is then p's. */
__attribute__((always_inline)) static inline uint32_t put_context(const sgpu_device *dev, sgpu_node *nd,
                                                                 const sgpu_pending *p, uint32_t *ring) {
  /* a VM context: win_size bit 0 (SGPU__WIN_VM), base its page directory */
  uint32_t vm = p->ctx_id ? p->win_size & SGPU__WIN_VM : 0;
  ring[0] = SGPU_PKT_HEADER(SGPU_OP_CONTEXT, 3, vm ? SGPU_CONTEXT_FLAG_VM : 0);
  ring[1] = p->ctx_id;
  ring[2] = p->ctx_id ? p->win_base : 0;
  ring[3] = p->ctx_id ? p->win_size & ~SGPU__WIN_VM : dev->mem_size;
  nd->cur_ctx_id = p->ctx_id;
  nd->ctx_known = 1;
  return 4;
}

/* Write submission p's packets at the node's WPTR (CONTEXT when need_ctx;
 * with_pre: an INDIRECT into a resumed one's trampoline, preempt.c; the
 * INDIRECT of its buffer unless it has none or was dropped; FENCE) and
 * advance WPTR past them; the doorbell is the caller's.  The room was
 * checked.  Inlined: it is on the submission path
 * (tests/host/test_submit_cost.sh), where with_pre is 0. */
__attribute__((always_inline)) static inline int ring_put_packets(sgpu_device *dev, uint32_t n,
                                                                 const sgpu_pending *p, int need_ctx,
                                                                 int with_pre) {
  sgpu_node *nd = &dev->node[n];
  uint32_t ring[20];
  uint32_t k = 0;
  if (need_ctx) k = put_context(dev, nd, p, ring);
  if (with_pre && p->pre_len && !p->dropped) {
    ring[k++] = SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, 0);
    ring[k++] = p->pre_addr;
    ring[k++] = p->pre_len;
    ring[k++] = p->fence32;
  }
  if (p->len && !p->dropped) {
    ring[k++] = SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, p->skip ? SGPU_INDIRECT_FLAG_SKIP : 0);
    ring[k++] = p->ib_addr;
    ring[k++] = p->len;
    ring[k++] = p->fence32;
  }
  ring[k++] = SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, SGPU_FENCE_FLAG_IRQ);
  ring[k++] = nd->fence_addr;
  ring[k++] = p->fence32;
  return ring_write(dev, n, ring, k);
}

__attribute__((always_inline)) static inline int ring_put(sgpu_device *dev, uint32_t n,
                                                         const sgpu_pending *p, int need_ctx) {
  return ring_put_packets(dev, n, p, need_ctx, 0);
}

/* Any queued submission's packets, a resumed one's trampoline too (off the
 * submission path: a resubmission, a ring rebuilt after a reset). */
static int ring_put_any(sgpu_device *dev, uint32_t n, const sgpu_pending *p, int need_ctx) {
  return ring_put_packets(dev, n, p, need_ctx, 1);
}

/* Write k ring words at the node's WPTR and advance it; the room was checked. */
__attribute__((always_inline)) static inline int ring_write(sgpu_device *dev, uint32_t n,
                                                           const uint32_t *ring, uint32_t k) {
  sgpu_node *nd = &dev->node[n];
  /* Wrap: pad to the end of the ring with a NOP so no packet straddles it. */
  uint32_t bytes = k * 4;
  int r;
  if (nd->wptr + bytes > nd->ring_size) {
    uint32_t pad = nd->ring_size - nd->wptr;
    uint32_t nop = SGPU_PKT_HEADER(SGPU_OP_NOP, pad / 4 - 1, 0);
    r = dev->tr->ops->mem_write(dev->tr, nd->ring_base + nd->wptr, &nop, 4);
    if (r) return sgpu__fail(dev, r, "writing node %u's ring failed (transport)", n);
    nd->wptr = 0;
  }
  r = dev->tr->ops->mem_write(dev->tr, nd->ring_base + nd->wptr, ring, bytes);
  if (r) return sgpu__fail(dev, r, "writing node %u's ring failed (transport)", n);
  nd->wptr = (nd->wptr + bytes) & (nd->ring_size - 1);
  return 0;
}

__attribute__((always_inline)) static inline int doorbell(sgpu_device *dev, uint32_t n) {
  int r = dev->tr->ops->reg_write(dev->tr, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), dev->node[n].wptr);
  return r ? sgpu__fail(dev, r, "writing node %u's ring failed (transport)", n) : 0;
}

/* A queue entry's record of the job (its buffer's address and length are
 * the caller's). */
__attribute__((always_inline)) static inline void fill_pending(sgpu_pending *p, const sgpu_ring_job *job,
                                                              uint64_t fence64, uint32_t stage_bytes,
                                                              uint32_t stage_end) {
  p->flags = job->flags;
  p->priv = job->priv;
  p->priv_size = job->priv_size;
  p->fence32 = job->fence;
  p->fence64 = fence64;
  p->staged = stage_bytes ? 1 : 0;
  p->stage_end = stage_end;
  p->owner = job->owner;
  p->ctx_id = job->ctx_id;
  p->win_base = job->win_base;
  p->win_size = job->win_size;
  p->skip = (uint32_t)job->skip;
  p->dropped = 0;
}

/* Stage the job's buffer if it has one, put it on the ring at the room
 * ring_room found, queue it and ring the doorbell. */
static int ring_emit(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job, int need_ctx,
                     uint32_t stage_bytes, uint32_t stage_off) {
  sgpu_node *nd = &dev->node[n];
  sgpu_pending *p = next_slot(dev, nd); /* filled in place: no copy on this path */
  if (!p) return SGPU_ERROR_NO_MEM;
  p->ib_addr = job->ib_addr;
  int r;
  if (stage_bytes) {
    p->ib_addr = nd->stage_base + stage_off;
    r = dev->tr->ops->mem_write(dev->tr, p->ib_addr, job->host_words, job->len);
    if (r) return sgpu__fail(dev, r, "staging %u bytes into the aperture failed", job->len);
    nd->stage_head = stage_off + job->len;
    nd->stage_live++;
    dev->stats.staged_bytes += job->len;
  }
  /* fence ids are one sequence per node, over all of its rings */
  uint64_t *seq = nd->fence_seq;
  fill_pending(p, job, *seq + (uint32_t)(job->fence - (uint32_t)*seq), stage_bytes, nd->stage_head);
  p->len = job->len;
  p->pre_len = p->rest_off = 0;
  if ((r = ring_put(dev, n, p, need_ctx))) return r;
  nd->q_count++;
  nd->submitted64 = *seq = p->fence64;
  if ((r = doorbell(dev, n))) return r;
  dev->stats.submissions++;
  if (need_ctx) dev->stats.context_switches++;
  return 0;
}

/* A resubmission of a preempted submission: its trampoline staged (the
 * rest of a cut FILL or COPY, of the level-2 buffer it stopped in), then
 * its buffer from where level 1 stopped, with the fence id it had. */
int sgpu__ring_try_resume(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job,
                          const sgpu_preempted *rs) {
  sgpu_node *nd = &dev->node[n];
  int need_ctx = need_context(nd, job->ctx_id);
  uint32_t tramp_bytes = rs->tramp_words * 4;
  uint32_t ring_bytes = ((need_ctx ? 4u : 0u) + (tramp_bytes ? 4u : 0u) + 7u) * 4u;
  uint32_t buf_bytes = job->host_words && job->len ? job->len : 0;
  uint32_t stage_bytes = buf_bytes + (job->tramp_va ? 0 : tramp_bytes);
  uint32_t stage_off = 0;
  int r = ring_room(dev, n, ring_bytes, stage_bytes, &stage_off);
  if (r <= 0) return r;
  sgpu_pending *p = next_slot(dev, nd);
  if (!p) return SGPU_ERROR_NO_MEM;
  uint32_t base = job->ib_addr;
  if (buf_bytes) {
    base = nd->stage_base + stage_off;
    r = dev->tr->ops->mem_write(dev->tr, base, job->host_words, buf_bytes);
    if (r) return sgpu__fail(dev, r, "staging %u bytes into the aperture failed", buf_bytes);
    dev->stats.staged_bytes += buf_bytes;
  }
  p->pre_addr = p->pre_len = 0;
  if (tramp_bytes) {
    p->pre_len = tramp_bytes;
    memcpy(p->tramp, rs->tramp, tramp_bytes);
    if (job->tramp_va) {
      p->pre_addr = job->tramp_va; /* fetched through the context's tables */
    } else {
      p->pre_addr = nd->stage_base + stage_off + buf_bytes;
      r = dev->tr->ops->mem_write(dev->tr, p->pre_addr, rs->tramp, tramp_bytes);
      if (r) return sgpu__fail(dev, r, "staging node %u's resume trampoline failed", n);
    }
  }
  if (stage_bytes) {
    nd->stage_head = stage_off + stage_bytes;
    nd->stage_live++;
  }
  /* the fence id it had: the node's count already passed it */
  fill_pending(p, job, rs->fence64, stage_bytes, nd->stage_head);
  p->rest_off = rs->rest_off;
  p->ib_addr = base + rs->rest_off;
  p->len = job->len - rs->rest_off;
  if ((r = ring_put_any(dev, n, p, need_ctx))) return r;
  nd->q_count++;
  /* It is on the ring: no longer preempted (rs is nd->pre[0]). */
  nd->pre_count--;
  memmove(nd->pre, nd->pre + 1, nd->pre_count * sizeof *nd->pre);
  if ((r = doorbell(dev, n))) return r;
  dev->stats.submissions++;
  if (need_ctx) dev->stats.context_switches++;
  return 1;
}

int sgpu__ring_try_submit(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job) {
  /* CONTEXT (4 words, when the context changes), INDIRECT (4), FENCE (3) */
  int need_ctx = need_context(&dev->node[n], job->ctx_id);
  uint32_t ring_bytes = ((need_ctx ? 4u : 0u) + 7u) * 4u;
  uint32_t stage_bytes = job->host_words && job->len ? job->len : 0;
  uint32_t stage_off = 0;
  int r = ring_room(dev, n, ring_bytes, stage_bytes, &stage_off);
  if (r <= 0) return r;
  r = ring_emit(dev, n, job, need_ctx, stage_bytes, stage_off);
  return r ? r : 1;
}

/* A TLB_INVALIDATE in ring n if the ring's current context is ctx_id (its
 * TLB may hold that context's translations); else nothing: the context's
 * next work on the ring comes after a CONTEXT, which forgets them too.
 * Without ring room the ring forgets which context it has, so that the
 * context's next submission carries a CONTEXT again. */
int sgpu__ring_invalidate(sgpu_device *dev, uint32_t n, uint32_t ctx_id) {
  sgpu_node *nd = &dev->node[n];
  if (!nd->ctx_known || nd->cur_ctx_id != ctx_id) return 0;
  int r = nd->faulted ? 0 : ring_free(dev, nd, n, 4);
  if (r < 0) return r;
  if (r == 0) {
    nd->ctx_known = 0;
    return 0;
  }
  uint32_t pkt = SGPU_PKT_HEADER(SGPU_OP_TLB_INVALIDATE, 0, 0);
  if ((r = ring_write(dev, n, &pkt, 1))) return r;
  return doorbell(dev, n);
}

/* ------------------------------------------------------------ program */
/* Reset node n and program its ring registers, RPTR write-back,
 * watchdog and time slice; the fence word is set to the last completed fence. */
static int program_hw(sgpu_device *dev, uint32_t n) {
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
  /* a normal ring's time slice survives its reset (CAPS.TIME_SLICE: the
   * node's two normal rings; 0 at open) */
  if (dev->rings > 2 * dev->nodes && nd->priority == SGPU_PRIORITY_NORMAL &&
      (r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_QUANTUM), dev->quantum[nd->node])))
    return r;
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE))) return r;
  nd->wptr = 0;
  nd->rptr_cache = 0;
  nd->ctx_known = 0;
  nd->faulted = 0;
  char what[32];
  snprintf(what, sizeof what, "programming node %u", n);
  return sgpu__check_cfg_error(dev, what);
}

int sgpu__program_node(sgpu_device *dev, uint32_t n) {
  int r = program_hw(dev, n);
  sgpu__ring_reset(&dev->node[n]);
  return r;
}

/* Ring bytes the queue takes when put on an empty ring in order. */
static uint32_t replay_bytes(const sgpu_device *dev, sgpu_node *nd) {
  uint32_t wptr = 0, total = 0, cur = 0;
  int known = 0;
  for (size_t i = 0; i < nd->q_count; i++) {
    const sgpu_pending *p = q_at(nd, i);
    int ctx = !p->dropped && (!known || cur != p->ctx_id);
    if (ctx) cur = p->ctx_id, known = 1;
    uint32_t b = ((ctx ? 4u : 0u) + (p->len && !p->dropped ? 4u : 0u) +
                  (p->pre_len && !p->dropped ? 4u : 0u) + 3u) * 4u;
    if (wptr + b > nd->ring_size) total += nd->ring_size - wptr, wptr = 0;
    total += b;
    wptr += b;
  }
  (void)dev;
  return total;
}

int sgpu__ring_restart(sgpu_device *dev, uint32_t n) {
  sgpu_node *nd = &dev->node[n];
  uint32_t need = replay_bytes(dev, nd);
  if (need > nd->ring_size - 4)
    return sgpu__fail(dev, SGPU_ERROR_BUSY,
                      "node %u's %zu queued submissions need %u ring bytes, the ring has %u", n,
                      nd->q_count, need, nd->ring_size - 4);
  int r = program_hw(dev, n);
  if (r) return r;
  for (size_t i = 0; i < nd->q_count && !r; i++) {
    const sgpu_pending *p = q_at(nd, i);
    /* A dropped submission leaves its FENCE alone, in the context in force. */
    r = ring_put_any(dev, n, p, !p->dropped && need_context(nd, p->ctx_id));
  }
  if (!r && nd->q_count) r = doorbell(dev, n);
  return r;
}

void sgpu__ring_free(sgpu_node *nd) {
  free(nd->q);
  nd->q = NULL;
  nd->q_head = nd->q_count = nd->q_cap = 0;
  free(nd->pre); /* preempted submissions (preempt.c) */
  nd->pre = NULL;
  nd->pre_count = nd->pre_cap = 0;
}

/* ------------------------------------------------------------ info */
int sgpu_get_ring_info(sgpu_device *dev, uint32_t node_ordinal, sgpu_ring_info *info) {
  if (!dev || !info) return SGPU_ERROR_INVALID_PARAM;
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  if (dev->remote) return sgpu__remote_get_ring_info(dev, node_ordinal, info);
  sgpu__lock(dev);
  sgpu_node *nd = &dev->node[node_ordinal];
  memset(info, 0, sizeof *info);
  info->base = nd->ring_base;
  info->size = nd->ring_size;
  info->wptr = nd->wptr;
  info->rptr_address = nd->rptr_addr;
  info->fence_address = nd->fence_addr;
  int r = sgpu__reg_read(dev, SGPU_NODE_REG(node_ordinal, SGPU_NREG_RING_RPTR), &info->rptr);
  if (!r) r = sgpu__reg_read(dev, SGPU_NODE_REG(node_ordinal, SGPU_NREG_STATUS), &info->status);
  sgpu__unlock(dev);
  return r;
}

/* ------------------------------------------------------------ a node's rings */
uint32_t sgpu__node_rings(const sgpu_device *dev, uint32_t n, uint32_t ring[SGPU__NODE_RINGS_MAX]) {
  uint32_t k = dev->rings / dev->nodes; /* ring blocks per node: block i x nodes + n */
  for (uint32_t i = 0; i < k; i++) ring[i] = i * dev->nodes + n;
  return k;
}

int sgpu__ring_idle(const sgpu_node *nd) { return nd->q_count == 0 && nd->pre_count == 0; }

uint64_t sgpu__node_completed(const sgpu_device *dev, uint32_t n) {
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, n, ring);
  /* just below the oldest unfinished submission of any ring (queued, or
   * preempted: those are older than what is queued behind them) */
  uint64_t done = dev->node[n].node_submitted64;
  for (uint32_t i = 0; i < k; i++) {
    const sgpu_node *nd = &dev->node[ring[i]];
    if (nd->q_count && nd->q[nd->q_head].fence64 - 1 < done) done = nd->q[nd->q_head].fence64 - 1;
    if (nd->pre_count && nd->pre[0].fence64 - 1 < done) done = nd->pre[0].fence64 - 1;
  }
  return done;
}
