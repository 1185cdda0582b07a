/* bench_chip.c — cycle figures of the chip for `make bench`, measured on the
 * Verilator model through sgpu_sim.h and the chip-test helpers, in
 * simulation cycles (machine-independent).
 *
 *   bench_chip [--quick]
 *
 * Prints one line per figure and per plotted point:
 *   FIG name value limit unit | what the limit is
 *   PT series x y
 * tools/bench_report.py turns them into report.md / results.json / plots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING 0x00010000u
#define RING_SIZE 65536u
#define FENCE 0x00008000u
#define IB 0x00040000u
#define DST 0x00200000u
#define SRC 0x00400000u
#define FB0 0x00100000u
#define FB1 0x00180000u
#define FB2 0x00600000u
#define FB3 0x00680000u
#define PITCH 1280u

static int quick;

static void fig(const char *name, double v, double limit, const char *unit, const char *what) {
  printf("FIG %s %.6g %.6g %s | %s\n", name, v, limit, unit, what);
}

typedef struct span {
  uint64_t first, last; /* cycles */
  uint64_t reads, writes;
} span;

/* Accesses of the log inside [lo, hi). */
static span log_span(sgpu_sim *sim, uint32_t lo, uint32_t hi, int want_write) {
  const sgpu_sim_mem_event *e;
  size_t n = sgpu_sim_mem_log(sim, &e);
  span s = {UINT64_MAX, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    if (e[i].address < lo || e[i].address >= hi) continue;
    if (want_write >= 0 && e[i].write != want_write) continue;
    if (e[i].cycle < s.first) s.first = e[i].cycle;
    if (e[i].cycle > s.last) s.last = e[i].cycle;
    if (e[i].write) s.writes++;
    else s.reads++;
  }
  return s;
}

static void run_fence(sgpu_sim *sim, chip_ring *r, chip_buf *b, uint32_t id) {
  chip_pkt_fence(b, FENCE, id, 0);
  chip_submit(r, b);
  CHIP_CHECK(chip_wait_fence(sim, FENCE, id, 20000000) == 0, "fence %u", id);
  chip_buf_clear(b);
}

/* INDIRECT fetch: a 16 Ki-word buffer of NOPs. */
static void bench_fetch(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r;
  chip_ring_init(&r, sim, 0, RING, RING_SIZE);
  const uint32_t words = quick ? 4096 : 16384;
  chip_buf ib;
  chip_buf_init(&ib);
  while (ib.n < words) chip_pkt_nop(&ib, 1023);
  chip_mem_write(sim, IB, ib.w, chip_buf_bytes(&ib));
  sgpu_sim_mem_log_enable(sim, 1u << 20);
  chip_buf b;
  chip_buf_init(&b);
  chip_pkt_indirect(&b, IB, chip_buf_bytes(&ib), 0, 0);
  run_fence(sim, &r, &b, 1);
  span s = log_span(sim, IB, IB + chip_buf_bytes(&ib), 0);
  fig("indirect_fetch_words_per_cycle", (double)s.reads / (double)(s.last - s.first + 1), 1.0, "words/cycle",
      "one 32-bit memory port: one word per cycle");
  chip_buf_free(&b);
  chip_buf_free(&ib);
  sgpu_sim_destroy(sim);
}

/* A realistic packet mix, per draw: WRITE_DATA of 4 words (constants), a
 * 64x8-byte FILL, a 32x4-byte COPY, TIMESTAMP, WAIT_MEM already satisfied,
 * NOP of 2 (padding), FENCE; 64 draws in one INDIRECT buffer. */
static void bench_mix(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r;
  chip_ring_init(&r, sim, 0, RING, RING_SIZE);
  chip_buf ib;
  chip_buf_init(&ib);
  const uint32_t draws = quick ? 16 : 64;
  uint32_t packets = 0;
  chip_poke(sim, FENCE + 64, 7);
  for (uint32_t i = 0; i < draws; i++) {
    uint32_t d[4] = {i, i + 1, i + 2, i + 3};
    chip_pkt_write_data(&ib, DST + 0x10000 + 16 * i, d, 4);
    chip_pkt_fill(&ib, DST + i * 1024, 64, 64, 8, 0x01010101u * i);
    chip_pkt_copy(&ib, DST + 0x20000 + i * 256, 64, SRC, 64, 32, 4);
    chip_pkt_timestamp(&ib, DST + 0x30000 + 8 * i);
    chip_pkt_wait_mem(&ib, FENCE + 64, 0xFFFFFFFFu, 7, SGPU_WAIT_FUNC_EQ);
    chip_pkt_nop(&ib, 2);
    chip_pkt_fence(&ib, FENCE + 128, i, 0);
    packets += 7;
  }
  chip_mem_write(sim, IB, ib.w, chip_buf_bytes(&ib));
  sgpu_sim_mem_log_enable(sim, 1u << 20);
  chip_buf b;
  chip_buf_init(&b);
  chip_pkt_indirect(&b, IB, chip_buf_bytes(&ib), 0, 0);
  run_fence(sim, &r, &b, 1);
  span f = log_span(sim, IB, IB + chip_buf_bytes(&ib), 0);
  span all = log_span(sim, 0, 0xFFFFFFFFu, -1);
  /* From the first read of the buffer to the last access of its packets
   * (the ring's closing FENCE excluded). */
  span last = log_span(sim, DST, DST + 0x40000, -1);
  span lastf = log_span(sim, FENCE + 128, FENCE + 132, 1);
  const uint64_t end = last.last > lastf.last ? last.last : lastf.last;
  const double cyc = (double)(end - f.first + 1);
  const double mem = (double)(all.reads + all.writes);
  fig("packet_mix_packets_per_cycle", packets / cyc, packets / mem, "packets/cycle",
      "every memory access of the mix (packet fetch + data) at one per cycle");
  fig("packet_mix_port_utilisation", mem / cyc, 1.0, "accesses/cycle", "one access per cycle");
  chip_buf_free(&b);
  chip_buf_free(&ib);
  sgpu_sim_destroy(sim);
}

/* Per-submission overhead of a lone FENCE with IRQ in the ring. */
static void bench_submission(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r;
  chip_ring_init(&r, sim, 0, RING, RING_SIZE);
  chip_wr(sim, SGPU_REG_INT_ENABLE, SGPU_INT_DMA_COMPLETED(0));
  uint64_t sum_first = 0, sum_fence = 0, sum_irq = 0, max_first = 0, max_fence = 0, max_irq = 0;
  const uint32_t n = quick ? 4 : 32;
  chip_buf b;
  chip_buf_init(&b);
  for (uint32_t i = 1; i <= n; i++) {
    sgpu_sim_run(sim, 50 + 13 * i, 0);
    sgpu_sim_mem_log_enable(sim, 1u << 16);
    chip_pkt_fence(&b, FENCE, i, 1);
    chip_submit(&r, &b);
    chip_buf_clear(&b);
    const uint64_t bell = sgpu_sim_last_host_write_cycle(sim);
    uint64_t t = 0;
    while (!sgpu_sim_irq(sim) && t++ < 100000) sgpu_sim_run(sim, 1, 0);
    CHIP_CHECK(sgpu_sim_irq(sim), "no interrupt for fence %u", i);
    const uint64_t irq = sgpu_sim_cycle(sim) - 1; /* the cycle whose edge raised irq_o */
    span rd = log_span(sim, RING, RING + RING_SIZE, 0);
    span fw = log_span(sim, FENCE, FENCE + 4, 1);
    CHIP_CHECK(fw.writes == 1 && rd.reads > 0, "fence %u: no ring read or fence write logged", i);
    const uint64_t first = rd.first - bell, fence = fw.first + 1 - bell, toirq = irq - fw.first;
    sum_first += first, sum_fence += fence, sum_irq += toirq;
    max_first = first > max_first ? first : max_first;
    max_fence = fence > max_fence ? fence : max_fence;
    max_irq = toirq > max_irq ? toirq : max_irq;
    printf("PT submission %u %llu\n", i, (unsigned long long)fence);
    chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  }
  fig("ring_write_to_first_fetch_cycles", (double)sum_first / n, 1, "cycles",
      "the fetch can start in the cycle after the doorbell write");
  fig("last_write_to_fence_visible_cycles", (double)sum_fence / n, 6, "cycles",
      "fetch of the 3 packet words from the cycle after the doorbell, 1 cycle read latency, "
      "the write, visible in the next cycle");
  fig("fence_to_interrupt_cycles", (double)sum_irq / n, 0, "cycles", "irq_o rises with the fence write's edge");
  fig("last_write_to_fence_visible_cycles_max", (double)max_fence, 6, "cycles", "as above, worst of the runs");
  (void)max_first, (void)max_irq;
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
}

/* FILL and COPY over widths and alignments, 8 rows each. */
static void bench_blit(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r;
  chip_ring_init(&r, sim, 0, RING, RING_SIZE);
  static const uint32_t widths_full[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  static const uint32_t widths_quick[] = {16, 256, 1024};
  const uint32_t *widths = quick ? widths_quick : widths_full;
  const uint32_t nw = quick ? 3 : 10, rows = 8, pitch = 4096;
  double fill_best = 0, copy_best = 0, fill_un_best = 0, copy_un_best = 0;
  chip_buf b;
  chip_buf_init(&b);
  uint32_t id = 1;
  for (uint32_t op = 0; op < 2; op++)
    for (uint32_t al = 0; al < 4; al++)
      for (uint32_t k = 0; k < nw; k++) {
        const uint32_t w = widths[k];
        sgpu_sim_mem_log_enable(sim, 1u << 18);
        if (op == 0)
          chip_pkt_fill(&b, DST + al, pitch, w, rows, 0x5A5A5A5Au);
        else
          chip_pkt_copy(&b, DST + al, pitch, SRC + al, pitch, w, rows);
        run_fence(sim, &r, &b, ++id);
        span wr = log_span(sim, DST, DST + pitch * rows, 1);
        span rd = log_span(sim, SRC, SRC + pitch * rows, 0);
        const uint64_t first = op ? (rd.first < wr.first ? rd.first : wr.first) : wr.first;
        const double wpc = (double)wr.writes / (double)(wr.last - first + 1);
        printf("PT %s_align%u %u %.4f\n", op ? "copy" : "fill", al, w, wpc);
        if (w >= 256) {
          double *best = op ? (al ? &copy_un_best : &copy_best) : (al ? &fill_un_best : &fill_best);
          if (wpc > *best) *best = wpc;
        }
      }
  fig("fill_words_per_cycle", fill_best, 1.0, "words/cycle", "one write per cycle on the memory port");
  fig("fill_unaligned_words_per_cycle", fill_un_best, 1.0, "words/cycle", "one write per cycle");
  fig("copy_words_per_cycle", copy_best, 0.5, "words/cycle",
      "a read and a write per word on one port: half a word per cycle");
  fig("copy_unaligned_words_per_cycle", copy_un_best, 0.5, "words/cycle", "half a word per cycle");
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
}

static void display_on(sgpu_sim *sim, uint32_t s, uint32_t fb) {
  chip_wr(sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_BASE), fb);
  chip_wr(sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_PITCH), PITCH);
  chip_wr(sim, SGPU_SOURCE_REG(s, SGPU_SREG_DISP_CONTROL),
          (1u << SGPU_DISP_ENABLE_SHIFT) | (SGPU_HW_FORMAT_RGB565 << SGPU_DISP_FORMAT_SHIFT));
}

/* Flip latency: FLIP (no wait) at varied points of the frame; the cycle
 * DISP_BASE shows the new address against the cycle the display entered
 * vblank (SCANLINE[16]), both polled through the host port. */
static void bench_flip(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r;
  chip_ring_init(&r, sim, 0, RING, RING_SIZE);
  display_on(sim, 0, FB0);
  sgpu_sim_run_until_frame(sim, 0, 2000000);
  const uint32_t n = quick ? 4 : 24;
  chip_buf b;
  chip_buf_init(&b);
  uint32_t seed = 5, late = 0;
  double worst = 0;
  for (uint32_t i = 0; i < n; i++) {
    sgpu_sim_run(sim, 1000 + chip_rand(&seed) % 400000, 0);
    const uint32_t fb = (i & 1) ? FB0 : FB1;
    chip_pkt_flip(&b, 0, fb, 1, 1);
    chip_submit(&r, &b);
    chip_buf_clear(&b);
    const uint32_t vb0 = chip_rd(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_VBLANK_COUNT));
    uint64_t t_vb = 0, t_new = 0;
    int prev_vb = 1;
    uint32_t vbs_seen = 0;
    for (uint64_t t = 0; t < 1000000 && !t_new; t++) {
      const uint32_t sl = chip_rd(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_SCANLINE));
      const uint32_t base = chip_rd(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE));
      const int vb = (sl >> 16) & 1;
      if (vb && !prev_vb) {
        t_vb = sgpu_sim_cycle(sim);
        vbs_seen++;
      }
      prev_vb = vb;
      if (base == fb) t_new = sgpu_sim_cycle(sim);
    }
    CHIP_CHECK(t_new, "flip %u never taken", i);
    (void)vb0;
    if (vbs_seen > 1) late++;
    const double lines = t_vb ? (double)((int64_t)t_new - (int64_t)t_vb) / SGPU_TIMING_VGA_H_TOTAL : 0;
    printf("PT flip_latency %u %.3f\n", i, lines);
    if (lines > worst) worst = lines;
  }
  fig("flip_latency_after_vblank_start_lines", worst, 0.05, "lines",
      "taken at vblank start (0 lines; the limit allows the polling step of 2 register reads)");
  fig("flips_taken_late", late, 0, "flips", "every flip at the first vblank after it (0)");
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
}

/* Both sources scanning out 640x480 RGB565 while both nodes run full-screen
 * FILL + COPY back to back: underflows must stay 0. */
static void bench_underflow(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r0, r1;
  chip_ring_init(&r0, sim, 0, RING, 4096);
  chip_ring_init(&r1, sim, 1, RING + 0x8000, 4096);
  display_on(sim, 0, FB0);
  display_on(sim, 1, FB2);
  const uint32_t frames = quick ? 1 : 3;
  sgpu_sim_run_until_frame(sim, 0, 2000000);
  const uint64_t start = sgpu_sim_cycle(sim);
  sgpu_sim_mem_log_enable(sim, (size_t)frames * 440000u);
  chip_buf b;
  chip_buf_init(&b);
  uint32_t id0 = 0, id1 = 0;
  sgpu_sim_frame fr;
  sgpu_sim_last_frame(sim, 0, &fr);
  const uint64_t fstart = fr.frame_number;
  while (1) {
    sgpu_sim_last_frame(sim, 0, &fr);
    if (fr.frame_number >= fstart + frames) break;
    if (chip_peek(sim, FENCE) == id0) {
      chip_pkt_fill(&b, FB1, PITCH, PITCH, 480, 0x12345678u + id0);
      chip_pkt_copy(&b, FB1 + 240 * PITCH, PITCH, DST, PITCH, PITCH, 120);
      chip_pkt_fence(&b, FENCE, ++id0, 0);
      chip_submit(&r0, &b);
      chip_buf_clear(&b);
    }
    if (chip_peek(sim, FENCE + 4) == id1) {
      chip_pkt_copy(&b, FB3, PITCH, SRC, PITCH, PITCH, 240);
      chip_pkt_fence(&b, FENCE + 4, ++id1, 0);
      chip_submit(&r1, &b);
      chip_buf_clear(&b);
    }
    sgpu_sim_run(sim, 256, 0);
  }
  const uint32_t u0 = chip_rd(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_UNDERFLOW)) & 0xFF;
  const uint32_t u1 = chip_rd(sim, SGPU_SOURCE_REG(1, SGPU_SREG_DISP_UNDERFLOW)) & 0xFF;
  const double cyc = (double)(sgpu_sim_cycle(sim) - start);
  const sgpu_sim_mem_event *ev;
  const size_t nev = sgpu_sim_mem_log(sim, &ev);
  uint64_t blit = 0;
  for (size_t i = 0; i < nev; i++)
    if (!(ev[i].address >= FB0 && ev[i].address < FB0 + 480 * PITCH && !ev[i].write) &&
        !(ev[i].address >= FB2 && ev[i].address < FB2 + 480 * PITCH && !ev[i].write))
      blit++;
  fig("scanout_underflows_max_2d_load", u0 + u1, 0, "pixels", "no pixel shown before its row was fetched");
  fig("max_load_port_accesses_per_cycle", (double)nev / cyc, 1.0, "accesses/cycle",
      "one access per cycle on the memory port");
  fig("max_load_non_scanout_accesses_per_cycle", (double)blit / cyc, 1.0 - 2 * 320.0 / 800.0 * 480.0 / 525.0,
      "accesses/cycle", "the port less two scanouts (2 x 320 words per 800-cycle line, 480 of 525 lines)");
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
}

int main(int argc, char **argv) {
  quick = argc > 1 && !strcmp(argv[1], "--quick");
  bench_fetch();
  bench_mix();
  bench_submission();
  bench_blit();
  bench_flip();
  bench_underflow();
  return 0;
}
