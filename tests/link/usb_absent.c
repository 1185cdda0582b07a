/* usb_absent.c — libsgpu as a machine without libftdi1/libusb-1.0 builds it:
 * host/src/transport_usb.c compiled without SGPU_HAVE_USB and the program
 * linked with no USB library at all (link.mk).  usb URIs and
 * sgpu_list_boards are refused with SGPU_ERROR_NOT_SUPPORTED and a one-line
 * reason; usb URI syntax errors are still SGPU_ERROR_INVALID_URI.  Exits 0
 * when every check holds. */
#include <stdio.h>
#include <string.h>

#include "sgpu.h"

static int fails;
#define CHECK(cond, ...)                   \
  do {                                     \
    if (cond) {                            \
      printf("ok - ");                     \
    } else {                               \
      printf("not ok - ");                 \
      fails++;                             \
    }                                      \
    printf(__VA_ARGS__);                   \
    putchar('\n');                         \
  } while (0)

int main(void) {
  char msg[256];
  sgpu_board b[4];
  int n = sgpu_list_boards(b, 4, msg, sizeof msg);
  CHECK(n == SGPU_ERROR_NOT_SUPPORTED && strstr(msg, "without USB support") && !strchr(msg, '\n'),
        "sgpu_list_boards: %d (%s): %s", n, sgpu_strerror(n), msg);
  const char *uris[] = {"usb", "usb:0403:6010", "usb:0403:6015:FT1234@3000000"};
  for (size_t i = 0; i < sizeof uris / sizeof uris[0]; i++) {
    sgpu_device *dev = (sgpu_device *)&msg; /* must be reset to NULL */
    int r = sgpu_open_detail(uris[i], &dev, msg, sizeof msg);
    CHECK(r == SGPU_ERROR_NOT_SUPPORTED && dev == NULL && strstr(msg, "without USB support"),
          "open %s: %d (%s): %s", uris[i], r, sgpu_strerror(r), msg);
  }
  sgpu_device *dev = NULL;
  int r = sgpu_open_detail("usb:0403", &dev, msg, sizeof msg);
  CHECK(r == SGPU_ERROR_INVALID_URI && strstr(msg, "usb:0403"), "open usb:0403: %d: %s", r, msg);
  printf("%s\n", fails ? "FAILED" : "all passed");
  return fails ? 1 : 0;
}
