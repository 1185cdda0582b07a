/* transport_usb.c — boards on USB: the `usb` transport's byte channel and
 * sgpu_list_boards().
 *
 * libusb-1.0 finds the board (its FTDI chip's VID:PID, serial number) and
 * notices it leave (a hotplug callback on the channel's own libusb
 * context); libftdi1 speaks the FTDI protocol on top of it: UART mode,
 * 8N1, the board's link rate, latency timer 1 ms, buffers flushed at open.
 * The bytes then go through the same link client as tcp: and serial:
 * (link.c).
 *
 * Built only where pkg-config finds libftdi1 and libusb-1.0 (the makefile
 * defines SGPU_HAVE_USB); otherwise every entry point says so with
 * SGPU_ERROR_NOT_SUPPORTED.  No global state: each channel and each listing
 * has its own libusb context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

#ifdef SGPU_HAVE_USB

#include <ftdi.h>
#include <libusb.h>
#include <stdatomic.h>
#include <time.h>

/* Boards the usb transport knows, by their FTDI chip.  The board name is a
 * guess from VID:PID: other products use the same chips. */
typedef struct usb_kind {
  const char *name;  /* sgpu_board.name */
  const char *label; /* for messages and descriptions */
  uint16_t vid, pid;
  uint8_t interface; /* 0 = A, 1 = B */
  uint32_t baud;
} usb_kind;

static const usb_kind usb_kinds[] = {
    /* FT2232H: channel A drives the flash (openFPGALoader), B is the UART */
    {"icebreaker", "iCEBreaker (FT2232H, interface B)", 0x0403, 0x6010, 1, SGPU_LINK_BAUD_ICEBREAKER},
    /* FT231X: one UART; 3 Mbaud is its highest rate */
    {"ulx3s", "ULX3S (FT231X)", 0x0403, 0x6015, 0, SGPU_LINK_BAUD_ULX3S},
};
#define USB_KINDS (sizeof usb_kinds / sizeof usb_kinds[0])

static const usb_kind *kind_of(uint16_t vid, uint16_t pid) {
  for (size_t i = 0; i < USB_KINDS; i++)
    if (usb_kinds[i].vid == vid && usb_kinds[i].pid == pid) return &usb_kinds[i];
  return NULL;
}

/* "iCEBreaker 0403:6010, ULX3S 0403:6015" for messages. */
static void known_list(char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < USB_KINDS && n < size; i++) {
    int w = snprintf(buf + n, size - n, "%s%s %04x:%04x", i ? ", " : "", usb_kinds[i].name,
                     usb_kinds[i].vid, usb_kinds[i].pid);
    if (w < 0) break;
    n += (size_t)w;
  }
}

#define USB_READ_TIMEOUT_MS 500  /* one bulk read: the chip answers within its latency timer */
#define USB_WRITE_TIMEOUT_MS 1000
#define USB_LATENCY_MS 1

static uint64_t usb_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Serial number and product strings of a device ("" when unreadable).
 * Returns 0, or the libusb error of opening it (LIBUSB_ERROR_ACCESS: no
 * permission). */
static int read_strings(libusb_device *dev, const struct libusb_device_descriptor *d,
                        char *serial, size_t serial_size, char *product, size_t product_size) {
  if (serial_size) serial[0] = 0;
  if (product_size) product[0] = 0;
  libusb_device_handle *h = NULL;
  int r = libusb_open(dev, &h);
  if (r) return r;
  if (d->iSerialNumber && serial_size > 1) {
    int n = libusb_get_string_descriptor_ascii(h, d->iSerialNumber, (unsigned char *)serial,
                                               (int)serial_size);
    serial[n > 0 && (size_t)n < serial_size ? (size_t)n : 0] = 0;
  }
  if (d->iProduct && product_size > 1) {
    int n = libusb_get_string_descriptor_ascii(h, d->iProduct, (unsigned char *)product,
                                               (int)product_size);
    product[n > 0 && (size_t)n < product_size ? (size_t)n : 0] = 0;
  }
  libusb_close(h);
  /* keep the strings printable: they go into URIs and messages */
  for (char *p = serial; *p; p++)
    if (*p <= ' ' || *p > '~' || *p == ':' || *p == '@' || *p == ',') *p = '_';
  for (char *p = product; *p; p++)
    if (*p < ' ' || *p > '~') *p = '?';
  return 0;
}

static void board_uri(char *uri, size_t size, uint16_t vid, uint16_t pid, const char *serial) {
  if (serial && *serial)
    snprintf(uri, size, "usb:%04x:%04x:%s", vid, pid, serial);
  else
    snprintf(uri, size, "usb:%04x:%04x", vid, pid);
}

/* ------------------------------------------------------------ listing */
int sgpu_list_boards(sgpu_board *boards, size_t max, char *msg, size_t msg_size) {
  if (msg && msg_size) msg[0] = 0;
  if (!boards && max) {
    if (msg && msg_size) snprintf(msg, msg_size, "sgpu_list_boards: boards is NULL");
    return SGPU_ERROR_INVALID_PARAM;
  }
  libusb_context *ctx = NULL;
  int r = libusb_init(&ctx);
  if (r) {
    if (msg && msg_size)
      snprintf(msg, msg_size, "usb: libusb could not start: %s", libusb_strerror(r));
    return SGPU_ERROR_IO;
  }
  libusb_device **list = NULL;
  ssize_t n = libusb_get_device_list(ctx, &list);
  if (n < 0) {
    if (msg && msg_size)
      snprintf(msg, msg_size, "usb: cannot list USB devices: %s", libusb_strerror((int)n));
    libusb_exit(ctx);
    return SGPU_ERROR_IO;
  }
  size_t count = 0;
  for (ssize_t i = 0; i < n; i++) {
    struct libusb_device_descriptor d;
    if (libusb_get_device_descriptor(list[i], &d)) continue;
    const usb_kind *k = kind_of(d.idVendor, d.idProduct);
    if (!k) continue;
    if (count < max) {
      sgpu_board *b = &boards[count];
      memset(b, 0, sizeof *b);
      snprintf(b->name, sizeof b->name, "%s", k->name);
      snprintf(b->description, sizeof b->description, "%s", k->label);
      b->vid = d.idVendor;
      b->pid = d.idProduct;
      b->interface = k->interface;
      b->bus = libusb_get_bus_number(list[i]);
      b->address = libusb_get_device_address(list[i]);
      b->baud = k->baud;
      int o = read_strings(list[i], &d, b->serial, sizeof b->serial, b->product, sizeof b->product);
      b->access = o == 0;
      board_uri(b->uri, sizeof b->uri, b->vid, b->pid, b->serial);
    }
    count++;
  }
  libusb_free_device_list(list, 1);
  libusb_exit(ctx);
  if (count == 0 && msg && msg_size) snprintf(msg, msg_size, "no boards found");
  return count > (size_t)INT32_MAX ? INT32_MAX : (int)count;
}

/* ------------------------------------------------------------ the channel */
typedef struct usb_chan {
  struct ftdi_context *ftdi;
  libusb_device *dev; /* the board (owned by ftdi's handle) */
  libusb_hotplug_callback_handle hotplug;
  int have_hotplug;
  atomic_int gone;    /* the board left (hotplug) */
  char what[120];     /* "usb:0403:6010:SERIAL (iCEBreaker ...)" for messages */
} usb_chan;

static int LIBUSB_CALL on_left(libusb_context *ctx, libusb_device *dev,
                               libusb_hotplug_event event, void *user) {
  (void)ctx;
  usb_chan *c = user;
  if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT && dev == c->dev) atomic_store(&c->gone, 1);
  return 0;
}

static int usb_send(void *ctx, const uint8_t *data, size_t len, char *why, size_t why_size) {
  usb_chan *c = ctx;
  while (len) {
    if (atomic_load(&c->gone)) {
      snprintf(why, why_size, "%s: the board was unplugged", c->what);
      return -1;
    }
    int part = len > 65536 ? 65536 : (int)len;
    int n = ftdi_write_data(c->ftdi, data, part);
    if (n <= 0) {
      snprintf(why, why_size, "%s: %s: %s", c->what,
               atomic_load(&c->gone) ? "the board was unplugged" : "writing to the board failed",
               n < 0 ? ftdi_get_error_string(c->ftdi) : "no byte taken");
      return -1;
    }
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* One bulk read returns within the latency timer (the chip sends its two
 * status bytes even with no data), so the wait is a loop of reads. */
static long usb_recv(void *ctx, uint8_t *buf, size_t cap, int timeout_ms, char *why,
                     size_t why_size) {
  usb_chan *c = ctx;
  uint64_t t0 = usb_mono_ns();
  int want = cap > 65536 ? 65536 : (int)cap;
  for (;;) {
    if (atomic_load(&c->gone)) {
      snprintf(why, why_size, "%s: the board was unplugged", c->what);
      return -1;
    }
    uint64_t before = usb_mono_ns();
    int n = ftdi_read_data(c->ftdi, buf, want);
    if (n > 0) return n;
    if (n < 0) {
      snprintf(why, why_size, "%s: %s (%s)", c->what,
               atomic_load(&c->gone) ? "the board was unplugged" : "reading from the board failed, unplugged?",
               ftdi_get_error_string(c->ftdi));
      return -1;
    }
    uint64_t now = usb_mono_ns();
    if (timeout_ms <= 0 || now - t0 >= (uint64_t)timeout_ms * 1000000u) return 0;
    if (now - before < 200000u) { /* an empty answer came at once: do not spin */
      struct timespec nap = {0, 250000};
      nanosleep(&nap, NULL);
    }
  }
}

static void usb_close(void *ctx) {
  usb_chan *c = ctx;
  if (c->have_hotplug) libusb_hotplug_deregister_callback(c->ftdi->usb_ctx, c->hotplug);
  ftdi_usb_close(c->ftdi); /* gives the interface back to the kernel's serial driver */
  ftdi_free(c->ftdi);
  free(c);
}

#define USBFAIL(code, ...)                               \
  do {                                                   \
    if (msg && msg_size) snprintf(msg, msg_size, __VA_ARGS__); \
    rc = (code);                                         \
    goto fail;                                           \
  } while (0)

int sgpu_link_chan_usb(uint16_t vid, uint16_t pid, const char *serial, uint32_t *baud,
                       sgpu_link_chan *chan, char *msg, size_t msg_size) {
  char want[96], known[128];
  if (vid || pid)
    snprintf(want, sizeof want, "usb:%04x:%04x%s%s", vid, pid, serial ? ":" : "",
             serial ? serial : "");
  else
    snprintf(want, sizeof want, "usb");
  known_list(known, sizeof known);
  int rc = 0;
  libusb_device **list = NULL;
  usb_chan *c = calloc(1, sizeof *c);
  if (!c) {
    if (msg && msg_size) snprintf(msg, msg_size, "out of memory for the usb channel");
    return SGPU_ERROR_NO_MEM;
  }
  c->ftdi = ftdi_new();
  if (!c->ftdi) USBFAIL(SGPU_ERROR_IO, "%s: libftdi could not start (libusb init failed)", want);

  ssize_t n = libusb_get_device_list(c->ftdi->usb_ctx, &list);
  if (n < 0)
    USBFAIL(SGPU_ERROR_IO, "%s: cannot list USB devices: %s", want, libusb_strerror((int)n));
  libusb_device *pick = NULL;
  const usb_kind *kind = NULL;
  uint16_t pvid = 0, ppid = 0;
  char pserial[64] = "";
  int denied = 0, candidates = 0;
  for (ssize_t i = 0; i < n && !pick; i++) {
    struct libusb_device_descriptor d;
    if (libusb_get_device_descriptor(list[i], &d)) continue;
    const usb_kind *k = kind_of(d.idVendor, d.idProduct);
    if (vid || pid) {
      if (d.idVendor != vid || d.idProduct != pid) continue;
    } else if (!k) {
      continue;
    }
    candidates++;
    char s[64], prod[64];
    int o = read_strings(list[i], &d, s, sizeof s, prod, sizeof prod);
    if (serial) {
      if (o) {
        denied += o == LIBUSB_ERROR_ACCESS;
        continue;
      }
      if (strcmp(s, serial) != 0) continue;
    }
    pick = list[i];
    kind = k;
    pvid = d.idVendor;
    ppid = d.idProduct;
    snprintf(pserial, sizeof pserial, "%s", s);
  }
  if (!pick) {
    if (denied)
      USBFAIL(SGPU_ERROR_IO,
              "%s: %d matching USB device(s) could not be opened to read the serial number: no "
              "permission (install the udev rules, see the README)",
              want, denied);
    if (serial && candidates)
      USBFAIL(SGPU_ERROR_NO_DEVICE, "%s: no attached %04x:%04x device has serial number '%s'",
              want, vid, pid, serial);
    if (vid || pid)
      USBFAIL(SGPU_ERROR_NO_DEVICE, "%s: no USB device %04x:%04x attached", want, vid, pid);
    USBFAIL(SGPU_ERROR_NO_DEVICE, "usb: no sgpu board attached (looked for %s)", known);
  }
  board_uri(c->what, sizeof c->what, pvid, ppid, pserial);
  if (kind) {
    size_t l = strlen(c->what);
    snprintf(c->what + l, sizeof c->what - l, " (%s)", kind->name);
  }
  uint32_t rate = *baud ? *baud : kind ? kind->baud : SGPU_LINK_BAUD_ICEBREAKER;

  /* a board we do not know: its first interface */
  if (ftdi_set_interface(c->ftdi, kind && kind->interface == 1 ? INTERFACE_B : INTERFACE_A) < 0)
    USBFAIL(SGPU_ERROR_IO, "%s: %s", c->what, ftdi_get_error_string(c->ftdi));
  c->ftdi->module_detach_mode = AUTO_DETACH_REATACH_SIO_MODULE;
  int o = ftdi_usb_open_dev(c->ftdi, pick);
  if (o < 0) {
    const char *e = ftdi_get_error_string(c->ftdi);
    if (o == -4 || o == -8)
      USBFAIL(SGPU_ERROR_IO, "%s: cannot open the board: %s (no permission? install the udev rules, see the README)",
              c->what, e);
    if (o == -5)
      USBFAIL(SGPU_ERROR_BUSY, "%s: the board's interface is in use by another program (%s)",
              c->what, e);
    USBFAIL(SGPU_ERROR_IO, "%s: cannot open the board: %s", c->what, e);
  }
  c->dev = libusb_get_device(c->ftdi->usb_dev);
  c->ftdi->usb_read_timeout = USB_READ_TIMEOUT_MS;
  c->ftdi->usb_write_timeout = USB_WRITE_TIMEOUT_MS;
  const char *step = NULL;
  if (ftdi_set_bitmode(c->ftdi, 0, BITMODE_RESET) < 0) step = "UART mode";
  else if (ftdi_set_baudrate(c->ftdi, (int)rate) < 0) step = "baud rate";
  else if (ftdi_set_line_property(c->ftdi, BITS_8, STOP_BIT_1, NONE) < 0) step = "8N1";
  else if (ftdi_setflowctrl(c->ftdi, SIO_DISABLE_FLOW_CTRL) < 0) step = "no flow control";
  else if (ftdi_set_latency_timer(c->ftdi, USB_LATENCY_MS) < 0) step = "latency timer";
#ifdef SGPU_FTDI_TCIOFLUSH
  else if (ftdi_tcioflush(c->ftdi) < 0) step = "flush";
#else
  else if (ftdi_usb_purge_buffers(c->ftdi) < 0) step = "flush";
#endif
  if (step) {
    char e[96];
    snprintf(e, sizeof e, "%s", ftdi_get_error_string(c->ftdi));
    ftdi_usb_close(c->ftdi);
    USBFAIL(SGPU_ERROR_IO, "%s: setting %s (%u baud) failed: %s", c->what, step, rate, e);
  }
  if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) &&
      libusb_hotplug_register_callback(c->ftdi->usb_ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0,
                                       pvid, ppid, LIBUSB_HOTPLUG_MATCH_ANY, on_left, c,
                                       &c->hotplug) == LIBUSB_SUCCESS)
    c->have_hotplug = 1;
  libusb_free_device_list(list, 1);
  *baud = rate;
  chan->ctx = c;
  chan->send = usb_send;
  chan->recv = usb_recv;
  chan->close = usb_close;
  return 0;

fail:
  if (list) libusb_free_device_list(list, 1);
  if (c->ftdi) ftdi_free(c->ftdi);
  free(c);
  return rc;
}

#else /* no USB support */

int sgpu_link_chan_usb(uint16_t vid, uint16_t pid, const char *serial, uint32_t *baud,
                       sgpu_link_chan *chan, char *msg, size_t msg_size) {
  (void)vid;
  (void)pid;
  (void)serial;
  (void)baud;
  (void)chan;
  if (msg && msg_size)
    snprintf(msg, msg_size,
             "usb: this libsgpu was built without USB support (libftdi1 and libusb-1.0 were not "
             "found at build time): use serial:/dev/ttyUSBn");
  return SGPU_ERROR_NOT_SUPPORTED;
}

int sgpu_list_boards(sgpu_board *boards, size_t max, char *msg, size_t msg_size) {
  (void)boards;
  (void)max;
  if (msg && msg_size)
    snprintf(msg, msg_size,
             "this libsgpu was built without USB support (libftdi1 and libusb-1.0 were not found "
             "at build time)");
  return SGPU_ERROR_NOT_SUPPORTED;
}

#endif /* SGPU_HAVE_USB */
