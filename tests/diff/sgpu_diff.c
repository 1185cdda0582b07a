/* sgpu_diff — random differential testing of the RTL (the Verilator model of
 * the whole chip) against the reference model (tests/model/sgpu_ref.c).
 *
 * Per seed: a random workload (tests/diff/diff_gen.c) runs on a fresh chip
 * (random memory stalls and latency) and on the reference model, one ring
 * segment (doorbell) at a time; after each segment the interrupt bits of the
 * node (DMA_COMPLETED / DMA_FAULTED), STATUS.FAULTED, the FAULT_* registers,
 * RING_RPTR, LAST_FENCE and the context registers must agree; a faulted node
 * is RESET and the next segment runs.  At the end: memory (ring, RPTR
 * write-back, and the whole area the workload uses; chip-defined TIMESTAMP
 * words as a nondecreasing sequence), the order of FENCE writes (from the
 * chip's memory log), no chip write outside that area, and per display source
 * DISP_BASE and the flip count after the queued flips are taken, and at least
 * as many vblanks as the model's lower bound.
 *
 *   sgpu_diff [--seeds N] [--base S] [--random] [--seed S] [--verbose] [--no-shrink]
 *
 * A failing seed prints a reproduction command and a shrunk listing (packets
 * removed while it still fails the same way) in assembler syntax.  After a
 * run of many seeds: FIGURE diff_seeds_per_sec, per-1000-seed counts of each
 * opcode reached and each fault; fails if one never occurred (>= 500 seeds).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chip_util.h"
#include "diff_gen.h"
#include "sgpu_ref.h"

#define TINY_FRAME (SGPU_TIMING_TINY_H_TOTAL * SGPU_TIMING_TINY_V_TOTAL)
#define LOG_CAP (1u << 17)

static int g_verbose;
static size_t g_max_log; /* most memory-log events a seed needed */
static uint64_t g_busy_resets; /* RESETs of a node while the other one worked */
static const char *g_argv0 = "build/tests/diff/sgpu_diff";

typedef struct outcome {
  int fail;
  char tag[24];    /* kind of mismatch, for the shrinker */
  char msg[600];
  uint64_t cycles;
} outcome;

static void mismatch(outcome *o, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void mismatch(outcome *o, const char *tag, const char *fmt, ...) {
  char buf[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (g_verbose) printf("MISMATCH [%s] %s\n", tag, buf);
  if (o->fail) return;
  o->fail = 1;
  snprintf(o->tag, sizeof o->tag, "%s", tag);
  snprintf(o->msg, sizeof o->msg, "%s", buf);
}

typedef struct both {
  sgpu_sim *sim;
  sgpu_ref *ref;
} both;

static void put_ib(void *ctx, uint32_t addr, const uint32_t *words, size_t n) {
  both *b = ctx;
  CHIP_CHECK(sgpu_sim_backdoor_write(b->sim, addr, words, (uint32_t)(4 * n)) == 0, "IB 0x%08x", addr);
  CHIP_CHECK(sgpu_ref_mem_write(b->ref, addr, words, (uint32_t)(4 * n)) == 0, "IB 0x%08x (model)", addr);
}

/* Register write to both. */
static void wr2(both *b, uint32_t off, uint32_t v) {
  chip_wr(b->sim, off, v);
  CHIP_CHECK(sgpu_ref_reg_write(b->ref, off, v) == 0, "model register 0x%03x", off);
}

static uint32_t mrd(both *b, uint32_t off) {
  uint32_t v = 0;
  CHIP_CHECK(sgpu_ref_reg_read(b->ref, off, &v) == 0, "model register 0x%03x", off);
  return v;
}

static const char *nreg_name(uint32_t r) {
  switch (r) {
  case SGPU_NREG_FAULT_REASON: return "FAULT_REASON";
  case SGPU_NREG_FAULT_ADDR: return "FAULT_ADDR";
  case SGPU_NREG_FAULT_OPCODE: return "FAULT_OPCODE";
  case SGPU_NREG_FAULT_FENCE: return "FAULT_FENCE";
  case SGPU_NREG_RING_RPTR: return "RING_RPTR";
  case SGPU_NREG_LAST_FENCE: return "LAST_FENCE";
  case SGPU_NREG_CONTEXT_ID: return "CONTEXT_ID";
  case SGPU_NREG_WINDOW_BASE: return "WINDOW_BASE";
  case SGPU_NREG_WINDOW_SIZE: return "WINDOW_SIZE";
  default: return "?";
  }
}

/* Compare one node register; returns 1 when equal. */
static int cmp_nreg(both *b, uint32_t node, uint32_t r, size_t seg, outcome *o, const char *tag) {
  uint32_t c = chip_nrd(b->sim, node, r), m = mrd(b, SGPU_NODE_REG(node, r));
  if (c == m) return 1;
  mismatch(o, tag, "segment %zu: %s chip 0x%08x, model 0x%08x%s%s", seg, nreg_name(r), c, m,
           r == SGPU_NREG_FAULT_REASON ? " " : "",
           r == SGPU_NREG_FAULT_REASON ? sgpu_ref_fault_name(c) : "");
  return 0;
}

static uint32_t seg_cut(const dg_seg *s) {
  if (!s->cut || !s->ring.n) return 0;
  uint32_t last = s->ring.p[s->ring.n - 1].nw;
  return s->cut < last ? s->cut : last - 1;
}

/* A seed's work: the main workload, and sometimes a second node's running at
 * the same time in memory of its own. */
typedef struct job {
  dg_work w[2];
  int n;
} job;

static void job_generate(job *j, uint32_t seed, const dg_limits *lim, uint32_t nodes) {
  dg_generate(&j->w[0], seed, lim);
  j->n = 1;
  if (nodes >= 2 && (seed * 2654435761u) % 100 < 35) {
    dg_generate_second(&j->w[1], seed, lim, j->w[0].node ^ 1u);
    j->n = 2;
  }
}

static void job_free(job *j) {
  for (int i = 0; i < j->n; i++) dg_free(&j->w[i]);
}

static void job_clone(job *dst, const job *src) {
  dst->n = src->n;
  for (int i = 0; i < src->n; i++) {
    dg_work *c = dg_clone(&src->w[i]);
    dst->w[i] = *c;
    free(c);
  }
}

static size_t job_count(const job *j) {
  size_t n = 0;
  for (int i = 0; i < j->n; i++) n += dg_count(&j->w[i]);
  return n;
}

static void job_remove(job *j, size_t k) {
  size_t c0 = dg_count(&j->w[0]);
  if (k < c0) dg_remove(&j->w[0], k);
  else if (j->n > 1) dg_remove(&j->w[1], k - c0);
}

static void job_print(const job *j, FILE *out) {
  for (int i = 0; i < j->n; i++) {
    if (i) fprintf(out, "; at the same time, on node %u:\n", j->w[i].node);
    dg_print(&j->w[i], out);
  }
}

/* WATCHDOG for a segment.  The displays take memory first, so with them on a
 * node may wait a frame for memory; with two nodes, one waits while the other
 * holds the 2D engine, and the watchdog counts that as no progress (a 3000
 * cycle watchdog gave TIMEOUTs on valid FILLs: seeds 917, 1483, 1524). */
static uint32_t seg_watchdog(const job *j, uint32_t wd) {
  if (j->w[0].display && wd < 60000) wd = 60000;
  if (j->n > 1) {
    /* Memory refusing stall% of the requests stretches the other node's
     * blit by 100 / (100 - stall) (soak seeds 1885279588 and 1885280023: a
     * valid packet TIMEOUT at 87-88% stall with 30000). */
    uint64_t need = 30000ull * 100u / (100u - (j->w[0].stall < 99 ? j->w[0].stall : 99));
    if (need > 0xFFFFFF) need = 0xFFFFFF;
    if (wd < need) wd = (uint32_t)need;
  }
  return wd;
}

/* Is a chip write at a inside the memory a workload may write? */
static int in_work(const dg_work *w, uint32_t a) {
  return (a >= dg_ring_area(w) && a < dg_ring_area(w) + 0x10000) || (a >= dg_rptr_area(w) && a < dg_rptr_area(w) + 0x100) ||
         (a >= DG_SPAN_BASE + w->off && a < DG_SPAN_END + w->off);
}

/* After segment si stopped on node w->node (state 1 idle, 2 faulted, 3
 * hung): compare with the model, acknowledge the node's interrupts, RESET it
 * after a fault.  Returns 0 on a mismatch. */
static int finish_node(both *bp, const dg_work *w, int state, size_t si, uint64_t start, uint64_t limit, outcome *o) {
  both b = *bp;
  const uint32_t n = w->node;
  const uint32_t node_bits = SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n);
  sgpu_sim_run(b.sim, 16, 0);
  const uint32_t mst = mrd(&b, SGPU_NODE_REG(n, SGPU_NREG_STATUS));
  const int mfault = (mst & SGPU_STATUS_FAULTED) != 0;
  if (g_verbose)
    printf("segment %zu node %u: chip %s after %llu cycles; model %s\n", si, n,
           state == 1 ? "idle" : state == 2 ? "faulted" : "HUNG", (unsigned long long)(sgpu_sim_cycle(b.sim) - start),
           mfault ? "faulted" : "idle");
  if (state == 3) {
    mismatch(o, "hang", "segment %zu node %u: chip neither idle nor faulted after %llu cycles (STATUS 0x%x, RPTR 0x%x), model %s",
             si, n, (unsigned long long)limit, chip_nrd(b.sim, n, SGPU_NREG_STATUS), chip_nrd(b.sim, n, SGPU_NREG_RING_RPTR),
             mfault ? "faulted" : "idle");
    return 0;
  }
  if ((state == 2) != mfault) {
    const sgpu_ref_fault *mf;
    size_t nf = sgpu_ref_faults(b.ref, &mf);
    if (mfault)
      mismatch(o, "fault", "segment %zu node %u: model faults %s at 0x%08x (header 0x%08x), chip does not", si, n,
               sgpu_ref_fault_name(mf[nf - 1].reason), mf[nf - 1].addr, mf[nf - 1].header);
    else
      mismatch(o, "fault", "segment %zu node %u: chip faults %s at 0x%08x (header 0x%08x), model does not", si, n,
               sgpu_ref_fault_name(chip_nrd(b.sim, n, SGPU_NREG_FAULT_REASON)), chip_nrd(b.sim, n, SGPU_NREG_FAULT_ADDR),
               chip_nrd(b.sim, n, SGPU_NREG_FAULT_OPCODE));
    return 0;
  }
  if (state == 2) {
    if (!cmp_nreg(&b, n, SGPU_NREG_FAULT_REASON, si, o, "fault") || !cmp_nreg(&b, n, SGPU_NREG_FAULT_ADDR, si, o, "fault") ||
        !cmp_nreg(&b, n, SGPU_NREG_FAULT_OPCODE, si, o, "fault"))
      return 0;
    cmp_nreg(&b, n, SGPU_NREG_FAULT_FENCE, si, o, "fault_fence");
  }
  const uint32_t cis = chip_rd(b.sim, SGPU_REG_INT_STATUS) & node_bits, mis = mrd(&b, SGPU_REG_INT_STATUS) & node_bits;
  if (cis != mis)
    mismatch(o, "events", "segment %zu node %u: INT_STATUS node bits chip 0x%08x, model 0x%08x", si, n, cis, mis);
  cmp_nreg(&b, n, SGPU_NREG_RING_RPTR, si, o, "rptr");
  cmp_nreg(&b, n, SGPU_NREG_LAST_FENCE, si, o, "last_fence");
  if (cmp_nreg(&b, n, SGPU_NREG_CONTEXT_ID, si, o, "context") && mrd(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTEXT_ID))) {
    cmp_nreg(&b, n, SGPU_NREG_WINDOW_BASE, si, o, "context");
    cmp_nreg(&b, n, SGPU_NREG_WINDOW_SIZE, si, o, "context");
  }
  wr2(&b, SGPU_REG_INT_STATUS, node_bits);
  if (state == 2) wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
  return !o->fail;
}

/* Run the job on a fresh chip and the model, segment by segment (segment i
 * of every workload at the same time). */
static void run_job(job *j, outcome *o, sgpu_ref_stats *acc) {
  memset(o, 0, sizeof *o);
  const dg_work *w0 = &j->w[0];
  sgpu_sim_config cfg = {w0->latency, w0->stall, w0->sim_seed, NULL};
  both b;
  b.sim = chip_create(&cfg);
  const uint32_t mem = sgpu_sim_mem_bytes(b.sim), sources = sgpu_sim_sources(b.sim), nodes = sgpu_sim_nodes(b.sim);
  sgpu_ref_config rc = {mem, nodes, sources, SGPU_MAX_IB_DEPTH};
  b.ref = sgpu_ref_create(&rc);
  CHIP_CHECK(b.ref != NULL, "sgpu_ref_create");
  if (g_verbose) sgpu_ref_trace(b.ref, stdout);

  /* displays: TINY timing, so frames are short; pixel replication 2x2, so
   * scanout leaves the nodes some memory */
  uint32_t base0[SGPU_MAX_SOURCES] = {0}, flips0[SGPU_MAX_SOURCES] = {0}, vb0[SGPU_MAX_SOURCES] = {0};
  if (w0->display) {
    for (uint32_t s = 0; s < sources; s++) {
      chip_wr(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_PITCH), 128);
      chip_wr(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_CONTROL),
              (1u << SGPU_DISP_ENABLE_SHIFT) | (1u << SGPU_DISP_TINY_SHIFT) | (1u << SGPU_DISP_HREP_SHIFT) |
                  (1u << SGPU_DISP_VREP_SHIFT));
    }
  }
  for (uint32_t s = 0; s < sources; s++) {
    base0[s] = chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE));
    flips0[s] = chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_FLIP_COUNT));
    vb0[s] = chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_VBLANK_COUNT));
    CHIP_CHECK(sgpu_ref_reg_write(b.ref, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE), base0[s]) == 0, "DISP_BASE");
  }

  uint32_t watchdog[2], wptr[2] = {0, 0}, int_enable = 0;
  size_t nseg = 0;
  uint8_t *data = malloc(DG_DATA_END - DG_DATA_BASE);
  CHIP_CHECK(data != NULL, "oom");
  for (int k = 0; k < j->n; k++) {
    const dg_work *w = &j->w[k];
    const uint32_t n = w->node;
    dg_for_each_ib(w, put_ib, &b);
    dg_data_image(w, data);
    CHIP_CHECK(sgpu_sim_backdoor_write(b.sim, DG_DATA_BASE + w->off, data, DG_DATA_END - DG_DATA_BASE) == 0, "data");
    CHIP_CHECK(sgpu_ref_mem_write(b.ref, DG_DATA_BASE + w->off, data, DG_DATA_END - DG_DATA_BASE) == 0, "data");
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_BASE), w->ring_base);
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_SIZE), w->ring_size);
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RPTR_ADDR), w->rptr_addr);
    watchdog[k] = seg_watchdog(j, w->nseg ? w->seg[0].watchdog : 3000);
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_WATCHDOG), watchdog[k]);
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
    int_enable |= SGPU_INT_DMA_FAULTED(n);
    if (w->nseg > nseg) nseg = w->nseg;
  }
  free(data);
  wr2(&b, SGPU_REG_INT_ENABLE, int_enable);
  sgpu_sim_mem_log_enable(b.sim, LOG_CAP);
  const uint64_t t0 = sgpu_sim_cycle(b.sim);
  uint32_t split_rng = w0->sim_seed | 1u;

  for (size_t si = 0; si < nseg && !o->fail; si++) {
    int active[2] = {0, 0};
    uint32_t second_wptr[2] = {0, 0};
    uint64_t limit = 200000;
    /* put each workload's segment in its ring and ring its doorbell; now and
     * then in two steps, the second while the node works on the first */
    for (int k = 0; k < j->n; k++) {
      dg_work *w = &j->w[k];
      if (si >= w->nseg) continue;
      dg_seg *sg = &w->seg[si];
      const uint32_t n = w->node, mask = w->ring_size - 1;
      uint32_t *words;
      size_t nw = dg_layout(&sg->ring, &words);
      sg->start = wptr[k];
      if (!nw) {
        free(words);
        continue;
      }
      uint32_t wd = seg_watchdog(j, sg->watchdog);
      if (wd != watchdog[k]) {
        watchdog[k] = wd;
        wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_WATCHDOG), wd);
      }
      for (size_t i = 0; i < nw; i++) {
        uint32_t a = w->ring_base + ((wptr[k] + 4 * (uint32_t)i) & mask);
        chip_mem_write(b.sim, a, &words[i], 4);
        CHIP_CHECK(sgpu_ref_mem_write(b.ref, a, &words[i], 4) == 0, "ring");
      }
      free(words);
      uint32_t end = (wptr[k] + 4 * ((uint32_t)nw - seg_cut(sg))) & mask;
      if (!seg_cut(sg) && sg->ring.n >= 2 && chip_rand(&split_rng) % 100 < 30) {
        uint32_t first = 0, np = 1 + chip_rand(&split_rng) % (uint32_t)(sg->ring.n - 1);
        for (uint32_t i = 0; i < np; i++) first += sg->ring.p[i].nw;
        second_wptr[k] = end;
        end = (wptr[k] + 4 * first) & mask;
      }
      wptr[k] = end;
      if (g_verbose) printf("segment %zu node %u: doorbell WPTR 0x%x%s\n", si, n, end, second_wptr[k] ? " (and later more)" : "");
      wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), end);
      active[k] = 1;
      limit += (uint64_t)watchdog[k] * 4 + (w0->display ? 40u * TINY_FRAME : 0);
    }
    if (second_wptr[0] || second_wptr[1]) {
      sgpu_sim_run(b.sim, chip_rand(&split_rng) % 300, 0);
      for (int k = 0; k < j->n; k++) {
        if (!second_wptr[k]) continue;
        wptr[k] = second_wptr[k];
        if (g_verbose) printf("segment %zu node %u: doorbell WPTR 0x%x\n", si, j->w[k].node, wptr[k]);
        wr2(&b, SGPU_NODE_REG(j->w[k].node, SGPU_NREG_RING_WPTR), wptr[k]);
      }
    }

    /* the chip: until every node is idle or faulted */
    const uint64_t start = sgpu_sim_cycle(b.sim);
    int state[2] = {0, 0}; /* 0 running, 1 idle, 2 faulted, 3 hung */
    for (;;) {
      sgpu_sim_run(b.sim, 256, 1);
      int running = 0;
      for (int k = 0; k < j->n; k++) {
        if (!active[k] || state[k]) continue;
        const uint32_t n = j->w[k].node;
        uint32_t st = chip_nrd(b.sim, n, SGPU_NREG_STATUS);
        if (st & SGPU_STATUS_FAULTED) state[k] = 2;
        else if (!(st & (SGPU_STATUS_BUSY | SGPU_STATUS_WAITING)) &&
                 chip_nrd(b.sim, n, SGPU_NREG_RING_RPTR) == chip_nrd(b.sim, n, SGPU_NREG_RING_WPTR))
          state[k] = 1;
        else if (sgpu_sim_cycle(b.sim) - start > limit) state[k] = 3;
        else running = 1;
        /* a node that stopped is checked (and RESET after a fault) at once,
         * while the other one may still be working */
        if (state[k] && !finish_node(&b, &j->w[k], state[k], si, start, limit, o)) running = 0;
        if (state[k] == 2) wptr[k] = 0;
        /* now and then RESET a node that finished while the other still
         * works (it may own the 2D engine the other one is using or waiting
         * for): nothing of the other node's work may change */
        if (state[k] == 1 && !o->fail && j->n > 1 && active[k ^ 1] && !state[k ^ 1] &&
            chip_rand(&split_rng) % 100 < 60) {
          if (g_verbose) printf("segment %zu node %u: RESET while node %u works\n", si, j->w[k].node, j->w[k ^ 1].node);
          wr2(&b, SGPU_NODE_REG(j->w[k].node, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
          wptr[k] = 0;
          g_busy_resets++;
        }
      }
      if (!running || o->fail) break;
      if (sgpu_sim_irq(b.sim)) { /* a fault: look at once, without the interrupt standing in the way */
        sgpu_sim_run(b.sim, 1, 0);
      }
    }
  }

  /* displays: let the queued flips be taken */
  if (!o->fail && sources) {
    sgpu_ref_display_settle(b.ref);
    if (w0->display) {
      for (int k = 0; k < 64; k++) {
        uint32_t pend = 0;
        for (uint32_t s = 0; s < sources; s++) pend |= chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_PENDING)) & 1u;
        if (!pend) break;
        sgpu_sim_run(b.sim, TINY_FRAME / 4, 0);
      }
      sgpu_sim_run(b.sim, 8, 0);
    }
    for (uint32_t s = 0; s < sources; s++) {
      uint32_t cb = chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE));
      uint32_t mb = mrd(&b, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE));
      uint32_t cf = (chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_FLIP_COUNT)) - flips0[s]) & 0xFFFFu;
      uint32_t mf = mrd(&b, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_FLIP_COUNT));
      uint32_t cv = chip_rd(b.sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_VBLANK_COUNT)) - vb0[s];
      int64_t mv = sgpu_ref_vblanks(b.ref, s);
      if (cb != mb) mismatch(o, "display", "source %u: DISP_BASE chip 0x%08x, model 0x%08x", s, cb, mb);
      if (cf != mf) mismatch(o, "display", "source %u: flips taken chip %u, model %u", s, cf, mf);
      if ((int64_t)cv < mv)
        mismatch(o, "display", "source %u: chip saw %u vblanks, the model needs at least %lld", s, cv, (long long)mv);
    }
  }

  /* memory */
  const uint8_t *mm = sgpu_ref_memory(b.ref), *und = sgpu_ref_chip_defined(b.ref);
  for (int k = 0; k < j->n && !o->fail; k++) {
    const dg_work *w = &j->w[k];
    const struct { uint32_t base, size; } regions[] = {
        {dg_ring_area(w), 0x10000}, {dg_rptr_area(w), 0x100}, {DG_SPAN_BASE + w->off, DG_SPAN_END - DG_SPAN_BASE}};
    for (size_t r = 0; r < sizeof regions / sizeof regions[0] && !o->fail; r++) {
      uint8_t *img = malloc(regions[r].size);
      CHIP_CHECK(img != NULL, "oom");
      CHIP_CHECK(sgpu_sim_backdoor_read(b.sim, regions[r].base, img, regions[r].size) == 0, "read back");
      for (uint32_t i = 0; i < regions[r].size; i++) {
        uint32_t a = regions[r].base + i;
        if ((i & 4095) == 0 && i + 4096 <= regions[r].size && !memcmp(img + i, mm + a, 4096)) {
          i += 4095; /* equal page */
          continue;
        }
        if (img[i] != mm[a] && !(und && und[a])) {
          uint32_t wa = a & ~3u, cw, mw;
          CHIP_CHECK(sgpu_sim_backdoor_read(b.sim, wa, &cw, 4) == 0, "read back");
          memcpy(&mw, mm + wa, 4);
          mismatch(o, "memory", "memory differs first at 0x%08x: chip word 0x%08x, model 0x%08x", a, cw, mw);
          break;
        }
      }
      free(img);
    }
  }
  /* timestamps: per node nondecreasing in program order, not in the future */
  for (int k = 0; k < j->n && !o->fail; k++) {
    const uint32_t lo = DG_TS_BASE + j->w[k].off, hi = DG_TS_END + j->w[k].off;
    const uint32_t *ts;
    size_t nts = sgpu_ref_timestamps(b.ref, &ts);
    uint64_t prev = 0, now = sgpu_sim_cycle(b.sim);
    for (size_t i = 0; i < nts; i++) {
      if (ts[i] < lo || ts[i] >= hi) continue;
      int all = 1;
      for (int q = 0; q < 8; q++) all &= und[ts[i] + q] != 0;
      if (!all) continue;
      uint32_t v[2];
      CHIP_CHECK(sgpu_sim_backdoor_read(b.sim, ts[i], v, 8) == 0, "ts");
      uint64_t t = (uint64_t)v[1] << 32 | v[0];
      if (t < prev || t > now + 16 || t == 0) {
        mismatch(o, "timestamps", "TIMESTAMP #%zu at 0x%08x = %llu after %llu (now %llu)", i, ts[i],
                 (unsigned long long)t, (unsigned long long)prev, (unsigned long long)now);
        break;
      }
      prev = t;
    }
  }
  /* FENCE order (per node) and stray writes, from the memory log */
  if (!o->fail) {
    const sgpu_sim_mem_event *ev;
    size_t ne = sgpu_sim_mem_log(b.sim, &ev);
    if (ne >= LOG_CAP) mismatch(o, "log", "memory log overflowed (%zu events)", ne);
    if (ne > g_max_log) g_max_log = ne;
    for (size_t i = 0; i < ne && !o->fail; i++) {
      if (!ev[i].write) continue;
      int ok = 0;
      for (int k = 0; k < j->n; k++) ok |= in_work(&j->w[k], ev[i].address);
      if (!ok)
        mismatch(o, "stray", "chip wrote 0x%08x (strobe 0x%x) at 0x%08x, outside the workloads' memory", ev[i].data,
                 ev[i].strobe, ev[i].address);
    }
    const sgpu_ref_fence *mf;
    size_t nmf = sgpu_ref_fences(b.ref, &mf);
    for (int k = 0; k < j->n && !o->fail; k++) {
      const uint32_t lo = DG_FENCE_BASE + j->w[k].off, hi = DG_FENCE_END + j->w[k].off;
      size_t q = 0, count = 0;
      for (size_t i = 0; i < ne && !o->fail; i++) {
        uint32_t a = ev[i].address;
        if (!ev[i].write || a < lo || a >= hi) continue;
        while (q < nmf && (mf[q].addr < lo || mf[q].addr >= hi)) q++;
        if (q >= nmf || mf[q].addr != a || mf[q].value != ev[i].data) {
          mismatch(o, "fences", "node %u FENCE write #%zu: chip 0x%08x <- %u, model %s0x%08x <- %u", j->w[k].node, count, a,
                   ev[i].data, q >= nmf ? "(none) " : "", q < nmf ? mf[q].addr : 0, q < nmf ? mf[q].value : 0);
          break;
        }
        q++;
        count++;
      }
      while (!o->fail && q < nmf && (mf[q].addr < lo || mf[q].addr >= hi)) q++;
      if (!o->fail && q < nmf)
        mismatch(o, "fences", "node %u: chip wrote %zu FENCEs, the model more (next: 0x%08x <- %u)", j->w[k].node, count,
                 mf[q].addr, mf[q].value);
    }
  }
  o->cycles = sgpu_sim_cycle(b.sim) - t0;
  if (acc) {
    const sgpu_ref_stats *st = sgpu_ref_get_stats(b.ref);
    for (size_t i = 0; i <= SGPU_OP_COUNT_OF_OPCODES; i++) acc->packets[i] += st->packets[i];
    for (size_t i = 0; i < SGPU_FAULT_COUNT; i++) acc->faults[i] += st->faults[i];
    acc->indeterminate += st->indeterminate;
    acc->ib_entered += st->ib_entered;
    acc->ib_skipped += st->ib_skipped;
    if (st->max_depth > acc->max_depth) acc->max_depth = st->max_depth;
  }
  sgpu_ref_destroy(b.ref);
  sgpu_sim_destroy(b.sim);
}

/* Drop packets while the job still fails the same way (ddmin). */
static void shrink(job *cur, const outcome *orig, int max_trials) {
  int saved = g_verbose, trials = 0;
  g_verbose = 0;
  size_t chunk = job_count(cur) / 2;
  if (!chunk) chunk = 1;
  while (trials < max_trials) {
    int progress = 0;
    size_t start = 0;
    while (start < job_count(cur) && trials < max_trials) {
      job cand;
      job_clone(&cand, cur);
      size_t end = start + chunk;
      if (end > job_count(&cand)) end = job_count(&cand);
      for (size_t k = end; k-- > start;)
        if (k < job_count(&cand)) job_remove(&cand, k);
      outcome o;
      run_job(&cand, &o, NULL);
      trials++;
      if (o.fail && !strcmp(o.tag, orig->tag)) {
        job_free(cur);
        *cur = cand;
        progress = 1;
      } else {
        job_free(&cand);
        start += chunk;
      }
    }
    if (!progress) {
      if (chunk == 1) break;
      chunk /= 2;
    }
  }
  g_verbose = saved;
  outcome o;
  run_job(cur, &o, NULL); /* sets the segment start offsets for the listing */
  printf("  shrunk to %zu packets in %d runs: %s\n", job_count(cur), trials, o.fail ? o.msg : "(passes now?)");
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  uint32_t seeds = 2000, base = 1, single = 0;
  int have_single = 0, shrink_on = 1, random_base = 0, announce = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--base") && i + 1 < argc) base = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      single = (uint32_t)strtoul(argv[++i], NULL, 0);
      have_single = 1;
    } else if (!strcmp(argv[i], "--verbose")) g_verbose = 1;
    else if (!strcmp(argv[i], "--no-shrink")) shrink_on = 0;
    else if (!strcmp(argv[i], "--random")) random_base = 1;
    else if (!strcmp(argv[i], "--announce")) announce = 1;
    else {
      fprintf(stderr, "usage: %s [--seeds N] [--base S | --random] [--seed S] [--verbose] [--no-shrink] [--announce]\n",
              argv[0]);
      return 2;
    }
  }
  g_argv0 = argv[0];
  if (random_base) {
    base = (uint32_t)time(NULL) ^ ((uint32_t)clock() << 16);
    printf("random base seed %u (rerun: %s --seeds %u --base %u)\n", base, g_argv0, seeds, base);
  }
  if (have_single) {
    base = single;
    seeds = 1;
  }
  sgpu_sim *probe = chip_create(NULL);
  dg_limits lim = {sgpu_sim_mem_bytes(probe), sgpu_sim_sources(probe)};
  const uint32_t nodes = sgpu_sim_nodes(probe);
  sgpu_sim_destroy(probe);

  sgpu_ref_stats acc;
  memset(&acc, 0, sizeof acc);
  uint32_t failures = 0, shrunk = 0, two = 0;
  uint64_t cycles = 0;
  const double t0 = now_s();
  for (uint32_t i = 0; i < seeds; i++) {
    const uint32_t seed = base + i;
    job j;
    /* --announce: the seed before it runs, so a run that a failing
       assertion aborts (the model with assertions on) names its seed */
    if (announce) {
      printf("seed %u\n", seed);
      fflush(stdout);
    }
    job_generate(&j, seed, &lim, nodes);
    two += j.n > 1;
    if (g_verbose) job_print(&j, stdout);
    outcome o;
    run_job(&j, &o, &acc);
    cycles += o.cycles;
    if (o.fail) {
      failures++;
      printf("FAIL seed %u [%s]: %s\n", seed, o.tag, o.msg);
      printf("  reproduce: %s --seed %u --verbose\n", g_argv0, seed);
      if (shrink_on && shrunk < 3) {
        shrunk++;
        shrink(&j, &o, 400);
        job_print(&j, stdout);
      }
      fflush(stdout);
    }
    job_free(&j);
  }
  const double dt = now_s() - t0;
  printf("%u seeds (%u with two nodes at once), %u failed, %.1f s, %llu chip cycles\n", seeds, two, failures, dt,
         (unsigned long long)cycles);
  chip_figure("diff_seeds_per_sec", seeds / (dt > 0 ? dt : 1));
  int missing = 0;
  for (uint32_t op = 0; op < SGPU_OP_COUNT_OF_OPCODES; op++) {
    char name[80];
    snprintf(name, sizeof name, "diff_packets_per_1000_seeds_%s", sgpu_ref_opcode_name(op));
    chip_figure(name, (double)acc.packets[op] * 1000.0 / seeds);
    if (!acc.packets[op]) {
      printf("coverage: no %s packet was executed\n", sgpu_ref_opcode_name(op));
      missing++;
    }
  }
  for (uint32_t r = 1; r < SGPU_FAULT_COUNT; r++) {
    if (r == SGPU_FAULT_UNSUPPORTED) continue; /* this build implements every packet */
    char name[80];
    snprintf(name, sizeof name, "diff_faults_per_1000_seeds_%s", sgpu_ref_fault_name(r));
    chip_figure(name, (double)acc.faults[r] * 1000.0 / seeds);
    if (!acc.faults[r]) {
      printf("coverage: fault %s never happened\n", sgpu_ref_fault_name(r));
      missing++;
    }
  }
  printf("most memory-log events of a seed: %zu (capacity %u); RESETs while the other node worked: %llu\n",
         g_max_log, LOG_CAP, (unsigned long long)g_busy_resets);
  printf("IBs entered %llu, skipped %llu, deepest level %llu, indeterminate waits %llu\n",
         (unsigned long long)acc.ib_entered, (unsigned long long)acc.ib_skipped, (unsigned long long)acc.max_depth,
         (unsigned long long)acc.indeterminate);
  if (acc.indeterminate) {
    printf("FAIL: the generator made WAIT_MEM read chip-defined words\n");
    failures++;
  }
  if (seeds >= 500 && missing) {
    printf("FAIL: coverage incomplete (%d opcodes/faults never seen)\n", missing);
    return 1;
  }
  if (failures) return 1;
  printf("sgpu_diff: PASS\n");
  return 0;
}
