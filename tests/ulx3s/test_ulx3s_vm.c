/* test_ulx3s_vm — GPU virtual memory through the ULX3S image (CAPS.VM 1):
 * the host library (libsgpu, the build without the in-process model) over
 * the simulated board's UART pins, served by `sgpu-sim --board ulx3s`
 * (sim/sgpu_board_lsim.cpp on this folder's board model: ulx3s_top and the
 * SDRAM model, which checks every command's timing).  Every word crosses
 * the board's UART, boot feeder, host bridge, the chip and its MMUs, and
 * the SDRAM controller.
 *  1. the device says CAPS.VM (sgpu_info.has_vm) and the ULX3S's system
 *     clock;
 *  2. a VM context on node 0; a 3-page data buffer mapped writable (its
 *     last page first, so that virtual order is not physical order) and a
 *     command page mapped read-only; a FILL across the data's first page
 *     boundary and a WRITE_DATA, both by virtual address, from an INDIRECT
 *     buffer fetched by virtual address: the bytes the library reads back
 *     at the physical addresses equal a memset/memcpy oracle over the whole
 *     allocation;
 *  3. a page fault at execution time: buffer A rewrites the FILL of buffer
 *     B (already validated by the library from its copy) to a page never
 *     mapped and waits for the word; B faults PAGE_NOT_PRESENT, and the
 *     DMA_FAULTED event names that virtual address (fault_va), a write by
 *     the 2D engine; nothing was written; after the reset a new VM
 *     context's WRITE_DATA lands.
 * FIGURE lines: the board's system cycles are not visible to the client,
 * so wall seconds of each step.
 * Usage: test_ulx3s_vm [SGPU_SIM]   (default build/bin/sgpu-sim)
 */
#include "ulx3s_client.h"

#define PAGE SGPU_PAGE_BYTES

static uint64_t alloc_pages(sgpu_device *dev, uint32_t pages) { return ulx3s_alloc(dev, (uint64_t)pages * PAGE); }

static uint64_t map(sgpu_device *dev, sgpu_context *c, uint64_t pa, uint64_t size, uint32_t access) {
  uint64_t va = 0;
  OK(dev, sgpu_map(c, pa, size, access, &va));
  CHECK(va >= PAGE && va % PAGE == 0, "mapped at 0x%llx", (unsigned long long)va);
  return va;
}

int main(int argc, char **argv) {
  const char *sim = argc > 1 ? argv[1] : "build/bin/sgpu-sim";
  double t0 = ulx3s_now();
  sgpu_device *dev = ulx3s_open(sim);
  double t1 = ulx3s_now();
  printf("FIGURE ulx3s_vm_open_wall_s %.1f\n", t1 - t0);

  /* 1. the image's capabilities */
  sgpu_info in;
  OK(dev, sgpu_query_info(dev, &in));
  CHECK(in.has_vm == 1, "CAPS.VM is %u on the ULX3S image", in.has_vm);
  printf("ok - the ULX3S image has GPU virtual memory (CAPS.VM 1)\n");

  /* 2. a FILL and a WRITE_DATA by virtual address, from a virtual buffer */
  sgpu_context *c = NULL;
  OK(dev, sgpu_create_context_vm(dev, 0, &c));
  CHECK(sgpu_context_is_vm(c) == 1, "not a VM context");
  uint64_t data = alloc_pages(dev, 3), cmd = alloc_pages(dev, 1);
  static uint8_t oracle[3 * PAGE], got[3 * PAGE];
  for (uint32_t i = 0; i < sizeof oracle; i++) oracle[i] = (uint8_t)(i * 13 + 5);
  OK(dev, sgpu_write(dev, data, oracle, sizeof oracle));
  uint64_t v2 = map(dev, c, data + 2 * PAGE, PAGE, SGPU_MAP_WRITE);
  uint64_t v01 = map(dev, c, data, 2 * PAGE, SGPU_MAP_WRITE);
  uint64_t cva = map(dev, c, cmd, PAGE, SGPU_MAP_READ);
  CHECK(v2 != data + 2 * PAGE || v01 != data, "the VAs are the physical addresses: nothing is translated");
  uint32_t mem[128];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  /* 256 bytes x 5 rows, pitch 512, across the boundary of v01's pages */
  const uint32_t fill_at = PAGE - 1024, pattern = 0xC3A5965Au;
  sgpu_cmd_fill(&cb, (uint32_t)v01 + fill_at, 512, 256, 5, pattern);
  for (uint32_t y = 0; y < 5; y++)
    for (uint32_t x = 0; x < 256; x += 4) memcpy(oracle + fill_at + y * 512 + x, &pattern, 4);
  const uint32_t words[2] = {0x600DF00Du, 0x0BADCAFEu};
  sgpu_cmd_write_data(&cb, (uint32_t)v2 + 64, words, 2);
  memcpy(oracle + 2 * PAGE + 64, words, sizeof words);
  OK(dev, sgpu_cmdbuf_error(&cb));
  double t2 = ulx3s_now();
  OK(dev, ulx3s_submit(dev, c, cmd, cva, &cb, 1));
  OK(dev, sgpu_wait_fence(dev, 0, 1, 120000));
  OK(dev, sgpu_read(dev, data, got, sizeof got));
  for (uint32_t i = 0; i < sizeof got; i++)
    CHECK(got[i] == oracle[i], "byte 0x%x of the buffer (VA pages 0x%llx, 0x%llx): 0x%02x, expected 0x%02x", i,
          (unsigned long long)v01, (unsigned long long)v2, got[i], oracle[i]);
  double t3 = ulx3s_now();
  printf("ok - FILL (256 B x 5 rows across a page boundary) and WRITE_DATA by virtual address: "
         "%u bytes equal the oracle\n", (unsigned)sizeof got);
  printf("FIGURE ulx3s_vm_fill_wall_s %.1f\n", t3 - t2);

  /* 3. a page fault: A rewrites B's FILL to a page never mapped */
  uint64_t fdata = alloc_pages(dev, 1), bpa = alloc_pages(dev, 1), apa = alloc_pages(dev, 1);
  uint64_t fdva = map(dev, c, fdata, PAGE, SGPU_MAP_WRITE);
  uint64_t bva = map(dev, c, bpa, PAGE, SGPU_MAP_WRITE); /* B's buffer: writable by A */
  uint64_t ava = map(dev, c, apa, PAGE, SGPU_MAP_READ);
  uint64_t bad_va = ava + 8 * PAGE; /* never mapped (the library maps first fit, these are the last) */
  uint32_t mb[32], ma[32];
  sgpu_cmdbuf b, a;
  sgpu_cmdbuf_init(&b, mb, sizeof mb);
  sgpu_cmdbuf_init(&a, ma, sizeof ma);
  sgpu_cmd_fill(&b, (uint32_t)fdva, 64, 64, 2, 0x5A5A5A5Au); /* FILL's destination is word 1 */
  uint32_t evil = (uint32_t)bad_va, zero[16] = {0};
  sgpu_cmd_write_data(&a, (uint32_t)bva + 4, &evil, 1);
  sgpu_cmd_wait_mem(&a, (uint32_t)bva + 4, 0xFFFFFFFFu, evil, SGPU_WAIT_FUNC_EQ);
  OK(dev, sgpu_cmdbuf_error(&a));
  OK(dev, sgpu_cmdbuf_error(&b));
  OK(dev, sgpu_write(dev, fdata, zero, sizeof zero));
  OK(dev, sgpu_write(dev, bpa, mb, sgpu_cmdbuf_size(&b)));
  OK(dev, ulx3s_submit(dev, c, apa, ava, &a, 2));
  sgpu_submit_command_args s;
  memset(&s, 0, sizeof s);
  s.context = c;
  s.dma_buffer_virtual_address = bva;
  s.dma_buffer_size = PAGE;
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&b);
  s.submission_fence_id = 3;
  s.node_ordinal = 0;
  OK(dev, sgpu_submit_command(dev, &s)); /* validated from the library's copy: a FILL at fdva */
  int e = sgpu_wait_fence(dev, 0, 3, 120000);
  CHECK(e == SGPU_ERROR_NODE_FAULTED, "fence 3: %s, expected NODE_FAULTED", sgpu_strerror(e));
  sgpu_event ev;
  int faulted = 0;
  while (sgpu_next_event(dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_FAULTED) {
      faulted = 1;
      CHECK(ev.fault_reason == SGPU_FAULT_PAGE_NOT_PRESENT, "fault %s", sgpu_fault_name(ev.fault_reason));
      CHECK(ev.fault_va == bad_va, "fault_va 0x%llx, expected 0x%llx", (unsigned long long)ev.fault_va,
            (unsigned long long)bad_va);
      CHECK(ev.fault_access == SGPU_ACCESS_WRITE, "fault_access %u", ev.fault_access);
      CHECK(ev.fault_unit == SGPU_UNIT_2D, "fault_unit %u", ev.fault_unit);
      CHECK(ev.fence_id == 3, "faulted fence %u", ev.fence_id);
    }
  CHECK(faulted, "no DMA_FAULTED event");
  uint32_t fw[16];
  OK(dev, sgpu_read(dev, fdata, fw, sizeof fw));
  for (int i = 0; i < 16; i++) CHECK(fw[i] == 0, "the faulted FILL wrote its old page: word %d 0x%08x", i, fw[i]);
  printf("ok - a rewritten FILL faults PAGE_NOT_PRESENT at fault_va 0x%llx (write, 2D engine), nothing written\n",
         (unsigned long long)bad_va);
  /* recovery: the context is guilty, the node runs again */
  CHECK(sgpu_reset_from_timeout(dev) >= 0, "reset: %s", sgpu_last_error(dev));
  sgpu_destroy_context(c);
  sgpu_context *c2 = NULL;
  OK(dev, sgpu_create_context_vm(dev, 0, &c2));
  uint64_t v3 = map(dev, c2, fdata, PAGE, SGPU_MAP_WRITE), cva2 = map(dev, c2, cmd, PAGE, SGPU_MAP_READ);
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_write_data(&cb, (uint32_t)v3 + 8, words, 2);
  OK(dev, sgpu_cmdbuf_error(&cb));
  OK(dev, ulx3s_submit(dev, c2, cmd, cva2, &cb, 4));
  OK(dev, sgpu_wait_fence(dev, 0, 4, 120000));
  OK(dev, sgpu_read(dev, fdata, fw, sizeof fw));
  CHECK(fw[2] == words[0] && fw[3] == words[1], "after the reset: 0x%08x 0x%08x", fw[2], fw[3]);
  printf("ok - after the reset a new VM context's WRITE_DATA lands\n");
  printf("FIGURE ulx3s_vm_fault_wall_s %.1f\n", ulx3s_now() - t3);
  sgpu_destroy_context(c2);
  sgpu_close(dev);
  ulx3s_stop_server();
  printf("test_ulx3s_vm: all passed\n");
  return 0;
}
