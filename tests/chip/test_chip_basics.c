/* test_chip_basics — the model and its host port: identity registers,
 * SCRATCH, memory reads and writes of any alignment and length through the
 * RTL's host port (checked against the backdoor) on zero-wait memory and
 * with latency and random stalls, range errors, the memory request log,
 * tracing, and independent instances.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chip_util.h"

static void check_regs(sgpu_sim *sim) {
  CHIP_EQ(chip_rd(sim, SGPU_REG_ID), SGPU_HW_MAGIC, "ID");
  CHIP_EQ(chip_rd(sim, SGPU_REG_MEM_SIZE), sgpu_sim_mem_bytes(sim), "MEM_SIZE");
  uint32_t ver = chip_rd(sim, SGPU_REG_VERSION);
  CHIP_EQ(ver, (SGPU_HW_VERSION_MAJOR << 16) | SGPU_HW_VERSION_MINOR, "VERSION");
  uint32_t caps = chip_rd(sim, SGPU_REG_CAPS);
  CHIP_EQ(caps & 0xF, sgpu_sim_nodes(sim), "CAPS nodes");
  CHIP_EQ((caps >> 4) & 0xF, sgpu_sim_sources(sim), "CAPS sources");
  uint32_t seed = 12345;
  for (int i = 0; i < 16; i++) {
    uint32_t v = chip_rand(&seed);
    chip_wr(sim, SGPU_REG_SCRATCH, v);
    CHIP_EQ(chip_rd(sim, SGPU_REG_SCRATCH), v, "SCRATCH");
  }
  /* the cycle counter advances */
  uint32_t c0 = chip_rd(sim, SGPU_REG_CYCLE_LO);
  sgpu_sim_run(sim, 100, 0);
  uint32_t c1 = chip_rd(sim, SGPU_REG_CYCLE_LO);
  CHIP_CHECK(c1 - c0 >= 100 && c1 - c0 < 200, "CYCLE_LO advanced by %u over 100+ cycles", c1 - c0);
}

static void check_memory(sgpu_sim *sim, uint32_t seed) {
  const uint32_t mem = sgpu_sim_mem_bytes(sim);
  uint8_t buf[300], back[300], ref[300];
  for (int iter = 0; iter < 60; iter++) {
    uint32_t len = 1 + chip_rand(&seed) % 260;
    uint32_t addr = chip_rand(&seed) % (mem - len);
    if (iter % 5 == 0) addr = mem - len; /* up to the very last byte */
    for (uint32_t i = 0; i < len; i++) buf[i] = (uint8_t)chip_rand(&seed);
    /* bytes around the range must not change (strobes) */
    uint8_t before[4], after[4];
    uint32_t pre = addr >= 4 ? 4 : addr, post = addr + len + 4 <= mem ? 4 : mem - addr - len;
    sgpu_sim_backdoor_read(sim, addr - pre, before, pre);
    sgpu_sim_backdoor_read(sim, addr + len, after, post);
    chip_mem_write(sim, addr, buf, len);
    CHIP_CHECK(sgpu_sim_backdoor_read(sim, addr, back, len) == 0, "backdoor read");
    CHIP_CHECK(memcmp(buf, back, len) == 0, "host write 0x%08x+%u differs in memory", addr, len);
    uint8_t b2[4], a2[4];
    sgpu_sim_backdoor_read(sim, addr - pre, b2, pre);
    sgpu_sim_backdoor_read(sim, addr + len, a2, post);
    CHIP_CHECK(memcmp(before, b2, pre) == 0 && memcmp(after, a2, post) == 0,
               "host write 0x%08x+%u touched neighbouring bytes", addr, len);
    /* backdoor -> host read */
    for (uint32_t i = 0; i < len; i++) ref[i] = (uint8_t)chip_rand(&seed);
    sgpu_sim_backdoor_write(sim, addr, ref, len);
    memset(back, 0, sizeof back);
    chip_mem_read(sim, addr, back, len);
    CHIP_CHECK(memcmp(ref, back, len) == 0, "host read 0x%08x+%u differs from memory", addr, len);
  }
  /* ranges leaving GPU memory are refused, nothing is touched */
  uint8_t x[8] = {0};
  CHIP_CHECK(sgpu_sim_mem_write(sim, mem - 4, x, 8) == -2, "write past the end accepted");
  CHIP_CHECK(sgpu_sim_mem_read(sim, mem, x, 1) == -2, "read at the end accepted");
  CHIP_CHECK(sgpu_sim_mem_read(sim, 0xFFFFFFFCu, x, 8) == -2, "wrapping read accepted");
  CHIP_CHECK(sgpu_sim_backdoor_write(sim, mem - 2, x, 4) == -2, "backdoor write past the end accepted");
  CHIP_CHECK(sgpu_sim_mem_read(sim, 0, x, 0) == 0, "empty read refused");
}

static void check_log(sgpu_sim *sim) {
  sgpu_sim_mem_log_enable(sim, 16);
  uint32_t w[40];
  for (int i = 0; i < 40; i++) w[i] = 0xC0DE0000u + (uint32_t)i;
  uint64_t t0 = sgpu_sim_cycle(sim);
  chip_mem_write(sim, 0x40000, w, sizeof w);
  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  CHIP_CHECK(n == 16, "log keeps %zu entries, capacity 16", n);
  for (size_t i = 0; i < n; i++) {
    CHIP_CHECK(ev[i].write && ev[i].strobe == 0xF, "log entry %zu not a full write", i);
    CHIP_EQ(ev[i].address, 0x40000 + 4 * (24 + i), "log address (newest entries kept)");
    CHIP_EQ(ev[i].data, 0xC0DE0000u + 24 + i, "log data");
    CHIP_CHECK(ev[i].cycle >= t0 && (i == 0 || ev[i].cycle > ev[i - 1].cycle), "log cycles");
  }
  sgpu_sim_mem_log_enable(sim, 64);
  uint32_t r[3];
  chip_mem_read(sim, 0x40004, r, 12);
  n = sgpu_sim_mem_log(sim, &ev);
  CHIP_CHECK(n == 3, "3 reads logged, got %zu", n);
  for (size_t i = 0; i < n; i++) {
    CHIP_CHECK(!ev[i].write, "read logged as write");
    CHIP_EQ(ev[i].data, 0xC0DE0001u + i, "read data in the log");
  }
  sgpu_sim_mem_log_enable(sim, 0);
  CHIP_CHECK(sgpu_sim_mem_log(sim, &ev) == 0, "disabled log not empty");
  CHIP_CHECK(sgpu_sim_last_host_write_cycle(sim) > t0, "last host write cycle");
}

static void check_trace(const char *path) {
  sgpu_sim_config cfg = {0};
  cfg.trace_path = path;
  sgpu_sim *sim = chip_create(&cfg);
  chip_wr(sim, SGPU_REG_SCRATCH, 0x12345678);
  sgpu_sim_run(sim, 50, 0);
  sgpu_sim_destroy(sim);
  FILE *f = fopen(path, "rb");
  CHIP_CHECK(f != NULL, "trace %s not written", path);
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fclose(f);
  CHIP_CHECK(sz > 100, "trace %s only %ld bytes", path, sz);
  printf("trace %s: %ld bytes\n", path, sz);
  remove(path);
}

int main(void) {
  sgpu_sim *a = chip_create(NULL);
  CHIP_CHECK(sgpu_sim_nodes(a) >= 1 && sgpu_sim_nodes(a) <= SGPU_MAX_NODES, "nodes");
  CHIP_CHECK(sgpu_sim_sources(a) >= 1 && sgpu_sim_sources(a) <= SGPU_MAX_SOURCES, "sources");
  check_regs(a);
  uint64_t t0 = sgpu_sim_cycle(a);
  check_memory(a, 1);
  uint64_t zero_wait = sgpu_sim_cycle(a) - t0;
  check_log(a);

  /* a second chip, slow memory with stalls: same results, more cycles */
  sgpu_sim_config cfg = {.mem_latency = 3, .stall_percent = 40, .seed = 99, .trace_path = NULL};
  sgpu_sim *b = chip_create(&cfg);
  check_regs(b);
  t0 = sgpu_sim_cycle(b);
  check_memory(b, 1);
  uint64_t slow = sgpu_sim_cycle(b) - t0;
  CHIP_CHECK(slow > zero_wait, "stalls did not cost cycles (%llu vs %llu)", (unsigned long long)slow,
             (unsigned long long)zero_wait);
  /* independent instances: a write to one is not seen in the other */
  chip_poke(a, 0x100, 1);
  chip_poke(b, 0x100, 2);
  CHIP_CHECK(chip_peek(a, 0x100) == 1 && chip_peek(b, 0x100) == 2, "instances share memory");
  chip_figure("host_mem_cycles_zero_wait", (double)zero_wait);
  chip_figure("host_mem_cycles_lat3_stall40", (double)slow);
  chip_figure("basics_total_cycles", (double)(sgpu_sim_cycle(a) + sgpu_sim_cycle(b)));
  sgpu_sim_destroy(a);
  sgpu_sim_destroy(b);

  char path[64];
  snprintf(path, sizeof path, "/tmp/sgpu_basics_%d.vcd", (int)getpid());
  check_trace(path);
  snprintf(path, sizeof path, "/tmp/sgpu_basics_%d.fst", (int)getpid());
  check_trace(path);
  printf("test_chip_basics: PASS\n");
  return 0;
}
