/* test_asm_cmdbuf.c — the assembler and the library's command-buffer builder
 * (sgpu_cmd_*) must produce the same words for the same packets, and the
 * disassembler must read builder output back as the same packets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sgpu.h"
#include "sgpu_asm.h"

static uint32_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return (uint32_t)(x >> 16);
}

static void test_builder_equals_assembler(void **state) {
  (void)state;
  uint64_t s = 99;
  static const char *const funcs[] = {"eq", "ne", "lt", "le", "gt", "ge", "geq_wrap"};
  for (int iter = 0; iter < 300; iter++) {
    uint32_t mem[64];
    sgpu_cmdbuf cb;
    assert_int_equal(sgpu_cmdbuf_init(&cb, mem, sizeof mem), 0);
    char text[512];
    uint32_t a = rnd(&s) & 0x7ffffcu, v = rnd(&s), src = rnd(&s) % SGPU_MAX_SOURCES;
    uint32_t w16 = rnd(&s) & 0xffffu, h16 = rnd(&s) & 0xffffu, p16 = rnd(&s) & 0xffffu;
    int flag = (int)(rnd(&s) & 1);
    switch (iter % 12) {
    case 0:
      sgpu_cmd_nop(&cb, v % 4);
      snprintf(text, sizeof text, "nop%s", v % 4 ? " 0" : "");
      for (uint32_t k = 1; k < v % 4; k++) strcat(text, ", 0");
      break;
    case 1:
      sgpu_cmd_indirect(&cb, a, w16 & ~3u, v, flag);
      snprintf(text, sizeof text, "indirect %u, %u, fence=%u%s", a, w16 & ~3u, v, flag ? ", skip" : "");
      break;
    case 2:
      sgpu_cmd_fence(&cb, a, v, flag);
      snprintf(text, sizeof text, "fence %u, %u%s", a, v, flag ? ", irq" : "");
      break;
    case 3: {
      uint32_t data[3] = {v, v ^ a, 7};
      sgpu_cmd_write_data(&cb, a, data, 3);
      snprintf(text, sizeof text, "write_data %u, %u, %u, 7", a, v, v ^ a);
      break;
    }
    case 4:
      sgpu_cmd_wait_mem(&cb, a, v, ~v, v % 7);
      snprintf(text, sizeof text, "wait_mem %u, mask=%u, ref=%u, func=%s", a, v, ~v, funcs[v % 7]);
      break;
    case 5:
      sgpu_cmd_wait_vsync(&cb, src);
      snprintf(text, sizeof text, "wait_vsync %u", src);
      break;
    case 6:
      sgpu_cmd_wait_scanline(&cb, src, w16 % 480, h16 % 480);
      snprintf(text, sizeof text, "wait_scanline %u, %u, %u", src, w16 % 480, h16 % 480);
      break;
    case 7:
      sgpu_cmd_fill(&cb, a, p16, w16, h16, v);
      snprintf(text, sizeof text, "fill %u, %u, %u, %u, %u", a, p16, w16, h16, v);
      break;
    case 8:
      sgpu_cmd_copy(&cb, a, p16, v & 0x7fffff, h16, w16, p16 ^ 1);
      snprintf(text, sizeof text, "copy %u, %u, %u, %u, %u, %u", a, p16, v & 0x7fffff, h16, w16, p16 ^ 1);
      break;
    case 9:
      sgpu_cmd_flip(&cb, src, a, v % 6, flag);
      snprintf(text, sizeof text, "flip %u, %u, interval=%u%s", src, a, v % 6, flag ? ", nowait" : "");
      break;
    case 10:
      sgpu_cmd_context(&cb, v % 16, a, 0x1000);
      snprintf(text, sizeof text, "context %u, %u, 0x1000", v % 16, a);
      break;
    default:
      sgpu_cmd_timestamp(&cb, a);
      snprintf(text, sizeof text, "timestamp %u", a);
      break;
    }
    assert_int_equal(sgpu_cmdbuf_error(&cb), 0);
    uint32_t *w = NULL;
    size_t n = 0;
    sgpu_asm_error e;
    int rc = sgpu_asm_assemble(text, strlen(text), "x.s", 0, &w, &n, &e);
    if (rc) fail_msg("%s: %s", text, e.message);
    if (n * 4 != sgpu_cmdbuf_size(&cb) || memcmp(w, mem, n * 4))
      fail_msg("builder and assembler differ for '%s' (%zu vs %u bytes, header %08x vs %08x)", text, n * 4,
               sgpu_cmdbuf_size(&cb), n ? w[0] : 0, mem[0]);
    /* The builder's packet disassembles as one packet line (not .word). */
    char line[512];
    int used = sgpu_disasm_one(mem, sgpu_cmdbuf_size(&cb) / 4, line, sizeof line);
    assert_int_equal(used, (int)(sgpu_cmdbuf_size(&cb) / 4));
    assert_true(strncmp(line, ".word", 5) != 0);
    free(w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_builder_equals_assembler)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
