/* bench_model.c — model speed of the Verilator model of the whole chip, and
 * a fingerprint of what it did, for `make bench` (tools/bench.sh).
 *
 *   bench_model WORKLOAD CYCLES
 *
 * Linked once against the model built with the old options and once against
 * the new ones (tests/bench/bench.mk); only sgpu_sim.h is used.  Workloads:
 *   idle  display source 0 on at 640x480 RGB565 (the picture put in memory
 *         through the backdoor), nothing else: what `sgpu-sim --window` runs
 *   blit  the same display plus node 0 running FILL and COPY over a 640x480
 *         back buffer with a FENCE after each pair, one submission after the
 *         other: the 2D engine and scanout compete for the memory port
 * Prints one line
 *   MODEL workload=W cycles=N seconds=S cycles_per_s=X frames=F fences=K hash=H
 * where hash is an FNV-1a digest of every captured frame (pixels, size,
 * timing, start cycle), of the cycle in which each fence became visible and
 * of the whole GPU memory at the end: two models that behave identically,
 * cycle for cycle, print the same hash.  Only the simulation is timed. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgpu_hw.h"
#include "sgpu_sim.h"

#define FB0 0x00100000u
#define FB1 0x00200000u
#define RING 0x00010000u
#define RING_SIZE 4096u
#define FENCE_ADDR 0x00008000u
#define W 640u
#define H 480u
#define PITCH (W * 2u)

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what) {
  fprintf(stderr, "bench_model: %s\n", what);
  exit(1);
}

static void wr(sgpu_sim *sim, uint32_t off, uint32_t v) {
  if (sgpu_sim_reg_write(sim, off, v)) die("register write timed out");
}

typedef struct state {
  sgpu_sim *sim;
  uint64_t hash, frames_seen, ran;
  uint32_t wptr;
  double seconds;
} state;

/* Hash each frame the capture completed since the last look. */
static void look(state *s) {
  sgpu_sim_frame f;
  if (sgpu_sim_last_frame(s->sim, 0, &f) || f.frame_number == s->frames_seen) return;
  s->frames_seen = f.frame_number;
  s->hash = fnv(s->hash, &f.frame_number, sizeof f.frame_number);
  s->hash = fnv(s->hash, &f.start_cycle, sizeof f.start_cycle);
  uint32_t dims[6] = {f.width, f.height, f.h_total, f.v_total, f.hsync_width, f.vsync_lines};
  s->hash = fnv(s->hash, dims, sizeof dims);
  s->hash = fnv(s->hash, f.rgb, (size_t)f.width * f.height * 3);
}

/* Run n cycles, stopping at each frame end to hash it; timed. */
static void run(state *s, uint64_t n) {
  while (n) {
    const double t0 = now();
    const uint64_t r = sgpu_sim_run_until_frame(s->sim, 0, n);
    s->seconds += now() - t0;
    n -= r;
    s->ran += r;
    look(s);
  }
}

static void ring_put(state *s, const uint32_t *w, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (sgpu_sim_mem_write(s->sim, RING + s->wptr, &w[i], 4)) die("ring write timed out");
    s->wptr = (s->wptr + 4) & (RING_SIZE - 1);
  }
  wr(s->sim, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), s->wptr);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: bench_model idle|blit CYCLES\n");
    return 2;
  }
  const int blit = !strcmp(argv[1], "blit");
  if (!blit && strcmp(argv[1], "idle")) die("workload must be idle or blit");
  const uint64_t cycles = strtoull(argv[2], NULL, 0);
  state s = {0};
  s.hash = 0xCBF29CE484222325ull;
  s.sim = sgpu_sim_create(NULL);
  if (!s.sim) die("sgpu_sim_create failed");
  /* A picture: horizontal colour ramps, through the backdoor. */
  static uint16_t line[W];
  for (uint32_t y = 0; y < H; y++) {
    for (uint32_t x = 0; x < W; x++) line[x] = (uint16_t)((x * 31 / W) << 11 | (y * 63 / H) << 5 | ((x ^ y) & 31));
    if (sgpu_sim_backdoor_write(s.sim, FB0 + y * PITCH, line, PITCH)) die("backdoor write failed");
  }
  wr(s.sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE), FB0);
  wr(s.sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_PITCH), PITCH);
  wr(s.sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL),
     (1u << SGPU_DISP_ENABLE_SHIFT) | (SGPU_HW_FORMAT_RGB565 << SGPU_DISP_FORMAT_SHIFT));
  uint64_t fences = 0;
  if (!blit) {
    run(&s, cycles);
  } else {
    wr(s.sim, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), RING);
    wr(s.sim, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), RING_SIZE);
    wr(s.sim, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
    const uint64_t end = sgpu_sim_cycle(s.sim) + cycles;
    while (sgpu_sim_cycle(s.sim) < end) {
      const uint32_t id = (uint32_t)++fences;
      const uint32_t h = 64 + (id * 37) % (H - 64);
      const uint32_t pkt[] = {
          SGPU_PKT_HEADER(SGPU_OP_FILL, SGPU_OP_FILL_COUNT, 0), FB1, PITCH, PITCH, h, 0x00010001u * id,
          SGPU_PKT_HEADER(SGPU_OP_COPY, SGPU_OP_COPY_COUNT, 0), FB1 + (H / 2) * PITCH, PITCH, FB0, PITCH, PITCH / 2, H / 2,
          SGPU_PKT_HEADER(SGPU_OP_FENCE, SGPU_OP_FENCE_COUNT, 0), FENCE_ADDR, id,
      };
      ring_put(&s, pkt, sizeof pkt / 4);
      for (;;) {
        uint32_t v;
        run(&s, 16);
        if (sgpu_sim_backdoor_read(s.sim, FENCE_ADDR, &v, 4)) die("backdoor read failed");
        if (v == id) break;
        if (sgpu_sim_cycle(s.sim) >= end + 2000000) die("fence timed out");
      }
      const uint64_t c = sgpu_sim_cycle(s.sim);
      s.hash = fnv(s.hash, &c, sizeof c);
    }
  }
  const uint64_t total = sgpu_sim_cycle(s.sim);
  s.hash = fnv(s.hash, &total, sizeof total);
  const uint32_t mem = sgpu_sim_mem_bytes(s.sim);
  unsigned char *m = malloc(mem);
  if (!m || sgpu_sim_backdoor_read(s.sim, 0, m, mem)) die("memory read failed");
  s.hash = fnv(s.hash, m, mem);
  free(m);
  printf("MODEL workload=%s cycles=%llu seconds=%.3f cycles_per_s=%.0f frames=%llu fences=%llu hash=%016llx\n",
         argv[1], (unsigned long long)total, s.seconds, s.seconds > 0 ? (double)s.ran / s.seconds : 0.0,
         (unsigned long long)s.frames_seen, (unsigned long long)fences, (unsigned long long)s.hash);
  sgpu_sim_destroy(s.sim);
  return 0;
}
