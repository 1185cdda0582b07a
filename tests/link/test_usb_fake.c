/* test_usb_fake.c — the usb transport (host/src/transport_usb.c, built with
 * SGPU_HAVE_USB against the real libftdi1 and libusb-1.0 headers) linked
 * against a fake of those two libraries instead of the real ones: a USB bus
 * the test populates, FTDI chips whose UART leads to the link test device
 * (tests/host/link_fake_dev.h).  No machine here has a board; this checks
 * what the library does with what libusb and libftdi report:
 *   - sgpu_list_boards: known boards only, names, serials, URIs, access;
 *   - open: the board picked (bare usb, VID:PID, serial), the FTDI set-up
 *     (interface B on the FT2232H, UART mode, the board's LINK_BAUD, 8N1,
 *     no flow control, latency 1 ms, flush, the kernel driver given back at
 *     close), errors: no board, no such serial, no permission, busy;
 *   - the link working over it (registers, an upload read back);
 *   - the board unplugged in the middle of an upload (transfers fail, the
 *     hotplug "left" callback fires): SGPU_ERROR_IO within 2 s, the next
 *     call at once, a new open after replugging works; a transfer that
 *     stalls 500 ms and fails; a board that stays attached but never
 *     answers: SGPU_ERROR_IO within 2 s.
 * The fake follows libftdi's documented behaviour (ftdi_read_data returns
 * 0 when the chip had nothing within its latency timer, < 0 when the USB
 * transfer failed); the real chip is not exercised.
 * The fakes are this test's own; the global state below stands for the USB
 * bus, outside the library.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <ftdi.h>
#include <libusb.h>

#include "link_fake_dev.h"
#include "sgpu.h"

/* ---------------------------------------------------------------- the bus */
struct libusb_device {
  uint16_t vid, pid;
  uint8_t bus, addr;
  const char *serial, *product;
  int access_err; /* libusb_open fails with this (LIBUSB_ERROR_ACCESS) */
  int busy;       /* claiming the interface fails */
  int present;
};
struct libusb_context {
  int hp_used;
  libusb_hotplug_callback_fn hp_cb;
  void *hp_user;
};
struct libusb_device_handle {
  struct libusb_device *dev;
};

enum { STALL_NONE, STALL_FAIL, STALL_SILENT };
static struct {
  struct libusb_device dev[4];
  int ndev;
  fake_dev *fd;              /* what the opened board's UART leads to */
  uint8_t out[1 << 16];      /* device -> host bytes not yet read */
  size_t out_n;
  uint64_t written;          /* host -> device bytes */
  uint64_t unplug_at;        /* the board leaves after this many bytes written (0: never) */
  int stall;                 /* STALL_*: reads after unplug_at block 500 ms and fail, or stay empty */
  struct libusb_device *open_dev;
  /* what the library asked for */
  int interface, baud, latency, bits, stop, parity, flow, bitmode, flushed, detach_mode;
  int read_timeout, write_timeout, opens, closes, hp_registered, hp_deregistered, hp_fired;
} bus;

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static void add_dev(uint16_t vid, uint16_t pid, const char *serial, const char *product, int access_err) {
  struct libusb_device *d = &bus.dev[bus.ndev++];
  memset(d, 0, sizeof *d);
  d->vid = vid;
  d->pid = pid;
  d->bus = 1;
  d->addr = (uint8_t)(4 + bus.ndev);
  d->serial = serial;
  d->product = product;
  d->access_err = access_err;
  d->present = 1;
}

static void bus_reset(void) {
  free(bus.fd);
  memset(&bus, 0, sizeof bus);
  bus.fd = malloc(sizeof *bus.fd);
  assert_non_null(bus.fd);
  fake_init(bus.fd, 77);
}

/* ---------------------------------------------------------------- libusb */
int LIBUSB_CALL libusb_init(libusb_context **ctx) {
  *ctx = calloc(1, sizeof **ctx);
  return *ctx ? 0 : LIBUSB_ERROR_NO_MEM;
}
void LIBUSB_CALL libusb_exit(libusb_context *ctx) { free(ctx); }
ssize_t LIBUSB_CALL libusb_get_device_list(libusb_context *ctx, libusb_device ***list) {
  (void)ctx;
  libusb_device **l = calloc((size_t)bus.ndev + 1, sizeof *l);
  ssize_t n = 0;
  for (int i = 0; i < bus.ndev; i++)
    if (bus.dev[i].present) l[n++] = &bus.dev[i];
  *list = l;
  return n;
}
void LIBUSB_CALL libusb_free_device_list(libusb_device **list, int unref) {
  (void)unref;
  free(list);
}
int LIBUSB_CALL libusb_get_device_descriptor(libusb_device *dev, struct libusb_device_descriptor *d) {
  memset(d, 0, sizeof *d);
  d->idVendor = dev->vid;
  d->idProduct = dev->pid;
  d->iProduct = dev->product ? 2 : 0;
  d->iSerialNumber = dev->serial ? 3 : 0;
  return 0;
}
uint8_t LIBUSB_CALL libusb_get_bus_number(libusb_device *dev) { return dev->bus; }
uint8_t LIBUSB_CALL libusb_get_device_address(libusb_device *dev) { return dev->addr; }
int LIBUSB_CALL libusb_open(libusb_device *dev, libusb_device_handle **h) {
  if (dev->access_err) return dev->access_err;
  *h = calloc(1, sizeof **h);
  (*h)->dev = dev;
  return 0;
}
void LIBUSB_CALL libusb_close(libusb_device_handle *h) { free(h); }
int LIBUSB_CALL libusb_get_string_descriptor_ascii(libusb_device_handle *h, uint8_t index,
                                                   unsigned char *data, int length) {
  const char *s = index == 3 ? h->dev->serial : index == 2 ? h->dev->product : NULL;
  if (!s) return LIBUSB_ERROR_INVALID_PARAM;
  int n = (int)strlen(s);
  if (n > length - 1) n = length - 1;
  memcpy(data, s, (size_t)n);
  data[n] = 0;
  return n;
}
const char *LIBUSB_CALL libusb_strerror(int code) { return code ? "fake libusb error" : "success"; }
libusb_device *LIBUSB_CALL libusb_get_device(libusb_device_handle *h) { return h->dev; }
int LIBUSB_CALL libusb_has_capability(uint32_t cap) { return cap == LIBUSB_CAP_HAS_HOTPLUG; }
int LIBUSB_CALL libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags, int vid,
                                                 int pid, int dev_class, libusb_hotplug_callback_fn cb,
                                                 void *user, libusb_hotplug_callback_handle *handle) {
  (void)flags;
  (void)dev_class;
  assert_int_equal(events, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT);
  assert_int_equal(vid, bus.open_dev->vid);
  assert_int_equal(pid, bus.open_dev->pid);
  ctx->hp_used = 1;
  ctx->hp_cb = cb;
  ctx->hp_user = user;
  *handle = 1;
  bus.hp_registered++;
  return 0;
}
void LIBUSB_CALL libusb_hotplug_deregister_callback(libusb_context *ctx, libusb_hotplug_callback_handle h) {
  assert_int_equal(h, 1);
  ctx->hp_used = 0;
  bus.hp_deregistered++;
}

/* ---------------------------------------------------------------- libftdi */
struct ftdi_context *ftdi_new(void) {
  struct ftdi_context *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  if (libusb_init(&f->usb_ctx)) {
    free(f);
    return NULL;
  }
  f->usb_read_timeout = f->usb_write_timeout = 5000;
  f->error_str = "";
  return f;
}
int ftdi_usb_close(struct ftdi_context *f) {
  if (f->usb_dev) {
    libusb_close(f->usb_dev);
    f->usb_dev = NULL;
    bus.closes++;
    bus.open_dev = NULL;
  }
  return 0;
}
void ftdi_free(struct ftdi_context *f) {
  if (!f) return;
  ftdi_usb_close(f);
  libusb_exit(f->usb_ctx);
  free(f);
}
int ftdi_set_interface(struct ftdi_context *f, enum ftdi_interface i) {
  (void)f;
  bus.interface = (int)i;
  return 0;
}
int ftdi_usb_open_dev(struct ftdi_context *f, libusb_device *dev) {
  if (libusb_open(dev, &f->usb_dev) < 0) {
    f->error_str = "libusb_open() failed";
    return -4;
  }
  if (dev->busy) {
    libusb_close(f->usb_dev);
    f->usb_dev = NULL;
    f->error_str = "unable to claim usb device. Make sure the default FTDI driver is not in use";
    return -5;
  }
  bus.open_dev = dev;
  bus.opens++;
  bus.detach_mode = (int)f->module_detach_mode;
  bus.out_n = 0;
  return 0;
}
const char *ftdi_get_error_string(struct ftdi_context *f) { return f->error_str; }
int ftdi_set_bitmode(struct ftdi_context *f, unsigned char mask, unsigned char mode) {
  (void)f;
  (void)mask;
  bus.bitmode = mode;
  return 0;
}
int ftdi_set_baudrate(struct ftdi_context *f, int baud) {
  bus.baud = baud;
  f->baudrate = baud;
  return 0;
}
int ftdi_set_line_property(struct ftdi_context *f, enum ftdi_bits_type bits, enum ftdi_stopbits_type sb,
                           enum ftdi_parity_type parity) {
  (void)f;
  bus.bits = (int)bits;
  bus.stop = (int)sb;
  bus.parity = (int)parity;
  return 0;
}
int ftdi_setflowctrl(struct ftdi_context *f, int flow) {
  (void)f;
  bus.flow = flow;
  return 0;
}
int ftdi_set_latency_timer(struct ftdi_context *f, unsigned char ms) {
  (void)f;
  bus.latency = ms;
  return 0;
}
int ftdi_tcioflush(struct ftdi_context *f) {
  (void)f;
  bus.flushed++;
  bus.out_n = 0;
  return 0;
}
int ftdi_usb_purge_buffers(struct ftdi_context *f) { return ftdi_tcioflush(f); }

static int gone(void) { return bus.unplug_at && bus.written >= bus.unplug_at; }

/* The board leaves: libusb would deliver the "left" event while handling
 * events, which a synchronous transfer does. */
static void fire_left(struct ftdi_context *f) {
  if (bus.open_dev && bus.open_dev->present && bus.stall == STALL_NONE) {
    bus.open_dev->present = 0;
    if (f->usb_ctx->hp_used) {
      bus.hp_fired++;
      f->usb_ctx->hp_cb(f->usb_ctx, bus.open_dev, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, f->usb_ctx->hp_user);
    }
  }
}

int ftdi_write_data(struct ftdi_context *f, const unsigned char *buf, int size) {
  bus.read_timeout = f->usb_read_timeout;
  bus.write_timeout = f->usb_write_timeout;
  if (gone() && bus.stall != STALL_SILENT) {
    fire_left(f);
    f->error_str = "usb bulk write failed";
    return -1;
  }
  bus.written += (uint64_t)size;
  if (gone() && bus.stall == STALL_SILENT) return size; /* attached, but the bytes go nowhere */
  size_t off = 0;
  while (off < (size_t)size) {
    size_t used = 0, n = 0;
    fake_req rq;
    uint8_t ans[SGPU_LINK_MAX_RSP_FRAME];
    int got = fake_feed(bus.fd, buf + off, (size_t)size - off, &used, ans, sizeof ans, &n, &rq);
    off += used;
    if (!got) break;
    if (bus.out_n + n <= sizeof bus.out) {
      memcpy(bus.out + bus.out_n, ans, n);
      bus.out_n += n;
    }
  }
  return size;
}

int ftdi_read_data(struct ftdi_context *f, unsigned char *buf, int size) {
  if (gone()) {
    if (bus.stall == STALL_FAIL) { /* a bulk transfer that never completes */
      sleep_ms(f->usb_read_timeout);
      f->error_str = "usb bulk read failed";
      return -1;
    }
    if (bus.stall == STALL_SILENT) {
      sleep_ms(1);
      return 0;
    }
    fire_left(f);
    f->error_str = "usb bulk read failed";
    return -1;
  }
  if (!bus.out_n) {
    sleep_ms(1); /* the latency timer: the chip's status-only packet */
    return 0;
  }
  size_t n = bus.out_n < (size_t)size ? bus.out_n : (size_t)size;
  memcpy(buf, bus.out, n);
  memmove(bus.out, bus.out + n, bus.out_n - n);
  bus.out_n -= n;
  return (int)n;
}

/* ---------------------------------------------------------------- tests */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int setup(void **state) {
  (void)state;
  bus_reset();
  add_dev(0x046d, 0xc52b, "MOUSE", "a mouse", 0);                  /* not a board */
  add_dev(0x0403, 0x6015, "D00ABC", "ULX3S FPGA 85K v3.0.8", LIBUSB_ERROR_ACCESS); /* no udev rules */
  add_dev(0x0403, 0x6010, "IB01", "Dual RS232-HS", 0);             /* an iCEBreaker */
  return 0;
}
static int teardown(void **state) {
  (void)state;
  free(bus.fd);
  bus.fd = NULL;
  return 0;
}

static void test_list(void **state) {
  (void)state;
  sgpu_board b[4];
  char msg[128];
  int n = sgpu_list_boards(b, 4, msg, sizeof msg);
  assert_int_equal(n, 2);
  assert_string_equal(b[0].name, "ulx3s");
  assert_int_equal(b[0].access, 0);
  assert_string_equal(b[0].serial, "");
  assert_string_equal(b[0].uri, "usb:0403:6015");
  assert_int_equal(b[0].interface, 0);
  assert_string_equal(b[1].name, "icebreaker");
  assert_int_equal(b[1].access, 1);
  assert_string_equal(b[1].serial, "IB01");
  assert_string_equal(b[1].product, "Dual RS232-HS");
  assert_string_equal(b[1].uri, "usb:0403:6010:IB01");
  assert_int_equal(b[1].interface, 1);
  assert_int_equal(b[1].baud, SGPU_LINK_BAUD_ICEBREAKER);
  assert_int_equal(b[1].bus, 1);
  /* a count larger than the room */
  assert_int_equal(sgpu_list_boards(b, 1, msg, sizeof msg), 2);
  assert_string_equal(b[0].name, "ulx3s");
  bus.ndev = 1; /* only the mouse */
  assert_int_equal(sgpu_list_boards(b, 4, msg, sizeof msg), 0);
  assert_string_equal(msg, "no boards found");
}

/* Bare usb takes the first known board, the ULX3S here, which cannot be
 * opened without the udev rules: no permission. */
static void test_open_errors(void **state) {
  (void)state;
  sgpu_device *d = NULL;
  char msg[256];
  int r = sgpu_open_detail("usb", &d, msg, sizeof msg);
  fprintf(stderr, "usb: %d %s\n", r, msg);
  assert_int_equal(r, SGPU_ERROR_IO);
  assert_non_null(strstr(msg, "no permission"));
  r = sgpu_open_detail("usb:0403:6010:NOPE", &d, msg, sizeof msg);
  fprintf(stderr, "usb:0403:6010:NOPE: %d %s\n", r, msg);
  assert_int_equal(r, SGPU_ERROR_NO_DEVICE);
  assert_non_null(strstr(msg, "no attached 0403:6010 device has serial number 'NOPE'"));
  r = sgpu_open_detail("usb:0403:6015:D00ABC", &d, msg, sizeof msg);
  fprintf(stderr, "usb:0403:6015:D00ABC: %d %s\n", r, msg);
  assert_int_equal(r, SGPU_ERROR_IO); /* cannot read its serial: permission */
  assert_non_null(strstr(msg, "no permission"));
  bus.dev[2].busy = 1;
  r = sgpu_open_detail("usb:0403:6010", &d, msg, sizeof msg);
  fprintf(stderr, "usb:0403:6010 busy: %d %s\n", r, msg);
  assert_int_equal(r, SGPU_ERROR_BUSY);
  assert_non_null(strstr(msg, "in use by another program"));
  assert_null(d);
  assert_int_equal(bus.opens, 0);
}

static sgpu_device *open_ib(const char *uri) {
  sgpu_device *d = NULL;
  char msg[256];
  int r = sgpu_open_detail(uri, &d, msg, sizeof msg);
  if (r) fprintf(stderr, "%s: %d %s\n", uri, r, msg);
  assert_int_equal(r, 0);
  return d;
}

static void test_open_and_use(void **state) {
  (void)state;
  bus.dev[1].access_err = 0; /* udev rules installed: bare usb now takes the ULX3S */
  sgpu_device *d = open_ib("usb");
  assert_int_equal(bus.baud, SGPU_LINK_BAUD_ULX3S);
  assert_int_equal(bus.interface, INTERFACE_A);
  sgpu_close(d);
  d = open_ib("usb:0403:6010:IB01");
  assert_int_equal(bus.interface, INTERFACE_B);
  assert_int_equal(bus.baud, SGPU_LINK_BAUD_ICEBREAKER);
  assert_int_equal(bus.bitmode, BITMODE_RESET);
  assert_int_equal(bus.bits, BITS_8);
  assert_int_equal(bus.stop, STOP_BIT_1);
  assert_int_equal(bus.parity, NONE);
  assert_int_equal(bus.flow, SIO_DISABLE_FLOW_CTRL);
  assert_int_equal(bus.latency, 1);
  assert_true(bus.flushed >= 1);
  assert_int_equal(bus.detach_mode, AUTO_DETACH_REATACH_SIO_MODULE);
  assert_int_equal(bus.hp_registered, 2);
  assert_true(bus.read_timeout <= 500 && bus.read_timeout > 0);
  sgpu_info info;
  assert_int_equal(sgpu_query_info(d, &info), 0);
  assert_string_equal(info.transport, "usb");
  uint32_t v = 0;
  assert_int_equal(sgpu_reg_write(d, SGPU_REG_SCRATCH, 0x12345678u), 0);
  assert_int_equal(sgpu_reg_read(d, SGPU_REG_SCRATCH, &v), 0);
  assert_int_equal(v, 0x12345678u);
  uint8_t up[8192], back[8192];
  for (unsigned i = 0; i < sizeof up; i++) up[i] = (uint8_t)(i * 37 + 5);
  assert_int_equal(sgpu_write(d, 0x4000, up, sizeof up), 0);
  assert_int_equal(sgpu_read(d, 0x4000, back, sizeof back), 0);
  assert_memory_equal(up, back, sizeof up);
  assert_memory_equal(&bus.fd->mem[0x4000 / 4], up, sizeof up);
  sgpu_close(d);
  assert_int_equal(bus.closes, 2);
  assert_int_equal(bus.hp_deregistered, 2);
  /* @BAUD overrides the board's rate */
  d = open_ib("usb:0403:6010@1000000");
  assert_int_equal(bus.baud, 1000000);
  sgpu_close(d);
}

/* Unplugged in the middle of a 64 KiB upload. */
static void unplug_run(int stall, const char *want) {
  sgpu_device *d = open_ib("usb:0403:6010:IB01");
  static uint8_t up[65536];
  memset(up, 0x5A, sizeof up);
  bus.unplug_at = bus.written + 20000;
  bus.stall = stall;
  double t0 = now_s();
  /* 64 KiB of this 128 KiB board reach over the library's staging area:
   * the raw path (sgpu_write refuses reserved areas) */
  int r = sgpu_write_raw(d, 0x8000, up, sizeof up);
  double dt = now_s() - t0;
  fprintf(stderr, "unplug (stall %d): %d after %.3f s: %s\n", stall, r, dt, sgpu_last_error(d));
  assert_int_equal(r, SGPU_ERROR_IO);
  assert_true(dt < 2.0);
  assert_non_null(strstr(sgpu_last_error(d), want));
  t0 = now_s();
  assert_int_equal(sgpu_reg_write(d, SGPU_REG_SCRATCH, 1), SGPU_ERROR_IO);
  assert_true(now_s() - t0 < 0.1);
  sgpu_close(d);
  assert_null(bus.open_dev);
  /* replugged: a new open works */
  bus.unplug_at = 0;
  bus.stall = STALL_NONE;
  bus.dev[2].present = 1;
  d = open_ib("usb:0403:6010");
  uint32_t v = 0;
  assert_int_equal(sgpu_reg_read(d, SGPU_REG_ID, &v), 0);
  assert_int_equal(v, SGPU_HW_MAGIC);
  sgpu_close(d);
}

static void test_unplug(void **state) {
  (void)state;
  unplug_run(STALL_NONE, "the board was unplugged");
  assert_int_equal(bus.hp_fired, 1);
}
static void test_unplug_stalled_transfer(void **state) {
  (void)state;
  unplug_run(STALL_FAIL, "reading from the board failed");
}
static void test_board_falls_silent(void **state) {
  (void)state;
  unplug_run(STALL_SILENT, "no answer from the device");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_list, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_and_use, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unplug, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unplug_stalled_transfer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_board_falls_silent, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
