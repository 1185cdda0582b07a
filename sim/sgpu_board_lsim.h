/* sgpu_board_lsim.h — the link model of sim/sgpu_link_sim.h, served by a
 * board-level simulation instead of the bare chip: the iCEBreaker image
 * (rtl/boards/icebreaker_top.v, tests/board/board_sim.h: 12 MHz system and
 * 25.125 MHz pixel clocks at their real ratio, SPRAM, boot ROM) or the
 * ULX3S image with the SDRAM model on its pins (tests/ulx3s/ulx3s_sim.h:
 * 30 / 25 / 125 MHz PLL clocks, TMDS decoded from the GPDI lanes).
 *
 * The functions mean what their sgpu_lsim_* namesakes do, with one
 * difference: the bytes enter and leave through the board's pins.  What a
 * host sends is shifted onto the UART RX pin bit by bit at the board's
 * 3 Mbaud (8N1, back to back: 40 system cycles a byte on the iCEBreaker,
 * 100 on the ULX3S), through the board's UART receiver, boot feeder and
 * host bridge RTL; the TX pin is decoded back into bytes.  Cycles are the
 * board's system clock cycles.  sgpu_blsim_create powers the board on and
 * runs it until its boot ROM has handed the bridge to the UART.
 * sgpu-sim --board (sim/sgpu_link_model.h) serves the link from it.  No
 * global state; not thread-safe per instance.
 */
#ifndef SGPU_BOARD_LSIM_H
#define SGPU_BOARD_LSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgpu_blsim sgpu_blsim;

/* board: SGPU_BOARD_ICEBREAKER or SGPU_BOARD_ULX3S (sgpu_hw.h, the identity
 * block's board codes).  Power on and boot (a few hundred thousand system cycles; under a second
 * of wall time).  NULL when the model cannot be made or the boot never
 * finishes. */
sgpu_blsim *sgpu_blsim_create(uint32_t board);
void sgpu_blsim_destroy(sgpu_blsim *s);

/* As sgpu_lsim_send / _send_after / _rx_queued / _quiet_cycles. */
int sgpu_blsim_send(sgpu_blsim *s, const uint8_t *data, size_t len);
int sgpu_blsim_send_after(sgpu_blsim *s, const uint8_t *data, size_t len, uint64_t quiet_cycles);
size_t sgpu_blsim_rx_queued(const sgpu_blsim *s);
uint64_t sgpu_blsim_quiet_cycles(const sgpu_blsim *s);

/* Run up to max_cycles system cycles; bytes decoded from the TX pin go to
 * out (up to cap).  Returns the cycles run. */
uint64_t sgpu_blsim_run(sgpu_blsim *s, uint64_t max_cycles, uint8_t *out, size_t cap, size_t *out_len);

/* System cycles since power-on; the chip's interrupt line; frames the
 * bridge executed and NAKs it sent since the boot ended (the boot ROM's
 * own frames are not counted). */
uint64_t sgpu_blsim_cycle(const sgpu_blsim *s);
int sgpu_blsim_irq(const sgpu_blsim *s);
uint64_t sgpu_blsim_frames_ok(const sgpu_blsim *s);
uint64_t sgpu_blsim_frames_err(const sgpu_blsim *s);

/* The board's system clock (Hz) and UART rate (baud); the system cycle in
 * which the boot ended (the bridge belongs to the UART from then on). */
uint64_t sgpu_blsim_clock_hz(const sgpu_blsim *s);
uint32_t sgpu_blsim_baud(const sgpu_blsim *s);
uint64_t sgpu_blsim_boot_cycle(const sgpu_blsim *s);

/* The last complete frame on the board's video pins as RGB888 (the
 * iCEBreaker's 4 bits a colour widened by replication; the ULX3S's TMDS
 * decoded), 640x480, valid until the next run; *number is 0 while none
 * has completed.  *timing_ok: its syncs and DE matched VESA 640x480@60. */
void sgpu_blsim_frame(sgpu_blsim *s, uint64_t *number, uint32_t *width, uint32_t *height,
                      const uint8_t **rgb, int *timing_ok);

#ifdef __cplusplus
}
#endif
#endif
