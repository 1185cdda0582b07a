/* regress_submit.c — regression tests for the bugs fuzz_submit found, one
 * test per bug, named after it (reproducers: tests/fuzz/regressions/submit/).
 *
 * All three are 64-bit wrap-arounds in range checks: an address near 2^64
 * plus a size wraps to a small number and passes a "does it end inside?"
 * test.
 *   submit_segment12_address_wrap   sgpu_submit_command accepts a segment-1/2
 *       buffer at 0xFFFFFFFFFFFFF800 (check_fields: pa + size wraps).
 *   submit_segment0_host_block_wrap sgpu__host_block (alloc.c) returns a
 *       segment-0 block for a range that wraps; sgpu_submit_command then
 *       forms a wild pointer (UBSan: pointer overflow in submit.c) and
 *       sgpu_write/sgpu_read copy to/from it.
 *   validate_command_range_wrap     sgpu_validate_submit_command lets
 *       commands 0xFFFFFFFFFFFFFFFC + 4 past its range rule (it then fails
 *       later with INVALID_ADDRESS instead of VALIDATE_COMMAND_RANGE).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgpu.h"

/* Each test body runs in a child process with its own device: a bug that
 * crashes inside the library (with the device lock held) must fail its own
 * test, not hang the next one. */
#define EXPECT_EQ(got, want)                                                              \
  do {                                                                                    \
    long long g_ = (long long)(got), w_ = (long long)(want);                              \
    if (g_ != w_) {                                                                       \
      fprintf(stderr, "%s:%d: %s is %lld (%s), expected %lld (%s)\n", __FILE__, __LINE__,  \
              #got, g_, sgpu_strerror((int)g_), w_, sgpu_strerror((int)w_));              \
      _exit(1);                                                                           \
    }                                                                                     \
  } while (0)

typedef struct fx {
  sgpu_device *dev;
  sgpu_context *ctx;
  uint64_t host, local;
} fx;

static int setup(fx *f) {
  if (sgpu_open("sim:video=tiny", &f->dev)) return -1;
  if (sgpu_create_context(f->dev, 0, &f->ctx)) return -1;
  if (sgpu_alloc(f->dev, SGPU_SEGMENT_SYSTEM, 4096, 4096, &f->host)) return -1;
  if (sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &f->local)) return -1;
  uint32_t nop[4] = {0xC0000000u, 0xC0000000u, 0xC0000000u, 0xC0000000u}; /* NOP headers */
  if (sgpu_write(f->dev, f->host, nop, sizeof nop)) return -1;
  if (sgpu_write(f->dev, f->local, nop, sizeof nop)) return -1;
  return 0;
}

static void isolated(void (*body)(fx *f)) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* cmocka's handlers are inherited: a crash must kill the child */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    signal(SIGILL, SIG_DFL);
    signal(SIGFPE, SIG_DFL);
    fx f;
    memset(&f, 0, sizeof f);
    if (setup(&f)) {
      fprintf(stderr, "cannot set up the sim device\n");
      _exit(2);
    }
    body(&f);
    sgpu_destroy_context(f.ctx);
    sgpu_close(f.dev);
    exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  if (WIFSIGNALED(st)) fail_msg("the library crashed (signal %d)", WTERMSIG(st));
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("wrong result (exit %d), see above", WEXITSTATUS(st));
}

static sgpu_submit_command_args args(fx *f, uint32_t seg, uint64_t pa, uint32_t size, uint32_t end) {
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = f->ctx;
  a.dma_buffer_segment_id = seg;
  a.dma_buffer_physical_address = pa;
  a.dma_buffer_size = size;
  a.dma_buffer_submission_end_offset = end;
  sgpu_fence_info fi;
  memset(&fi, 0, sizeof fi);
  sgpu_get_fence(f->dev, 0, &fi);
  a.submission_fence_id = (uint32_t)fi.submitted + 1;
  return a;
}

static void body_submit_segment12_address_wrap(fx *f) {
  /* control: the real buffer is accepted */
  sgpu_submit_command_args a = args(f, SGPU_SEGMENT_LOCAL, f->local, 4096, 16);
  EXPECT_EQ(sgpu_submit_command(f->dev, &a), 0);
  EXPECT_EQ(sgpu_reset_from_timeout(f->dev) >= 0, 1);
  for (uint32_t seg = SGPU_SEGMENT_LOCAL; seg <= SGPU_SEGMENT_APERTURE; seg++) {
    a = args(f, seg, 0xFFFFFFFFFFFFF800ull, 0xFF00, 16);
    EXPECT_EQ(sgpu_submit_command(f->dev, &a), SGPU_ERROR_SUBMIT_BUFFER_ADDRESS);
    a = args(f, seg, 0xFFFFFFFFFFFFF800ull, 0xFF00, 0);
    EXPECT_EQ(sgpu_submit_command(f->dev, &a), SGPU_ERROR_SUBMIT_BUFFER_ADDRESS);
  }
}

static void body_submit_segment0_host_block_wrap(fx *f) {
  sgpu_submit_command_args a = args(f, SGPU_SEGMENT_SYSTEM, f->host, 4096, 16);
  EXPECT_EQ(sgpu_submit_command(f->dev, &a), 0);
  EXPECT_EQ(sgpu_reset_from_timeout(f->dev) >= 0, 1);
  /* 0xFFFFFFFFFFFFFF00 + 0x200 wraps to 0x100 */
  a = args(f, SGPU_SEGMENT_SYSTEM, 0xFFFFFFFFFFFFFF00ull, 0x200, 16);
  EXPECT_EQ(sgpu_submit_command(f->dev, &a), SGPU_ERROR_SUBMIT_BUFFER_ADDRESS);
  a = args(f, SGPU_SEGMENT_SYSTEM, 0xFFFFFFFFFFFFFF00ull, 0x200, 0);
  EXPECT_EQ(sgpu_submit_command(f->dev, &a), SGPU_ERROR_SUBMIT_BUFFER_ADDRESS);
  /* the same root cause through sgpu_write / sgpu_read */
  uint8_t junk[0x200];
  memset(junk, 0xEE, sizeof junk);
  EXPECT_EQ(sgpu_write(f->dev, 0xFFFFFFFFFFFFFF00ull, junk, sizeof junk),
                   SGPU_ERROR_INVALID_ADDRESS);
  EXPECT_EQ(sgpu_read(f->dev, 0xFFFFFFFFFFFFFF00ull, junk, sizeof junk),
                   SGPU_ERROR_INVALID_ADDRESS);
  uint32_t back[4];
  EXPECT_EQ(sgpu_read(f->dev, f->host, back, sizeof back), 0);
  EXPECT_EQ(back[0], 0xC0000000u);
}

static void body_validate_command_range_wrap(fx *f) {
  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  v.context_count = 1;
  v.context[0] = f->ctx;
  v.commands = f->local;
  v.command_length = 16;
  EXPECT_EQ(sgpu_validate_submit_command(f->dev, &v), 0);
  v.commands = 0xFFFFFFFFFFFFFFFCull;
  v.command_length = 4;
  EXPECT_EQ(sgpu_validate_submit_command(f->dev, &v), SGPU_ERROR_VALIDATE_COMMAND_RANGE);
  v.commands = 0xFFFFFFFFFFFFF000ull;
  v.command_length = 0x2000;
  EXPECT_EQ(sgpu_validate_submit_command(f->dev, &v), SGPU_ERROR_VALIDATE_COMMAND_RANGE);
}

static void test_submit_segment12_address_wrap(void **state) {
  (void)state;
  isolated(body_submit_segment12_address_wrap);
}
static void test_submit_segment0_host_block_wrap(void **state) {
  (void)state;
  isolated(body_submit_segment0_host_block_wrap);
}
static void test_validate_command_range_wrap(void **state) {
  (void)state;
  isolated(body_validate_command_range_wrap);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_submit_segment12_address_wrap),
      cmocka_unit_test(test_submit_segment0_host_block_wrap),
      cmocka_unit_test(test_validate_command_range_wrap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
