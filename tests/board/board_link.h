/* board_link.h — the host side of the link (docs/link-protocol.md) over the
 * simulated board's UART pins, for the board tests.
 *
 * Requests are encoded and answers decoded with the host library's own
 * codec (host/src/link_frame.c); stop-and-wait, a new SEQ per frame.  A
 * clean simulated line never loses a byte, so a NAK, a timeout or an answer
 * with the wrong SEQ fails the test instead of being retried.  EVENT frames
 * that arrive meanwhile are kept in order.  Failures go through bl_fail
 * (message on stderr, exit status 1).
 */
#ifndef BOARD_LINK_H
#define BOARD_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "board_sim.h"
#include "link_frame.h"
#include "sgpu_hw.h"

void bl_fail(const char *file, int line, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
#define BL_CHECK(cond, ...) \
  do { if (!(cond)) bl_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define BL_EQ(a, b, what) \
  do { uint32_t a_ = (uint32_t)(a), b_ = (uint32_t)(b); \
       if (a_ != b_) bl_fail(__FILE__, __LINE__, "%s: got 0x%08x, expected 0x%08x", (what), a_, b_); \
  } while (0)
void bl_figure(const char *name, double value); /* "FIGURE name value" */

#define BL_MAX_EVENTS 256
typedef struct board_link {
  board_sim *b;
  uint8_t seq;
  sgpu_link_decoder dec;
  uint32_t events[BL_MAX_EVENTS]; /* INT_STATUS of each EVENT, oldest first */
  uint64_t event_cycle[BL_MAX_EVENTS];
  size_t nevents;
  uint8_t next_event_seq;
  uint64_t frames_sent;
} board_link;

void bl_init(board_link *l, board_sim *b);
/* Send one request, run until its answer; returns the answer's data words
 * (ACK of a READ or PING) in data (may be NULL).  Fails on anything but an
 * ACK with the request's SEQ. */
void bl_request(board_link *l, uint8_t cmd, uint32_t addr, const uint32_t *wdata, uint16_t count,
                uint32_t *rdata);
/* After reset the boot ROM feeder (rtl/top/sgpu_boot.v) owns the host bridge
 * and ignores the UART: PING (repeating it with the same SEQ after 50000
 * quiet cycles) until answered, then READ until the boot's identity block
 * has its DONE word; clears INT_ENABLE and INT_STATUS.  Returns the system
 * cycles from the reset's release. */
uint64_t bl_wait_boot(board_link *l);
/* PING: returns the info word. */
uint32_t bl_ping(board_link *l);
/* Memory (GPU address) and registers (offset): bursts of SGPU_LINK_MAX_WORDS. */
void bl_write(board_link *l, uint32_t addr, const uint32_t *words, size_t n);
void bl_read(board_link *l, uint32_t addr, uint32_t *words, size_t n);
void bl_wr(board_link *l, uint32_t reg, uint32_t value);
uint32_t bl_rd(board_link *l, uint32_t reg);
/* Run the board until an EVENT frame arrives (or max_cycles); returns 0 with
 * its INT_STATUS in *status, or -1.  Events already received count. */
int bl_wait_event(board_link *l, uint64_t max_cycles, uint32_t *status);
/* Run cycles, collecting any EVENT frames. */
void bl_run(board_link *l, uint64_t cycles);

/* ---------------------------------------------------------------- rings */
typedef struct bl_ring {
  board_link *l;
  uint32_t base, size, wptr;
} bl_ring;
/* Program node 0's ring (RING_BASE, RING_SIZE, WATCHDOG 0, ENABLE). */
void bl_ring_init(bl_ring *r, board_link *l, uint32_t base, uint32_t size);
/* Write the words at wptr (wrapping), then the doorbell.  The caller keeps
 * them within the free space. */
void bl_ring_submit(bl_ring *r, const uint32_t *words, size_t n);

/* Packet builders on a plain word array (SGPU_PKT_HEADER and the generated
 * field macros); each returns the new length. */
size_t bl_pkt_fill(uint32_t *w, size_t n, uint32_t dst, uint32_t pitch, uint32_t width, uint32_t height,
                   uint32_t pattern);
size_t bl_pkt_copy(uint32_t *w, size_t n, uint32_t dst, uint32_t dpitch, uint32_t src, uint32_t spitch,
                   uint32_t width, uint32_t height);
size_t bl_pkt_fence(uint32_t *w, size_t n, uint32_t addr, uint32_t value, int irq);
size_t bl_pkt_flip(uint32_t *w, size_t n, uint32_t source, uint32_t addr, uint32_t interval, int no_wait);
size_t bl_pkt_write_data(uint32_t *w, size_t n, uint32_t addr, const uint32_t *data, uint32_t count);

/* 12-bit pixel (0x0RGB, 4 bits a colour) a framebuffer pixel becomes on the
 * DVI Pmod: the display expands by bit replication, the board keeps the top
 * 4 bits of each colour. */
uint16_t bl_pin_rgb565(uint16_t p);
uint16_t bl_pin_rgb332(uint8_t p);

#endif
