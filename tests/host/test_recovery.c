/* test_recovery.c — timeout detection and recovery against the RTL model:
 * two engines progress together; a hung submission (WAIT_MEM on a value
 * never written) is caught by the watchdog and its engine reset; the
 * innocent submissions of other contexts queued behind it run, each exactly
 * once, without the caller resubmitting; the guilty context's queued work is
 * dropped; after the ban threshold its context is banned while others go on. */
#include "host_test.h"

#define WATCHDOG_CYCLES 5000u
#define WATCHDOG_URI "sim:video=tiny,watchdog=5000"

/* On a link the chip runs on while the test queues work, so a 5,000-cycle
 * watchdog may fire before the work meant to sit behind the hang is queued
 * (the submission is then refused: the node is stopped on a fault).  There
 * the device opens with the watchdog off and the test arms node 0's once
 * everything is queued; an engine reset turns it off again. */
static const char *watchdog_uri(void) {
  return test_link_uri() ? "sim:video=tiny,watchdog=0" : WATCHDOG_URI;
}
static void arm_watchdog(fixture *f) {
  if (test_link_uri()) CHECK(sgpu_reg_write(f->dev, SGPU_NODE_REG(0, SGPU_NREG_WATCHDOG), WATCHDOG_CYCLES));
}

/* Each submission gets its own 256-byte slot of f->buf. */
static int submit_cb(fixture *f, sgpu_context *ctx, uint32_t slot, const sgpu_cmdbuf *cb,
                     uint32_t fence) {
  return submit_at(f, ctx, f->buf + slot * 256u, cb, fence, 0);
}

/* A submission whose effect shows how often it ran: it copies the word at
 * `src` to `dst`, then writes `next` to `src`.  Once: dst = old src;
 * twice: dst = next. */
static void build_once_marker(sgpu_cmdbuf *cb, uint32_t *mem, uint32_t bytes, uint32_t src,
                              uint32_t dst, uint32_t next) {
  sgpu_cmdbuf_init(cb, mem, bytes);
  sgpu_cmd_copy(cb, dst, 4, src, 4, 4, 1);
  sgpu_cmd_write_data(cb, src, &next, 1);
}

static void build_hang(sgpu_cmdbuf *cb, uint32_t *mem, uint32_t bytes, uint32_t flag) {
  sgpu_cmdbuf_init(cb, mem, bytes);
  sgpu_cmd_wait_mem(cb, flag, 0xFFFFFFFFu, 0x600DF00Du, SGPU_WAIT_FUNC_EQ); /* never written */
}

/* Events until the queue is empty, counted by type and fence (fences < 16). */
typedef struct seen {
  uint32_t completed[16], dropped[16], resets;
  uint32_t completed_flags[16];
  sgpu_event reset;
} seen;

static void drain(fixture *f, seen *s) {
  sgpu_event ev;
  while (sgpu_next_event(f->dev, &ev, 0) == 0) {
    if (ev.type == SGPU_EVENT_DMA_COMPLETED && ev.fence_id < 16) {
      s->completed[ev.fence_id]++;
      s->completed_flags[ev.fence_id] = ev.flags;
    } else if (ev.type == SGPU_EVENT_DMA_DROPPED && ev.fence_id < 16) {
      s->dropped[ev.fence_id]++;
    } else if (ev.type == SGPU_EVENT_ENGINE_RESET) {
      s->resets++;
      s->reset = ev;
    }
  }
}

/* A copy engine's fences arrive while a long job on the other node waits. */
static void test_two_engines_progress_together(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint32_t flag = (uint32_t)f->tgt, mem[64];
  wr(f, flag, 0);
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_wait_mem(&cb, flag, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  sgpu_cmd_write_data(&cb, flag + 4, (uint32_t[]){0x6A}, 1);
  CHECK(submit_cb(f, f->ctx0, 0, &cb, 1));
  for (uint32_t i = 0; i < 4; i++) {
    wr(f, flag + 64 + 4 * i, 0xC0 + i);
    sgpu_cmdbuf_init(&cb, mem, sizeof mem);
    sgpu_cmd_copy(&cb, flag + 128 + 4 * i, 4, flag + 64 + 4 * i, 4, 4, 1);
    CHECK(submit_cb(f, f->ctx1, 1 + i, &cb, 1 + i));
  }
  CHECK(sgpu_wait_fence(f->dev, 1, 4, wait_ms(50)));
  for (uint32_t i = 0; i < 4; i++) assert_int_equal(rd(f, flag + 128 + 4 * i), 0xC0 + i);
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(f->dev, 0, &fi));
  assert_int_equal(fi.completed, 0); /* the graphics job still waits */
  assert_int_equal(fi.pending, 1);
  wr(f, flag, 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(50)));
  assert_int_equal(rd(f, flag + 4), 0x6A);
  fixture_close(f);
}

/* The hang, the reset, the innocent work exactly once, the guilty dropped. */
static void test_hang_keeps_innocent_work(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, watchdog_uri()), 0);
  sgpu_context *b = NULL, *c = NULL;
  CHECK(sgpu_create_context(f->dev, 0, &b));
  CHECK(sgpu_create_context(f->dev, 0, &c));
  uint32_t t = (uint32_t)f->tgt, mem[64];
  for (uint32_t i = 0; i < 16; i++) wr(f, t + 4 * i, 0);
  wr(f, t + 0, 0xB1); /* B's marker source */
  wr(f, t + 16, 0xC1); /* C's marker source */
  wr(f, t + 32, 0xB2); /* B's second marker source (staged) */
  sgpu_cmdbuf cb;
  build_hang(&cb, mem, sizeof mem, t + 60);
  CHECK(submit_cb(f, f->ctx0, 0, &cb, 1));                       /* A: hangs */
  build_once_marker(&cb, mem, sizeof mem, t + 0, t + 4, 0xBB);
  CHECK(submit_cb(f, b, 1, &cb, 2));                             /* B: innocent */
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_write_data(&cb, t + 48, (uint32_t[]){0xA2}, 1);
  CHECK(submit_cb(f, f->ctx0, 2, &cb, 3));                       /* A again: dropped */
  build_once_marker(&cb, mem, sizeof mem, t + 16, t + 20, 0xCC);
  CHECK(submit_cb(f, c, 3, &cb, 4));                             /* C: innocent */
  /* B again, from host memory: staged into the aperture before the hang */
  uint64_t h;
  CHECK(sgpu_alloc(f->dev, SGPU_SEGMENT_SYSTEM, 4096, 0, &h));
  build_once_marker(&cb, mem, sizeof mem, t + 32, t + 36, 0xBC);
  CHECK(sgpu_write(f->dev, h, mem, sgpu_cmdbuf_size(&cb)));
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = b;
  a.dma_buffer_segment_id = SGPU_SEGMENT_SYSTEM;
  a.dma_buffer_physical_address = h;
  a.dma_buffer_size = 4096;
  a.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&cb);
  a.submission_fence_id = 5;
  CHECK(sgpu_submit_command(f->dev, &a));
  arm_watchdog(f);

  /* The watchdog catches the hang. */
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 5, wait_ms(50)), SGPU_ERROR_NODE_FAULTED);
  sgpu_event ev;
  CHECK(sgpu_next_event(f->dev, &ev, 0));
  assert_int_equal(ev.type, SGPU_EVENT_DMA_FAULTED);
  assert_int_equal(ev.fault_reason, SGPU_FAULT_TIMEOUT);
  assert_int_equal(ev.fence_id, 1);
  assert_int_equal(rd(f, t + 4), 0); /* nothing behind it ran */

  /* Recovery: B's two and C's one go back on the ring by themselves. */
  assert_int_equal(sgpu_reset_from_timeout(f->dev), 3);
  CHECK(sgpu_wait_fence(f->dev, 0, 5, wait_ms(50)));
  seen s;
  memset(&s, 0, sizeof s);
  drain(f, &s);
  assert_int_equal(s.dropped[1], 1);
  assert_int_equal(s.dropped[3], 1);
  assert_int_equal(s.resets, 1);
  assert_int_equal(s.reset.node_ordinal, 0);
  assert_int_equal(s.reset.context_id, sgpu_context_id(f->ctx0));
  assert_int_equal(s.reset.guilty_count, 1);
  assert_int_equal(s.reset.banned, 0);
  assert_int_equal(s.reset.fence_id, 3); /* the last aborted fence */
  assert_int_equal(s.reset.resubmitted, 3);
  for (uint32_t fence = 2; fence <= 5; fence += fence == 2 ? 2 : 1) {
    assert_int_equal(s.completed[fence], 1);
    assert_int_equal(s.completed_flags[fence] & SGPU_SUBMIT_RESUBMISSION, SGPU_SUBMIT_RESUBMISSION);
  }
  assert_int_equal(s.completed[1] + s.completed[3], 0);
  /* Each innocent one ran exactly once: its copy saw the value before its own write. */
  assert_int_equal(rd(f, t + 4), 0xB1);
  assert_int_equal(rd(f, t + 0), 0xBB);
  assert_int_equal(rd(f, t + 20), 0xC1);
  assert_int_equal(rd(f, t + 16), 0xCC);
  assert_int_equal(rd(f, t + 36), 0xB2);
  assert_int_equal(rd(f, t + 32), 0xBC);
  assert_int_equal(rd(f, t + 48), 0); /* the guilty context's queued work did not run */
  /* A dropped fence has passed: waiting for it returns. */
  CHECK(sgpu_wait_fence(f->dev, 0, 3, wait_ms(50)));
  sgpu_stats st;
  CHECK(sgpu_get_stats(f->dev, &st));
  assert_int_equal(st.resets, 1);
  assert_int_equal(st.dropped, 2);
  assert_int_equal(st.resubmission, 3);
  assert_int_equal(st.completed, 3);
  assert_int_equal(sgpu_context_guilty_count(f->ctx0), 1);
  assert_int_equal(sgpu_context_guilty_count(b), 0);
  /* The guilty context may go on (it is not banned yet). */
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_write_data(&cb, t + 48, (uint32_t[]){0xA3}, 1);
  CHECK(submit_cb(f, f->ctx0, 4, &cb, 6));
  CHECK(sgpu_wait_fence(f->dev, 0, 6, wait_ms(50)));
  assert_int_equal(rd(f, t + 48), 0xA3);
  sgpu_destroy_context(b);
  sgpu_destroy_context(c);
  fixture_close(f);
}

/* Three hangs ban the context; another context on the node goes on. */
static void test_ban_after_three_hangs(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, watchdog_uri()), 0);
  sgpu_context *b = NULL;
  CHECK(sgpu_create_context(f->dev, 0, &b));
  uint32_t t = (uint32_t)f->tgt, mem[64], fence = 0;
  sgpu_cmdbuf cb;
  for (uint32_t round = 1; round <= SGPU_DEFAULT_BAN_THRESHOLD; round++) {
    wr(f, t + 64, round);
    build_hang(&cb, mem, sizeof mem, t + 60);
    CHECK(submit_cb(f, f->ctx0, 0, &cb, ++fence));
    build_once_marker(&cb, mem, sizeof mem, t + 64, t + 68, 0x100 + round);
    CHECK(submit_cb(f, b, 1, &cb, ++fence));
    arm_watchdog(f);
    assert_int_equal(sgpu_wait_fence(f->dev, 0, fence, wait_ms(50)), SGPU_ERROR_NODE_FAULTED);
    uint32_t last_aborted = 0;
    assert_int_equal(sgpu_reset_engine(f->dev, 0, &last_aborted), 1);
    assert_int_equal(last_aborted, fence - 1);
    CHECK(sgpu_wait_fence(f->dev, 0, fence, wait_ms(50)));
    assert_int_equal(rd(f, t + 68), round); /* B's work ran once this round */
    seen s;
    memset(&s, 0, sizeof s);
    drain(f, &s);
    assert_int_equal(s.resets, 1);
    assert_int_equal(s.reset.guilty_count, round);
    assert_int_equal(s.reset.banned, round == SGPU_DEFAULT_BAN_THRESHOLD);
    assert_int_equal(s.completed[fence], 1);
  }
  assert_int_equal(sgpu_context_banned(f->ctx0), 1);
  assert_int_equal(sgpu_context_banned(b), 0);
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_nop(&cb, 0);
  assert_int_equal(submit_cb(f, f->ctx0, 2, &cb, ++fence), SGPU_ERROR_CONTEXT_BANNED);
  assert_non_null(strstr(sgpu_last_error(f->dev), "banned"));
  /* Nothing reached the ring: the fence id is still free for B. */
  wr(f, t + 72, 0);
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_write_data(&cb, t + 72, (uint32_t[]){0xB0}, 1);
  CHECK(submit_cb(f, b, 3, &cb, fence));
  CHECK(sgpu_wait_fence(f->dev, 0, fence, wait_ms(50)));
  assert_int_equal(rd(f, t + 72), 0xB0);

  /* The threshold is settable: with 1, one hang bans. */
  sgpu_context *c = NULL;
  CHECK(sgpu_create_context(f->dev, 0, &c));
  CHECK(sgpu_set_ban_threshold(f->dev, 1));
  build_hang(&cb, mem, sizeof mem, t + 60);
  CHECK(submit_cb(f, c, 0, &cb, ++fence));
  arm_watchdog(f);
  assert_int_equal(sgpu_wait_fence(f->dev, 0, fence, wait_ms(50)), SGPU_ERROR_NODE_FAULTED);
  assert_int_equal(sgpu_reset_from_timeout(f->dev), 0); /* only the guilty work was queued */
  assert_int_equal(sgpu_context_banned(c), 1);
  sgpu_destroy_context(c);
  sgpu_destroy_context(b);
  fixture_close(f);
}

/* Resetting a node with nothing running: no guilty context, the last
 * completed fence reported; the other node's long FILL is untouched. */
static void test_reset_idle_node_spares_the_other(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("resets a node (sgpu_reset_engine): the work running there may be another program's, which a reset would drop");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint32_t t = (uint32_t)f->tgt, mem[64];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_write_data(&cb, t, (uint32_t[]){7}, 1);
  CHECK(submit_cb(f, f->ctx0, 0, &cb, 9));
  CHECK(sgpu_wait_fence(f->dev, 0, 9, wait_ms(50)));
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_fill(&cb, t + 1024, 256, 256, 8, 0x5A5A5A5Au);
  CHECK(submit_cb(f, f->ctx1, 1, &cb, 1));
  uint32_t last = 0;
  assert_int_equal(sgpu_reset_engine(f->dev, 0, &last), 0);
  assert_int_equal(last, 9);
  CHECK(sgpu_wait_fence(f->dev, 1, 1, wait_ms(50)));
  uint32_t fill[8 * 64];
  CHECK(sgpu_read(f->dev, t + 1024, fill, sizeof fill));
  for (size_t i = 0; i < 8 * 64; i++) assert_int_equal(fill[i], 0x5A5A5A5Au);
  seen s;
  memset(&s, 0, sizeof s);
  drain(f, &s);
  assert_int_equal(s.resets, 1);
  assert_int_equal(s.reset.context_id, 0);
  assert_int_equal(s.reset.resubmitted, 0);
  assert_int_equal(sgpu_reset_engine(f->dev, 7, &last), SGPU_ERROR_INVALID_NODE);
  /* The node works after its reset. */
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_write_data(&cb, t, (uint32_t[]){8}, 1);
  CHECK(submit_cb(f, f->ctx0, 2, &cb, 10));
  CHECK(sgpu_wait_fence(f->dev, 0, 10, wait_ms(50)));
  assert_int_equal(rd(f, t), 8);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_engines_progress_together),
      cmocka_unit_test(test_hang_keeps_innocent_work),
      cmocka_unit_test(test_ban_after_three_hangs),
      cmocka_unit_test(test_reset_idle_node_spares_the_other),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
