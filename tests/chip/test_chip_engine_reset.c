/* test_chip_engine_reset — the hardware half of hang recovery: CONTROL.RESET
 * of a node polling memory in a WAIT_MEM that never ends stops its memory
 * traffic (checked on the memory request log), leaves the other node's FILL
 * running to its correct end, and the node is idle and takes its next ring
 * fetch at once.  Figures: cycles from the reset to the node's last memory
 * request and to STATUS idle, and from the doorbell to the first ring fetch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"

#define RING0 0x10000u
#define RING1 0x11000u
#define FLAG 0x20000u     /* never written: node 0 waits on it forever */
#define FENCE0 0x20100u
#define FENCE1 0x20104u
#define DST 0x30000u      /* node 1's FILL: 256 bytes x 96 rows */
#define DST_PITCH 256u
#define DST_ROWS 96u
#define PATTERN 0x5A5AC3C3u

int main(void) {
  sgpu_sim *sim = chip_create(NULL);
  CHIP_CHECK(sgpu_sim_nodes(sim) >= 2, "needs two nodes, the chip has %u", sgpu_sim_nodes(sim));
  chip_ring r0, r1;
  chip_ring_init(&r0, sim, 0, RING0, 1024);
  chip_ring_init(&r1, sim, 1, RING1, 1024);
  chip_poke(sim, FLAG, 0);
  for (uint32_t a = DST; a < DST + DST_PITCH * DST_ROWS; a += 4) chip_poke(sim, a, 0);

  chip_buf b;
  chip_buf_init(&b);
  chip_pkt_wait_mem(&b, FLAG, 0xFFFFFFFFu, 0x600DF00Du, SGPU_WAIT_FUNC_EQ);
  chip_pkt_fence(&b, FENCE0, 1, 0);
  chip_submit(&r0, &b);
  sgpu_sim_run(sim, 500, 0);
  CHIP_CHECK(chip_nrd(sim, 0, SGPU_NREG_STATUS) & SGPU_STATUS_WAITING, "node 0 is not waiting");

  chip_buf_clear(&b);
  chip_pkt_fill(&b, DST, DST_PITCH, DST_PITCH, DST_ROWS, PATTERN);
  chip_pkt_fence(&b, FENCE1, 1, 0);
  sgpu_sim_mem_log_enable(sim, 1u << 20);
  chip_submit(&r1, &b);
  sgpu_sim_run(sim, 200, 0);

  /* Reset node 0 while node 1's FILL is under way. */
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, SGPU_CONTROL_RESET);
  uint64_t t_reset = sgpu_sim_last_host_write_cycle(sim);
  uint64_t t_idle = 0;
  for (int i = 0; i < 64 && !t_idle; i++)
    if (!(chip_nrd(sim, 0, SGPU_NREG_STATUS) & (SGPU_STATUS_BUSY | SGPU_STATUS_WAITING)))
      t_idle = sgpu_sim_cycle(sim);
  CHIP_CHECK(t_idle, "node 0 still busy after CONTROL.RESET");
  CHIP_CHECK(chip_wait_fence(sim, FENCE1, 1, 200000) == 0, "node 1's FILL did not finish");
  sgpu_sim_run(sim, 2000, 0);

  const sgpu_sim_mem_event *ev;
  size_t n = sgpu_sim_mem_log(sim, &ev);
  uint64_t last_poll = 0;
  size_t polls_before = 0, polls_after = 0;
  for (size_t i = 0; i < n; i++) {
    if (ev[i].address != FLAG || ev[i].write) continue;
    if (ev[i].cycle <= t_reset) polls_before++;
    else polls_after++;
    last_poll = ev[i].cycle;
  }
  CHIP_CHECK(polls_before >= 4, "only %zu WAIT_MEM reads logged in the 200 cycles before the reset",
             polls_before);
  CHIP_CHECK(polls_after <= 1, "node 0 read its WAIT_MEM word %zu times after the reset", polls_after);
  CHIP_CHECK(chip_peek(sim, FENCE0) == 0, "the reset node wrote its fence");
  for (uint32_t a = DST; a < DST + DST_PITCH * DST_ROWS; a += 4)
    CHIP_EQ(chip_peek(sim, a), PATTERN, "node 1's FILL across node 0's reset");

  /* Ready at once: enable, a ring of one FENCE, the doorbell. */
  chip_nwr(sim, 0, SGPU_NREG_CONTROL, SGPU_CONTROL_ENABLE);
  r0.wptr = 0;
  chip_buf_clear(&b);
  chip_pkt_fence(&b, FENCE0, 2, 0);
  sgpu_sim_mem_log_enable(sim, 4096);
  chip_submit(&r0, &b);
  uint64_t t_bell = sgpu_sim_last_host_write_cycle(sim);
  CHIP_CHECK(chip_wait_fence(sim, FENCE0, 2, 20000) == 0, "no fence after the reset");
  n = sgpu_sim_mem_log(sim, &ev);
  uint64_t t_fetch = 0;
  for (size_t i = 0; i < n && !t_fetch; i++)
    if (!ev[i].write && ev[i].address == RING0 && ev[i].cycle >= t_bell) t_fetch = ev[i].cycle;
  CHIP_CHECK(t_fetch, "no ring fetch logged after the doorbell");

  printf("reset at cycle %llu: %zu WAIT_MEM reads before it, %zu after, the last at %+lld; "
         "STATUS idle by +%llu (first read back)\n",
         (unsigned long long)t_reset, polls_before, polls_after, (long long)(last_poll - t_reset),
         (unsigned long long)(t_idle - t_reset));
  chip_figure("engine_reset_last_memory_request_cycles",
              last_poll > t_reset ? (double)(last_poll - t_reset) : 0.0);
  chip_figure("engine_reset_to_idle_read_cycles", (double)(t_idle - t_reset));
  chip_figure("engine_reset_doorbell_to_first_fetch_cycles", (double)(t_fetch - t_bell));
  chip_buf_free(&b);
  sgpu_sim_destroy(sim);
  printf("test_chip_engine_reset: PASS\n");
  return 0;
}
