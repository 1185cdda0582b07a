/* sgpu_link_sim.h — C ABI of the Verilator model of the chip behind its
 * host bridge (rtl/link/sgpu_link_top.v: sgpu_host_bridge + sgpu_top + memory).
 *
 * The model takes and gives the bytes of docs/link-protocol.md: what a
 * host sends is delivered to the bridge's receiver one byte every
 * `cycles_per_byte` clock cycles (a UART byte is 10 bit times), and the
 * bridge's answers leave at the same rate.  sgpu-sim's link server
 * (--listen, --pty) is built on it.  No global state; not thread-safe per
 * instance.
 */
#ifndef SGPU_LINK_SIM_H
#define SGPU_LINK_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgpu_lsim sgpu_lsim;

/* The fewest cycles from one byte to the next the model's bridge takes: its
 * CRC is a byte wide in rtl/link/sgpu_link_top.v (CRC_STEP 8), one cycle of CRC
 * steps per byte.  (The boards' bit-serial bridge needs 9.) */
#define SGPU_LSIM_MIN_CPB 2u

typedef struct sgpu_lsim_config {
  uint32_t cycles_per_byte; /* >= SGPU_LSIM_MIN_CPB; 0 (unpaced) means SGPU_LSIM_MIN_CPB */
} sgpu_lsim_config;

sgpu_lsim *sgpu_lsim_create(const sgpu_lsim_config *config);
void sgpu_lsim_destroy(sgpu_lsim *sim);

/* Queue bytes for the bridge's receiver.  Returns 0, -1 on out of memory. */
int sgpu_lsim_send(sgpu_lsim *sim, const uint8_t *data, size_t len);
/* Bytes queued and not yet delivered. */
size_t sgpu_lsim_rx_queued(const sgpu_lsim *sim);

/* Queue bytes that the host sent after a silence of `quiet_cycles` (its
 * length on the host's clock, converted to cycles).  The bridge used to
 * need those silences (it drained a frame with a bad header until the line
 * had been quiet for its gap timeout); it now NAKs such a frame at once, so
 * the bytes go on at the wire rate like sgpu_lsim_send's and quiet_cycles
 * is ignored.  Returns 0, -1 on out of memory. */
int sgpu_lsim_send_after(sgpu_lsim *sim, const uint8_t *data, size_t len, uint64_t quiet_cycles);
/* Cycles a queued byte waited for such a silence to pass: 0 (see above). */
uint64_t sgpu_lsim_quiet_cycles(const sgpu_lsim *sim);

/* Run up to max_cycles clock cycles, and on to the end of an answer the
 * bridge has begun (so a server hands each answer over whole).  Bytes the
 * bridge sends are stored in out (up to cap; the run stops early once out
 * is full) and *out_len says how many.  Returns the cycles run. */
uint64_t sgpu_lsim_run(sgpu_lsim *sim, uint64_t max_cycles, uint8_t *out, size_t cap,
                       size_t *out_len);

uint64_t sgpu_lsim_cycle(const sgpu_lsim *sim);
int sgpu_lsim_irq(const sgpu_lsim *sim);
/* Frames the bridge executed and NAKs it sent since create. */
uint64_t sgpu_lsim_frames_ok(const sgpu_lsim *sim);
uint64_t sgpu_lsim_frames_err(const sgpu_lsim *sim);

#ifdef __cplusplus
}
#endif
#endif
