/* test_usb.c — the usb transport's library side without a board: the
 * listing's arguments and result, usb: URI errors (SGPU_ERROR_INVALID_URI,
 * nothing opened), and opening a board that is not there
 * (SGPU_ERROR_NO_DEVICE, one line, back within 2 s), run under the
 * sanitizers.  On a machine with boards attached the "no board" cases use
 * a serial number no board has. */
#include <time.h>

#include "host_test.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usb_built(void) {
  char msg[256];
  return sgpu_list_boards(NULL, 0, msg, sizeof msg) != SGPU_ERROR_NOT_SUPPORTED;
}

static void test_list(void **state) {
  (void)state;
  if (!usb_built()) skip();
  char msg[256];
  assert_int_equal(sgpu_list_boards(NULL, 1, msg, sizeof msg), SGPU_ERROR_INVALID_PARAM);
  int n0 = sgpu_list_boards(NULL, 0, msg, sizeof msg); /* count only */
  assert_true(n0 >= 0);
  sgpu_board b[8];
  memset(b, 0xA5, sizeof b);
  int n = sgpu_list_boards(b, 8, msg, sizeof msg);
  assert_int_equal(n, n0);
  if (n == 0) assert_string_equal(msg, "no boards found");
  for (int i = 0; i < n && i < 8; i++) {
    assert_true(strcmp(b[i].name, "icebreaker") == 0 || strcmp(b[i].name, "ulx3s") == 0);
    assert_int_equal(b[i].vid, 0x0403);
    assert_true(strncmp(b[i].uri, "usb:0403:", 9) == 0);
    assert_int_equal(b[i].baud, 3000000);
  }
  /* entries past the count are untouched */
  for (int i = n; i < 8; i++) assert_int_equal((uint8_t)b[i].name[0], 0xA5);
  assert_int_equal(sgpu_list_boards(NULL, 0, NULL, 0), n0); /* msg may be NULL */
}

static void test_bad_uris(void **state) {
  (void)state;
  static const char *bad[] = {"usb:", "usb:0403", "usb:0403:", "usb:403:6010", "usb:0403:6010:",
                              "usb:0403:6010:a:b", "usb:0000:0000", "usb@", "usb@10",
                              "usb:0403:6010@x", "usb:zzzz:6010"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char msg[256] = "";
    sgpu_device *dev = NULL;
    int r = sgpu_open_detail(bad[i], &dev, msg, sizeof msg);
    if (r != SGPU_ERROR_INVALID_URI) fprintf(stderr, "%s: %d %s\n", bad[i], r, msg);
    assert_int_equal(r, SGPU_ERROR_INVALID_URI);
    assert_null(dev);
    assert_non_null(strstr(msg, bad[i]));
    assert_null(strchr(msg, '\n'));
  }
}

static void open_absent(const char *uri, const char *want) {
  char msg[256] = "";
  sgpu_device *dev = NULL;
  double t0 = now_s();
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  double dt = now_s() - t0;
  fprintf(stderr, "%s: %d (%s) in %.3f s: %s\n", uri, r, sgpu_strerror(r), dt, msg);
  assert_int_equal(r, SGPU_ERROR_NO_DEVICE);
  assert_null(dev);
  assert_non_null(strstr(msg, want));
  assert_null(strchr(msg, '\n'));
  assert_true(dt < 2.0);
}

static void test_no_board(void **state) {
  (void)state;
  if (!usb_built()) skip();
  open_absent("usb:1d50:00ff", "no USB device 1d50:00ff attached");
  open_absent("usb:1d50:00ff:SERIAL9@1000000", "no USB device 1d50:00ff attached");
  if (sgpu_list_boards(NULL, 0, NULL, 0) == 0) {
    open_absent("usb", "no sgpu board attached");
    open_absent("usb:0403:6010", "no USB device 0403:6010 attached");
    open_absent("usb:0403:6015:ABC", "no USB device 0403:6015 attached");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list),
      cmocka_unit_test(test_bad_uris),
      cmocka_unit_test(test_no_board),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
