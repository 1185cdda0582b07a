/* transport_sim.h — the sim transport: the in-process Verilator model
 * (owned by transport_sim.c; its URI options are parsed in transport.c). */
#ifndef SGPU_TRANSPORT_SIM_H
#define SGPU_TRANSPORT_SIM_H

#include "sgpu_sim.h" /* plain C declarations; the model is linked only without SGPU_NO_SIM */
#include "transport.h"

/* Create the model with cfg: 0 and *tr, or an sgpu_error with msg set
 * (SGPU_ERROR_NOT_SUPPORTED in a library built with SGPU_NO_SIM). */
int sgpu__sim_transport_open(const sgpu_sim_config *cfg, sgpu_transport **tr, char *msg,
                             size_t msg_size);

#endif
