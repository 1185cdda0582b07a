/* link.h — the host link client (docs/link-protocol.md) over any byte stream.
 *
 * One implementation for every byte-stream transport (tcp:, serial:, usb:):
 * a channel moves bytes, this file turns register and memory accesses into
 * request frames (link_frame.h), retransmits on NAK or timeout with the same
 * SEQ (the device acknowledges a repeated WRITE as DUPLICATE and does not
 * apply it again), and turns unsolicited EVENT frames into the transport's
 * interrupt line.  The bridge remembers the SEQ of the last frame executed,
 * which is what makes a retransmission safe; a version-3 bridge queues
 * frames in a receive FIFO and executes WRITEs only in SEQ order, so
 * several may be in flight.  No global state; a link is used under its own mutex, so waiting
 * threads may poll it while another thread submits.
 */
#ifndef SGPU_LINK_H
#define SGPU_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* A byte channel.  send writes every byte or fails; recv waits up to
 * timeout_ms (0: do not wait) and returns the bytes read (> 0), 0 when none
 * came, or -1 when the channel is gone (EOF, unplugged, reset).  On failure
 * both put a one-line reason in why. */
typedef struct sgpu_link_chan {
  void *ctx;
  int (*send)(void *ctx, const uint8_t *data, size_t len, char *why, size_t why_size);
  long (*recv)(void *ctx, uint8_t *buf, size_t cap, int timeout_ms, char *why, size_t why_size);
  void (*close)(void *ctx);
} sgpu_link_chan;

enum { SGPU_LINK_WINDOW_AUTO = 0, SGPU_LINK_WINDOW_ON = 1, SGPU_LINK_WINDOW_OFF = 2 };

/* The give-up time (sgpu_link_options.giveup_ms, a link URI's giveup=MS):
 * its default, and the range a URI may ask for (below 100 ms a frame's own
 * answer timeouts, a quarter of it at most, would be shorter than the
 * protocol's 20 ms floor allows for). */
#define SGPU_LINK_GIVEUP_DEFAULT_MS 1500u
#define SGPU_LINK_GIVEUP_MIN_MS 100u
#define SGPU_LINK_GIVEUP_MAX_MS 600000u

typedef struct sgpu_link_options {
  uint32_t giveup_ms;     /* no valid answer to a frame for this long: link lost
                             (default SGPU_LINK_GIVEUP_DEFAULT_MS) */
  uint32_t ack_min_ms;    /* floor of the adaptive answer timeout (default 20, the protocol's) */
  uint32_t bytes_per_sec; /* wire rate for transfer-time allowances; 0 = fast (tcp) */
  /* On a noisy line (the burst below the device's maximum, after failed
   * tries) only: */
  uint32_t ack_noisy_ms;  /* the answer timeout's floor (default ack_min_ms) */
  uint32_t gap_ms;        /* a device->host frame begun (or noise) and then this long quiet:
                             the answer was damaged, repeat now (default the protocol's gap
                             timeout, 5) */
  int whole_answers;      /* the other end hands each answer over in one piece (sgpu-sim
                             over tcp:): while it answers fast, an answer found broken
                             once the bytes that came are decoded is repeated without
                             waiting for the gap */
  int window;             /* a version-3 device's window: SGPU_LINK_WINDOW_AUTO (pipeline when
                             that is measured to carry more), _ON (always), _OFF (one frame) */
  /* Time source, monotonic nanoseconds (NULL: CLOCK_MONOTONIC).  Tests and
   * fuzz targets run the link on a virtual clock their channel advances
   * (a recv that waits with nothing to give moves it by the wait). */
  uint64_t (*clock_ns)(void *clock_ctx);
  void *clock_ctx;
} sgpu_link_options;


/* Open a link transport over `chan` (taken over: closed on failure too).
 * Starts the session with a PING.  name is the transport's name ("tcp"). */
int sgpu_link_open(const char *name, const sgpu_link_chan *chan, const sgpu_link_options *opts,
                   sgpu_transport **tr, char *msg, size_t msg_size);

/* Counters of a link transport (sgpu_link_stats, sgpu.h); SGPU_ERROR_NOT_SUPPORTED
 * for other transports. */
int sgpu__link_stats(sgpu_transport *tr, sgpu_link_stats *stats);
/* One PING sent once (sgpu_ping): 0 and *rtt_ns, SGPU_ERROR_TIMEOUT when no
 * ACK came within timeout_ms, SGPU_ERROR_IO when the link is down,
 * SGPU_ERROR_NOT_SUPPORTED for other transports; on failure why (may be
 * NULL) gets the link's reason. */
int sgpu__link_ping(sgpu_transport *tr, uint32_t timeout_ms, uint64_t *rtt_ns, char *why,
                    size_t why_size);

/* Byte channels (link_chan.c).  Each returns 0 or an sgpu_error with msg set. */
int sgpu_link_chan_tcp(const char *host, uint32_t port, sgpu_link_chan *chan, char *msg,
                       size_t msg_size);
int sgpu_link_chan_serial(const char *path, uint32_t baud, sgpu_link_chan *chan, char *msg,
                          size_t msg_size);
/* A board's FTDI UART over USB (transport_usb.c).  vid and pid 0: the first
 * attached board the library knows; serial NULL: any.  *baud 0: the board's
 * link rate (set to the rate used).  SGPU_ERROR_NO_DEVICE when no such board
 * is attached, SGPU_ERROR_NOT_SUPPORTED in a build without libftdi1. */
int sgpu_link_chan_usb(uint16_t vid, uint16_t pid, const char *serial, uint32_t *baud,
                       sgpu_link_chan *chan, char *msg, size_t msg_size);

#endif
