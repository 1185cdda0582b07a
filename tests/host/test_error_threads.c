/* test_error_threads.c — sgpu_last_error is per device and per thread, as
 * sgpu.h promises: the text "stays valid until the next call on the device
 * from the same thread", whatever other threads (or the same thread on
 * another device) do meanwhile (host/src/error.c).
 *
 * Threads fail calls that touch no transport (sgpu_free of addresses never
 * allocated: each message names its address), so the test runs the same on
 * the model and on a link (SGPU_TEST_DEVICE).  cmocka's asserts are made in
 * the main thread only; the threads record what they saw. */
#include <pthread.h>

#include "host_test.h"

#define THREADS 4
#define ROUNDS 2000

typedef struct worker {
  sgpu_device *dev;
  uint32_t id;
  pthread_barrier_t *barrier;
  /* results */
  uint32_t wrong;          /* rounds whose text was not this thread's failure */
  char first_wrong[512];
  char kept_before[512];   /* the pinned text, copied before the others failed */
  char kept_after[512];    /* the same pointer's text after they had */
  char fresh[512];         /* sgpu_last_error before this thread failed anything */
} worker;

static uint64_t bad_address(uint32_t id, uint32_t round) {
  return 0x00100000ull + (uint64_t)id * 0x10000ull + 4ull * round;
}

static void *work(void *arg) {
  worker *w = arg;
  char want[64];
  /* A thread that failed nothing yet sees no text, though others failed. */
  pthread_barrier_wait(w->barrier);
  snprintf(w->fresh, sizeof w->fresh, "%s", sgpu_last_error(w->dev));
  pthread_barrier_wait(w->barrier);
  /* Many failures of all threads at once: each reads back its own. */
  for (uint32_t i = 0; i < ROUNDS; i++) {
    uint64_t a = bad_address(w->id, i);
    int r = sgpu_free(w->dev, a);
    snprintf(want, sizeof want, "0x%llx is not", (unsigned long long)a);
    const char *text = sgpu_last_error(w->dev);
    if (r != SGPU_ERROR_NOT_ALLOCATED || !strstr(text, want)) {
      if (!w->wrong++) snprintf(w->first_wrong, sizeof w->first_wrong, "%d, '%s'", r, text);
    }
  }
  /* The pointer of thread 0's last failure stays valid while the others
   * fail (thread 0 makes no call meanwhile). */
  const char *pinned = sgpu_last_error(w->dev);
  snprintf(w->kept_before, sizeof w->kept_before, "%s", pinned);
  pthread_barrier_wait(w->barrier);
  if (w->id != 0)
    for (uint32_t i = 0; i < ROUNDS / 4; i++) sgpu_free(w->dev, bad_address(w->id + 100, i));
  pthread_barrier_wait(w->barrier);
  snprintf(w->kept_after, sizeof w->kept_after, "%s", pinned);
  return NULL;
}

static void test_threads_keep_their_own_text(void **state) {
  (void)state;
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  /* the main thread fails once first: the workers must not see its text */
  assert_int_equal(sgpu_free(f->dev, 0x00FF0000u), SGPU_ERROR_NOT_ALLOCATED);
  assert_non_null(strstr(sgpu_last_error(f->dev), "0xff0000"));
  pthread_barrier_t barrier;
  assert_int_equal(pthread_barrier_init(&barrier, NULL, THREADS), 0);
  static worker w[THREADS];
  pthread_t th[THREADS];
  for (uint32_t i = 0; i < THREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].dev = f->dev;
    w[i].id = i;
    w[i].barrier = &barrier;
    assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  for (uint32_t i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  pthread_barrier_destroy(&barrier);
  for (uint32_t i = 0; i < THREADS; i++) {
    if (w[i].wrong) fail_msg("thread %u: %u of %u texts not its own, first %s", i, w[i].wrong, ROUNDS, w[i].first_wrong);
    assert_string_equal(w[i].fresh, "");
    char want[64];
    snprintf(want, sizeof want, "0x%llx is not", (unsigned long long)bad_address(i, ROUNDS - 1));
    assert_non_null(strstr(w[i].kept_before, want));
    if (i == 0) assert_string_equal(w[i].kept_after, w[i].kept_before);
  }
  /* and the main thread's text is still its own */
  assert_non_null(strstr(sgpu_last_error(f->dev), "0xff0000"));
  fixture_close(f);
}

/* One thread, two devices: a failure on one leaves the other's text. */
static void test_devices_keep_their_own_text(void **state) {
  (void)state;
  const char *second = test_second_uri();
  if (!second) {
    fprintf(stderr, "skipped: no second device (SGPU_TEST_DEVICE2)\n");
    skip();
  }
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  sgpu_device *d2 = NULL;
  char msg[256];
  assert_int_equal(sgpu_open_detail(second, &d2, msg, sizeof msg), 0);
  assert_string_equal(sgpu_last_error(d2), "");
  assert_int_equal(sgpu_free(f->dev, 0x00AA0000u), SGPU_ERROR_NOT_ALLOCATED);
  const char *one = sgpu_last_error(f->dev);
  assert_int_equal(sgpu_free(d2, 0x00BB0000u), SGPU_ERROR_NOT_ALLOCATED);
  assert_non_null(strstr(one, "0xaa0000"));
  assert_non_null(strstr(sgpu_last_error(d2), "0xbb0000"));
  sgpu_close(d2);
  fixture_close(f);
}

/* A successful call leaves the text of the thread's last failure. */
static void test_success_keeps_text(void **state) {
  (void)state;
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  assert_string_equal(sgpu_last_error(f->dev), "");
  assert_int_equal(sgpu_free(f->dev, 0x00CC0000u), SGPU_ERROR_NOT_ALLOCATED);
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 64, 0, &a), 0);
  assert_int_equal(sgpu_free(f->dev, a), 0);
  assert_non_null(strstr(sgpu_last_error(f->dev), "0xcc0000"));
  assert_string_equal(sgpu_last_error(NULL), "no device");
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_keep_their_own_text),
      cmocka_unit_test(test_devices_keep_their_own_text),
      cmocka_unit_test(test_success_keeps_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
