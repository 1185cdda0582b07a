/* test_validation_readback.c — validation reads command buffers from the
 * library's own copy of what it wrote, not back from the device; words it
 * never saw are read once; sgpu_read refreshes what the GPU rewrote. */
#include "host_test.h"

#define H(op, n, fl) SGPU_PKT_HEADER(SGPU_OP_##op, n, fl)

static uint64_t readback(fixture *f) {
  sgpu_stats st;
  assert_int_equal(sgpu_get_stats(f->dev, &st), 0);
  return st.readback_bytes;
}

static int validate(fixture *f, uint64_t commands, uint32_t bytes) {
  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  v.commands = commands;
  v.command_length = bytes;
  v.context_count = 1;
  v.context[0] = f->ctx0;
  return sgpu_validate_submit_command(f->dev, &v);
}

static void test_readback(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint64_t ib2, gpu_written;
  assert_int_equal(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &ib2), 0);
  assert_int_equal(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &gpu_written), 0);

  /* Written by the library: validating and submitting reads nothing back. */
  uint32_t nested[] = {H(WRITE_DATA, 2, 0), (uint32_t)f->tgt, 0x11111111u};
  put(f, ib2, nested, 3);
  uint32_t top[] = {H(INDIRECT, 3, 0), (uint32_t)ib2, sizeof nested, 0,
                    H(WRITE_DATA, 2, 0), (uint32_t)f->tgt + 4, 0x22222222u};
  put(f, f->buf, top, 7);
  assert_int_equal(validate(f, f->buf, sizeof top), 0);
  sgpu_submit_command_args a = fixture_args(f, sizeof top);
  CHECK(sgpu_submit_command(f->dev, &a));
  f->fence[0]++;
  CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(100)));
  printf("FIGURE validation_readback_bytes_library_written %llu\n", (unsigned long long)readback(f));
  assert_int_equal(readback(f), 0);

  /* Written by the GPU only (WRITE_DATA of a packet): read back once. */
  uint32_t gen[] = {H(WRITE_DATA, 4, 0), (uint32_t)gpu_written, H(NOP, 1, 0), 0xABCDu, H(NOP, 0, 0)};
  put(f, f->buf, gen, 5);
  a = fixture_args(f, sizeof gen);
  CHECK(sgpu_submit_command(f->dev, &a));
  f->fence[0]++;
  CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(100)));
  uint64_t before = readback(f);
  assert_int_equal(validate(f, gpu_written, 12), 0);
  assert_int_equal(readback(f) - before, 12);
  assert_int_equal(validate(f, gpu_written, 12), 0);
  assert_int_equal(readback(f) - before, 12);

  /* The GPU rewrites a buffer the library wrote: after sgpu_read the
   * validator sees the new words (a zero word: BAD_HEADER). */
  uint32_t zero_over[] = {H(WRITE_DATA, 2, 0), (uint32_t)ib2, 0};
  put(f, f->buf, zero_over, 3);
  a = fixture_args(f, sizeof zero_over);
  CHECK(sgpu_submit_command(f->dev, &a));
  f->fence[0]++;
  CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(100)));
  uint32_t now[3];
  assert_int_equal(sgpu_read(f->dev, ib2, now, sizeof now), 0);
  assert_int_equal(now[0], 0);
  assert_int_equal(validate(f, ib2, sizeof nested), SGPU_ERROR_PACKET_BAD_HEADER);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_readback)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
