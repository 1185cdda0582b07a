/* test_regs_diff — the node registers' rules, chip against the reference
 * model: random writes (good and bad values) to RING_BASE, RING_SIZE,
 * RING_WPTR, RPTR_ADDR, CONTROL, WATCHDOG and QUANTUM of every ring block
 * (both nodes and, with CAPS.PRIORITY, their high-priority rings, with
 * CAPS.TIME_SLICE their second normal rings).  After every
 * write: CFG_ERROR and CFG_ERROR_ADDR, the read-back of every written
 * register, STATUS (ENABLED, FAULTED) and, on a fault, FAULT_REASON /
 * FAULT_ADDR must agree (a doorbell runs whatever the ring holds: zeros,
 * which fault BAD_HEADER, or NOPs).
 *
 *   test_regs_diff [--seeds N] [--base S] [--verbose]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"
#include "sgpu_ref.h"

static const char *name_of(uint32_t r) {
  switch (r) {
  case SGPU_NREG_RING_BASE: return "RING_BASE";
  case SGPU_NREG_RING_SIZE: return "RING_SIZE";
  case SGPU_NREG_RING_WPTR: return "RING_WPTR";
  case SGPU_NREG_RPTR_ADDR: return "RPTR_ADDR";
  case SGPU_NREG_CONTROL: return "CONTROL";
  case SGPU_NREG_WATCHDOG: return "WATCHDOG";
  case SGPU_NREG_QUANTUM: return "QUANTUM";
  case SGPU_NREG_STATUS: return "STATUS";
  case SGPU_NREG_RING_RPTR: return "RING_RPTR";
  case SGPU_NREG_FAULT_REASON: return "FAULT_REASON";
  case SGPU_NREG_FAULT_ADDR: return "FAULT_ADDR";
  default: return "?";
  }
}

static uint32_t value_for(uint32_t r, uint32_t *rng, uint32_t mem) {
  uint32_t k = chip_rand(rng) % 16, v = chip_rand(rng);
  switch (r) {
  case SGPU_NREG_RING_BASE:
    if (k < 10) return 0x10000u + 0x1000u * (chip_rand(rng) % 16);
    if (k < 12) return mem - 64 * (chip_rand(rng) % 4);
    if (k < 14) return 0x10000u + 4 * (chip_rand(rng) % 64); /* misaligned */
    return v;
  case SGPU_NREG_RING_SIZE:
    if (k < 11) return 64u << (chip_rand(rng) % 15); /* 64 .. 1 MiB */
    if (k < 13) return 2u << (chip_rand(rng) % 31);
    return v % 3000;
  case SGPU_NREG_RING_WPTR:
    if (k < 8) return 4 * (chip_rand(rng) % 16);
    if (k < 12) return 4 * (chip_rand(rng) % 2048);
    return v % 5000;
  case SGPU_NREG_RPTR_ADDR:
    if (k < 8) return (0x20000u + 4 * (chip_rand(rng) % 64)) | (chip_rand(rng) & 1);
    if (k < 10) return (mem - 4) | 1;
    if (k < 12) return mem | 1;
    return v;
  case SGPU_NREG_CONTROL:
    if (k < 7) return SGPU_CONTROL_ENABLE;
    if (k < 10) return 0;
    if (k < 13) return SGPU_CONTROL_RESET | (chip_rand(rng) & 1);
    return v & 0xFF;
  case SGPU_NREG_QUANTUM:
    if (k < 4) return 0;
    if (k < 12) return 1 + chip_rand(rng) % 5000;
    if (k < 14) return 0xFFFFFFu + chip_rand(rng) % 3;
    return v;
  default: /* WATCHDOG */
    if (k < 12) return 1000 + chip_rand(rng) % 100000;
    if (k < 14) return 0xFFFFFFu + chip_rand(rng) % 3;
    return v;
  }
}

int main(int argc, char **argv) {
  uint32_t seeds = 40, base = 1;
  int verbose = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--base") && i + 1 < argc) base = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    else {
      fprintf(stderr, "usage: %s [--seeds N] [--base S] [--verbose]\n", argv[0]);
      return 2;
    }
  }
  static const uint32_t regs[] = {SGPU_NREG_RING_BASE, SGPU_NREG_RING_SIZE, SGPU_NREG_RING_WPTR,
                                  SGPU_NREG_RPTR_ADDR, SGPU_NREG_CONTROL,   SGPU_NREG_WATCHDOG,
                                  SGPU_NREG_QUANTUM};
  static const uint32_t checked[] = {SGPU_NREG_RING_BASE, SGPU_NREG_RING_SIZE, SGPU_NREG_RING_WPTR,
                                     SGPU_NREG_RPTR_ADDR, SGPU_NREG_WATCHDOG,  SGPU_NREG_RING_RPTR,
                                     SGPU_NREG_QUANTUM};
  uint32_t writes = 0, rejected = 0, faults = 0;
  for (uint32_t si = 0; si < seeds; si++) {
    const uint32_t seed = base + si;
    uint32_t rng = seed * 2654435761u + 1;
    sgpu_sim *sim = chip_create(NULL);
    const uint32_t mem = sgpu_sim_mem_bytes(sim), nodes = chip_rings(sim);  /* with the high-priority and second normal rings */
    sgpu_ref_config rc = {mem, nodes, sgpu_sim_sources(sim), SGPU_MAX_IB_DEPTH};
    sgpu_ref *ref = sgpu_ref_create(&rc);
    CHIP_CHECK(ref != NULL, "sgpu_ref_create");
    /* the ring area holds NOPs in some places, zeros (BAD_HEADER) elsewhere */
    for (uint32_t a = 0x10000; a < 0x20000; a += 4) {
      uint32_t v = (a >> 12) & 1 ? SGPU_PKT_HEADER(SGPU_OP_NOP, 0, 0) : 0;
      chip_poke(sim, a, v);
      CHIP_CHECK(sgpu_ref_mem_write(ref, a, &v, 4) == 0, "model memory");
    }
    for (uint32_t i = 0; i < 150; i++) {
      const uint32_t n = chip_rand(&rng) % nodes, r = regs[chip_rand(&rng) % (sizeof regs / sizeof regs[0])];
      const uint32_t v = value_for(r, &rng, mem), off = SGPU_NODE_REG(n, r);
      chip_wr(sim, off, v);
      int mr = sgpu_ref_reg_write(ref, off, v);
      CHIP_CHECK(mr == 0, "model does not define node register 0x%03x", off);
      writes++;
      /* let a doorbell's work finish (the model runs it at once) */
      for (int t = 0; t < 200; t++) {
        sgpu_sim_run(sim, 200, 0);
        uint32_t busy = 0;
        for (uint32_t nn = 0; nn < nodes; nn++) busy |= chip_nrd(sim, nn, SGPU_NREG_STATUS) & SGPU_STATUS_BUSY;
        if (!busy) break;
      }
      char what[160];
      snprintf(what, sizeof what, "seed %u write %u: node %u %s <- 0x%08x", seed, i, n, name_of(r), v);
      uint32_t cv = chip_rd(sim, SGPU_REG_CFG_ERROR), mv = 0;
      sgpu_ref_reg_read(ref, SGPU_REG_CFG_ERROR, &mv);
      if (verbose) printf("%s: CFG_ERROR chip 0x%x model 0x%x\n", what, cv, mv);
      CHIP_CHECK(cv == mv, "%s: CFG_ERROR chip 0x%x, model 0x%x", what, cv, mv);
      if (cv) {
        rejected++;
        uint32_t ca = chip_rd(sim, SGPU_REG_CFG_ERROR_ADDR), ma = 0;
        sgpu_ref_reg_read(ref, SGPU_REG_CFG_ERROR_ADDR, &ma);
        CHIP_CHECK(ca == ma, "%s: CFG_ERROR_ADDR chip 0x%x, model 0x%x", what, ca, ma);
        chip_wr(sim, SGPU_REG_CFG_ERROR, cv);
        sgpu_ref_reg_write(ref, SGPU_REG_CFG_ERROR, cv);
      }
      for (uint32_t nn = 0; nn < nodes; nn++) {
        for (size_t k = 0; k < sizeof checked / sizeof checked[0]; k++) {
          uint32_t c = chip_nrd(sim, nn, checked[k]), m = 0;
          sgpu_ref_reg_read(ref, SGPU_NODE_REG(nn, checked[k]), &m);
          CHIP_CHECK(c == m, "%s: node %u %s chip 0x%08x, model 0x%08x", what, nn, name_of(checked[k]), c, m);
        }
        uint32_t cs = chip_nrd(sim, nn, SGPU_NREG_STATUS), ms = 0;
        sgpu_ref_reg_read(ref, SGPU_NODE_REG(nn, SGPU_NREG_STATUS), &ms);
        const uint32_t sm = SGPU_STATUS_ENABLED | SGPU_STATUS_FAULTED;
        CHIP_CHECK((cs & sm) == (ms & sm), "%s: node %u STATUS chip 0x%x, model 0x%x", what, nn, cs, ms);
        if (cs & SGPU_STATUS_FAULTED) {
          static const uint32_t fr[] = {SGPU_NREG_FAULT_REASON, SGPU_NREG_FAULT_ADDR};
          for (size_t k = 0; k < 2; k++) {
            uint32_t c = chip_nrd(sim, nn, fr[k]), m = 0;
            sgpu_ref_reg_read(ref, SGPU_NODE_REG(nn, fr[k]), &m);
            CHIP_CHECK(c == m, "%s: node %u %s chip 0x%08x, model 0x%08x", what, nn, name_of(fr[k]), c, m);
          }
        }
      }
    }
    const sgpu_ref_fault *f;
    faults += (uint32_t)sgpu_ref_faults(ref, &f);
    sgpu_ref_destroy(ref);
    sgpu_sim_destroy(sim);
  }
  printf("%u seeds, %u register writes, %u rejected (CFG_ERROR), %u faults: chip == model\n", seeds, writes,
         rejected, faults);
  CHIP_CHECK(rejected > writes / 20 && faults > 0, "too few rejected writes or faults to mean anything");
  printf("test_regs_diff: PASS\n");
  return 0;
}
