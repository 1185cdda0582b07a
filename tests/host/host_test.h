/* host_test.h — shared fixture for the libsgpu cmocka tests (header only). */
#ifndef HOST_TEST_H
#define HOST_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sgpu.h"

/* Verilator's runtime keeps some allocations until exit; our own code must
 * stay leak-free, so leak detection stays on. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=1:abort_on_error=0"; }

/* The device under test.  By default the in-process model (the URI each
 * test names); with SGPU_TEST_DEVICE set, that URI instead: a link server
 * (tests/link/test_host_suite_nosim.sh runs the suite, built against the
 * library without the model, through tcp: to sgpu-sim).  Tests that need
 * the model itself (its URIs, simulated-time figures, a second chip) skip
 * there with TEST_NEEDS_MODEL. */
static inline const char *test_link_uri(void) {
  const char *u = getenv("SGPU_TEST_DEVICE");
  return u && *u ? u : NULL;
}
/* A second device for tests that need two (SGPU_TEST_DEVICE2 on a link). */
static inline const char *test_second_uri(void) {
  const char *u = getenv("SGPU_TEST_DEVICE2");
  return test_link_uri() ? (u && *u ? u : NULL) : "sim";
}
/* SGPU_TEST_FILTER=NAME runs only the test functions matching NAME (the
 * link suite runs each in a process and server of its own);
 * SGPU_TEST_SKIP=PATTERN skips those matching PATTERN (run_valgrind.sh). */
__attribute__((constructor)) static void test_filter_from_env(void) {
  const char *f = getenv("SGPU_TEST_FILTER"), *s = getenv("SGPU_TEST_SKIP");
  if (f && *f) cmocka_set_test_filter(f);
  if (s && *s) cmocka_set_skip_filter(s);
}
/* A wait for something that is going to happen (the fence, or the fault
 * that ends its wait): on the model its timeout is simulated time; on a
 * link it is wall-clock time, and the server simulates far slower than real
 * time (more so when other tests load the machine), so it gets at least 5 s
 * there.  Waits that must time out keep their own timeout. */
static inline uint32_t wait_ms(uint32_t ms) {
  return test_link_uri() && ms < 5000 ? 5000 : ms;
}
#define TEST_NEEDS_MODEL(why)                                                  \
  do {                                                                         \
    if (test_link_uri()) {                                                     \
      fprintf(stderr, "skipped on %s (needs the model): %s\n", test_link_uri(), why); \
      skip();                                                                  \
    }                                                                          \
  } while (0)
/* 1 when the device under test is a server shared by programs (sgpud). */
static inline int test_shared_device(void) {
  const char *u = test_link_uri();
  return u && strncmp(u, "sgpud", 5) == 0 && (u[5] == 0 || u[5] == ':' || u[5] == ',');
}
/* A test of something a program of a shared device (sgpud) may not do or
 * see, because it would touch the other programs' work (docs/sgpud.md,
 * "The host test suite through sgpud"): it skips there, the reason printed. */
#define TEST_NEEDS_LOCAL(why)                                                  \
  do {                                                                         \
    if (test_shared_device()) {                                                \
      fprintf(stderr, "skipped on %s (not on a shared device): %s\n", test_link_uri(), why); \
      skip();                                                                  \
    }                                                                          \
  } while (0)
/* The hang tests expect a faulted node to stay faulted until the test
 * resets it; sgpud resets it at once (other programs' work is on it). */
#define SHARED_RESETS_AT_ONCE                                                             \
  "sgpud resets a faulted node at once (its other programs' work waits on it), so the node " \
  "does not stay faulted until this program's reset call, and no program may reset a "    \
  "node others' work runs on"

/* The URI to open for a test written for sim_uri: itself, or on a link the
 * link URI with the open options it names (video=, watchdog=); an option
 * only the model has (latency, stall, seed, trace) skips the test. */
static inline const char *test_uri(const char *sim_uri, char *buf, size_t size) {
  const char *link = test_link_uri();
  if (!link) return sim_uri;
  size_t n = (size_t)snprintf(buf, size, "%s", link);
  if (sim_uri && strncmp(sim_uri, "sim:", 4) == 0) {
    for (const char *p = sim_uri + 4; *p;) {
      size_t len = strcspn(p, ",");
      if (strncmp(p, "video=", 6) == 0 || strncmp(p, "watchdog=", 9) == 0) {
        if (n < size) n += (size_t)snprintf(buf + n, size - n, ",%.*s", (int)len, p);
      } else {
        TEST_NEEDS_MODEL(sim_uri);
      }
      p += len;
      if (*p == ',') p++;
    }
  }
  return buf;
}

typedef struct fixture {
  sgpu_device *dev;
  sgpu_context *ctx0, *ctx1;
  uint64_t buf;   /* 4 KiB command buffer in segment 1 */
  uint64_t tgt;   /* 4 KiB target in segment 1 */
  uint32_t fence[SGPU_MAX_NODES];
} fixture;

static inline int fixture_open(fixture *f, const char *uri) {
  memset(f, 0, sizeof *f);
  char msg[256], ubuf[256];
  uri = test_uri(uri, ubuf, sizeof ubuf);
  int r = sgpu_open_detail(uri, &f->dev, msg, sizeof msg);
  if (r) {
    fprintf(stderr, "sgpu_open(%s): %s: %s\n", uri, sgpu_strerror(r), msg);
    return r;
  }
  if ((r = sgpu_create_context(f->dev, 0, &f->ctx0))) return r;
  if ((r = sgpu_create_context(f->dev, 1, &f->ctx1))) return r;
  if ((r = sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &f->buf))) return r;
  if ((r = sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &f->tgt))) return r;
  return 0;
}

static inline void fixture_close(fixture *f) {
  sgpu_destroy_context(f->ctx0);
  sgpu_destroy_context(f->ctx1);
  sgpu_close(f->dev);
  memset(f, 0, sizeof *f);
}

/* A valid submission of `bytes` at f->buf on node 0 with the next fence id. */
static inline sgpu_submit_command_args fixture_args(fixture *f, uint32_t bytes) {
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = f->ctx0;
  a.dma_buffer_segment_id = SGPU_SEGMENT_LOCAL;
  a.dma_buffer_physical_address = f->buf;
  a.dma_buffer_size = 4096;
  a.dma_buffer_submission_start_offset = 0;
  a.dma_buffer_submission_end_offset = bytes;
  a.submission_fence_id = f->fence[0] + 1;
  a.node_ordinal = 0;
  return a;
}

/* Put words at address. */
static inline void put(fixture *f, uint64_t address, const uint32_t *w, uint32_t n) {
  assert_int_equal(sgpu_write(f->dev, address, w, n * 4), 0);
}

#define CHECK(x)                                                                      \
  do {                                                                                \
    int r_ = (x);                                                                     \
    if (r_ < 0) fail_msg("%s -> %d %s: %s", #x, r_, sgpu_strerror(r_), sgpu_last_error(f->dev)); \
  } while (0)

/* One word of GPU memory, read and written through the library. */
static inline uint32_t rd(fixture *f, uint64_t address) {
  uint32_t v = 0;
  assert_int_equal(sgpu_read(f->dev, address, &v, 4), 0);
  return v;
}
static inline void wr(fixture *f, uint64_t address, uint32_t v) {
  assert_int_equal(sgpu_write(f->dev, address, &v, 4), 0);
}

/* "Once markers" in the fixture's target: marker i copies src[i] (0x1000 +
 * i) to dst[i], then writes 0xDEAD to src[i].  Ran once: dst[i] = 0x1000 + i;
 * twice: 0xDEAD; never: 0. */
/* Let the chip run `cycles` of its own clock.  On the model that is
 * sgpu_run_cycles; on a link sgpu_run_cycles waits wall time at the nominal
 * clock, and a simulating server runs far slower (slower still under load),
 * so there the chip's CYCLE counter is watched instead. */
static inline void run_chip(fixture *f, uint32_t cycles) {
  uint32_t start = 0, now = 0;
  if (!test_link_uri() || sgpu_reg_read(f->dev, SGPU_REG_CYCLE_LO, &start)) {
    CHECK(sgpu_run_cycles(f->dev, cycles));
    return;
  }
  do {
    CHECK(sgpu_run_cycles(f->dev, 1000));
    CHECK(sgpu_reg_read(f->dev, SGPU_REG_CYCLE_LO, &now));
  } while (now - start < cycles);
}

/* Submit the words of cb, written at `at` (segment 1), from ctx on its node. */
static inline int submit_at(fixture *f, sgpu_context *ctx, uint64_t at, const sgpu_cmdbuf *cb,
                            uint32_t fence, uint32_t flags) {
  assert_int_equal(sgpu_write(f->dev, at, cb->words, sgpu_cmdbuf_size(cb)), 0);
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = ctx;
  a.dma_buffer_segment_id = SGPU_SEGMENT_LOCAL;
  a.dma_buffer_physical_address = at;
  a.dma_buffer_size = sgpu_cmdbuf_size(cb);
  a.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(cb);
  a.submission_fence_id = fence;
  a.node_ordinal = sgpu_context_node(ctx);
  a.flags.value = flags;
  return sgpu_submit_command(f->dev, &a);
}

/* The DMA_COMPLETED events in the queue, in order: fence ids and rings. */
static inline int completed_events(fixture *f, uint32_t *fence, uint32_t *priority, int max) {
  sgpu_event ev;
  int n = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_COMPLETED && n < max) {
      fence[n] = ev.fence_id;
      priority[n++] = ev.priority;
    }
  return n;
}

/* A new context on node 0 with SGPU_PRIORITY_HIGH. */
static inline sgpu_context *high_context(fixture *f) {
  sgpu_context *c = NULL;
  CHECK(sgpu_create_context(f->dev, 0, &c));
  assert_int_equal(sgpu_context_priority(c), SGPU_PRIORITY_NORMAL);
  CHECK(sgpu_set_context_priority(c, SGPU_PRIORITY_HIGH));
  assert_int_equal(sgpu_context_priority(c), SGPU_PRIORITY_HIGH);
  return c;
}

/* The overtaking scene of the priority and time-slice tests: context `big`
 * submits a 640x480 32-bpp FILL (fence base + 1) and, `after` cycles into
 * it, context `small` a 64x16 FILL in f->tgt (fence base + 2), both on node
 * 0.  It waits for both and checks every word of both targets against
 * memset oracles.  Returns 1 when the small fence was done while the big
 * one was not; fence[2] and ring[2] are the two DMA_COMPLETED events'. */
#define OVERTAKE_FB_PITCH (640u * 4u)
#define OVERTAKE_FB_BYTES (OVERTAKE_FB_PITCH * 480u)
static inline int overtake_fill(fixture *f, sgpu_context *big, sgpu_context *small, uint32_t after,
                                uint32_t base, uint32_t fence[2], uint32_t ring[2]) {
  const uint32_t big_pattern = 0x5A3C961Eu, small_pattern = 0xC0FFEE11u;
  uint64_t fb = 0;
  CHECK(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, OVERTAKE_FB_BYTES, 4096, &fb));
  uint8_t *zero = calloc(1, OVERTAKE_FB_BYTES), *got = malloc(OVERTAKE_FB_BYTES), *want = malloc(OVERTAKE_FB_BYTES);
  assert_non_null(zero);
  assert_non_null(got);
  assert_non_null(want);
  CHECK(sgpu_write(f->dev, fb, zero, OVERTAKE_FB_BYTES));
  /* the small one's target: 64 bytes x 16 rows in f->tgt, pitch 256 */
  uint8_t tzero[4096] = {0}, tgot[4096], twant[4096];
  CHECK(sgpu_write(f->dev, f->tgt, tzero, sizeof tzero));
  uint32_t m1[16], m2[16];
  sgpu_cmdbuf bcb, scb;
  sgpu_cmdbuf_init(&bcb, m1, sizeof m1);
  sgpu_cmdbuf_init(&scb, m2, sizeof m2);
  CHECK(sgpu_cmd_fill(&bcb, (uint32_t)fb, OVERTAKE_FB_PITCH, OVERTAKE_FB_PITCH, 480, big_pattern));
  CHECK(sgpu_cmd_fill(&scb, (uint32_t)f->tgt + 8, 256, 64, 16, small_pattern));
  CHECK(submit_at(f, big, f->buf, &bcb, base + 1, 0));
  run_chip(f, after); /* into the FILL (a 1.2 MB FILL takes some 300,000 cycles) */
  CHECK(submit_at(f, small, f->buf + 256, &scb, base + 2, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, base + 2, wait_ms(500)));
  int overtook = sgpu_wait_fence(f->dev, 0, base + 1, 0) == SGPU_ERROR_TIMEOUT;
  CHECK(sgpu_wait_fence(f->dev, 0, base + 1, wait_ms(500)));
  uint32_t fences[8], rings[8];
  assert_int_equal(completed_events(f, fences, rings, 8), 2);
  memcpy(fence, fences, 2 * sizeof *fence);
  memcpy(ring, rings, 2 * sizeof *ring);
  for (uint32_t i = 0; i < OVERTAKE_FB_BYTES; i += 4) memcpy(want + i, &big_pattern, 4);
  CHECK(sgpu_read(f->dev, fb, got, OVERTAKE_FB_BYTES));
  assert_memory_equal(got, want, OVERTAKE_FB_BYTES);
  memset(twant, 0, sizeof twant);
  for (uint32_t y = 0; y < 16; y++)
    for (uint32_t x = 0; x < 64; x += 4) memcpy(twant + 8 + y * 256 + x, &small_pattern, 4);
  CHECK(sgpu_read(f->dev, f->tgt, tgot, sizeof tgot));
  assert_memory_equal(tgot, twant, sizeof twant);
  CHECK(sgpu_free(f->dev, fb));
  free(zero);
  free(got);
  free(want);
  return overtook;
}

static inline uint32_t src_of(fixture *f, uint32_t i) { return (uint32_t)f->tgt + 4 * i; }
static inline uint32_t dst_of(fixture *f, uint32_t i) { return (uint32_t)f->tgt + 1024 + 4 * i; }
static inline void marker(fixture *f, sgpu_cmdbuf *cb, uint32_t i) {
  CHECK(sgpu_cmd_copy(cb, dst_of(f, i), 4, src_of(f, i), 4, 4, 1));
  CHECK(sgpu_cmd_write_data(cb, src_of(f, i), (uint32_t[]){0xDEAD}, 1));
}
/* Markers below n: not run yet. */
static inline void reset_markers(fixture *f, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    wr(f, src_of(f, i), 0x1000 + i);
    wr(f, dst_of(f, i), 0);
  }
}
/* Each marker below n ran exactly once (its dst holds the first value). */
static inline void expect_once(fixture *f, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t d = rd(f, dst_of(f, i));
    if (d != 0x1000 + i) fail_msg("marker %u: dst 0x%x (0: never ran, 0xdead: ran twice)", i, d);
  }
}

#endif
