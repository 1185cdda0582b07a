/* sgpu_link_model.c — see sgpu_link_model.h. */
#include "sgpu_link_model.h"

#include <stdio.h>
#include <string.h>

#include "sgpu_hw.h"
#include "sgpu_link_sim.h"
#ifndef SGPU_LINK_MODEL_NO_BOARDS
#include "sgpu_board_lsim.h"
#endif

const char *const sgpu_link_model_boards[] = {"sim", "icebreaker", "ulx3s", NULL};

int sgpu_link_model_known(const char *board) {
  for (int i = 0; sgpu_link_model_boards[i]; i++)
    if (!strcmp(board, sgpu_link_model_boards[i])) return 1;
  return 0;
}

/* ---- the chip behind its bridge (sim/sgpu_link_sim.h) */
static void c_destroy(void *m) { sgpu_lsim_destroy(m); }
static int c_send_after(void *m, const uint8_t *d, size_t n, uint64_t q) { return sgpu_lsim_send_after(m, d, n, q); }
static uint64_t c_quiet(const void *m) { return sgpu_lsim_quiet_cycles(m); }
static uint64_t c_run(void *m, uint64_t c, uint8_t *o, size_t cap, size_t *n) { return sgpu_lsim_run(m, c, o, cap, n); }
static uint64_t c_cycle(const void *m) { return sgpu_lsim_cycle(m); }
static uint64_t c_ok(const void *m) { return sgpu_lsim_frames_ok(m); }
static uint64_t c_err(const void *m) { return sgpu_lsim_frames_err(m); }
static size_t c_queued(const void *m) { return sgpu_lsim_rx_queued(m); }
static const sgpu_link_model_ops chip_ops = {c_destroy, c_send_after, c_quiet, c_run, c_cycle, c_ok, c_err, NULL,
                                             c_queued};

#ifndef SGPU_LINK_MODEL_NO_BOARDS
/* ---- a board-level simulation (sim/sgpu_board_lsim.h) */
static void b_destroy(void *m) { sgpu_blsim_destroy(m); }
static int b_send_after(void *m, const uint8_t *d, size_t n, uint64_t q) { return sgpu_blsim_send_after(m, d, n, q); }
static uint64_t b_quiet(const void *m) { return sgpu_blsim_quiet_cycles(m); }
static uint64_t b_run(void *m, uint64_t c, uint8_t *o, size_t cap, size_t *n) { return sgpu_blsim_run(m, c, o, cap, n); }
static uint64_t b_cycle(const void *m) { return sgpu_blsim_cycle(m); }
static uint64_t b_ok(const void *m) { return sgpu_blsim_frames_ok(m); }
static uint64_t b_err(const void *m) { return sgpu_blsim_frames_err(m); }
static void b_frame(void *m, uint64_t *num, uint32_t *w, uint32_t *h, const uint8_t **rgb, int *ok) {
  sgpu_blsim_frame(m, num, w, h, rgb, ok);
}
static size_t b_queued(const void *m) { return sgpu_blsim_rx_queued(m); }
static const sgpu_link_model_ops board_ops = {b_destroy, b_send_after, b_quiet, b_run,
                                              b_cycle,   b_ok,         b_err,   b_frame, b_queued};
#endif

int sgpu_link_model_open(sgpu_link_model *lm, const char *board, uint32_t cycles_per_byte, char *err,
                         size_t errn) {
  memset(lm, 0, sizeof *lm);
  if (!strcmp(board, "sim")) {
    sgpu_lsim_config cfg = {cycles_per_byte};
    sgpu_lsim *m = sgpu_lsim_create(&cfg);
    if (!m) {
      snprintf(err, errn, "cannot create the link model");
      return -1;
    }
    lm->ops = &chip_ops;
    lm->m = m;
    lm->board = "sim";
    lm->clock_hz = SGPU_NOMINAL_CLOCK_HZ;
    lm->baud = cycles_per_byte ? (uint32_t)(10ull * SGPU_NOMINAL_CLOCK_HZ / cycles_per_byte) : 0;
    lm->boot_cycles = sgpu_lsim_cycle(m);
    return 0;
  }
  if (!strcmp(board, "icebreaker") || !strcmp(board, "ulx3s")) {
#ifdef SGPU_LINK_MODEL_NO_BOARDS
    snprintf(err, errn, "board '%s': this sgpu-sim was built without the board models (built with make SIM_BOARDS=0)",
             board);
    return -1;
#else
    int ice = !strcmp(board, "icebreaker");
    sgpu_blsim *m = sgpu_blsim_create(ice ? SGPU_BOARD_ICEBREAKER : SGPU_BOARD_ULX3S);
    if (!m) {
      snprintf(err, errn, "board '%s': the board model did not boot", board);
      return -1;
    }
    lm->ops = &board_ops;
    lm->m = m;
    lm->board = ice ? "icebreaker" : "ulx3s";
    lm->clock_hz = sgpu_blsim_clock_hz(m);
    lm->baud = sgpu_blsim_baud(m);
    lm->boot_cycles = sgpu_blsim_boot_cycle(m);
    return 0;
#endif
  }
  snprintf(err, errn, "unknown board '%s' (sim, icebreaker, ulx3s)", board);
  return -1;
}

void sgpu_link_model_close(sgpu_link_model *lm) {
  if (lm->ops) lm->ops->destroy(lm->m);
  memset(lm, 0, sizeof *lm);
}
