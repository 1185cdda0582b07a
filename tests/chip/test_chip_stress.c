/* test_chip_stress — random memory back-pressure changes timing, never
 * results; and the INDIRECT streaming-fetch figure.
 *
 *  1. One random workload (nested INDIRECTs, WRITE_DATA, NOP padding,
 *     WAIT_MEM on the engine's own earlier writes, FENCEs on both nodes, FILL
 *     and COPY when CAPS reports a 2D engine, ring wrap-around) runs on
 *     zero-wait memory and then with stall_percent 30..50 and read latency
 *     1..4 under several seeds.  The reference model of the command
 *     processor (tests/model/sgpu_ref.c) is the oracle: it gets the same
 *     memory writes, ring programming and doorbells, and under every stall
 *     setting the chip's final memory image must equal the model's (the two
 *     nodes write disjoint memory, so the model may run each submission at
 *     its doorbell).  The cycle counts differ.
 *  2. INDIRECT streaming: a 2 KiB IB of NOP packets on zero-wait memory;
 *     words per cycle from the memory log (IB words / cycles from the first
 *     to the last IB read accept, inclusive) must be >= 0.95.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"
#include "sgpu_ref.h"

#define RING0 0x00010000u
#define RING1 0x00012000u
#define RING_SIZE 0x400u /* small, so the workload wraps it */
#define FENCE0 0x0001E000u
#define FENCE1 0x0001E100u
#define IB_BASE 0x00040000u
#define DATA 0x00100000u
#define DATA_SIZE 0x00008000u
#define STREAM_IB 0x00080000u

typedef struct workload {
  /* per node, per submission: ring packets (INDIRECTs point at IBs loaded up front) */
  chip_buf ring[2][40];
  uint32_t nsub;
  chip_buf ibs;     /* all IB words, loaded at IB_BASE */
} workload;

static void build_ib(workload *w, uint32_t *rng, uint32_t node, uint32_t depth, uint32_t *value, int have_2d,
                     uint32_t *addr_out, uint32_t *len_out) {
  chip_buf b;
  chip_buf_init(&b);
  uint32_t npk = 1 + chip_rand(rng) % 5;
  /* each node writes its own half of DATA, so results do not depend on timing */
  uint32_t half = DATA + node * (DATA_SIZE / 2);
  for (uint32_t p = 0; p < npk; p++) {
    uint32_t kind = chip_rand(rng) % 10;
    if (kind < 5) {
      uint32_t n = 1 + chip_rand(rng) % 20, d[20];
      uint32_t a = half + (chip_rand(rng) % (DATA_SIZE / 16 - 24)) * 4;
      for (uint32_t i = 0; i < n; i++) d[i] = (*value)++;
      chip_pkt_write_data(&b, a, d, n);
      if (chip_rand(rng) % 3 == 0) /* wait for what was just written: passes at once */
        chip_pkt_wait_mem(&b, a + 4 * (n - 1), 0xFFFFFFFFu, d[n - 1], SGPU_WAIT_FUNC_EQ);
    } else if (kind < 7) {
      chip_pkt_nop(&b, chip_rand(rng) % 6);
    } else if (kind < 9 && depth < SGPU_MAX_IB_DEPTH) {
      uint32_t sa, sl;
      build_ib(w, rng, node, depth + 1, value, have_2d, &sa, &sl);
      chip_pkt_indirect(&b, sa, sl, 0, 0);
    } else if (have_2d) {
      uint32_t base = half + DATA_SIZE / 4; /* upper quarter of the node's half */
      uint32_t wdt = 1 + chip_rand(rng) % 40, h = 1 + chip_rand(rng) % 6;
      uint32_t dst = base + chip_rand(rng) % 1500;
      if (chip_rand(rng) % 2)
        chip_pkt_fill(&b, dst, 64, wdt, h, chip_rand(rng));
      else
        chip_pkt_copy(&b, dst, 64, base + chip_rand(rng) % 1500, 64, wdt, h);
    } else {
      chip_pkt_nop(&b, 1);
    }
  }
  *addr_out = IB_BASE + chip_buf_bytes(&w->ibs);
  *len_out = chip_buf_bytes(&b);
  for (size_t i = 0; i < b.n; i++) chip_buf_word(&w->ibs, b.w[i]);
  chip_buf_free(&b);
}

static void build_workload(workload *w, uint32_t seed, int have_2d) {
  uint32_t rng = seed, value = 0x10000000u;
  chip_buf_init(&w->ibs);
  w->nsub = 40;
  for (uint32_t node = 0; node < 2; node++)
    for (uint32_t s = 0; s < w->nsub; s++) {
      chip_buf *r = &w->ring[node][s];
      chip_buf_init(r);
      uint32_t nib = 1 + chip_rand(&rng) % 2;
      for (uint32_t i = 0; i < nib; i++) {
        uint32_t a, l;
        build_ib(w, &rng, node, 1, &value, have_2d, &a, &l);
        chip_pkt_indirect(r, a, l, s + 1, (chip_rand(&rng) % 8) == 0 /* NullRendering now and then */);
      }
      chip_pkt_fence(r, node ? FENCE1 : FENCE0, s + 1, s % 4 == 0);
    }
}

static void free_workload(workload *w) {
  for (uint32_t node = 0; node < 2; node++)
    for (uint32_t s = 0; s < w->nsub; s++) chip_buf_free(&w->ring[node][s]);
  chip_buf_free(&w->ibs);
}

static void ref_wr(sgpu_ref *ref, uint32_t offset, uint32_t value) {
  CHIP_CHECK(sgpu_ref_reg_write(ref, offset, value) == 0, "model register 0x%03x", offset);
}

static void ref_mem(sgpu_ref *ref, uint32_t addr, const void *data, uint32_t size) {
  CHIP_CHECK(sgpu_ref_mem_write(ref, addr, data, size) == 0, "model memory 0x%08x", addr);
}

/* The model's side of chip_ring_init: the same node registers. */
static void ref_ring_init(sgpu_ref *ref, uint32_t node, uint32_t base, uint32_t size) {
  ref_wr(ref, SGPU_NODE_REG(node, SGPU_NREG_CONTROL), SGPU_CONTROL_RESET);
  ref_wr(ref, SGPU_NODE_REG(node, SGPU_NREG_CONTROL), 0);
  uint8_t *zero = calloc(size, 1);
  CHIP_CHECK(zero != NULL, "out of memory");
  ref_mem(ref, base, zero, size);
  free(zero);
  ref_wr(ref, SGPU_NODE_REG(node, SGPU_NREG_RING_BASE), base);
  ref_wr(ref, SGPU_NODE_REG(node, SGPU_NREG_RING_SIZE), size);
  ref_wr(ref, SGPU_NODE_REG(node, SGPU_NREG_WATCHDOG), 100000);
  ref_wr(ref, SGPU_NODE_REG(node, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
}

/* chip_submit on the chip and the same ring words and doorbell on the model
 * (which runs the submission at once). */
static void submit_both(chip_ring *r, sgpu_ref *ref, const chip_buf *b) {
  uint32_t wptr = r->wptr;
  chip_submit(r, b);
  for (size_t i = 0; i < b->n; i++) {
    ref_mem(ref, r->base + wptr, &b->w[i], 4);
    wptr = (wptr + 4) & (r->size - 1);
  }
  CHIP_EQ(wptr, r->wptr, "ring write pointer");
  ref_wr(ref, SGPU_NODE_REG(r->node, SGPU_NREG_RING_WPTR), wptr);
  uint32_t st = 0;
  CHIP_CHECK(sgpu_ref_reg_read(ref, SGPU_NODE_REG(r->node, SGPU_NREG_STATUS), &st) == 0, "model STATUS");
  CHIP_CHECK(!(st & SGPU_STATUS_FAULTED), "the model faults on the workload (node %u)", r->node);
}

/* Run the workload on the chip and on the reference model; the chip's final
 * memory must equal the model's.  Returns cycles. */
static uint64_t run_workload(const workload *w, const sgpu_sim_config *cfg, const char *what) {
  sgpu_sim *sim = chip_create(cfg);
  const uint32_t mem = sgpu_sim_mem_bytes(sim);
  sgpu_ref_config rc = {mem, sgpu_sim_nodes(sim), sgpu_sim_sources(sim), SGPU_MAX_IB_DEPTH};
  sgpu_ref *ref = sgpu_ref_create(&rc);
  CHIP_CHECK(ref != NULL, "sgpu_ref_create");
  chip_ring r[2];
  chip_ring_init(&r[0], sim, 0, RING0, RING_SIZE);
  chip_ring_init(&r[1], sim, 1, RING1, RING_SIZE);
  ref_ring_init(ref, 0, RING0, RING_SIZE);
  ref_ring_init(ref, 1, RING1, RING_SIZE);
  chip_wr(sim, SGPU_REG_INT_ENABLE, SGPU_INT_DMA_COMPLETED(0) | SGPU_INT_DMA_COMPLETED(1));
  chip_mem_write(sim, IB_BASE, w->ibs.w, chip_buf_bytes(&w->ibs));
  ref_mem(ref, IB_BASE, w->ibs.w, chip_buf_bytes(&w->ibs));
  /* seed the 2D area with a known pattern */
  for (uint32_t a = DATA; a < DATA + DATA_SIZE; a += 4) {
    uint32_t v = a * 2654435761u;
    chip_poke(sim, a, v);
    ref_mem(ref, a, &v, 4);
  }
  uint64_t t0 = sgpu_sim_cycle(sim);
  uint32_t next[2] = {0, 0};
  uint64_t guard = 0;
  while (next[0] < w->nsub || next[1] < w->nsub) {
    for (uint32_t n = 0; n < 2; n++) {
      if (next[n] >= w->nsub) continue;
      /* keep at most 4 submissions in flight so the ring never overflows */
      uint32_t done = chip_peek(sim, n ? FENCE1 : FENCE0);
      if (next[n] - done >= 4) continue;
      submit_both(&r[n], ref, &w->ring[n][next[n]]);
      next[n]++;
    }
    sgpu_sim_run(sim, 64, 0);
    CHIP_CHECK(++guard < 100000, "workload does not progress (fences %u %u)", chip_peek(sim, FENCE0),
               chip_peek(sim, FENCE1));
    if (sgpu_sim_irq(sim)) chip_wr(sim, SGPU_REG_INT_STATUS, chip_rd(sim, SGPU_REG_INT_STATUS));
  }
  for (uint32_t n = 0; n < 2; n++) {
    CHIP_CHECK(chip_wait_fence(sim, n ? FENCE1 : FENCE0, w->nsub, 2000000) == 0, "node %u: last fence missing", n);
    int st = chip_wait_idle(sim, n, 100000);
    CHIP_CHECK(st == 0, "node %u: not idle (%d), FAULT_REASON %u at 0x%08x", n, st,
               chip_nrd(sim, n, SGPU_NREG_FAULT_REASON), chip_nrd(sim, n, SGPU_NREG_FAULT_ADDR));
  }
  uint64_t cycles = sgpu_sim_cycle(sim) - t0;
  uint8_t *image = malloc(mem);
  CHIP_CHECK(image != NULL, "oom");
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, 0, image, mem) == 0, "image");
  const uint8_t *model = sgpu_ref_memory(ref);
  if (memcmp(image, model, mem) != 0) {
    for (uint32_t a = 0; a < mem; a++)
      if (image[a] != model[a])
        chip_fail(__FILE__, __LINE__, "%s: memory differs from the reference model first at 0x%08x (chip 0x%02x, model 0x%02x)",
                  what, a, image[a], model[a]);
  }
  for (uint32_t n = 0; n < 2; n++) {
    uint32_t lf = 0;
    CHIP_CHECK(sgpu_ref_reg_read(ref, SGPU_NODE_REG(n, SGPU_NREG_LAST_FENCE), &lf) == 0, "model LAST_FENCE");
    CHIP_EQ(chip_nrd(sim, n, SGPU_NREG_LAST_FENCE), lf, "LAST_FENCE (chip vs model)");
  }
  free(image);
  sgpu_ref_destroy(ref);
  sgpu_sim_destroy(sim);
  return cycles;
}

static void test_backpressure(void) {
  sgpu_sim *probe = chip_create(NULL);
  int have_2d = (chip_rd(probe, SGPU_REG_CAPS) >> 8) & 1;
  sgpu_sim_destroy(probe);
  workload w;
  build_workload(&w, 2024, have_2d);
  sgpu_sim_config cfg = {0};
  uint64_t base = run_workload(&w, &cfg, "zero-wait memory");
  printf("backpressure: workload %u submissions x 2 nodes, %u IB words, 2D %s: %llu cycles zero-wait, memory == model\n",
         w.nsub, (unsigned)w.ibs.n, have_2d ? "yes" : "no", (unsigned long long)base);
  static const struct { uint32_t stall, lat, seed; } runs[] = {
      {30, 1, 1}, {40, 2, 2}, {50, 1, 3}, {50, 4, 4}, {35, 3, 5}, {45, 1, 6}, {30, 2, 7}, {50, 2, 8},
  };
  uint64_t slowest = 0;
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    cfg.stall_percent = runs[i].stall;
    cfg.mem_latency = runs[i].lat;
    cfg.seed = runs[i].seed;
    char what[80];
    snprintf(what, sizeof what, "stall %u%% latency %u seed %u", runs[i].stall, runs[i].lat, runs[i].seed);
    uint64_t c = run_workload(&w, &cfg, what);
    printf("  %s: %llu cycles, memory == model\n", what, (unsigned long long)c);
    CHIP_CHECK(c > base, "stalls did not change the cycle count");
    if (c > slowest) slowest = c;
  }
  chip_figure("backpressure_zero_wait_cycles", (double)base);
  chip_figure("backpressure_slowest_cycles", (double)slowest);
  free_workload(&w);
}

static void test_streaming(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  for (int i = 0; i < 8; i++) chip_pkt_nop(&ib, 63); /* 8 x 64 words = 2 KiB */
  const uint32_t words = (uint32_t)ib.n;
  chip_mem_write(sim, STREAM_IB, ib.w, chip_buf_bytes(&ib));
  chip_pkt_indirect(&rb, STREAM_IB, chip_buf_bytes(&ib), 1, 0);
  chip_pkt_fence(&rb, FENCE0, 1, 0);
  chip_ring_put(&ring, &rb);
  sgpu_sim_run(sim, 10, 0);
  uint32_t words0 = chip_nrd(sim, 0, SGPU_NREG_PERF_WORDS);
  sgpu_sim_mem_log_enable(sim, 1u << 16);
  chip_doorbell(&ring);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 1, 100000) == 0, "streaming fence");
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  uint64_t first = 0, last = 0;
  uint32_t reads = 0;
  for (size_t i = 0; i < n; i++) {
    if (ev[i].write || ev[i].address < STREAM_IB || ev[i].address >= STREAM_IB + 4 * words) continue;
    if (!reads) first = ev[i].cycle;
    last = ev[i].cycle;
    reads++;
  }
  CHIP_CHECK(reads >= words, "IB read %u words of %u", reads, words);
  double wpc = (double)words / (double)(last - first + 1);
  printf("streaming: %u IB words read in cycles %llu..%llu (%u read requests)\n", words, (unsigned long long)first,
         (unsigned long long)last, reads);
  chip_figure("indirect_fetch_words_per_cycle", wpc);
  uint32_t perf_words = chip_nrd(sim, 0, SGPU_NREG_PERF_WORDS) - words0;
  CHIP_CHECK(perf_words >= words, "PERF_WORDS counted %u of %u IB words", perf_words, words);
  CHIP_CHECK(wpc >= 0.95, "INDIRECT fetch %.3f words/cycle < 0.95", wpc);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
  sgpu_sim_destroy(sim);
}

int main(void) {
  test_streaming();
  test_backpressure();
  printf("test_chip_stress: PASS\n");
  return 0;
}
