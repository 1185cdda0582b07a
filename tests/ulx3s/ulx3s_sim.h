/* ulx3s_sim.h — C ABI of the board-level simulation of the ULX3S image
 * (rtl/boards/ulx3s_top.v verilated whole with the SDRAM model on its
 * SDRAM pins: tests/ulx3s/ulx3s_board.v; tests/ulx3s/ulx3s_sim.cpp).
 *
 * Time advances edge by edge with the three PLL clocks at their real
 * periods: system 30 MHz, pixel 25 MHz, TMDS serialiser 125 MHz (the
 * PLL's VCO / 25, / 30, / 6).  The pixel and serial clocks are aligned as
 * the PLL's outputs are; the system clock's edges are offset so that they
 * never coincide with the others.  The chip is only touched
 * through its pins: the FIRE1 button, the UART (RX driven bit by bit at
 * 3 Mbaud, 8N1, from a queue of bytes; TX decoded at the same rate), the
 * LEDs, the four GPDI lanes (gpdi_dp_o), sampled after each edge of the
 * serial clock (two bits per cycle, as the ODDRX1F cells send them), and
 * the SDRAM pins, where the model (tests/rtl/sgpu_sdram_model.vh) answers
 * and checks every command's timing (a violation ends the process with
 * the rule's name).
 *
 * The TMDS receiver here is the harness's own: each data lane finds its
 * symbol boundary from runs of control symbols (16 in a row at one bit
 * phase), then decodes every 10 bits: control symbols give DE low and
 * {C1, C0} (blue: VSYNC, HSYNC), data symbols give the byte (bit 9 undoes
 * the inversion, bit 8 picks XOR or XNOR).  The clock lane must show five
 * ones then five zeros at the same boundary, and the three data lanes must
 * agree on DE.  The pixels and syncs are assembled into frames and checked
 * against VESA 640x480@60.
 */
#ifndef ULX3S_SIM_H
#define ULX3S_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ulx3s_sim ulx3s_sim;

/* Power on (flip-flops at 0, button released).  NULL on failure. */
ulx3s_sim *ulx3s_sim_create(void);
void ulx3s_sim_destroy(ulx3s_sim *s);

/* Run `cycles` system clock cycles (and the other clocks' edges between). */
void ulx3s_sim_run(ulx3s_sim *s, uint64_t cycles);
uint64_t ulx3s_sim_cycle(const ulx3s_sim *s);      /* system cycles since power-on */
/* System cycle in which the chip's reset was first seen released, 0 = not yet. */
uint64_t ulx3s_sim_reset_release(const ulx3s_sim *s);
int ulx3s_sim_run_to_reset_release(ulx3s_sim *s, uint64_t max_cycles);
/* The eight LEDs (1 = lit): idle, busy, fault, link, heartbeat, booting,
 * PLL locked, TMDS underflow. */
uint32_t ulx3s_sim_leds(const ulx3s_sim *s);

typedef struct ulx3s_frame {
  uint64_t number;         /* 1 for the first complete frame, 0 = none yet */
  uint64_t start_cycle;    /* system cycle in which its vsync began */
  uint32_t width, height;  /* DE pixels of the longest line, lines with DE */
  const uint32_t *pixels;  /* width*height pixels 0xRRGGBB decoded from the lanes;
                              valid until the next run */
  int timing_ok;           /* 1: every pixel clock matches VESA 640x480@60 */
  char timing_error[160];
} ulx3s_frame;

void ulx3s_sim_last_frame(ulx3s_sim *s, ulx3s_frame *f);
uint64_t ulx3s_sim_frames(const ulx3s_sim *s);
uint64_t ulx3s_sim_bad_frames(const ulx3s_sim *s);
/* Run until a new frame completes (at most max_cycles); returns the cycles run. */
uint64_t ulx3s_sim_run_until_frame(ulx3s_sim *s, uint64_t max_cycles);

/* The receiver: 1 once every data lane found its boundary; symbols decoded
 * since then (per lane), of them control symbols; errors: a clock-lane
 * word other than five ones and five zeros, lanes disagreeing on DE, a
 * green or red control symbol other than C1 C0 = 00, a running disparity
 * outside -8..+8.  The first error is described in err. */
typedef struct ulx3s_tmds_stats {
  int locked;
  unsigned phase;          /* bit phase of the symbol boundary (0..9) */
  uint64_t symbols, control_symbols, errors;
  char err[160];
} ulx3s_tmds_stats;
void ulx3s_sim_tmds_stats(const ulx3s_sim *s, ulx3s_tmds_stats *st);

/* UART: queue bytes for the RX pin; take bytes decoded from the TX pin;
 * stop bits decoded as 0. */
void ulx3s_sim_uart_send(ulx3s_sim *s, const void *data, size_t n);
size_t ulx3s_sim_uart_recv(ulx3s_sim *s, uint8_t *data, size_t max);
/* Bytes still queued or being shifted out onto the RX pin. */
size_t ulx3s_sim_uart_sending(const ulx3s_sim *s);
uint64_t ulx3s_sim_uart_errors(const ulx3s_sim *s);

/* SDRAM commands seen on the pins since power-on.  A READ or WRITE is one
 * 32-bit word (BURST 2: two beats of the 16-bit bus, so the bus carries at
 * most one every second cycle); *_in[w] count those whose GPU byte address
 * ({row, bank, column} as sgpu_sdram maps it) lies in [lo, hi) of window w
 * (0 or 1) of ulx3s_sim_sdram_window (e.g. the framebuffer on screen). */
typedef struct ulx3s_sdram_stats {
  uint64_t cycles;         /* system cycles since power-on */
  uint64_t reads, writes, activates, refreshes;
  uint64_t reads_in[2], writes_in[2];
} ulx3s_sdram_stats;
void ulx3s_sim_sdram_window(ulx3s_sim *s, int w, uint32_t lo, uint32_t hi);
void ulx3s_sim_sdram_stats(const ulx3s_sim *s, ulx3s_sdram_stats *st);

/* The host bridge's own counts since power-on (frame_ok and frame_err
 * strobes: frames executed, NAKs sent; the boot ROM's frames included),
 * the chip's interrupt line, and 1 while the boot ROM feeder owns the
 * bridge (for sgpu-sim --board ulx3s, sim/sgpu_board_lsim.cpp). */
uint64_t ulx3s_sim_frames_ok(const ulx3s_sim *s);
uint64_t ulx3s_sim_frames_err(const ulx3s_sim *s);
int ulx3s_sim_irq(const ulx3s_sim *s);
int ulx3s_sim_booting(const ulx3s_sim *s);

/* The handle tests/board/board_link.c takes (the board_sim_* calls it
 * makes -- run, cycle, reset release, UART -- are this simulation's). */
struct board_sim;
struct board_sim *ulx3s_sim_board(ulx3s_sim *s);

#ifdef __cplusplus
}
#endif

#endif
