/* board_sim.h — C ABI of the board-level simulation of the iCEBreaker image
 * (rtl/boards/icebreaker_top.v verilated whole, tests/board/board_sim.cpp).
 *
 * Time advances event by event with both clocks at their real periods: the
 * system clock at 12 MHz (83,333 ps) and the pixel clock at 25.125 MHz
 * (39,801 ps), kept at the exact ratio 96 : 201 of their periods.  The pixel
 * clock's edges are offset so that they never coincide with a system edge.
 * The chip is only touched through its pins:
 *  - the UART RX pin is driven bit by bit at BAUD (8N1; 3 Mbaud is exactly 4
 *    system clocks per bit) from a queue of bytes, back to back;
 *  - the UART TX pin is decoded at the same rate (middle-of-bit sampling,
 *    stop bit checked);
 *  - the DVI pins (4 bits per colour, hsync, vsync, DE) are sampled on every
 *    pixel clock and assembled into frames, each checked against the VESA
 *    640x480@60 timing (800 x 525 clocks, hsync 96 after a 16 clock front
 *    porch, vsync 2 lines after a 10 line front porch, syncs active low).
 * One model per process is not required: each board_sim is independent.
 */
#ifndef BOARD_SIM_H
#define BOARD_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct board_sim board_sim;

/* Power on (FPGA flip-flops start at 0, the button is released).  NULL on
 * failure.  Nothing has run yet: the power-on reset still has its 2^11
 * system cycles to count. */
board_sim *board_sim_create(void);
void board_sim_destroy(board_sim *b);

/* Run `cycles` system clock cycles (and the pixel clock edges between). */
void board_sim_run(board_sim *b, uint64_t cycles);
uint64_t board_sim_cycle(const board_sim *b);      /* system cycles since power-on */
uint64_t board_sim_pix_cycle(const board_sim *b);  /* pixel clock cycles since power-on */
/* System cycle in which the chip's reset was first seen released (the
 * power-on counter reached 2^11), or 0 while it has not been. */
uint64_t board_sim_reset_release(const board_sim *b);
/* Run until the reset is released (at most max_cycles); returns 0 or -1. */
int board_sim_run_to_reset_release(board_sim *b, uint64_t max_cycles);
/* The user button (held = 1): it resets the chip. */
void board_sim_button(board_sim *b, int held);

/* LED pins as seen from outside: bit 0 red on, bit 1 green on (the main
 * board's LEDs are active low), bits 2..6 snap-off LED1..LED5 (idle, busy,
 * fault, link, heartbeat). */
uint32_t board_sim_leds(const board_sim *b);

/* ---------------------------------------------------------------- UART */
/* Queue bytes for the RX pin; they are sent back to back (10 bits each). */
void board_sim_uart_send(board_sim *b, const void *data, size_t n);
/* Bytes still queued or being shifted out onto the RX pin. */
size_t board_sim_uart_sending(const board_sim *b);
/* Take up to max bytes decoded from the TX pin (oldest first). */
size_t board_sim_uart_recv(board_sim *b, uint8_t *data, size_t max);
/* System cycle of the last stop bit decoded on TX (0 = none yet). */
uint64_t board_sim_uart_last_rx_cycle(const board_sim *b);
/* Stop bits decoded as 0 on the TX pin (framing errors), and TX pin levels
 * other than idle-high while the chip is in reset. */
uint64_t board_sim_uart_errors(const board_sim *b);

/* ---------------------------------------------------------------- link */
/* The host bridge's own counts since power-on (its frame_ok and frame_err
 * strobes: frames executed, NAKs sent; the boot ROM's frames included),
 * the chip's interrupt line, and 1 while the boot ROM feeder (rtl/top/sgpu_boot.v)
 * owns the bridge.  sgpu-sim --board icebreaker (sim/sgpu_board_lsim.cpp)
 * reports them. */
uint64_t board_sim_frames_ok(const board_sim *b);
uint64_t board_sim_frames_err(const board_sim *b);
int board_sim_irq(const board_sim *b);
int board_sim_booting(const board_sim *b);

/* ---------------------------------------------------------------- video */
typedef struct board_frame {
  uint64_t number;        /* 1 for the first complete frame, 0 = none yet */
  uint64_t start_cycle;   /* system cycle in which its vsync began */
  uint64_t start_pix;     /* pixel clock cycle in which its vsync began */
  uint32_t width, height; /* DE pixels of the longest line, lines with DE */
  const uint16_t *pixels; /* width*height pixels 0x0RGB (4 bits each, the pins);
                             valid until the next run */
  /* timing as measured, in pixel clocks / lines */
  uint32_t h_total, v_total, hsync_width, h_front_porch, vsync_lines, v_front_porch;
  int timing_ok;          /* 1: every clock of the frame matches VESA 640x480@60 */
  char timing_error[160]; /* first mismatch when timing_ok is 0 */
} board_frame;
/* The most recent complete frame (number 0 when none). */
void board_sim_last_frame(board_sim *b, board_frame *f);
uint64_t board_sim_frames(const board_sim *b);
/* Run until another frame completes or max_cycles system cycles have run;
 * returns the cycles run. */
uint64_t board_sim_run_until_frame(board_sim *b, uint64_t max_cycles);
/* Frames whose timing did not match, since power-on. */
uint64_t board_sim_bad_frames(const board_sim *b);

#ifdef __cplusplus
}
#endif
#endif
