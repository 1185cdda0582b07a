/* transport_sim.c — the sim transport (transport_sim.h): the in-process
 * Verilator model (sim/sgpu_sim.h) behind the transport ops.
 *
 * Every op takes the transport's own mutex: the library releases the
 * device lock while it waits (events.c), so a waiting thread may advance
 * the model while another one reads a register. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport_sim.h"

#ifndef SGPU_NO_SIM

typedef struct sim_transport {
  sgpu_transport base;
  sgpu_sim *sim;
  pthread_mutex_t mu;
} sim_transport;

static sgpu_sim *sim_of(sgpu_transport *t) { return ((sim_transport *)t)->sim; }
#define SIM_LOCK(t) pthread_mutex_lock(&((sim_transport *)(t))->mu)
#define SIM_UNLOCK(t) pthread_mutex_unlock(&((sim_transport *)(t))->mu)

static int sgpu_tr_sim_reg_read(sgpu_transport *t, uint32_t offset, uint32_t *value) {
  SIM_LOCK(t);
  int r = sgpu_sim_reg_read(sim_of(t), offset, value) == 0 ? 0 : SGPU_ERROR_IO;
  SIM_UNLOCK(t);
  return r;
}
static int sgpu_tr_sim_reg_write(sgpu_transport *t, uint32_t offset, uint32_t value) {
  SIM_LOCK(t);
  int r = sgpu_sim_reg_write(sim_of(t), offset, value) == 0 ? 0 : SGPU_ERROR_IO;
  SIM_UNLOCK(t);
  return r;
}
static int sgpu_tr_sim_mem_read(sgpu_transport *t, uint32_t address, void *data, uint32_t size) {
  SIM_LOCK(t);
  int r = sgpu_sim_mem_read(sim_of(t), address, data, size);
  SIM_UNLOCK(t);
  return r == 0 ? 0 : r == -2 ? SGPU_ERROR_INVALID_ADDRESS : SGPU_ERROR_IO;
}
static int sgpu_tr_sim_mem_write(sgpu_transport *t, uint32_t address, const void *data,
                                 uint32_t size) {
  SIM_LOCK(t);
  int r = sgpu_sim_mem_write(sim_of(t), address, data, size);
  SIM_UNLOCK(t);
  return r == 0 ? 0 : r == -2 ? SGPU_ERROR_INVALID_ADDRESS : SGPU_ERROR_IO;
}
static int sgpu_tr_sim_run(sgpu_transport *t, uint64_t max_cycles, int stop_on_irq) {
  SIM_LOCK(t);
  sgpu_sim_run(sim_of(t), max_cycles, stop_on_irq);
  SIM_UNLOCK(t);
  return 0;
}
static int sgpu_tr_sim_irq(sgpu_transport *t) {
  SIM_LOCK(t);
  int r = sgpu_sim_irq(sim_of(t)) ? 1 : 0;
  SIM_UNLOCK(t);
  return r;
}
static uint64_t sgpu_tr_sim_now(sgpu_transport *t) {
  SIM_LOCK(t);
  uint64_t c = sgpu_sim_cycle(sim_of(t));
  SIM_UNLOCK(t);
  return c;
}
static int sgpu_tr_sim_frame(sgpu_transport *t, uint32_t source, sgpu_tr_frame *frame) {
  sgpu_sim_frame f;
  memset(&f, 0, sizeof f);
  SIM_LOCK(t);
  int r = sgpu_sim_last_frame(sim_of(t), source, &f);
  SIM_UNLOCK(t);
  if (r != 0) return SGPU_ERROR_INVALID_SOURCE;
  frame->width = f.width;
  frame->height = f.height;
  frame->rgb = f.rgb;
  frame->frame_number = f.frame_number;
  frame->start_cycle = f.start_cycle;
  frame->h_total = f.h_total;
  frame->v_total = f.v_total;
  return 0;
}
static int sgpu_tr_sim_run_until_frame(sgpu_transport *t, uint32_t source, uint64_t max_cycles) {
  if (source >= sgpu_sim_sources(sim_of(t))) return SGPU_ERROR_INVALID_SOURCE;
  SIM_LOCK(t);
  sgpu_sim_run_until_frame(sim_of(t), source, max_cycles);
  SIM_UNLOCK(t);
  return 0;
}
static void sgpu_tr_sim_close(sgpu_transport *t) {
  sgpu_sim_destroy(sim_of(t));
  pthread_mutex_destroy(&((sim_transport *)t)->mu);
  free(t);
}

static const sgpu_transport_ops sim_ops = {
    "sim",
    sgpu_tr_sim_reg_read,
    sgpu_tr_sim_reg_write,
    sgpu_tr_sim_mem_read,
    sgpu_tr_sim_mem_write,
    sgpu_tr_sim_run,
    sgpu_tr_sim_irq,
    sgpu_tr_sim_now,
    sgpu_tr_sim_frame,
    sgpu_tr_sim_close,
    sgpu_tr_sim_run_until_frame,
    NULL, /* the model has no transport-level failures to explain */
    0,    /* simulated time */
};
int sgpu__sim_transport_open(const sgpu_sim_config *cfg, sgpu_transport **tr, char *msg,
                             size_t msg_size) {
  sim_transport *st = calloc(1, sizeof *st);
  if (!st) {
    if (msg) snprintf(msg, msg_size, "out of memory creating the sim transport");
    return SGPU_ERROR_NO_MEM;
  }
  st->base.ops = &sim_ops;
  st->sim = sgpu_sim_create(cfg);
  if (!st->sim) {
    free(st);
    if (msg)
      snprintf(msg, msg_size, "the simulation model could not be created%s%s",
               cfg->trace_path ? " (trace file " : "", cfg->trace_path ? "not writable?)" : "");
    return SGPU_ERROR_IO;
  }
  pthread_mutex_init(&st->mu, NULL);
  *tr = &st->base;
  return 0;
}

#else /* SGPU_NO_SIM */

int sgpu__sim_transport_open(const sgpu_sim_config *cfg, sgpu_transport **tr, char *msg,
                             size_t msg_size) {
  (void)cfg;
  (void)tr;
  if (msg)
    snprintf(msg, msg_size,
             "this libsgpu was built without the simulation model (make nosim): use tcp:HOST:PORT "
             "to an sgpu-sim server, serial: or usb:");
  return SGPU_ERROR_NOT_SUPPORTED;
}

#endif /* SGPU_NO_SIM */
