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
#define LOG_CAP (1u << 19)

static int g_verbose;
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

/* Run one workload on a fresh chip and the model. */
static void run_work(dg_work *w, outcome *o, sgpu_ref_stats *acc) {
  memset(o, 0, sizeof *o);
  sgpu_sim_config cfg = {w->latency, w->stall, w->sim_seed, NULL};
  both b;
  b.sim = chip_create(&cfg);
  const uint32_t mem = sgpu_sim_mem_bytes(b.sim), sources = sgpu_sim_sources(b.sim), nodes = sgpu_sim_nodes(b.sim);
  sgpu_ref_config rc = {mem, nodes, sources};
  b.ref = sgpu_ref_create(&rc);
  CHIP_CHECK(b.ref != NULL, "sgpu_ref_create");
  if (g_verbose) sgpu_ref_trace(b.ref, stdout);
  const uint32_t n = w->node;

  /* displays: TINY timing, so frames are short */
  uint32_t base0[SGPU_MAX_SOURCES] = {0}, flips0[SGPU_MAX_SOURCES] = {0}, vb0[SGPU_MAX_SOURCES] = {0};
  if (w->display) {
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

  /* memory: buffers and data */
  dg_for_each_ib(w, put_ib, &b);
  uint8_t *data = malloc(DG_DATA_END - DG_DATA_BASE);
  CHIP_CHECK(data != NULL, "oom");
  dg_data_image(w, data);
  CHIP_CHECK(sgpu_sim_backdoor_write(b.sim, DG_DATA_BASE, data, DG_DATA_END - DG_DATA_BASE) == 0, "data");
  CHIP_CHECK(sgpu_ref_mem_write(b.ref, DG_DATA_BASE, data, DG_DATA_END - DG_DATA_BASE) == 0, "data");
  free(data);

  /* the ring */
  wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_BASE), w->ring_base);
  wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_SIZE), w->ring_size);
  wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RPTR_ADDR), w->rptr_addr);
  uint32_t watchdog = w->nseg ? w->seg[0].watchdog : 3000;
  wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_WATCHDOG), watchdog);
  wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
  wr2(&b, SGPU_REG_INT_ENABLE, SGPU_INT_DMA_FAULTED(n));
  sgpu_sim_mem_log_enable(b.sim, LOG_CAP);
  const uint64_t t0 = sgpu_sim_cycle(b.sim);

  const uint32_t mask = w->ring_size - 1, node_bits = SGPU_INT_DMA_COMPLETED(n) | SGPU_INT_DMA_FAULTED(n);
  uint32_t wptr = 0;
  for (size_t si = 0; si < w->nseg && !o->fail; si++) {
    dg_seg *sg = &w->seg[si];
    uint32_t *words;
    size_t nw = dg_layout(&sg->ring, &words);
    sg->start = wptr;
    if (!nw) {
      free(words);
      continue;
    }
    if (sg->watchdog != watchdog) {
      watchdog = sg->watchdog;
      wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_WATCHDOG), watchdog);
    }
    for (size_t i = 0; i < nw; i++) {
      uint32_t a = w->ring_base + ((wptr + 4 * (uint32_t)i) & mask);
      chip_mem_write(b.sim, a, &words[i], 4);
      CHIP_CHECK(sgpu_ref_mem_write(b.ref, a, &words[i], 4) == 0, "ring");
    }
    free(words);
    wptr = (wptr + 4 * ((uint32_t)nw - seg_cut(sg))) & mask;
    if (g_verbose) printf("segment %zu: doorbell WPTR 0x%x\n", si, wptr);
    wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_RING_WPTR), wptr);

    /* the chip: until idle or faulted */
    const uint64_t start = sgpu_sim_cycle(b.sim);
    const uint64_t limit = (uint64_t)watchdog * 4 + (w->display ? 40u * TINY_FRAME : 0) + 200000;
    int state = 0; /* 0 running, 1 idle, 2 faulted, 3 hung */
    while (!state) {
      sgpu_sim_run(b.sim, 256, 1);
      uint32_t st = chip_nrd(b.sim, n, SGPU_NREG_STATUS);
      if (st & SGPU_STATUS_FAULTED) state = 2;
      else if (!(st & (SGPU_STATUS_BUSY | SGPU_STATUS_WAITING)) &&
               chip_nrd(b.sim, n, SGPU_NREG_RING_RPTR) == chip_nrd(b.sim, n, SGPU_NREG_RING_WPTR))
        state = 1;
      else if (sgpu_sim_cycle(b.sim) - start > limit) state = 3;
    }
    sgpu_sim_run(b.sim, 16, 0);
    const uint32_t mst = mrd(&b, SGPU_NODE_REG(n, SGPU_NREG_STATUS));
    const int mfault = (mst & SGPU_STATUS_FAULTED) != 0;
    if (g_verbose) printf("segment %zu: chip %s after %llu cycles; model %s\n", si,
                          state == 1 ? "idle" : state == 2 ? "faulted" : "HUNG",
                          (unsigned long long)(sgpu_sim_cycle(b.sim) - start), mfault ? "faulted" : "idle");
    if (state == 3) {
      mismatch(o, "hang", "segment %zu: chip neither idle nor faulted after %llu cycles (STATUS 0x%x, RPTR 0x%x), model %s",
               si, (unsigned long long)limit, chip_nrd(b.sim, n, SGPU_NREG_STATUS),
               chip_nrd(b.sim, n, SGPU_NREG_RING_RPTR), mfault ? "faulted" : "idle");
      break;
    }
    uint32_t cis = chip_rd(b.sim, SGPU_REG_INT_STATUS) & node_bits, mis = mrd(&b, SGPU_REG_INT_STATUS) & node_bits;
    if ((state == 2) != mfault) {
      const sgpu_ref_fault *mf;
      size_t nf = sgpu_ref_faults(b.ref, &mf);
      if (mfault)
        mismatch(o, "fault", "segment %zu: model faults %s at 0x%08x (header 0x%08x), chip does not", si,
                 sgpu_ref_fault_name(mf[nf - 1].reason), mf[nf - 1].addr, mf[nf - 1].header);
      else
        mismatch(o, "fault", "segment %zu: chip faults %s at 0x%08x (header 0x%08x), model does not", si,
                 sgpu_ref_fault_name(chip_nrd(b.sim, n, SGPU_NREG_FAULT_REASON)),
                 chip_nrd(b.sim, n, SGPU_NREG_FAULT_ADDR), chip_nrd(b.sim, n, SGPU_NREG_FAULT_OPCODE));
      break;
    }
    if (state == 2) {
      if (!cmp_nreg(&b, n, SGPU_NREG_FAULT_REASON, si, o, "fault") ||
          !cmp_nreg(&b, n, SGPU_NREG_FAULT_ADDR, si, o, "fault") ||
          !cmp_nreg(&b, n, SGPU_NREG_FAULT_OPCODE, si, o, "fault"))
        break;
      cmp_nreg(&b, n, SGPU_NREG_FAULT_FENCE, si, o, "fault_fence");
    }
    if (cis != mis)
      mismatch(o, "events", "segment %zu: INT_STATUS node bits chip 0x%08x, model 0x%08x", si, cis, mis);
    cmp_nreg(&b, n, SGPU_NREG_RING_RPTR, si, o, "rptr");
    cmp_nreg(&b, n, SGPU_NREG_LAST_FENCE, si, o, "last_fence");
    if (cmp_nreg(&b, n, SGPU_NREG_CONTEXT_ID, si, o, "context") && mrd(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTEXT_ID))) {
      cmp_nreg(&b, n, SGPU_NREG_WINDOW_BASE, si, o, "context");
      cmp_nreg(&b, n, SGPU_NREG_WINDOW_SIZE, si, o, "context");
    }
    wr2(&b, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
    if (state == 2) {
      wr2(&b, SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
      wptr = 0;
    }
  }

  /* displays: let the queued flips be taken */
  if (!o->fail && sources) {
    sgpu_ref_display_settle(b.ref);
    if (w->display) {
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
      if ((int64_t)cv < mv) mismatch(o, "display", "source %u: chip saw %u vblanks, the model needs at least %lld", s, cv, (long long)mv);
    }
  }

  /* memory */
  if (!o->fail) {
    static const struct { uint32_t base, size; } regions[] = {
        {DG_RING_AREA, 0x10000}, {DG_RPTR_AREA, 0x100}, {DG_SPAN_BASE, DG_SPAN_END - DG_SPAN_BASE}};
    const uint8_t *mm = sgpu_ref_memory(b.ref), *und = sgpu_ref_chip_defined(b.ref);
    for (size_t r = 0; r < sizeof regions / sizeof regions[0] && !o->fail; r++) {
      uint8_t *img = malloc(regions[r].size);
      CHIP_CHECK(img != NULL, "oom");
      CHIP_CHECK(sgpu_sim_backdoor_read(b.sim, regions[r].base, img, regions[r].size) == 0, "read back");
      for (uint32_t i = 0; i < regions[r].size; i++) {
        uint32_t a = regions[r].base + i;
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
  /* timestamps: nondecreasing in program order, not in the future */
  if (!o->fail) {
    const uint32_t *ts;
    size_t nts = sgpu_ref_timestamps(b.ref, &ts);
    const uint8_t *und = sgpu_ref_chip_defined(b.ref);
    uint64_t prev = 0, now = sgpu_sim_cycle(b.sim);
    for (size_t i = 0; i < nts; i++) {
      int all = 1;
      for (int k = 0; k < 8; k++) all &= und[ts[i] + k] != 0;
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
  /* FENCE order and stray writes, from the memory log */
  if (!o->fail) {
    const sgpu_sim_mem_event *ev;
    size_t ne = sgpu_sim_mem_log(b.sim, &ev);
    const sgpu_ref_fence *mf;
    size_t nmf = sgpu_ref_fences(b.ref, &mf), k = 0;
    if (ne >= LOG_CAP) {
      mismatch(o, "log", "memory log overflowed (%zu events)", ne);
    }
    for (size_t i = 0; i < ne && !o->fail; i++) {
      if (!ev[i].write) continue;
      uint32_t a = ev[i].address;
      int ok = (a >= DG_RING_AREA && a < DG_RING_AREA + 0x10000) || (a >= DG_RPTR_AREA && a < DG_RPTR_AREA + 0x100) ||
               (a >= DG_SPAN_BASE && a < DG_SPAN_END);
      if (!ok) {
        mismatch(o, "stray", "chip wrote 0x%08x (strobe 0x%x) at 0x%08x, outside the workload's memory", ev[i].data,
                 ev[i].strobe, a);
        break;
      }
      if (a < DG_FENCE_BASE || a >= DG_FENCE_END) continue;
      while (k < nmf && (mf[k].addr < DG_FENCE_BASE || mf[k].addr >= DG_FENCE_END)) k++;
      if (k >= nmf || mf[k].addr != a || mf[k].value != ev[i].data) {
        mismatch(o, "fences", "FENCE write #%zu: chip 0x%08x <- %u, model %s0x%08x <- %u", k, a, ev[i].data,
                 k >= nmf ? "(none) " : "", k < nmf ? mf[k].addr : 0, k < nmf ? mf[k].value : 0);
        break;
      }
      k++;
    }
    while (!o->fail && k < nmf && (mf[k].addr < DG_FENCE_BASE || mf[k].addr >= DG_FENCE_END)) k++;
    if (!o->fail && k < nmf)
      mismatch(o, "fences", "chip wrote %zu FENCEs, model %zu (next: 0x%08x <- %u)", k, nmf, mf[k].addr, mf[k].value);
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

/* Drop packets while the workload still fails the same way (ddmin). */
static dg_work *shrink(const dg_work *w, const outcome *orig, int max_trials) {
  dg_work *cur = dg_clone(w);
  int saved = g_verbose, trials = 0;
  g_verbose = 0;
  size_t chunk = dg_count(cur) / 2;
  if (!chunk) chunk = 1;
  while (chunk >= 1 && trials < max_trials) {
    int progress = 0;
    size_t start = 0;
    while (start < dg_count(cur) && trials < max_trials) {
      dg_work *cand = dg_clone(cur);
      size_t end = start + chunk;
      if (end > dg_count(cand)) end = dg_count(cand);
      for (size_t k = end; k-- > start;)
        if (k < dg_count(cand)) dg_remove(cand, k);
      outcome o;
      run_work(cand, &o, NULL);
      trials++;
      if (o.fail && !strcmp(o.tag, orig->tag)) {
        dg_free(cur);
        free(cur);
        cur = cand;
        progress = 1;
      } else {
        dg_free(cand);
        free(cand);
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
  run_work(cur, &o, NULL); /* sets the segment start offsets for the listing */
  printf("  shrunk to %zu packets in %d runs: %s\n", dg_count(cur), trials, o.fail ? o.msg : "(passes now?)");
  return cur;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  uint32_t seeds = 2000, base = 1, single = 0;
  int have_single = 0, shrink_on = 1, random_base = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--base") && i + 1 < argc) base = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      single = (uint32_t)strtoul(argv[++i], NULL, 0);
      have_single = 1;
    } else if (!strcmp(argv[i], "--verbose")) g_verbose = 1;
    else if (!strcmp(argv[i], "--no-shrink")) shrink_on = 0;
    else if (!strcmp(argv[i], "--random")) random_base = 1;
    else {
      fprintf(stderr, "usage: %s [--seeds N] [--base S | --random] [--seed S] [--verbose] [--no-shrink]\n", argv[0]);
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
  sgpu_sim_destroy(probe);

  sgpu_ref_stats acc;
  memset(&acc, 0, sizeof acc);
  uint32_t failures = 0, shrunk = 0;
  uint64_t cycles = 0;
  const double t0 = now_s();
  for (uint32_t i = 0; i < seeds; i++) {
    const uint32_t seed = base + i;
    dg_work w;
    dg_generate(&w, seed, &lim);
    if (g_verbose) dg_print(&w, stdout);
    outcome o;
    run_work(&w, &o, &acc);
    cycles += o.cycles;
    if (o.fail) {
      failures++;
      printf("FAIL seed %u [%s]: %s\n", seed, o.tag, o.msg);
      printf("  reproduce: %s --seed %u --verbose\n", g_argv0, seed);
      if (shrink_on && shrunk < 3) {
        shrunk++;
        dg_work *s = shrink(&w, &o, 400);
        dg_print(s, stdout);
        dg_free(s);
        free(s);
      }
      fflush(stdout);
    }
    dg_free(&w);
  }
  const double dt = now_s() - t0;
  printf("%u seeds, %u failed, %.1f s, %llu chip cycles\n", seeds, failures, dt, (unsigned long long)cycles);
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
