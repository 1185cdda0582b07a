/* bench_cmd.c — N calls of each sgpu_cmd_* builder into a command buffer,
 * for the callgrind figure "instructions per call" of `make bench`
 * (tools/bench.sh counts each function's inclusive instructions). */
#include <stdio.h>
#include <stdlib.h>

#include "sgpu.h"

static uint32_t words[1 << 16];

int main(int argc, char **argv) {
  const unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000;
  const uint32_t data[4] = {1, 2, 3, 4};
  sgpu_cmdbuf cb;
  unsigned bad = 0;
  for (unsigned i = 0; i < n; i++) {
    sgpu_cmdbuf_init(&cb, words, sizeof words);
    const uint32_t a = 0x1000u + 64u * (i & 255u);
    bad += sgpu_cmd_nop(&cb, 2) != 0;
    bad += sgpu_cmd_indirect(&cb, a, 256, i, 0) != 0;
    bad += sgpu_cmd_fence(&cb, a, i, 1) != 0;
    bad += sgpu_cmd_write_data(&cb, a, data, 4) != 0;
    bad += sgpu_cmd_wait_mem(&cb, a, 0xFFFFFFFFu, i, 0) != 0;
    bad += sgpu_cmd_wait_vsync(&cb, 0) != 0;
    bad += sgpu_cmd_wait_scanline(&cb, 0, 10, 20) != 0;
    bad += sgpu_cmd_fill(&cb, a, 256, 64, 4, i) != 0;
    bad += sgpu_cmd_copy(&cb, a, 256, a + 0x10000, 256, 64, 4) != 0;
    bad += sgpu_cmd_flip(&cb, 0, 0x100000, 1, 0) != 0;
    bad += sgpu_cmd_context(&cb, 1, 0x100000, 0x100000) != 0;
    bad += sgpu_cmd_timestamp(&cb, a) != 0;
  }
  printf("calls %u each, bytes %u, failures %u\n", n, sgpu_cmdbuf_size(&cb), bad);
  return bad != 0;
}
