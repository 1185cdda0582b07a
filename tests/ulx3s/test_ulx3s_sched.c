/* test_ulx3s_sched — context priority and time slices through the ULX3S
 * image: the host library (libsgpu without the in-process model) over the
 * simulated board's UART, served by `sgpu-sim --board ulx3s` (ulx3s_top and
 * the SDRAM model, which checks every command's timing).  What the image
 * does follows its CAPS (the interface's board table):
 *  - with CAPS.PRIORITY (the high ring of each node): a HIGH context's small
 *    FILL sent behind a NORMAL context's 640x480 32-bpp FILL on the same
 *    node completes first: its fence while the big FILL's is not, the
 *    completion events high ring first;
 *  - without it (the library's fallback): the HIGH context's work runs in
 *    order on the normal ring: the big FILL completes first, both events
 *    from the normal ring;
 *  - with CAPS.TIME_SLICE (quantum 2,000 cycles): the same with two NORMAL
 *    contexts on the node's two normal rings, the small one first; without
 *    it sgpu_set_time_slice is refused (SGPU_ERROR_NOT_SUPPORTED, naming
 *    CAPS.TIME_SLICE) and nothing changes.
 * Either way every word of both FILLs is what it writes alone.  The big
 * FILL is checked without reading its 1.2 MB over the UART (some 120 M
 * board cycles): COPYs on the GPU gather its first, middle and last word of
 * every row (3 x 480 words) and the library reads those; the small FILL's
 * 4 KiB target is read whole.
 * Usage: test_ulx3s_sched [SGPU_SIM]   (default build/bin/sgpu-sim) */
#include "ulx3s_client.h"

#define W 640u
#define H 480u
#define PITCH (W * 4u)
#define BIG_PATTERN 0x5A3C961Eu
#define SMALL_PATTERN 0xC0FFEE11u
#define QUANTUM 2000u

/* fence ids and rings of the DMA_COMPLETED events queued now, in order
 * (the others are dropped) */
static uint32_t completed(sgpu_device *dev, uint32_t *fences, uint32_t *rings, uint32_t max) {
  uint32_t n = 0;
  sgpu_event ev;
  while (sgpu_next_event(dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_COMPLETED && n < max) {
      fences[n] = ev.fence_id;
      rings[n++] = ev.priority;
    }
  return n;
}

/* The big FILL's first, middle and last word of every row, gathered by
 * three COPYs into col (3 x H words, pitch 4) and read back: each is the
 * pattern. */
static void check_big(sgpu_device *dev, sgpu_context *c, uint64_t fb, uint64_t col, uint64_t cmd, uint32_t fence) {
  uint32_t m[32];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, m, sizeof m);
  const uint32_t x[3] = {0, W / 2 - 1, W - 1};
  for (uint32_t i = 0; i < 3; i++)
    OK(dev, sgpu_cmd_copy(&cb, (uint32_t)col + i * H * 4, 4, (uint32_t)fb + x[i] * 4, PITCH, 4, H));
  OK(dev, ulx3s_submit(dev, c, cmd, 0, &cb, fence));
  OK(dev, sgpu_wait_fence(dev, sgpu_context_node(c), fence, 120000));
  static uint32_t got[3 * H];
  OK(dev, sgpu_read(dev, col, got, sizeof got));
  for (uint32_t i = 0; i < 3 * H; i++)
    CHECK(got[i] == BIG_PATTERN, "big FILL row %u column %u: 0x%08x, want 0x%08x", i % H, x[i / H], got[i],
          BIG_PATTERN);
}

/* The small FILL's 64 bytes x 16 rows at tgt + 8 (pitch 256) in a zeroed
 * 4 KiB: exactly those words hold the pattern. */
static void check_small(sgpu_device *dev, uint64_t tgt) {
  static uint8_t got[4096], want[4096];
  memset(want, 0, sizeof want);
  for (uint32_t y = 0; y < 16; y++)
    for (uint32_t x = 0; x < 64; x += 4) memcpy(want + 8 + y * 256 + x, &(uint32_t){SMALL_PATTERN}, 4);
  OK(dev, sgpu_read(dev, tgt, got, sizeof got));
  CHECK(memcmp(got, want, sizeof want) == 0, "the small FILL's target is not what it writes");
}

/* big on its ring, then small behind it on the same node: small's fence
 * done while big's is not; big's and small's words right. */
static void overtake(sgpu_device *dev, sgpu_context *big, sgpu_context *small, uint64_t fb, uint64_t tgt,
                     uint64_t col, uint64_t cmd, uint32_t base, uint32_t small_ring, int overtakes,
                     const char *what) {
  static uint8_t zero[4096];
  OK(dev, sgpu_write(dev, tgt, zero, sizeof zero));
  uint32_t m1[16], m2[16];
  sgpu_cmdbuf bcb, scb;
  sgpu_cmdbuf_init(&bcb, m1, sizeof m1);
  sgpu_cmdbuf_init(&scb, m2, sizeof m2);
  OK(dev, sgpu_cmd_fill(&bcb, (uint32_t)fb, PITCH, PITCH, H, BIG_PATTERN));
  OK(dev, sgpu_cmd_fill(&scb, (uint32_t)tgt + 8, 256, 64, 16, SMALL_PATTERN));
  uint32_t f[4], r[4];
  (void)completed(dev, f, r, 0);
  OK(dev, ulx3s_submit(dev, big, cmd, 0, &bcb, base + 1));
  OK(dev, ulx3s_submit(dev, small, cmd + 256, 0, &scb, base + 2));
  OK(dev, sgpu_wait_fence(dev, 0, base + 2, 120000));
  int big_done = sgpu_wait_fence(dev, 0, base + 1, 0) == 0;
  if (overtakes)
    CHECK(!big_done, "%s: the 640x480 FILL finished before the small FILL behind it", what);
  else
    CHECK(big_done, "%s: the small FILL finished before the 640x480 FILL ahead of it on the same ring", what);
  OK(dev, sgpu_wait_fence(dev, 0, base + 1, 120000));
  uint32_t n = completed(dev, f, r, 4);
  const uint32_t first = overtakes ? base + 2 : base + 1, second = overtakes ? base + 1 : base + 2;
  CHECK(n == 2 && f[0] == first && f[1] == second, "%s: completion events %u (%u, %u), want %u then %u", what, n,
        n > 0 ? f[0] : 0, n > 1 ? f[1] : 0, first, second);
  /* in order, the small one ran on the normal ring too; the big one always did */
  const uint32_t ring_first = overtakes ? small_ring : (uint32_t)SGPU_PRIORITY_NORMAL;
  const uint32_t ring_second = SGPU_PRIORITY_NORMAL;
  CHECK(r[0] == ring_first && r[1] == ring_second, "%s: events from rings %u, %u, want %u, %u", what, r[0], r[1],
        ring_first, ring_second);
  check_small(dev, tgt);
  check_big(dev, big, fb, col, cmd + 512, base + 3);
  printf("ok - %s: the %s FILL completed first, both FILLs' words right\n", what, overtakes ? "small" : "big");
}

int main(int argc, char **argv) {
  const char *sim = argc > 1 ? argv[1] : "build/bin/sgpu-sim";
  double t0 = ulx3s_now();
  sgpu_device *dev = ulx3s_open(sim);

  /* 1. what the image carries */
  sgpu_info in;
  OK(dev, sgpu_query_info(dev, &in));
  CHECK(in.has_priority == SGPU_BOARD_ULX3S_PRIORITY, "CAPS.PRIORITY is %u, the board table says %u",
        in.has_priority, SGPU_BOARD_ULX3S_PRIORITY);
  CHECK(in.has_time_slice == SGPU_BOARD_ULX3S_TIME_SLICE, "CAPS.TIME_SLICE is %u, the board table says %u",
        in.has_time_slice, SGPU_BOARD_ULX3S_TIME_SLICE);
  printf("ok - the ULX3S image says CAPS.PRIORITY %u, CAPS.TIME_SLICE %u, as the board table\n", in.has_priority,
         in.has_time_slice);

  uint64_t fb = ulx3s_alloc(dev, (uint64_t)PITCH * H), tgt = ulx3s_alloc(dev, 4096);
  uint64_t col = ulx3s_alloc(dev, 3 * H * 4), cmd = ulx3s_alloc(dev, 4096);

  /* 2. a HIGH context's FILL behind a NORMAL context's 640x480 FILL */
  sgpu_context *lo = NULL, *hi = NULL;
  OK(dev, sgpu_create_context(dev, 0, &lo));
  OK(dev, sgpu_create_context(dev, 0, &hi));
  OK(dev, sgpu_set_context_priority(hi, SGPU_PRIORITY_HIGH));
  overtake(dev, lo, hi, fb, tgt, col, cmd, 0, SGPU_PRIORITY_HIGH, (int)in.has_priority,
           in.has_priority ? "priority" : "priority without the high ring (in order)");
  double t1 = ulx3s_now();

  /* 3. time slices: two NORMAL contexts on the node's two normal rings
   * (odd context ids ring A, even ring B) */
  sgpu_context *a = NULL, *b = NULL, *spare[4] = {NULL, NULL, NULL, NULL};
  if (in.has_time_slice) {
    OK(dev, sgpu_set_time_slice(dev, 0, QUANTUM));
    for (int i = 0; i < 4 && (!a || !b); i++) {
      sgpu_context *c = NULL;
      OK(dev, sgpu_create_context(dev, 0, &c));
      if ((sgpu_context_id(c) & 1u) && !a) a = c;
      else if (!(sgpu_context_id(c) & 1u) && !b) b = c;
      else spare[i] = c;
    }
    CHECK(a && b, "no two contexts of different parity");
    overtake(dev, a, b, fb, tgt, col, cmd, 10, SGPU_PRIORITY_NORMAL, 1, "time slices");
  } else {
    int e = sgpu_set_time_slice(dev, 0, QUANTUM);
    CHECK(e == SGPU_ERROR_NOT_SUPPORTED, "sgpu_set_time_slice without CAPS.TIME_SLICE: %s", sgpu_strerror(e));
    CHECK(strstr(sgpu_last_error(dev), "TIME_SLICE") != NULL, "the refusal does not name CAPS.TIME_SLICE: %s",
          sgpu_last_error(dev));
    CHECK(sgpu_time_slice(dev, 0) == 0, "the quantum changed: %u", sgpu_time_slice(dev, 0));
    printf("ok - time slices refused without CAPS.TIME_SLICE: %s\n", sgpu_last_error(dev));
  }
  double t2 = ulx3s_now();
  printf("FIGURE ulx3s_sched_priority_wall_s %.1f\n", t1 - t0);
  printf("FIGURE ulx3s_sched_time_slice_wall_s %.1f\n", t2 - t1);

  for (int i = 0; i < 4; i++)
    if (spare[i]) sgpu_destroy_context(spare[i]);
  if (a) sgpu_destroy_context(a);
  if (b) sgpu_destroy_context(b);
  sgpu_destroy_context(hi);
  sgpu_destroy_context(lo);
  sgpu_close(dev);
  ulx3s_stop_server();
  printf("test_ulx3s_sched: all passed\n");
  return 0;
}
