/* transport.h — what a transport is (owned by transport.c, which parses the
 * device URIs and opens the transport they name).
 *
 * The transports are the library's lowest layer but for the tables: the sim
 * transport (transport_sim.c), the link client over a byte channel (link.c,
 * link_chan.c, link_frame.c, transport_usb.c) and the scanout readback the
 * link renders frames with (scanout.c).  They hand bytes, interrupts and
 * frames up through the ops below and never call up into the device core:
 * they do not know sgpu_device, take its lock or set its error text (the
 * core asks `why` for a reason and words its own message). */
#ifndef SGPU_TRANSPORT_H
#define SGPU_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu.h"

typedef struct sgpu_transport sgpu_transport;

typedef struct sgpu_tr_frame {
  uint32_t width, height;
  const uint8_t *rgb;
  uint64_t frame_number, start_cycle;
  uint32_t h_total, v_total;
  /* set by a transport that knows which buffer the frame shows (the
   * scanout readback reads DISP_BASE and renders that buffer) */
  uint32_t scanout_address;
  int scanout_valid;
} sgpu_tr_frame;

/* Every op returns 0 or a negative sgpu_error.  The library never calls one
 * op from inside another (the callgrind figure subtracts their inclusive
 * cost); their names all start with sgpu_tr_. */
typedef struct sgpu_transport_ops {
  const char *name;
  int (*reg_read)(sgpu_transport *t, uint32_t offset, uint32_t *value);
  int (*reg_write)(sgpu_transport *t, uint32_t offset, uint32_t value);
  int (*mem_read)(sgpu_transport *t, uint32_t address, void *data, uint32_t size);
  int (*mem_write)(sgpu_transport *t, uint32_t address, const void *data, uint32_t size);
  /* Advance time by up to max_cycles; with stop_on_irq stop once irq is up. */
  int (*run)(sgpu_transport *t, uint64_t max_cycles, int stop_on_irq);
  int (*irq)(sgpu_transport *t); /* 1 when the interrupt line is up */
  uint64_t (*now)(sgpu_transport *t);
  int (*frame)(sgpu_transport *t, uint32_t source, sgpu_tr_frame *frame);
  void (*close)(sgpu_transport *t);
  /* Advance time until the source's frame capture completes a frame (or
   * max_cycles pass).  Optional: NULL means the library polls `frame`. */
  int (*run_until_frame)(sgpu_transport *t, uint32_t source, uint64_t max_cycles);
  /* The transport's own reason for its last failure ("" or NULL: none).
   * Optional: the library appends it to the messages of failed calls. */
  const char *(*why)(sgpu_transport *t);
  /* 1: `now` is wall time (a link: the device runs on its own, and every
   * access is a round trip); 0: simulated time that only runs when asked. */
  int wall_clock;
} sgpu_transport_ops;

struct sgpu_transport {
  const sgpu_transport_ops *ops;
};

typedef struct sgpu_open_options {
  int video_tiny;        /* video=tiny */
  int video_set;         /* video= given */
  uint32_t watchdog;     /* watchdog= (cycles) */
  int watchdog_set;
  int link_window;       /* window=auto|on|off (link URIs): SGPU_LINK_WINDOW_* */
  uint32_t link_giveup_ms; /* giveup=MS (link URIs); 0: the link's default */
} sgpu_open_options;

/* Parse the URI and open its transport.  msg gets a one-line reason. */
int sgpu_transport_open(const char *uri, sgpu_transport **tr, sgpu_open_options *opts, char *msg,
                        size_t msg_size);

#endif
