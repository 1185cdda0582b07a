/* bench_demo_wrap.c — linked into each side's sgpu-demo for `make bench`
 * (tests/bench/bench.mk: build/bench/.../bench_demo, with
 * -Wl,--wrap=sgpu_sim_create,--wrap=sgpu_sim_destroy): when the library
 * destroys its in-process chip, prints on stderr
 *   BENCH_SIM_CYCLES N
 * the cycles the chip ran after its reset (sgpu_sim_create's own reset
 * cycles excluded).  tools/bench.sh divides the host instructions that
 * callgrind counts in the model's entry points (the calls that run cycles)
 * by N.  Only sgpu_sim.h is used, so the same file serves the model of any
 * commit. */
#include <stdint.h>
#include <stdio.h>

#include "sgpu_sim.h"

sgpu_sim *__real_sgpu_sim_create(const sgpu_sim_config *config);
void __real_sgpu_sim_destroy(sgpu_sim *sim);
sgpu_sim *__wrap_sgpu_sim_create(const sgpu_sim_config *config);
void __wrap_sgpu_sim_destroy(sgpu_sim *sim);

static uint64_t reset_end;

sgpu_sim *__wrap_sgpu_sim_create(const sgpu_sim_config *config) {
  sgpu_sim *sim = __real_sgpu_sim_create(config);
  if (sim) reset_end = sgpu_sim_cycle(sim);
  return sim;
}

void __wrap_sgpu_sim_destroy(sgpu_sim *sim) {
  if (sim) fprintf(stderr, "BENCH_SIM_CYCLES %llu\n", (unsigned long long)(sgpu_sim_cycle(sim) - reset_end));
  __real_sgpu_sim_destroy(sim);
}
