/* sgpu_link_model.h — the device behind sgpu-sim's link server, by board:
 * one small table of the calls of sim/sgpu_link_sim.h, filled either by
 * that model (the chip behind its host bridge, "sim") or by a board-level
 * simulation (sim/sgpu_board_lsim.h: "icebreaker", "ulx3s").  The server
 * (sim/sgpu_sim_main.c) only calls through the table.
 */
#ifndef SGPU_LINK_MODEL_H
#define SGPU_LINK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgpu_link_model_ops {
  void (*destroy)(void *m);
  int (*send_after)(void *m, const uint8_t *data, size_t len, uint64_t quiet_cycles);
  uint64_t (*quiet_cycles)(const void *m);
  uint64_t (*run)(void *m, uint64_t max_cycles, uint8_t *out, size_t cap, size_t *out_len);
  uint64_t (*cycle)(const void *m);
  uint64_t (*frames_ok)(const void *m);
  uint64_t (*frames_err)(const void *m);
  /* the last complete frame on the video pins as RGB888 (number 0: none
   * yet); NULL where the model has no video pins to capture */
  void (*frame)(void *m, uint64_t *number, uint32_t *width, uint32_t *height, const uint8_t **rgb,
                int *timing_ok);
  /* host bytes queued and not yet taken by the device's receiver */
  size_t (*rx_queued)(const void *m);
} sgpu_link_model_ops;

typedef struct sgpu_link_model {
  const sgpu_link_model_ops *ops;
  void *m;
  const char *board;     /* "sim", "icebreaker", "ulx3s" */
  uint64_t clock_hz;     /* the clock whose cycles the calls count */
  uint32_t baud;         /* the wire rate in simulated time; 0 = unpaced */
  uint64_t boot_cycles;  /* cycles run before the first client (power-on and boot) */
} sgpu_link_model;

/* The boards --board takes, in --help's order. */
extern const char *const sgpu_link_model_boards[];

/* 1 when `board` is one of sgpu_link_model_boards. */
int sgpu_link_model_known(const char *board);

/* Make the model of `board`.  cycles_per_byte paces "sim" as
 * sgpu_lsim_config does (0: unpaced); the boards run at their own UART
 * rate.  Returns 0, or -1 with a one-line reason in err. */
int sgpu_link_model_open(sgpu_link_model *lm, const char *board, uint32_t cycles_per_byte, char *err,
                         size_t errn);
void sgpu_link_model_close(sgpu_link_model *lm);

#ifdef __cplusplus
}
#endif
#endif
