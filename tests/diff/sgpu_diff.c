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
 * words as a nondecreasing sequence), the order of FENCE writes and the
 * number of writes to each word (from the chip's memory log), no chip write outside that area, and per display source
 * DISP_BASE and the flip count after the queued flips are taken, and at least
 * as many vblanks as the model's lower bound.
 *
 * Preemption (tests/diff/README.md): in some seeds, PREEMPT requests at
 * random cycles; the model runs to the boundary the chip saved, both are
 * compared there, then resumed as the library resumes a submission.
 *
 *   sgpu_diff [--seeds N] [--base S] [--random] [--seed S] [--verbose] [--no-shrink]
 *             [--vm on|off] [--vm-pct P] [--vm-only]
 *
 * VM programs (tests/diff/README.md): P% (15) of the seeds run one after
 * their workload when the chip has CAPS.VM (--vm on|off overrides it;
 * --vm-only: the VM programs alone).
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
/* preemption requests: made, ignored (the node faulted first), taken; taken
 * by level (0..2), inside a WAIT, on an idle node; memory scribbled after */
/* VM programs (--vm on|off; default: on when the chip has CAPS.VM): the
 * share of seeds that run one, and what they did */
static int g_vm_on;
static uint32_t g_vm_pct = 15; /* --vm-pct */
static uint64_t g_vm_programs, g_vm_rewritten, g_vm_changes, g_vm_safety;
static uint64_t g_vm_faults[2][4]; /* [PROTECTION][ACCESS_*] as the chip reported them */
static uint64_t g_pre_again, g_pre_req, g_pre_faulted, g_pre_taken, g_pre_level[3], g_pre_wait, g_pre_idle, g_pre_scribbled,
    g_pre_rect;

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
  case SGPU_NREG_FAULT_VA: return "FAULT_VA";
  case SGPU_NREG_FAULT_ACCESS: return "FAULT_ACCESS";
  case SGPU_NREG_VM_ROOT: return "VM_ROOT";
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

/* A seed's work: the main workload, and sometimes a second (and third)
 * running at the same time in memory of its own. */
#define JOB_MAX 3
typedef struct job {
  dg_work w[JOB_MAX];
  int n;
  int preempt; /* random PREEMPT requests while segments run */
  uint32_t quantum[JOB_MAX]; /* QUANTUM of each workload's ring (time slices) */
} job;

/* QUANTUM for a normal ring: none, a tiny or small slice, or a large one. */
static uint32_t pick_quantum(uint32_t h) {
  switch (h % 8) {
  case 0: case 1: return 0;
  case 2: return 1 + (h >> 3) % 20;
  case 3: case 4: case 5: return 50 + (h >> 3) % 451;
  default: return 1000 + (h >> 3) % 100000;
  }
}

/* The main workload runs on a node's normal ring, or (rings > nodes) now and
 * then on its high-priority ring or (rings = 3 x nodes) its second normal
 * ring; a second one, in memory of its own, on the other node, on the
 * high-priority ring of the main one's node (which then holds the normal
 * ring at its boundaries while it has work) or on the node's other normal
 * ring (the two take turns by QUANTUM); sometimes all three rings of a node
 * run a workload each. */
/* Does the seed run a VM program after its workload? */
static int vm_seed(uint32_t seed) { return g_vm_on && (seed * 0x9E3779B9u >> 8) % 100 < g_vm_pct; }

static void job_generate(job *j, uint32_t seed, const dg_limits *lim, uint32_t nodes, uint32_t rings, int vm) {
  if (vm) {
    /* a VM program: alone on its ring, no preemption (a resume would have
     * to restore the VM context) */
    memset(j, 0, sizeof *j);
    dg_generate_vm(&j->w[0], seed, lim);
    j->n = 1;
    return;
  }
  dg_generate(&j->w[0], seed, lim);
  j->n = 1;
  j->preempt = (seed * 2246822519u >> 7) % 100 < 40;
  const uint32_t pick = (seed * 0x85EBCA6Bu) >> 25; /* 0..127 */
  const int slice = rings >= 3 * nodes;
  const uint32_t kind = (seed * 0xC2B2AE35u) >> 28;  /* 0..15 */
  const int high_pair = rings > nodes && j->w[0].node < nodes && pick < 64;
  const int b_pair = slice && high_pair && kind < 8;  /* instead of the high ring: the other normal one */
  for (int k = 0; k < JOB_MAX; k++) j->quantum[k] = pick_quantum((seed + 977u * (uint32_t)k) * 0x27D4EB2Fu >> 7);
  if ((nodes >= 2 || high_pair) && (seed * 2654435761u) % 100 < 35) {
    const uint32_t n0 = j->w[0].node;
    dg_generate_second(&j->w[1], seed, lim, b_pair ? n0 + 2 * nodes : high_pair ? n0 + nodes : n0 ^ 1u);
    j->n = 2;
    if (slice && high_pair && kind % 4 == 1) { /* all three rings of node n0 */
      dg_generate_third(&j->w[2], seed, lim, b_pair ? n0 + nodes : n0 + 2 * nodes);
      j->n = 3;
    }
  } else if (rings > nodes && pick >= 112) {
    j->w[0].node += nodes;
  } else if (slice && pick >= 96) {
    j->w[0].node += 2 * nodes;
  }
}

static void job_free(job *j) {
  for (int i = 0; i < j->n; i++) dg_free(&j->w[i]);
}

static void job_clone(job *dst, const job *src) {
  dst->n = src->n;
  dst->preempt = src->preempt;
  memcpy(dst->quantum, src->quantum, sizeof dst->quantum);
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
  for (int i = 0; i < j->n; i++) {
    const size_t c = dg_count(&j->w[i]);
    if (k < c) {
      dg_remove(&j->w[i], k);
      return;
    }
    k -= c;
  }
}

static void job_print(const job *j, FILE *out) {
  for (int i = 0; i < j->n; i++) {
    if (i) fprintf(out, "; at the same time, on node %u (QUANTUM %u):\n", j->w[i].node, j->quantum[i]);
    else if (j->n > 1) fprintf(out, "; on node %u (QUANTUM %u):\n", j->w[i].node, j->quantum[i]);
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
         (a >= dg_save_area(w) && a < dg_save_area(w) + 0x100) ||
         (a >= DG_SPAN_BASE + w->off && a < DG_SPAN_END + w->off);
}

/* Memory a workload may write: chip against model (chip-defined bytes
 * excepted). */
static void cmp_memory(both *b, const dg_work *w, outcome *o, const char *when) {
  const uint8_t *mm = sgpu_ref_memory(b->ref), *und = sgpu_ref_chip_defined(b->ref);
  const struct { uint32_t base, size; } regions[] = {{dg_ring_area(w), 0x10000},
                                                     {dg_rptr_area(w), 0x100},
                                                     {dg_save_area(w), 0x100},
                                                     {DG_SPAN_BASE + w->off, DG_SPAN_END - DG_SPAN_BASE}};
  for (size_t r = 0; r < sizeof regions / sizeof regions[0] && !o->fail; r++) {
    uint8_t *img = malloc(regions[r].size);
    CHIP_CHECK(img != NULL, "oom");
    CHIP_CHECK(sgpu_sim_backdoor_read(b->sim, regions[r].base, img, regions[r].size) == 0, "read back");
    for (uint32_t i = 0; i < regions[r].size; i++) {
      uint32_t a = regions[r].base + i;
      if ((i & 4095) == 0 && i + 4096 <= regions[r].size && !memcmp(img + i, mm + a, 4096)) {
        i += 4095; /* equal page */
        continue;
      }
      if (img[i] != mm[a] && !(und && und[a])) {
        uint32_t wa = a & ~3u, cw, mw;
        CHIP_CHECK(sgpu_sim_backdoor_read(b->sim, wa, &cw, 4) == 0, "read back");
        memcpy(&mw, mm + wa, 4);
        mismatch(o, "memory", "%smemory differs first at 0x%08x: chip word 0x%08x, model 0x%08x", when, a, cw, mw);
        break;
      }
    }
    free(img);
  }
}

/* After segment si stopped on node w->node (state 1 idle, 2 faulted, 3
 * hung): compare with the model, acknowledge the node's interrupts, RESET it
 * after a fault.  Returns 0 on a mismatch. */
static int finish_node(both *bp, const dg_work *w, int state, size_t si, uint64_t start, uint64_t limit, outcome *o) {
  both b = *bp;
  const uint32_t n = w->node;
  const uint32_t node_bits = SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n);
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
    if (!cmp_nreg(&b, n, SGPU_NREG_FAULT_VA, si, o, "fault_va") || !cmp_nreg(&b, n, SGPU_NREG_FAULT_ACCESS, si, o, "fault_va"))
      return 0;
  }
  cmp_nreg(&b, n, SGPU_NREG_VM_ROOT, si, o, "context");
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

/* A segment of workload k that a preemption request may cut: where its
 * words start in the ring, where its doorbell ends, the words laid beyond it
 * (the cut of a ring OVERRUN). */
typedef struct pre_seg {
  uint32_t end, cut_words, words;
} pre_seg;

static uint32_t ring_word(both *b, const dg_work *w, uint32_t off) {
  uint32_t v;
  CHIP_CHECK(sgpu_ref_mem_read(b->ref, w->ring_base + (off & (w->ring_size - 1)), &v, 4) == 0, "ring");
  return v;
}

/* Write a word to the ring of w at byte offset off, on both. */
static void put_ring(both *b, const dg_work *w, uint32_t off, uint32_t v) {
  const uint32_t a = w->ring_base + (off & (w->ring_size - 1));
  chip_mem_write(b->sim, a, &v, 4);
  CHIP_CHECK(sgpu_ref_mem_write(b->ref, a, &v, 4) == 0, "ring");
}

/* The chip runs segment si of workload w, rung up to ps->end on the chip
 * only; the model has not run it.  Request a preemption of the node now; when
 * the chip stopped, run the model to the boundary the save area names (it
 * must be one the model passes), compare everything up to there, then resume
 * both as the library does: RESET, and on the emptied ring the context again,
 * the level-2 rest through a trampoline buffer, the level-1 rest, then the
 * ring packets that had not run.  *ps becomes the continuation (its end is
 * the new WPTR).  With `again`, the continuation's doorbell goes to the chip
 * only, for another request: returns 1 then (else 0, the model has run). */
static int preempt_segment(both *b, const dg_work *w, size_t si, pre_seg *ps, int again, uint64_t limit, uint32_t *rng,
                           outcome *o) {
  const uint32_t n = w->node, save = dg_save_area(w), mask = w->ring_size - 1;
  const uint32_t id = 0x50000000u | (chip_rand(rng) & 0xFFFFFu);
  const uint32_t node_bits = SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n) | SGPU_INT_DMA_PREEMPTED(n);
  g_pre_req++;
  wr2(b, SGPU_NODE_REG(n, SGPU_NREG_SAVE_ADDR), save);
  chip_wr(b->sim, SGPU_NODE_REG(n, SGPU_NREG_PREEMPT), id);
  CHIP_CHECK(sgpu_ref_reg_write(b->ref, SGPU_NODE_REG(n, SGPU_NREG_PREEMPT), id) == 0, "model PREEMPT");
  const uint64_t t0 = sgpu_sim_cycle(b->sim);
  uint32_t st;
  for (;;) {
    st = chip_nrd(b->sim, n, SGPU_NREG_STATUS);
    if (st & (SGPU_STATUS_PREEMPTED | SGPU_STATUS_FAULTED)) break;
    if (sgpu_sim_cycle(b->sim) - t0 > limit) {
      mismatch(o, "preempt", "segment %zu node %u: neither preempted nor faulted %llu cycles after PREEMPT (STATUS 0x%x)",
               si, n, (unsigned long long)limit, st);
      return 0;
    }
    sgpu_sim_run(b->sim, 8, 0);
  }
  sgpu_sim_run(b->sim, 32, 0); /* the last writes land */
  if (g_verbose)
    printf("segment %zu node %u: PREEMPT %u after %llu cycles: %s\n", si, n, id,
           (unsigned long long)(sgpu_sim_cycle(b->sim) - t0), (st & SGPU_STATUS_FAULTED) ? "faulted first (ignored)" : "preempted");
  if (st & SGPU_STATUS_FAULTED) {
    /* ignored: the model runs the segment whole and must fault the same way */
    g_pre_faulted++;
    CHIP_CHECK(sgpu_ref_reg_write(b->ref, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), ps->end) == 0, "model doorbell");
    return 0;
  }
  uint32_t sv[SGPU_SAVE_BYTES / 4];
  CHIP_CHECK(sgpu_sim_backdoor_read(b->sim, save, sv, sizeof sv) == 0, "save area");
  const uint32_t level = sv[SGPU_SAVE_LEVEL] & 3u;
  if (sv[SGPU_SAVE_PREEMPT_FENCE] != id ||
      (sv[SGPU_SAVE_LEVEL] & ~(3u | SGPU_SAVE_LEVEL_IN_WAIT | SGPU_SAVE_LEVEL_IN_RECT)) || level > SGPU_MAX_IB_DEPTH) {
    mismatch(o, "preempt", "segment %zu node %u: save area LEVEL 0x%x, PREEMPT_FENCE 0x%x (written 0x%x)", si, n,
             sv[SGPU_SAVE_LEVEL], sv[SGPU_SAVE_PREEMPT_FENCE], id);
    return 0;
  }
  /* the model: to the same boundary */
  CHIP_CHECK(sgpu_ref_preempt_at(b->ref, n, sv) == 0, "sgpu_ref_preempt_at");
  CHIP_CHECK(sgpu_ref_reg_write(b->ref, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), ps->end) == 0, "model doorbell");
  const uint32_t mst = mrd(b, SGPU_NODE_REG(n, SGPU_NREG_STATUS));
  if (!(mst & SGPU_STATUS_PREEMPTED)) {
    mismatch(o, "preempt", "segment %zu node %u: the chip stopped at RING_NEXT 0x%x LEVEL 0x%x IB1 0x%08x..0x%08x IB2 0x%08x..0x%08x, "
             "not a boundary the model passes (the model %s)", si, n, sv[0], sv[1], sv[2], sv[3], sv[4], sv[5],
             (mst & SGPU_STATUS_FAULTED) ? "faults first" : "runs to the end");
    return 0;
  }
  g_pre_taken++;
  g_pre_level[level]++;
  if (sv[SGPU_SAVE_LEVEL] & SGPU_SAVE_LEVEL_IN_WAIT) g_pre_wait++;
  const int cut = (sv[SGPU_SAVE_LEVEL] & SGPU_SAVE_LEVEL_IN_RECT) != 0;
  if (cut) g_pre_rect++;
  if (!level && sv[SGPU_SAVE_RING_NEXT] == ps->end) g_pre_idle++;
  /* everything up to the stop */
  const uint32_t cst = chip_nrd(b->sim, n, SGPU_NREG_STATUS) & (SGPU_STATUS_PREEMPTED | SGPU_STATUS_FAULTED | SGPU_STATUS_BUSY);
  if (cst != SGPU_STATUS_PREEMPTED) mismatch(o, "preempt", "segment %zu node %u: STATUS 0x%x while preempted", si, n, cst);
  const uint32_t cis = chip_rd(b->sim, SGPU_REG_INT_STATUS) & node_bits, mis = mrd(b, SGPU_REG_INT_STATUS) & node_bits;
  if (cis != mis)
    mismatch(o, "preempt", "segment %zu node %u: INT_STATUS node bits chip 0x%08x, model 0x%08x at the preemption", si, n, cis,
             mis);
  cmp_nreg(b, n, SGPU_NREG_RING_RPTR, si, o, "preempt");
  cmp_nreg(b, n, SGPU_NREG_LAST_FENCE, si, o, "preempt");
  const int same_ctx = cmp_nreg(b, n, SGPU_NREG_CONTEXT_ID, si, o, "preempt");
  const uint32_t ctx = chip_nrd(b->sim, n, SGPU_NREG_CONTEXT_ID), wb = chip_nrd(b->sim, n, SGPU_NREG_WINDOW_BASE),
                 ws = chip_nrd(b->sim, n, SGPU_NREG_WINDOW_SIZE);
  if (same_ctx && ctx) {
    cmp_nreg(b, n, SGPU_NREG_WINDOW_BASE, si, o, "preempt");
    cmp_nreg(b, n, SGPU_NREG_WINDOW_SIZE, si, o, "preempt");
  }
  cmp_memory(b, w, o, "at the preemption: ");
  if (o->fail) return 0;
  /* stopped means stopped: no write to the workload's memory while it waits */
  const sgpu_sim_mem_event *ev;
  const size_t ne0 = sgpu_sim_mem_log(b->sim, &ev);
  sgpu_sim_run(b->sim, chip_rand(rng) % 400, 0);
  const size_t ne1 = sgpu_sim_mem_log(b->sim, &ev);
  for (size_t i = ne0; i < ne1; i++)
    if (ev[i].write && in_work(w, ev[i].address)) {
      mismatch(o, "preempt", "segment %zu node %u: chip wrote 0x%08x at 0x%08x while preempted", si, n, ev[i].data,
               ev[i].address);
      return 0;
    }
  wr2(b, SGPU_REG_INT_STATUS, node_bits);
  /* A packet that ran before the stop and runs again after the resume would
   * write over this; one that never runs leaves it (the end compares memory,
   * the FENCE log says each FENCE came once, in order). */
  if (chip_rand(rng) % 100 < 75) {
    static const uint32_t areas[][2] = {{DG_FENCE_BASE, DG_FENCE_END}, {DG_TS_BASE, DG_TS_END}, {DG_DATA_BASE, DG_DATA_END}};
    for (size_t r = 0; r < 3; r++) {
      const uint32_t lo = areas[r][0] + w->off, size = areas[r][1] - areas[r][0];
      uint32_t *junk = malloc(size);
      CHIP_CHECK(junk != NULL, "oom");
      for (uint32_t i = 0; i < size / 4; i++) junk[i] = chip_rand(rng) ^ 0xA5000000u;
      CHIP_CHECK(sgpu_sim_backdoor_write(b->sim, lo, junk, size) == 0, "scribble");
      CHIP_CHECK(sgpu_ref_mem_write(b->ref, lo, junk, size) == 0, "scribble");
      free(junk);
    }
    g_pre_scribbled++;
  }
  /* A cut FILL or COPY: the packets for what it left, as the library makes
   * them (part of a row, then whole rows), and the size of the cut packet
   * (its level resumes after it). */
  uint32_t rem[14], nrem = 0, cut_bytes = 0;
  if (cut) {
    const uint32_t at = level == 2 ? sv[SGPU_SAVE_IB2_NEXT] : sv[SGPU_SAVE_IB1_NEXT];
    uint32_t pk[7];
    for (uint32_t i = 0; i < 7; i++) {
      if (level) CHIP_CHECK(sgpu_ref_mem_read(b->ref, at + 4 * i, &pk[i], 4) == 0, "cut packet");
      else pk[i] = ring_word(b, w, sv[SGPU_SAVE_RING_NEXT] + 4 * i);
    }
    const int copy = SGPU_PKT_GET(OPCODE, pk[0]) == SGPU_OP_COPY;
    const uint32_t words = copy ? 7 : 6, wi = copy ? 5 : 3, hi = copy ? 6 : 4;
    const uint32_t first = sv[SGPU_SAVE_RECT] & 0xFFFFu, count = sv[SGPU_SAVE_RECT] >> 16;
    const uint32_t prow = sv[SGPU_SAVE_RECT_ROW] & 0xFFFFu, lo = sv[SGPU_SAVE_RECT_PART] & 0xFFFFu,
                   end = sv[SGPU_SAVE_RECT_PART] >> 16;
    cut_bytes = 4 * words;
    if (sv[SGPU_SAVE_RECT_ROW] & 0x10000u) {
      memcpy(rem + nrem, pk, 4 * words);
      rem[nrem + 1] = pk[1] + prow * (pk[2] & 0xFFFFu) + lo;
      if (copy) rem[nrem + 3] = pk[3] + prow * (pk[4] & 0xFFFFu) + lo;
      rem[nrem + wi] = end - lo;
      rem[nrem + hi] = 1;
      nrem += words;
    }
    if (count) {
      memcpy(rem + nrem, pk, 4 * words);
      rem[nrem + 1] = pk[1] + first * (pk[2] & 0xFFFFu);
      if (copy) rem[nrem + 3] = pk[3] + first * (pk[4] & 0xFFFFu);
      rem[nrem + hi] = count;
      nrem += words;
    }
  }
  /* the rest of the ring: from RING_NEXT (past a cut ring packet) to the
   * doorbell's end, and the cut words laid beyond it (read before the
   * continuation overwrites them) */
  const uint32_t next = sv[SGPU_SAVE_RING_NEXT] + (level ? 0 : cut_bytes);
  const uint32_t rest = ((ps->end - next) & mask) / 4 + (next == ps->end ? 0 : ps->cut_words);
  uint32_t *rw = malloc(4 * (rest + 1));
  CHIP_CHECK(rw != NULL, "oom");
  for (uint32_t i = 0; i < rest; i++) rw[i] = ring_word(b, w, next + 4 * i);
  /* the fence of the ring INDIRECT the stop is inside */
  uint32_t fence = 0;
  if (level) {
    const uint32_t h = ring_word(b, w, next - 16);
    CHIP_CHECK(SGPU_PKT_GET(OPCODE, h) == SGPU_OP_INDIRECT && SGPU_PKT_GET(COUNT, h) == SGPU_OP_INDIRECT_COUNT,
               "ring packet before RING_NEXT 0x%x: 0x%08x", next, h);
    fence = ring_word(b, w, next - 4);
  }
  wr2(b, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
  uint32_t off = 0;
  if (ctx) {
    const uint32_t c[4] = {SGPU_PKT_HEADER(SGPU_OP_CONTEXT, SGPU_OP_CONTEXT_COUNT, 0), ctx, wb, ws};
    for (int i = 0; i < 4; i++, off += 4) put_ring(b, w, off, c[i]);
  }
  const uint32_t ind = SGPU_PKT_HEADER(SGPU_OP_INDIRECT, SGPU_OP_INDIRECT_COUNT, 0);
  /* the trampoline (a level-1 buffer): what a cut packet left, then level
   * 2's rest; a cut ring packet's rest goes on the ring itself */
  uint32_t t[18], nt = 0;
  if (level) {
    memcpy(t, rem, 4 * nrem);
    nt = nrem;
  } else {
    for (uint32_t i = 0; i < nrem; i++, off += 4) put_ring(b, w, off, rem[i]);
  }
  const uint32_t next2 = sv[SGPU_SAVE_IB2_NEXT] + (level == 2 ? cut_bytes : 0);
  if (level == 2 && sv[SGPU_SAVE_IB2_END] > next2) {
    const uint32_t c[4] = {ind, next2, sv[SGPU_SAVE_IB2_END] - next2, fence};
    memcpy(t + nt, c, sizeof c);
    nt += 4;
  }
  if (nt) {
    const uint32_t tramp = save + 0x40;
    CHIP_CHECK(sgpu_sim_backdoor_write(b->sim, tramp, t, 4 * nt) == 0, "trampoline");
    CHIP_CHECK(sgpu_ref_mem_write(b->ref, tramp, t, 4 * nt) == 0, "trampoline");
    const uint32_t c[4] = {ind, tramp, 4 * nt, fence};
    for (int i = 0; i < 4; i++, off += 4) put_ring(b, w, off, c[i]);
  }
  const uint32_t next1 = sv[SGPU_SAVE_IB1_NEXT] + (level == 1 ? cut_bytes : 0);
  if (level >= 1 && sv[SGPU_SAVE_IB1_END] > next1) {
    const uint32_t c[4] = {ind, next1, sv[SGPU_SAVE_IB1_END] - next1, fence};
    for (int i = 0; i < 4; i++, off += 4) put_ring(b, w, off, c[i]);
  }
  const uint32_t laid = next == ps->end ? 0 : ps->cut_words; /* words beyond the doorbell */
  for (uint32_t i = 0; i < rest; i++) put_ring(b, w, off + 4 * i, rw[i]);
  free(rw);
  const uint32_t end = off + 4 * (rest - laid);
  CHIP_CHECK(end < w->ring_size, "continuation of %u bytes in a ring of %u", end, w->ring_size);
  if (g_verbose)
    printf("segment %zu node %u: stopped at RING_NEXT 0x%x LEVEL 0x%x IB1 0x%08x..0x%08x IB2 0x%08x..0x%08x; resumed, "
           "doorbell WPTR 0x%x\n", si, n, sv[0], sv[1], sv[2], sv[3], sv[4], sv[5], end);
  ps->end = end;
  ps->cut_words = end ? laid : 0;
  ps->words = end / 4 + ps->cut_words;
  if (!end) return 0;
  if (again) {
    /* preempted once more while it runs the continuation: the model waits */
    chip_wr(b->sim, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), end);
    return 1;
  }
  wr2(b, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), end);
  return 0;
}

/* ------------------------------------------------------------ VM programs */
/* What the generator's tables say, independently of the model and of the
 * checker: the tables' words as the host wrote them (shadow of the
 * workload's table area), the frames mapped writable at any time (allowed),
 * and the chip memory as the host left it (img). */
typedef struct vm_run {
  uint8_t *shadow, *allowed, *img;
  uint32_t pt, pages;
  int fault_checked; /* the fault of this segment was checked before the tables changed */
} vm_run;

static uint32_t vm_word(const vm_run *v, uint32_t a) {
  uint32_t x = 0;
  if (a >= v->pt && a + 4 <= v->pt + DG_PT_BYTES) memcpy(&x, v->shadow + (a - v->pt), 4);
  return x;
}

/* The generator's entry for va in the space whose directory is pd (0: none). */
static uint32_t vm_entry_of(const vm_run *v, uint32_t pd, uint32_t va, uint32_t *pde) {
  *pde = vm_word(v, pd + 4 * (va / SGPU_PAGE_BYTES / SGPU_PT_ENTRIES));
  if (!(*pde & SGPU_PDE_VALID_MASK)) return 0;
  return vm_word(v, (*pde & SGPU_PDE_TABLE_MASK) + 4 * (va / SGPU_PAGE_BYTES % SGPU_PT_ENTRIES));
}

/* Mark the frames the tables map writable now. */
static void vm_mark(vm_run *v, const dg_work *w) {
  for (uint32_t c = 0; c < w->nctx; c++)
    for (uint32_t pg = 0; pg < v->pages; pg++) {
      uint32_t pde;
      const uint32_t e = vm_entry_of(v, w->pd[c], pg * SGPU_PAGE_BYTES, &pde);
      if ((e & (SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK)) == (SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK))
        v->allowed[((e & SGPU_PTE_FRAME_MASK) / SGPU_PAGE_BYTES) % v->pages] = 1;
    }
}

/* Host writes to the tables: chip, model, shadow, img. */
static void vm_write(both *b, vm_run *v, const dg_work *w, const dg_vm_write *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    CHIP_CHECK(sgpu_sim_backdoor_write(b->sim, x[i].addr, &x[i].value, 4) == 0, "table 0x%08x", x[i].addr);
    CHIP_CHECK(sgpu_ref_mem_write(b->ref, x[i].addr, &x[i].value, 4) == 0, "table 0x%08x (model)", x[i].addr);
    CHIP_CHECK(x[i].addr >= v->pt && x[i].addr + 4 <= v->pt + DG_PT_BYTES, "table word 0x%08x outside", x[i].addr);
    memcpy(v->shadow + (x[i].addr - v->pt), &x[i].value, 4);
    memcpy(v->img + x[i].addr, &x[i].value, 4);
  }
  vm_mark(v, w);
}

/* A page fault of the chip must be at a page the generator left unmapped
 * (PAGE_NOT_PRESENT) or read-only for a write (PAGE_PROTECTION), in one of
 * the workload's spaces. */
static void vm_check_fault(both *b, const vm_run *v, const dg_work *w, size_t si, outcome *o) {
  const uint32_t n = w->node, r = chip_nrd(b->sim, n, SGPU_NREG_FAULT_REASON);
  if (r != SGPU_FAULT_PAGE_NOT_PRESENT && r != SGPU_FAULT_PAGE_PROTECTION) return;
  const uint32_t va = chip_nrd(b->sim, n, SGPU_NREG_FAULT_VA), acc = chip_nrd(b->sim, n, SGPU_NREG_FAULT_ACCESS);
  const uint32_t root = chip_nrd(b->sim, n, SGPU_NREG_VM_ROOT), kind = SGPU_FIELD_GET(FAULT_ACCESS_ACCESS, acc);
  g_vm_faults[r == SGPU_FAULT_PAGE_PROTECTION][kind]++;
  if (root != w->pd[0] && (w->nctx < 2 || root != w->pd[1])) {
    mismatch(o, "vm_fault", "segment %zu: page fault with VM_ROOT 0x%08x, not a directory of the workload", si, root);
    return;
  }
  uint32_t pde;
  const uint32_t e = vm_entry_of(v, root, va, &pde);
  const int bad = r == SGPU_FAULT_PAGE_NOT_PRESENT
                      ? !(e & SGPU_PTE_VALID_MASK)
                      : (e & SGPU_PTE_VALID_MASK) && !(e & SGPU_PTE_WRITABLE_MASK) && kind == SGPU_HW_ACCESS_WRITE;
  if (!bad)
    mismatch(o, "vm_fault", "segment %zu: chip faults %s at VA 0x%08x (FAULT_ACCESS 0x%x) but the tables map it (PDE 0x%08x, "
             "PTE 0x%08x)", si, sgpu_ref_fault_name(r), va, acc, pde, e);
}

/* After the program: the chip wrote only frames some space mapped writable
 * (and the RPTR words), and every other byte is as the host left it (the
 * host's ring and table writes go to img as well). */
static void vm_safety(both *b, const vm_run *v, const dg_work *w, outcome *o) {
  g_vm_safety++;
  const sgpu_sim_mem_event *ev;
  const size_t ne = sgpu_sim_mem_log(b->sim, &ev);
  const uint32_t rp = dg_rptr_area(w);
  for (size_t i = 0; i < ne; i++)
    if (ev[i].write && !v->allowed[(ev[i].address / SGPU_PAGE_BYTES) % v->pages] &&
        !(ev[i].address >= rp && ev[i].address < rp + 0x100)) {
      mismatch(o, "vm_safety", "chip wrote 0x%08x at 0x%08x, a frame no space maps writable", ev[i].data, ev[i].address);
      return;
    }
  uint8_t *pg = malloc(SGPU_PAGE_BYTES);
  CHIP_CHECK(pg != NULL, "oom");
  for (uint32_t p = 0; p < v->pages && !o->fail; p++) {
    if (v->allowed[p] || p == rp / SGPU_PAGE_BYTES) continue;
    CHIP_CHECK(sgpu_sim_backdoor_read(b->sim, p * SGPU_PAGE_BYTES, pg, SGPU_PAGE_BYTES) == 0, "read back");
    if (memcmp(pg, v->img + p * SGPU_PAGE_BYTES, SGPU_PAGE_BYTES))
      for (uint32_t i = 0; i < SGPU_PAGE_BYTES; i++)
        if (pg[i] != v->img[p * SGPU_PAGE_BYTES + i]) {
          mismatch(o, "vm_safety", "byte 0x%08x changed (0x%02x, was 0x%02x): no space maps its frame writable",
                   p * SGPU_PAGE_BYTES + i, pg[i], v->img[p * SGPU_PAGE_BYTES + i]);
          break;
        }
  }
  free(pg);
}

/* Run node n's ring on the chip until it is idle or faulted (or limit
 * cycles): 2 faulted, 1 idle, 3 neither. */
static int chip_settle(both *b, uint32_t n, uint64_t limit) {
  const uint64_t t0 = sgpu_sim_cycle(b->sim);
  for (;;) {
    sgpu_sim_run(b->sim, 64, 0);
    const uint32_t st = chip_nrd(b->sim, n, SGPU_NREG_STATUS);
    if (st & SGPU_STATUS_FAULTED) return 2;
    if (!(st & (SGPU_STATUS_BUSY | SGPU_STATUS_WAITING)) &&
        chip_nrd(b->sim, n, SGPU_NREG_RING_RPTR) == chip_nrd(b->sim, n, SGPU_NREG_RING_WPTR))
      return 1;
    if (sgpu_sim_cycle(b->sim) - t0 > limit) return 3;
  }
}

/* Run the job on a fresh chip and the model, segment by segment (segment i
 * of every workload at the same time). */
static void run_job(job *j, outcome *o, sgpu_ref_stats *acc) {
  memset(o, 0, sizeof *o);
  const dg_work *w0 = &j->w[0];
  sgpu_sim_config cfg = {w0->latency, w0->stall, w0->sim_seed, NULL};
  both b;
  b.sim = chip_create(&cfg);
  const uint32_t mem = sgpu_sim_mem_bytes(b.sim), sources = sgpu_sim_sources(b.sim), rings = chip_rings(b.sim);
  sgpu_ref_config rc = {mem, rings, sources, SGPU_MAX_IB_DEPTH};
  b.ref = sgpu_ref_create(&rc);
  CHIP_CHECK(b.ref != NULL, "sgpu_ref_create");
  const int chip_vm = SGPU_FIELD_GET(CAPS_VM, chip_rd(b.sim, SGPU_REG_CAPS)) != 0;
  sgpu_ref_set_vm(b.ref, chip_vm);
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

  uint32_t watchdog[JOB_MAX], wptr[JOB_MAX] = {0, 0, 0}, int_enable = 0;
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
    if (rings >= 3 * sgpu_sim_nodes(b.sim)) wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_QUANTUM), j->quantum[k]);
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
    int_enable |= SGPU_INT_DMA_FAULTED(n);
    if (w->nseg > nseg) nseg = w->nseg;
  }
  free(data);
  /* a VM program: its tables, and what the host left in memory */
  const dg_work *vw = j->w[0].vm ? &j->w[0] : NULL;
  vm_run v = {0};
  if (vw) {
    v.pt = dg_pt_area(vw);
    v.pages = mem / SGPU_PAGE_BYTES;
    v.shadow = calloc(DG_PT_BYTES, 1);
    v.allowed = calloc(v.pages, 1);
    v.img = malloc(mem);
    CHIP_CHECK(v.shadow && v.allowed && v.img, "oom");
    CHIP_CHECK(sgpu_sim_backdoor_read(b.sim, 0, v.img, mem) == 0, "memory image");
    vm_write(&b, &v, vw, vw->pt_init, vw->npt_init);
  }
  wr2(&b, SGPU_REG_INT_ENABLE, int_enable);
  sgpu_sim_mem_log_enable(b.sim, LOG_CAP);
  const uint64_t t0 = sgpu_sim_cycle(b.sim);
  uint32_t split_rng = w0->sim_seed | 1u;

  for (size_t si = 0; si < nseg && !o->fail; si++) {
    int active[JOB_MAX] = {0, 0, 0};
    uint32_t second_wptr[JOB_MAX] = {0, 0, 0};
    int pre[JOB_MAX] = {0, 0, 0};
    pre_seg ps[JOB_MAX];
    uint64_t limit = 200000;
    v.fault_checked = 0;
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
        /* a VM program's ring by backdoor: the memory log then holds only
         * the chip's writes, for the safety check */
        if (vw) {
          CHIP_CHECK(sgpu_sim_backdoor_write(b.sim, a, &words[i], 4) == 0, "ring");
          memcpy(v.img + a, &words[i], 4);
        } else {
          chip_mem_write(b.sim, a, &words[i], 4);
        }
        CHIP_CHECK(sgpu_ref_mem_write(b.ref, a, &words[i], 4) == 0, "ring");
      }
      free(words);
      uint32_t end = (wptr[k] + 4 * ((uint32_t)nw - seg_cut(sg))) & mask;
      if (w->vm && sg->nchg) {
        /* the packets before chg_at, then (the node stopped) the host
         * changes the tables, then the rest; a fault ends the segment */
        const size_t at = sg->chg_at < sg->ring.n ? sg->chg_at : sg->ring.n;
        uint32_t first = 0;
        for (size_t i = 0; i < at; i++) first += sg->ring.p[i].nw;
        const uint32_t mid = (wptr[k] + 4 * first) & mask;
        int st = 1;
        if (first) {
          if (g_verbose) printf("segment %zu node %u: doorbell WPTR 0x%x, then the tables change\n", si, n, mid);
          wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), mid);
          st = chip_settle(&b, n, limit + 4ull * watchdog[k]);
        }
        if (st == 2 && vw && chip_vm) {
          vm_check_fault(&b, &v, w, si, o);
          v.fault_checked = 1;
        }
        if (vw) vm_write(&b, &v, w, sg->chg, sg->nchg);
        g_vm_changes++;
        wptr[k] = st == 1 ? end : mid;
        if (st == 1) {
          if (g_verbose) printf("segment %zu node %u: doorbell WPTR 0x%x\n", si, n, end);
          wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), end);
        }
        active[k] = 1;
        limit += (uint64_t)watchdog[k] * 4 + (w0->display ? 40u * TINY_FRAME : 0);
        continue;
      }
      /* a preemption request while it runs: room in the ring for the
       * continuation (context, trampoline INDIRECT, level-1 INDIRECT) */
      pre[k] = j->preempt && nw + 12 <= w->ring_size / 4 - 1 && chip_rand(&split_rng) % 100 < 50;
      if (pre[k]) ps[k] = (pre_seg){end, seg_cut(sg), (uint32_t)nw};
      else if (!seg_cut(sg) && sg->ring.n >= 2 && chip_rand(&split_rng) % 100 < 30) {
        uint32_t first = 0, np = 1 + chip_rand(&split_rng) % (uint32_t)(sg->ring.n - 1);
        for (uint32_t i = 0; i < np; i++) first += sg->ring.p[i].nw;
        second_wptr[k] = end;
        end = (wptr[k] + 4 * first) & mask;
      }
      wptr[k] = end;
      if (g_verbose) printf("segment %zu node %u: doorbell WPTR 0x%x%s\n", si, n, end, second_wptr[k] ? " (and later more)" : "");
      if (pre[k]) chip_wr(b.sim, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), end); /* the model runs it when the chip stopped */
      else wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), end);
      active[k] = 1;
      limit += (uint64_t)watchdog[k] * 4 + (w0->display ? 40u * TINY_FRAME : 0);
    }
    if (second_wptr[0] || second_wptr[1] || second_wptr[2]) {
      sgpu_sim_run(b.sim, chip_rand(&split_rng) % 300, 0);
      for (int k = 0; k < j->n; k++) {
        if (!second_wptr[k]) continue;
        wptr[k] = second_wptr[k];
        if (g_verbose) printf("segment %zu node %u: doorbell WPTR 0x%x\n", si, j->w[k].node, wptr[k]);
        wr2(&b, SGPU_NODE_REG(j->w[k].node, SGPU_NREG_RING_WPTR), wptr[k]);
      }
    }

    /* preemption requests at a random time */
    for (int k = 0; k < j->n && !o->fail; k++) {
      if (!pre[k]) continue;
      const uint32_t r = chip_rand(&split_rng);
      sgpu_sim_run(b.sim, r % 100 < 80 ? chip_rand(&split_rng) % (10 + 8 * ps[k].words) : chip_rand(&split_rng) % 3000, 0);
      /* sometimes again, while the continuation runs (a stop inside the
       * trampoline, or in what it resumed) */
      for (int round = 0;; round++) {
        const int again = round < 3 && ps[k].words + 12 <= j->w[k].ring_size / 4 - 1 && chip_rand(&split_rng) % 100 < 30;
        const int deferred = preempt_segment(&b, &j->w[k], si, &ps[k], again, limit, &split_rng, o);
        wptr[k] = ps[k].end;
        if (!deferred || o->fail) break;
        g_pre_again++;
        sgpu_sim_run(b.sim, chip_rand(&split_rng) % (10 + 8 * ps[k].words), 0);
      }
    }

    /* the chip: until every node is idle or faulted */
    const uint64_t start = sgpu_sim_cycle(b.sim);
    int state[JOB_MAX] = {0, 0, 0}; /* 0 running, 1 idle, 2 faulted, 3 hung */
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
        if (state[k] == 2 && j->w[k].vm && vw && chip_vm && !v.fault_checked) vm_check_fault(&b, &v, &j->w[k], si, o);
        if (state[k] && !finish_node(&b, &j->w[k], state[k], si, start, limit, o)) running = 0;
        if (state[k] == 2) wptr[k] = 0;
        /* now and then RESET a node that finished while the other still
         * works (it may own the 2D engine the other one is using or waiting
         * for): nothing of the other node's work may change */
        int other = -1; /* a workload still running beside this one */
        for (int q = 0; q < j->n; q++)
          if (q != k && active[q] && !state[q]) other = q;
        if (state[k] == 1 && !o->fail && other >= 0 && chip_rand(&split_rng) % 100 < 60) {
          if (g_verbose) printf("segment %zu node %u: RESET while node %u works\n", si, j->w[k].node, j->w[other].node);
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
  const uint8_t *und = sgpu_ref_chip_defined(b.ref);
  for (int k = 0; k < j->n && !o->fail; k++) cmp_memory(&b, &j->w[k], o, "");
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
    /* exactly once: per word, as many chip writes as the model made (the
     * test writes the ring through the host port, the rest by backdoor) */
    const uint16_t *mc = sgpu_ref_write_counts(b.ref);
    for (int k = 0; k < j->n && !o->fail; k++) {
      const dg_work *w = &j->w[k];
      const uint32_t regions[][2] = {{dg_rptr_area(w), 0x100},
                                     {dg_save_area(w), 0x100},
                                     {DG_SPAN_BASE + w->off, DG_SPAN_END - DG_SPAN_BASE}};
      for (size_t r = 0; r < 3 && !o->fail; r++) {
        const uint32_t lo = regions[r][0], nwords = regions[r][1] / 4;
        uint32_t *cnt = calloc(nwords, sizeof *cnt);
        CHIP_CHECK(cnt != NULL, "oom");
        for (size_t i = 0; i < ne; i++)
          if (ev[i].write && ev[i].address >= lo && ev[i].address - lo < regions[r][1]) cnt[(ev[i].address - lo) >> 2]++;
        for (uint32_t q = 0; q < nwords; q++)
          if (cnt[q] != mc[(lo >> 2) + q]) {
            mismatch(o, "writes", "node %u: chip wrote the word at 0x%08x %u times, the model %u times", w->node,
                     lo + 4 * q, cnt[q], mc[(lo >> 2) + q]);
            break;
          }
        free(cnt);
      }
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
  if (vw && chip_vm && !o->fail) vm_safety(&b, &v, vw, o);
  free(v.shadow);
  free(v.allowed);
  free(v.img);
  o->cycles = sgpu_sim_cycle(b.sim) - t0;
  if (acc && vw) {
    g_vm_programs++;
    g_vm_rewritten += vw->rewritten;
  }
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
  int have_single = 0, shrink_on = 1, random_base = 0, announce = 0, vm_opt = -1, vm_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--vm") && i + 1 < argc && (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off")))
      vm_opt = !strcmp(argv[++i], "on");
    else if (!strcmp(argv[i], "--vm-pct") && i + 1 < argc) g_vm_pct = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--vm-only")) vm_only = 1;
    else if (!strcmp(argv[i], "--base") && i + 1 < argc) base = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      single = (uint32_t)strtoul(argv[++i], NULL, 0);
      have_single = 1;
    } else if (!strcmp(argv[i], "--verbose")) g_verbose = 1;
    else if (!strcmp(argv[i], "--no-shrink")) shrink_on = 0;
    else if (!strcmp(argv[i], "--random")) random_base = 1;
    else if (!strcmp(argv[i], "--announce")) announce = 1;
    else {
      fprintf(stderr, "usage: %s [--seeds N] [--base S | --random] [--seed S] [--verbose] [--no-shrink] [--announce] "
              "[--vm on|off] [--vm-pct P] [--vm-only]\n", argv[0]);
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
  const uint32_t nodes = sgpu_sim_nodes(probe), rings = chip_rings(probe);
  const int chip_vm = SGPU_FIELD_GET(CAPS_VM, chip_rd(probe, SGPU_REG_CAPS)) != 0;
  sgpu_sim_destroy(probe);
  g_vm_on = vm_opt < 0 ? chip_vm : vm_opt;

  sgpu_ref_stats acc;
  memset(&acc, 0, sizeof acc);
  uint32_t failures = 0, shrunk = 0, two = 0, high = 0, high_pairs = 0, b_rings = 0, b_pairs = 0, triples = 0;
  uint64_t cycles = 0;
  const double t0 = now_s();
  for (uint32_t i = 0; i < seeds * 2; i++) {
    /* each seed runs its workload, then (vm_seed) a VM program on a fresh
     * chip: the VM work adds to the seeds' and leaves their programs as
     * they were */
    const uint32_t seed = base + i / 2, vm = i % 2;
    if (vm ? !vm_seed(seed) : vm_only) continue;
    job j;
    /* --announce: the seed before it runs, so a run that a failing
       assertion aborts (the model with assertions on) names its seed */
    if (announce && !vm) {
      printf("seed %u\n", seed);
      fflush(stdout);
    }
    job_generate(&j, seed, &lim, nodes, rings, (int)vm);
    two += j.n > 1;
    int on_high = 0, on_b = 0;
    for (int k = 0; k < j.n; k++) {
      on_high |= j.w[k].node >= nodes && j.w[k].node < 2 * nodes;
      on_b |= j.w[k].node >= 2 * nodes;
    }
    high += on_high;
    high_pairs += j.n > 1 && j.w[1].node >= nodes && j.w[1].node < 2 * nodes;
    b_rings += on_b;
    b_pairs += j.n > 1 && j.w[1].node >= 2 * nodes;
    triples += j.n > 2;
    if (g_verbose) job_print(&j, stdout);
    outcome o;
    run_job(&j, &o, &acc);
    cycles += o.cycles;
    if (o.fail) {
      failures++;
      printf("FAIL seed %u%s [%s]: %s\n", seed, vm ? " (its VM program)" : "", o.tag, o.msg);
      printf("  reproduce: %s --seed %u --verbose%s%s", g_argv0, seed, vm_opt < 0 ? "" : vm_opt ? " --vm on" : " --vm off",
             g_vm_pct != 15 ? " --vm-pct" : "");
      if (g_vm_pct != 15) printf(" %u", g_vm_pct);
      if (vm_only) printf(" --vm-only");
      printf("\n");
      if (shrink_on && shrunk < 3) {
        shrunk++;
        /* the shrinker's runs do not count in the figures */
        const uint64_t c = g_vm_changes;
        uint64_t f[2][4];
        memcpy(f, g_vm_faults, sizeof f);
        shrink(&j, &o, 400);
        g_vm_changes = c;
        memcpy(g_vm_faults, f, sizeof f);
        job_print(&j, stdout);
      }
      fflush(stdout);
    }
    job_free(&j);
  }
  const double dt = now_s() - t0;
  printf("%u seeds (%u with two rings at once, %u on a high-priority ring, %u of them beside the normal ring it holds; "
         "%u on a second normal ring, %u of them beside the first, time-sliced; %u with three rings of a node), "
         "%u failed, %.1f s, %llu chip cycles\n",
         seeds, two, high, high_pairs, b_rings, b_pairs, triples, failures, dt, (unsigned long long)cycles);
  chip_figure("diff_high_priority_pairs_per_1000_seeds", (double)high_pairs * 1000.0 / seeds);
  chip_figure("diff_time_slice_pairs_per_1000_seeds", (double)b_pairs * 1000.0 / seeds);
  chip_figure("diff_three_ring_nodes_per_1000_seeds", (double)triples * 1000.0 / seeds);
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
    /* page faults need VM programs on a chip with CAPS.VM */
    if ((r == SGPU_FAULT_PAGE_NOT_PRESENT || r == SGPU_FAULT_PAGE_PROTECTION) && !(g_vm_on && chip_vm)) continue;
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
  printf("preemption requests %llu: taken %llu (level 0/1/2: %llu/%llu/%llu, inside a WAIT %llu, inside a FILL or "
         "COPY %llu, idle node %llu, memory "
         "scribbled after %llu), ignored on a faulted node %llu; requests during a continuation %llu\n",
         (unsigned long long)g_pre_req, (unsigned long long)g_pre_taken, (unsigned long long)g_pre_level[0],
         (unsigned long long)g_pre_level[1], (unsigned long long)g_pre_level[2], (unsigned long long)g_pre_wait,
         (unsigned long long)g_pre_rect, (unsigned long long)g_pre_idle, (unsigned long long)g_pre_scribbled, (unsigned long long)g_pre_faulted, (unsigned long long)g_pre_again);
  chip_figure("diff_preemptions_per_1000_seeds", (double)g_pre_taken * 1000.0 / seeds);
  printf("VM programs %llu (%s%s): buffers rewritten with hostile packets %llu, table changes between doorbells %llu, "
         "safety checks %llu; page faults the chip reported: PAGE_NOT_PRESENT fetch/read/write %llu/%llu/%llu, "
         "PAGE_PROTECTION write %llu; TLB_INVALIDATE reached %llu\n",
         (unsigned long long)g_vm_programs, g_vm_on ? "on" : "off", chip_vm ? ", chip has CAPS.VM" : ", chip without CAPS.VM",
         (unsigned long long)g_vm_rewritten, (unsigned long long)g_vm_changes, (unsigned long long)g_vm_safety,
         (unsigned long long)g_vm_faults[0][SGPU_HW_ACCESS_FETCH], (unsigned long long)g_vm_faults[0][SGPU_HW_ACCESS_READ],
         (unsigned long long)g_vm_faults[0][SGPU_HW_ACCESS_WRITE], (unsigned long long)g_vm_faults[1][SGPU_HW_ACCESS_WRITE],
         (unsigned long long)acc.packets[SGPU_OP_TLB_INVALIDATE]);
  chip_figure("diff_vm_programs_per_1000_seeds", (double)g_vm_programs * 1000.0 / seeds);
  int vm_missing = 0;
  if (seeds >= 500 && g_vm_on && chip_vm &&
      (!g_vm_rewritten || !g_vm_changes || !g_vm_faults[0][SGPU_HW_ACCESS_FETCH] || !g_vm_faults[0][SGPU_HW_ACCESS_READ] ||
       !g_vm_faults[0][SGPU_HW_ACCESS_WRITE] || !g_vm_faults[1][SGPU_HW_ACCESS_WRITE])) {
    printf("coverage: a kind of VM work or page fault never happened\n");
    missing++;
    vm_missing = 1;
  }
  if (seeds >= 500 && (!g_pre_level[0] || !g_pre_level[1] || !g_pre_level[2] || !g_pre_wait || !g_pre_rect || !g_pre_idle ||
                       !g_pre_faulted || !g_pre_again)) {
    printf("coverage: a kind of preemption stop never happened\n");
    missing++;
  }
  if (acc.indeterminate) {
    printf("FAIL: the generator made WAIT_MEM read chip-defined words\n");
    failures++;
  }
  if (vm_only) missing = vm_missing; /* the other kinds need the seeds' workloads */
  if (seeds >= 500 && missing) {
    printf("FAIL: coverage incomplete (%d opcodes/faults never seen)\n", missing);
    return 1;
  }
  if (failures) return 1;
  printf("sgpu_diff: PASS\n");
  return 0;
}
