/* test_priority.c — context priority (sgpu_set_context_priority): a HIGH
 * context's work overtakes a NORMAL one's on the same node (the node's
 * high-priority ring, CAPS.PRIORITY) without changing a word of what either
 * writes; fence ids stay one sequence per node, each waited for on its own
 * ring; events name their ring; preemption and engine reset act on both
 * rings, the innocent work going back exactly once on its own ring.  On a
 * device without CAPS.PRIORITY the same steps run in order on the normal
 * ring, and each test checks that instead. */
#include "host_test.h"

static int has_priority(fixture *f) {
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  uint32_t caps = 0;
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_CAPS, &caps));
  assert_int_equal(info.has_priority, SGPU_FIELD_GET(CAPS_PRIORITY, caps));
  return (int)info.has_priority;
}

/* Bad values and handles; the default; sgpud refuses it. */
static void test_priority_refusals(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim"), 0);
  assert_int_equal(sgpu_context_priority(f->ctx0), SGPU_PRIORITY_NORMAL);
  assert_int_equal(sgpu_set_context_priority(f->ctx0, 2), SGPU_ERROR_INVALID_PARAM);
  assert_non_null(strstr(sgpu_last_error(f->dev), "priority 2"));
  assert_int_equal(sgpu_set_context_priority(f->ctx0, 0xFFFFFFFFu), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_set_context_priority(NULL, SGPU_PRIORITY_HIGH), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_context_priority(f->ctx0), SGPU_PRIORITY_NORMAL);
  if (test_shared_device()) {
    assert_int_equal(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_HIGH), SGPU_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(sgpu_last_error(f->dev), "sgpu_set_context_priority"));
    CHECK(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_NORMAL)); /* what it is already */
    assert_int_equal(sgpu_context_priority(f->ctx0), SGPU_PRIORITY_NORMAL);
  } else {
    CHECK(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_HIGH));
    CHECK(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_NORMAL));
  }
  (void)has_priority(f);
  fixture_close(f);
}

/* The must-hold: a 640x480 32-bpp FILL from a NORMAL context, then a HIGH
 * context's small FILL behind it on the same node.  The high one completes
 * first (its fence done while the FILL's is not, and in the events), and
 * every word of both is what it would have been alone. */
static void test_priority_overtakes_fill(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_set_context_priority");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim"), 0);
  int prio = has_priority(f);
  sgpu_context *hi = high_context(f);
  /* well into the FILL: the high one makes it hold between two chunks */
  uint32_t fence[2], ring[2];
  int fill_pending = overtake_fill(f, f->ctx0, hi, 20000, 0, fence, ring);
  if (prio && test_link_uri()) {
    /* On a link the server runs on while the library looks, so the big
     * FILL may be done too by then: only each event's ring is certain. */
    assert_int_equal(ring[fence[0] == 2 ? 0 : 1], SGPU_PRIORITY_HIGH);
    assert_int_equal(ring[fence[0] == 2 ? 1 : 0], SGPU_PRIORITY_NORMAL);
  } else if (prio) {
    assert_true(fill_pending); /* the high FILL's fence done, the big one's not */
    assert_int_equal(fence[0], 2);
    assert_int_equal(ring[0], SGPU_PRIORITY_HIGH);
    assert_int_equal(fence[1], 1);
    assert_int_equal(ring[1], SGPU_PRIORITY_NORMAL);
  } else { /* one ring: in order */
    assert_false(fill_pending);
    assert_int_equal(fence[0], 1);
    assert_int_equal(fence[1], 2);
    assert_int_equal(ring[0], SGPU_PRIORITY_NORMAL);
    assert_int_equal(ring[1], SGPU_PRIORITY_NORMAL);
  }
  sgpu_destroy_context(hi);
  fixture_close(f);
}

/* Fence ids: one sequence per node over both rings; a high fence waited on
 * while a lower normal one is held completes on its own; each id waited
 * for; a change of ring with work pending refused. */
static void test_priority_fences(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_set_context_priority");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  int prio = has_priority(f);
  sgpu_context *hi = high_context(f);
  uint32_t flag = (uint32_t)f->tgt + 2048;
  wr(f, flag, 0);
  uint32_t m1[16], m2[16];
  sgpu_cmdbuf held, quick;
  sgpu_cmdbuf_init(&held, m1, sizeof m1);
  sgpu_cmdbuf_init(&quick, m2, sizeof m2);
  CHECK(sgpu_cmd_wait_mem(&held, flag, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  CHECK(sgpu_cmd_write_data(&held, (uint32_t)f->tgt, (uint32_t[]){0x11}, 1));
  CHECK(sgpu_cmd_write_data(&quick, (uint32_t)f->tgt + 4, (uint32_t[]){0x22}, 1));
  CHECK(submit_at(f, f->ctx0, f->buf, &held, 10, 0));
  /* the node's sequence: the high ring may not go back below 10 */
  assert_int_equal(submit_at(f, hi, f->buf + 256, &quick, 10, 0), SGPU_ERROR_SUBMIT_FENCE_ORDER);
  CHECK(submit_at(f, hi, f->buf + 256, &quick, 12, 0));
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 13, 0), SGPU_ERROR_FENCE_NOT_SUBMITTED);
  if (prio) {
    CHECK(sgpu_wait_fence(f->dev, 0, 12, wait_ms(50)));
    assert_int_equal(rd(f, f->tgt + 4), 0x22);
    assert_int_equal(sgpu_wait_fence(f->dev, 0, 10, 0), SGPU_ERROR_TIMEOUT);
    assert_int_equal(rd(f, f->tgt), 0);
    /* the held normal context may not move to the high ring: its work would overtake itself */
    assert_int_equal(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_HIGH), SGPU_ERROR_BUSY);
    assert_int_equal(sgpu_context_priority(f->ctx0), SGPU_PRIORITY_NORMAL);
    /* 11 went to no submission: the high ring has passed it (its fence word is 12) */
    CHECK(sgpu_wait_fence(f->dev, 0, 11, 0));
  } else {
    /* one ring, in order: 12 waits behind 10 */
    assert_int_equal(sgpu_wait_fence(f->dev, 0, 12, 1), SGPU_ERROR_TIMEOUT);
    CHECK(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_HIGH)); /* the same ring */
    CHECK(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_NORMAL));
  }
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.submitted, 12);
  assert_true(fi.completed < 10);
  wr(f, flag, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 10, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 0, 11, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 0, 12, wait_ms(50)));
  assert_int_equal(rd(f, f->tgt), 0x11);
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.completed, 12);
  assert_int_equal(fi.pending, 0);
  uint32_t fence[8], ring[8];
  int n = completed_events(f, fence, ring, 8);
  assert_int_equal(n, 2);
  if (prio) {
    assert_int_equal(fence[0], 12);
    assert_int_equal(ring[0], SGPU_PRIORITY_HIGH);
    assert_int_equal(fence[1], 10);
    assert_int_equal(ring[1], SGPU_PRIORITY_NORMAL);
  } else {
    assert_int_equal(fence[0], 10);
    assert_int_equal(fence[1], 12);
  }
  /* idle now: the context may change ring */
  CHECK(sgpu_set_context_priority(f->ctx0, SGPU_PRIORITY_HIGH));
  CHECK(submit_at(f, f->ctx0, f->buf + 512, &quick, 13, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 13, wait_ms(50)));
  n = completed_events(f, fence, ring, 8);
  assert_int_equal(n, 1);
  assert_int_equal(ring[0], prio ? SGPU_PRIORITY_HIGH : SGPU_PRIORITY_NORMAL);
  sgpu_destroy_context(hi);
  fixture_close(f);
}

/* Once markers: copy src (0x1000 + i) to dst, then overwrite src, so a
 * second run leaves 0xDEAD in dst and none leaves 0. */
/* Work on both rings, each stopped in a WAIT_MEM: sgpu_preempt stops both,
 * each is sent again on its own ring and runs on from where it stopped. */
static void test_priority_preempt_both_rings(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("sgpud does not carry sgpu_preempt nor sgpu_set_context_priority");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  if (!info.has_preemption) {
    fixture_close(f);
    skip();
  }
  int prio = has_priority(f);
  sgpu_context *hi = high_context(f);
  reset_markers(f, 4);
  uint32_t flag_n = (uint32_t)f->tgt + 2048, flag_h = flag_n + 4;
  wr(f, flag_n, 0);
  wr(f, flag_h, 0);
  uint32_t m1[64], m2[64];
  sgpu_cmdbuf cn, ch;
  sgpu_cmdbuf_init(&cn, m1, sizeof m1);
  sgpu_cmdbuf_init(&ch, m2, sizeof m2);
  marker(f, &cn, 0);
  CHECK(sgpu_cmd_wait_mem(&cn, flag_n, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  marker(f, &cn, 1);
  marker(f, &ch, 2);
  CHECK(sgpu_cmd_wait_mem(&ch, flag_h, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  marker(f, &ch, 3);
  CHECK(submit_at(f, f->ctx0, f->buf, &cn, 1, 0));
  run_chip(f, 3000); /* the normal one reaches its WAIT */
  CHECK(submit_at(f, hi, f->buf + 1024, &ch, 2, 0));
  run_chip(f, 3000);
  CHECK(sgpu_preempt(f->dev, 0, 77));
  sgpu_event ev;
  uint32_t preempted_normal = 0, preempted_high = 0, events = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0) {
    if (ev.type != SGPU_EVENT_DMA_PREEMPTED) continue;
    events++;
    assert_int_equal(ev.fence_id, 77);
    if (ev.priority == SGPU_PRIORITY_HIGH) preempted_high += ev.preempted_count;
    else preempted_normal += ev.preempted_count;
  }
  if (prio) {
    assert_int_equal(events, 2);
    assert_int_equal(preempted_normal, 1);
    assert_int_equal(preempted_high, 1);
  } else {
    assert_int_equal(events, 1);
    assert_int_equal(preempted_normal, 2);
  }
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 2, 0), SGPU_ERROR_PREEMPTED);
  /* sent again: each on its ring (without priority rings, in order) */
  CHECK(submit_at(f, f->ctx0, f->buf, &cn, 1, SGPU_SUBMIT_RESUBMISSION));
  CHECK(submit_at(f, hi, f->buf + 1024, &ch, 2, SGPU_SUBMIT_RESUBMISSION));
  wr(f, flag_h, 1);
  wr(f, flag_n, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  expect_once(f, 4);
  sgpu_destroy_context(hi);
  fixture_close(f);
}

/* An engine reset with work on both rings: the high ring's hung submission
 * is guilty (dropped), the normal ring's (held behind it, not started) go
 * back exactly once on their ring. */
static void test_priority_reset_both_rings(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  int prio = has_priority(f);
  sgpu_context *hi = high_context(f);
  reset_markers(f, 3);
  uint32_t never = (uint32_t)f->tgt + 2048;
  wr(f, never, 0);
  uint32_t m1[64], m2[64], m3[64];
  sgpu_cmdbuf hang, a, c;
  sgpu_cmdbuf_init(&hang, m1, sizeof m1);
  sgpu_cmdbuf_init(&a, m2, sizeof m2);
  sgpu_cmdbuf_init(&c, m3, sizeof m3);
  marker(f, &hang, 0);
  CHECK(sgpu_cmd_wait_mem(&hang, never, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ));
  marker(f, &a, 1);
  marker(f, &c, 2);
  CHECK(submit_at(f, hi, f->buf, &hang, 1, 0));
  run_chip(f, 2000); /* the high one waits */
  CHECK(submit_at(f, f->ctx0, f->buf + 1024, &a, 2, 0));
  CHECK(submit_at(f, f->ctx0, f->buf + 2048, &c, 3, 0));
  run_chip(f, 2000);
  assert_int_equal(rd(f, dst_of(f, 1)), 0); /* held (or behind, in order) */
  uint32_t aborted = 0;
  int put_back = sgpu_reset_engine(f->dev, 0, &aborted);
  assert_int_equal(put_back, 2);
  assert_int_equal(aborted, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 3, wait_ms(50)));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50))); /* dropped: its fence passes */
  assert_int_equal(rd(f, dst_of(f, 0)), 0x1000); /* ran once, before the reset */
  expect_once(f, 3);
  sgpu_event ev;
  int dropped = 0, resets = 0, completed = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0) {
    if (ev.type == SGPU_EVENT_DMA_DROPPED) {
      dropped++;
      assert_int_equal(ev.fence_id, 1);
      assert_int_equal(ev.priority, prio ? SGPU_PRIORITY_HIGH : SGPU_PRIORITY_NORMAL);
    } else if (ev.type == SGPU_EVENT_ENGINE_RESET) {
      resets++;
      assert_int_equal(ev.context_id, sgpu_context_id(hi));
      assert_int_equal(ev.resubmitted, 2);
      assert_int_equal(ev.priority, prio ? SGPU_PRIORITY_HIGH : SGPU_PRIORITY_NORMAL);
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
  assert_int_equal(sgpu_context_guilty_count(f->ctx0), 0);
  sgpu_destroy_context(hi);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_priority_refusals),
      cmocka_unit_test(test_priority_overtakes_fill),
      cmocka_unit_test(test_priority_fences),
      cmocka_unit_test(test_priority_preempt_both_rings),
      cmocka_unit_test(test_priority_reset_both_rings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
