/* sgpu_sim_train.c — the training run of the fast model's profile-guided
 * build (sim/sim.mk): the model's code is compiled once with profiling
 * counters, this program runs it, and the model is compiled again with the
 * counts, so that the compiler lays out the code each simulated cycle runs
 * as one piece and moves the rest (reset, faults, rare states) away from it
 * (docs/figures.md, "Benchmark": the model's build).
 *
 *   sgpu_sim_train
 *
 * What it runs is what the model spends its time on: scanout with nothing
 * else (what `sgpu-sim --window` shows), the 2D engine's FILL and COPY
 * under scanout, command streams with INDIRECT buffers, writes, fences,
 * flips and waits on both nodes, a second display source, and host-port
 * register and memory traffic.  It checks nothing (the tests do): a training
 * run only has to be representative and finish.  Deterministic: the same
 * counts, so the same build, every time.  Exit 0, or 1 when the model
 * cannot be created or a host access times out. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sgpu_hw.h"
#include "sgpu_sim.h"

#define W 640u
#define H 480u
#define PITCH (W * 2u)
#define FB0 0x00100000u
#define FB1 0x00200000u
#define FB2 0x00300000u
#define IB 0x00040000u
#define FENCE_ADDR 0x00008000u
#define RING_SIZE 4096u

static sgpu_sim *sim;
static uint32_t wptr[2];

static void die(const char *what) {
  fprintf(stderr, "sgpu_sim_train: %s\n", what);
  exit(1);
}

static void wr(uint32_t off, uint32_t v) {
  if (sgpu_sim_reg_write(sim, off, v)) die("register write timed out");
}

static uint32_t rd(uint32_t off) {
  uint32_t v = 0;
  if (sgpu_sim_reg_read(sim, off, &v)) die("register read timed out");
  return v;
}

static uint32_t ring_base(unsigned node) { return 0x00010000u + node * RING_SIZE; }

/* Words into node's ring through the host port, then the doorbell. */
static void submit(unsigned node, const uint32_t *w, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (sgpu_sim_mem_write(sim, ring_base(node) + wptr[node], &w[i], 4)) die("ring write timed out");
    wptr[node] = (wptr[node] + 4) & (RING_SIZE - 1);
  }
  wr(SGPU_NODE_REG(node, SGPU_NREG_RING_WPTR), wptr[node]);
}

/* Run until node's ring is drained (RPTR == WPTR), at most max cycles. */
static void drain(unsigned node, uint64_t max) {
  const uint64_t end = sgpu_sim_cycle(sim) + max;
  while (sgpu_sim_cycle(sim) < end) {
    sgpu_sim_run(sim, 64, 0);
    if (rd(SGPU_NODE_REG(node, SGPU_NREG_RING_RPTR)) == wptr[node]) return;
  }
}

static void run_frames(unsigned n) {
  for (unsigned i = 0; i < n; i++) sgpu_sim_run_until_frame(sim, 0, 1000000);
}

int main(void) {
  sim = sgpu_sim_create(NULL);
  if (!sim) die("sgpu_sim_create failed");
  static uint16_t line[W];
  for (uint32_t y = 0; y < H; y++) {
    for (uint32_t x = 0; x < W; x++) line[x] = (uint16_t)((x * 31 / W) << 11 | (y * 63 / H) << 5 | ((x ^ y) & 31));
    if (sgpu_sim_backdoor_write(sim, FB0 + y * PITCH, line, PITCH)) die("backdoor write failed");
  }
  /* 1. Scanout alone: source 0 at 640x480 RGB565. */
  wr(SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE), FB0);
  wr(SGPU_SOURCE_REG(0, SGPU_SREG_DISP_PITCH), PITCH);
  wr(SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL),
     (1u << SGPU_DISP_ENABLE_SHIFT) | (SGPU_HW_FORMAT_RGB565 << SGPU_DISP_FORMAT_SHIFT));
  run_frames(1);
  /* 2. Both nodes on, FILL / COPY / FENCE on node 0 under scanout. */
  for (unsigned n = 0; n < 2; n++) {
    wr(SGPU_NODE_REG(n, SGPU_NREG_RING_BASE), ring_base(n));
    wr(SGPU_NODE_REG(n, SGPU_NREG_RING_SIZE), RING_SIZE);
    wr(SGPU_NODE_REG(n, SGPU_NREG_CONTROL), SGPU_CONTROL_ENABLE);
  }
  for (uint32_t id = 1; id <= 3; id++) {
    const uint32_t h = 64 + (id * 37) % (H - 64);
    const uint32_t pkt[] = {
        SGPU_PKT_HEADER(SGPU_OP_FILL, SGPU_OP_FILL_COUNT, 0), FB1, PITCH, PITCH, h, 0x00010001u * id,
        SGPU_PKT_HEADER(SGPU_OP_COPY, SGPU_OP_COPY_COUNT, 0), FB1 + (H / 2) * PITCH + 2, PITCH, FB0 + 1, PITCH,
        PITCH / 2 - 3, H / 2,
        SGPU_PKT_HEADER(SGPU_OP_FENCE, SGPU_OP_FENCE_COUNT, 0), FENCE_ADDR, id,
    };
    submit(0, pkt, sizeof pkt / 4);
    drain(0, 2000000);
  }
  /* 3. An INDIRECT buffer on node 1 (WRITE_DATA, TIMESTAMP, FILL, WAIT_MEM)
   *    while node 0 flips between two buffers, waits for vsync and scanline. */
  const uint32_t ib[] = {
      SGPU_PKT_HEADER(SGPU_OP_WRITE_DATA, 4, 0), FENCE_ADDR + 16, 1, 2, 3,
      SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, SGPU_OP_TIMESTAMP_COUNT, 0), FENCE_ADDR + 32,
      SGPU_PKT_HEADER(SGPU_OP_FILL, SGPU_OP_FILL_COUNT, 0), FB2, PITCH, 200, 100, 0x12345678u,
      SGPU_PKT_HEADER(SGPU_OP_WAIT_MEM, SGPU_OP_WAIT_MEM_COUNT, 0), FENCE_ADDR + 16, 0xFFFFFFFFu, 1,
      SGPU_PKT_HEADER(SGPU_OP_NOP, 1, 0), 0,
  };
  if (sgpu_sim_mem_write(sim, IB, ib, sizeof ib)) die("IB write timed out");
  for (uint32_t k = 0; k < 2; k++) {
    const uint32_t p1[] = {
        SGPU_PKT_HEADER(SGPU_OP_INDIRECT, SGPU_OP_INDIRECT_COUNT, 0), IB, (uint32_t)sizeof ib, 100 + k,
        SGPU_PKT_HEADER(SGPU_OP_FENCE, SGPU_OP_FENCE_COUNT, 1), FENCE_ADDR + 4, 100 + k,
    };
    submit(1, p1, sizeof p1 / 4);
    const uint32_t p0[] = {
        SGPU_PKT_HEADER(SGPU_OP_FILL, SGPU_OP_FILL_COUNT, 0), (k & 1) ? FB0 : FB1, PITCH, PITCH, 120, 0x07E007E0u * k,
        SGPU_PKT_HEADER(SGPU_OP_FLIP, SGPU_OP_FLIP_COUNT, 0), 0, (k & 1) ? FB0 : FB1, 1,
        SGPU_PKT_HEADER(SGPU_OP_WAIT_SCANLINE, SGPU_OP_WAIT_SCANLINE_COUNT, 0), 0, 100u << 16,
        SGPU_PKT_HEADER(SGPU_OP_WAIT_VSYNC, SGPU_OP_WAIT_VSYNC_COUNT, 0), 0,
        SGPU_PKT_HEADER(SGPU_OP_FENCE, SGPU_OP_FENCE_COUNT, 1), FENCE_ADDR + 8, k,
    };
    submit(0, p0, sizeof p0 / 4);
    drain(0, 1000000);
    drain(1, 1000000);
    wr(SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  }
  /* 4. The second source on too (RGB332, pixels doubled), one frame. */
  wr(SGPU_SOURCE_REG(1, SGPU_SREG_DISP_BASE), FB2);
  wr(SGPU_SOURCE_REG(1, SGPU_SREG_DISP_PITCH), 320);
  wr(SGPU_SOURCE_REG(1, SGPU_SREG_DISP_CONTROL),
     (1u << SGPU_DISP_ENABLE_SHIFT) | (SGPU_HW_FORMAT_RGB332 << SGPU_DISP_FORMAT_SHIFT) |
         (1u << SGPU_DISP_HREP_SHIFT) | (1u << SGPU_DISP_VREP_SHIFT));
  run_frames(1);
  wr(SGPU_SOURCE_REG(1, SGPU_SREG_DISP_CONTROL), 0);
  /* 5. Host-port memory and register traffic. */
  static uint32_t buf[2048];
  for (uint32_t i = 0; i < 2048; i++) buf[i] = i * 0x9E3779B9u;
  if (sgpu_sim_mem_write(sim, FB2, buf, sizeof buf)) die("memory write timed out");
  if (sgpu_sim_mem_read(sim, FB2, buf, 1024)) die("memory read timed out");
  for (unsigned r = 0; r < 0x54; r += 4) (void)rd(SGPU_NODE_REG(0, r));
  if (getenv("SGPU_SIM_TRAIN_VERBOSE"))
    printf("cycles %llu, node status %08x %08x, fault %u %u, fences %08x\n", (unsigned long long)sgpu_sim_cycle(sim),
           rd(SGPU_NODE_REG(0, SGPU_NREG_STATUS)), rd(SGPU_NODE_REG(1, SGPU_NREG_STATUS)),
           rd(SGPU_NODE_REG(0, SGPU_NREG_FAULT_REASON)), rd(SGPU_NODE_REG(1, SGPU_NREG_FAULT_REASON)),
           rd(SGPU_NODE_REG(0, SGPU_NREG_LAST_FENCE)) << 16 | rd(SGPU_NODE_REG(1, SGPU_NREG_LAST_FENCE)));
  sgpu_sim_destroy(sim);
  return 0;
}
