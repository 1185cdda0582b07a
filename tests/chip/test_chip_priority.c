/* test_chip_priority — the high-priority ring of a node (CAPS.PRIORITY,
 * node block NODES + n): while it has work, the node's normal ring holds at
 * its next boundary and continues exactly where it held.
 *  1. Node 0's normal ring runs a 640x480 32-bpp FILL and a FENCE; the host
 *     puts a small FILL + FENCE on the high ring several times while it
 *     runs.  Each time the high fence is written before the big FILL ends,
 *     and (memory log) nothing but the high ring writes between its first
 *     ring fetch and its fence.  The big FILL ends equal to a memset oracle,
 *     nothing around it changed.
 *  2. Node 0's normal ring in a WAIT_MEM with a small WATCHDOG, node 1 in a
 *     FILL, node 0's high ring in a long FILL: node 0 does not poll while
 *     its high ring runs and does not time out; node 1 keeps writing.
 * Figures: cycles from the high ring's doorbell (WPTR write) to its first
 * memory access, worst over the interruptions (each at another point of a
 * FILL chunk); the big FILL's cycles alone and with the interruptions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING0 0x10000u
#define RING1 0x11000u
#define RINGH 0x12000u
#define FENCE0 0x20000u
#define FENCE1 0x20004u
#define FENCEH 0x20008u
#define FLAG 0x20100u
#define HDST 0x21000u      /* the high ring's FILLs: 256 bytes x 4 rows */
#define HPITCH 256u
#define HROWS 4u
#define LONG_DST 0x30000u  /* part 2: the high ring's long FILL, 1024 bytes x 48 rows */
#define LONG_PITCH 1024u
#define LONG_ROWS 48u
#define N1_DST 0x40000u    /* part 2: node 1's FILL, 1024 bytes x 32 rows */
#define DST 0x100000u      /* the big FILL: 640 x 480 x 4 bytes */
#define PITCH 2560u
#define ROWS 480u
#define GUARD 256u         /* bytes checked unchanged on either side */
#define PATTERN 0x3C5AA5C3u
#define BACKGROUND 0x0BADF00Du
#define INTERRUPTS 9

static uint32_t nodes, high0;

static void fill_region(sgpu_sim *sim, uint32_t addr, uint32_t bytes, uint32_t v) {
  uint32_t *w = malloc(bytes);
  CHIP_CHECK(w != NULL, "out of memory");
  for (uint32_t i = 0; i < bytes / 4; i++) w[i] = v;
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, addr, w, bytes) == 0, "backdoor write");
  free(w);
}

/* Cycle of the first logged write of value to addr at or after from (0: none). */
static uint64_t write_cycle(const sgpu_sim_mem_event *ev, size_t n, uint32_t addr, uint32_t value,
                            uint64_t from) {
  for (size_t i = 0; i < n; i++)
    if (ev[i].write && ev[i].address == addr && ev[i].data == value && ev[i].cycle >= from)
      return ev[i].cycle;
  return 0;
}

static int in(uint32_t a, uint32_t base, uint32_t bytes) { return a >= base && a < base + bytes; }

/* The big FILL + FENCE on node 0's normal ring; with interrupts, a small
 * FILL + FENCE on the high ring every few thousand cycles.  Returns the
 * FILL's cycles (doorbell to fence write); worst doorbell-to-first-access
 * latency of the high ring in *lat. */
static uint64_t big_fill(int interrupts, uint64_t *lat) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r0, rh;
  chip_ring_init(&r0, sim, 0, RING0, 4096);
  chip_ring_init(&rh, sim, high0, RINGH, 4096);
  const uint32_t area = PITCH * ROWS;
  fill_region(sim, DST - GUARD, area + 2 * GUARD, BACKGROUND);
  fill_region(sim, HDST, HPITCH * HROWS, 0);
  sgpu_sim_mem_log_enable(sim, 1u << 21);

  chip_buf b;
  chip_buf_init(&b);
  chip_pkt_fill(&b, DST, PITCH, PITCH, ROWS, PATTERN);
  chip_pkt_fence(&b, FENCE0, 1, 0);
  chip_submit(&r0, &b);
  const uint64_t t_start = sgpu_sim_last_host_write_cycle(sim);

  uint64_t t_db[INTERRUPTS];
  uint32_t worst = 0;
  for (int k = 0; k < interrupts; k++) {
    /* 3000 + 7k cycles apart: each doorbell meets another point of a chunk */
    sgpu_sim_run(sim, 3000 + 7 * (uint64_t)k, 0);
    CHIP_CHECK(chip_peek(sim, FENCE0) == 0, "the big FILL ended before interruption %d", k);
    chip_buf_clear(&b);
    chip_pkt_fill(&b, HDST, HPITCH, HPITCH, HROWS, 0x11111111u * (uint32_t)(k + 1));
    chip_pkt_fence(&b, FENCEH, 100u + (uint32_t)k, 0);
    chip_submit(&rh, &b);
    t_db[k] = sgpu_sim_last_host_write_cycle(sim);
    CHIP_CHECK(chip_wait_fence(sim, FENCEH, 100u + (uint32_t)k, 20000) == 0,
               "high ring fence %d not written", k);
    CHIP_CHECK(chip_peek(sim, FENCE0) == 0, "the big FILL ended before high fence %d", k);
    CHIP_EQ(chip_peek(sim, DST + area - 4), BACKGROUND, "the big FILL's last word before high fence");
    for (uint32_t a = HDST; a < HDST + HPITCH * HROWS; a += 4)
      CHIP_EQ(chip_peek(sim, a), 0x11111111u * (uint32_t)(k + 1), "high ring FILL");
  }
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 1, 4000000) == 0, "the big FILL's fence not written");
  sgpu_sim_run(sim, 100, 0);

  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  const uint64_t t_end = write_cycle(ev, n, FENCE0, 1, t_start);
  CHIP_CHECK(t_end > t_start, "no FENCE write logged");
  for (int k = 0; k < interrupts; k++) {
    /* the high ring's first access: its ring read after the doorbell */
    uint64_t t_first = 0;
    for (size_t i = 0; i < n && !t_first; i++)
      if (ev[i].cycle >= t_db[k] && !ev[i].write && in(ev[i].address, RINGH, 4096)) t_first = ev[i].cycle;
    const uint64_t t_fence = write_cycle(ev, n, FENCEH, 100u + (uint32_t)k, t_db[k]);
    CHIP_CHECK(t_first && t_fence > t_first, "interruption %d: no ring fetch / fence logged", k);
    size_t others = 0;
    for (size_t i = 0; i < n; i++)
      if (ev[i].write && ev[i].cycle >= t_first && ev[i].cycle <= t_fence &&
          !in(ev[i].address, HDST, HPITCH * HROWS) && ev[i].address != FENCEH)
        others++;
    CHIP_CHECK(others == 0, "interruption %d: %zu writes of the normal ring while the high ring ran", k,
               others);
    const uint32_t l = (uint32_t)(t_first - t_db[k]);
    printf("interruption %d: doorbell -> first access %u cycles, -> fence %u cycles\n", k, l,
           (uint32_t)(t_fence - t_db[k]));
    if (l > worst) worst = l;
  }
  *lat = worst;

  /* memset oracle: every word of the rectangle, nothing around it */
  uint32_t *got = malloc(area + 2 * GUARD);
  CHIP_CHECK(got != NULL, "out of memory");
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, DST - GUARD, got, area + 2 * GUARD) == 0, "backdoor read");
  for (uint32_t i = 0; i < (area + 2 * GUARD) / 4; i++) {
    const uint32_t a = DST - GUARD + 4 * i;
    CHIP_EQ(got[i], in(a, DST, area) ? PATTERN : BACKGROUND, "big FILL word");
  }
  free(got);
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
  return t_end - t_start;
}

/* Part 2: a held WAIT_MEM does not poll nor time out; node 1 is not held. */
static void held_wait(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring r0, r1, rh;
  chip_ring_init(&r0, sim, 0, RING0, 4096);
  chip_ring_init(&r1, sim, 1, RING1, 4096);
  chip_ring_init(&rh, sim, high0, RINGH, 4096);
  chip_poke(sim, FLAG, 0);
  fill_region(sim, LONG_DST, LONG_PITCH * LONG_ROWS, 0);
  fill_region(sim, N1_DST, LONG_PITCH * 32, 0);
  const uint32_t wdog = 3000;
  chip_nwr(sim, 0, SGPU_NREG_WATCHDOG, wdog);

  chip_buf b;
  chip_buf_init(&b);
  chip_pkt_wait_mem(&b, FLAG, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  chip_pkt_fence(&b, FENCE0, 1, 0);
  chip_submit(&r0, &b);
  sgpu_sim_run(sim, 300, 0);
  CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_WAITING, "node 0 is not waiting");

  sgpu_sim_mem_log_enable(sim, 1u << 20);
  chip_buf_clear(&b);
  chip_pkt_fill(&b, N1_DST, LONG_PITCH, LONG_PITCH, 32, 0x22222222u);
  chip_pkt_fence(&b, FENCE1, 1, 0);
  chip_submit(&r1, &b);
  chip_buf_clear(&b);
  chip_pkt_fill(&b, LONG_DST, LONG_PITCH, LONG_PITCH, LONG_ROWS, 0x33333333u);
  chip_pkt_fence(&b, FENCEH, 7, 0);
  chip_submit(&rh, &b);
  const uint64_t t_db = sgpu_sim_last_host_write_cycle(sim);
  CHIP_CHECK(chip_wait_fence(sim, FENCEH, 7, 200000) == 0, "high ring's long FILL did not end");
  CHIP_CHECK(!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_FAULTED),
             "node 0's watchdog fired while it was held");
  chip_poke(sim, FLAG, 1);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 1, 20000) == 0, "node 0's WAIT_MEM did not continue");
  CHIP_CHECK(chip_wait_fence(sim, FENCE1, 1, 200000) == 0, "node 1's FILL did not end");

  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  uint64_t t_first = 0;
  for (size_t i = 0; i < n && !t_first; i++)
    if (ev[i].cycle >= t_db && !ev[i].write && in(ev[i].address, RINGH, 4096)) t_first = ev[i].cycle;
  const uint64_t t_fence = write_cycle(ev, n, FENCEH, 7, t_db);
  CHIP_CHECK(t_first && t_fence > t_first, "no high ring fetch / fence logged");
  CHIP_CHECK(t_fence - t_first > 2 * wdog, "the high ring ran only %u cycles, not beyond the watchdog",
             (uint32_t)(t_fence - t_first));
  size_t polls = 0, n1_writes = 0;
  for (size_t i = 0; i < n; i++) {
    if (ev[i].cycle < t_first || ev[i].cycle > t_fence) continue;
    if (!ev[i].write && ev[i].address == FLAG) polls++;
    if (ev[i].write && in(ev[i].address, N1_DST, LONG_PITCH * 32)) n1_writes++;
  }
  CHIP_CHECK(polls == 0, "node 0 polled its WAIT_MEM %zu times while its high ring ran", polls);
  CHIP_CHECK(n1_writes > 0, "node 1's FILL made no progress while node 0's high ring ran");
  printf("held WAIT_MEM: high ring ran %u cycles, node 0 polls 0, node 1 writes %zu\n",
         (uint32_t)(t_fence - t_first), n1_writes);
  for (uint32_t a = LONG_DST; a < LONG_DST + LONG_PITCH * LONG_ROWS; a += 4)
    CHIP_EQ(chip_peek(sim, a), 0x33333333u, "high ring's long FILL");
  for (uint32_t a = N1_DST; a < N1_DST + LONG_PITCH * 32; a += 4)
    CHIP_EQ(chip_peek(sim, a), 0x22222222u, "node 1's FILL");
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
}

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  const uint32_t caps = chip_rd(sim, SGPU_REG_CAPS);
  nodes = (caps & SGPU_CAPS_NODES_MASK) >> SGPU_CAPS_NODES_SHIFT;
  sgpu_sim_destroy(sim);
  if (!(caps & SGPU_CAPS_PRIORITY_MASK)) {
    printf("SKIP test_chip_priority: CAPS.PRIORITY is 0\n");
    return 0;
  }
  CHIP_CHECK(nodes >= 2, "needs two nodes, CAPS.NODES is %u", nodes);
  high0 = nodes;   /* node 0's high ring: block NODES + 0 */

  uint64_t lat_none, lat;
  const uint64_t alone = big_fill(0, &lat_none);
  const uint64_t with = big_fill(INTERRUPTS, &lat);
  printf("big FILL: %llu cycles alone, %llu with %d high-ring interruptions\n",
         (unsigned long long)alone, (unsigned long long)with, INTERRUPTS);
  chip_figure("priority_latency_cycles_worst", (double)lat);
  chip_figure("priority_fill_alone_cycles", (double)alone);
  chip_figure("priority_fill_interrupted_cycles", (double)with);
  held_wait();
  printf("PASS test_chip_priority\n");
  return 0;
}
