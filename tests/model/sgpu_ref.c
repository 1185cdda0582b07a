/* sgpu_ref.c — reference model of the sgpu command processor; see sgpu_ref.h. */
#include "sgpu_ref.h"

#include <stdlib.h>
#include <string.h>

#include "packet_check.h"

#define MAX_PKT_WORDS (1u + SGPU_PKT_COUNT_MASK)

typedef struct ref_node {
  uint32_t ring_base, ring_size, wptr, rptr, rptr_addr, control, watchdog;
  uint32_t quantum; /* QUANTUM: read back only (the model runs each ring on its own) */
  uint32_t faulted, waiting; /* waiting: stuck in a wait that never ends (watchdog 0) */
  uint32_t fault_reason, fault_addr, fault_header, fault_fence;
  uint32_t fence_in_flight, last_fence;
  uint32_t ctx_id, win_base, win_size;
  uint32_t vm, vm_root;      /* a VM context (CAPS.VM, CONTEXT's VM flag) and its page directory */
  uint32_t fault_va, fault_access; /* FAULT_VA, FAULT_ACCESS of a page fault */
  uint32_t check_va, check_access; /* what the last failing page check found */
  uint32_t depth;            /* IB depth while executing (STATUS[7:4]) */
  /* preemption: SAVE_ADDR, PREEMPT (the preemption fence id), STATUS.PREEMPTED */
  uint32_t save_addr, preempt_id, preempted;
  uint32_t ib_next[SGPU_MAX_IB_DEPTH + 1], ib_end[SGPU_MAX_IB_DEPTH + 1]; /* per IB level while executing */
  int stop_armed;                       /* sgpu_ref_preempt_at: where the request is taken */
  uint32_t stop[SGPU_SAVE_PREEMPT_FENCE]; /* that boundary, as save words */
} ref_node;

typedef struct ref_source {
  uint32_t base, flip_count;
  int64_t vb;             /* lower bound of vblanks seen */
  int64_t last_flip_vb;   /* vblank of the last flip taken (with interval) */
  uint32_t pend_valid, pend_addr, pend_node, pend_interval;
  int64_t pend_vb;        /* vblank it will be taken at */
} ref_source;

struct sgpu_ref {
  sgpu_ref_config cfg;
  int vm;           /* CAPS.VM */
  uint8_t *mem;
  uint8_t *undef; /* chip-defined bytes, allocated on the first TIMESTAMP */
  uint16_t *wcount; /* per memory word: writes the nodes made to it (saturating) */
  uint32_t int_status, int_enable, cfg_error, cfg_error_addr;
  ref_node node[SGPU_MAX_NODES];
  ref_source src[SGPU_MAX_SOURCES];
  sgpu_ref_fault *faults;
  size_t nfaults, cfaults;
  sgpu_ref_fence *fences;
  size_t nfences, cfences;
  uint32_t *ts;
  size_t nts, cts;
  sgpu_ref_flip *flips;
  size_t nflips, cflips;
  sgpu_ref_stats stats;
  FILE *trace;
  uint32_t pkt[MAX_PKT_WORDS]; /* the packet being executed */
};

/* ------------------------------------------------------------ helpers */
static void *grow(void *p, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return p;
  size_t c = *cap ? *cap * 2 : 64;
  void *q = realloc(p, c * elem);
  if (!q) {
    fprintf(stderr, "sgpu_ref: out of memory\n");
    abort();
  }
  *cap = c;
  return q;
}

static const char *const op_names[SGPU_OP_COUNT_OF_OPCODES] = {
    "NOP", "INDIRECT", "FENCE", "WRITE_DATA", "WAIT_MEM", "WAIT_VSYNC",
    "WAIT_SCANLINE", "FILL", "COPY", "FLIP", "CONTEXT", "TIMESTAMP", "TLB_INVALIDATE",
};
static const char *const fault_names[SGPU_FAULT_COUNT] = {
    "NONE", "ILLEGAL_OPCODE", "BAD_HEADER", "BAD_COUNT", "OVERRUN", "MISALIGNED", "OUT_OF_RANGE",
    "CONTEXT_WINDOW", "NESTING", "TIMEOUT", "BAD_PARAM", "PRIVILEGED", "UNSUPPORTED", "PAGE_NOT_PRESENT",
    "PAGE_PROTECTION",
};
_Static_assert(SGPU_OP_COUNT_OF_OPCODES == 13 && SGPU_FAULT_COUNT == 15, "name every opcode and fault");

const char *sgpu_ref_opcode_name(uint32_t op) {
  return op < SGPU_OP_COUNT_OF_OPCODES ? op_names[op] : "?";
}
const char *sgpu_ref_fault_name(uint32_t r) { return r < SGPU_FAULT_COUNT ? fault_names[r] : "?"; }

static uint32_t rd32(const sgpu_ref *m, uint32_t a) {
  uint32_t v;
  memcpy(&v, m->mem + a, 4);
  return v;
}

static uint32_t read_word(void *mem, uint64_t pa) {
  uint32_t v;
  memcpy(&v, (const uint8_t *)mem + pa, 4);
  return v;
}

/* The page tables of node n's context for the checker; NULL: physical. */
static sgpu_pkt_vm *node_vm(sgpu_ref *m, uint32_t n, sgpu_pkt_vm *vm) {
  if (!m->node[n].vm) return NULL;
  *vm = (sgpu_pkt_vm){m->node[n].vm_root, m->cfg.mem_bytes, read_word, m->mem, 0, 0, 0};
  return vm;
}

/* The physical address of byte va of an access of node n at IB level
 * `level` (translated in a VM context from level 1 on).  The packet's page
 * check has passed, so the walk cannot fault: if it does, the model is
 * wrong. */
static uint32_t xl(sgpu_ref *m, uint32_t n, uint32_t level, uint32_t va, uint32_t access) {
  sgpu_pkt_vm vm;
  if (level == 0 || !node_vm(m, n, &vm)) return va;
  uint64_t pa = 0;
  const uint32_t f = sgpu__vm_translate(&vm, va, access, &pa);
  if (f != SGPU_FAULT_NONE) {
    fprintf(stderr, "sgpu_ref: node %u: VA 0x%08x faults (%u) after its page check passed\n", n, va, f);
    abort();
  }
  return (uint32_t)pa;
}

/* Bytes from va up to the end of its page, at most n. */
static uint32_t in_page(uint32_t va, uint32_t n) {
  const uint32_t left = SGPU_PAGE_BYTES - va % SGPU_PAGE_BYTES;
  return n < left ? n : left;
}

static void set_defined(sgpu_ref *m, uint32_t a, uint32_t n) {
  if (m->undef) memset(m->undef + a, 0, n);
}

/* A node writes bytes [a, a+n): one write to each word they touch. */
static void count_writes(sgpu_ref *m, uint32_t a, uint32_t n) {
  if (!n) return;
  for (uint32_t w = a >> 2; w <= (a + n - 1) >> 2; w++)
    if (m->wcount[w] != UINT16_MAX) m->wcount[w]++;
}

static void wr32(sgpu_ref *m, uint32_t a, uint32_t v) {
  memcpy(m->mem + a, &v, 4);
  set_defined(m, a, 4);
  count_writes(m, a, 4);
}

/* ------------------------------------------------------------ lifetime */
sgpu_ref *sgpu_ref_create(const sgpu_ref_config *cfg) {
  if (!cfg || !cfg->mem_bytes || (cfg->mem_bytes & (cfg->mem_bytes - 1)) || !cfg->nodes ||
      cfg->nodes > SGPU_MAX_NODES || cfg->sources > SGPU_MAX_SOURCES)
    return NULL;
  sgpu_ref *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->cfg = *cfg;
  m->mem = calloc(cfg->mem_bytes, 1);
  m->wcount = calloc(cfg->mem_bytes / 4, sizeof *m->wcount);
  if (!m->mem || !m->wcount) {
    free(m->mem);
    free(m->wcount);
    free(m);
    return NULL;
  }
  /* reset values (the interface spec does not list them): every register 0
   * but RING_SIZE, which holds the smallest legal size */
  for (uint32_t n = 0; n < SGPU_MAX_NODES; n++) {
    m->node[n].win_size = cfg->mem_bytes;
    m->node[n].ring_size = SGPU_RING_SIZE_MIN;
  }
  for (uint32_t s = 0; s < SGPU_MAX_SOURCES; s++) m->src[s].last_flip_vb = INT64_MIN / 2;
  return m;
}

void sgpu_ref_destroy(sgpu_ref *m) {
  if (!m) return;
  free(m->mem);
  free(m->undef);
  free(m->wcount);
  free(m->faults);
  free(m->fences);
  free(m->ts);
  free(m->flips);
  free(m);
}

void sgpu_ref_set_vm(sgpu_ref *m, int vm) { m->vm = vm != 0; }

uint8_t *sgpu_ref_memory(sgpu_ref *m) { return m->mem; }
const uint8_t *sgpu_ref_chip_defined(const sgpu_ref *m) { return m->undef; }
const uint16_t *sgpu_ref_write_counts(const sgpu_ref *m) { return m->wcount; }

int sgpu_ref_mem_write(sgpu_ref *m, uint32_t addr, const void *data, uint32_t size) {
  if (!sgpu__range_ok(m->cfg.mem_bytes, addr, size)) return -1;
  memcpy(m->mem + addr, data, size);
  set_defined(m, addr, size);
  return 0;
}

int sgpu_ref_mem_read(const sgpu_ref *m, uint32_t addr, void *data, uint32_t size) {
  if (!sgpu__range_ok(m->cfg.mem_bytes, addr, size)) return -1;
  memcpy(data, m->mem + addr, size);
  return 0;
}

void sgpu_ref_trace(sgpu_ref *m, FILE *out) { m->trace = out; }
const sgpu_ref_stats *sgpu_ref_get_stats(const sgpu_ref *m) { return &m->stats; }

size_t sgpu_ref_faults(const sgpu_ref *m, const sgpu_ref_fault **f) {
  *f = m->faults;
  return m->nfaults;
}
size_t sgpu_ref_fences(const sgpu_ref *m, const sgpu_ref_fence **f) {
  *f = m->fences;
  return m->nfences;
}
size_t sgpu_ref_timestamps(const sgpu_ref *m, const uint32_t **a) {
  *a = m->ts;
  return m->nts;
}
size_t sgpu_ref_flips(const sgpu_ref *m, const sgpu_ref_flip **f) {
  *f = m->flips;
  return m->nflips;
}

/* ------------------------------------------------------------ display */
static void take_flip(sgpu_ref *m, uint32_t s, uint32_t node, uint32_t addr, uint32_t interval,
                      uint32_t no_wait, int64_t vb) {
  ref_source *d = &m->src[s];
  d->base = addr;
  d->flip_count = (d->flip_count + 1) & 0xFFFFu;
  if (interval >= SGPU_HW_FLIP_INTERVAL_ONE && interval <= SGPU_HW_FLIP_INTERVAL_FOUR) d->last_flip_vb = vb;
  m->flips = grow(m->flips, &m->cflips, m->nflips, sizeof *m->flips);
  m->flips[m->nflips++] = (sgpu_ref_flip){node, s, addr, interval, no_wait, vb};
}

/* The node waits until the source's queued flip (if any) has been taken. */
static void drain_pending(sgpu_ref *m, uint32_t s) {
  ref_source *d = &m->src[s];
  if (!d->pend_valid) return;
  if (d->vb < d->pend_vb) d->vb = d->pend_vb;
  d->pend_valid = 0;
  take_flip(m, s, d->pend_node, d->pend_addr, d->pend_interval, 1, d->pend_vb);
}

static void flip(sgpu_ref *m, uint32_t node, uint32_t s, uint32_t addr, uint32_t interval, uint32_t no_wait) {
  ref_source *d = &m->src[s];
  drain_pending(m, s); /* one pending slot: wait for it to be free */
  if (interval == SGPU_HW_FLIP_INTERVAL_IMMEDIATE || interval == SGPU_HW_FLIP_INTERVAL_IMMEDIATE_ALLOW_TEARING) {
    take_flip(m, s, node, addr, interval, no_wait, d->vb);
    return;
  }
  int64_t at = d->vb + 1;
  if (d->last_flip_vb + (int64_t)interval > at) at = d->last_flip_vb + interval;
  if (no_wait) {
    d->pend_valid = 1;
    d->pend_addr = addr;
    d->pend_node = node;
    d->pend_interval = interval;
    d->pend_vb = at;
  } else {
    d->vb = at;
    take_flip(m, s, node, addr, interval, 0, at);
  }
}

static void vsync_wait(sgpu_ref *m, uint32_t s) {
  ref_source *d = &m->src[s];
  d->vb++;
  if (d->pend_valid && d->pend_vb <= d->vb) drain_pending(m, s);
}

void sgpu_ref_display_settle(sgpu_ref *m) {
  for (uint32_t s = 0; s < m->cfg.sources; s++) drain_pending(m, s);
}

int64_t sgpu_ref_vblanks(const sgpu_ref *m, uint32_t s) { return s < SGPU_MAX_SOURCES ? m->src[s].vb : 0; }

/* ------------------------------------------------------------ execution */
typedef enum { EX_OK = 0, EX_STOP = 1 } ex_result; /* STOP: faulted or hung */

static void fault(sgpu_ref *m, uint32_t n, uint32_t reason, uint32_t addr, uint32_t header, const char *why) {
  ref_node *nd = &m->node[n];
  nd->faulted = 1;
  nd->fault_reason = reason;
  nd->fault_addr = addr;
  nd->fault_header = header;
  nd->fault_fence = nd->fence_in_flight;
  const int page = reason == SGPU_FAULT_PAGE_NOT_PRESENT || reason == SGPU_FAULT_PAGE_PROTECTION;
  nd->fault_va = page ? nd->check_va : 0;
  nd->fault_access = page ? nd->check_access : 0;
  m->int_status |= SGPU_INT_DMA_FAULTED(n);
  m->stats.faults[reason < SGPU_FAULT_COUNT ? reason : 0]++;
  m->faults = grow(m->faults, &m->cfaults, m->nfaults, sizeof *m->faults);
  m->faults[m->nfaults++] =
      (sgpu_ref_fault){n, reason, addr, header, nd->fence_in_flight, nd->fault_va, nd->fault_access};
  if (m->trace)
    fprintf(m->trace, "  node %u FAULT %s at 0x%08x header 0x%08x fence %u%s%s\n", n, sgpu_ref_fault_name(reason),
            addr, header, nd->fence_in_flight, why && *why ? ": " : "", why ? why : "");
  if (m->trace && page)
    fprintf(m->trace, "  node %u FAULT_VA 0x%08x FAULT_ACCESS 0x%x\n", n, nd->fault_va, nd->fault_access);
}

static int wait_true(uint32_t v, uint32_t ref, uint32_t func) {
  switch (func) {
  case SGPU_WAIT_FUNC_EQ: return v == ref;
  case SGPU_WAIT_FUNC_NE: return v != ref;
  case SGPU_WAIT_FUNC_LT: return v < ref;
  case SGPU_WAIT_FUNC_LE: return v <= ref;
  case SGPU_WAIT_FUNC_GT: return v > ref;
  case SGPU_WAIT_FUNC_GE: return v >= ref;
  case SGPU_WAIT_FUNC_GEQ_WRAP: return (int32_t)(v - ref) >= 0;
  default: return 0; /* the checker rejects these (BAD_PARAM) */
  }
}

/* A wait that can never end: TIMEOUT with the watchdog on, else hang. */
static ex_result wait_forever(sgpu_ref *m, uint32_t n, uint32_t addr, uint32_t header) {
  if (m->node[n].watchdog) {
    fault(m, n, SGPU_FAULT_TIMEOUT, addr, header, "wait never satisfied");
  } else {
    m->node[n].waiting = 1;
    if (m->trace) fprintf(m->trace, "  node %u waits forever (watchdog off)\n", n);
  }
  return EX_STOP;
}

/* A FILL or COPY row is written a page at a time (a VM context's pages lie
 * anywhere); no word spans two pages, so a row still writes each word it
 * touches once. */
static void do_fill(sgpu_ref *m, uint32_t n, uint32_t level, const uint32_t *p) {
  uint32_t dst = p[1], pitch = p[2], width = p[3], height = p[4], pat = p[5];
  for (uint32_t r = 0; r < height; r++) {
    uint32_t row = dst + r * pitch;
    for (uint32_t i = 0, k; i < width; i += k) {
      k = in_page(row + i, width - i);
      const uint32_t pa = xl(m, n, level, row + i, SGPU_HW_ACCESS_WRITE);
      for (uint32_t b = 0; b < k; b++) m->mem[pa + b] = (uint8_t)(pat >> (8 * ((pa + b) & 3)));
      set_defined(m, pa, k);
      count_writes(m, pa, k);
    }
  }
}

static void do_copy(sgpu_ref *m, uint32_t nd, uint32_t level, const uint32_t *p) {
  uint32_t dst = p[1], dpitch = p[2], src = p[3], spitch = p[4], width = p[5], height = p[6];
  if (!width || !height) return;
  size_t n = (size_t)width * height;
  uint8_t *tmp = malloc(n), *tu = m->undef ? malloc(n) : NULL;
  if (!tmp || (m->undef && !tu)) {
    fprintf(stderr, "sgpu_ref: out of memory\n");
    abort();
  }
  /* as if through a temporary: every source byte is read before any is written */
  for (uint32_t r = 0; r < height; r++)
    for (uint32_t i = 0, k; i < width; i += k) {
      const uint32_t va = src + r * spitch + i;
      k = in_page(va, width - i);
      const uint32_t pa = xl(m, nd, level, va, SGPU_HW_ACCESS_READ);
      memcpy(tmp + (size_t)r * width + i, m->mem + pa, k);
      if (tu) memcpy(tu + (size_t)r * width + i, m->undef + pa, k);
    }
  for (uint32_t r = 0; r < height; r++)
    for (uint32_t i = 0, k; i < width; i += k) {
      const uint32_t va = dst + r * dpitch + i;
      k = in_page(va, width - i);
      const uint32_t pa = xl(m, nd, level, va, SGPU_HW_ACCESS_WRITE);
      memcpy(m->mem + pa, tmp + (size_t)r * width + i, k);
      count_writes(m, pa, k);
      if (tu) memcpy(m->undef + pa, tu + (size_t)r * width + i, k);
    }
  free(tmp);
  free(tu);
}

static ex_result exec_buffer(sgpu_ref *m, uint32_t n, uint32_t addr, uint32_t len, uint32_t level);

/* The resume state of node n at a boundary at IB level `level` (the next
 * header at each level in nd->ib_next[], the ring's in RPTR), as the save area
 * holds it (docs/interface.md, "Preemption save area"); *meaningful gets a
 * bit per word that the state defines at this level. */
static void save_state(const sgpu_ref *m, uint32_t n, uint32_t level, int in_wait, uint32_t *w, uint32_t *meaningful) {
  const ref_node *nd = &m->node[n];
  memset(w, 0, SGPU_SAVE_PREEMPT_FENCE * sizeof *w);
  w[SGPU_SAVE_RING_NEXT] = nd->rptr;
  w[SGPU_SAVE_LEVEL] = level | (in_wait ? SGPU_SAVE_LEVEL_IN_WAIT : 0u);
  /* RECT, RECT_PART and RECT_ROW are 0 unless a FILL or COPY was cut (cut_here) */
  *meaningful = 1u << SGPU_SAVE_RING_NEXT | 1u << SGPU_SAVE_LEVEL | 1u << SGPU_SAVE_RECT |
                1u << SGPU_SAVE_RECT_PART | 1u << SGPU_SAVE_RECT_ROW;
  if (level >= 1) {
    w[SGPU_SAVE_IB1_NEXT] = nd->ib_next[1];
    w[SGPU_SAVE_IB1_END] = nd->ib_end[1];
    *meaningful |= 1u << SGPU_SAVE_IB1_NEXT | 1u << SGPU_SAVE_IB1_END;
  }
  if (level >= 2) {
    w[SGPU_SAVE_IB2_NEXT] = nd->ib_next[2];
    w[SGPU_SAVE_IB2_END] = nd->ib_end[2];
    *meaningful |= 1u << SGPU_SAVE_IB2_NEXT | 1u << SGPU_SAVE_IB2_END;
  }
}

/* A boundary of node n: before a packet header at IB level `level` (also the
 * end of a buffer, and the empty ring), or inside a WAIT that waits (in_wait:
 * the WAIT's header is the next packet).  When it is where the armed
 * preemption is taken, the node writes its resume state, the preemption fence
 * id last, and stops: returns 1. */
static int stop_matches(const ref_node *nd, const uint32_t *w, uint32_t mean) {
  for (uint32_t i = 0; i < SGPU_SAVE_PREEMPT_FENCE; i++)
    if (((mean >> i) & 1u) && w[i] != nd->stop[i]) return 0;
  return 1;
}

static void take_stop(sgpu_ref *m, uint32_t n, const uint32_t *w, uint32_t mean);

static int preempt_here(sgpu_ref *m, uint32_t n, uint32_t level, int in_wait) {
  ref_node *nd = &m->node[n];
  if (!nd->stop_armed) return 0;
  uint32_t w[SGPU_SAVE_PREEMPT_FENCE], mean;
  save_state(m, n, level, in_wait, w, &mean);
  if (!stop_matches(nd, w, mean)) return 0;
  take_stop(m, n, w, mean);
  return 1;
}

/* The node stops at the armed boundary: the save area (the words a level
 * does not use hold whatever the chip had: chip-defined), the preemption
 * fence id last, STATUS.PREEMPTED, DMA_PREEMPTED. */
static void take_stop(sgpu_ref *m, uint32_t n, const uint32_t *w, uint32_t mean) {
  ref_node *nd = &m->node[n];
  /* the words a level does not use hold whatever the chip had: chip-defined */
  for (uint32_t i = 0; i < SGPU_SAVE_PREEMPT_FENCE; i++) {
    const uint32_t a = nd->save_addr + 4 * i;
    wr32(m, a, w[i]);
    if (!((mean >> i) & 1u)) {
      if (!m->undef) {
        m->undef = calloc(m->cfg.mem_bytes, 1);
        if (!m->undef) {
          fprintf(stderr, "sgpu_ref: out of memory\n");
          abort();
        }
      }
      memset(m->undef + a, 1, 4);
    }
  }
  wr32(m, nd->save_addr + 4 * SGPU_SAVE_PREEMPT_FENCE, nd->preempt_id);
  nd->stop_armed = 0;
  nd->preempted = 1;
  m->int_status |= SGPU_INT_DMA_PREEMPTED(n);
  m->stats.preempted++;
  if (m->trace)
    fprintf(m->trace, "  node %u PREEMPTED at ring 0x%x level 0x%x IB1 0x%08x..0x%08x IB2 0x%08x..0x%08x\n", n,
            w[0], w[1], w[2], w[3], w[4], w[5]);
}

/* The FILL or COPY p (header at haddr, at IB level `level`) when the armed
 * stop names it cut (LEVEL[9], its header the level's next packet): what it
 * left, RECT_PART (part of a row, run first) and RECT (whole rows after),
 * must be a cut docs/preemption.md allows — in a top-down order the rest of
 * a row from a chunk boundary (chunks of 64 words) and the rows below, or a
 * row's end and the rows below; in a bottom-up run to the last row (a COPY)
 * a row's left part up to a chunk boundary and the rows above from the
 * run's first — and for a COPY, what was done must not have written a
 * source byte of what is left (else the rest, run later, would read it).
 * Then the model writes what was done (a COPY through a temporary, as the
 * whole command) and stops: returns 1.  0: not this stop. */
static int cut_here(sgpu_ref *m, uint32_t n, uint32_t haddr, uint32_t level, const uint32_t *p) {
  ref_node *nd = &m->node[n];
  if (!nd->stop_armed || !(nd->stop[SGPU_SAVE_LEVEL] & SGPU_SAVE_LEVEL_IN_RECT)) return 0;
  const int copy = SGPU_PKT_GET(OPCODE, p[0]) == SGPU_OP_COPY;
  const uint32_t dst = p[1], dp = p[2], src = copy ? p[3] : 0, sp = copy ? p[4] : 0;
  const uint32_t wid = copy ? p[5] : p[3], hgt = copy ? p[6] : p[4];
  uint32_t w[SGPU_SAVE_PREEMPT_FENCE], mean;
  if (level) nd->ib_next[level] = haddr;
  save_state(m, n, level, 0, w, &mean);
  w[SGPU_SAVE_LEVEL] |= SGPU_SAVE_LEVEL_IN_RECT;
  w[SGPU_SAVE_RECT] = nd->stop[SGPU_SAVE_RECT];
  w[SGPU_SAVE_RECT_PART] = nd->stop[SGPU_SAVE_RECT_PART];
  w[SGPU_SAVE_RECT_ROW] = nd->stop[SGPU_SAVE_RECT_ROW];
  if (!stop_matches(nd, w, mean)) return 0;
  const uint32_t first = w[SGPU_SAVE_RECT] & 0xFFFFu, count = w[SGPU_SAVE_RECT] >> 16;
  const uint32_t part = (w[SGPU_SAVE_RECT_ROW] >> 16) & 1u, prow = w[SGPU_SAVE_RECT_ROW] & 0xFFFFu;
  const uint32_t lo = w[SGPU_SAVE_RECT_PART] & 0xFFFFu, hi = w[SGPU_SAVE_RECT_PART] >> 16;
  if (w[SGPU_SAVE_RECT_ROW] >> 17) return 0;
  /* a chunk boundary: the chunks of a row are 64 words (256 bytes) from
   * the row's first word, so its offset plus the row's first byte's lane */
  #define AT_CHUNK(row, off) ((((off) + ((dst + (row) * dp) & 3u)) % 256u) == 0)
  int ok;
  if (part) {
    const int down_part = lo == 0 && hi > 0 && hi < wid && AT_CHUNK(prow, hi) && first + count == prow;
    const int up_part = hi == wid && lo > 0 && lo < wid && AT_CHUNK(prow, lo) &&
                        (count ? first == prow + 1 && first + count == hgt : prow + 1 == hgt);
    ok = prow < hgt && (up_part || (copy && down_part));
  } else {
    const int up_rows = count && first >= 1 && first + count == hgt;
    const int down_rows = copy && count && first + count < hgt;
    ok = up_rows || down_rows;
  }
  #undef AT_CHUNK
  if (!ok) return 0;
  /* left: bytes [lo, hi) of row prow, and rows [first, first + count) */
  #define LEFT(r, i) ((part && (r) == prow && (i) >= lo && (i) < hi) || ((r) >= first && (r) < first + count))
  uint8_t *tmp = malloc((size_t)wid * hgt + 1), *tu = copy && m->undef ? malloc((size_t)wid * hgt + 1) : NULL;
  if (!tmp || (copy && m->undef && !tu)) {
    fprintf(stderr, "sgpu_ref: out of memory\n");
    abort();
  }
  for (uint32_t r = 0; r < hgt; r++)
    for (uint32_t i = 0; i < wid; i++) {
      const size_t k = (size_t)r * wid + i;
      const uint32_t sa = copy ? xl(m, n, level, src + r * sp + i, SGPU_HW_ACCESS_READ) : 0;
      tmp[k] = copy ? m->mem[sa] : (uint8_t)(p[5] >> (8 * ((dst + r * dp + i) & 3)));
      if (tu) tu[k] = m->undef[sa];
    }
  for (uint32_t r = 0; r < hgt; r++) {
    uint32_t run = 0; /* bytes done, written, before byte i (inside one page) */
    for (uint32_t i = 0; i <= wid; i++) {
      const uint32_t a = dst + r * dp + i;
      if (run && (i == wid || LEFT(r, i) || a % SGPU_PAGE_BYTES == 0)) {
        count_writes(m, xl(m, n, level, a - run, SGPU_HW_ACCESS_WRITE), run);
        run = 0;
      }
      if (i < wid && !LEFT(r, i)) {
        const uint32_t pa = xl(m, n, level, a, SGPU_HW_ACCESS_WRITE);
        m->mem[pa] = tmp[(size_t)r * wid + i];
        if (tu) m->undef[pa] = tu[(size_t)r * wid + i];
        else set_defined(m, pa, 1);
        run++;
      }
    }
  }
  free(tu);
  /* what is left reads its sources later: they must be as they were */
  int clean = 1;
  for (uint32_t r = 0; copy && r < hgt && clean; r++)
    for (uint32_t i = 0; i < wid; i++)
      if (LEFT(r, i) && m->mem[xl(m, n, level, src + r * sp + i, SGPU_HW_ACCESS_READ)] != tmp[(size_t)r * wid + i]) {
        clean = 0;
        break;
      }
  #undef LEFT
  free(tmp);
  if (!clean) {
    if (m->trace) fprintf(m->trace, "  node %u: the cut COPY at 0x%08x wrote over a source byte it left\n", n, haddr);
    return 0;
  }
  take_stop(m, n, w, mean);
  return 1;
}

/* Execute the checked packet m->pkt (header at haddr, at IB level `level`). */
static ex_result exec_packet(sgpu_ref *m, uint32_t n, uint32_t haddr, uint32_t level) {
  ref_node *nd = &m->node[n];
  const uint32_t *p = m->pkt;
  const uint32_t h = p[0], op = SGPU_PKT_GET(OPCODE, h), fl = SGPU_PKT_GET(FLAGS, h);
  const uint32_t cnt = SGPU_PKT_GET(COUNT, h);
  switch (op) {
  case SGPU_OP_NOP: break;
  case SGPU_OP_INDIRECT:
    if (fl & SGPU_INDIRECT_FLAG_SKIP) {
      m->stats.ib_skipped++;
      break;
    }
    m->stats.ib_entered++;
    if (level + 1 > m->stats.max_depth) m->stats.max_depth = level + 1;
    return exec_buffer(m, n, p[1], p[2], level + 1);
  case SGPU_OP_FENCE: {
    const uint32_t pa = xl(m, n, level, p[1], SGPU_HW_ACCESS_WRITE);
    wr32(m, pa, p[2]);
    nd->last_fence = p[2];
    m->fences = grow(m->fences, &m->cfences, m->nfences, sizeof *m->fences);
    m->fences[m->nfences++] = (sgpu_ref_fence){n, pa, p[2], fl & SGPU_FENCE_FLAG_IRQ};
    if (fl & SGPU_FENCE_FLAG_IRQ) m->int_status |= SGPU_INT_DMA_COMPLETED(n);
    break;
  }
  case SGPU_OP_WRITE_DATA:
    for (uint32_t i = 0; i + 1 < cnt; i++) wr32(m, xl(m, n, level, p[1] + 4 * i, SGPU_HW_ACCESS_WRITE), p[2 + i]);
    break;
  case SGPU_OP_WAIT_MEM: {
    uint32_t func = fl & SGPU_WAIT_FUNC_MASK;
    const uint32_t pa = xl(m, n, level, p[1], SGPU_HW_ACCESS_READ);
    if (m->undef) {
      const uint8_t *u = m->undef + pa;
      if (u[0] | u[1] | u[2] | u[3]) {
        m->stats.indeterminate++;
        break;
      }
    }
    if (!wait_true(rd32(m, pa) & p[2], p[3], func)) {
      /* between two polls a preemption may cut the wait: it runs again */
      nd->ib_next[level] = haddr;
      if (preempt_here(m, n, level, 1)) return EX_STOP;
      return wait_forever(m, n, haddr, h);
    }
    break;
  }
  case SGPU_OP_WAIT_VSYNC:
    /* it waits for the next vblank: a preemption may cut it */
    nd->ib_next[level] = haddr;
    if (preempt_here(m, n, level, 1)) return EX_STOP;
    vsync_wait(m, p[1]);
    break;
  case SGPU_OP_WAIT_SCANLINE:
    /* the beam is on a line (0 = first active line) only outside vertical
     * blanking, so every WAIT_SCANLINE ends by the next vblank; while it
     * waits, a preemption may cut it */
    nd->ib_next[level] = haddr;
    if (preempt_here(m, n, level, 1)) return EX_STOP;
    break;
  case SGPU_OP_FILL:
  case SGPU_OP_COPY:
    /* a preemption may cut it after a chunk: its header is the next packet */
    if (cut_here(m, n, haddr, level, p)) return EX_STOP;
    if (op == SGPU_OP_FILL) do_fill(m, n, level, p);
    else do_copy(m, n, level, p);
    break;
  case SGPU_OP_FLIP:
    /* the display gets the physical address (scanout is physical) */
    flip(m, n, p[1], xl(m, n, level, p[2], SGPU_HW_ACCESS_READ), p[3], fl & SGPU_FLIP_FLAG_NO_WAIT);
    break;
  case SGPU_OP_TLB_INVALIDATE: break; /* the model has no TLB */
  case SGPU_OP_CONTEXT:
    nd->ctx_id = p[1];
    nd->vm = m->vm && p[1] && (fl & SGPU_CONTEXT_FLAG_VM);
    nd->vm_root = nd->vm ? p[2] & ~(SGPU_PAGE_BYTES - 1) : 0;
    if (p[1]) {
      nd->win_base = p[2];
      nd->win_size = p[3];
    } else {
      nd->win_base = 0;
      nd->win_size = m->cfg.mem_bytes;
    }
    break;
  case SGPU_OP_TIMESTAMP: {
    if (!m->undef) {
      m->undef = calloc(m->cfg.mem_bytes, 1);
      if (!m->undef) {
        fprintf(stderr, "sgpu_ref: out of memory\n");
        abort();
      }
    }
    /* two words, each translated (they may lie in two pages); the log
     * holds the first one's physical address */
    const uint32_t pa0 = xl(m, n, level, p[1], SGPU_HW_ACCESS_WRITE);
    for (uint32_t i = 0; i < 2; i++) {
      const uint32_t pa = i ? xl(m, n, level, p[1] + 4, SGPU_HW_ACCESS_WRITE) : pa0;
      memset(m->mem + pa, 0, 4);
      memset(m->undef + pa, 1, 4);
      count_writes(m, pa, 4);
    }
    m->ts = grow(m->ts, &m->cts, m->nts, sizeof *m->ts);
    m->ts[m->nts++] = pa0;
    break;
  }
  default: break;
  }
  return EX_OK;
}

static void trace_packet(sgpu_ref *m, uint32_t n, uint32_t haddr, uint32_t level, uint32_t nw) {
  fprintf(m->trace, "  node %u L%u 0x%08x %-13s", n, level, haddr, sgpu_ref_opcode_name(SGPU_PKT_GET(OPCODE, m->pkt[0])));
  for (uint32_t i = 0; i < nw && i < 8; i++) fprintf(m->trace, " %08x", m->pkt[i]);
  fprintf(m->trace, nw > 8 ? " ...\n" : "\n");
}

/* Payload checks of the packet in m->pkt (its header passed) at IB level
 * `level` of node n; returns the fault or NONE. */
static uint32_t check(sgpu_ref *m, uint32_t n, uint32_t level, char *why, size_t why_size) {
  ref_node *nd = &m->node[n];
  sgpu_pkt_vm vm;
  sgpu_pkt_env env = {m->cfg.mem_bytes, m->cfg.sources, level, 0, 0, 0, m->cfg.ib_depth, node_vm(m, n, &vm)};
  if (level >= 1 && nd->ctx_id != 0 && !env.vm) {
    env.windowed = 1;
    env.win_base = nd->win_base;
    env.win_end = (uint64_t)nd->win_base + nd->win_size;
  }
  const uint32_t r = sgpu__check_payload(&env, m->pkt, why, why_size);
  if (env.vm && (r == SGPU_FAULT_PAGE_NOT_PRESENT || r == SGPU_FAULT_PAGE_PROTECTION)) {
    nd->check_va = vm.fault_va;
    nd->check_access = vm.fault_access;
  }
  return r;
}

static void count_packet(sgpu_ref *m, uint32_t h) {
  uint32_t op = SGPU_PKT_GET(OPCODE, h);
  m->stats.packets[op < SGPU_OP_COUNT_OF_OPCODES ? op : SGPU_OP_COUNT_OF_OPCODES]++;
}

/* Execute the INDIRECT buffer [addr, addr+len) at IB level `level`. */
static ex_result exec_buffer(sgpu_ref *m, uint32_t n, uint32_t addr, uint32_t len, uint32_t level) {
  ref_node *nd = &m->node[n];
  if (len == 0) return EX_OK; /* nothing entered */
  uint32_t saved_depth = nd->depth;
  nd->depth = level;
  uint32_t off = 0;
  if (level <= SGPU_MAX_IB_DEPTH) nd->ib_end[level] = addr + len;
  for (;;) {
    /* a boundary: before each header, and at the end of the buffer */
    if (level <= SGPU_MAX_IB_DEPTH) {
      nd->ib_next[level] = addr + off;
      if (preempt_here(m, n, level, 0)) return EX_STOP;
    }
    if (off >= len) break;
    const uint32_t haddr = addr + off;
    const uint64_t avail = (len - off) / 4;
    /* fetched through the context's tables (the INDIRECT's page check
     * covered the buffer) */
    m->pkt[0] = rd32(m, xl(m, n, level, haddr, SGPU_HW_ACCESS_FETCH));
    count_packet(m, m->pkt[0]);
    uint32_t cnt = SGPU_PKT_GET(COUNT, m->pkt[0]);
    char why[160] = "";
    uint32_t r = sgpu__check_header(m->pkt[0], avail, why, sizeof why);
    uint32_t nw = 1;
    if (r == SGPU_FAULT_NONE) {
      nw = 1 + cnt;
      for (uint32_t i = 1; i < nw; i++) m->pkt[i] = rd32(m, xl(m, n, level, haddr + 4 * i, SGPU_HW_ACCESS_FETCH));
      r = check(m, n, level, why, sizeof why);
    }
    if (m->trace) trace_packet(m, n, haddr, level, nw);
    if (r != SGPU_FAULT_NONE) {
      fault(m, n, r, haddr, m->pkt[0], why);
      return EX_STOP;
    }
    off += 4 * nw;
    if (level <= SGPU_MAX_IB_DEPTH) nd->ib_next[level] = addr + off;
    if (exec_packet(m, n, haddr, level) != EX_OK) return EX_STOP;
  }
  nd->depth = saved_depth;
  return EX_OK;
}

static void rptr_writeback(sgpu_ref *m, uint32_t n) {
  ref_node *nd = &m->node[n];
  if (nd->rptr_addr & 1u) wr32(m, nd->rptr_addr & ~3u, nd->rptr);
}

/* Run node n from RPTR to WPTR. */
static void run_ring(sgpu_ref *m, uint32_t n) {
  ref_node *nd = &m->node[n];
  const uint32_t mask = nd->ring_size - 1;
  for (;;) {
    if (nd->faulted || nd->waiting || nd->preempted || !(nd->control & SGPU_CONTROL_ENABLE)) break;
    /* a boundary before each ring header, and the empty ring */
    if (preempt_here(m, n, 0, 0) || nd->rptr == nd->wptr) break;
    const uint32_t haddr = nd->ring_base + nd->rptr;
    const uint64_t avail = ((nd->wptr - nd->rptr) & mask) / 4;
    m->pkt[0] = rd32(m, haddr);
    count_packet(m, m->pkt[0]);
    const uint32_t h = m->pkt[0], cnt = SGPU_PKT_GET(COUNT, h);
    char why[160] = "";
    uint32_t r = sgpu__check_header(h, avail, why, sizeof why);
    uint32_t nw = 1;
    if (r == SGPU_FAULT_NONE) {
      nw = 1 + cnt;
      for (uint32_t i = 1; i < nw; i++) m->pkt[i] = rd32(m, nd->ring_base + ((nd->rptr + 4 * i) & mask));
      /* the submission's fence id is in flight from the ring-level INDIRECT on,
       * also when that INDIRECT itself faults */
      if (SGPU_PKT_GET(OPCODE, h) == SGPU_OP_INDIRECT && cnt == SGPU_OP_INDIRECT_COUNT)
        nd->fence_in_flight = m->pkt[3];
      r = check(m, n, 0, why, sizeof why);
    }
    if (m->trace) trace_packet(m, n, haddr, 0, nw);
    if (r != SGPU_FAULT_NONE) {
      fault(m, n, r, haddr, h, why);
      return;
    }
    const uint32_t next = (nd->rptr + 4 * nw) & mask;
    if (SGPU_PKT_GET(OPCODE, h) == SGPU_OP_INDIRECT) {
      /* an INDIRECT completes when its buffer is entered */
      nd->rptr = next;
      rptr_writeback(m, n);
      if (exec_packet(m, n, haddr, 0) != EX_OK) return;
      nd->depth = 0;
    } else {
      if (exec_packet(m, n, haddr, 0) != EX_OK) return;
      nd->rptr = next;
      rptr_writeback(m, n);
    }
  }
}

/* ------------------------------------------------------------ registers */
static void node_reset(sgpu_ref *m, uint32_t n) {
  ref_node *nd = &m->node[n];
  nd->faulted = nd->waiting = 0;
  nd->fault_reason = nd->fault_addr = nd->fault_header = nd->fault_fence = 0;
  /* RESET clears what CONTROL says (fault, IB stack, context, pointers); the
   * fence in flight stays that of the last ring-level INDIRECT */
  nd->ctx_id = 0;
  nd->win_base = 0;
  nd->win_size = m->cfg.mem_bytes;
  nd->vm = nd->vm_root = 0;
  nd->fault_va = nd->fault_access = 0;
  nd->depth = 0;
  nd->rptr = nd->wptr = 0;
  nd->preempted = 0; /* a preempted node stays stopped until RESET */
  nd->stop_armed = 0;
}

int sgpu_ref_preempt_at(sgpu_ref *m, uint32_t n, const uint32_t *save) {
  if (n >= m->cfg.nodes) return -1;
  ref_node *nd = &m->node[n];
  if (nd->faulted || nd->preempted) return -1; /* a request is ignored */
  /* a node stuck in a wait that never ends (watchdog 0) would stop inside it:
   * not modelled (the differential test keeps the watchdog on) */
  if (nd->waiting) return -1;
  memcpy(nd->stop, save, sizeof nd->stop);
  nd->stop_armed = 1;
  run_ring(m, n); /* an idle node stops at once */
  return 0;
}

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

static void cfg_err(sgpu_ref *m, uint32_t offset, uint32_t bits) {
  m->cfg_error |= bits;
  m->cfg_error_addr = offset;
}

int sgpu_ref_reg_write(sgpu_ref *m, uint32_t offset, uint32_t v) {
  offset &= ~SGPU_REG_SPACE;
  switch (offset) {
  case SGPU_REG_INT_STATUS: m->int_status &= ~v; return 0;
  case SGPU_REG_INT_ENABLE: m->int_enable = v; return 0;
  case SGPU_REG_CFG_ERROR: m->cfg_error &= ~v; return 0;
  default: break;
  }
  if (offset >= SGPU_NODE_BASE && offset < SGPU_NODE_BASE + m->cfg.nodes * SGPU_NODE_STRIDE) {
    const uint32_t n = (offset - SGPU_NODE_BASE) / SGPU_NODE_STRIDE, r = (offset - SGPU_NODE_BASE) % SGPU_NODE_STRIDE;
    ref_node *nd = &m->node[n];
    const int enabled = nd->control & SGPU_CONTROL_ENABLE;
    /* Ring base, size and RPTR_ADDR change only on an idle, disabled node
     * (STATUS.BUSY = 0): a node of the model is busy only while it waits. */
    const int locked = enabled || nd->waiting;
    switch (r) {
    case SGPU_NREG_RING_BASE:
      if (locked) cfg_err(m, offset, SGPU_CFG_ERROR_WHILE_ENABLED);
      else if (v & 63u) cfg_err(m, offset, SGPU_CFG_ERROR_MISALIGNED);
      else if (v >= m->cfg.mem_bytes) cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
      else {
        nd->ring_base = v;
        nd->rptr = nd->wptr = 0;
      }
      return 0;
    case SGPU_NREG_RING_SIZE:
      if (locked) cfg_err(m, offset, SGPU_CFG_ERROR_WHILE_ENABLED);
      else if (!is_pow2(v) || v < SGPU_RING_SIZE_MIN || v > (1u << 20)) cfg_err(m, offset, SGPU_CFG_ERROR_RING_SIZE);
      else {
        nd->ring_size = v;
        nd->rptr = nd->wptr = 0;
      }
      return 0;
    case SGPU_NREG_RING_WPTR:
      if (v & 3u) cfg_err(m, offset, SGPU_CFG_ERROR_MISALIGNED);
      else if (v >= nd->ring_size) cfg_err(m, offset, SGPU_CFG_ERROR_POINTER_RANGE);
      else {
        nd->wptr = v;
        run_ring(m, n);
      }
      return 0;
    case SGPU_NREG_RPTR_ADDR:
      if (locked) cfg_err(m, offset, SGPU_CFG_ERROR_WHILE_ENABLED);
      else if (v & 2u) cfg_err(m, offset, SGPU_CFG_ERROR_UNKNOWN_BITS);
      else if ((v & ~3u) + 4u > m->cfg.mem_bytes || (v & ~3u) >= m->cfg.mem_bytes)
        cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
      else nd->rptr_addr = v;
      return 0;
    case SGPU_NREG_CONTROL:
      if (v & ~(SGPU_CONTROL_ENABLE | SGPU_CONTROL_RESET)) {
        cfg_err(m, offset, SGPU_CFG_ERROR_UNKNOWN_BITS);
        return 0;
      }
      if (v & SGPU_CONTROL_RESET) {
        node_reset(m, n);
        return 0;
      }
      if ((v & SGPU_CONTROL_ENABLE) && !enabled) {
        if (nd->ring_size == 0 || (nd->ring_base & (nd->ring_size - 1))) {
          cfg_err(m, offset, SGPU_CFG_ERROR_MISALIGNED);
          return 0;
        }
        if ((uint64_t)nd->ring_base + nd->ring_size > m->cfg.mem_bytes) {
          cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
          return 0;
        }
      }
      nd->control = v & SGPU_CONTROL_ENABLE;
      if (nd->control) run_ring(m, n);
      return 0;
    case SGPU_NREG_WATCHDOG:
      if (v > 0xFFFFFFu) cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
      else nd->watchdog = v;
      return 0;
    case SGPU_NREG_SAVE_ADDR:
      if (v & 3u) cfg_err(m, offset, SGPU_CFG_ERROR_MISALIGNED);
      else if (v >= m->cfg.mem_bytes) cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
      else nd->save_addr = v;
      return 0;
    case SGPU_NREG_PREEMPT:
      /* the model has no clock: where the request is taken comes from
       * sgpu_ref_preempt_at; the write only sets the preemption fence id */
      nd->preempt_id = v;
      return 0;
    case SGPU_NREG_QUANTUM:
      /* time slices change when a ring runs, not what it does: the model
       * runs every ring on its own and only keeps the value */
      if (v > SGPU_NREG_QUANTUM_MAX) cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
      else nd->quantum = v;
      return 0;
    default: return -1;
    }
  }
  if (offset >= SGPU_SOURCE_BASE && offset < SGPU_SOURCE_BASE + m->cfg.sources * SGPU_SOURCE_STRIDE) {
    const uint32_t s = (offset - SGPU_SOURCE_BASE) / SGPU_SOURCE_STRIDE, r = (offset - SGPU_SOURCE_BASE) % SGPU_SOURCE_STRIDE;
    if (r == SGPU_SREG_DISP_BASE) {
      if ((v & 3u) || v >= m->cfg.mem_bytes) cfg_err(m, offset, SGPU_CFG_ERROR_VALUE_RANGE);
      else m->src[s].base = v;
      return 0;
    }
  }
  return -1;
}

int sgpu_ref_reg_read(sgpu_ref *m, uint32_t offset, uint32_t *value) {
  offset &= ~SGPU_REG_SPACE;
  uint32_t v = 0;
  switch (offset) {
  case SGPU_REG_INT_STATUS: *value = m->int_status; return 0;
  case SGPU_REG_INT_ENABLE: *value = m->int_enable; return 0;
  case SGPU_REG_MEM_SIZE: *value = m->cfg.mem_bytes; return 0;
  case SGPU_REG_CFG_ERROR: *value = m->cfg_error; return 0;
  case SGPU_REG_CFG_ERROR_ADDR: *value = m->cfg_error_addr; return 0;
  default: break;
  }
  if (offset >= SGPU_NODE_BASE && offset < SGPU_NODE_BASE + m->cfg.nodes * SGPU_NODE_STRIDE) {
    const uint32_t n = (offset - SGPU_NODE_BASE) / SGPU_NODE_STRIDE, r = (offset - SGPU_NODE_BASE) % SGPU_NODE_STRIDE;
    const ref_node *nd = &m->node[n];
    switch (r) {
    case SGPU_NREG_RING_BASE: v = nd->ring_base; break;
    case SGPU_NREG_RING_SIZE: v = nd->ring_size; break;
    case SGPU_NREG_RING_WPTR: v = nd->wptr; break;
    case SGPU_NREG_RING_RPTR: v = nd->rptr; break;
    case SGPU_NREG_RPTR_ADDR: v = nd->rptr_addr; break;
    case SGPU_NREG_CONTROL: v = nd->control; break;
    case SGPU_NREG_STATUS:
      v = (nd->faulted ? SGPU_STATUS_FAULTED : 0) | (nd->waiting ? SGPU_STATUS_WAITING | SGPU_STATUS_BUSY : 0) |
          (nd->preempted ? SGPU_STATUS_PREEMPTED : 0) |
          ((nd->control & SGPU_CONTROL_ENABLE) ? SGPU_STATUS_ENABLED : 0);
      break;
    case SGPU_NREG_FAULT_REASON: v = nd->faulted ? nd->fault_reason : 0; break;
    case SGPU_NREG_FAULT_ADDR: v = nd->faulted ? nd->fault_addr : 0; break;
    case SGPU_NREG_FAULT_OPCODE: v = nd->faulted ? nd->fault_header : 0; break;
    case SGPU_NREG_FAULT_FENCE: v = nd->faulted ? nd->fault_fence : 0; break;
    case SGPU_NREG_FAULT_VA: v = nd->faulted ? nd->fault_va : 0; break;
    case SGPU_NREG_FAULT_ACCESS: v = nd->faulted ? nd->fault_access : 0; break;
    case SGPU_NREG_VM_ROOT: v = nd->vm ? nd->vm_root : 0; break;
    case SGPU_NREG_WATCHDOG: v = nd->watchdog; break;
    case SGPU_NREG_LAST_FENCE: v = nd->last_fence; break;
    case SGPU_NREG_CONTEXT_ID: v = nd->ctx_id; break;
    case SGPU_NREG_WINDOW_BASE: v = nd->win_base; break;
    case SGPU_NREG_WINDOW_SIZE: v = nd->win_size; break;
    case SGPU_NREG_SAVE_ADDR: v = nd->save_addr; break;
    case SGPU_NREG_PREEMPT: v = nd->preempt_id; break;
    case SGPU_NREG_QUANTUM: v = nd->quantum; break;
    default: return -1;
    }
    *value = v;
    return 0;
  }
  if (offset >= SGPU_SOURCE_BASE && offset < SGPU_SOURCE_BASE + m->cfg.sources * SGPU_SOURCE_STRIDE) {
    const uint32_t s = (offset - SGPU_SOURCE_BASE) / SGPU_SOURCE_STRIDE, r = (offset - SGPU_SOURCE_BASE) % SGPU_SOURCE_STRIDE;
    const ref_source *d = &m->src[s];
    switch (r) {
    case SGPU_SREG_DISP_BASE: v = d->base; break;
    case SGPU_SREG_DISP_PENDING: v = d->pend_valid ? (d->pend_addr & ~3u) | 1u : 0; break;
    case SGPU_SREG_DISP_FLIP_COUNT: v = d->flip_count; break;
    default: return -1;
    }
    *value = v;
    return 0;
  }
  return -1;
}
