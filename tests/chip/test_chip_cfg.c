/* test_chip_cfg — bad register writes are rejected, reported in CFG_ERROR
 * (bit per kind, CFG_ERROR_ADDR = offset, CFG_ERROR interrupt), leave the
 * register as it was, and cannot wedge the engine: afterwards a correctly
 * programmed ring runs and fences.
 */
#include <stdio.h>

#include "chip_util.h"

#define RING0 0x00010000u
#define FENCE0 0x0001E000u
#define DATA 0x00100000u

typedef struct bad_write {
  const char *name;
  uint32_t nreg;      /* node register */
  uint32_t value;
  uint32_t bit;       /* the one CFG_ERROR bit docs/interface.md names for this write */
  int enabled;        /* write while the node is enabled */
} bad_write;

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  const uint32_t mem = chip_rd(sim, SGPU_REG_MEM_SIZE);
  chip_wr(sim, SGPU_REG_INT_ENABLE, SGPU_INT_CFG_ERROR);
  /* a valid, disabled configuration to start from */
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, SGPU_CONTROL_RESET);
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, 0);
  chip_nwr(sim, 0, SGPU_NREG_RING_BASE, RING0);
  chip_nwr(sim, 0, SGPU_NREG_RING_SIZE, 4096);
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), 0, "CFG_ERROR after valid writes");
  const bad_write cases[] = {
      {"size_not_pow2", SGPU_NREG_RING_SIZE, 3000, SGPU_CFG_ERROR_RING_SIZE, 0},
      {"size_too_small", SGPU_NREG_RING_SIZE, 32, SGPU_CFG_ERROR_RING_SIZE, 0},
      {"size_too_big", SGPU_NREG_RING_SIZE, 2u << 20, SGPU_CFG_ERROR_RING_SIZE, 0},
      {"size_zero", SGPU_NREG_RING_SIZE, 0, SGPU_CFG_ERROR_RING_SIZE, 0},
      {"base_misaligned", SGPU_NREG_RING_BASE, RING0 + 0x20, SGPU_CFG_ERROR_MISALIGNED, 0},
      {"base_odd", SGPU_NREG_RING_BASE, RING0 + 2, SGPU_CFG_ERROR_MISALIGNED, 0},
      {"base_outside", SGPU_NREG_RING_BASE, mem, SGPU_CFG_ERROR_VALUE_RANGE, 0},
      {"wptr_range", SGPU_NREG_RING_WPTR, 4096, SGPU_CFG_ERROR_POINTER_RANGE, 1},
      {"wptr_far", SGPU_NREG_RING_WPTR, 0x80000000u, SGPU_CFG_ERROR_POINTER_RANGE, 1},
      {"wptr_misaligned", SGPU_NREG_RING_WPTR, 6, SGPU_CFG_ERROR_MISALIGNED, 1},
      {"control_unknown", SGPU_NREG_CONTROL, 0x100, SGPU_CFG_ERROR_UNKNOWN_BITS, 0},
      {"rptr_addr_bit1", SGPU_NREG_RPTR_ADDR, 0x0001F002u, SGPU_CFG_ERROR_UNKNOWN_BITS, 0},
      {"rptr_addr_outside", SGPU_NREG_RPTR_ADDR, mem | 1u, SGPU_CFG_ERROR_VALUE_RANGE, 0},
      {"rptr_addr_while_enabled", SGPU_NREG_RPTR_ADDR, 0x0001F001u, SGPU_CFG_ERROR_WHILE_ENABLED, 1},
      {"watchdog_25_bits", SGPU_NREG_WATCHDOG, 0x01000000u, SGPU_CFG_ERROR_VALUE_RANGE, 0},
      {"base_while_enabled", SGPU_NREG_RING_BASE, 0x00014000u, SGPU_CFG_ERROR_WHILE_ENABLED, 1},
      {"size_while_enabled", SGPU_NREG_RING_SIZE, 1024, SGPU_CFG_ERROR_WHILE_ENABLED, 1},
      {"unmapped_node_reg", 0x7C, 1, SGPU_CFG_ERROR_UNKNOWN_BITS, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const bad_write *c = &cases[i];
    chip_nwr(sim, 0, SGPU_NREG_CONTROL, c->enabled ? SGPU_CONTROL_ENABLE : 0);
    uint32_t before = c->nreg < 0x54 ? chip_nrd(sim, 0, c->nreg) : 0;
    chip_nwr(sim, 0, c->nreg, c->value);
    sgpu_sim_run(sim, 2, 0);
    uint32_t err = chip_rd(sim, SGPU_REG_CFG_ERROR);
    uint32_t eaddr = chip_rd(sim, SGPU_REG_CFG_ERROR_ADDR);
    uint32_t after = c->nreg < 0x54 ? chip_nrd(sim, 0, c->nreg) : 0;
    uint32_t is = chip_rd(sim, SGPU_REG_INT_STATUS);
    printf("%-20s CFG_ERROR 0x%02x ADDR 0x%03x reg 0x%08x -> 0x%08x\n", c->name, err, eaddr, before, after);
    CHIP_CHECK(err == c->bit, "%s: CFG_ERROR 0x%x, expected exactly 0x%x", c->name, err, c->bit);
    CHIP_EQ(eaddr, SGPU_NODE_REG(0, c->nreg), "CFG_ERROR_ADDR");
    if (c->nreg != SGPU_NREG_CONTROL) CHIP_EQ(after, before, "rejected write changed the register");
    CHIP_CHECK(is & SGPU_INT_CFG_ERROR, "%s: no CFG_ERROR interrupt (INT_STATUS 0x%08x)", c->name, is);
    CHIP_CHECK(sgpu_sim_irq(sim), "%s: irq_o low with CFG_ERROR enabled", c->name);
    chip_wr(sim, SGPU_REG_CFG_ERROR, err); /* w1c */
    chip_wr(sim, SGPU_REG_INT_STATUS, SGPU_INT_CFG_ERROR);
    CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), 0, "CFG_ERROR after w1c");
    CHIP_EQ(chip_rd(sim, SGPU_REG_INT_STATUS) & SGPU_INT_CFG_ERROR, 0, "INT_STATUS.CFG_ERROR after w1c");
    CHIP_CHECK(!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_FAULTED), "%s: bad write faulted the engine",
               c->name);
  }
  /* a base aligned for a small ring but not for the ring size: refused at ENABLE */
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, 0);
  chip_nwr(sim, 0, SGPU_NREG_RING_BASE, RING0 + 0x100);
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), 0, "64-byte aligned RING_BASE");
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, SGPU_CONTROL_ENABLE);
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), SGPU_CFG_ERROR_MISALIGNED, "ENABLE with RING_BASE not size-aligned");
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR_ADDR), SGPU_NODE_REG(0, SGPU_NREG_CONTROL), "CFG_ERROR_ADDR of ENABLE");
  CHIP_CHECK(!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_ENABLED), "ring enabled with a misaligned base");
  chip_wr(sim, SGPU_REG_CFG_ERROR, 0xFFFFFFFFu);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  /* global registers: read-only ones refuse writes */
  chip_wr(sim, SGPU_REG_ID, 0);
  CHIP_EQ(chip_rd(sim, SGPU_REG_ID), SGPU_HW_MAGIC, "ID after a write");
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), SGPU_CFG_ERROR_UNKNOWN_BITS, "CFG_ERROR of a write to ID");
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR_ADDR), SGPU_REG_ID, "CFG_ERROR_ADDR of the ID write");
  chip_wr(sim, SGPU_REG_CFG_ERROR, 0xFFFFFFFFu);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  /* a write the display rejects: CFG_ERROR[4] alone */
  const uint32_t pitch_reg = SGPU_SOURCE_REG(0, SGPU_SREG_DISP_PITCH);
  const uint32_t pitch_before = chip_rd(sim, pitch_reg);
  chip_wr(sim, pitch_reg, 642); /* not 4-byte aligned */
  sgpu_sim_run(sim, 2, 0);
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), SGPU_CFG_ERROR_VALUE_RANGE, "CFG_ERROR of a misaligned DISP_PITCH");
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR_ADDR), pitch_reg, "CFG_ERROR_ADDR of the DISP_PITCH write");
  CHIP_EQ(chip_rd(sim, pitch_reg), pitch_before, "rejected DISP_PITCH write changed the register");
  chip_wr(sim, SGPU_REG_CFG_ERROR, 0xFFFFFFFFu);
  chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  /* the engine still works */
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RING0, 4096);
  chip_buf rb;
  chip_buf_init(&rb);
  uint32_t d = 0xC0FFEE;
  chip_pkt_write_data(&rb, DATA, &d, 1);
  chip_pkt_fence(&rb, FENCE0, 77, 0);
  chip_submit(&ring, &rb);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 77, 20000) == 0, "no fence after the bad writes");
  CHIP_EQ(chip_peek(sim, DATA), d, "write after the bad writes");
  CHIP_EQ(chip_rd(sim, SGPU_REG_CFG_ERROR), 0, "CFG_ERROR after valid programming");
  chip_buf_free(&rb);
  chip_figure("cfg_total_cycles", (double)sgpu_sim_cycle(sim));
  sgpu_sim_destroy(sim);
  printf("test_chip_cfg: PASS\n");
  return 0;
}
