/* test_chip_fence — fences on the real RTL (issue 2 "Must hold" and figures).
 *
 *  1. Ordering: many submissions (ring INDIRECT -> IB of WRITE_DATA, plus
 *     in-ring WRITE_DATA, plus FILL when the chip has a 2D engine), each
 *     followed by a FENCE.  The memory request log shows every data write of
 *     submissions 1..k accepted before the fence write of k, and the fences
 *     in increasing order.  Final memory equals the expected image.  Run on
 *     zero-wait memory and with random stalls.
 *  2. Fence ids across 2^32: fence values wrap, LAST_FENCE follows, and
 *     WAIT_MEM GEQ_WRAP compares with wrap-around (waits while
 *     (int32_t)(word - ref) < 0, passes at once when >= 0 across the wrap).
 *  3. Figures: doorbell write -> first ring read request (<= 4 cycles),
 *     last write of a buffer -> its fence write (<= 8 cycles).
 *  4. TIMESTAMP writes the cycle counter after earlier writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING0 0x00010000u
#define RING_SIZE 0x1000u
#define FENCE0 0x0001E000u
#define IB_BASE 0x00020000u
#define DATA 0x00100000u
#define DATA_SIZE 0x00010000u

static int in_data(uint32_t a) { return a >= DATA && a < DATA + DATA_SIZE; }

/* ---------------------------------------------------------------- ordering */
typedef struct expect_write {
  uint32_t addr, value, fence; /* fence id of its submission */
} expect_write;

static void test_ordering(uint32_t seed, int with_fill, uint32_t stall_percent) {
  sgpu_sim_config cfg = {.mem_latency = 1 + seed % 3, .stall_percent = stall_percent, .seed = seed, .trace_path = NULL};
  sgpu_sim *sim = chip_create(&cfg);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  sgpu_sim_mem_log_enable(sim, 1u << 20);
  uint32_t rng = seed;
  enum { SUBS = 24 };
  expect_write *exp = calloc(4096, sizeof *exp);
  CHIP_CHECK(exp != NULL, "oom");
  size_t nexp = 0;
  uint32_t value = 0xA0000000u;
  uint32_t *image = calloc(DATA_SIZE / 4, 4); /* expected data region */
  CHIP_CHECK(image != NULL, "oom");
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  uint32_t fill_done[SUBS] = {0};
  for (uint32_t k = 1; k <= SUBS; k++) {
    chip_buf_clear(&ib);
    chip_buf_clear(&rb);
    uint32_t npk = 1 + chip_rand(&rng) % 4;
    for (uint32_t p = 0; p < npk; p++) {
      uint32_t n = 1 + chip_rand(&rng) % 12;
      uint32_t a = DATA + (chip_rand(&rng) % (DATA_SIZE / 4 - 16)) * 4;
      uint32_t d[16];
      for (uint32_t i = 0; i < n; i++) {
        d[i] = value++;
        exp[nexp++] = (expect_write){a + 4 * i, d[i], k};
        image[(a - DATA) / 4 + i] = d[i];
      }
      chip_pkt_write_data(&ib, a, d, n);
    }
    uint32_t ib_addr = IB_BASE + (k - 1) * 0x400u;
    chip_mem_write(sim, ib_addr, ib.w, chip_buf_bytes(&ib));
    chip_pkt_indirect(&rb, ib_addr, chip_buf_bytes(&ib), k, 0);
    if (k % 3 == 0) { /* a write in the ring itself */
      uint32_t a = DATA + (chip_rand(&rng) % (DATA_SIZE / 4)) * 4;
      uint32_t d = value++;
      exp[nexp++] = (expect_write){a, d, k};
      image[(a - DATA) / 4] = d;
      chip_pkt_write_data(&rb, a, &d, 1);
    }
    if (with_fill && k % 4 == 1) { /* 2D fill of a small rectangle, 64-byte pitch */
      uint32_t a = DATA + DATA_SIZE - 0x1000u + (k / 4) * 0x100u;
      uint32_t pat = 0x5A000000u | k;
      chip_pkt_fill(&rb, a, 64, 32, 4, pat);
      for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 8; x++) image[(a - DATA) / 4 + y * 16 + x] = pat;
      fill_done[k - 1] = a;
    }
    chip_pkt_fence(&rb, FENCE0, k, 1);
    chip_submit(&ring, &rb);
    if (chip_rand(&rng) % 2) sgpu_sim_run(sim, chip_rand(&rng) % 200, 0);
  }
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, SUBS, 500000) == 0, "last fence %u not written (saw %u)", SUBS,
             chip_peek(sim, FENCE0));
  CHIP_CHECK(chip_wait_idle(sim, 0, 100000) == 0, "node 0 not idle after the fences");
  CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_LAST_FENCE), SUBS, "LAST_FENCE");
  /* memory image */
  for (uint32_t i = 0; i < DATA_SIZE / 4; i++) {
    uint32_t got = chip_peek(sim, DATA + 4 * i);
    if (got != image[i])
      chip_fail(__FILE__, __LINE__, "data word 0x%08x: got 0x%08x expected 0x%08x", DATA + 4 * i, got,
                image[i]);
  }
  /* ordering from the log */
  const sgpu_sim_mem_event *ev;
  size_t nev = sgpu_sim_mem_log(sim, &ev);
  uint64_t fence_cycle[SUBS + 1] = {0};
  uint32_t last_fence_seen = 0;
  for (size_t i = 0; i < nev; i++) {
    if (!ev[i].write || ev[i].address != FENCE0) continue;
    uint32_t v = ev[i].data;
    CHIP_CHECK(v >= 1 && v <= SUBS, "unexpected fence value %u", v);
    CHIP_CHECK(v == last_fence_seen + 1, "fence %u written after fence %u (out of order)", v, last_fence_seen);
    CHIP_CHECK(ev[i].strobe == 0xF, "fence write with strobe 0x%x", ev[i].strobe);
    last_fence_seen = v;
    fence_cycle[v] = ev[i].cycle;
  }
  CHIP_CHECK(last_fence_seen == SUBS, "log saw fences up to %u", last_fence_seen);
  size_t checked = 0;
  for (size_t e = 0; e < nexp; e++) {
    uint64_t wc = 0;
    int found = 0;
    for (size_t i = 0; i < nev; i++)
      if (ev[i].write && in_data(ev[i].address) && ev[i].address == exp[e].addr && ev[i].data == exp[e].value) {
        wc = ev[i].cycle;
        found = 1;
        break;
      }
    CHIP_CHECK(found, "write 0x%08x=0x%08x of submission %u not in the log", exp[e].addr, exp[e].value,
               exp[e].fence);
    CHIP_CHECK(wc < fence_cycle[exp[e].fence],
               "fence %u written at cycle %llu before its write 0x%08x at cycle %llu", exp[e].fence,
               (unsigned long long)fence_cycle[exp[e].fence], exp[e].addr, (unsigned long long)wc);
    checked++;
  }
  /* fills: every write into a fill rectangle precedes the fence of its submission */
  for (uint32_t k = 1; k <= SUBS; k++) {
    if (!fill_done[k - 1]) continue;
    size_t nw = 0;
    for (size_t i = 0; i < nev; i++)
      if (ev[i].write && ev[i].address >= fill_done[k - 1] && ev[i].address < fill_done[k - 1] + 0x100u &&
          ev[i].cycle < fence_cycle[k])
        nw++;
    CHIP_CHECK(nw >= 32, "fill of submission %u: only %zu of its 32 words written before fence %u", k, nw, k);
  }
  printf("ordering seed %u fill %d stall %u%%: %zu writes checked against %u fences\n", seed, with_fill, stall_percent,
         checked, SUBS);
  free(exp);
  free(image);
  chip_buf_free(&ib);
  chip_buf_free(&rb);
  char name[64];
  snprintf(name, sizeof name, "fence_ordering_seed%u%s_stall%u_cycles", seed, with_fill ? "_fill" : "", stall_percent);
  chip_figure(name, (double)sgpu_sim_cycle(sim));
  sgpu_sim_destroy(sim);
}

/* ---------------------------------------------------------------- wrap */
static void test_wrap(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  chip_buf rb;
  chip_buf_init(&rb);
  /* fence ids 0xFFFFFFF0 .. 0x0000000F, one submission each */
  uint32_t id = 0xFFFFFFF0u;
  for (int i = 0; i < 32; i++, id++) {
    chip_buf_clear(&rb);
    uint32_t d = id ^ 0x55555555u;
    chip_pkt_write_data(&rb, DATA + 4 * (uint32_t)i, &d, 1);
    chip_pkt_fence(&rb, FENCE0, id, 0);
    chip_submit(&ring, &rb);
    CHIP_CHECK(chip_wait_fence(sim, FENCE0, id, 20000) == 0, "fence 0x%08x not written", id);
    CHIP_EQ(chip_peek(sim, DATA + 4 * (uint32_t)i), d, "data before wrapped fence");
    CHIP_EQ(chip_nrd(sim, 0, SGPU_NREG_LAST_FENCE), id, "LAST_FENCE across 2^32");
  }
  /* WAIT_MEM GEQ_WRAP: word W starts "before" the reference across the wrap */
  const uint32_t W = DATA + 0x800u;
  struct {
    uint32_t ref, start, steps[3], pass;
  } cases[] = {
      /* ref just after the wrap; word climbs through it */
      {0x00000005u, 0xFFFFFFF0u, {0xFFFFFFFFu, 0x00000000u, 0x00000004u}, 0x00000005u},
      /* ref just before the wrap; word behind it */
      {0xFFFFFFFEu, 0xFFFFFFF0u, {0xFFFFFFF8u, 0xFFFFFFFDu, 0xFFFFFFFDu}, 0x00000001u},
      /* word far ahead, but more than 2^31 away in plain order: passes at once */
      {0x7FFFFFF0u, 0x7FFFFFF0u, {0, 0, 0}, 0},
  };
  uint32_t fid = 0x10;
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    chip_poke(sim, W, cases[c].start);
    chip_buf_clear(&rb);
    chip_pkt_wait_mem(&rb, W, 0xFFFFFFFFu, cases[c].ref, SGPU_WAIT_FUNC_GEQ_WRAP);
    chip_pkt_fence(&rb, FENCE0, ++fid, 0);
    chip_submit(&ring, &rb);
    if (c < 2) {
      for (int s = 0; s < 3; s++) {
        sgpu_sim_run(sim, 300, 0);
        CHIP_CHECK(chip_peek(sim, FENCE0) != fid, "case %u: WAIT_MEM passed at word 0x%08x ref 0x%08x", c,
                   chip_peek(sim, W), cases[c].ref);
        CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_WAITING, "case %u: STATUS.WAITING not set", c);
        uint32_t v = cases[c].steps[s];
        chip_mem_write(sim, W, &v, 4);
      }
      uint32_t v = cases[c].pass;
      chip_mem_write(sim, W, &v, 4);
    }
    CHIP_CHECK(chip_wait_fence(sim, FENCE0, fid, 5000) == 0, "case %u: WAIT_MEM GEQ_WRAP did not pass at 0x%08x ref 0x%08x",
               c, chip_peek(sim, W), cases[c].ref);
  }
  /* plain GE for contrast: 0x00000001 >= 0xFFFFFFFE is false unsigned -> must wait */
  chip_poke(sim, W, 1);
  chip_buf_clear(&rb);
  chip_pkt_wait_mem(&rb, W, 0xFFFFFFFFu, 0xFFFFFFFEu, SGPU_WAIT_FUNC_GE);
  chip_pkt_fence(&rb, FENCE0, ++fid, 0);
  chip_submit(&ring, &rb);
  sgpu_sim_run(sim, 500, 0);
  CHIP_CHECK(chip_peek(sim, FENCE0) != fid, "WAIT_MEM GE passed with 1 >= 0xFFFFFFFE");
  uint32_t v = 0xFFFFFFFFu;
  chip_mem_write(sim, W, &v, 4);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, fid, 5000) == 0, "WAIT_MEM GE did not pass at 0xFFFFFFFF");
  chip_buf_free(&rb);
  printf("wrap: 32 fences across 2^32, GEQ_WRAP/GE waits ok\n");
  chip_figure("fence_wrap_cycles", (double)sgpu_sim_cycle(sim));
  sgpu_sim_destroy(sim);
}

/* ---------------------------------------------------------------- figures */
static void test_latency_figures(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, RING_SIZE);
  chip_buf ib, rb;
  chip_buf_init(&ib);
  chip_buf_init(&rb);
  uint64_t worst_db = 0, worst_fence = 0, worst_ring_fence = 0;
  for (uint32_t k = 1; k <= 8; k++) {
    chip_buf_clear(&ib);
    chip_buf_clear(&rb);
    uint32_t d[8];
    for (int i = 0; i < 8; i++) d[i] = k * 100 + (uint32_t)i;
    chip_pkt_write_data(&ib, DATA + k * 0x40u, d, 1 + k % 8);
    uint32_t ib_addr = IB_BASE + k * 0x100u;
    chip_mem_write(sim, ib_addr, ib.w, chip_buf_bytes(&ib));
    chip_pkt_indirect(&rb, ib_addr, chip_buf_bytes(&ib), k, 0);
    chip_pkt_fence(&rb, FENCE0, k, 1);
    chip_ring_put(&ring, &rb);
    sgpu_sim_run(sim, 20, 0); /* let the host writes settle */
    sgpu_sim_mem_log_enable(sim, 4096);
    chip_doorbell(&ring);
    uint64_t db = sgpu_sim_last_host_write_cycle(sim);
    CHIP_CHECK(chip_wait_fence(sim, FENCE0, k, 5000) == 0, "fence %u", k);
    const sgpu_sim_mem_event *ev;
    size_t n = sgpu_sim_mem_log(sim, &ev);
    uint64_t first_ring = 0, last_data = 0, fence = 0;
    int have_ring = 0, have_fence = 0, have_data = 0;
    for (size_t i = 0; i < n; i++) {
      if (!ev[i].write && ev[i].address >= RING0 && ev[i].address < RING0 + RING_SIZE && !have_ring &&
          ev[i].cycle >= db) {
        first_ring = ev[i].cycle;
        have_ring = 1;
      }
      if (ev[i].write && in_data(ev[i].address)) {
        last_data = ev[i].cycle;
        have_data = 1;
      }
      if (ev[i].write && ev[i].address == FENCE0 && ev[i].data == k && !have_fence) {
        fence = ev[i].cycle;
        have_fence = 1;
      }
    }
    CHIP_CHECK(have_ring && have_fence && have_data, "log incomplete (ring %d fence %d data %d)", have_ring,
               have_fence, have_data);
    CHIP_CHECK(fence > last_data, "fence before last data write");
    if (first_ring - db > worst_db) worst_db = first_ring - db;
    if (fence - last_data > worst_fence) worst_fence = fence - last_data;
  }
  /* WRITE_DATA directly in the ring, then FENCE */
  for (uint32_t k = 9; k <= 12; k++) {
    chip_buf_clear(&rb);
    uint32_t d = k;
    chip_pkt_write_data(&rb, DATA + k * 0x40u, &d, 1);
    chip_pkt_fence(&rb, FENCE0, k, 0);
    chip_ring_put(&ring, &rb);
    sgpu_sim_run(sim, 20, 0);
    sgpu_sim_mem_log_enable(sim, 4096);
    chip_doorbell(&ring);
    CHIP_CHECK(chip_wait_fence(sim, FENCE0, k, 5000) == 0, "fence %u", k);
    const sgpu_sim_mem_event *ev;
    size_t n = sgpu_sim_mem_log(sim, &ev);
    uint64_t w = 0, f = 0;
    for (size_t i = 0; i < n; i++) {
      if (ev[i].write && ev[i].address == DATA + k * 0x40u) w = ev[i].cycle;
      if (ev[i].write && ev[i].address == FENCE0 && ev[i].data == k) f = ev[i].cycle;
    }
    CHIP_CHECK(w && f > w, "ring write/fence order");
    if (f - w > worst_ring_fence) worst_ring_fence = f - w;
  }
  printf("doorbell->first ring read: worst %llu cycles; IB last write->fence: worst %llu; ring write->fence: worst %llu\n",
         (unsigned long long)worst_db, (unsigned long long)worst_fence, (unsigned long long)worst_ring_fence);
  chip_figure("doorbell_to_ring_read_cycles", (double)worst_db);
  chip_figure("last_write_to_fence_cycles", (double)worst_fence);
  chip_figure("ring_write_to_fence_cycles", (double)worst_ring_fence);
  CHIP_CHECK(worst_db <= 4, "doorbell to first ring read %llu cycles > 4", (unsigned long long)worst_db);
  CHIP_CHECK(worst_fence <= 8, "last IB write to fence %llu cycles > 8", (unsigned long long)worst_fence);
  CHIP_CHECK(worst_ring_fence <= 8, "ring write to fence %llu cycles > 8", (unsigned long long)worst_ring_fence);

  /* TIMESTAMP: the cycle counter, written after the earlier write */
  chip_buf_clear(&rb);
  uint32_t d = 0x7157;
  chip_pkt_write_data(&rb, DATA, &d, 1);
  chip_pkt_timestamp(&rb, DATA + 0x10);
  chip_pkt_fence(&rb, FENCE0, 100, 0);
  chip_poke(sim, DATA + 0x10, 0);
  chip_poke(sim, DATA + 0x14, 0);
  sgpu_sim_mem_log_enable(sim, 4096);
  chip_submit(&ring, &rb);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 100, 5000) == 0, "timestamp fence");
  uint64_t ts = chip_peek(sim, DATA + 0x10) | ((uint64_t)chip_peek(sim, DATA + 0x14) << 32);
  CHIP_CHECK(ts != 0 && ts <= sgpu_sim_cycle(sim), "timestamp %llu vs model cycle %llu", (unsigned long long)ts,
             (unsigned long long)sgpu_sim_cycle(sim));
  {
    const sgpu_sim_mem_event *ev;
    size_t n = sgpu_sim_mem_log(sim, &ev);
    uint64_t w = 0, t = 0;
    for (size_t i = 0; i < n; i++) {
      if (ev[i].write && ev[i].address == DATA && ev[i].data == 0x7157) w = ev[i].cycle;
      if (ev[i].write && ev[i].address == DATA + 0x10 && !t) t = ev[i].cycle;
    }
    CHIP_CHECK(w && t > w, "TIMESTAMP written before the earlier WRITE_DATA");
  }
  chip_buf_free(&ib);
  chip_buf_free(&rb);
  chip_figure("fence_latency_cycles", (double)sgpu_sim_cycle(sim));
  sgpu_sim_destroy(sim);
}

int main(void) {
  test_latency_figures();
  test_wrap();
  test_ordering(1, 0, 0);
  test_ordering(7, 0, 0);
  test_ordering(11, 0, 40);
  sgpu_sim *probe = chip_create(NULL);
  uint32_t caps = chip_rd(probe, SGPU_REG_CAPS);
  sgpu_sim_destroy(probe);
  if (caps & (1u << 8)) {
    test_ordering(3, 1, 0);
    test_ordering(5, 1, 45);
  } else
    printf("CAPS has no 2D engine: FILL ordering not tested\n");
  printf("test_chip_fence: PASS\n");
  return 0;
}
