/* bench_submit.c — N sgpu_submit_command() calls of a small real buffer
 * (WRITE_DATA + FILL) on the sim, for the callgrind figure
 * (tests/host/test_submit_cost.sh).  Waits happen outside the calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgpu.h"

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 200;
  sgpu_device *dev;
  sgpu_context *ctx;
  uint64_t buf, tgt;
  char msg[256];
  int r = sgpu_open_detail("sim:video=tiny", &dev, msg, sizeof msg);
  if (r) {
    fprintf(stderr, "bench_submit: open: %s\n", msg);
    return 1;
  }
  if (sgpu_create_context(dev, 0, &ctx) || sgpu_alloc(dev, 1, 4096, 0, &buf) ||
      sgpu_alloc(dev, 1, 4096, 0, &tgt)) {
    fprintf(stderr, "bench_submit: setup: %s\n", sgpu_last_error(dev));
    return 1;
  }
  uint32_t words[32];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  uint32_t data[2] = {1, 2};
  sgpu_cmd_write_data(&cb, (uint32_t)tgt, data, 2);
  sgpu_cmd_fill(&cb, (uint32_t)tgt + 64, 64, 64, 2, 0x12345678);
  sgpu_write(dev, buf, words, sgpu_cmdbuf_size(&cb));
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = ctx;
  a.dma_buffer_segment_id = SGPU_SEGMENT_LOCAL;
  a.dma_buffer_physical_address = buf;
  a.dma_buffer_size = 4096;
  a.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&cb);
  char priv[8];
  a.dma_buffer_private_data = priv;
  a.dma_buffer_private_data_size = sizeof priv;
  a.dma_buffer_private_data_submission_end_offset = sizeof priv;
  for (unsigned i = 1; i <= n; i++) {
    a.submission_fence_id = i;
    r = sgpu_submit_command(dev, &a);
    if (r) {
      fprintf(stderr, "bench_submit: submit %u: %s\n", i, sgpu_last_error(dev));
      return 1;
    }
    if (i % 16 == 0 && (r = sgpu_wait_fence(dev, 0, i, 100))) {
      fprintf(stderr, "bench_submit: wait %u: %s\n", i, sgpu_last_error(dev));
      return 1;
    }
    sgpu_event ev;
    while (sgpu_next_event(dev, &ev, 0) == 0) {
    }
  }
  if (sgpu_wait_fence(dev, 0, n, 100)) return 1;
  printf("submissions %u\n", n);
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  return 0;
}
