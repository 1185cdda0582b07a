/* test_chip_slice — time slices between a node's two normal rings
 * (CAPS.TIME_SLICE: ring A is node block n, ring B block 2 x NODES + n, the
 * high ring block NODES + n), with raw registers like test_chip_priority.
 *  1. QUANTUM 2000 on A and B: A runs a 640x480 32-bpp FILL + FENCE, B a
 *     small FILL + FENCE submitted while it runs.  B's fence lands before
 *     A's FILL is done; nothing of A is written between B's first ring read
 *     and B's fence (B finishes inside its slice); both targets equal a
 *     memset oracle, nothing around them changed.  Done several times, so
 *     B's doorbells meet A's FILL at different points.
 *  2. QUANTUM 0: B's fence only after A's fence (A runs dry first).
 *  3. A B ring with no work (enabled, QUANTUM set) does not slow A: A's FILL
 *     takes exactly the cycles it takes with B never set up.
 *  4. The high ring still preempts both: A and B both in FILLs taking turns
 *     by a short QUANTUM, the high ring's FILL + FENCE lands with no normal
 *     ring write between its first ring read and its fence.
 *  5. Node 0's switches do not hold node 1: node 0's A and B run WRITE_DATA
 *     streams by QUANTUM 200 (switching only between packets), node 1's
 *     ring A a FILL that keeps writing while node 0's B runs.
 *  6. A ring whose ENABLE is cleared inside its FILL gets turns to finish
 *     it beside B (busy, not runnable), and takes no further packet.
 * Figures: slice switch latency (B's doorbell + QUANTUM, the slice's
 * expiry, to B's first ring read), A's FILL alone and with B's work sliced
 * in, and B's doorbell to fence with a slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RINGA 0x10000u
#define RINGB 0x11000u
#define RINGH 0x12000u
#define RINGA1 0x13000u
#define FENCEA 0x20000u
#define FENCEB 0x20004u
#define FENCEH 0x20008u
#define FENCEA1 0x2000Cu
#define BDST 0x21000u      /* B's FILLs: 256 bytes x 4 rows */
#define BPITCH 256u
#define BROWS 4u
#define HDST 0x22000u      /* the high ring's FILL: 256 bytes x 4 rows */
#define LONGB 0x40000u     /* part 4: B's long FILL, 1024 bytes x 64 rows */
#define LONGB_ROWS 64u
#define N1DST 0x60000u     /* part 5: node 1's FILL, 1024 bytes x 128 rows */
#define N1ROWS 128u
#define DST 0x100000u      /* A's FILL: 640 x 480 x 4 bytes */
#define PITCH 2560u
#define ROWS 480u
#define GUARD 256u         /* bytes checked unchanged on either side */
#define PATTERN 0x3C5AA5C3u
#define BACKGROUND 0x0BADF00Du
#define QUANTUM 2000u
#define SLICES 4

static uint32_t nodes, ring_b0, ring_h0;

static void fill_region(sgpu_sim *sim, uint32_t addr, uint32_t bytes, uint32_t v) {
  uint32_t *w = malloc(bytes);
  CHIP_CHECK(w != NULL, "out of memory");
  for (uint32_t i = 0; i < bytes / 4; i++) w[i] = v;
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, addr, w, bytes) == 0, "backdoor write");
  free(w);
}

static int in(uint32_t a, uint32_t base, uint32_t bytes) { return a >= base && a < base + bytes; }

/* Cycle of the first logged write of value to addr at or after from (0: none). */
static uint64_t write_cycle(const sgpu_sim_mem_event *ev, size_t n, uint32_t addr, uint32_t value,
                            uint64_t from) {
  for (size_t i = 0; i < n; i++)
    if (ev[i].write && ev[i].address == addr && ev[i].data == value && ev[i].cycle >= from)
      return ev[i].cycle;
  return 0;
}

/* Cycle of the first read inside [base, base + bytes) at or after from (0: none). */
static uint64_t first_read(const sgpu_sim_mem_event *ev, size_t n, uint32_t base, uint32_t bytes,
                           uint64_t from) {
  for (size_t i = 0; i < n; i++)
    if (!ev[i].write && ev[i].cycle >= from && in(ev[i].address, base, bytes)) return ev[i].cycle;
  return 0;
}

/* Writes inside [base, base + bytes) logged in [from, to]. */
static size_t writes_in(const sgpu_sim_mem_event *ev, size_t n, uint32_t base, uint32_t bytes,
                        uint64_t from, uint64_t to) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    if (ev[i].write && ev[i].cycle >= from && ev[i].cycle <= to && in(ev[i].address, base, bytes)) c++;
  return c;
}

/* memset oracle: every word of the rectangle equals v, the guards around it the background */
static void check_area(sgpu_sim *sim, uint32_t base, uint32_t bytes, uint32_t v, uint32_t bg,
                       const char *what) {
  uint32_t *got = malloc(bytes + 2 * GUARD);
  CHIP_CHECK(got != NULL, "out of memory");
  CHIP_CHECK(sgpu_sim_backdoor_read(sim, base - GUARD, got, bytes + 2 * GUARD) == 0, "backdoor read");
  for (uint32_t i = 0; i < (bytes + 2 * GUARD) / 4; i++) {
    const uint32_t a = base - GUARD + 4 * i;
    CHIP_EQ(got[i], in(a, base, bytes) ? v : bg, what);
  }
  free(got);
}

static void submit_fill_fence(chip_ring *r, uint32_t dst, uint32_t pitch, uint32_t rows, uint32_t v,
                              uint32_t fence, uint32_t id) {
  chip_buf b;
  chip_buf_init(&b);
  chip_pkt_fill(&b, dst, pitch, pitch, rows, v);
  chip_pkt_fence(&b, fence, id, 0);
  chip_submit(r, &b);
  chip_buf_free(&b);
}

/* A's big FILL; B set up (ring enabled, QUANTUM) if b_ring, with SLICES
 * small FILL + FENCE jobs if b_jobs.  Returns A's cycles (doorbell to fence
 * write); the worst switch latency in *lat, B's worst doorbell-to-fence in
 * *b_turn. */
static uint64_t sliced_fill(int b_ring, int b_jobs, uint32_t quantum, uint64_t *lat, uint64_t *b_turn) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ra, rb;
  chip_ring_init(&ra, sim, 0, RINGA, 4096);
  if (b_ring) {
    chip_ring_init(&rb, sim, ring_b0, RINGB, 4096);
    chip_nwr(sim, 0, SGPU_NREG_QUANTUM, quantum);
    chip_nwr(sim, ring_b0, SGPU_NREG_QUANTUM, quantum);
    CHIP_EQ(chip_nrd(sim, ring_b0, SGPU_NREG_QUANTUM), quantum, "QUANTUM reads back");
  }
  const uint32_t area = PITCH * ROWS;
  fill_region(sim, DST - GUARD, area + 2 * GUARD, BACKGROUND);
  fill_region(sim, BDST - GUARD, BPITCH * BROWS + 2 * GUARD, BACKGROUND);
  sgpu_sim_mem_log_enable(sim, 1u << 21);

  submit_fill_fence(&ra, DST, PITCH, ROWS, PATTERN, FENCEA, 1);
  const uint64_t t_start = sgpu_sim_last_host_write_cycle(sim);
  uint64_t t_db[SLICES];
  for (int k = 0; b_jobs && k < SLICES; k++) {
    /* apart by an odd count: each doorbell meets A's FILL at another point */
    sgpu_sim_run(sim, 5000 + 13 * (uint64_t)k, 0);
    CHIP_CHECK(chip_peek(sim, FENCEA) == 0, "A's FILL ended before B's job %d", k);
    submit_fill_fence(&rb, BDST, BPITCH, BROWS, 0x01010101u * (uint32_t)(k + 1), FENCEB, 100u + (uint32_t)k);
    t_db[k] = sgpu_sim_last_host_write_cycle(sim);
    CHIP_CHECK(chip_wait_fence(sim, FENCEB, 100u + (uint32_t)k, 40000) == 0, "B's fence %d not written", k);
    CHIP_CHECK(chip_peek(sim, FENCEA) == 0, "A's FILL ended before B's fence %d", k);
    CHIP_EQ(chip_peek(sim, DST + area - 4), BACKGROUND, "A's last word before B's fence");
    check_area(sim, BDST, BPITCH * BROWS, 0x01010101u * (uint32_t)(k + 1), BACKGROUND, "B's FILL word");
  }
  CHIP_CHECK(chip_wait_fence(sim, FENCEA, 1, 4000000) == 0, "A's fence not written");
  sgpu_sim_run(sim, 100, 0);

  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  const uint64_t t_end = write_cycle(ev, n, FENCEA, 1, t_start);
  CHIP_CHECK(t_end > t_start, "no FENCE write of A logged");
  *lat = 0; *b_turn = 0;
  for (int k = 0; b_jobs && k < SLICES; k++) {
    const uint64_t t_first = first_read(ev, n, RINGB, 4096, t_db[k]);
    const uint64_t t_fence = write_cycle(ev, n, FENCEB, 100u + (uint32_t)k, t_db[k]);
    CHIP_CHECK(t_first && t_fence > t_first, "B's job %d: no ring fetch / fence logged", k);
    const size_t a_writes = writes_in(ev, n, DST, area, t_first, t_fence);
    CHIP_CHECK(a_writes == 0, "B's job %d: %zu writes of A while B ran its slice", k, a_writes);
    /* the slice expires QUANTUM cycles after B became runnable (its doorbell) */
    CHIP_CHECK(t_first >= t_db[k] + quantum, "B's job %d: B started %u cycles after its doorbell, "
               "before A's slice of %u", k, (uint32_t)(t_first - t_db[k]), quantum);
    const uint64_t l = t_first - (t_db[k] + quantum);
    printf("B's job %d: doorbell -> first access %u cycles (slice expiry + %u), -> fence %u\n", k,
           (uint32_t)(t_first - t_db[k]), (uint32_t)l, (uint32_t)(t_fence - t_db[k]));
    if (l > *lat) *lat = l;
    if (t_fence - t_db[k] > *b_turn) *b_turn = t_fence - t_db[k];
  }
  check_area(sim, DST, area, PATTERN, BACKGROUND, "A's FILL word");
  sgpu_sim_destroy(sim);
  return t_end - t_start;
}

/* Part 2: QUANTUM 0, B runs only after A is dry. */
static void no_slices(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ra, rb;
  chip_ring_init(&ra, sim, 0, RINGA, 4096);
  chip_ring_init(&rb, sim, ring_b0, RINGB, 4096);
  fill_region(sim, BDST, BPITCH * BROWS, 0);
  sgpu_sim_mem_log_enable(sim, 1u << 21);
  submit_fill_fence(&ra, DST, PITCH, ROWS / 4, PATTERN, FENCEA, 1);
  sgpu_sim_run(sim, 3000, 0);
  submit_fill_fence(&rb, BDST, BPITCH, BROWS, 0x77777777u, FENCEB, 2);
  const uint64_t t_db = sgpu_sim_last_host_write_cycle(sim);
  CHIP_CHECK(chip_wait_fence(sim, FENCEB, 2, 2000000) == 0, "B's fence not written");
  CHIP_CHECK(chip_peek(sim, FENCEA) == 1, "QUANTUM 0: B's fence landed before A's");
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  const uint64_t t_a = write_cycle(ev, n, FENCEA, 1, 0), t_b = first_read(ev, n, RINGB, 4096, t_db);
  CHIP_CHECK(t_a && t_b > t_a, "QUANTUM 0: B's first ring read before A's fence");
  check_area(sim, BDST, BPITCH * BROWS, 0x77777777u, 0, "B's FILL word");
  printf("QUANTUM 0: A's fence at %llu, B's first ring read at %llu\n", (unsigned long long)t_a,
         (unsigned long long)t_b);
  sgpu_sim_destroy(sim);
}

/* Part 4: the high ring preempts both normal rings. */
static void high_over_both(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ra, rb, rh;
  chip_ring_init(&ra, sim, 0, RINGA, 4096);
  chip_ring_init(&rb, sim, ring_b0, RINGB, 4096);
  chip_ring_init(&rh, sim, ring_h0, RINGH, 4096);
  chip_nwr(sim, 0, SGPU_NREG_QUANTUM, 300);
  chip_nwr(sim, ring_b0, SGPU_NREG_QUANTUM, 300);
  fill_region(sim, HDST, BPITCH * BROWS, 0);
  sgpu_sim_mem_log_enable(sim, 1u << 21);
  submit_fill_fence(&ra, DST, PITCH, ROWS / 4, PATTERN, FENCEA, 1);
  submit_fill_fence(&rb, LONGB, 1024, LONGB_ROWS, 0x55555555u, FENCEB, 1);
  sgpu_sim_run(sim, 4000, 0);
  submit_fill_fence(&rh, HDST, BPITCH, BROWS, 0x66666666u, FENCEH, 9);
  const uint64_t t_db = sgpu_sim_last_host_write_cycle(sim);
  CHIP_CHECK(chip_wait_fence(sim, FENCEH, 9, 40000) == 0, "high ring's fence not written");
  CHIP_CHECK(chip_peek(sim, FENCEA) == 0 && chip_peek(sim, FENCEB) == 0,
             "the normal rings ended before the high ring ran");
  CHIP_CHECK(chip_wait_fence(sim, FENCEA, 1, 2000000) == 0, "A's fence not written");
  CHIP_CHECK(chip_wait_fence(sim, FENCEB, 1, 2000000) == 0, "B's fence not written");
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  const uint64_t t_first = first_read(ev, n, RINGH, 4096, t_db);
  const uint64_t t_fence = write_cycle(ev, n, FENCEH, 9, t_db);
  CHIP_CHECK(t_first && t_fence > t_first, "no high ring fetch / fence logged");
  const size_t others = writes_in(ev, n, DST, PITCH * ROWS / 4, t_first, t_fence) +
                        writes_in(ev, n, LONGB, 1024 * LONGB_ROWS, t_first, t_fence);
  CHIP_CHECK(others == 0, "%zu normal ring writes while the high ring ran", others);
  /* both normal rings ran before the high ring came: they took turns */
  CHIP_CHECK(writes_in(ev, n, DST, PITCH * ROWS / 4, 0, t_db) > 0 &&
             writes_in(ev, n, LONGB, 1024 * LONGB_ROWS, 0, t_db) > 0, "A and B did not take turns");
  for (uint32_t a = HDST; a < HDST + BPITCH * BROWS; a += 4) CHIP_EQ(chip_peek(sim, a), 0x66666666u, "high FILL");
  for (uint32_t a = LONGB; a < LONGB + 1024 * LONGB_ROWS; a += 4) CHIP_EQ(chip_peek(sim, a), 0x55555555u, "B's FILL");
  for (uint32_t a = DST; a < DST + PITCH * ROWS / 4; a += 4) CHIP_EQ(chip_peek(sim, a), PATTERN, "A's FILL");
  printf("high ring over A and B: doorbell -> first access %u cycles, -> fence %u\n",
         (uint32_t)(t_first - t_db), (uint32_t)(t_fence - t_db));
  sgpu_sim_destroy(sim);
}

/* Part 5: node 1 keeps running while node 0's rings switch.  Node 0's rings
 * run WRITE_DATA streams (the 2D engine of the normal rings, which node 1's
 * FILL needs, stays free: a FILL paused for a held ring keeps that engine). */
#define WD_PKTS 40u
#define WD_WORDS 16u
#define WDA 0x23000u
#define WDB 0x24000u
static void other_node(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ra, rb, r1;
  chip_ring_init(&ra, sim, 0, RINGA, 4096);
  chip_ring_init(&rb, sim, ring_b0, RINGB, 4096);
  chip_ring_init(&r1, sim, 1, RINGA1, 4096);
  chip_nwr(sim, 0, SGPU_NREG_QUANTUM, 200);
  chip_nwr(sim, ring_b0, SGPU_NREG_QUANTUM, 200);
  sgpu_sim_mem_log_enable(sim, 1u << 21);
  chip_buf ba, bb;
  chip_buf_init(&ba);
  chip_buf_init(&bb);
  uint32_t da[WD_WORDS], db[WD_WORDS];
  for (uint32_t p = 0; p < WD_PKTS; p++) {
    for (uint32_t i = 0; i < WD_WORDS; i++) {
      da[i] = 0xA0000000u | (p << 8) | i;
      db[i] = 0xB0000000u | (p << 8) | i;
    }
    chip_pkt_write_data(&ba, WDA + 4 * WD_WORDS * p, da, WD_WORDS);
    chip_pkt_write_data(&bb, WDB + 4 * WD_WORDS * p, db, WD_WORDS);
  }
  chip_pkt_fence(&ba, FENCEA, 1, 0);
  chip_pkt_fence(&bb, FENCEB, 1, 0);
  submit_fill_fence(&r1, N1DST, 1024, N1ROWS, 0x12121212u, FENCEA1, 1);
  /* both rings filled first, then both doorbells: they start together */
  chip_ring_put(&ra, &ba);
  chip_ring_put(&rb, &bb);
  chip_doorbell(&ra);
  chip_doorbell(&rb);
  const uint64_t t_db = sgpu_sim_last_host_write_cycle(sim);
  CHIP_CHECK(chip_wait_fence(sim, FENCEA, 1, 400000) == 0, "A's fence not written");
  CHIP_CHECK(chip_wait_fence(sim, FENCEB, 1, 400000) == 0, "B's fence not written");
  CHIP_CHECK(chip_wait_fence(sim, FENCEA1, 1, 2000000) == 0, "node 1's fence not written");
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  const uint64_t t_first = first_read(ev, n, RINGB, 4096, t_db);
  const uint64_t t_fa = write_cycle(ev, n, FENCEA, 1, 0), t_fb = write_cycle(ev, n, FENCEB, 1, 0);
  CHIP_CHECK(t_first && t_fa && t_fb > t_first, "no B fetch / fences logged");
  /* they took turns: B started before A was done, A wrote after B started */
  CHIP_CHECK(t_first < t_fa, "B started only after A's fence");
  const size_t n1 = writes_in(ev, n, N1DST, 1024 * N1ROWS, t_first, t_fb);
  CHIP_CHECK(n1 > 0, "node 1 wrote nothing while node 0's B ran");
  /* every slice switch happened at a packet boundary: each packet's words in one run */
  size_t switches = 0;
  int last = -1;
  for (size_t i = 0; i < n; i++) {
    if (!ev[i].write) continue;
    const int who = in(ev[i].address, WDA, 4 * WD_WORDS * WD_PKTS) ? 0 : in(ev[i].address, WDB, 4 * WD_WORDS * WD_PKTS) ? 1 : -1;
    if (who < 0) continue;
    if (last >= 0 && who != last) {
      switches++;
      CHIP_CHECK((ev[i].address & (4 * WD_WORDS - 1)) == 0, "a switch inside a WRITE_DATA at 0x%08x", ev[i].address);
    }
    last = who;
  }
  CHIP_CHECK(switches >= 2, "node 0's rings switched only %zu times", switches);
  printf("node 0's WRITE_DATA streams switched %zu times; node 1 wrote %zu words while node 0's B ran (%u cycles)\n",
         switches, n1, (uint32_t)(t_fb - t_first));
  for (uint32_t p = 0; p < WD_PKTS; p++)
    for (uint32_t i = 0; i < WD_WORDS; i++) {
      CHIP_EQ(chip_peek(sim, WDA + 4 * (WD_WORDS * p + i)), 0xA0000000u | (p << 8) | i, "A's WRITE_DATA");
      CHIP_EQ(chip_peek(sim, WDB + 4 * (WD_WORDS * p + i)), 0xB0000000u | (p << 8) | i, "B's WRITE_DATA");
    }
  for (uint32_t a = N1DST; a < N1DST + 1024 * N1ROWS; a += 4) CHIP_EQ(chip_peek(sim, a), 0x12121212u, "node 1's FILL");
  chip_buf_free(&ba);
  chip_buf_free(&bb);
  sgpu_sim_destroy(sim);
}

/* Part 6: a ring whose ENABLE is cleared inside its FILL still gets turns
 * to finish it (it is busy, though no longer runnable), while B runs. */
static void disabled_inside(void) {
  sgpu_sim *sim = chip_create(NULL);
  chip_ring ra, rb;
  chip_ring_init(&ra, sim, 0, RINGA, 4096);
  chip_ring_init(&rb, sim, ring_b0, RINGB, 4096);
  chip_nwr(sim, 0, SGPU_NREG_QUANTUM, 300);
  chip_nwr(sim, ring_b0, SGPU_NREG_QUANTUM, 300);
  fill_region(sim, DST, PITCH * 64, 0);
  submit_fill_fence(&rb, LONGB, 1024, LONGB_ROWS, 0x5A5A5A5Au, FENCEB, 1);
  submit_fill_fence(&ra, DST, PITCH, 64, PATTERN, FENCEA, 1);
  sgpu_sim_run(sim, 1500, 0);
  CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_BUSY, "A is not inside its FILL");
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, 0);
  uint64_t t = 0;
  while ((chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_BUSY) && t < 400000) {
    sgpu_sim_run(sim, 500, 0);
    t += 500;
  }
  CHIP_CHECK(!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_BUSY), "disabled A never finished its FILL");
  for (uint32_t a = DST; a < DST + PITCH * 64; a += 4) CHIP_EQ(chip_peek(sim, a), PATTERN, "disabled A's FILL");
  CHIP_CHECK(chip_wait_fence(sim, FENCEB, 1, 400000) == 0, "B's fence not written");
  CHIP_EQ(chip_peek(sim, FENCEA), 0, "disabled A took its FENCE");
  printf("A disabled inside its FILL finished it within %llu cycles beside B\n", (unsigned long long)t);
  sgpu_sim_destroy(sim);
}

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  const uint32_t caps = chip_rd(sim, SGPU_REG_CAPS);
  nodes = SGPU_FIELD_GET(CAPS_NODES, caps);
  CHIP_EQ(chip_rings(sim), SGPU_FIELD_GET(CAPS_TIME_SLICE, caps) ? 3 * nodes : chip_rings(sim), "chip_rings");
  sgpu_sim_destroy(sim);
  if (!SGPU_FIELD_GET(CAPS_TIME_SLICE, caps)) {
    printf("SKIP test_chip_slice: CAPS.TIME_SLICE is 0\n");
    return 0;
  }
  CHIP_CHECK(SGPU_FIELD_GET(CAPS_PRIORITY, caps), "CAPS.TIME_SLICE without CAPS.PRIORITY");
  CHIP_CHECK(nodes >= 2, "needs two nodes, CAPS.NODES is %u", nodes);
  ring_h0 = nodes;       /* node 0's high ring */
  ring_b0 = 2 * nodes;   /* node 0's second normal ring */

  uint64_t lat, turn, lat0, turn0;
  const uint64_t alone = sliced_fill(0, 0, 0, &lat0, &turn0);
  const uint64_t idle_b = sliced_fill(1, 0, QUANTUM, &lat0, &turn0);
  CHIP_EQ(idle_b, alone, "A's FILL cycles with an idle B ring");
  const uint64_t with = sliced_fill(1, 1, QUANTUM, &lat, &turn);
  printf("A's FILL: %llu cycles alone, %llu with an idle B, %llu with %d B jobs sliced in (QUANTUM %u)\n",
         (unsigned long long)alone, (unsigned long long)idle_b, (unsigned long long)with, SLICES, QUANTUM);
  chip_figure("slice_switch_latency_cycles_worst", (double)lat);
  chip_figure("slice_b_doorbell_to_fence_cycles_worst", (double)turn);
  chip_figure("slice_fill_alone_cycles", (double)alone);
  chip_figure("slice_fill_sliced_cycles", (double)with);
  no_slices();
  high_over_both();
  other_node();
  disabled_inside();
  printf("PASS test_chip_slice\n");
  return 0;
}
