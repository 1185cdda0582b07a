/* test_submit_exec.c — libsgpu against the real RTL model: work executes,
 * fences and events (with private data), segment-0 staging, NullRendering,
 * 64-bit fence extension across 2^32, ring wrap, faults + reset, watchdog,
 * deterministic timeouts, validate_submit_command, memory, display + flips. */
#include <sys/stat.h>
#include <unistd.h>

#include "host_test.h"

#define H(op, n, fl) SGPU_PKT_HEADER(SGPU_OP_##op, n, fl)
#define TINY "sim:video=tiny"

static int submit_words(fixture *f, uint32_t node, const uint32_t *w, uint32_t n, uint32_t fence,
                        uint32_t flags, void *priv, uint32_t priv_size) {
  uint64_t buf = f->buf + (node ? 2048 : 0);
  int r = sgpu_write(f->dev, buf, w, n * 4);
  if (r) return r;
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = node ? f->ctx1 : f->ctx0;
  a.dma_buffer_segment_id = 1;
  a.dma_buffer_physical_address = buf;
  a.dma_buffer_size = 2048;
  a.dma_buffer_submission_end_offset = n * 4;
  a.dma_buffer_private_data = priv;
  a.dma_buffer_private_data_size = priv_size;
  a.dma_buffer_private_data_submission_end_offset = priv_size;
  a.submission_fence_id = fence;
  a.flags.value = flags;
  a.node_ordinal = node;
  return sgpu_submit_command(f->dev, &a);
}

static void test_work_events_private_data(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  uint32_t t = (uint32_t)f->tgt;
  uint32_t w[] = {H(WRITE_DATA, 3, 0), t, 0x11111111, 0x22222222,
                  H(FILL, 5, 0), t + 64, 32, 32, 4, 0xA5A5A5A5};
  char priv0[16] = "node0-private";
  char priv1[8] = "node1";
  CHECK(submit_words(f, 0, w, 10, 1, 0, priv0, sizeof priv0));
  uint32_t w1[] = {H(WRITE_DATA, 2, 0), t + 1024, 0x33333333};
  CHECK(submit_words(f, 1, w1, 3, 5, SGPU_SUBMIT_PRESENT, priv1, sizeof priv1));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 1, 5, wait_ms(50)));
  uint32_t out[48];
  CHECK(sgpu_read(f->dev, f->tgt, out, sizeof out));
  assert_int_equal(out[0], 0x11111111);
  assert_int_equal(out[1], 0x22222222);
  for (int row = 0; row < 4; row++)
    for (int k = 0; k < 8; k++) assert_int_equal(out[16 + row * 8 + k], 0xA5A5A5A5);
  uint32_t v;
  CHECK(sgpu_read(f->dev, f->tgt + 1024, &v, 4));
  assert_int_equal(v, 0x33333333);
  int got0 = 0, got1 = 0;
  sgpu_event ev;
  while (sgpu_next_event(f->dev, &ev, 0) == 0) {
    assert_int_equal(ev.type, SGPU_EVENT_DMA_COMPLETED);
    if (ev.node_ordinal == 0) {
      got0++;
      assert_int_equal(ev.fence_id, 1);
      assert_ptr_equal(ev.private_data, priv0);
      assert_int_equal(ev.private_data_size, sizeof priv0);
    } else {
      got1++;
      assert_int_equal(ev.fence_id, 5);
      assert_int_equal(ev.fence_id64, 5);
      assert_int_equal(ev.flags, SGPU_SUBMIT_PRESENT);
      assert_ptr_equal(ev.private_data, priv1);
    }
  }
  assert_int_equal(got0, 1);
  assert_int_equal(got1, 1);
  assert_int_equal(sgpu_next_event(f->dev, &ev, 1), SGPU_ERROR_TIMEOUT);
  sgpu_stats st;
  CHECK(sgpu_get_stats(f->dev, &st));
  assert_int_equal(st.submissions, 2);
  assert_int_equal(st.present, 1);
  assert_int_equal(st.completed, 2);
  /* Waiting for a fence never submitted is an error, not a hang. */
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 2, 10), SGPU_ERROR_FENCE_NOT_SUBMITTED);
  assert_int_equal(sgpu_wait_fence(f->dev, 7, 1, 10), SGPU_ERROR_INVALID_NODE);
  fixture_close(f);
}

static void test_staging(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  uint64_t h;
  CHECK(sgpu_alloc(f->dev, SGPU_SEGMENT_SYSTEM, 4096, 0, &h));
  assert_true(h >= SGPU_HOST_ADDRESS_BASE);
  uint32_t t = (uint32_t)f->tgt;
  /* Garbage before the start offset is never looked at. */
  uint32_t w[] = {0xDEADBEEF, 0xDEADBEEF, H(WRITE_DATA, 2, 0), t, 0x5151};
  CHECK(sgpu_write(f->dev, h, w, sizeof w));
  uint32_t back[5];
  CHECK(sgpu_read(f->dev, h, back, sizeof back));
  assert_memory_equal(back, w, sizeof w);
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = f->ctx0;
  a.dma_buffer_segment_id = 0;
  a.dma_buffer_physical_address = h;
  a.dma_buffer_size = 4096;
  a.dma_buffer_submission_start_offset = 8;
  a.dma_buffer_submission_end_offset = 20;
  a.submission_fence_id = 1;
  CHECK(sgpu_submit_command(f->dev, &a));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  uint32_t v;
  CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
  assert_int_equal(v, 0x5151);
  /* Many 2 KiB staged submissions: the aperture staging area is reclaimed. */
  uint32_t big[512];
  for (int i = 0; i < 512; i++) big[i] = H(NOP, 0, 0);
  for (uint32_t i = 0; i < 40; i++) {
    big[508] = H(WRITE_DATA, 2, 0);
    big[509] = t + 4;
    big[510] = i;
    big[511] = H(NOP, 0, 0);
    CHECK(sgpu_write(f->dev, h, big, sizeof big));
    a.dma_buffer_submission_start_offset = 0;
    a.dma_buffer_submission_end_offset = 2048;
    a.submission_fence_id = 2 + i;
    CHECK(sgpu_submit_command(f->dev, &a));
  }
  CHECK(sgpu_wait_fence(f->dev, 0, 41, wait_ms(200)));
  CHECK(sgpu_read(f->dev, f->tgt + 4, &v, 4));
  assert_int_equal(v, 39);
  sgpu_stats st;
  CHECK(sgpu_get_stats(f->dev, &st));
  assert_int_equal(st.staged_bytes, 12 + 40 * 2048);
  printf("FIGURE staging_waits %llu\n", (unsigned long long)st.ring_waits);
  CHECK(sgpu_free(f->dev, h));
  assert_int_equal(sgpu_free(f->dev, h), SGPU_ERROR_NOT_ALLOCATED);
  fixture_close(f);
}

static void test_null_rendering_paging_context_switch(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  uint32_t t = (uint32_t)f->tgt;
  uint32_t w[] = {H(WRITE_DATA, 2, 0), t, 0x77};
  uint32_t zero = 0;
  CHECK(sgpu_write(f->dev, f->tgt, &zero, 4)); /* a link's chip keeps what earlier runs wrote */
  CHECK(submit_words(f, 0, w, 3, 1, SGPU_SUBMIT_NULL_RENDERING, NULL, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  uint32_t v = 1;
  CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
  assert_int_equal(v, 0); /* not executed */
  sgpu_event ev;
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_int_equal(ev.type, SGPU_EVENT_DMA_COMPLETED);
  assert_int_equal(ev.fence_id, 1);
  /* Paging with a NULL context on node 1. */
  CHECK(sgpu_write(f->dev, f->buf + 2048, w, sizeof w));
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.dma_buffer_segment_id = 1;
  a.dma_buffer_physical_address = f->buf + 2048;
  a.dma_buffer_size = 12;
  a.dma_buffer_submission_end_offset = 12;
  char pd[32];
  a.dma_buffer_private_data = pd;
  a.dma_buffer_private_data_size = 32;
  a.dma_buffer_private_data_submission_start_offset = 16; /* allowed with Paging */
  a.dma_buffer_private_data_submission_end_offset = 24;
  a.submission_fence_id = 3;
  a.flags.paging = 1;
  a.node_ordinal = 1;
  CHECK(sgpu_submit_command(f->dev, &a));
  CHECK(sgpu_wait_fence(f->dev, 1, 3, wait_ms(50)));
  CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
  assert_int_equal(v, 0x77);
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_ptr_equal(ev.private_data, pd + 16);
  assert_int_equal(ev.private_data_size, 8);
  /* A real context on node 0, then ContextSwitch -> the null context. */
  uint32_t w2[] = {H(NOP, 0, 0)};
  CHECK(submit_words(f, 0, w2, 1, 2, 0, NULL, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50)));
  uint32_t id = 0;
  CHECK(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_CONTEXT_ID), &id));
  assert_int_equal(id, sgpu_context_id(f->ctx0));
  sgpu_submit_command_args cs;
  memset(&cs, 0, sizeof cs);
  cs.context = f->ctx0;
  cs.dma_buffer_segment_id = 1;
  cs.dma_buffer_physical_address = f->buf;
  cs.dma_buffer_size = 4096;
  cs.submission_fence_id = 3;
  cs.flags.context_switch = 1;
  CHECK(sgpu_submit_command(f->dev, &cs));
  CHECK(sgpu_wait_fence(f->dev, 0, 3, wait_ms(50)));
  CHECK(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_CONTEXT_ID), &id));
  assert_int_equal(id, 0);
  sgpu_stats st;
  CHECK(sgpu_get_stats(f->dev, &st));
  assert_int_equal(st.null_rendering, 1);
  assert_int_equal(st.paging, 1);
  assert_int_equal(st.context_switch, 1);
  fixture_close(f);
}

static void test_fence_64bit(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  const uint32_t ids[] = {0x40000000u, 0x80000000u, 0xC0000000u, 0xFFFFFFF0u, 0x10u, 0x20u};
  uint32_t nop[] = {H(NOP, 0, 0)};
  for (size_t i = 0; i < 6; i++) CHECK(submit_words(f, 0, nop, 1, ids[i], 0, NULL, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 0x20, wait_ms(100)));
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.completed, 0x100000020ull);
  assert_int_equal(fi.submitted, 0x100000020ull);
  assert_int_equal(fi.pending, 0);
  sgpu_event ev;
  uint64_t expect64[] = {0x40000000ull, 0x80000000ull, 0xC0000000ull, 0xFFFFFFF0ull,
                         0x100000010ull, 0x100000020ull};
  for (size_t i = 0; i < 6; i++) {
    CHECK(sgpu_next_event(f->dev, &ev, 0));
    assert_int_equal(ev.fence_id, ids[i]);
    assert_int_equal(ev.fence_id64, expect64[i]);
  }
  /* An old id (already passed across the wrap) counts as done. */
  CHECK(sgpu_wait_fence(f->dev, 0, 0xFFFFFFF0u, wait_ms(0)));
  fixture_close(f);
}

static void test_ring_wrap_and_context_changes(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  sgpu_context *c2;
  CHECK(sgpu_create_context(f->dev, 0, &c2));
  uint32_t t = (uint32_t)f->tgt;
  for (uint32_t i = 1; i <= 300; i++) {
    uint32_t w[] = {H(WRITE_DATA, 2, 0), t + (i % 2) * 4, i};
    uint64_t buf = f->buf + (i % 8) * 16;
    CHECK(sgpu_write(f->dev, buf, w, sizeof w));
    sgpu_submit_command_args a;
    memset(&a, 0, sizeof a);
    a.context = (i % 3) ? f->ctx0 : c2;
    a.dma_buffer_segment_id = 1;
    a.dma_buffer_physical_address = buf;
    a.dma_buffer_size = 12;
    a.dma_buffer_submission_end_offset = 12;
    a.submission_fence_id = i;
    CHECK(sgpu_submit_command(f->dev, &a));
    if (i % 8 == 7) CHECK(sgpu_wait_fence(f->dev, 0, i, wait_ms(50))); /* buffers get reused */
  }
  CHECK(sgpu_wait_fence(f->dev, 0, 300, wait_ms(100)));
  uint32_t out[2];
  CHECK(sgpu_read(f->dev, f->tgt, out, 8));
  assert_int_equal(out[0], 300);
  assert_int_equal(out[1], 299);
  sgpu_event ev;
  for (uint32_t i = 1; i <= 300; i++) {
    CHECK(sgpu_next_event(f->dev, &ev, 0));
    assert_int_equal(ev.fence_id, i);
  }
  sgpu_stats st;
  CHECK(sgpu_get_stats(f->dev, &st));
  assert_true(st.context_switches >= 200);
  printf("FIGURE ring_wrap_submissions 300 context_packets %llu\n",
         (unsigned long long)st.context_switches);
  sgpu_destroy_context(c2);
  fixture_close(f);
}

static void test_fault_then_reset(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  uint32_t t = (uint32_t)f->tgt, flag = t + 256, ib2 = (uint32_t)f->buf + 1024;
  uint32_t ok2[] = {H(NOP, 0, 0), H(NOP, 0, 0)};
  CHECK(sgpu_write(f->dev, ib2, ok2, 8));
  uint32_t w[] = {H(WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ), flag, 0xFFFFFFFFu, 1,
                  H(INDIRECT, 3, 0), ib2, 8, 0};
  char priv[4] = "bad";
  CHECK(submit_words(f, 0, w, 8, 1, 0, priv, sizeof priv));
  uint32_t w2[] = {H(WRITE_DATA, 2, 0), t, 0x99};
  CHECK(sgpu_write(f->dev, f->buf + 3072, w2, 12));
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = f->ctx0;
  a.dma_buffer_segment_id = 1;
  a.dma_buffer_physical_address = f->buf + 3072;
  a.dma_buffer_size = 12;
  a.dma_buffer_submission_end_offset = 12;
  a.submission_fence_id = 2;
  CHECK(sgpu_submit_command(f->dev, &a)); /* queued behind the one that will fault */
  /* Corrupt the nested buffer behind the library's back, then release the wait. */
  uint32_t bad[] = {SGPU_PKT_HEADER(0x3F, 0, 0), 0};
  CHECK(sgpu_write(f->dev, ib2, bad, 8));
  uint32_t one = 1;
  CHECK(sgpu_write(f->dev, flag, &one, 4));
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)), SGPU_ERROR_NODE_FAULTED);
  sgpu_event ev;
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  printf("fault event: type %u reason %u addr 0x%x opcode 0x%08x fence %u\n", ev.type,
         ev.fault_reason, ev.fault_address, ev.fault_opcode, ev.fence_id);
  assert_int_equal(ev.type, SGPU_EVENT_DMA_FAULTED);
  assert_int_equal(ev.fault_reason, SGPU_FAULT_ILLEGAL_OPCODE);
  assert_int_equal(ev.fault_address, ib2);
  assert_int_equal(ev.fault_opcode, bad[0]);
  assert_int_equal(ev.fence_id, 1);
  assert_ptr_equal(ev.private_data, priv);
  /* Nothing more runs until the reset. */
  a.submission_fence_id = 3;
  assert_int_equal(sgpu_submit_command(f->dev, &a), SGPU_ERROR_NODE_FAULTED);
  uint32_t v = 0;
  CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
  assert_int_equal(v, 0);
  /* Both are the guilty context's: dropped, nothing put back. */
  int put_back = sgpu_reset_from_timeout(f->dev);
  assert_int_equal(put_back, 0);
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_int_equal(ev.type, SGPU_EVENT_DMA_DROPPED);
  assert_int_equal(ev.fence_id, 1);
  assert_int_equal(ev.context_id, sgpu_context_id(f->ctx0)); /* whose submission it was */
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_int_equal(ev.type, SGPU_EVENT_DMA_DROPPED);
  assert_int_equal(ev.fence_id, 2);
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_int_equal(ev.type, SGPU_EVENT_ENGINE_RESET);
  assert_int_equal(ev.context_id, sgpu_context_id(f->ctx0));
  assert_int_equal(ev.fence_id, 2);
  /* The dropped fence ids pass; the work is sent again under a new one. */
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50)));
  CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
  assert_int_equal(v, 0);
  a.submission_fence_id = 3;
  /* New work, not a resubmission: only preempted work is sent with that flag. */
  a.flags.resubmission = 1;
  assert_int_equal(sgpu_submit_command(f->dev, &a), SGPU_ERROR_NOT_PREEMPTED);
  a.flags.resubmission = 0;
  CHECK(sgpu_submit_command(f->dev, &a));
  CHECK(sgpu_wait_fence(f->dev, 0, 3, wait_ms(50)));
  CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
  assert_int_equal(v, 0x99);
  sgpu_stats st;
  CHECK(sgpu_get_stats(f->dev, &st));
  assert_int_equal(st.faulted, 1);
  assert_int_equal(st.dropped, 2);
  assert_int_equal(st.resubmission, 0);
  fixture_close(f);
}

static void test_watchdog_timeout(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny,watchdog=5000"), 0);
  uint32_t flag = (uint32_t)f->tgt + 256, zero = 0;
  CHECK(sgpu_write(f->dev, flag, &zero, 4)); /* a link's chip keeps what earlier runs wrote */
  uint32_t w[] = {H(WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ), flag, 0xFFFFFFFFu, 1};
  CHECK(submit_words(f, 0, w, 4, 1, 0, NULL, 0));
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 1, wait_ms(10)), SGPU_ERROR_NODE_FAULTED);
  sgpu_event ev;
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_int_equal(ev.type, SGPU_EVENT_DMA_FAULTED);
  assert_int_equal(ev.fault_reason, SGPU_FAULT_TIMEOUT);
  assert_int_equal(sgpu_reset_from_timeout(f->dev), 0);
  uint32_t w2[] = {H(NOP, 0, 0)};
  CHECK(submit_words(f, 0, w2, 1, 2, 0, NULL, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(10)));
  fixture_close(f);
}

static uint64_t timeout_run(void) {
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny,watchdog=0"), 0);
  uint32_t flag = (uint32_t)f->tgt + 256, zero = 0;
  CHECK(sgpu_write(f->dev, flag, &zero, 4)); /* a link's chip keeps what earlier runs wrote */
  uint32_t w[] = {H(WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ), flag, 0xFFFFFFFFu, 1};
  CHECK(submit_words(f, 0, w, 4, 1, 0, NULL, 0));
  uint64_t c0, c1;
  CHECK(sgpu_get_cycles(f->dev, &c0));
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 1, 2), SGPU_ERROR_TIMEOUT);
  CHECK(sgpu_get_cycles(f->dev, &c1));
  assert_non_null(strstr(sgpu_last_error(f->dev), "2 ms"));
  /* Release it: the fence then completes. */
  uint32_t one = 1;
  CHECK(sgpu_write(f->dev, flag, &one, 4));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(10)));
  fixture_close(f);
  return c1 - c0;
}

static void test_wait_timeout_deterministic(void **state) {
  (void)state;
  uint64_t a = timeout_run();
  /* on a link the wait times out too (above), in wall time; through sgpud
   * the server's model counts (its time runs for this program alone) */
  if (!test_shared_device()) TEST_NEEDS_MODEL("the same simulated cycle count on two runs");
  uint64_t b = timeout_run();
  printf("FIGURE wait_fence_2ms_cycles %llu\n", (unsigned long long)a);
  assert_int_equal(a, b);
  assert_true(a >= 2ull * SGPU_NOMINAL_CLOCK_HZ / 1000);
  assert_true(a < 2ull * SGPU_NOMINAL_CLOCK_HZ / 1000 + 200);
}

static void test_validate(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  uint32_t t = (uint32_t)f->tgt;
  uint32_t w[] = {H(WRITE_DATA, 2, 0), t, 1, H(NOP, 1, 0), 0, H(FENCE, 2, 0), t + 8, 3};
  put(f, f->buf, w, 8);
  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  v.commands = f->buf;
  v.command_length = sizeof w;
  v.context_count = 2;
  v.context[0] = f->ctx0;
  v.context[1] = f->ctx1;
  char pd[16];
  v.private_driver_data = pd;
  v.private_driver_data_size = 16;
  v.umd_private_data_size = 8;
  CHECK(sgpu_validate_submit_command(f->dev, &v));
  sgpu_validate_submit_command_args b;
#define EXPECT(mut, code, substr)                                                        \
  do {                                                                                   \
    b = v;                                                                               \
    mut;                                                                                 \
    int r_ = sgpu_validate_submit_command(f->dev, &b);                                   \
    printf("validate %-40s -> %d %s\n", #mut, r_, sgpu_last_error(f->dev));             \
    assert_int_equal(r_, code);                                                          \
    assert_non_null(strstr(sgpu_last_error(f->dev), substr));                            \
  } while (0)
  EXPECT(b.context_count = 0, SGPU_ERROR_VALIDATE_CONTEXT_COUNT, "context_count 0");
  EXPECT(b.context_count = 65, SGPU_ERROR_VALIDATE_CONTEXT_COUNT, "context_count 65");
  EXPECT(b.context[1] = NULL, SGPU_ERROR_VALIDATE_CONTEXT_HANDLE, "context[1]");
  EXPECT(b.flags.value = 2, SGPU_ERROR_VALIDATE_RESERVED_FLAGS, "reserved");
  EXPECT(b.commands = 0x7FFFF0, SGPU_ERROR_VALIDATE_COMMAND_RANGE, "leave GPU memory");
  EXPECT(b.command_length = 10, SGPU_ERROR_VALIDATE_COMMAND_ALIGN, "aligned");
  EXPECT(b.private_driver_data = NULL, SGPU_ERROR_VALIDATE_PRIVATE_DATA, "NULL");
  EXPECT(b.umd_private_data_size = 17, SGPU_ERROR_VALIDATE_UMD_PRIVATE_SIZE, "17 > ");
  EXPECT(b.command_length = 16, SGPU_ERROR_PACKET_OVERRUN, "address 0x");
  b = v;
  b.flags.hardware_queue_submission = 1; /* hardware queues take the same handles here */
  CHECK(sgpu_validate_submit_command(f->dev, &b));
  /* A bad packet is named by its address. */
  uint32_t badw[] = {H(NOP, 0, 0), H(NOP, 0, 0), SGPU_PKT_HEADER(0x20, 0, 0)};
  put(f, f->buf + 512, badw, 3);
  b = v;
  b.commands = f->buf + 512;
  b.command_length = 12;
  assert_int_equal(sgpu_validate_submit_command(f->dev, &b), SGPU_ERROR_PACKET_ILLEGAL_OPCODE);
  char want[64];
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)f->buf + 512 + 8);
  assert_non_null(strstr(sgpu_last_error(f->dev), want));
  /* Windowed context: the same buffer is outside its window. */
  sgpu_context *wc;
  CHECK(sgpu_create_context_windowed(f->dev, 0, (uint32_t)f->buf, 4096, &wc));
  b = v;
  b.context[1] = wc;
  assert_int_equal(sgpu_validate_submit_command(f->dev, &b), SGPU_ERROR_PACKET_CONTEXT_WINDOW);
  sgpu_destroy_context(wc);
  /* Progress fence: after fence 4 completes on node 0, 3 must not run again. */
  uint32_t nop[] = {H(NOP, 0, 0)};
  CHECK(submit_words(f, 0, nop, 1, 4, 0, NULL, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 4, wait_ms(50)));
  put(f, f->buf, w, 8); /* submit_words reused the buffer */
  b = v;
  b.flags.hardware_queue_submission = 1;
  b.hw_queue_progress_fence_id = 3;
  assert_int_equal(sgpu_validate_submit_command(f->dev, &b), SGPU_ERROR_VALIDATE_FENCE_PASSED);
  assert_non_null(strstr(sgpu_last_error(f->dev), "already passed"));
  b.hw_queue_progress_fence_id = 5;
  CHECK(sgpu_validate_submit_command(f->dev, &b));
  fixture_close(f);
}

static void test_memory(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  uint64_t a, b;
  assert_int_equal(sgpu_alloc(f->dev, 3, 16, 0, &a), SGPU_ERROR_INVALID_SEGMENT);
  assert_int_equal(sgpu_alloc(f->dev, 1, 16, 3, &a), SGPU_ERROR_INVALID_ALIGNMENT);
  assert_int_equal(sgpu_alloc(f->dev, 1, 0, 0, &a), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_alloc(f->dev, 2, (uint32_t)info.segment[2].size, 0, &a),
                   SGPU_ERROR_OUT_OF_GPU_MEMORY); /* the library's staging lives there */
  CHECK(sgpu_alloc(f->dev, 2, 100, 256, &a));
  assert_true(a >= info.segment[2].base && a % 256 == 0);
  CHECK(sgpu_alloc(f->dev, 2, 100, 256, &b));
  assert_true(b >= a + 100);
  uint8_t data[100], back[100];
  for (int i = 0; i < 100; i++) data[i] = (uint8_t)(i * 7);
  CHECK(sgpu_write(f->dev, a + 1, data, 99));
  CHECK(sgpu_read(f->dev, a + 1, back, 99));
  assert_memory_equal(data, back, 99);
  CHECK(sgpu_free(f->dev, a));
  assert_int_equal(sgpu_free(f->dev, a), SGPU_ERROR_NOT_ALLOCATED);
  sgpu_ring_info ri;
  CHECK(sgpu_get_ring_info(f->dev, 0, &ri));
  assert_int_equal(sgpu_free(f->dev, ri.base), SGPU_ERROR_NOT_ALLOCATED); /* library-owned */
  assert_int_equal(sgpu_read(f->dev, info.mem_size - 2, back, 4), SGPU_ERROR_INVALID_ADDRESS);
  assert_int_equal(sgpu_read(f->dev, SGPU_HOST_ADDRESS_BASE + 5, back, 4), SGPU_ERROR_INVALID_ADDRESS);
  uint32_t id;
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_ID, &id));
  assert_int_equal(id, SGPU_HW_MAGIC);
  assert_int_equal(sgpu_reg_read(f->dev, 2, &id), SGPU_ERROR_INVALID_ADDRESS);
  printf("FIGURE seg1_bytes %llu seg2_bytes %llu nodes %u sources %u\n",
         (unsigned long long)info.segment[1].size, (unsigned long long)info.segment[2].size,
         info.node_count, info.source_count);
  fixture_close(f);
}

static uint32_t px(const sgpu_frame *fr, uint32_t x, uint32_t y) {
  const uint8_t *p = fr->pixels + ((size_t)y * fr->width + x) * 3;
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static void test_display_flip_capture(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, TINY), 0);
  uint64_t fb0, fb1;
  CHECK(sgpu_alloc(f->dev, 1, 32 * 24 * 2, 256, &fb0));
  CHECK(sgpu_alloc(f->dev, 1, 32 * 24 * 2, 256, &fb1));
  sgpu_display_mode m;
  memset(&m, 0, sizeof m);
  m.width = 32;
  m.height = 24;
  m.format = SGPU_FORMAT_RGB565;
  m.address = (uint32_t)fb0;
  assert_int_equal(sgpu_set_display_mode(f->dev, 5, &m), SGPU_ERROR_INVALID_SOURCE);
  m.width = 30;
  assert_int_equal(sgpu_set_display_mode(f->dev, 0, &m), SGPU_ERROR_INVALID_MODE);
  m.width = 32;
  m.format = 7;
  assert_int_equal(sgpu_set_display_mode(f->dev, 0, &m), SGPU_ERROR_INVALID_MODE);
  m.format = SGPU_FORMAT_RGB565;
  m.pitch = 62;
  assert_int_equal(sgpu_set_display_mode(f->dev, 0, &m), SGPU_ERROR_INVALID_MODE);
  m.pitch = 0;
  m.address = 0x7FFFFC;
  assert_int_equal(sgpu_set_display_mode(f->dev, 0, &m), SGPU_ERROR_INVALID_ADDRESS);
  m.address = (uint32_t)fb0;
  /* Red in fb0, blue in fb1, drawn by the GPU. */
  uint32_t w[] = {H(FILL, 5, 0), (uint32_t)fb0, 64, 64, 24, 0xF800F800u,
                  H(FILL, 5, 0), (uint32_t)fb1, 64, 64, 24, 0x001F001Fu};
  CHECK(submit_words(f, 0, w, 12, 1, 0, NULL, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  CHECK(sgpu_set_display_mode(f->dev, 0, &m));
  sgpu_display_mode g;
  CHECK(sgpu_get_display_mode(f->dev, 0, &g));
  assert_int_equal(g.width, 32);
  assert_int_equal(g.height, 24);
  assert_int_equal(g.pitch, 64);
  assert_int_equal(g.replication_x, 2);
  assert_int_equal(g.enabled, 1); /* g.address switches to fb0 at the next vblank */
  sgpu_frame fr;
  CHECK(sgpu_capture_frame(f->dev, 0, &fr));
  printf("frame %ux%u #%llu scanout 0x%x px0 %06x\n", fr.width, fr.height,
         (unsigned long long)fr.frame_number, fr.scanout_address, px(&fr, 0, 0));
  assert_int_equal(fr.width, 64);
  assert_int_equal(fr.height, 48);
  assert_int_equal(fr.scanout_address, (uint32_t)fb0);
  CHECK(sgpu_get_display_mode(f->dev, 0, &g));
  assert_int_equal(g.address, (uint32_t)fb0);
  assert_true((px(&fr, 0, 0) >> 16) >= 0xF0 && (px(&fr, 63, 47) & 0xFFFF) == 0);
  char path[64];
  snprintf(path, sizeof path, "/tmp/sgpu_test_frame_%d.png", (int)getpid());
  CHECK(sgpu_write_png(&fr, path));
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  assert_true(sb.st_size > 50);
  unlink(path);
  sgpu_frame_release(&fr);
  assert_null(fr.pixels);
  /* Flip to fb1 at vsync, with vsync events on. */
  CHECK(sgpu_enable_vsync_events(f->dev, 0, 1));
  uint32_t fw[] = {H(FLIP, 3, 0), 0, (uint32_t)fb1, 1};
  CHECK(sgpu_write(f->dev, f->buf, fw, sizeof fw));
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = f->ctx0;
  a.dma_buffer_segment_id = 1;
  a.dma_buffer_physical_address = f->buf;
  a.dma_buffer_size = 16;
  a.dma_buffer_submission_end_offset = 16;
  a.submission_fence_id = 2;
  a.flags.flip = 1;
  a.flip_interval = SGPU_FLIP_INTERVAL_ONE;
  CHECK(sgpu_submit_command(f->dev, &a));
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50)));
  int vs = 0;
  sgpu_event ev;
  while (sgpu_next_event(f->dev, &ev, 2) == 0 && vs < 3)
    if (ev.type == SGPU_EVENT_CRTC_VSYNC) {
      vs++;
      assert_int_equal(ev.source_id, 0);
    }
  assert_true(vs >= 1);
  assert_int_equal(ev.scanout_address, (uint32_t)fb1);
  CHECK(sgpu_enable_vsync_events(f->dev, 0, 0));
  CHECK(sgpu_capture_frame(f->dev, 0, &fr));
  printf("after flip: scanout 0x%x px0 %06x\n", fr.scanout_address, px(&fr, 0, 0));
  assert_int_equal(fr.scanout_address, (uint32_t)fb1);
  assert_true((px(&fr, 10, 10) & 0xFF) >= 0xF0 && (px(&fr, 10, 10) >> 8) == 0);
  sgpu_frame_release(&fr);
  /* Display off: capture refuses instead of hanging. */
  sgpu_display_mode off;
  memset(&off, 0, sizeof off);
  CHECK(sgpu_set_display_mode(f->dev, 1, &off));
  assert_int_equal(sgpu_capture_frame(f->dev, 1, &fr), SGPU_ERROR_DISPLAY_DISABLED);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_work_events_private_data),
      cmocka_unit_test(test_staging),
      cmocka_unit_test(test_null_rendering_paging_context_switch),
      cmocka_unit_test(test_fence_64bit),
      cmocka_unit_test(test_ring_wrap_and_context_changes),
      cmocka_unit_test(test_fault_then_reset),
      cmocka_unit_test(test_watchdog_timeout),
      cmocka_unit_test(test_wait_timeout_deterministic),
      cmocka_unit_test(test_validate),
      cmocka_unit_test(test_memory),
      cmocka_unit_test(test_display_flip_capture),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
