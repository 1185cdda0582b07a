/* test_time_slice.c — time slices between contexts of equal priority
 * (sgpu_set_time_slice, CAPS.TIME_SLICE): with a quantum, a node's NORMAL
 * contexts are spread over its two normal rings (odd context ids on ring A,
 * even ids on ring B), which take turns, so a small FILL of one context
 * completes while a big FILL of another is still running, without changing
 * a word of what either writes; with quantum 0 they run in submission
 * order.  Fence ids stay one sequence per node over its three rings;
 * preemption and engine reset act on all three, the innocent work going
 * back exactly once on its own ring.  On a device without CAPS.TIME_SLICE
 * sgpu_set_time_slice is refused and the tests check that instead. */
#include "host_test.h"

#define QUANTUM 2000u

static int has_time_slice(fixture *f) {
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  uint32_t caps = 0;
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_CAPS, &caps));
  assert_int_equal(info.has_time_slice, SGPU_FIELD_GET(CAPS_TIME_SLICE, caps));
  if (info.has_time_slice) assert_true(info.has_priority); /* TIME_SLICE implies PRIORITY */
  return (int)info.has_time_slice;
}

static uint32_t node_count(fixture *f) {
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  return info.node_count;
}

/* A NORMAL context on node 0 with an odd id (ring A with time slices) or an
 * even one (ring B): contexts are made until one has the id wanted. */
static sgpu_context *context_with_parity(fixture *f, int odd) {
  sgpu_context *spare[4] = {NULL, NULL, NULL, NULL}, *c = NULL;
  for (int i = 0; i < 4; i++) {
    CHECK(sgpu_create_context(f->dev, 0, &c));
    if ((sgpu_context_id(c) & 1u) == (odd ? 1u : 0u)) break;
    spare[i] = c;
    c = NULL;
  }
  for (int i = 0; i < 4; i++) sgpu_destroy_context(spare[i]);
  assert_non_null(c);
  return c;
}

/* QUANTUM of node 0's two normal rings (blocks 0 and 2 x nodes) is q. */
static void expect_quantum_registers(fixture *f, uint32_t q) {
  uint32_t a = 1, b = 1;
  CHECK(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_QUANTUM), &a));
  CHECK(sgpu_reg_read(f->dev, SGPU_NODE_REG(2 * node_count(f), SGPU_NREG_QUANTUM), &b));
  assert_int_equal(a, q);
  assert_int_equal(b, q);
}

/* Context X (odd id) submits a 640x480 32-bpp FILL (fence base + 1),
 * context Y (even id) then a small FILL (base + 2), both NORMAL on node 0,
 * with the node's quantum q.  Returns 1 when Y's fence was done while X's
 * was not, and checks every word of both targets against a memset oracle;
 * the order of their events in order[] (1: X's, 2: Y's). */
static int fill_pair(fixture *f, uint32_t q, uint32_t base, uint32_t order[2]) {
  sgpu_context *x = context_with_parity(f, 1), *y = context_with_parity(f, 0);
  assert_int_equal(sgpu_context_id(x) & 1u, 1);
  assert_int_equal(sgpu_context_id(y) & 1u, 0);
  assert_int_equal(sgpu_time_slice(f->dev, 0), q);
  uint32_t fence[2], ring[2];
  int overtook = overtake_fill(f, x, y, 5000, base, fence, ring);
  assert_int_equal(ring[0], SGPU_PRIORITY_NORMAL); /* both normal rings say NORMAL */
  assert_int_equal(ring[1], SGPU_PRIORITY_NORMAL);
  order[0] = fence[0] - base;
  order[1] = fence[1] - base;
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.completed, base + 2);
  assert_int_equal(fi.pending, 0);
  sgpu_destroy_context(x);
  sgpu_destroy_context(y);
  return overtook;
}

/* The must-hold: with a quantum the small FILL of the even-id context
 * completes while the odd-id context's big FILL is still pending, and
 * every word of both is what it would have been alone. */
static void test_time_slice_overtakes_fill(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_set_time_slice");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim"), 0);
  if (!has_time_slice(f)) {
    assert_int_equal(sgpu_set_time_slice(f->dev, 0, QUANTUM), SGPU_ERROR_NOT_SUPPORTED);
    fixture_close(f);
    skip();
  }
  CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
  expect_quantum_registers(f, QUANTUM);
  uint32_t order[2];
  int overtook = fill_pair(f, QUANTUM, 0, order);
  if (!test_link_uri()) {
    /* On a link the server runs on while the library looks, so the big
     * FILL may be done too by then: only the oracles are certain there. */
    assert_true(overtook);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 1);
  }
  fixture_close(f);
}

/* Quantum 0 (the default after open, and set again): the same pair runs in
 * submission order on ring A. */
static void test_time_slice_off_in_order(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_set_time_slice");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim"), 0);
  int ts = has_time_slice(f);
  assert_int_equal(sgpu_time_slice(f->dev, 0), 0);
  if (ts) expect_quantum_registers(f, 0);
  uint32_t order[2];
  assert_false(fill_pair(f, 0, 0, order));
  assert_int_equal(order[0], 1);
  assert_int_equal(order[1], 2);
  if (ts) { /* on, then off again: in order again */
    CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
    CHECK(sgpu_set_time_slice(f->dev, 0, 0));
    expect_quantum_registers(f, 0);
    assert_false(fill_pair(f, 0, 2, order));
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 2);
  }
  fixture_close(f);
}

/* Bad node, too big a quantum, no CAPS.TIME_SLICE, sgpud; BUSY while work
 * is pending and slicing would be turned on or off. */
static void test_time_slice_refusals(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  assert_int_equal(sgpu_set_time_slice(NULL, 0, 1), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_time_slice(NULL, 0), 0);
  assert_int_equal(sgpu_time_slice(f->dev, 99), 0);
  if (test_shared_device()) {
    assert_int_equal(sgpu_set_time_slice(f->dev, 0, QUANTUM), SGPU_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(sgpu_last_error(f->dev), "sgpu_set_time_slice is refused through sgpud"));
    assert_null(strchr(sgpu_last_error(f->dev), '\n'));
    fixture_close(f);
    return;
  }
  assert_int_equal(sgpu_set_time_slice(f->dev, 99, QUANTUM), SGPU_ERROR_INVALID_NODE);
  assert_non_null(strstr(sgpu_last_error(f->dev), "node 99"));
  assert_int_equal(sgpu_set_time_slice(f->dev, 0, 0x1000000u), SGPU_ERROR_INVALID_PARAM);
  assert_non_null(strstr(sgpu_last_error(f->dev), "16777216"));
  assert_non_null(strstr(sgpu_last_error(f->dev), "0xFFFFFF"));
  assert_null(strchr(sgpu_last_error(f->dev), '\n'));
  if (!has_time_slice(f)) {
    assert_int_equal(sgpu_set_time_slice(f->dev, 0, QUANTUM), SGPU_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(sgpu_last_error(f->dev), "one normal ring per node"));
    assert_int_equal(sgpu_time_slice(f->dev, 0), 0);
    fixture_close(f);
    return;
  }
  CHECK(sgpu_set_time_slice(f->dev, 0, 0xFFFFFFu)); /* the limit itself */
  assert_int_equal(sgpu_time_slice(f->dev, 0), 0xFFFFFFu);
  expect_quantum_registers(f, 0xFFFFFFu);
  CHECK(sgpu_set_time_slice(f->dev, 0, 0));
  /* work held on ring A (a WAIT_MEM until flag is 1) */
  uint32_t flag = (uint32_t)f->tgt + 2048;
  wr(f, flag, 0);
  uint32_t m[16];
  sgpu_cmdbuf held;
  sgpu_cmdbuf_init(&held, m, sizeof m);
  CHECK(sgpu_cmd_wait_mem(&held, flag, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  CHECK(submit_at(f, f->ctx0, f->buf, &held, 1, 0));
  assert_int_equal(sgpu_set_time_slice(f->dev, 0, QUANTUM), SGPU_ERROR_BUSY);
  assert_non_null(strstr(sgpu_last_error(f->dev), "node 0 has unfinished work"));
  assert_null(strchr(sgpu_last_error(f->dev), '\n'));
  assert_int_equal(sgpu_time_slice(f->dev, 0), 0);
  CHECK(sgpu_set_time_slice(f->dev, 1, QUANTUM)); /* another node: its own */
  assert_int_equal(sgpu_time_slice(f->dev, 1), QUANTUM);
  wr(f, flag, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
  /* with slicing on: a new quantum moves nobody and is taken with work
   * pending; turning it off is refused then */
  wr(f, flag, 0);
  CHECK(submit_at(f, f->ctx0, f->buf, &held, 2, 0));
  CHECK(sgpu_set_time_slice(f->dev, 0, 3 * QUANTUM));
  expect_quantum_registers(f, 3 * QUANTUM);
  assert_int_equal(sgpu_set_time_slice(f->dev, 0, 0), SGPU_ERROR_BUSY);
  assert_int_equal(sgpu_time_slice(f->dev, 0), 3 * QUANTUM);
  wr(f, flag, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50)));
  CHECK(sgpu_set_time_slice(f->dev, 0, 0));
  fixture_close(f);
}

/* Fence ids across three rings: A and B held in WAIT_MEMs, the high ring's
 * done at once; each id waited for on its own ring; sgpu_get_fence's
 * completed is just below the oldest unfinished one. */
static void test_time_slice_fences(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_set_time_slice");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  if (!has_time_slice(f)) {
    fixture_close(f);
    skip();
  }
  CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
  sgpu_context *b = context_with_parity(f, 0), *hi = high_context(f);
  uint32_t flag_a = (uint32_t)f->tgt + 2048, flag_b = flag_a + 4;
  wr(f, flag_a, 0);
  wr(f, flag_b, 0);
  uint32_t ma[16], mb[16], mh[16];
  sgpu_cmdbuf ca, cb, ch;
  sgpu_cmdbuf_init(&ca, ma, sizeof ma);
  sgpu_cmdbuf_init(&cb, mb, sizeof mb);
  sgpu_cmdbuf_init(&ch, mh, sizeof mh);
  CHECK(sgpu_cmd_wait_mem(&ca, flag_a, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  CHECK(sgpu_cmd_write_data(&ca, (uint32_t)f->tgt, (uint32_t[]){0xA}, 1));
  CHECK(sgpu_cmd_wait_mem(&cb, flag_b, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  CHECK(sgpu_cmd_write_data(&cb, (uint32_t)f->tgt + 4, (uint32_t[]){0xB}, 1));
  CHECK(sgpu_cmd_write_data(&ch, (uint32_t)f->tgt + 8, (uint32_t[]){0xC}, 1));
  CHECK(submit_at(f, f->ctx0, f->buf, &ca, 10, 0));
  /* the node's one sequence: ring B may not go back below 10 */
  assert_int_equal(submit_at(f, b, f->buf + 256, &cb, 10, 0), SGPU_ERROR_SUBMIT_FENCE_ORDER);
  CHECK(submit_at(f, b, f->buf + 256, &cb, 11, 0));
  CHECK(submit_at(f, hi, f->buf + 512, &ch, 13, 0));
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 14, 0), SGPU_ERROR_FENCE_NOT_SUBMITTED);
  CHECK(sgpu_wait_fence(f->dev, 0, 13, wait_ms(50)));
  assert_int_equal(rd(f, f->tgt + 8), 0xC);
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 10, 0), SGPU_ERROR_TIMEOUT);
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 11, 0), SGPU_ERROR_TIMEOUT);
  CHECK(sgpu_wait_fence(f->dev, 0, 12, 0)); /* no submission carried it: the high ring passed it */
  /* B's context may not move to ring A with its work pending */
  assert_int_equal(sgpu_set_context_priority(b, SGPU_PRIORITY_HIGH), SGPU_ERROR_BUSY);
  assert_non_null(strstr(sgpu_last_error(f->dev), "second normal ring"));
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.submitted, 13);
  assert_int_equal(fi.completed, 9);
  assert_int_equal(fi.pending, 2);
  wr(f, flag_b, 1); /* ring B's first: 11 done, 10 not */
  CHECK(sgpu_wait_fence(f->dev, 0, 11, wait_ms(50)));
  assert_int_equal(rd(f, f->tgt + 4), 0xB);
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 10, 0), SGPU_ERROR_TIMEOUT);
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.completed, 9);
  assert_int_equal(fi.pending, 1);
  wr(f, flag_a, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 10, wait_ms(50)));
  assert_int_equal(rd(f, f->tgt), 0xA);
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.completed, 13);
  assert_int_equal(fi.pending, 0);
  uint32_t fence[8], ring[8];
  int n = completed_events(f, fence, ring, 8);
  assert_int_equal(n, 3);
  assert_int_equal(fence[0], 13);
  assert_int_equal(ring[0], SGPU_PRIORITY_HIGH);
  assert_int_equal(fence[1], 11);
  assert_int_equal(ring[1], SGPU_PRIORITY_NORMAL);
  assert_int_equal(fence[2], 10);
  assert_int_equal(ring[2], SGPU_PRIORITY_NORMAL);
  sgpu_destroy_context(b);
  sgpu_destroy_context(hi);
  fixture_close(f);
}

/* Work on rings A, B and H, each stopped in a WAIT_MEM: sgpu_preempt stops
 * all three, each is sent again on its own ring and runs on from where it
 * stopped, every marker once. */
static void test_time_slice_preempt_three_rings(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_preempt nor sgpu_set_time_slice");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  if (!info.has_preemption || !has_time_slice(f)) {
    fixture_close(f);
    skip();
  }
  CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
  sgpu_context *b = context_with_parity(f, 0), *hi = high_context(f);
  reset_markers(f, 6);
  uint32_t flag = (uint32_t)f->tgt + 2048; /* flag + 4 x ring */
  uint32_t m[3][64];
  sgpu_cmdbuf cmd[3];
  sgpu_context *ctx[3] = {f->ctx0, b, hi};
  for (uint32_t i = 0; i < 3; i++) {
    wr(f, flag + 4 * i, 0);
    sgpu_cmdbuf_init(&cmd[i], m[i], sizeof m[i]);
    marker(f, &cmd[i], 2 * i);
    CHECK(sgpu_cmd_wait_mem(&cmd[i], flag + 4 * i, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
    marker(f, &cmd[i], 2 * i + 1);
  }
  for (uint32_t i = 0; i < 3; i++) {
    CHECK(submit_at(f, ctx[i], f->buf + 1024 * i, &cmd[i], i + 1, 0));
    run_chip(f, 3 * QUANTUM); /* each reaches its WAIT */
  }
  CHECK(sgpu_preempt(f->dev, 0, 77));
  sgpu_event ev;
  uint32_t events = 0, normal = 0, high = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0) {
    if (ev.type != SGPU_EVENT_DMA_PREEMPTED) continue;
    events++;
    assert_int_equal(ev.fence_id, 77);
    assert_int_equal(ev.preempted_count, 1);
    if (ev.priority == SGPU_PRIORITY_HIGH) high++;
    else normal++;
  }
  assert_int_equal(events, 3); /* one per ring */
  assert_int_equal(normal, 2);
  assert_int_equal(high, 1);
  for (uint32_t i = 0; i < 3; i++) assert_int_equal(sgpu_wait_fence(f->dev, 0, i + 1, 0), SGPU_ERROR_PREEMPTED);
  /* ring B's preempted work does not match ring A's context */
  assert_int_equal(submit_at(f, f->ctx0, f->buf + 1024, &cmd[1], 2, SGPU_SUBMIT_RESUBMISSION),
                   SGPU_ERROR_NOT_PREEMPTED);
  for (uint32_t i = 3; i-- > 0;)
    CHECK(submit_at(f, ctx[i], f->buf + 1024 * i, &cmd[i], i + 1, SGPU_SUBMIT_RESUBMISSION));
  for (uint32_t i = 0; i < 3; i++) assert_int_equal(rd(f, dst_of(f, 2 * i + 1)), 0);
  for (uint32_t i = 0; i < 3; i++) wr(f, flag + 4 * i, 1);
  for (uint32_t i = 0; i < 3; i++) CHECK(sgpu_wait_fence(f->dev, 0, i + 1, wait_ms(50)));
  expect_once(f, 6);
  sgpu_destroy_context(b);
  sgpu_destroy_context(hi);
  fixture_close(f);
}

/* An engine reset with work on rings H, A and B: the high ring's hung
 * submission is guilty (dropped); the normal rings' (held behind it, not
 * started) go back exactly once, each on its own ring.  The quantum
 * survives the reset. */
static void test_time_slice_reset_three_rings(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  if (!has_time_slice(f)) {
    fixture_close(f);
    skip();
  }
  CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
  sgpu_context *b = context_with_parity(f, 0), *hi = high_context(f);
  reset_markers(f, 3);
  uint32_t never = (uint32_t)f->tgt + 2048;
  wr(f, never, 0);
  uint32_t m1[64], m2[64], m3[64];
  sgpu_cmdbuf hang, ca, cb;
  sgpu_cmdbuf_init(&hang, m1, sizeof m1);
  sgpu_cmdbuf_init(&ca, m2, sizeof m2);
  sgpu_cmdbuf_init(&cb, m3, sizeof m3);
  marker(f, &hang, 0);
  CHECK(sgpu_cmd_wait_mem(&hang, never, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  marker(f, &ca, 1);
  marker(f, &cb, 2);
  CHECK(submit_at(f, hi, f->buf, &hang, 1, 0));
  run_chip(f, 2000); /* the high one waits */
  CHECK(submit_at(f, f->ctx0, f->buf + 1024, &ca, 2, 0));
  CHECK(submit_at(f, b, f->buf + 2048, &cb, 3, 0));
  run_chip(f, 2000);
  assert_int_equal(rd(f, dst_of(f, 1)), 0); /* held behind the high ring */
  assert_int_equal(rd(f, dst_of(f, 2)), 0);
  uint32_t aborted = 0;
  int put_back = sgpu_reset_engine(f->dev, 0, &aborted);
  assert_int_equal(put_back, 2);
  assert_int_equal(aborted, 1);
  expect_quantum_registers(f, QUANTUM);
  CHECK(sgpu_wait_fence(f->dev, 0, 3, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50))); /* dropped: its fence passes */
  assert_int_equal(rd(f, dst_of(f, 0)), 0x1000); /* ran once, before the reset */
  expect_once(f, 3);
  sgpu_event ev;
  int dropped = 0, resets = 0, completed = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0) {
    if (ev.type == SGPU_EVENT_DMA_DROPPED) {
      dropped++;
      assert_int_equal(ev.fence_id, 1);
      assert_int_equal(ev.priority, SGPU_PRIORITY_HIGH);
    } else if (ev.type == SGPU_EVENT_ENGINE_RESET) {
      resets++;
      assert_int_equal(ev.context_id, sgpu_context_id(hi));
      assert_int_equal(ev.resubmitted, 2);
    } else if (ev.type == SGPU_EVENT_DMA_COMPLETED) {
      completed++;
      assert_int_equal(ev.priority, SGPU_PRIORITY_NORMAL);
      assert_true(ev.flags & SGPU_SUBMIT_RESUBMISSION);
    }
  }
  assert_int_equal(dropped, 1);
  assert_int_equal(resets, 1);
  assert_int_equal(completed, 2);
  assert_int_equal(sgpu_context_guilty_count(hi), 1);
  assert_int_equal(sgpu_context_guilty_count(b), 0);
  assert_int_equal(sgpu_context_guilty_count(f->ctx0), 0);
  sgpu_destroy_context(b);
  sgpu_destroy_context(hi);
  fixture_close(f);
}

/* A hang on ring B no longer blocks ring A: with a quantum, A's work runs
 * in B's turns' gaps and completes; the reset then finds B's context guilty
 * and has nothing to put back. */
static void test_time_slice_hang_on_b(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  if (!has_time_slice(f)) {
    fixture_close(f);
    skip();
  }
  CHECK(sgpu_set_time_slice(f->dev, 0, QUANTUM));
  sgpu_context *b = context_with_parity(f, 0);
  reset_markers(f, 2);
  uint32_t never = (uint32_t)f->tgt + 2048;
  wr(f, never, 0);
  uint32_t m1[64], m2[64];
  sgpu_cmdbuf hang, ca;
  sgpu_cmdbuf_init(&hang, m1, sizeof m1);
  sgpu_cmdbuf_init(&ca, m2, sizeof m2);
  marker(f, &hang, 0);
  CHECK(sgpu_cmd_wait_mem(&hang, never, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  marker(f, &ca, 1);
  CHECK(submit_at(f, b, f->buf, &hang, 1, 0));
  run_chip(f, 2000); /* B waits */
  CHECK(submit_at(f, f->ctx0, f->buf + 1024, &ca, 2, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50))); /* A's turn came */
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 1, 0), SGPU_ERROR_TIMEOUT);
  uint32_t aborted = 0;
  assert_int_equal(sgpu_reset_engine(f->dev, 0, &aborted), 0);
  assert_int_equal(aborted, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  expect_once(f, 2);
  assert_int_equal(sgpu_context_guilty_count(b), 1);
  assert_int_equal(sgpu_context_guilty_count(f->ctx0), 0);
  sgpu_destroy_context(b);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_time_slice_refusals),
      cmocka_unit_test(test_time_slice_overtakes_fill),
      cmocka_unit_test(test_time_slice_off_in_order),
      cmocka_unit_test(test_time_slice_fences),
      cmocka_unit_test(test_time_slice_preempt_three_rings),
      cmocka_unit_test(test_time_slice_reset_three_rings),
      cmocka_unit_test(test_time_slice_hang_on_b),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
