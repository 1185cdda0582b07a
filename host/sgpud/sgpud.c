/* sgpud — the device server (docs/sgpud.md).
 *
 *   sgpud --device URI [--socket PATH] [--group NAME] [--stall-ms N]
 *         [--max-clients N] [--max-memory BYTES] [--max-contexts N] [--quiet]
 *
 * Opens one device with libsgpu, in-process, and serves programs over a
 * Unix-domain socket (mode 0660, group settable): each connection is a
 * program with its own contexts, allocations, fence numbering per node and
 * events.  One thread, one poll() loop: requests are taken one per program
 * per round (fair), waits are parked and answered when their fence passes
 * (the server runs the simulated chip while anyone waits), and a program
 * that goes away has its queued work finish, its events dropped, then its
 * contexts destroyed and its memory freed.  A program reaches only its own
 * memory, through the calls and through its command buffers (the library's
 * packet walk asks packet_access); a node that faults is reset at once, the
 * other programs' work put back; a submission without ring or staging room
 * waits here, not inside the library. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "access.h" /* the library's context access check (internal) */
#include "remote_proto.h"
#include "sgpu.h"

#define MAX_NODES SGPU_MAX_NODES
#define EVQ_MAX 4096u          /* events kept per program before the oldest are dropped */
#define OUT_MAX (2u * SGPUD_MAX_BODY) /* answers queued before the program's requests wait */
#define CYCLES_PER_MS (SGPU_NOMINAL_CLOCK_HZ / 1000u)

/* ------------------------------------------------------------ state */
typedef struct alloc_rec {
  uint64_t addr;
  uint32_t size, segment;
} alloc_rec;

typedef struct ctx_rec {
  uint32_t id;
  sgpu_context *ctx;
} ctx_rec;

typedef struct node_view { /* one program's fences on one node, in its own numbering */
  uint64_t submitted64, completed64;
  uint32_t pending;
  uint64_t last_dev64; /* the device fence of its last submission there */
} node_view;

enum { WAIT_NONE, WAIT_FENCE, WAIT_IDLE, WAIT_EVENT };

typedef struct program {
  struct program *next;
  int fd;        /* -1 once gone (a zombie whose work is draining) */
  uint32_t id, pid;
  char name[SGPUD_NAME_BYTES];
  int hello;     /* said hello */
  uint8_t *in;   /* request bytes received */
  size_t in_len, in_cap;
  uint64_t in_since_ms; /* when the partial request at in[0] began arriving */
  uint8_t *out;  /* answer bytes not yet sent */
  size_t out_len, out_cap;
  int closing;   /* close once out is sent (an oversize or broken request) */
  alloc_rec *allocs;
  size_t nallocs, cap_allocs;
  ctx_rec *ctxs;
  size_t nctxs, cap_ctxs;
  node_view node[MAX_NODES];
  sgpud_event *evq;
  size_t ev_head, ev_count, ev_cap; /* grows to EVQ_MAX */
  sgpu_stats stats;
  int deferred;  /* its SUBMIT waits for ring room (kept in `in`) */
  uint32_t vsync; /* sources whose CRTC_VSYNC events it asked for (bit each) */
  uint8_t *frame; /* its last capture's pixels, until the next (FRAME_READ) */
  size_t frame_len;
  /* a parked wait */
  int wait_kind;
  uint32_t wait_op, wait_node, wait_fence, wait_timeout_ms;
  uint64_t wait_target, wait_deadline;
} program;

typedef struct fifo_ent { /* a submission on the device, in ring order */
  uint64_t dev_fence64, client_fence64, cookie;
  program *owner;
  uint32_t staged; /* bytes of the node's staging area it holds (segment 0) */
} fifo_ent;

typedef struct node_fifo {
  fifo_ent *e;
  size_t head, count, cap;
  uint64_t dev_submitted64; /* the device fence last used on this node */
  uint32_t ring_size;       /* bytes of the node's ring */
  uint32_t stage_size;      /* bytes of the node's staging area (segment 0 buffers) */
  uint64_t staged;          /* of it, held by the submissions in the queue */
  uint64_t completed64;     /* the device fence completed, as last seen */
  int faulted;
} node_fifo;

/* An allocation freed while its program had work queued: the GPU may still
 * write it, so the library frees it once that work is done (before, it
 * could go to another program with the writes still to come). */
typedef struct late_free {
  uint64_t addr, size;
  uint64_t after[MAX_NODES]; /* device fences that must complete first */
} late_free;

typedef struct server {
  sgpu_device *dev;
  sgpu_info info;
  sgpu_area reserved[32];
  size_t nreserved;
  int lfd;
  char path[108];
  uint32_t stall_ms, max_clients, next_id, nprogs;
  uint64_t max_memory;   /* bytes one program may have allocated (0: no limit) */
  uint32_t max_contexts; /* contexts one program may have (0: no limit) */
  int quiet;
  program *progs;
  node_fifo fifo[MAX_NODES];
  late_free *late;
  size_t nlate, cap_late;
  /* the program whose framebuffer each display source shows (its mode set
   * or a flip submitted by it), NULL: none; only it may change the source */
  program *display_owner[SGPU_MAX_SOURCES];
  uint64_t display_fb[SGPU_MAX_SOURCES][2]; /* the framebuffer its mode was set to: address, bytes */
  uint32_t vsync_on; /* sources with CRTC_VSYNC enabled on the device */
} server;

static volatile sig_atomic_t stop_flag;
static void on_signal(int s) {
  (void)s;
  stop_flag = 1;
}

static uint64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void logf_(const server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(const server *s, const char *fmt, ...) {
  if (s->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "sgpud: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

static uint64_t cycles_now(server *s) {
  uint64_t c = 0;
  sgpu_get_cycles(s->dev, &c);
  return c;
}

/* ------------------------------------------------------------ answers */
static int out_reserve(program *p, size_t more) {
  if (p->out_len + more <= p->out_cap) return 0;
  size_t cap = p->out_cap ? p->out_cap : 256;
  while (cap < p->out_len + more) cap *= 2;
  uint8_t *n = realloc(p->out, cap);
  if (!n) return -1;
  p->out = n;
  p->out_cap = cap;
  return 0;
}

/* Queue an answer: status, then body a (ans_size) and tail (tail_size). */
static void answer(program *p, uint32_t op, int32_t status, const void *a, size_t ans_size,
                   const void *tail, size_t tail_size) {
  if (p->fd < 0) return;
  sgpud_hdr h = {(uint32_t)(sizeof(sgpud_status) + ans_size + tail_size), op | SGPUD_REPLY};
  sgpud_status st = {status, 0};
  if (out_reserve(p, sizeof h + h.size)) {
    p->closing = 1;
    return;
  }
  memcpy(p->out + p->out_len, &h, sizeof h);
  p->out_len += sizeof h;
  memcpy(p->out + p->out_len, &st, sizeof st);
  p->out_len += sizeof st;
  if (ans_size) memcpy(p->out + p->out_len, a, ans_size);
  p->out_len += ans_size;
  if (tail_size) memcpy(p->out + p->out_len, tail, tail_size);
  p->out_len += tail_size;
}

static void answer_error(program *p, uint32_t op, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void answer_error(program *p, uint32_t op, int code, const char *fmt, ...) {
  char text[SGPUD_MAX_TEXT + 1];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  answer(p, op, code, NULL, 0, text, strlen(text));
}

/* The library's answer to the call just made on the device. */
static void answer_lib(server *s, program *p, uint32_t op, int r, const void *a, size_t ans_size) {
  if (r < 0) answer_error(p, op, r, "%s", sgpu_last_error(s->dev));
  else answer(p, op, r, a, ans_size, NULL, 0);
}

/* ------------------------------------------------------------ ownership */
static const alloc_rec *own_alloc(const program *p, uint64_t addr, uint64_t size) {
  for (size_t i = 0; i < p->nallocs; i++) {
    const alloc_rec *a = &p->allocs[i];
    if (addr >= a->addr && size <= a->size && addr - a->addr <= a->size - size) return a;
  }
  return NULL;
}

static int overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs) {
  return a < b + bs && b < a + as;
}

/* Another program's allocation overlapping the range (or starting at addr
 * when size is 0), or NULL. */
static const program *other_owner(const server *s, const program *me, uint64_t addr, uint64_t size) {
  for (const program *q = s->progs; q; q = q->next) {
    if (q == me) continue;
    for (size_t i = 0; i < q->nallocs; i++) {
      const alloc_rec *a = &q->allocs[i];
      if (size ? overlaps(addr, size, a->addr, a->size) : addr == a->addr) return q;
    }
  }
  return NULL;
}

static int overlaps_reserved(const server *s, uint64_t addr, uint64_t size) {
  for (size_t i = 0; i < s->nreserved; i++)
    if (overlaps(addr, size, s->reserved[i].base, s->reserved[i].size)) return 1;
  return 0;
}

/* May p read (write) [addr, +size)?  1: go to the library, which refuses
 * what is not memory at all (same code and text as in-process); 0: refused
 * with NOT_OWNER, answered already.  A raw write (sgpu_write_raw) is the
 * library's own areas' override: refused there too, they are every
 * program's. */
static int may_access(server *s, program *p, uint32_t op, uint64_t addr, uint64_t size, int write,
                      int raw) {
  if (own_alloc(p, addr, size)) return 1;
  if (addr >= SGPU_HOST_ADDRESS_BASE) {
    if (!other_owner(s, p, addr, size)) return 1; /* no allocation: INVALID_ADDRESS */
  } else {
    if (addr > s->info.mem_size || size > s->info.mem_size - addr) return 1; /* INVALID_ADDRESS */
    if (write && !raw && overlaps_reserved(s, addr, size)) return 1;        /* RESERVED_ADDRESS */
  }
  answer_error(p, op, SGPU_ERROR_NOT_OWNER,
               "range 0x%llx+%llu is not inside one of this program's allocations (sgpud: "
               "another program's memory, the library's or free memory%s)",
               (unsigned long long)addr, (unsigned long long)size,
               raw ? "; sgpu_write_raw reaches only the program's own" : "");
  return 0;
}

static int push_alloc(program *p, uint64_t addr, uint32_t size, uint32_t seg) {
  if (p->nallocs == p->cap_allocs) {
    size_t cap = p->cap_allocs ? p->cap_allocs * 2 : 8;
    alloc_rec *n = realloc(p->allocs, cap * sizeof *n);
    if (!n) return -1;
    p->allocs = n;
    p->cap_allocs = cap;
  }
  p->allocs[p->nallocs++] = (alloc_rec){addr, size, seg};
  return 0;
}

static ctx_rec *find_ctx(program *p, uint32_t id) {
  for (size_t i = 0; i < p->nctxs; i++)
    if (p->ctxs[i].id == id) return &p->ctxs[i];
  return NULL;
}

/* ------------------------------------------------------------ events */
static void push_event(program *p, const sgpud_event *ev) {
  if (p->fd < 0) return; /* gone: its events are dropped */
  if (p->ev_count == p->ev_cap && p->ev_cap < EVQ_MAX) { /* grow, oldest first */
    size_t cap = p->ev_cap ? p->ev_cap * 2 : 16;
    sgpud_event *n = malloc(cap * sizeof *n);
    if (n) {
      for (size_t i = 0; i < p->ev_count; i++) n[i] = p->evq[(p->ev_head + i) % p->ev_cap];
      free(p->evq);
      p->evq = n;
      p->ev_head = 0;
      p->ev_cap = cap;
    }
  }
  if (p->ev_count == p->ev_cap) { /* full: drop the oldest */
    if (!p->ev_cap) {
      p->stats.events_lost++;
      return;
    }
    p->ev_head = (p->ev_head + 1) % p->ev_cap;
    p->ev_count--;
    p->stats.events_lost++;
  }
  p->evq[(p->ev_head + p->ev_count) % p->ev_cap] = *ev;
  p->ev_count++;
}

static sgpud_event wire_event(const sgpu_event *e) {
  sgpud_event w;
  memset(&w, 0, sizeof w);
  w.type = e->type;
  w.node_ordinal = e->node_ordinal;
  w.fence_id = e->fence_id;
  w.fence_id64 = e->fence_id64;
  w.last_completed_fence_id = e->last_completed_fence_id;
  w.flags = e->flags;
  w.fault_reason = e->fault_reason;
  w.fault_address = e->fault_address;
  w.fault_opcode = e->fault_opcode;
  w.source_id = e->source_id;
  w.scanout_address = e->scanout_address;
  w.vblank_count = e->vblank_count;
  w.cycle = e->cycle;
  w.private_data = (uint64_t)(uintptr_t)e->private_data;
  w.private_data_size = e->private_data_size;
  w.context_id = e->context_id;
  w.guilty_count = e->guilty_count;
  w.banned = e->banned;
  w.resubmitted = e->resubmitted;
  w.priority = e->priority;
  w.fault_va = e->fault_va;
  w.fault_access = e->fault_access;
  w.fault_unit = e->fault_unit;
  return w;
}

static fifo_ent *fifo_find(node_fifo *f, uint64_t dev_fence64) {
  for (size_t i = 0; i < f->count; i++) {
    fifo_ent *e = &f->e[(f->head + i) % f->cap];
    if (e->dev_fence64 == dev_fence64) return e;
  }
  return NULL;
}

/* A device event to the program it belongs to, in that program's fence
 * numbering; node-wide ones (preemption, a fault nobody's submission
 * explains) to every program with work on the node. */
static void dispatch(server *s, const sgpu_event *e) {
  sgpud_event w = wire_event(e);
  uint32_t n = e->node_ordinal;
  switch (e->type) {
  case SGPU_EVENT_DMA_COMPLETED:
  case SGPU_EVENT_DMA_DROPPED:
  case SGPU_EVENT_DMA_FAULTED: {
    if (n >= MAX_NODES) return;
    if (e->type == SGPU_EVENT_DMA_FAULTED) s->fifo[n].faulted = 1;
    fifo_ent *f = fifo_find(&s->fifo[n], e->fence_id64);
    if (f && f->owner) {
      program *p = f->owner;
      w.fence_id = (uint32_t)f->client_fence64;
      w.fence_id64 = f->client_fence64;
      w.last_completed_fence_id = (uint32_t)p->node[n].completed64;
      if (e->type == SGPU_EVENT_DMA_COMPLETED) p->stats.completed++;
      else if (e->type == SGPU_EVENT_DMA_DROPPED) p->stats.dropped++;
      else p->stats.faulted++;
      push_event(p, &w);
      return;
    }
    if (e->type != SGPU_EVENT_DMA_FAULTED) return;
    __attribute__((fallthrough)); /* a fault outside any submission */
  }
  case SGPU_EVENT_DMA_PREEMPTED:
    for (program *p = s->progs; p; p = p->next) {
      if (n >= MAX_NODES || !p->node[n].pending) continue;
      sgpud_event x = w;
      x.fence_id = (uint32_t)p->node[n].completed64;
      x.fence_id64 = p->node[n].completed64;
      x.last_completed_fence_id = (uint32_t)p->node[n].completed64;
      x.private_data = 0;
      x.private_data_size = 0;
      if (e->type == SGPU_EVENT_DMA_PREEMPTED) p->stats.preempted++;
      push_event(p, &x);
    }
    return;
  case SGPU_EVENT_ENGINE_RESET: /* to the guilty context's program only */
    for (program *p = s->progs; p; p = p->next) {
      if (!e->context_id || !find_ctx(p, e->context_id) || n >= MAX_NODES) continue;
      fifo_ent *f = fifo_find(&s->fifo[n], e->fence_id64);
      w.fence_id = f && f->owner == p ? (uint32_t)f->client_fence64 : (uint32_t)p->node[n].completed64;
      w.fence_id64 = f && f->owner == p ? f->client_fence64 : p->node[n].completed64;
      w.last_completed_fence_id = (uint32_t)p->node[n].completed64;
      p->stats.resets++;
      push_event(p, &w);
    }
    return;
  case SGPU_EVENT_CRTC_VSYNC: /* to the programs that asked for the source's */
    for (program *p = s->progs; p; p = p->next) {
      if (e->source_id >= 32 || !(p->vsync >> e->source_id & 1u)) continue;
      p->stats.vsyncs++;
      push_event(p, &w);
    }
    return;
  default:
    return;
  }
}

/* A node stopped on a fault (a watchdog TIMEOUT included) stops every
 * program's work on it: reset it at once (docs/recovery.md).  The guilty
 * context's queued work is dropped (DMA_DROPPED events to its program, its
 * fences still pass), the other programs' submissions go back on the ring
 * and complete as if nothing happened; ENGINE_RESET goes to the guilty
 * program. */
static void recover(server *s, uint32_t n) {
  uint32_t last = 0;
  int r = sgpu_reset_engine(s->dev, n, &last);
  if (r < 0) {
    logf_(s, "node %u faulted and could not be reset: %s", n, sgpu_last_error(s->dev));
    return;
  }
  s->fifo[n].faulted = 0;
  logf_(s, "node %u faulted: engine reset, %d innocent submissions put back", n, r);
  sgpu_event ev;
  while (sgpu_next_event(s->dev, &ev, 0) == 0) dispatch(s, &ev);
}

/* Memory about to be freed in the library (it may be another program's
 * next allocation): a source scanning out of it is turned off, its owner
 * no longer owns it. */
static void display_freed(server *s, uint64_t addr, uint64_t size) {
  for (uint32_t src = 0; src < s->info.source_count && src < SGPU_MAX_SOURCES; src++) {
    /* what it scans out now, and the mode's framebuffer (a new address
     * takes effect at the next vblank, which may not have come yet) */
    sgpu_display_mode m;
    if (!s->display_owner[src] || sgpu_get_display_mode(s->dev, src, &m) || !m.enabled ||
        (!overlaps(m.address, (uint64_t)m.pitch * m.height, addr, size) &&
         !overlaps(s->display_fb[src][0], s->display_fb[src][1], addr, size)))
      continue;
    sgpu_display_mode off;
    memset(&off, 0, sizeof off);
    if (sgpu_set_display_mode(s->dev, src, &off))
      logf_(s, "turning source %u off failed: %s", src, sgpu_last_error(s->dev));
    logf_(s, "program %u freed the framebuffer display source %u showed: turned off",
          s->display_owner[src]->id, src);
    s->display_owner[src] = NULL;
  }
}

static void late_frees(server *s) {
  for (size_t i = 0; i < s->nlate;) {
    int done = 1;
    for (uint32_t n = 0; n < s->info.node_count && done; n++)
      done = s->fifo[n].completed64 >= s->late[i].after[n];
    if (!done) {
      i++;
      continue;
    }
    display_freed(s, s->late[i].addr, s->late[i].size);
    sgpu_free(s->dev, s->late[i].addr);
    s->late[i] = s->late[--s->nlate];
  }
}

/* Bring the programs' fence views up to the device: retire (get_fence),
 * hand out the events, then count completed what the device completed. */
static void harvest(server *s) {
  sgpu_fence_info fi[MAX_NODES];
  for (uint32_t n = 0; n < s->info.node_count; n++) {
    memset(&fi[n], 0, sizeof fi[n]);
    sgpu_get_fence(s->dev, n, &fi[n]);
  }
  sgpu_event ev;
  while (sgpu_next_event(s->dev, &ev, 0) == 0) dispatch(s, &ev);
  for (uint32_t n = 0; n < s->info.node_count; n++) {
    node_fifo *f = &s->fifo[n];
    if (fi[n].faulted) f->faulted = 1;
    if (f->faulted) recover(s, n);
    if (fi[n].completed > f->completed64) f->completed64 = fi[n].completed;
    while (f->count && f->e[f->head].dev_fence64 <= fi[n].completed) {
      fifo_ent *e = &f->e[f->head];
      if (e->owner) {
        e->owner->node[n].completed64 = e->client_fence64;
        e->owner->node[n].pending--;
      }
      f->staged -= e->staged;
      f->head = (f->head + 1) % f->cap;
      f->count--;
    }
  }
  if (s->nlate) late_frees(s);
}

static int fifo_push(node_fifo *f, fifo_ent e) {
  if (f->count == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 64;
    fifo_ent *n = malloc(cap * sizeof *n);
    if (!n) return -1;
    for (size_t i = 0; i < f->count; i++) n[i] = f->e[(f->head + i) % f->cap];
    free(f->e);
    f->e = n;
    f->head = 0;
    f->cap = cap;
  }
  f->e[(f->head + f->count) % f->cap] = e;
  f->count++;
  return 0;
}

/* ------------------------------------------------------------ requests */
static void op_hello(server *s, program *p, const uint8_t *b, size_t n) {
  sgpud_hello_req q;
  if (n != sizeof q) {
    answer_error(p, SGPUD_OP_HELLO, SGPU_ERROR_INVALID_PARAM, "sgpud: HELLO of %zu bytes", n);
    p->closing = 1;
    return;
  }
  memcpy(&q, b, sizeof q);
  if (q.version != SGPUD_PROTO_VERSION || q.info_size != sizeof(sgpu_info) ||
      q.event_size != sizeof(sgpud_event) || q.stats_size != sizeof(sgpu_stats) ||
      q.submit_size != sizeof(sgpud_submit_req)) {
    answer_error(p, SGPUD_OP_HELLO, SGPU_ERROR_NOT_SUPPORTED,
                 "sgpud speaks protocol %u (this library: %u, or another build's struct layout)",
                 SGPUD_PROTO_VERSION, q.version);
    p->closing = 1;
    return;
  }
  memcpy(p->name, q.name, sizeof p->name);
  p->name[sizeof p->name - 1] = 0;
  for (char *c = p->name; *c; c++) /* it goes into logs and listings */
    if (*c < 0x20 || *c > 0x7e) *c = '?';
  if (!p->pid) p->pid = q.pid;
  p->hello = 1;
  sgpud_hello_ans a = {SGPUD_PROTO_VERSION, p->id, s->info.node_count, s->info.source_count,
                       s->info.mem_size, 0};
  logf_(s, "program %u connected: pid %u '%s'", p->id, p->pid, p->name);
  answer(p, SGPUD_OP_HELLO, 0, &a, sizeof a, NULL, 0);
}

static uint64_t memory_of(const program *p) {
  uint64_t m = 0;
  for (size_t i = 0; i < p->nallocs; i++) m += p->allocs[i].size;
  return m;
}

static void op_alloc(server *s, program *p, const sgpud_alloc_req *q) {
  uint64_t addr = 0;
  if (s->max_memory && q->segment < SGPU_SEGMENT_COUNT && memory_of(p) + q->size > s->max_memory) {
    answer_error(p, SGPUD_OP_ALLOC, SGPU_ERROR_OUT_OF_GPU_MEMORY,
                 "sgpud: %u bytes more would pass this program's limit of %llu bytes (%llu "
                 "allocated; sgpud --max-memory)",
                 q->size, (unsigned long long)s->max_memory, (unsigned long long)memory_of(p));
    return;
  }
  int r = sgpu_alloc(s->dev, q->segment, q->size, q->alignment, &addr);
  if (!r && push_alloc(p, addr, q->size, q->segment)) {
    sgpu_free(s->dev, addr);
    answer_error(p, SGPUD_OP_ALLOC, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
    return;
  }
  sgpud_addr a = {addr};
  answer_lib(s, p, SGPUD_OP_ALLOC, r, &a, sizeof a);
}

static void op_free(server *s, program *p, const sgpud_addr *q) {
  for (size_t i = 0; i < p->nallocs; i++) {
    if (p->allocs[i].addr != q->address) continue;
    int queued = 0;
    for (uint32_t n = 0; n < s->info.node_count; n++) queued |= p->node[n].pending != 0;
    if (queued && p->allocs[i].segment != SGPU_SEGMENT_SYSTEM) {
      /* its work may still write it: freed when that work is done */
      if (s->nlate == s->cap_late) {
        size_t cap = s->cap_late ? s->cap_late * 2 : 16;
        late_free *nl = realloc(s->late, cap * sizeof *nl);
        if (!nl) {
          answer_error(p, SGPUD_OP_FREE, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
          return;
        }
        s->late = nl;
        s->cap_late = cap;
      }
      late_free *l = &s->late[s->nlate++];
      l->addr = q->address;
      l->size = p->allocs[i].size;
      for (uint32_t n = 0; n < MAX_NODES; n++) l->after[n] = p->node[n].pending ? p->node[n].last_dev64 : 0;
      p->allocs[i] = p->allocs[--p->nallocs];
      answer(p, SGPUD_OP_FREE, 0, NULL, 0, NULL, 0);
      return;
    }
    display_freed(s, q->address, p->allocs[i].size);
    int r = sgpu_free(s->dev, q->address);
    if (!r) p->allocs[i] = p->allocs[--p->nallocs];
    answer_lib(s, p, SGPUD_OP_FREE, r, NULL, 0);
    return;
  }
  if (other_owner(s, p, q->address, 0)) {
    answer_error(p, SGPUD_OP_FREE, SGPU_ERROR_NOT_OWNER,
                 "address 0x%llx is another program's allocation (sgpud)",
                 (unsigned long long)q->address);
    return;
  }
  answer_lib(s, p, SGPUD_OP_FREE, sgpu_free(s->dev, q->address), NULL, 0);
}

static void op_mem(server *s, program *p, uint32_t op, const sgpud_mem_req *q, const uint8_t *data,
                   size_t data_len) {
  int write = op != SGPUD_OP_READ, raw = op == SGPUD_OP_WRITE_RAW;
  if (q->size > SGPUD_MAX_DATA || (write && data_len != q->size) || q->address < q->check_address ||
      q->size > q->check_size || q->address - q->check_address > q->check_size - q->size) {
    answer_error(p, op, SGPU_ERROR_INVALID_PARAM, "sgpud: malformed %s request",
                 raw ? "WRITE_RAW" : write ? "WRITE" : "READ");
    return;
  }
  if (!may_access(s, p, op, q->check_address, q->check_size, write, raw)) return;
  if (write) {
    int r = raw ? sgpu_write_raw(s->dev, q->address, data, q->size)
                : sgpu_write(s->dev, q->address, data, q->size);
    const char *t = sgpu_last_error(s->dev), *hint = strstr(t, " (sgpu_write_raw writes it anyway)");
    if (r == SGPU_ERROR_RESERVED_ADDRESS && hint) /* the in-process hint is not so here */
      answer_error(p, op, r, "%.*s (through sgpud sgpu_write_raw is refused there too)",
                   (int)(hint - t), t);
    else answer_lib(s, p, op, r, NULL, 0);
    return;
  }
  uint8_t *buf = malloc(q->size ? q->size : 1);
  if (!buf) {
    answer_error(p, op, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
    return;
  }
  int r = sgpu_read(s->dev, q->address, buf, q->size);
  if (r) answer_error(p, op, r, "%s", sgpu_last_error(s->dev));
  else answer(p, op, 0, NULL, 0, buf, q->size);
  free(buf);
}

/* The library asks this for every range a packet of the program's
 * submissions reads or writes: only its own allocations (segments 1, 2). */
static int packet_access(void *user, uint64_t addr, uint64_t size, int write, char *why,
                         size_t why_size) {
  const program *p = user;
  if (own_alloc(p, addr, size)) return 0;
  snprintf(why, why_size,
           "%s of 0x%llx+%llu is not inside one of this program's allocations (sgpud: another "
           "program's memory, the library's or free memory)",
           write ? "a write" : "a read", (unsigned long long)addr, (unsigned long long)size);
  return 1;
}

/* CREATE_CONTEXT (q: the node and window) or CREATE_CONTEXT_VM (vm: q's
 * window unused).  A physical context's packets may reach only the
 * program's allocations (packet_access); a VM context's reach only what
 * the program mapped into it, and it maps only its own allocations. */
static void op_create_context(server *s, program *p, uint32_t op, const sgpud_context_req *q, int vm) {
  sgpu_context *c = NULL;
  if (s->max_contexts && p->nctxs >= s->max_contexts) {
    answer_error(p, op, SGPU_ERROR_BUSY,
                 "sgpud: this program has %zu contexts, its limit (sgpud --max-contexts)", p->nctxs);
    return;
  }
  int r = vm ? sgpu_create_context_vm(s->dev, q->node, &c)
             : sgpu_create_context_windowed(s->dev, q->node, q->window_base, q->window_size, &c);
  if (r) {
    answer_lib(s, p, op, r, NULL, 0);
    return;
  }
  if (p->nctxs == p->cap_ctxs) {
    size_t cap = p->cap_ctxs ? p->cap_ctxs * 2 : 4;
    ctx_rec *n = realloc(p->ctxs, cap * sizeof *n);
    if (!n) {
      sgpu_destroy_context(c);
      answer_error(p, op, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
      return;
    }
    p->ctxs = n;
    p->cap_ctxs = cap;
  }
  if (!vm) sgpu__context_set_access(c, packet_access, p);
  p->ctxs[p->nctxs++] = (ctx_rec){sgpu_context_id(c), c};
  sgpud_context_ans a = {sgpu_context_id(c), sgpu_context_node(c), vm ? 0 : q->window_base,
                         vm ? 0 : q->window_size};
  answer(p, op, 0, &a, sizeof a, NULL, 0);
}

/* MAP (of one of the program's allocations) and UNMAP, in one of its
 * contexts; the library checks the rest (a VM context, whole pages, ...). */
static void op_map(server *s, program *p, uint32_t op, const sgpud_map_req *q) {
  ctx_rec *c = find_ctx(p, q->context_id);
  if (!c) {
    answer_error(p, op, SGPU_ERROR_INVALID_CONTEXT, "context %u is not a live context of this program",
                 q->context_id);
    return;
  }
  if (op == SGPUD_OP_UNMAP) {
    answer_lib(s, p, op, sgpu_unmap(c->ctx, q->address, q->size), NULL, 0);
    return;
  }
  /* Only the program's own memory: another's (or the server's) is NOT_OWNER,
   * anything else not one allocation, as in-process. */
  if (sgpu_context_is_vm(c->ctx) && q->size && !(q->address % SGPU_PAGE_BYTES) &&
      !(q->size % SGPU_PAGE_BYTES) && !own_alloc(p, q->address, q->size)) {
    int theirs = other_owner(s, p, q->address, q->size) || overlaps_reserved(s, q->address, q->size);
    answer_error(p, op, theirs ? SGPU_ERROR_NOT_OWNER : SGPU_ERROR_NOT_ALLOCATED,
                 theirs ? "0x%llx+0x%llx reaches another program's or the server's memory (sgpud maps "
                          "only the program's own allocations)"
                        : "0x%llx+0x%llx is not inside one allocation of segment 1 or 2 (sgpu_alloc)",
                 (unsigned long long)q->address, (unsigned long long)q->size);
    return;
  }
  sgpud_addr a = {0};
  int r = sgpu_map(c->ctx, q->address, q->size, q->access, &a.address);
  answer_lib(s, p, op, r, r ? NULL : &a, r ? 0 : sizeof a);
}

static void op_destroy_context(server *s, program *p, const sgpud_u32 *q) {
  (void)s;
  ctx_rec *c = find_ctx(p, q->value);
  if (c) {
    sgpu_destroy_context(c->ctx);
    *c = p->ctxs[--p->nctxs];
  }
  answer(p, SGPUD_OP_DESTROY_CONTEXT, 0, NULL, 0, NULL, 0);
}

static int display_refused(server *s, program *p, uint32_t op, uint32_t source, const char *what);

static void op_submit(server *s, program *p, const sgpud_submit_req *q) {
  const uint32_t op = SGPUD_OP_SUBMIT;
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  if (q->context_id) {
    ctx_rec *c = find_ctx(p, q->context_id);
    if (!c) {
      answer_error(p, op, SGPU_ERROR_INVALID_CONTEXT,
                   "context %u is not a live context of this program", q->context_id);
      return;
    }
    a.context = c->ctx;
  }
  /* The DMA buffer must be the program's own (when it is memory at all:
   * else the library says what is wrong with it).  A VM context's is at
   * dma_buffer_virtual_address, which only the program's mappings reach. */
  int vm = a.context && sgpu_context_is_vm(a.context);
  uint64_t pa = q->dma_buffer_physical_address, size = q->dma_buffer_size;
  int in_seg = 0;
  if (q->dma_buffer_segment_id == SGPU_SEGMENT_SYSTEM) in_seg = other_owner(s, p, pa, size) != NULL;
  else if (q->dma_buffer_segment_id < SGPU_SEGMENT_COUNT) {
    const sgpu_segment_info *sg = &s->info.segment[q->dma_buffer_segment_id];
    in_seg = pa >= sg->base && size <= sg->size && pa - sg->base <= sg->size - size;
  }
  if (!vm && in_seg && size && !own_alloc(p, pa, size)) {
    answer_error(p, op, SGPU_ERROR_NOT_OWNER,
                 "DMA buffer 0x%llx+%llu is not inside one of this program's allocations (sgpud)",
                 (unsigned long long)pa, (unsigned long long)size);
    return;
  }
  /* A flip changes what its source shows: not another program's source. */
  int flip = (q->flags & (SGPU_SUBMIT_FLIP | SGPU_SUBMIT_FLIP_WITH_NO_WAIT)) != 0;
  if (flip && q->vidpn_source_id < s->info.source_count &&
      display_refused(s, p, op, q->vidpn_source_id, "a flip"))
    return;
  if (q->dma_buffer_private_data &&
      q->dma_buffer_private_data_size > UINTPTR_MAX - q->dma_buffer_private_data) {
    /* never a real buffer: the library's pointer arithmetic would wrap */
    answer_error(p, op, SGPU_ERROR_SUBMIT_PRIVATE_DATA_RANGE,
                 "private data buffer 0x%llx+%u wraps around the address space",
                 (unsigned long long)q->dma_buffer_private_data, q->dma_buffer_private_data_size);
    return;
  }
  a.dma_buffer_segment_id = q->dma_buffer_segment_id;
  a.dma_buffer_physical_address = q->dma_buffer_physical_address;
  a.dma_buffer_size = q->dma_buffer_size;
  a.dma_buffer_submission_start_offset = q->dma_buffer_submission_start_offset;
  a.dma_buffer_submission_end_offset = q->dma_buffer_submission_end_offset;
  /* The program's pointer, handed back in its events: never dereferenced. */
  a.dma_buffer_private_data = (void *)(uintptr_t)q->dma_buffer_private_data;
  a.dma_buffer_private_data_size = q->dma_buffer_private_data_size;
  a.dma_buffer_private_data_submission_start_offset =
      q->dma_buffer_private_data_submission_start_offset;
  a.dma_buffer_private_data_submission_end_offset = q->dma_buffer_private_data_submission_end_offset;
  a.vidpn_source_id = q->vidpn_source_id;
  a.flip_interval = q->flip_interval;
  a.flags.value = q->flags;
  a.engine_ordinal = q->engine_ordinal;
  a.dma_buffer_virtual_address = q->dma_buffer_virtual_address;
  a.node_ordinal = q->node_ordinal;
  /* The program's fence must advance in its own numbering; the device gets
   * the next of its own.  When the program's does not, the library is given
   * one that does not either: its checks run in their order and the first
   * broken rule wins, as in-process. */
  uint32_t n = q->node_ordinal;
  node_view *nv = n < s->info.node_count ? &p->node[n] : NULL;
  node_fifo *f = nv ? &s->fifo[n] : NULL;
  int advances = !nv || (int32_t)(q->submission_fence_id - (uint32_t)nv->submitted64) > 0;
  a.submission_fence_id = f ? (uint32_t)(f->dev_submitted64 + (advances ? 1 : 0)) : 1;
  if (f && fifo_push(f, (fifo_ent){0, 0, 0, NULL, 0})) { /* room first: never fails after the submit */
    answer_error(p, op, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
    return;
  }
  if (f) f->count--;
  sgpu_stats before, after;
  sgpu_get_stats(s->dev, &before);
  int r = sgpu_submit_command(s->dev, &a);
  if (r) {
    if (r == SGPU_ERROR_SUBMIT_FENCE_ORDER && !advances)
      answer_error(p, op, r, "submission_fence_id %u does not advance past %u on node %u",
                   q->submission_fence_id, (uint32_t)nv->submitted64, n);
    else answer_lib(s, p, op, r, NULL, 0);
    return;
  }
  sgpu_get_stats(s->dev, &after);
  uint64_t c64 = nv->submitted64 + (uint32_t)(q->submission_fence_id - (uint32_t)nv->submitted64);
  f->dev_submitted64++;
  uint32_t staged = q->dma_buffer_segment_id == SGPU_SEGMENT_SYSTEM
                        ? (q->dma_buffer_submission_end_offset - q->dma_buffer_submission_start_offset + 3u) & ~3u
                        : 0;
  fifo_push(f, (fifo_ent){f->dev_submitted64, c64, q->dma_buffer_private_data, p, staged});
  f->staged += staged;
  nv->submitted64 = c64;
  nv->last_dev64 = f->dev_submitted64;
  if (flip) s->display_owner[q->vidpn_source_id] = p; /* it shows the program's buffer now */
  nv->pending++;
  sgpu_stats *st = &p->stats;
  st->submissions++;
  sgpu_submit_flags fl = a.flags;
  st->paging += fl.paging;
  st->present += fl.present;
  st->redirected_present += fl.redirected_present;
  st->null_rendering += fl.null_rendering;
  st->flip += fl.flip;
  st->flip_with_no_wait += fl.flip_with_no_wait;
  st->context_switch += fl.context_switch;
  st->resubmission += fl.resubmission;
  st->virtual_machine_data += fl.virtual_machine_data;
  st->staged_bytes += after.staged_bytes - before.staged_bytes;
  st->context_switches += after.context_switches - before.context_switches;
  st->ring_waits += after.ring_waits - before.ring_waits;
  st->readback_bytes += after.readback_bytes - before.readback_bytes;
  answer(p, op, 0, NULL, 0, NULL, 0);
}

/* ------------------------------------------------------------ parked waits */
static void park(server *s, program *p, int kind, uint32_t op, uint32_t node, uint32_t fence,
                 uint64_t target, uint32_t timeout_ms) {
  p->wait_kind = kind;
  p->wait_op = op;
  p->wait_node = node;
  p->wait_fence = fence;
  p->wait_target = target;
  p->wait_timeout_ms = timeout_ms;
  p->wait_deadline = cycles_now(s) + (uint64_t)timeout_ms * CYCLES_PER_MS;
}

static int idle_for(const server *s, const program *p) {
  for (uint32_t n = 0; n < s->info.node_count; n++)
    if (p->node[n].pending && !s->fifo[n].faulted) return 0;
  return 1;
}

/* Answer p's parked wait when it is done (or has timed out); 1 if answered. */
static int check_wait(server *s, program *p, uint64_t now) {
  switch (p->wait_kind) {
  case WAIT_FENCE: {
    const node_view *nv = &p->node[p->wait_node];
    if (nv->completed64 >= p->wait_target) answer(p, p->wait_op, 0, NULL, 0, NULL, 0);
    else if (s->fifo[p->wait_node].faulted)
      answer_error(p, p->wait_op, SGPU_ERROR_NODE_FAULTED, "node %u faulted before fence %llu completed",
                   p->wait_node, (unsigned long long)p->wait_target);
    else if (now >= p->wait_deadline)
      answer_error(p, p->wait_op, SGPU_ERROR_TIMEOUT,
                   "fence %u on node %u not reached within %u ms (%llu cycles)", p->wait_fence,
                   p->wait_node, p->wait_timeout_ms,
                   (unsigned long long)((uint64_t)p->wait_timeout_ms * CYCLES_PER_MS));
    else return 0;
    break;
  }
  case WAIT_IDLE:
    if (idle_for(s, p)) answer(p, p->wait_op, 0, NULL, 0, NULL, 0);
    else if (now >= p->wait_deadline)
      answer_error(p, p->wait_op, SGPU_ERROR_TIMEOUT, "work still pending after %u ms",
                   p->wait_timeout_ms);
    else return 0;
    break;
  case WAIT_EVENT:
    if (p->ev_count) {
      sgpud_event e = p->evq[p->ev_head];
      p->ev_head = (p->ev_head + 1) % p->ev_cap;
      p->ev_count--;
      answer(p, p->wait_op, 0, &e, sizeof e, NULL, 0);
    } else if (now >= p->wait_deadline) {
      answer_error(p, p->wait_op, SGPU_ERROR_TIMEOUT, "no event within %u ms", p->wait_timeout_ms);
    } else {
      return 0;
    }
    break;
  default:
    return 0;
  }
  p->wait_kind = WAIT_NONE;
  return 1;
}

static void op_wait(server *s, program *p, uint32_t op, const sgpud_wait_req *q) {
  if (op == SGPUD_OP_WAIT_IDLE) {
    park(s, p, WAIT_IDLE, op, 0, 0, 0, q->timeout_ms);
    return;
  }
  if (op == SGPUD_OP_NEXT_EVENT) {
    park(s, p, WAIT_EVENT, op, 0, 0, 0, q->timeout_ms);
    return;
  }
  if (q->node >= s->info.node_count) {
    answer_error(p, op, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)", q->node,
                 s->info.node_count);
    return;
  }
  node_view *nv = &p->node[q->node];
  if ((int32_t)(q->fence - (uint32_t)nv->submitted64) > 0) {
    answer_error(p, op, SGPU_ERROR_FENCE_NOT_SUBMITTED,
                 "fence %u is ahead of the last one submitted on node %u (%u)", q->fence, q->node,
                 (uint32_t)nv->submitted64);
    return;
  }
  uint64_t target = nv->submitted64 - (uint32_t)((uint32_t)nv->submitted64 - q->fence);
  park(s, p, WAIT_FENCE, op, q->node, q->fence, target, q->timeout_ms);
}

static void op_get_fence(server *s, program *p, const sgpud_u32 *q) {
  if (q->value >= s->info.node_count) {
    answer_error(p, SGPUD_OP_GET_FENCE, SGPU_ERROR_INVALID_NODE, "node %u does not exist (%u nodes)",
                 q->value, s->info.node_count);
    return;
  }
  harvest(s);
  const node_view *nv = &p->node[q->value];
  sgpu_fence_info fi = {nv->submitted64, nv->completed64, nv->pending,
                        (uint32_t)s->fifo[q->value].faulted};
  answer(p, SGPUD_OP_GET_FENCE, 0, &fi, sizeof fi, NULL, 0);
}

/* sgpu_validate_submit_command past the client's checks: the contexts are
 * the program's, the buffer its own memory, the progress fence in its
 * numbering (checked here, in the library's order: before the walk). */
static void op_validate(server *s, program *p, const sgpud_validate_req *q) {
  const uint32_t op = SGPUD_OP_VALIDATE;
  sgpu_validate_submit_command_args a;
  memset(&a, 0, sizeof a);
  if (q->context_count == 0 || q->context_count > SGPU_MAX_BROADCAST_CONTEXT) {
    answer_error(p, op, SGPU_ERROR_VALIDATE_CONTEXT_COUNT, "context_count %u is not 1..%u",
                 q->context_count, SGPU_MAX_BROADCAST_CONTEXT);
    return;
  }
  for (uint32_t i = 0; i < q->context_count; i++) {
    ctx_rec *c = find_ctx(p, q->context_id[i]);
    if (!c) {
      answer_error(p, op, SGPU_ERROR_VALIDATE_CONTEXT_HANDLE,
                   "context[%u] is not a live context of this device", i);
      return;
    }
    a.context[i] = c->ctx;
  }
  /* commands: a virtual address in a VM context (its mappings are the program's) */
  if (q->command_length && !sgpu_context_is_vm(a.context[0]) && !own_alloc(p, q->commands, q->command_length)) {
    answer_error(p, op, SGPU_ERROR_NOT_OWNER,
                 "command buffer 0x%llx+%u is not inside one of this program's allocations (sgpud)",
                 (unsigned long long)q->commands, q->command_length);
    return;
  }
  if (q->hw_queue_progress_fence_id) {
    for (uint32_t i = 0; i < q->context_count; i++) {
      uint32_t n = sgpu_context_node(a.context[i]);
      if (n < s->info.node_count && q->hw_queue_progress_fence_id <= p->node[n].completed64) {
        answer_error(p, op, SGPU_ERROR_VALIDATE_FENCE_PASSED,
                     "hw_queue_progress_fence_id %llu already passed on node %u (completed %llu)",
                     (unsigned long long)q->hw_queue_progress_fence_id, n,
                     (unsigned long long)p->node[n].completed64);
        return;
      }
    }
  }
  a.commands = q->commands;
  a.command_length = q->command_length;
  a.flags.value = q->flags;
  a.context_count = q->context_count;
  /* the words the validation reads back from the device are the program's
   * (its stats' readback_bytes), as a submission's are */
  sgpu_stats before, after;
  memset(&before, 0, sizeof before);
  sgpu_get_stats(s->dev, &before);
  int r = sgpu_validate_submit_command(s->dev, &a);
  after = before;
  sgpu_get_stats(s->dev, &after);
  p->stats.readback_bytes += after.readback_bytes - before.readback_bytes;
  answer_lib(s, p, op, r, NULL, 0);
}

static void op_list(server *s, program *me, const sgpud_u32 *q) {
  uint32_t want = q->value < SGPUD_MAX_PROGRAMS_LISTED ? q->value : SGPUD_MAX_PROGRAMS_LISTED;
  sgpud_list_ans a = {0, 0};
  for (program *p = s->progs; p; p = p->next) a.count++;
  uint32_t n = a.count < want ? a.count : want;
  sgpu_program_info *v = calloc(n ? n : 1, sizeof *v);
  if (!v) {
    answer_error(me, SGPUD_OP_LIST_PROGRAMS, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
    return;
  }
  uint32_t i = 0;
  for (program *p = s->progs; p && i < n; p = p->next, i++) {
    sgpu_program_info *x = &v[n - 1 - i]; /* the list is newest first: oldest first out */
    x->id = p->id;
    x->pid = p->pid;
    memcpy(x->name, p->name, sizeof x->name);
    x->contexts = (uint32_t)p->nctxs;
    x->allocations = (uint32_t)p->nallocs;
    for (size_t k = 0; k < p->nallocs; k++) x->memory += p->allocs[k].size;
    x->submissions = p->stats.submissions;
    x->completed = p->stats.completed;
    for (uint32_t nd = 0; nd < s->info.node_count; nd++) x->queued += p->node[nd].pending;
    x->self = p == me;
    x->gone = p->fd < 0;
  }
  answer(me, SGPUD_OP_LIST_PROGRAMS, 0, &a, sizeof a, v, n * sizeof *v);
  free(v);
}

/* sgpu_get_areas: the device's areas; another program's allocations are
 * ALLOCATED as the program's own (their addresses and sizes are no secret:
 * sgpu_list_programs shows the bytes; their contents are refused). */
static void op_areas(server *s, program *p, const sgpud_u32 *q) {
  const uint32_t op = SGPUD_OP_GET_AREAS;
  uint32_t want = q->value < SGPUD_MAX_AREAS_LISTED ? q->value : SGPUD_MAX_AREAS_LISTED;
  int n = sgpu_get_areas(s->dev, NULL, 0);
  if (n < 0) {
    answer_lib(s, p, op, n, NULL, 0);
    return;
  }
  sgpu_area *v = calloc(n ? (size_t)n : 1, sizeof *v);
  if (!v) {
    answer_error(p, op, SGPU_ERROR_NO_MEM, "sgpud: out of host memory");
    return;
  }
  int got = sgpu_get_areas(s->dev, v, (size_t)n);
  if (got < 0) {
    answer_lib(s, p, op, got, NULL, 0);
    free(v);
    return;
  }
  if (got > n) got = n;
  sgpud_list_ans a = {(uint32_t)got, 0};
  uint32_t out = a.count < want ? a.count : want;
  answer(p, op, 0, &a, sizeof a, v, out * sizeof *v);
  free(v);
}

/* Registers: any may be read (the device's state, as sgpu info shows it);
 * only SCRATCH may be written, the others program the device every
 * program shares (the client has refused read-only ones and bad offsets
 * first, as in-process). */
static void op_reg(server *s, program *p, uint32_t op, const sgpud_reg_req *q) {
  if (q->offset & 3 || q->offset > 0xFFF) {
    answer_error(p, op, SGPU_ERROR_INVALID_ADDRESS, "register offset 0x%x is not a word in 0..0xfff",
                 q->offset);
    return;
  }
  if (op == SGPUD_OP_REG_READ) {
    sgpud_u32 a = {0, 0};
    int r = sgpu_reg_read(s->dev, q->offset, &a.value);
    answer_lib(s, p, op, r, &a, sizeof a);
    return;
  }
  if (q->offset != SGPU_REG_SCRATCH) {
    answer_error(p, op, SGPU_ERROR_NOT_OWNER,
                 "register offset 0x%03x is shared by every program of sgpud: only SCRATCH (0x%03x) "
                 "may be written through it; the write of 0x%08x was not sent",
                 q->offset, SGPU_REG_SCRATCH, q->value);
    return;
  }
  answer_lib(s, p, op, sgpu_reg_write(s->dev, q->offset, q->value), NULL, 0);
}

/* ------------------------------------------------------------ display */
/* A display source shows one program's framebuffer: the program that set
 * its mode (or flipped it) owns it until it turns it off or goes away (the
 * source is turned off then: its memory is freed and may be another's
 * next).  Another program may read the mode, capture the frames and ask for
 * vsync events, but not change it: NOT_OWNER. */
static int display_refused(server *s, program *p, uint32_t op, uint32_t source, const char *what) {
  const program *o = source < SGPU_MAX_SOURCES ? s->display_owner[source] : NULL;
  if (!o || o == p) return 0;
  answer_error(p, op, SGPU_ERROR_NOT_OWNER,
               "%s: display source %u shows the framebuffer of program %u (pid %u '%s'); only it "
               "may change the source (sgpud)",
               what, source, o->id, o->pid, o->name);
  return 1;
}

static void op_set_display(server *s, program *p, const sgpud_display_req *q) {
  const uint32_t op = SGPUD_OP_SET_DISPLAY;
  const sgpu_display_mode *m = &q->mode;
  int off = m->width == 0 && m->height == 0;
  /* the framebuffer the mode would show (as the library computes it) */
  uint64_t pitch = m->pitch ? m->pitch : ((uint64_t)m->width * (m->format ? 1u : 2u) + 3u) & ~3ull;
  uint64_t bytes = pitch * m->height;
  if (q->source < s->info.source_count) {
    if (display_refused(s, p, op, q->source, "sgpu_set_display_mode")) return;
    /* it must be the program's own (when it is inside memory at all: else
     * the library says what is wrong) */
    if (!off && bytes && (uint64_t)m->address + bytes <= s->info.mem_size &&
        !own_alloc(p, m->address, bytes)) {
      answer_error(p, op, SGPU_ERROR_NOT_OWNER,
                   "framebuffer 0x%x+%llu is not inside one of this program's allocations (sgpud)",
                   m->address, (unsigned long long)bytes);
      return;
    }
  }
  int r = sgpu_set_display_mode(s->dev, q->source, m);
  if (!r) {
    s->display_owner[q->source] = off ? NULL : p;
    s->display_fb[q->source][0] = off ? 0 : m->address;
    s->display_fb[q->source][1] = off ? 0 : bytes;
  }
  answer_lib(s, p, op, r, NULL, 0);
}

static void op_capture(server *s, program *p, const sgpud_u32 *q) {
  const uint32_t op = SGPUD_OP_CAPTURE;
  sgpu_frame f;
  int r = sgpu_capture_frame(s->dev, q->value, &f);
  if (r) {
    answer_lib(s, p, op, r, NULL, 0);
    return;
  }
  free(p->frame);
  p->frame = f.pixels; /* kept until its next capture (or its end) */
  p->frame_len = (size_t)f.width * f.height * 3;
  sgpud_frame_ans a = {f.frame_number, f.start_cycle, f.width, f.height, f.source, f.scanout_address};
  answer(p, op, 0, &a, sizeof a, NULL, 0);
}

static void op_frame_read(program *p, const sgpud_frame_read_req *q) {
  const uint32_t op = SGPUD_OP_FRAME_READ;
  if (q->size > SGPUD_MAX_DATA || q->offset > p->frame_len || q->size > p->frame_len - q->offset) {
    answer_error(p, op, SGPU_ERROR_INVALID_PARAM,
                 "sgpud: bytes %u+%u are not inside this program's last captured frame (%zu bytes)",
                 q->offset, q->size, p->frame_len);
    return;
  }
  answer(p, op, 0, NULL, 0, p->frame + q->offset, q->size);
}

/* The device's CRTC_VSYNC interrupt of a source is on while any program
 * wants its events. */
static int vsync_apply(server *s, uint32_t source) {
  uint32_t want = 0;
  for (const program *p = s->progs; p; p = p->next)
    if (p->fd >= 0) want |= p->vsync & (1u << source);
  if ((s->vsync_on & (1u << source)) == want) return 0;
  int r = sgpu_enable_vsync_events(s->dev, source, want != 0);
  if (!r) s->vsync_on = (s->vsync_on & ~(1u << source)) | want;
  return r;
}

static void op_enable_vsync(server *s, program *p, const sgpud_u32 *q) {
  const uint32_t op = SGPUD_OP_ENABLE_VSYNC;
  if (q->value >= s->info.source_count || q->value >= 32) {
    answer_error(p, op, SGPU_ERROR_INVALID_SOURCE, "display source %u does not exist (%u sources)",
                 q->value, s->info.source_count);
    return;
  }
  uint32_t old = p->vsync;
  if (q->reserved) p->vsync |= 1u << q->value;
  else p->vsync &= ~(1u << q->value);
  int r = vsync_apply(s, q->value);
  if (r) p->vsync = old;
  answer_lib(s, p, op, r, NULL, 0);
}

/* A program goes: its sources off, its vsync events no more. */
static void display_release(server *s, program *p) {
  for (uint32_t src = 0; src < s->info.source_count && src < SGPU_MAX_SOURCES; src++) {
    if (s->display_owner[src] == p) {
      sgpu_display_mode off;
      memset(&off, 0, sizeof off);
      if (sgpu_set_display_mode(s->dev, src, &off))
        logf_(s, "turning source %u off failed: %s", src, sgpu_last_error(s->dev));
      s->display_owner[src] = NULL;
      logf_(s, "program %u showed display source %u: turned off", p->id, src);
    }
    if (p->vsync >> src & 1u) {
      p->vsync &= ~(1u << src);
      vsync_apply(s, src);
    }
  }
  free(p->frame);
  p->frame = NULL;
  p->frame_len = 0;
}

/* One request: header and body complete in p->in.  Returns its length. */
static size_t handle(server *s, program *p) {
  sgpud_hdr h;
  memcpy(&h, p->in, sizeof h);
  const uint8_t *b = p->in + sizeof h;
  size_t n = h.size;
  uint32_t op = h.op;
  if (!p->hello && op != SGPUD_OP_HELLO) {
    answer_error(p, op, SGPU_ERROR_INVALID_PARAM, "sgpud: HELLO first");
    p->closing = 1;
    return sizeof h + n;
  }
#define BODY(type, var)                                                                      \
  type var;                                                                                 \
  if (n < sizeof var) {                                                                     \
    answer_error(p, op, SGPU_ERROR_INVALID_PARAM, "sgpud: request %u of %zu bytes is short", \
                 op, n);                                                                    \
    break;                                                                                  \
  }                                                                                         \
  memcpy(&var, b, sizeof var)
  switch (op) {
  case SGPUD_OP_HELLO:
    if (p->hello) answer_error(p, op, SGPU_ERROR_INVALID_PARAM, "sgpud: HELLO twice");
    else op_hello(s, p, b, n);
    break;
  case SGPUD_OP_QUERY_INFO: {
    sgpu_info info;
    int r = sgpu_query_info(s->dev, &info);
    answer_lib(s, p, op, r, &info, sizeof info);
    break;
  }
  case SGPUD_OP_ALLOC: {
    BODY(sgpud_alloc_req, q);
    op_alloc(s, p, &q);
    break;
  }
  case SGPUD_OP_FREE: {
    BODY(sgpud_addr, q);
    op_free(s, p, &q);
    break;
  }
  case SGPUD_OP_READ:
  case SGPUD_OP_WRITE:
  case SGPUD_OP_WRITE_RAW: {
    BODY(sgpud_mem_req, q);
    op_mem(s, p, op, &q, b + sizeof q, n - sizeof q);
    break;
  }
  case SGPUD_OP_CREATE_CONTEXT: {
    BODY(sgpud_context_req, q);
    op_create_context(s, p, op, &q, 0);
    break;
  }
  case SGPUD_OP_CREATE_CONTEXT_VM: {
    BODY(sgpud_u32, q);
    sgpud_context_req cq = {q.value, 0, 0, 0};
    op_create_context(s, p, op, &cq, 1);
    break;
  }
  case SGPUD_OP_MAP:
  case SGPUD_OP_UNMAP: {
    BODY(sgpud_map_req, q);
    op_map(s, p, op, &q);
    break;
  }
  case SGPUD_OP_DESTROY_CONTEXT: {
    BODY(sgpud_u32, q);
    op_destroy_context(s, p, &q);
    break;
  }
  case SGPUD_OP_SUBMIT: {
    BODY(sgpud_submit_req, q);
    op_submit(s, p, &q);
    break;
  }
  case SGPUD_OP_WAIT_FENCE:
  case SGPUD_OP_WAIT_IDLE:
  case SGPUD_OP_NEXT_EVENT: {
    BODY(sgpud_wait_req, q);
    op_wait(s, p, op, &q);
    break;
  }
  case SGPUD_OP_GET_FENCE: {
    BODY(sgpud_u32, q);
    op_get_fence(s, p, &q);
    break;
  }
  case SGPUD_OP_GET_STATS:
    answer(p, op, 0, &p->stats, sizeof p->stats, NULL, 0);
    break;
  case SGPUD_OP_VALIDATE: {
    BODY(sgpud_validate_req, q);
    op_validate(s, p, &q);
    break;
  }
  case SGPUD_OP_LIST_PROGRAMS: {
    BODY(sgpud_u32, q);
    op_list(s, p, &q);
    break;
  }
  case SGPUD_OP_GET_AREAS: {
    BODY(sgpud_u32, q);
    op_areas(s, p, &q);
    break;
  }
  case SGPUD_OP_GET_RING_INFO: {
    BODY(sgpud_u32, q);
    sgpu_ring_info ri;
    memset(&ri, 0, sizeof ri);
    int r = sgpu_get_ring_info(s->dev, q.value, &ri);
    answer_lib(s, p, op, r, &ri, sizeof ri);
    break;
  }
  case SGPUD_OP_REG_READ: {
    BODY(sgpud_u32, q);
    sgpud_reg_req rq = {q.value, 0};
    op_reg(s, p, op, &rq);
    break;
  }
  case SGPUD_OP_REG_WRITE: {
    BODY(sgpud_reg_req, q);
    op_reg(s, p, op, &q);
    break;
  }
  case SGPUD_OP_GET_DISPLAY: {
    BODY(sgpud_u32, q);
    sgpu_display_mode m;
    memset(&m, 0, sizeof m);
    int r = sgpu_get_display_mode(s->dev, q.value, &m);
    answer_lib(s, p, op, r, &m, sizeof m);
    break;
  }
  case SGPUD_OP_SET_DISPLAY: {
    BODY(sgpud_display_req, q);
    op_set_display(s, p, &q);
    break;
  }
  case SGPUD_OP_CAPTURE: {
    BODY(sgpud_u32, q);
    op_capture(s, p, &q);
    break;
  }
  case SGPUD_OP_FRAME_READ: {
    BODY(sgpud_frame_read_req, q);
    op_frame_read(p, &q);
    break;
  }
  case SGPUD_OP_ENABLE_VSYNC: {
    BODY(sgpud_u32, q);
    op_enable_vsync(s, p, &q);
    break;
  }
  case SGPUD_OP_READ_IDENTITY: {
    sgpu_identity id;
    memset(&id, 0, sizeof id);
    answer_lib(s, p, op, sgpu_read_identity(s->dev, &id), &id, sizeof id);
    break;
  }
  case SGPUD_OP_LINK_STATS: {
    sgpu_link_stats ls;
    memset(&ls, 0, sizeof ls);
    answer_lib(s, p, op, sgpu_get_link_stats(s->dev, &ls), &ls, sizeof ls);
    break;
  }
  case SGPUD_OP_PING: {
    BODY(sgpud_u32, q);
    sgpud_u32 a = {0, 0};
    answer_lib(s, p, op, sgpu_ping(s->dev, q.value, &a.value), &a, sizeof a);
    break;
  }
  case SGPUD_OP_RUN_CYCLES: {
    BODY(sgpud_addr, q);
    if (q.address > SGPUD_MAX_RUN_CYCLES) {
      answer_error(p, op, SGPU_ERROR_INVALID_PARAM, "sgpud: a run of %llu cycles exceeds the %llu "
                   "of one request", (unsigned long long)q.address,
                   (unsigned long long)SGPUD_MAX_RUN_CYCLES);
      break;
    }
    answer_lib(s, p, op, sgpu_run_cycles(s->dev, q.address), NULL, 0);
    break;
  }
  case SGPUD_OP_GET_CYCLES: {
    sgpud_addr a = {cycles_now(s)};
    answer(p, op, 0, &a, sizeof a, NULL, 0);
    break;
  }
  default:
    answer_error(p, op, SGPU_ERROR_NOT_SUPPORTED, "sgpud: unknown request %u", op);
    break;
  }
#undef BODY
  return sizeof h + n;
}

/* ------------------------------------------------------------ connections */
static void reap(server *s, program *p) {
  for (size_t i = 0; i < p->nctxs; i++) sgpu_destroy_context(p->ctxs[i].ctx);
  uint64_t bytes = 0;
  for (size_t i = 0; i < p->nallocs; i++) {
    bytes += p->allocs[i].size;
    sgpu_free(s->dev, p->allocs[i].addr);
  }
  for (uint32_t n = 0; n < s->info.node_count; n++) { /* faulted nodes: forget its entries */
    node_fifo *f = &s->fifo[n];
    for (size_t i = 0; i < f->count; i++)
      if (f->e[(f->head + i) % f->cap].owner == p) f->e[(f->head + i) % f->cap].owner = NULL;
  }
  logf_(s, "program %u (pid %u '%s') cleaned up: %zu contexts destroyed, %zu allocations "
           "(%llu bytes) freed",
        p->id, p->pid, p->name, p->nctxs, p->nallocs, (unsigned long long)bytes);
  for (program **pp = &s->progs; *pp; pp = &(*pp)->next)
    if (*pp == p) {
      *pp = p->next;
      break;
    }
  free(p->allocs);
  free(p->ctxs);
  free(p->evq);
  free(p->frame);
  free(p->in);
  free(p->out);
  free(p);
}

/* The program went away (or is thrown out): its answers and events are
 * dropped at once; its queued work finishes before its memory is freed
 * (the GPU may still be reading or writing it). */
static void disconnect(server *s, program *p, const char *why) {
  if (p->fd < 0) return;
  uint32_t queued = 0;
  for (uint32_t n = 0; n < s->info.node_count; n++) queued += p->node[n].pending;
  logf_(s, "program %u (pid %u '%s') gone: %s; %u submissions still queued", p->id, p->pid,
        p->name, why, queued);
  close(p->fd);
  p->fd = -1;
  s->nprogs--;
  display_release(s, p);
  p->wait_kind = WAIT_NONE;
  p->ev_count = 0;
  p->in_len = p->out_len = 0;
}

static int reapable(const server *s, const program *p) {
  return p->fd < 0 && idle_for(s, p);
}

static void accept_one(server *s) {
  int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return;
  if (s->nprogs >= s->max_clients) {
    close(fd);
    logf_(s, "connection refused: %u programs already", s->nprogs);
    return;
  }
  program *p = calloc(1, sizeof *p);
  if (!p) {
    close(fd);
    return;
  }
  p->fd = fd;
  p->id = ++s->next_id;
  struct ucred cr;
  socklen_t cl = sizeof cr;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0) p->pid = (uint32_t)cr.pid;
  p->next = s->progs;
  s->progs = p;
  s->nprogs++;
}

/* Read what is there, up to the end of the request being received (at most
 * one request is buffered: a program's requests wait their turn in its
 * socket).  0, or -1 when the program must go. */
static int receive(server *s, program *p) {
  for (;;) {
    size_t want = sizeof(sgpud_hdr);
    if (p->in_len >= sizeof(sgpud_hdr)) {
      sgpud_hdr h;
      memcpy(&h, p->in, sizeof h);
      if (h.size > SGPUD_MAX_BODY) {
        answer_error(p, h.op, SGPU_ERROR_INVALID_PARAM,
                     "sgpud: request of %u bytes exceeds the limit of %u", h.size, SGPUD_MAX_BODY);
        p->closing = 1;
        logf_(s, "program %u: oversize request (%u bytes)", p->id, h.size);
        return 0;
      }
      want += h.size;
    }
    if (p->in_len >= want) return 0; /* a whole request */
    if (want > p->in_cap) {
      size_t cap = p->in_cap ? p->in_cap : 256;
      while (cap < want) cap *= 2;
      uint8_t *n = realloc(p->in, cap);
      if (!n) return -1;
      p->in = n;
      p->in_cap = cap;
    }
    ssize_t k = recv(p->fd, p->in + p->in_len, want - p->in_len, 0);
    if (k == 0) return -1;
    if (k < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (p->in_len == 0) p->in_since_ms = now_ms();
    p->in_len += (size_t)k;
  }
}

static int whole_request(const program *p) {
  if (p->in_len < sizeof(sgpud_hdr)) return 0;
  sgpud_hdr h;
  memcpy(&h, p->in, sizeof h);
  return h.size <= SGPUD_MAX_BODY && p->in_len >= sizeof h + h.size;
}

static int flush(program *p) {
  while (p->out_len) {
    ssize_t k = send(p->fd, p->out, p->out_len, MSG_NOSIGNAL);
    if (k < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    memmove(p->out, p->out + k, p->out_len - (size_t)k);
    p->out_len -= (size_t)k;
  }
  if (p->out_cap > 65536) { /* a large READ answer went: give the memory back */
    free(p->out);
    p->out = NULL;
    p->out_cap = 0;
  }
  return 0;
}

/* ------------------------------------------------------------ socket */
static int make_socket(server *s, const char *group) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if (strlen(s->path) >= sizeof sa.sun_path) {
    fprintf(stderr, "sgpud: socket path %s is too long\n", s->path);
    return -1;
  }
  memcpy(sa.sun_path, s->path, strlen(s->path));
  gid_t gid = (gid_t)-1;
  if (group) {
    struct group *g = getgrnam(group);
    if (!g) {
      fprintf(stderr, "sgpud: no group '%s'\n", group);
      return -1;
    }
    gid = g->gr_gid;
  }
  struct stat st;
  if (lstat(s->path, &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      fprintf(stderr, "sgpud: %s exists and is not a socket\n", s->path);
      return -1;
    }
    int t = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (t >= 0 && connect(t, (struct sockaddr *)&sa, sizeof sa) == 0) {
      close(t);
      fprintf(stderr, "sgpud: a server already answers at %s\n", s->path);
      return -1;
    }
    if (t >= 0) close(t);
    unlink(s->path); /* stale: its server is gone */
    logf_(s, "removed the stale socket %s", s->path);
  } else if (strncmp(s->path, "/run/sgpu/", 10) == 0) {
    mkdir("/run/sgpu", 0755);
  }
  s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->lfd < 0) return -1;
  mode_t old = umask(0117); /* never more than 0660, even for a moment */
  int r = bind(s->lfd, (struct sockaddr *)&sa, sizeof sa);
  umask(old);
  if (r < 0) {
    fprintf(stderr, "sgpud: bind %s: %s\n", s->path, strerror(errno));
    return -1;
  }
  if (chmod(s->path, 0660) < 0 || (group && chown(s->path, (uid_t)-1, gid) < 0)) {
    fprintf(stderr, "sgpud: setting the mode/group of %s: %s\n", s->path, strerror(errno));
    unlink(s->path);
    return -1;
  }
  if (listen(s->lfd, 16) < 0) {
    unlink(s->path);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ main loop */
static int busy(const server *s) {
  if (s->nlate) return 1; /* the work that holds them back runs */
  for (const program *p = s->progs; p; p = p->next) {
    if (p->wait_kind != WAIT_NONE || p->deferred) return 1;
    if (p->fd < 0 && !idle_for(s, p)) return 1; /* a zombie's work drains */
  }
  return 0;
}

/* A SUBMIT whose node's ring is (nearly) full waits in the program's input
 * rather than inside the library (which would hold every program until
 * there is room, or up to 4 watchdog periods on a hung node): the server
 * runs the chip meanwhile (a hang faults, the node is reset and the ring
 * has room again).  Room for the largest submission: CONTEXT, INDIRECT and
 * FENCE packets (44 bytes) and a wrap pad of as much. */
#define RING_ROOM_BYTES 128u

static int submit_must_wait(server *s, const program *p) {
  sgpud_hdr h;
  sgpud_submit_req q;
  memcpy(&h, p->in, sizeof h);
  if (h.op != SGPUD_OP_SUBMIT || h.size < sizeof q) return 0;
  memcpy(&q, p->in + sizeof h, sizeof q);
  if (q.node_ordinal >= s->info.node_count) return 0;
  const node_fifo *f = &s->fifo[q.node_ordinal];
  /* A segment-0 buffer is staged: the staging area must have room, which
   * the queue's staged bytes tell (the library's may wrap: twice the
   * length is room for sure). */
  if (q.dma_buffer_segment_id == SGPU_SEGMENT_SYSTEM && f->stage_size && f->staged) {
    uint64_t len = (q.dma_buffer_submission_end_offset - q.dma_buffer_submission_start_offset + 3u) & ~3u;
    if (len <= f->stage_size && f->staged + 2 * len > f->stage_size) return 1;
  }
  /* Each submission not yet seen complete holds at most 44 bytes of ring:
   * only a ring that may be nearly full is asked (a register read). */
  if ((uint64_t)f->count * 44u + 2u * RING_ROOM_BYTES <= f->ring_size) return 0;
  sgpu_ring_info ri;
  if (sgpu_get_ring_info(s->dev, q.node_ordinal, &ri) || !ri.size) return 0;
  uint32_t room = (ri.rptr - ri.wptr - 4u) & (ri.size - 1u);
  return room < RING_ROOM_BYTES;
}

static void serve(server *s) {
  struct pollfd *pfd = NULL;
  program **who = NULL;
  size_t cap = 0;
  while (!stop_flag) {
    size_t want = 1;
    for (program *p = s->progs; p; p = p->next) want++;
    if (want > cap) {
      free(pfd);
      free(who);
      cap = want * 2;
      pfd = calloc(cap, sizeof *pfd);
      who = calloc(cap, sizeof *who);
      if (!pfd || !who) break;
    }
    size_t np = 0;
    pfd[np].fd = s->lfd;
    pfd[np].events = POLLIN;
    pfd[np].revents = 0;
    who[np++] = NULL;
    int more = 0, partial = 0;
    for (program *p = s->progs; p; p = p->next) {
      if (p->fd < 0) continue;
      short ev = 0;
      /* requests: one at a time, not while waiting or while answers pile up */
      if (!p->closing && p->wait_kind == WAIT_NONE && p->out_len < OUT_MAX) {
        if (whole_request(p)) more = 1;
        else ev |= POLLIN;
      }
      if (p->out_len) ev |= POLLOUT;
      if (p->in_len && !whole_request(p)) partial = 1;
      pfd[np].fd = p->fd;
      pfd[np].events = ev;
      pfd[np].revents = 0;
      who[np++] = p;
    }
    int timeout = more || busy(s) ? 0 : partial ? 100 : 1000;
    if (poll(pfd, np, timeout) < 0 && errno != EINTR) break;
    if (pfd[0].revents & POLLIN) accept_one(s);
    /* Receive, then one request per program this round. */
    for (size_t i = 1; i < np; i++) {
      program *p = who[i];
      if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
        if (!(pfd[i].revents & POLLIN)) {
          disconnect(s, p, "connection closed");
          continue;
        }
      }
      if ((pfd[i].revents & POLLIN) && receive(s, p)) {
        disconnect(s, p, "connection closed");
        continue;
      }
      p->deferred = 0;
      if (!p->closing && p->wait_kind == WAIT_NONE && whole_request(p) &&
          submit_must_wait(s, p)) {
        p->deferred = 1;
        continue;
      }
      if (!p->closing && p->wait_kind == WAIT_NONE && whole_request(p)) {
        size_t used = handle(s, p);
        memmove(p->in, p->in + used, p->in_len - used);
        p->in_len -= used;
        if (p->in_len) p->in_since_ms = now_ms();
        if (!p->in_len && p->in_cap > 65536) { /* a large WRITE went: give the memory back */
          free(p->in);
          p->in = NULL;
          p->in_cap = 0;
        }
        if (p->wait_kind != WAIT_NONE) { /* done already? (no time passes for it) */
          harvest(s);
          check_wait(s, p, cycles_now(s));
        }
      }
    }
    /* Time moves while anyone waits (or a gone program's work drains). */
    if (busy(s)) {
      sgpu_event ev;
      if (sgpu_next_event(s->dev, &ev, 1) == 0) dispatch(s, &ev);
    }
    harvest(s);
    uint64_t now = cycles_now(s), wall = now_ms();
    for (program *p = s->progs, *next; p; p = next) {
      next = p->next;
      if (p->fd >= 0 && p->wait_kind != WAIT_NONE) check_wait(s, p, now);
      if (p->fd >= 0 && p->out_len && flush(p)) disconnect(s, p, "connection broken");
      if (p->fd >= 0 && p->closing && !p->out_len) disconnect(s, p, "request refused");
      if (p->fd >= 0 && p->in_len && !whole_request(p) && wall - p->in_since_ms > s->stall_ms)
        disconnect(s, p, "a request stalled half-sent");
      if (reapable(s, p)) reap(s, p);
    }
  }
  free(pfd);
  free(who);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sgpud --device URI [--socket PATH] [--group NAME] [--stall-ms N]\n"
          "             [--max-clients N] [--max-memory BYTES] [--max-contexts N] [--quiet]\n"
          "  Serves one sgpu device to many programs over a Unix-domain socket\n"
          "  (mode 0660).  Programs open it with the device URI sgpud[:PATH].\n"
          "  --device URI     the device (sim[:OPTS], tcp:, serial:, usb)\n"
          "  --socket PATH    default $XDG_RUNTIME_DIR/sgpud.sock, else /run/sgpu/sgpud.sock\n"
          "  --group NAME     the socket's group (who may use the device)\n"
          "  --stall-ms N     close a connection whose request stays half-sent N ms (5000)\n"
          "  --max-clients N  programs at once (64)\n"
          "  --max-memory B   bytes one program may allocate, all segments (0: no limit)\n"
          "  --max-contexts N contexts one program may have (0: no limit)\n");
}

int main(int argc, char **argv) {
  server s;
  memset(&s, 0, sizeof s);
  s.lfd = -1;
  s.stall_ms = 5000;
  s.max_clients = 64;
  const char *uri = NULL, *path = NULL, *group = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      s.quiet = 1;
      continue;
    }
    if (!v) {
      usage(stderr);
      return 2;
    }
    i++;
    if (!strcmp(a, "--device")) uri = v;
    else if (!strcmp(a, "--socket")) path = v;
    else if (!strcmp(a, "--group")) group = v;
    else if (!strcmp(a, "--stall-ms")) s.stall_ms = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--max-clients")) s.max_clients = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--max-memory")) s.max_memory = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--max-contexts")) s.max_contexts = (uint32_t)strtoul(v, NULL, 0);
    else {
      usage(stderr);
      return 2;
    }
  }
  if (!uri) {
    usage(stderr);
    return 2;
  }
  if (path) snprintf(s.path, sizeof s.path, "%s", path);
  else if (sgpud_default_path(s.path, sizeof s.path)) {
    fprintf(stderr, "sgpud: default socket path too long\n");
    return 1;
  }
  if (!strncmp(uri, "sgpud", 5)) {
    fprintf(stderr, "sgpud: --device %s: a server cannot serve another server\n", uri);
    return 2;
  }
  char msg[256];
  int r = sgpu_open_detail(uri, &s.dev, msg, sizeof msg);
  if (r) {
    fprintf(stderr, "sgpud: cannot open %s: %s (%s)\n", uri, sgpu_strerror(r), msg);
    return 1;
  }
  if ((r = sgpu_query_info(s.dev, &s.info))) {
    fprintf(stderr, "sgpud: %s\n", sgpu_last_error(s.dev));
    sgpu_close(s.dev);
    return 1;
  }
  sgpu_area areas[64];
  int na = sgpu_get_areas(s.dev, areas, 64);
  for (int i = 0; i < na && i < 64; i++) {
    if (areas[i].kind == SGPU_AREA_RESERVED && s.nreserved < 32) s.reserved[s.nreserved++] = areas[i];
    unsigned node;
    char rest[16];
    if (areas[i].kind == SGPU_AREA_RESERVED &&
        sscanf(areas[i].name, "node %u's staging are%15s", &node, rest) == 2 && node < MAX_NODES)
      s.fifo[node].stage_size = (uint32_t)areas[i].size;
  }
  for (uint32_t n = 0; n < s.info.node_count; n++) {
    sgpu_ring_info ri;
    if (sgpu_get_ring_info(s.dev, n, &ri) == 0) s.fifo[n].ring_size = ri.size;
  }
  if (make_socket(&s, group)) {
    sgpu_close(s.dev);
    return 1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  logf_(&s, "serving %s (%u nodes, %u bytes) at %s; %zu bytes per program connected (and its "
            "buffers)", uri, s.info.node_count, s.info.mem_size, s.path, sizeof(program));
  /* The test harness and service managers wait for this line. */
  printf("sgpud: ready at %s\n", s.path);
  fflush(stdout);
  serve(&s);
  logf_(&s, "stopping");
  while (s.progs) {
    if (s.progs->fd >= 0) disconnect(&s, s.progs, "server stopping");
    reap(&s, s.progs);
  }
  for (size_t i = 0; i < s.nlate; i++) sgpu_free(s.dev, s.late[i].addr);
  free(s.late);
  for (uint32_t n = 0; n < MAX_NODES; n++) free(s.fifo[n].e);
  close(s.lfd);
  unlink(s.path);
  sgpu_close(s.dev);
  return 0;
}
