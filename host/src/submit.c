/* submit.c — the packet walker, sgpu_submit_command (waiting for ring
 * room here, above the ring and the interrupt service) and
 * sgpu_validate_submit_command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "alloc.h"
#include "events.h"
#include "packet_check.h"
#include "preempt.h"
#include "ring.h"
#include "shadow.h"
#include "vm.h"

/* The walk of one submission's (or validation's) packets. */
typedef struct sgpu_walk {
  sgpu_device *dev;
  int windowed;         /* a non-null context: its window applies */
  uint64_t win_base, win_end;
  int flip_mode;        /* 0 no FLIP allowed, 1 Flip, 2 FlipWithNoWait, 3 anything */
  uint32_t source, interval;
  uint32_t flips;
  const sgpu_context *ctx; /* its access check (access.h), when it has one */
  sgpu_pkt_vm *vm;      /* a VM context's tables: page checks, nested buffers read through them */
} sgpu_walk;

/* ------------------------------------------------------------ packet walk */
/* Walk a buffer's packets as the hardware will: the shared packet checker
 * decides whether and why each would fault; on top of that the library
 * holds FLIP packets to the submission's flip flags. */
#define WFAIL(code, ...)                                                                   \
  do {                                                                                    \
    char d_[320];                                                                         \
    snprintf(d_, sizeof d_, __VA_ARGS__);                                                 \
    return sgpu__fail(w->dev, code, "%s 0x%llx: %s", what,                                \
                      (unsigned long long)(report_base + 4ull * i), d_);                 \
  } while (0)

static int check_flip(const sgpu_walk *w, const uint32_t *pkt, uint32_t i, uint64_t report_base,
                      const char *what) {
  uint32_t source = pkt[1], interval = pkt[3];
  int nowait = (SGPU_PKT_GET(FLAGS, pkt[0]) & SGPU_FLIP_FLAG_NO_WAIT) != 0;
  if (w->flip_mode == 0)
    WFAIL(SGPU_ERROR_SUBMIT_UNEXPECTED_FLIP, "FLIP in a submission without Flip/FlipWithNoWait");
  if (w->flip_mode == 1 && (source != w->source || interval != w->interval || nowait))
    WFAIL(SGPU_ERROR_SUBMIT_FLIP_MISMATCH,
          "FLIP source %u interval %u%s, submission says source %u interval %u (Flip)", source,
          interval, nowait ? " no-wait" : "", w->source, w->interval);
  if (w->flip_mode == 2 && (source != w->source || !nowait))
    WFAIL(SGPU_ERROR_SUBMIT_FLIP_MISMATCH, "FLIP source %u%s, submission says source %u with FlipWithNoWait",
          source, nowait ? " no-wait" : " (waiting)", w->source);
  return 0;
}

/* The memory ranges a packet that passed its checks reads or writes, to the
 * context's access check. */
static int check_access(const sgpu_walk *w, const uint32_t *pkt, uint32_t i, uint64_t report_base,
                        const char *what) {
  uint32_t op = SGPU_PKT_GET(OPCODE, pkt[0]), cnt = SGPU_PKT_GET(COUNT, pkt[0]);
  uint64_t ra[2] = {0, 0}, rs[2] = {0, 0};
  int rw[2] = {0, 0}, n = 0;
  switch (op) {
  case SGPU_OP_INDIRECT:
    if (!(SGPU_PKT_GET(FLAGS, pkt[0]) & SGPU_INDIRECT_FLAG_SKIP) && pkt[2])
      ra[n] = pkt[1], rs[n] = pkt[2], rw[n++] = 0;
    break;
  case SGPU_OP_FENCE: ra[n] = pkt[1], rs[n] = 4, rw[n++] = 1; break;
  case SGPU_OP_WRITE_DATA: ra[n] = pkt[1], rs[n] = 4ull * (cnt - 1), rw[n++] = 1; break;
  case SGPU_OP_WAIT_MEM: ra[n] = pkt[1], rs[n] = 4, rw[n++] = 0; break;
  case SGPU_OP_TIMESTAMP: ra[n] = pkt[1], rs[n] = 8, rw[n++] = 1; break;
  case SGPU_OP_FLIP: ra[n] = pkt[2], rs[n] = 4, rw[n++] = 0; break; /* the scanout reads it */
  case SGPU_OP_FILL:
    if (pkt[3] && pkt[4]) ra[n] = pkt[1], rs[n] = (uint64_t)pkt[2] * (pkt[4] - 1) + pkt[3], rw[n++] = 1;
    break;
  case SGPU_OP_COPY:
    if (pkt[5] && pkt[6]) {
      ra[n] = pkt[1], rs[n] = (uint64_t)pkt[2] * (pkt[6] - 1) + pkt[5], rw[n++] = 1;
      ra[n] = pkt[3], rs[n] = (uint64_t)pkt[4] * (pkt[6] - 1) + pkt[5], rw[n++] = 0;
    }
    break;
  default:
    break;
  }
  for (int k = 0; k < n; k++) {
    char why[256] = "";
    if (w->ctx->access(w->ctx->access_user, ra[k], rs[k], rw[k], why, sizeof why))
      WFAIL(SGPU_ERROR_NOT_OWNER, "%s", why);
  }
  return 0;
}

/* The same packets again (they passed the walk), each range they reach to
 * the context's access check; nested buffers too.  Apart from the walk, so
 * that a context without a check pays nothing per packet. */
__attribute__((noinline, cold)) static int access_walk(sgpu_walk *w, const uint32_t *words,
                                                       uint32_t nwords, uint64_t report_base,
                                                       const char *what) {
  uint32_t i = 0;
  while (i < nwords) {
    const uint32_t *pkt = &words[i];
    int r = check_access(w, pkt, i, report_base, what);
    if (r) return r;
    uint32_t op = SGPU_PKT_GET(OPCODE, pkt[0]), cnt = SGPU_PKT_GET(COUNT, pkt[0]);
    if (op == SGPU_OP_INDIRECT && !(SGPU_PKT_GET(FLAGS, pkt[0]) & SGPU_INDIRECT_FLAG_SKIP) && pkt[2]) {
      const uint32_t *nb;
      r = sgpu__shadow_view(w->dev, pkt[1], pkt[2], &nb);
      if (r == 0) r = access_walk(w, nb, pkt[2] / 4, pkt[1], "nested IB packet at address");
      else r = sgpu__fail(w->dev, r, "reading nested buffer 0x%x+%u failed", pkt[1], pkt[2]);
      if (r) return r;
    }
    i += 1 + cnt;
  }
  return 0;
}

static int walk(sgpu_walk *w, const uint32_t *words, uint32_t nwords, uint64_t report_base,
                const char *what, uint32_t level);

/* A nested buffer of a VM context: its virtual pages (the checker found
 * them mapped) gathered, then walked; the report names virtual addresses. */
__attribute__((noinline, cold)) static int walk_nested_vm(sgpu_walk *w, uint32_t addr, uint32_t len,
                                                         uint32_t level) {
  uint32_t *nb = NULL;
  int r = sgpu__vm_fetch(w->dev, w->ctx, addr, len, "nested buffer", &nb);
  if (r == 0) r = walk(w, nb, len / 4, addr, "nested IB packet at virtual address", level + 1);
  free(nb);
  return r;
}

static int walk(sgpu_walk *w, const uint32_t *words, uint32_t nwords, uint64_t report_base,
                const char *what, uint32_t level) {
  /* CAPS.IB_DEPTH: a build may nest fewer INDIRECT levels than the
   * interface's MAX_IB_DEPTH (0, from a build before the field: all of them) */
  sgpu_pkt_env env = {w->dev->mem_size, w->dev->sources, level, w->windowed, w->win_base, w->win_end,
                      SGPU_FIELD_GET(CAPS_IB_DEPTH, w->dev->caps), w->vm};
  uint32_t i = 0;
  while (i < nwords) {
    const uint32_t *pkt = &words[i];
    char why[256];
    uint32_t fault = sgpu__check_packet(&env, pkt, nwords - i, why, sizeof why);
    if (fault != SGPU_FAULT_NONE) WFAIL(sgpu__error_of_fault(fault), "%s", why);
    uint32_t op = SGPU_PKT_GET(OPCODE, pkt[0]), cnt = SGPU_PKT_GET(COUNT, pkt[0]);
    if (op == SGPU_OP_FLIP) {
      int r = check_flip(w, pkt, i, report_base, what);
      if (r) return r;
      w->flips++;
    }
    if (op == SGPU_OP_INDIRECT && !(SGPU_PKT_GET(FLAGS, pkt[0]) & SGPU_INDIRECT_FLAG_SKIP) && pkt[2]) {
      uint32_t addr = pkt[1], len = pkt[2];
      const uint32_t *nb;
      /* a buffer the context may not read is not walked (its words would
       * show in the error text) */
      if (w->ctx && w->ctx->access) {
        int r = check_access(w, pkt, i, report_base, what);
        if (r) return r;
      }
      if (__builtin_expect(w->vm != NULL, 0)) {
        int r = walk_nested_vm(w, addr, len, level);
        if (r) return r;
        i += 1 + cnt;
        continue;
      }
      int r = sgpu__shadow_view(w->dev, addr, len, &nb);
      if (r == 0) r = walk(w, nb, len / 4, addr, "nested IB packet at address", level + 1);
      else r = sgpu__fail(w->dev, r, "reading nested buffer 0x%x+%u failed", addr, len);
      if (r) return r;
    }
    i += 1 + cnt;
  }
  return 0;
}

/* ------------------------------------------------------------ ring room */
typedef struct ring_arg {
  uint32_t n;
  const sgpu_ring_job *job;
  const sgpu_preempted *resume;
} ring_arg;

static int try_ring(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job, const sgpu_preempted *resume) {
  return __builtin_expect(resume != NULL, 0) ? sgpu__ring_try_resume(dev, n, job, resume)
                                             : sgpu__ring_try_submit(dev, n, job);
}

static int onto_ring(sgpu_device *dev, const void *v) {
  const ring_arg *a = v;
  return try_ring(dev, a->n, a->job, a->resume);
}

/* Onto node n's ring: at once when it has room, else waiting for room with
 * the lock held (nothing else may take it meanwhile).  Inlined: a call
 * more is measurable on the submission path (test_submit_cost.sh).  A resumed one
 * (resume: a preempted submission sent again) leaves the node's preempted
 * list once it is on the ring. */
__attribute__((always_inline)) static inline int ring_submit(sgpu_device *dev, uint32_t n,
                                                            const sgpu_ring_job *job,
                                                            const sgpu_preempted *resume) {
  int r = try_ring(dev, n, job, resume);
  if (r != 0) return r < 0 ? r : 0;
  dev->stats.ring_waits++;
  ring_arg a = {n, job, resume};
  uint64_t limit = (uint64_t)(dev->watchdog ? dev->watchdog : SGPU_DEFAULT_WATCHDOG) * 4;
  r = sgpu__wait_until(dev, limit, onto_ring, &a, 0);
  if (r == SGPU_ERROR_TIMEOUT)
    return sgpu__fail(dev, r, "node %u: no ring/staging room after %llu cycles", dev->node[n].node,
                      (unsigned long long)limit);
  return r;
}

/* ------------------------------------------------------------ submit */
/* Preempted work goes back first, in order (preempt.c): a resubmission
 * must match the node's next preempted submission, and nothing else is
 * taken before. */
__attribute__((noinline, cold)) static int check_resubmission(sgpu_device *dev,
                                                            const sgpu_submit_command_args *a,
                                                            const sgpu_context *c,
                                                            const sgpu_preempted **resume) {
  uint32_t ring = c ? c->ring : a->node_ordinal;
  sgpu_node *nd = &dev->node[ring];
  if (!a->flags.resubmission)
    return sgpu__fail(dev, SGPU_ERROR_PREEMPTED,
                      "node %u holds %zu preempted submissions%s: send them again first, with "
                      "flags.resubmission (next: fence %u)",
                      a->node_ordinal, nd->pre_count,
                      sgpu__ring_name_suffix(dev, ring),
                      nd->pre[0].fence32);
  return sgpu__preempted_match(dev, ring, a, c ? c->id : 0, resume);
}

/* The display fields' rules (vidpn_source_id, flip_interval), in order. */
__attribute__((noinline)) static int check_display_fields(sgpu_device *dev,
                                                        const sgpu_submit_command_args *a, int isflip) {
  if (a->vidpn_source_id && !isflip)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_SOURCE_WITHOUT_FLIP,
                      "vidpn_source_id %u without Flip/FlipWithNoWait", a->vidpn_source_id);
  if (isflip && a->vidpn_source_id >= dev->sources)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_SOURCE_RANGE, "vidpn_source_id %u, the chip has %u sources",
                      a->vidpn_source_id, dev->sources);
  if (a->flip_interval > SGPU_FLIP_INTERVAL_IMMEDIATE_ALLOW_TEARING)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_INTERVAL_RANGE, "flip_interval %u is not 0..5",
                      a->flip_interval);
  if (a->flip_interval && !a->flags.flip)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_INTERVAL_WITHOUT_FLIP, "flip_interval %u without Flip",
                      a->flip_interval);
  return 0;
}

/* check_fields_of's answer for a VM context on the fast path: submit_vm
 * takes the submission (positive: never an error code). */
#define SUBMIT_VM_PATH 1

/* Field checks of sgpu_submit_command_args, one code per rule, first broken
 * wins.  vm (a constant): the checks of a VM context's submission, where
 * dma_buffer_virtual_address names the buffer (submit_vm); 0: a VM context
 * answers SUBMIT_VM_PATH, from the one test that also catches a banned
 * context, so that the physical path pays nothing for VM. */
__attribute__((always_inline)) static inline int check_fields_of(sgpu_device *dev,
                                                                const sgpu_submit_command_args *a,
                                                                sgpu_context **ctxp,
                                                                const sgpu_preempted **resume,
                                                                const int vm) {
  sgpu_submit_flags f = a->flags;
  if (f.value & SGPU_SUBMIT_RESERVED_MASK)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_RESERVED_FLAGS, "flags 0x%x: reserved bits 0x%x set",
                      f.value, f.value & SGPU_SUBMIT_RESERVED_MASK);
  /* Flip and FlipWithNoWait together, or either with ContextSwitch (a mask
   * test first: neither set is the usual case). */
  const uint32_t flips = SGPU_SUBMIT_FLIP | SGPU_SUBMIT_FLIP_WITH_NO_WAIT;
  if ((f.value & flips) && ((f.value & flips) == flips || (f.value & SGPU_SUBMIT_CONTEXT_SWITCH)))
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_FLAG_CONFLICT, "flags 0x%x: %s", f.value,
                      f.context_switch ? "ContextSwitch cannot carry a flip"
                                       : "Flip and FlipWithNoWait are exclusive");
  sgpu_context *c = a->context;
  if (!c && !f.paging)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_NULL_CONTEXT, "context is NULL and flags 0x%x lack Paging",
                      f.value);
  if (c && c->magic != SGPU_CONTEXT_MAGIC)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_CONTEXT, "context handle %p is not a live context",
                      (void *)c);
  if (c && c->dev != dev)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_CONTEXT_DEVICE, "context %u belongs to another device",
                      c->id);
  if (c && c->off_path) {
    if (c->banned)
      return sgpu__fail(dev, SGPU_ERROR_CONTEXT_BANNED,
                        "context %u is banned: it was found guilty of %u engine resets", c->id, c->guilty);
    if (!vm) return SUBMIT_VM_PATH;
  }
  if (__builtin_expect((a->engine_ordinal | (vm ? 0 : a->dma_buffer_virtual_address)) != 0, 0)) {
    if (a->engine_ordinal)
      return sgpu__fail(dev, SGPU_ERROR_SUBMIT_ENGINE_ORDINAL, "engine_ordinal is %u, must be 0",
                        a->engine_ordinal);
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_VIRTUAL_ADDRESS,
                      "dma_buffer_virtual_address is 0x%llx, must be 0",
                      (unsigned long long)a->dma_buffer_virtual_address);
  }
  if (a->node_ordinal >= dev->nodes)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_NODE_RANGE, "node_ordinal %u, the chip has %u nodes",
                      a->node_ordinal, dev->nodes);
  if (c && c->node != a->node_ordinal)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_NODE_MISMATCH,
                      "node_ordinal %u, but context %u was created on node %u", a->node_ordinal,
                      c->id, c->node);
  uint32_t s = a->dma_buffer_segment_id;
  uint32_t so = a->dma_buffer_submission_start_offset, eo = a->dma_buffer_submission_end_offset;
  uint64_t pa = a->dma_buffer_physical_address, size = a->dma_buffer_size;
  if (vm) {
    /* the buffer is the context's (virtual): no segment, no physical address */
    if ((a->dma_buffer_virtual_address | so | eo) & 3)
      return sgpu__fail(dev, SGPU_ERROR_SUBMIT_OFFSET_ALIGN,
                        "buffer at virtual address 0x%llx start offset %u end offset %u: not all "
                        "4-byte aligned",
                        (unsigned long long)a->dma_buffer_virtual_address, so, eo);
  } else if (s >= SGPU_SEGMENT_COUNT)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_SEGMENT_ID, "dma_buffer_segment_id %u is not 0, 1 or 2",
                      s);
  else if (s == SGPU_SEGMENT_SYSTEM ? !sgpu__host_block(dev, pa, size)
                                    : (pa < dev->seg[s].base || size > dev->seg[s].size ||
                                       pa - dev->seg[s].base > dev->seg[s].size - size))
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_BUFFER_ADDRESS,
                      "DMA buffer 0x%llx+%u is not inside %s %u", (unsigned long long)pa,
                      a->dma_buffer_size, s ? "segment" : "a host allocation of segment", s);
  else if ((pa | so | eo) & 3)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_OFFSET_ALIGN,
                      "buffer 0x%llx start offset %u end offset %u: not all 4-byte aligned",
                      (unsigned long long)pa, so, eo);
  if (so > eo)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_OFFSET_ORDER, "start offset %u > end offset %u", so, eo);
  if (eo > size)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_OFFSET_RANGE, "end offset %u beyond dma_buffer_size %u",
                      eo, a->dma_buffer_size);
  if (f.context_switch && so != eo)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_CONTEXT_SWITCH_LENGTH,
                      "ContextSwitch with a %u-byte range (must be empty)", eo - so);
  uint32_t ps = a->dma_buffer_private_data_submission_start_offset;
  uint32_t pe = a->dma_buffer_private_data_submission_end_offset;
  if (ps && !f.paging)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_PRIVATE_DATA_START,
                      "private data start offset %u without Paging (must be 0)", ps);
  if ((!a->dma_buffer_private_data && a->dma_buffer_private_data_size) || ps > pe ||
      pe > a->dma_buffer_private_data_size)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_PRIVATE_DATA_RANGE,
                      "private data slice [%u, %u) of a %u-byte buffer at %p", ps, pe,
                      a->dma_buffer_private_data_size, a->dma_buffer_private_data);
  int isflip = f.flip || f.flip_with_no_wait;
  /* The display rules pass when none of these is set: one test for them. */
  if (__builtin_expect((a->vidpn_source_id | a->flip_interval | (uint32_t)isflip) != 0, 0)) {
    int r = check_display_fields(dev, a, isflip);
    if (r) return r;
  }
  /* The context's ring (its priority's); the fence order is the node's. */
  sgpu_node *nd = &dev->node[c ? c->ring : a->node_ordinal];
  if (__builtin_expect(((f.value & SGPU_SUBMIT_RESUBMISSION) | nd->pre_count) != 0, 0)) {
    int r = check_resubmission(dev, a, c, resume);
    if (r) return r;
  } else if ((int32_t)(a->submission_fence_id - (uint32_t)*nd->fence_seq) <= 0)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_FENCE_ORDER,
                      "submission_fence_id %u does not advance past %u on node %u",
                      a->submission_fence_id, (uint32_t)*nd->fence_seq, a->node_ordinal);
  *ctxp = c;
  return 0;
}

static int check_fields(sgpu_device *dev, const sgpu_submit_command_args *a, sgpu_context **ctxp,
                        const sgpu_preempted **resume) {
  return check_fields_of(dev, a, ctxp, resume, 0);
}

/* What a ring job takes from the submission alike on the physical and the
 * VM path: its length, NullRendering, fence id, flags and private data.
 * Inlined: it is on the submission's budgeted path. */
static inline __attribute__((always_inline)) void job_from_args(sgpu_ring_job *job,
                                                               const sgpu_submit_command_args *a,
                                                               sgpu_submit_flags f, uint32_t len) {
  job->len = len;
  job->skip = f.null_rendering;
  job->fence = a->submission_fence_id;
  job->flags = f.value;
  job->priv = a->dma_buffer_private_data
                  ? (uint8_t *)a->dma_buffer_private_data + a->dma_buffer_private_data_submission_start_offset
                  : NULL;
  job->priv_size = a->dma_buffer_private_data_submission_end_offset -
                   a->dma_buffer_private_data_submission_start_offset;
}

static void count_flags(sgpu_device *dev, sgpu_submit_flags f) {
  dev->stats.paging += f.paging;
  dev->stats.present += f.present;
  dev->stats.redirected_present += f.redirected_present;
  dev->stats.null_rendering += f.null_rendering;
  dev->stats.flip += f.flip;
  dev->stats.flip_with_no_wait += f.flip_with_no_wait;
  dev->stats.context_switch += f.context_switch;
  dev->stats.resubmission += f.resubmission;
  dev->stats.virtual_machine_data += f.virtual_machine_data;
}

/* A VM context's submission (the lock held): the buffer is fetched through
 * the context's tables from dma_buffer_virtual_address, its packets are
 * page-checked, and the ring gets CONTEXT(VM) and INDIRECT(va); nothing is
 * staged. */
__attribute__((noinline, cold)) static int submit_vm(sgpu_device *dev, const sgpu_submit_command_args *a) {
  sgpu_context *c = NULL;
  const sgpu_preempted *resume = NULL;
  int r = check_fields_of(dev, a, &c, &resume, 1);
  if (r) return r;
  sgpu_node *nd = &dev->node[c->ring];
  sgpu_submit_flags f = a->flags;
  if (dev->tr->ops->irq(dev->tr)) sgpu__service_irq(dev);
  if (nd->faulted)
    return sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED,
                      "node %u is stopped on a fault; call sgpu_reset_from_timeout first", nd->node);
  uint32_t so = a->dma_buffer_submission_start_offset;
  uint32_t len = a->dma_buffer_submission_end_offset - so;
  uint64_t va = a->dma_buffer_virtual_address + so;
  uint32_t *words = NULL;
  if (len && (r = sgpu__vm_fetch(dev, c, va, len, "DMA buffer at virtual address", &words))) return r;
  sgpu_pkt_vm vm;
  sgpu__vm_env(c, &vm);
  sgpu_walk w;
  memset(&w, 0, sizeof w);
  w.dev = dev;
  w.flip_mode = f.flip ? 1 : f.flip_with_no_wait ? 2 : 0;
  w.source = a->vidpn_source_id;
  w.interval = a->flip_interval;
  w.ctx = c;
  w.vm = f.context_switch ? NULL : &vm;
  w.windowed = 0;
  w.win_end = dev->mem_size;
  r = walk(&w, words, len / 4, so, "DMA buffer packet at offset", 1);
  if (!r && w.flip_mode && !w.flips)
    r = sgpu__fail(dev, SGPU_ERROR_SUBMIT_FLIP_MISSING,
                   "%s submission: no FLIP packet in buffer range [%u, %u)",
                   f.flip ? "Flip" : "FlipWithNoWait", so, a->dma_buffer_submission_end_offset);
  free(words);
  if (r) return r;
  sgpu_ring_job job;
  memset(&job, 0, sizeof job);
  job.owner = c->id;
  job.ctx_id = f.context_switch ? 0 : c->id;
  job.win_base = sgpu__vm_root(c);
  job.win_size = SGPU_PAGE_BYTES | SGPU__WIN_VM;
  job.host_words = NULL;
  job.ib_addr = (uint32_t)va;
  job_from_args(&job, a, f, len);
  /* a resumed one's trampoline runs from the context's own trampoline page */
  if (resume && resume->tramp_words &&
      (r = sgpu__vm_tramp(dev, c, resume->tramp, resume->tramp_words * 4, &job.tramp_va)))
    return r;
  if ((r = ring_submit(dev, c->ring, &job, resume))) return r;
  count_flags(dev, f);
  return 0;
}

int sgpu_submit_command(sgpu_device *dev, const sgpu_submit_command_args *a) {
  if (!dev || !a) return SGPU_ERROR_INVALID_PARAM;
  if (__builtin_expect(dev->remote != NULL, 0)) return sgpu__remote_submit(dev, a);
  sgpu__lock(dev);
  sgpu_context *c = NULL;
  const sgpu_preempted *resume = NULL;
  int r = check_fields(dev, a, &c, &resume);
  if (r) {
    if (r == SUBMIT_VM_PATH) r = submit_vm(dev, a);
    goto out;
  }
  uint32_t n = c ? c->ring : a->node_ordinal; /* the ring block (sgpu_set_context_priority) */
  sgpu_node *nd = &dev->node[n];
  sgpu_submit_flags f = a->flags;

  /* Pick up a fault the hardware already reported. */
  if (dev->tr->ops->irq(dev->tr)) sgpu__service_irq(dev);
  if (nd->faulted) {
    r = sgpu__fail(dev, SGPU_ERROR_NODE_FAULTED,
                   "node %u is stopped on a fault; call sgpu_reset_from_timeout first", nd->node);
    goto out;
  }

  uint32_t so = a->dma_buffer_submission_start_offset;
  uint32_t len = a->dma_buffer_submission_end_offset - so;
  uint32_t nwords = len / 4;
  const uint32_t *src = NULL;
  sgpu_block *hb = NULL;
  if (a->dma_buffer_segment_id == SGPU_SEGMENT_SYSTEM) {
    hb = sgpu__host_block(dev, a->dma_buffer_physical_address, a->dma_buffer_size);
    src = (const uint32_t *)(hb->host + (a->dma_buffer_physical_address - hb->addr) + so);
    if (len > nd->stage_size) {
      r = sgpu__fail(dev, SGPU_ERROR_SUBMIT_TOO_LARGE,
                     "segment-0 range of %u bytes exceeds node %u's staging area of %u bytes", len,
                     nd->node, nd->stage_size);
      goto out;
    }
  } else {
    if (len && (r = sgpu__shadow_view(dev, (uint32_t)a->dma_buffer_physical_address + so, len, &src))) {
      r = sgpu__fail(dev, r, "reading the DMA buffer from GPU memory failed");
      goto out;
    }
  }

  /* Walk the packets exactly as the hardware will check them. */
  sgpu_walk w;
  w.dev = dev;
  w.windowed = c && !f.context_switch;
  w.win_base = c ? c->win_base : 0;
  w.win_end = c ? (uint64_t)c->win_base + c->win_size : dev->mem_size;
  w.flip_mode = f.flip ? 1 : f.flip_with_no_wait ? 2 : 0;
  w.source = a->vidpn_source_id;
  w.interval = a->flip_interval;
  w.flips = 0;
  w.ctx = c;
  w.vm = NULL;
  if ((r = walk(&w, src, nwords, so, "DMA buffer packet at offset", 1))) goto out;
  if (__builtin_expect(c && c->access, 0) && /* sgpud: only the program's own memory */
      (r = access_walk(&w, src, nwords, so, "DMA buffer packet at offset")))
    goto out;
  if (w.flip_mode && !w.flips) {
    r = sgpu__fail(dev, SGPU_ERROR_SUBMIT_FLIP_MISSING,
                   "%s submission: no FLIP packet in buffer range [%u, %u)",
                   f.flip ? "Flip" : "FlipWithNoWait", so, a->dma_buffer_submission_end_offset);
    goto out;
  }

  /* Onto the ring: staging, CONTEXT/INDIRECT/FENCE packets, the doorbell. */
  sgpu_ring_job job;
  job.owner = c ? c->id : 0;
  job.ctx_id = c && !f.context_switch ? c->id : 0;
  job.win_base = c ? c->win_base : 0;
  job.win_size = c ? c->win_size : 0;
  job.host_words = hb ? src : NULL;
  job.ib_addr = (uint32_t)a->dma_buffer_physical_address + so;
  job.tramp_va = 0;
  job_from_args(&job, a, f, len);
  if ((r = ring_submit(dev, n, &job, resume))) goto out;

  if (f.value & 0x1FFu) count_flags(dev, f);
  r = 0;
out:
  sgpu__unlock(dev);
  return r;
}

/* ------------------------------------------------------------ validate */
/* A VM context's validation: the buffer read through its tables, its
 * packets page-checked as the hardware will. */
static int validate_vm(sgpu_device *dev, const sgpu_validate_submit_command_args *a,
                       const sgpu_context *c) {
  uint32_t *words = NULL;
  int r = 0;
  if (a->command_length &&
      (r = sgpu__vm_fetch(dev, c, a->commands, a->command_length, "command buffer at virtual address",
                          &words)))
    return r;
  sgpu_pkt_vm vm;
  sgpu__vm_env(c, &vm);
  sgpu_walk w;
  memset(&w, 0, sizeof w);
  w.dev = dev;
  w.win_end = dev->mem_size;
  w.flip_mode = 3;
  w.ctx = c;
  w.vm = &vm;
  r = walk(&w, words, a->command_length / 4, a->commands, "command buffer packet at virtual address", 1);
  free(words);
  return r;
}

int sgpu_validate_submit_command(sgpu_device *dev, const sgpu_validate_submit_command_args *a) {
  if (!dev || !a) return SGPU_ERROR_INVALID_PARAM;
  if (a->flags.value & ~1u)
    return sgpu__fail(dev, SGPU_ERROR_VALIDATE_RESERVED_FLAGS, "flags 0x%x: reserved bits 0x%x set",
                      a->flags.value, a->flags.value & ~1u);
  if (a->context_count == 0 || a->context_count > SGPU_MAX_BROADCAST_CONTEXT)
    return sgpu__fail(dev, SGPU_ERROR_VALIDATE_CONTEXT_COUNT, "context_count %u is not 1..%u",
                      a->context_count, SGPU_MAX_BROADCAST_CONTEXT);
  for (uint32_t i = 0; i < a->context_count; i++) {
    const sgpu_context *c = a->context[i];
    if (!c || c->magic != SGPU_CONTEXT_MAGIC || c->dev != dev)
      return sgpu__fail(dev, SGPU_ERROR_VALIDATE_CONTEXT_HANDLE,
                        "context[%u] is %s", i, !c ? "NULL" : "not a live context of this device");
  }
  if (!a->private_driver_data && a->private_driver_data_size)
    return sgpu__fail(dev, SGPU_ERROR_VALIDATE_PRIVATE_DATA,
                      "private_driver_data is NULL with private_driver_data_size %u",
                      a->private_driver_data_size);
  if (a->umd_private_data_size > a->private_driver_data_size)
    return sgpu__fail(dev, SGPU_ERROR_VALIDATE_UMD_PRIVATE_SIZE,
                      "umd_private_data_size %u > private_driver_data_size %u",
                      a->umd_private_data_size, a->private_driver_data_size);
  if ((a->commands | a->command_length) & 3)
    return sgpu__fail(dev, SGPU_ERROR_VALIDATE_COMMAND_ALIGN,
                      "commands 0x%llx length %u not 4-byte aligned", (unsigned long long)a->commands,
                      a->command_length);
  if (a->commands > dev->mem_size || a->command_length > dev->mem_size - a->commands)
    return sgpu__fail(dev, SGPU_ERROR_VALIDATE_COMMAND_RANGE,
                      "commands 0x%llx+%u leave GPU memory (%u bytes)", (unsigned long long)a->commands,
                      a->command_length, dev->mem_size);
  if (dev->remote) return sgpu__remote_validate(dev, a); /* the rest on the server's device */
  sgpu__lock(dev);
  int r = 0;
  const uint32_t *words = NULL;
  if (a->hw_queue_progress_fence_id) {
    for (uint32_t i = 0; i < a->context_count; i++) {
      uint32_t n = a->context[i]->node;
      uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, n, ring);
      for (uint32_t j = 0; j < k; j++)
        if ((r = sgpu__retire(dev, ring[j]))) goto out;
      uint64_t completed = sgpu__node_completed(dev, n);
      if (a->hw_queue_progress_fence_id <= completed) {
        r = sgpu__fail(dev, SGPU_ERROR_VALIDATE_FENCE_PASSED,
                       "hw_queue_progress_fence_id %llu already passed on node %u (completed %llu)",
                       (unsigned long long)a->hw_queue_progress_fence_id, n,
                       (unsigned long long)completed);
        goto out;
      }
    }
  }
  for (uint32_t i = 0; i < a->context_count; i++) {
    const sgpu_context *c = a->context[i];
    if (c->vm) { /* commands is a virtual address of the context */
      if ((r = validate_vm(dev, a, c))) goto out;
      words = NULL; /* its reads may have moved the shadow's view */
      continue;
    }
    int seen = 0;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = !a->context[j]->vm && a->context[j]->win_base == c->win_base &&
             a->context[j]->win_size == c->win_size;
    if (seen) continue;
    if (a->command_length && !words) {
      r = sgpu__shadow_view(dev, (uint32_t)a->commands, a->command_length, &words);
      if (r) {
        r = sgpu__fail(dev, r, "reading the command buffer failed");
        goto out;
      }
    }
    sgpu_walk w = {dev, 1, c->win_base, (uint64_t)c->win_base + c->win_size, 3, 0, 0, 0, c, NULL};
    if ((r = walk(&w, words, a->command_length / 4, a->commands, "command buffer packet at address", 1)))
      goto out;
    if (c->access && (r = access_walk(&w, words, a->command_length / 4, a->commands,
                                      "command buffer packet at address")))
      goto out;
  }
out:
  sgpu__unlock(dev);
  return r;
}

/* The public structs mirror the WDDM ones bit for bit where it matters. */
#include <stddef.h>
_Static_assert(sizeof(sgpu_submit_flags) == 4, "DXGK_SUBMITCOMMANDFLAGS is one UINT");
_Static_assert(sizeof(sgpu_validate_submit_command_flags) == 4, "validate flags are one UINT");
_Static_assert(offsetof(sgpu_submit_command_args, context) == 0, "context first");
_Static_assert(offsetof(sgpu_submit_command_args, dma_buffer_segment_id) <
                   offsetof(sgpu_submit_command_args, dma_buffer_physical_address), "order");
_Static_assert(offsetof(sgpu_submit_command_args, flags) <
                   offsetof(sgpu_submit_command_args, engine_ordinal), "order");
_Static_assert(offsetof(sgpu_submit_command_args, dma_buffer_virtual_address) <
                   offsetof(sgpu_submit_command_args, node_ordinal), "order");
_Static_assert(SGPU_SUBMIT_RESERVED_MASK == 0xFFFFFE00u, "nine defined flag bits");
