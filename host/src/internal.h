/* internal.h — the device's state: struct sgpu_device and the types of its
 * parts, shared by the device core's files (not by the transports, which
 * see only transport.h).
 *
 * The core is a one-way stack (docs/architecture.md, "The host library's
 * layers"; tests/host/test_layers.sh checks it from the objects' symbols).
 * Each file that others call has its own header with what it offers:
 *   error.h    error text                  regs.h     register access
 *   alloc.h    the segment allocator       shadow.h   the copy of GPU memory
 *   evq.h      the event queue             ring.h     each ring block (a node has 1 to 3)
 *   events.h   interrupts and waiting      identity.h the boot identity block
 * recovery.c (engine reset) sits on the ring and the interrupt service, and
 * device.c (open, close, info, contexts) on top. */
#ifndef SGPU_INTERNAL_H
#define SGPU_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "error.h"
#include "sgpu.h"
#include "transport.h"

/* ------------------------------------------------------------ allocator */
typedef struct sgpu_block {
  uint64_t addr;
  uint32_t size;
  uint32_t internal; /* owned by the library; sgpu_free refuses it */
  uint32_t maps;     /* mappings of it in VM contexts (vm.c); sgpu_free refuses it while > 0 */
  uint8_t *host;     /* segment 0: the host memory */
} sgpu_block;

typedef struct sgpu_segment {
  uint64_t base, size;
  sgpu_block *blocks; /* sorted by address */
  size_t count, cap;
  uint64_t used;
} sgpu_segment;

/* ------------------------------------------------------------ submissions */
/* A resumed submission's trampoline (preempt.c): at most what a cut COPY
 * left (part of a row and whole rows: two COPYs, 14 words) and an INDIRECT
 * (4), or a cut packet of an earlier trampoline with that trampoline's rest
 * (at most a COPY and an INDIRECT after it) */
#define SGPU__TRAMP_WORDS 24u

typedef struct sgpu_pending {
  uint64_t fence64;
  uint32_t fence32;
  uint32_t flags;
  void *priv;
  uint32_t priv_size;
  uint32_t staged;    /* 1 if it holds staging space */
  uint32_t stage_end; /* staging head after its allocation */
  /* What an engine reset needs to put it on the ring again (recovery.c) */
  uint32_t owner;     /* sgpu_context_id of its context (0: none) */
  uint32_t ctx_id, win_base, win_size; /* its CONTEXT packet; win_size bit 0: a VM context
                                          (SGPU__WIN_VM) */
  uint32_t ib_addr, len, skip;         /* its INDIRECT (the staged copy) */
  uint32_t dropped;   /* aborted by a reset: only its fence is left on the ring */
  uint32_t rest_off;  /* a resumed one: bytes of its buffer that ran before (ib_addr, len: the rest) */
  uint32_t pre_addr, pre_len; /* a resumed one: the staged trampoline run before its buffer's
                                 rest (pre_len bytes at pre_addr; 0: none) ... */
  uint32_t tramp[SGPU__TRAMP_WORDS]; /* ... and its words */
} sgpu_pending;

/* A preempted submission, waiting to be sent again with flags.resubmission
 * (preempt.c): what it must match and where it resumes.  Its trampoline
 * runs first, as a level-1 buffer of its own: the rest of a FILL or COPY
 * cut at a row, then an INDIRECT into the rest of the level-2 buffer it
 * stopped in (so that rest runs at level 2 as before), then what was left
 * of an earlier trampoline; its buffer's rest follows at level 1. */
typedef struct sgpu_preempted {
  uint64_t fence64;
  uint32_t fence32, owner, len, skip;
  uint32_t ib_addr;   /* its buffer's device address (a staged copy: 0, not compared) */
  uint32_t rest_off;  /* level 1 resumes this many bytes into its buffer (len: only the FENCE) */
  uint32_t tramp_words;
  uint32_t tramp[SGPU__TRAMP_WORDS];
} sgpu_preempted;

/* One ring block: a node's normal ring (block n), with CAPS.PRIORITY its
 * high-priority ring (block nodes + n), with CAPS.TIME_SLICE its second
 * normal ring (block 2 x nodes + n).  Each has its own ring buffer,
 * staging area, control words, save area and queues, so everything below
 * is per ring; only the fence id sequence is the node's (fence_seq). */
typedef struct sgpu_node {
  uint32_t ring_base, ring_size, wptr, rptr_cache;
  uint32_t node;       /* the engine (node ordinal) this ring belongs to */
  uint32_t priority;   /* SGPU_PRIORITY_NORMAL or SGPU_PRIORITY_HIGH */
  /* the node's last submission_fence_id, extended to 64 bits, over all of
   * its rings: node_submitted64 of the node's normal ring block */
  uint64_t *fence_seq;
  uint64_t node_submitted64; /* (normal ring block only) what fence_seq points at */
  uint32_t ctrl_addr;  /* rptr writeback word; fence word at +4 */
  uint32_t rptr_addr, fence_addr;
  uint32_t stage_base, stage_size, stage_head, stage_tail, stage_live;
  uint64_t submitted64, completed64; /* this ring's: last put on it, last its fence word reached */
  uint32_t cur_ctx_id, ctx_known;
  sgpu_pending *q;
  size_t q_head, q_count, q_cap;
  int faulted;
  uint32_t save_addr;      /* the node's preemption save area (SAVE_BYTES) */
  sgpu_preempted *pre;     /* preempted submissions, oldest first (preempt.c) */
  size_t pre_count, pre_cap;
} sgpu_node;

/* The most ring blocks a node has: normal, high-priority, second normal. */
#define SGPU__NODE_RINGS_MAX 3u

/* The ring block a context of node n goes to (rings: the device's ring
 * blocks).  HIGH: node n's high ring (CAPS.PRIORITY, block nodes + n), else
 * none: high-priority contexts share the normal one.  NORMAL: the normal
 * ring A (block n), unless the node is time-sliced (sliced: its quantum is
 * not 0, CAPS.TIME_SLICE): then a context with an even id goes to the
 * second normal ring B (block 2 x nodes + n) and one with an odd id to A.
 * Computed when the context, its priority or the node's quantum changes,
 * never per submission. */
static inline uint32_t sgpu__ring_of(uint32_t nodes, uint32_t rings, uint32_t n, uint32_t priority,
                                     uint32_t ctx_id, int sliced) {
  if (priority == SGPU_PRIORITY_HIGH) return rings > nodes ? nodes + n : n;
  return sliced && rings > 2 * nodes && (ctx_id & 1u) == 0 ? 2 * nodes + n : n;
}

#define SGPU_CONTEXT_MAGIC 0x43545854u /* "CTXT" */

/* A VM context's ring job and queue entry carry win_base = its page
 * directory and win_size = SGPU_PAGE_BYTES | SGPU__WIN_VM: a physical
 * window's size is 4-aligned, so bit 0 marks the CONTEXT's VM flag without
 * a field more on the submission path (ring.c strips it). */
#define SGPU__WIN_VM 1u
/* sgpu_context.off_path: what takes a submission off the fast path (one
 * test in submit.c) */
#define SGPU__CTX_BANNED 1u
#define SGPU__CTX_VM 2u
struct sgpu_vm; /* vm.c: a VM context's address space */

struct sgpu_context {
  uint32_t magic;
  sgpu_device *dev;   /* NULL once the device is closed */
  uint32_t node, id, win_base, win_size;
  uint32_t priority;  /* SGPU_PRIORITY_* (sgpu_set_context_priority) */
  uint32_t ring;      /* the ring block its submissions go to: dev->node[ring] */
  uint32_t guilty;    /* engine resets it was found guilty of */
  int banned;         /* guilty ban_threshold times: its submissions are refused */
  uint32_t off_path;  /* SGPU__CTX_BANNED | SGPU__CTX_VM: its submissions leave the fast path */
  struct sgpu_vm *vm; /* a VM context's address space (vm.h), else NULL */
  /* access.h: the ranges its packets may reach (NULL: any the window allows) */
  int (*access)(void *user, uint64_t address, uint64_t size, int write, char *why, size_t why_size);
  void *access_user;
  struct sgpu_context *prev, *next; /* the device's live contexts */
};

#define SGPU_EVENT_QUEUE_MAX 65536u
#define SGPU_RING_BYTES 4096u
#define SGPU_STAGE_BYTES 16384u
#define SGPU_DEFAULT_WATCHDOG 8000000u
/* what the registers take (their legal writes, docs/interface.md) */
_Static_assert(SGPU_RING_BYTES >= SGPU_NREG_RING_SIZE_MIN && SGPU_RING_BYTES <= SGPU_NREG_RING_SIZE_MAX &&
               (SGPU_RING_BYTES & (SGPU_RING_BYTES - 1u)) == 0, "SGPU_RING_BYTES is not a legal RING_SIZE");
_Static_assert(SGPU_DEFAULT_WATCHDOG <= SGPU_NREG_WATCHDOG_MAX, "SGPU_DEFAULT_WATCHDOG does not fit WATCHDOG");
#define SGPU_CYCLES_PER_MS (SGPU_NOMINAL_CLOCK_HZ / 1000u)

/* Frame-capture state of a source: the last frame sgpu_capture_frame returned
 * and the DISP_BASE read as its successor began (the successor's scanout). */
typedef struct sgpu_capture_state {
  uint64_t frame_number; /* 0 = nothing captured yet */
  uint32_t next_base;
} sgpu_capture_state;

/* shadow.c: the library's write-through copy of GPU memory. */
typedef struct sgpu_shadow {
  uint8_t *bytes;   /* mem_size bytes, allocated on first use */
  uint32_t *known;  /* one bit per word: bytes holds what the memory holds */
} sgpu_shadow;

struct sgpu_device {
  pthread_mutex_t lock;
  sgpu_transport *tr;
  sgpu_errors errors;  /* each thread's error text (error.c) */
  uint32_t nodes, sources, mem_size, caps, version;
  uint32_t rings;      /* ring blocks: nodes, twice that with CAPS.PRIORITY,
                          three times with CAPS.TIME_SLICE too */
  uint32_t quantum[SGPU_MAX_NODES]; /* per node: its normal rings' QUANTUM
                                       (sgpu_set_time_slice; 0: not sliced) */
  uint32_t fw_version; /* the boot identity block's, read at open (0: none) */
  uint32_t clock_hz;   /* what the CYCLE counter counts: the board's system clock
                          named by the boot identity block, else SGPU_NOMINAL_CLOCK_HZ */
  uint32_t watchdog;
  int video_tiny;
  sgpu_segment seg[SGPU_SEGMENT_COUNT];
  sgpu_node node[SGPU_MAX_NODES]; /* per ring block (sgpu_node), rings of them */
  sgpu_event *evq;
  size_t ev_head, ev_count, ev_cap;
  uint32_t int_enable;
  uint32_t next_ctx_id;
  sgpu_context *contexts;  /* live contexts: a reset finds the guilty one by id */
  uint32_t ban_threshold;  /* guilty resets before a context is banned (0: never) */
  sgpu_stats stats;
  sgpu_capture_state capture[SGPU_MAX_SOURCES];
  sgpu_shadow shadow;
  /* sgpud: the calls go to a server (remote.c); tr is NULL then */
  struct sgpu_remote *remote;
};

/* Which of its node's rings ring block b is, for messages. */
static inline const char *sgpu__ring_kind(const sgpu_device *dev, uint32_t b) {
  uint32_t slot = b / dev->nodes;
  return slot == 1 ? "high-priority" : slot == 2 ? "second normal" : "normal";
}

/* " on its <kind> ring" for a ring other than the node's first normal one,
 * else "": what messages about a node add to name the ring. */
static inline const char *sgpu__ring_name_suffix(const sgpu_device *dev, uint32_t b) {
  uint32_t slot = b / dev->nodes;
  return slot == 1 ? " on its high-priority ring" : slot == 2 ? " on its second normal ring" : "";
}

static inline void sgpu__lock(sgpu_device *dev) { pthread_mutex_lock(&dev->lock); }
static inline void sgpu__unlock(sgpu_device *dev) { pthread_mutex_unlock(&dev->lock); }

/* A public call not carried to sgpud: refused on a device opened there
 * (it has no transport to touch), NOT_SUPPORTED with the reason
 * sgpu__remote_refused (remote.c) gives for fn. */
int sgpu__remote_refused(sgpu_device *dev, const char *fn);
#define SGPU__NOT_CARRIED(dev, fn)                                 \
  do {                                                              \
    if ((dev) && (dev)->remote) return sgpu__remote_refused((dev), (fn)); \
  } while (0)

#endif
