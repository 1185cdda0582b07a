/* preempt.c — preemption (DxgkDdiPreemptCommand) and the resubmission that
 * resumes a preempted submission where it stopped.
 *
 * The hardware's part (CAPS.PREEMPTION): PREEMPT stops the node at its next
 * boundary (between packets, in any buffer, or inside a WAIT) and writes its
 * resume state to SAVE_ADDR, the preemption fence id last.  The library's:
 * it knows every submission not yet retired (ring.h's queue); the oldest is
 * the one the state belongs to (a ring runs in order), the others had not
 * started.  It resets the node, keeps them, oldest first, as preempted
 * (sgpu_node.pre), and raises DMA_PREEMPTED.  Each is then sent again with
 * flags.resubmission, in order; the running one resumes from its state:
 * level 1's rest of its buffer, and level 2's rest through a trampoline
 * (ring.c), so no packet before the stop runs again and none after is
 * skipped.  A board without preemption drains instead: ENABLE is cleared,
 * the running buffer finishes, and the stop is at the next ring packet. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "evq.h"
#include "packet_check.h"
#include "preempt.h"
#include "regs.h"
#include "ring.h"

static int status_pred(sgpu_device *dev, const void *v) {
  const uint32_t *a = v; /* {node, mask, want} */
  uint32_t st = 0;
  int r = sgpu__reg_read(dev, SGPU_NODE_REG(a[0], SGPU_NREG_STATUS), &st);
  if (r) return r;
  return (st & a[1]) == a[2];
}

/* Wait until node n's STATUS & mask == want, up to four watchdog periods
 * (`what` names the wait in the timeout's message); *latency: the cycles
 * it took. */
static int wait_status(sgpu_device *dev, uint32_t n, uint32_t mask, uint32_t want, const char *what,
                       uint64_t *latency) {
  uint64_t limit = (uint64_t)(dev->watchdog ? dev->watchdog : SGPU_DEFAULT_WATCHDOG) * 4;
  uint32_t arg[3] = {n, mask, want};
  uint64_t t0 = dev->tr->ops->now(dev->tr);
  int r = sgpu__wait_until(dev, limit, status_pred, arg, 0);
  *latency = dev->tr->ops->now(dev->tr) - t0;
  if (r == SGPU_ERROR_TIMEOUT)
    return sgpu__fail(dev, r, "node %u did not %s within %llu cycles", n, what, (unsigned long long)limit);
  return r;
}

/* Stop node n and fill save[] with its resume state; *latency: the cycles
 * from the request to the node stopped. */
static int stop_node(sgpu_device *dev, uint32_t n, uint32_t fence, uint32_t *save, uint64_t *latency) {
  sgpu_node *nd = &dev->node[n];
  int r;
  memset(save, 0, SGPU_SAVE_BYTES);
  if (SGPU_FIELD_GET(CAPS_PREEMPTION, dev->caps)) {
    uint32_t faulted[3] = {n, SGPU_STATUS_FAULTED, SGPU_STATUS_FAULTED};
    if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_SAVE_ADDR), nd->save_addr))) return r;
    if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_PREEMPT), fence))) return r;
    r = wait_status(dev, n, SGPU_STATUS_PREEMPTED | SGPU_STATUS_FAULTED, SGPU_STATUS_PREEMPTED,
                    "stop for preemption", latency);
    if (r) return r;
    if (status_pred(dev, faulted) == 1)
      return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED,
                        "node %u faulted before it could be preempted; call sgpu_reset_from_timeout", n);
    r = dev->tr->ops->mem_read(dev->tr, nd->save_addr, save, SGPU_SAVE_BYTES);
    if (r) return sgpu__fail(dev, r, "reading node %u's preemption save area failed", n);
    if (save[SGPU_SAVE_PREEMPT_FENCE] != fence)
      return sgpu__fail(dev, SGPU_ERROR_IO, "node %u's save area holds preemption fence %u, not %u", n,
                        save[SGPU_SAVE_PREEMPT_FENCE], fence);
    return 0;
  }
  /* No preemption in this build: drain to the end of the running buffer
   * (ENABLE cleared: no further ring packet is taken).  A buffer that does
   * not end leaves the node enabled again, its work where it was. */
  if ((r = sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), 0))) return r;
  if ((r = wait_status(dev, n, SGPU_STATUS_BUSY, 0, "drain its running buffer", latency))) {
    sgpu__reg_write(dev, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
    return r;
  }
  r = sgpu__reg_read(dev, SGPU_NODE_REG(n, SGPU_NREG_RING_RPTR), &save[SGPU_SAVE_RING_NEXT]);
  save[SGPU_SAVE_PREEMPT_FENCE] = fence;
  return r;
}

static int tramp_put(sgpu_device *dev, uint32_t n, sgpu_preempted *e, const uint32_t *w, uint32_t k) {
  if (e->tramp_words + k > SGPU__TRAMP_WORDS)
    return sgpu__fail(dev, SGPU_ERROR_IO, "node %u: resume trampoline would need %u words (%u kept)", n,
                      e->tramp_words + k, SGPU__TRAMP_WORDS);
  memcpy(e->tramp + e->tramp_words, w, k * 4);
  e->tramp_words += k;
  return 0;
}

/* A word of GPU memory, for a walk of the tables as the hardware walks
 * them (an unreadable one: 0, not present). */
static uint32_t device_word(void *dev_, uint64_t pa) {
  sgpu_device *dev = dev_;
  uint32_t w = 0;
  return dev->tr->ops->mem_read(dev->tr, (uint32_t)pa, &w, 4) ? 0 : w;
}

/* Read bytes at address `at` of the stopped submission's context: physical,
 * or (root: a VM context's page directory) virtual, translated through its
 * tables in GPU memory (they stay while its work is queued, even after the
 * context is destroyed). */
static int read_at(sgpu_device *dev, uint32_t root, uint32_t at, void *buf, uint32_t bytes) {
  if (!root) return dev->tr->ops->mem_read(dev->tr, at, buf, bytes);
  sgpu_pkt_vm vm;
  memset(&vm, 0, sizeof vm);
  vm.root = root;
  vm.mem_size = dev->mem_size;
  vm.read_word = device_word;
  vm.mem = dev;
  for (uint32_t done = 0, k; done < bytes; done += k) {
    uint32_t va = at + done;
    uint64_t pa = 0;
    k = SGPU_PAGE_BYTES - va % SGPU_PAGE_BYTES;
    if (k > bytes - done) k = bytes - done;
    if (sgpu__vm_translate(&vm, va, SGPU_HW_ACCESS_READ, &pa) != SGPU_FAULT_NONE) return SGPU_ERROR_IO;
    int r = dev->tr->ops->mem_read(dev->tr, (uint32_t)pa, (uint8_t *)buf + done, k);
    if (r) return r;
  }
  return 0;
}

/* The FILL or COPY at `at` (root: as read_at) was cut: the packets for what
 * it left (part of a row, then whole rows: save[RECT*]) go into the
 * trampoline, in that order; *size gets the cut packet's bytes (to step
 * past it). */
static int rect_rest(sgpu_device *dev, uint32_t n, uint32_t root, uint32_t at, const uint32_t *save,
                     sgpu_preempted *e, uint32_t *size) {
  uint32_t w[7];
  int r = read_at(dev, root, at, w, 4);
  uint32_t op = (w[0] & SGPU_PKT_OPCODE_MASK) >> SGPU_PKT_OPCODE_SHIFT;
  uint32_t words = op == SGPU_OP_FILL ? 6 : op == SGPU_OP_COPY ? 7 : 0;
  if (!r && !words)
    return sgpu__fail(dev, SGPU_ERROR_IO, "node %u: the packet cut at 0x%x is not a FILL or COPY (0x%08x)",
                      n, at, w[0]);
  if (!r) r = read_at(dev, root, at, w, words * 4);
  if (r) return sgpu__fail(dev, r, "reading node %u's cut packet at 0x%x failed", n, at);
  *size = words * 4;
  /* FILL: dst, pitch, width, height, pattern; COPY: dst, pitch, src, src pitch, width, height */
  int copy = op == SGPU_OP_COPY;
  uint32_t dpitch = w[2] & 0xFFFFu, spitch = copy ? w[4] & 0xFFFFu : 0;
  uint32_t wi = copy ? 5 : 3, hi = copy ? 6 : 4, width = w[wi], height = w[hi];
  uint32_t part = save[SGPU_SAVE_RECT_ROW] & 0x10000u, prow = save[SGPU_SAVE_RECT_ROW] & 0xFFFFu;
  uint32_t lo = save[SGPU_SAVE_RECT_PART] & 0xFFFFu, end = save[SGPU_SAVE_RECT_PART] >> 16;
  uint32_t first = save[SGPU_SAVE_RECT] & 0xFFFFu, count = save[SGPU_SAVE_RECT] >> 16;
  if ((part && (prow >= height || lo >= end || end > width)) || first + count > height || (!part && !count))
    return sgpu__fail(dev, SGPU_ERROR_IO,
                      "node %u: the cut %ux%u rectangle leaves part %u (row %u, bytes %u..%u) and rows %u+%u",
                      n, width, height, part != 0, prow, lo, end, first, count);
  uint32_t rest[7];
  if (part) { /* that row's bytes [lo, end) */
    memcpy(rest, w, sizeof rest);
    rest[1] = w[1] + prow * dpitch + lo;
    if (copy) rest[3] = w[3] + prow * spitch + lo;
    rest[wi] = end - lo;
    rest[hi] = 1;
    if ((r = tramp_put(dev, n, e, rest, words))) return r;
  }
  if (count) { /* then the whole rows */
    memcpy(rest, w, sizeof rest);
    rest[1] = w[1] + first * dpitch;
    if (copy) rest[3] = w[3] + first * spitch;
    rest[hi] = count;
    if ((r = tramp_put(dev, n, e, rest, words))) return r;
  }
  return 0;
}

/* Where the oldest pending submission p resumes, from the saved state, in
 * terms of the buffer it was submitted with (p may itself be a resumed
 * one: its rest starts p->rest_off bytes in, after its trampoline). */
static int resume_point(sgpu_device *dev, uint32_t n, const sgpu_pending *p, const uint32_t *save,
                        sgpu_preempted *e) {
  sgpu_node *nd = &dev->node[n];
  uint32_t level = save[SGPU_SAVE_LEVEL] & 3u;
  int cut = (save[SGPU_SAVE_LEVEL] & SGPU_SAVE_LEVEL_IN_RECT) != 0;
  uint32_t tramp_end = p->pre_addr + p->pre_len;
  int r;
  e->rest_off = p->rest_off;
  e->tramp_words = 0;
  if (level == 0) {
    /* Between ring packets: the INDIRECT of its trampoline or of its
     * buffer's rest, or its FENCE, is next (the library's ring holds no
     * other packet of it). */
    uint32_t at = nd->ring_base + (save[SGPU_SAVE_RING_NEXT] & (nd->ring_size - 1)), w[2] = {0, 0};
    if ((r = dev->tr->ops->mem_read(dev->tr, at, w, 8)))
      return sgpu__fail(dev, r, "reading node %u's ring failed", n);
    uint32_t op = (w[0] & SGPU_PKT_OPCODE_MASK) >> SGPU_PKT_OPCODE_SHIFT;
    if (cut) return sgpu__fail(dev, SGPU_ERROR_IO, "node %u stopped inside a ring packet", n);
    if (op == SGPU_OP_FENCE) e->rest_off = p->rest_off + p->len;
    else if (op == SGPU_OP_INDIRECT && p->pre_len && w[1] == p->pre_addr)
      return tramp_put(dev, n, e, p->tramp, p->pre_len / 4); /* nothing of it ran */
    return 0;
  }
  uint32_t next1 = save[SGPU_SAVE_IB1_NEXT], end1 = save[SGPU_SAVE_IB1_END];
  int in_tramp = p->pre_len && end1 == tramp_end && next1 >= p->pre_addr && next1 <= tramp_end;
  if (!in_tramp && !(next1 >= p->ib_addr && next1 - p->ib_addr <= p->len && end1 == p->ib_addr + p->len))
    return sgpu__fail(dev, SGPU_ERROR_IO, "node %u stopped at 0x%x, outside its running buffer 0x%x+%u",
                      n, next1, p->ib_addr, p->len);
  /* The packet to run next at the stop's level (a cut one: its rows left). */
  uint32_t at = level == 2 ? save[SGPU_SAVE_IB2_NEXT] : next1, size = 0;
  uint32_t root = p->win_size & SGPU__WIN_VM ? p->win_base : 0; /* a VM context: at is virtual */
  if (cut && (r = rect_rest(dev, n, root, at, save, e, &size))) return r;
  at += size;
  if (level == 2) {
    uint32_t end2 = save[SGPU_SAVE_IB2_END];
    if (at > end2)
      return sgpu__fail(dev, SGPU_ERROR_IO, "node %u's saved level-2 range 0x%x..0x%x is reversed", n, at,
                        end2);
    uint32_t ind[4] = {SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, 0), at, end2 - at, p->fence32};
    if (at < end2 && (r = tramp_put(dev, n, e, ind, 4))) return r;
    at = next1; /* level 1 goes on after the INDIRECT that entered level 2 */
  }
  if (in_tramp) return tramp_put(dev, n, e, p->tramp + (at - p->pre_addr) / 4, (tramp_end - at) / 4);
  e->rest_off = p->rest_off + (at - p->ib_addr);
  return 0;
}

/* Room for k more preempted entries in front of the node's list. */
static int pre_reserve(sgpu_device *dev, sgpu_node *nd, size_t k) {
  if (nd->pre_count + k <= nd->pre_cap) return 0;
  size_t cap = nd->pre_cap ? nd->pre_cap : 8;
  while (cap < nd->pre_count + k) cap *= 2;
  sgpu_preempted *np = realloc(nd->pre, cap * sizeof *np);
  if (!np) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for preempted submissions");
  nd->pre = np;
  nd->pre_cap = cap;
  return 0;
}

/* Ring block b is stopped, its state in save[]: every submission not
 * retired is preempted; the oldest resumes from the saved state, the others
 * from their start.  They go in front of those still waiting from an earlier
 * preemption (they were resubmitted first).  One an engine reset dropped (a
 * guilty context's) is not: it was never to run, and its fence passes once
 * nothing before it is left (sgpu__retire).  The ring is then reset;
 * *kept: how many were preempted. */
static int preempt_ring(sgpu_device *dev, uint32_t b, const uint32_t *save, size_t *kept) {
  sgpu_node *nd = &dev->node[b];
  int r;
  size_t k = 0;
  for (size_t i = 0; i < nd->q_count; i++) k += !sgpu__ring_at(nd, i)->dropped;
  if ((r = pre_reserve(dev, nd, k))) return r;
  if (k && nd->pre_count) memmove(nd->pre + k, nd->pre, nd->pre_count * sizeof *nd->pre);
  for (size_t i = 0, j = 0; i < nd->q_count; i++) {
    const sgpu_pending *p = sgpu__ring_at(nd, i);
    if (p->dropped) continue;
    sgpu_preempted *e = &nd->pre[j++];
    memset(e, 0, sizeof *e);
    e->fence64 = p->fence64;
    e->fence32 = p->fence32;
    e->owner = p->owner;
    e->len = p->rest_off + p->len; /* as it was submitted */
    e->skip = p->skip;
    e->ib_addr = p->staged ? 0 : p->ib_addr - p->rest_off;
    /* Not started: its trampoline, if any, still to run whole. */
    e->rest_off = p->rest_off;
    e->tramp_words = p->pre_len / 4;
    if (p->pre_len) memcpy(e->tramp, p->tramp, p->pre_len);
    if (i == 0 && !p->skip && (r = resume_point(dev, b, p, save, e))) {
      if (nd->pre_count) memmove(nd->pre, nd->pre + k, nd->pre_count * sizeof *nd->pre);
      return r;
    }
  }
  nd->pre_count += k;
  while (nd->q_count) sgpu__ring_pop(nd);
  if (!nd->pre_count) nd->completed64 = nd->submitted64; /* only dropped ones were left */
  if ((r = sgpu__program_node(dev, b))) return r;
  *kept = k;
  return sgpu__reg_write(dev, SGPU_REG_INT_STATUS,
                         SGPU_INT_DMA_COMPLETED(b) | SGPU_INT_DMA_FAULTED(b) | SGPU_INT_DMA_PREEMPTED(b));
}

int sgpu_preempt(sgpu_device *dev, uint32_t node_ordinal, uint32_t preemption_fence_id) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  SGPU__NOT_CARRIED(dev, "sgpu_preempt");
  if (node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", node_ordinal,
                      dev->nodes);
  sgpu__lock(dev);
  uint32_t n = node_ordinal;
  /* Every ring of the node: its high-priority ring (CAPS.PRIORITY) and its
   * second normal ring (CAPS.TIME_SLICE) too, unless idle (nothing queued
   * or preempted there): stopping one would only add round trips to the
   * node's stop.  The normal ring A is always stopped: its DMA_PREEMPTED is
   * the node's. */
  uint32_t all[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, n, all), ring[SGPU__NODE_RINGS_MAX];
  uint32_t rings = 0;
  for (uint32_t i = 0; i < k; i++)
    if (i == 0 || !sgpu__ring_idle(&dev->node[all[i]])) ring[rings++] = all[i];
  uint32_t save[SGPU__NODE_RINGS_MAX][SGPU_SAVE_BYTES / 4];
  uint64_t latency[SGPU__NODE_RINGS_MAX] = {0};
  size_t kept[SGPU__NODE_RINGS_MAX] = {0};
  int r = 0;
  if (dev->tr->ops->irq(dev->tr)) r = sgpu__service_irq(dev);
  for (uint32_t i = 0; i < rings && !r; i++)
    if (dev->node[ring[i]].faulted)
      r = sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED,
                     "node %u is stopped on a fault; call sgpu_reset_from_timeout first", n);
  /* The high ring first: it is the one running while it has work (the
   * normal ones hold behind it at a boundary); then the normal rings, the
   * second one before the first. */
  for (uint32_t i = 0; i < rings && !r; i++)
    if (dev->node[ring[i]].priority == SGPU_PRIORITY_HIGH)
      r = stop_node(dev, ring[i], preemption_fence_id, save[i], &latency[i]);
  for (uint32_t i = rings; i-- > 0 && !r;)
    if (dev->node[ring[i]].priority != SGPU_PRIORITY_HIGH)
      r = stop_node(dev, ring[i], preemption_fence_id, save[i], &latency[i]);
  for (uint32_t i = 0; i < rings && !r; i++) r = sgpu__retire(dev, ring[i]);
  for (uint32_t i = 0; i < rings && !r; i++) r = preempt_ring(dev, ring[i], save[i], &kept[i]);
  if (r) goto out;
  dev->stats.preempted++;
  uint64_t now = dev->tr->ops->now(dev->tr);
  /* One DMA_PREEMPTED for the node's normal ring, and one for each other
   * ring that had work: each with its ring's count and last fence. */
  uint64_t node_latency = 0; /* the node's: all its stops */
  for (uint32_t i = 0; i < rings; i++) node_latency += latency[i];
  for (uint32_t i = 0; i < rings; i++) {
    const sgpu_node *nd = &dev->node[ring[i]];
    if (i && !kept[i]) continue;
    uint64_t cycles = i ? latency[i] : node_latency;
    sgpu_event ev = sgpu__event_of(SGPU_EVENT_DMA_PREEMPTED, nd, now, NULL);
    ev.fence_id = preemption_fence_id;
    ev.fence_id64 = preemption_fence_id;
    ev.last_completed_fence_id = (uint32_t)nd->completed64;
    ev.preempted_count = (uint32_t)kept[i];
    ev.latency_cycles = cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles;
    sgpu__push_event(dev, &ev);
  }
out:
  sgpu__unlock(dev);
  return r;
}

int sgpu__preempted_match(sgpu_device *dev, uint32_t n, const sgpu_submit_command_args *a,
                          uint32_t owner, const sgpu_preempted **out) {
  sgpu_node *nd = &dev->node[n];
  if (!nd->pre_count)
    return sgpu__fail(dev, SGPU_ERROR_NOT_PREEMPTED,
                      "flags.resubmission with fence %u: node %u has no preempted submission%s",
                      a->submission_fence_id, nd->node,
                      sgpu__ring_name_suffix(dev, n));
  const sgpu_preempted *e = &nd->pre[0];
  uint32_t len = a->dma_buffer_submission_end_offset - a->dma_buffer_submission_start_offset;
  /* a VM context's buffer is named by its virtual address */
  uint64_t base = a->context && (a->context->off_path & SGPU__CTX_VM) ? a->dma_buffer_virtual_address
                                                                      : a->dma_buffer_physical_address;
  uint32_t addr = (uint32_t)base + a->dma_buffer_submission_start_offset;
  const char *what = a->submission_fence_id != e->fence32 ? "fence id"
                     : len != e->len                     ? "length"
                     : owner != e->owner                 ? "context"
                     : e->ib_addr && addr != e->ib_addr  ? "buffer address"
                                                         : NULL;
  if (what)
    return sgpu__fail(dev, SGPU_ERROR_NOT_PREEMPTED,
                      "resubmission (fence %u, %u bytes) does not match node %u's next preempted "
                      "submission (fence %u, %u bytes): its %s differs",
                      a->submission_fence_id, len, nd->node, e->fence32, e->len, what);
  *out = e;
  return 0;
}
