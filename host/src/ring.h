/* ring.h — each ring block's ring (a node's normal ring, its high-priority
 * one or its second normal one: sgpu_node, indexed by ring block; the n parameters below are ring
 * blocks), its staging area and its queue of pending
 * submissions (owned by ring.c).  It does not wait: a caller that finds no
 * room (sgpu__ring_try_submit) waits with events.h and asks again. */
#ifndef SGPU_RING_H
#define SGPU_RING_H

#include "internal.h"

typedef struct sgpu_ring_job {
  uint32_t owner;                      /* sgpu_context_id of its context (0: none) */
  uint32_t ctx_id, win_base, win_size; /* the context it runs in (0: none) */
  const uint32_t *host_words;          /* segment-0 DMA buffer to stage, or NULL */
  uint32_t ib_addr;                    /* else the buffer's device address */
  uint32_t len;                        /* bytes of DMA buffer (0: a fence alone) */
  int skip;                            /* NullRendering: fetch nothing */
  uint32_t fence;
  uint32_t flags;                      /* for its events: the submission's flags */
  void *priv;                          /* and private data */
  uint32_t priv_size;
  uint32_t tramp_va; /* a resumed VM submission: its trampoline, already in the context's
                        trampoline page at this virtual address (0: stage it) */
} sgpu_ring_job;

/* Reset node n and program its ring (at open and by reset). */
int sgpu__program_node(sgpu_device *dev, uint32_t n);
/* Put the job on node n's ring and ring the doorbell if the ring and the
 * staging area have room for it: 1 done, 0 no room yet (nothing written;
 * what completed is retired), < 0 an error (the node faulted, the
 * transport failed).  One call on the submission's path (its cost is
 * budgeted, tests/host/test_submit_cost.sh); the caller waits and asks
 * again. */
int sgpu__ring_try_submit(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job);
/* The same for a preempted submission sent again (rs: the node's first
 * preempted one, nd->pre[0]): its buffer from where it stopped, with the
 * fence id it had; once on the ring it leaves the preempted list. */
int sgpu__ring_try_resume(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job,
                          const sgpu_preempted *rs);
/* Read the node's fence word; one COMPLETED event per submission passed. */
int sgpu__retire(sgpu_device *dev, uint32_t n);
/* Program node n again after a reset, keeping its queue and staging: every
 * queued submission goes back on the ring in order (a dropped one as its
 * bare FENCE) and the doorbell rings once. */
int sgpu__ring_restart(sgpu_device *dev, uint32_t n);
/* After page-table entries of context ctx_id were cleared or made
 * read-only: ring n forgets the context's translations before its next
 * work (a TLB_INVALIDATE when the ring's current context is ctx_id). */
int sgpu__ring_invalidate(sgpu_device *dev, uint32_t n, uint32_t ctx_id);
const sgpu_pending *sgpu__ring_oldest(sgpu_node *nd);
/* The i-th queued submission, oldest first (NULL past the end). */
sgpu_pending *sgpu__ring_at(sgpu_node *nd, size_t i);
const sgpu_pending *sgpu__ring_find(sgpu_node *nd, uint32_t fence32);
void sgpu__ring_pop(sgpu_node *nd);
void sgpu__ring_reset(sgpu_node *nd);
void sgpu__ring_free(sgpu_node *nd);
/* Node n's ring blocks into ring[], in block order: its normal ring A, then
 * its high-priority one (CAPS.PRIORITY), then its second normal ring B
 * (CAPS.TIME_SLICE); returns how many (1 to SGPU__NODE_RINGS_MAX). */
uint32_t sgpu__node_rings(const sgpu_device *dev, uint32_t n, uint32_t ring[SGPU__NODE_RINGS_MAX]);
/* 1 when the ring has no submission left: none queued, none preempted. */
int sgpu__ring_idle(const sgpu_node *nd);
/* The node's completed fence id: every submission of the node with an id at
 * or below it is done, on all of its rings (the last submitted one when idle). */
uint64_t sgpu__node_completed(const sgpu_device *dev, uint32_t n);

#endif
