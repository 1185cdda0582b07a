/* test_asm.c — the command-stream assembler and disassembler.
 *
 * Round trip both ways (every mnemonic, random word streams, mutated valid
 * streams), encodings checked against the generated SGPU_* macros, labels,
 * .org/.equ, expressions, and one test per error class with its exact
 * file:line:column message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sgpu_asm.h"
#include "sgpu_hw.h"

/* Deterministic generator (xorshift), state passed explicitly. */
static uint32_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return (uint32_t)(x >> 16);
}

static size_t assemble_ok(const char *text, uint32_t base, uint32_t **words) {
  size_t n = 0;
  sgpu_asm_error e;
  int rc = sgpu_asm_assemble(text, strlen(text), "t.s", base, words, &n, &e);
  if (rc) fail_msg("assembly failed (%d): %s\n--- text:\n%s", rc, e.message, text);
  return n;
}

static char *disasm_ok(const uint32_t *w, size_t n, uint32_t base, unsigned flags) {
  char *t = NULL;
  size_t len = 0;
  int rc = sgpu_disasm(w, n, base, flags, &t, &len);
  assert_int_equal(rc, 0);
  assert_non_null(t);
  assert_int_equal(strlen(t), len);
  return t;
}

/* asm(disasm(w)) == w */
static void check_words_round_trip(const uint32_t *w, size_t n, unsigned flags) {
  char *t = disasm_ok(w, n, 0x1000, flags);
  uint32_t *w2 = NULL;
  size_t n2 = assemble_ok(t, 0x1000, &w2);
  if (n2 != n || memcmp(w, w2, n * 4) != 0) {
    size_t i = 0;
    while (i < n && i < n2 && w[i] == w2[i]) i++;
    fail_msg("round trip differs at word %zu of %zu (got %zu words)\n%s", i, n, n2, t);
  }
  free(w2);
  free(t);
}

/* ------------------------------------------------------------ mnemonics */

/* One line per mnemonic in canonical form, with the words it must give. */
struct canon {
  const char *text;
  uint32_t words[8];
  size_t n;
};

static void test_every_mnemonic_encoding(void **state) {
  (void)state;
  const struct canon c[] = {
      {"nop", {SGPU_PKT_HEADER(SGPU_OP_NOP, 0, 0)}, 1},
      {"nop 0x1, 0xffffffff", {SGPU_PKT_HEADER(SGPU_OP_NOP, 2, 0), 1, 0xffffffffu}, 3},
      {"indirect 0x1000, 256, fence=7, skip",
       {SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, SGPU_INDIRECT_FLAG_SKIP), 0x1000, 256, 7}, 4},
      {"indirect 0x1000, 256, fence=0", {SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, 0), 0x1000, 256, 0}, 4},
      {"fence 0x100, 5, irq", {SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, SGPU_FENCE_FLAG_IRQ), 0x100, 5}, 3},
      {"fence 0x100, 4294967295", {SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, 0), 0x100, 0xffffffffu}, 3},
      {"write_data 0x300, 0x1, 0x2", {SGPU_PKT_HEADER(SGPU_OP_WRITE_DATA, 3, 0), 0x300, 1, 2}, 4},
      {"wait_mem 0x200, mask=0xff, ref=3, func=geq_wrap",
       {SGPU_PKT_HEADER(SGPU_OP_WAIT_MEM, 3, SGPU_WAIT_FUNC_GEQ_WRAP * SGPU_WAIT_MEM_FLAG_FUNC),
        0x200, 0xff, 3}, 4},
      {"wait_mem 0x200, mask=0xffffffff, ref=0, func=eq",
       {SGPU_PKT_HEADER(SGPU_OP_WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ), 0x200, 0xffffffffu, 0}, 4},
      {"wait_vsync 1", {SGPU_PKT_HEADER(SGPU_OP_WAIT_VSYNC, 1, 0), 1}, 2},
      {"wait_scanline 0, 10, 20", {SGPU_PKT_HEADER(SGPU_OP_WAIT_SCANLINE, 2, 0), 0, 10u | (20u << 16)}, 3},
      {"fill 0x40000, 640, 640, 480, 0x1f001f",
       {SGPU_PKT_HEADER(SGPU_OP_FILL, 5, 0), 0x40000, 640, 640, 480, 0x001f001f}, 6},
      {"copy 0x40000, 640, 0x40004, 320, 100, 16",
       {SGPU_PKT_HEADER(SGPU_OP_COPY, 6, 0), 0x40000, 640, 0x40004, 320, 100, 16}, 7},
      {"flip 0, 0x40000, interval=1, nowait",
       {SGPU_PKT_HEADER(SGPU_OP_FLIP, 3, SGPU_FLIP_FLAG_NO_WAIT), 0, 0x40000, 1}, 4},
      {"flip 1, 0x80000, interval=5",
       {SGPU_PKT_HEADER(SGPU_OP_FLIP, 3, 0), 1, 0x80000, SGPU_HW_FLIP_INTERVAL_IMMEDIATE_ALLOW_TEARING}, 4},
      {"context 3, 0x10000, 0x20000", {SGPU_PKT_HEADER(SGPU_OP_CONTEXT, 3, 0), 3, 0x10000, 0x20000}, 4},
      {"timestamp 0x400", {SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0), 0x400}, 2},
      {"context 3, 0x10000, 0x1000, vm",
       {SGPU_PKT_HEADER(SGPU_OP_CONTEXT, 3, SGPU_CONTEXT_FLAG_VM), 3, 0x10000, 0x1000}, 4},
      {"tlb_invalidate", {SGPU_PKT_HEADER(SGPU_OP_TLB_INVALIDATE, 0, 0)}, 1},
  };
  unsigned seen = 0;
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    uint32_t *w = NULL;
    size_t n = assemble_ok(c[i].text, 0, &w);
    assert_int_equal(n, c[i].n);
    assert_memory_equal(w, c[i].words, n * 4);
    seen |= 1u << SGPU_PKT_GET(OPCODE, w[0]);
    /* Canonical text comes back unchanged. */
    char *t = disasm_ok(w, n, 0, 0);
    char expect[200];
    snprintf(expect, sizeof expect, "%s\n", c[i].text);
    assert_string_equal(t, expect);
    free(t);
    free(w);
  }
  /* Every opcode of the spec was covered, and has the hwspec's name. */
  assert_int_equal(seen, (1u << SGPU_OP_COUNT_OF_OPCODES) - 1);
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_NOP), "nop");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_INDIRECT), "indirect");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_FENCE), "fence");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_WRITE_DATA), "write_data");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_WAIT_MEM), "wait_mem");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_WAIT_VSYNC), "wait_vsync");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_WAIT_SCANLINE), "wait_scanline");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_FILL), "fill");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_COPY), "copy");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_FLIP), "flip");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_CONTEXT), "context");
  assert_string_equal(sgpu_asm_opcode_name(SGPU_OP_TIMESTAMP), "timestamp");
  assert_null(sgpu_asm_opcode_name(SGPU_OP_COUNT_OF_OPCODES));
  assert_null(sgpu_asm_opcode_name(0xff));
}

/* Alternative spellings assemble to the same words as the canonical form. */
static void test_operand_forms(void **state) {
  (void)state;
  const char *pairs[][2] = {
      {"FENCE 0x100, 5, IRQ", "fence 0x100, 5, irq"},
      {"fence value=5, addr=256, irq", "fence 0x100, 5, irq"},
      {"fence 0x100, 5, irq=1", "fence 0x100, 5, irq"},
      {"fence 0x100, 5, irq=0", "fence 0x100, 5"},
      {"indirect 0x1000, 256, 7", "indirect 0x1000, 256, fence=7"},
      {"indirect 0x1000, 256", "indirect 0x1000, 256, fence=0"},
      {"wait_mem 0x200, 0xff, 3, geq_wrap", "wait_mem 0x200, mask=0xff, ref=3, func=geq_wrap"},
      {"wait_mem 0x200, func=6, ref=3, mask=255", "wait_mem 0x200, mask=0xff, ref=3, func=geq_wrap"},
      {"wait_mem 0x200", "wait_mem 0x200, mask=0xffffffff, ref=0, func=eq"},
      {"flip 0, 0x40000, no_wait", "flip 0, 0x40000, interval=1, nowait"},
      {"flip 0, 0x40000, interval=immediate_allow_tearing", "flip 0, 0x40000, interval=5"},
      {"flip 0, 0x40000, interval=Two", "flip 0, 0x40000, interval=2"},
      {"flip 0, 0x40000, 4", "flip 0, 0x40000, interval=4"},
      {"fill dst=0x40000, pitch=640, width=640, height=480, pattern=0x1f001f",
       "fill 0x40000, 640, 640, 480, 0x1f001f"},
      {"fill 0x40000, 320*2, 640, 240<<1, (0x1f << 16) | 0x1f", "fill 0x40000, 640, 640, 480, 0x1f001f"},
      {"write_data addr=0x300, 1, 2", "write_data 0x300, 1, 2"},
      {"fence 0x100, -1", "fence 0x100, 0xffffffff"},
      {"fence 0x100, 0b101", "fence 0x100, 5"},
      {"fence 0x100, ~0 & 0xf", "fence 0x100, 15"},
      {"fence 0x100, 17 % 6 + 10 / 3 - 1 ^ 0", "fence 0x100, 7"},
      {"wait_scanline 1, last=20, first=10", "wait_scanline 1, 10, 20"},
      {"\t  nop   ; comment", "nop # other comment"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    uint32_t *a = NULL, *b = NULL;
    size_t na = assemble_ok(pairs[i][0], 0, &a);
    size_t nb = assemble_ok(pairs[i][1], 0, &b);
    if (na != nb || memcmp(a, b, na * 4))
      fail_msg("'%s' and '%s' differ", pairs[i][0], pairs[i][1]);
    free(a);
    free(b);
  }
}

/* ------------------------------------------------------------ labels */

static void test_labels_org_equ(void **state) {
  (void)state;
  const char *text =
      "; a ring that jumps to an indirect buffer defined below\n"
      ".equ FB, 0x40000\n"
      ".set PITCH, 640\n"
      "start:\n"
      "  indirect ib, ib_end - ib, fence=1\n"
      "  fence done, 1, irq\n"
      "ib: fill FB, PITCH, PITCH, 2, 0\n"
      "ib_end:\n"
      ".org 0x8000\n"
      "done: .word start, ib, done, here\n"
      "here:\n";
  uint32_t *w = NULL;
  size_t n = assemble_ok(text, 0x1000, &w);
  assert_int_equal(n, 4 + 3 + 6 + 4);
  assert_int_equal(w[1], 0x1000 + 4 * 7); /* ib */
  assert_int_equal(w[2], 6 * 4);          /* ib_end - ib */
  assert_int_equal(w[5], 0x8000);         /* done, forward reference */
  assert_int_equal(w[8], 0x40000);
  assert_int_equal(w[9], 640);
  assert_int_equal(w[13], 0x1000);        /* start */
  assert_int_equal(w[14], 0x101c);
  assert_int_equal(w[15], 0x8000);
  assert_int_equal(w[16], 0x8010);        /* here */
  free(w);

  /* A label on the same line as code, several labels on one line. */
  n = assemble_ok("a: b: nop\nc: .word a, b, c\n", 0x100, &w);
  assert_int_equal(n, 4);
  assert_int_equal(w[1], 0x100);
  assert_int_equal(w[2], 0x100);
  assert_int_equal(w[3], 0x104);
  free(w);

  /* Empty input and comment-only input give zero words. */
  n = assemble_ok("", 0, &w);
  assert_int_equal(n, 0);
  free(w);
  n = assemble_ok("; nothing\n\n   # here\r\n", 0, &w);
  assert_int_equal(n, 0);
  free(w);
}

static void test_predefined_symbols(void **state) {
  (void)state;
  const sgpu_asm_symbol syms[] = {{"FB0", 0x40000}, {"SCRATCH", 0x1000}};
  sgpu_asm_options o = {0x2000, syms, 2};
  uint32_t *w = NULL;
  size_t n = 0;
  sgpu_asm_error e;
  const char *t = "fill FB0, 640, 640, 1, 0\nfence SCRATCH + 4, 1\nhere: .word here\n";
  assert_int_equal(sgpu_asm_assemble_ex(t, strlen(t), "p.s", &o, &w, &n, &e), 0);
  assert_int_equal(n, 10);
  assert_int_equal(w[1], 0x40000);
  assert_int_equal(w[7], 0x1004);
  assert_int_equal(w[9], 0x2000 + 9 * 4);
  free(w);
  t = "nop\nSCRATCH: nop";
  assert_int_equal(sgpu_asm_assemble_ex(t, strlen(t), "p.s", &o, &w, &n, &e),
                   SGPU_ASM_ERR_DUPLICATE_SYMBOL);
  assert_string_equal(e.message, "p.s:2:1: error: label 'SCRATCH' is a predefined symbol");
  const sgpu_asm_symbol bad[] = {{"1x", 0}};
  sgpu_asm_options ob = {0, bad, 1};
  assert_int_equal(sgpu_asm_assemble_ex("nop", 3, "p.s", &ob, &w, &n, &e), SGPU_ASM_ERR_INVALID_ARG);
  assert_string_equal(e.message, "p.s: error: predefined symbol name '1x' is not valid");
  assert_int_equal(sgpu_asm_assemble_ex("nop", 3, NULL, NULL, &w, &n, &e), 0);
  assert_int_equal(n, 1);
  free(w);
}

/* ------------------------------------------------------------ round trips */

static void test_random_word_streams(void **state) {
  (void)state;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  size_t total = 0;
  for (int iter = 0; iter < 400; iter++) {
    size_t n = rnd(&s) % 64;
    uint32_t *w = malloc((n + 1) * 4);
    for (size_t i = 0; i < n; i++) {
      uint32_t r = rnd(&s);
      switch (rnd(&s) % 4) {
      case 0: w[i] = r; break;                                  /* anything */
      case 1: w[i] = (r & 0x3u) << SGPU_PKT_COUNT_SHIFT | 0xC0000000u | (r >> 24) % 14; break;
      case 2: w[i] = SGPU_PKT_HEADER((r >> 8) % 13, (r >> 4) % 8, r & 1 ? (r >> 16) & 0xff : 0); break;
      default: w[i] = r % 5; break;                              /* small values */
      }
    }
    check_words_round_trip(w, n, 0);
    check_words_round_trip(w, n, SGPU_DISASM_ADDRESSES | SGPU_DISASM_ORG);
    total += n;
    free(w);
  }
  printf("FIGURE asm random round trip: %zu words in 400 streams\n", total);
}

/* Valid streams with single-word mutations. */
static void test_mutated_streams(void **state) {
  (void)state;
  const char *text =
      "indirect 0x1000, 256, fence=7, skip\nfence 0x100, 5, irq\n"
      "wait_mem 0x200, mask=0xff, ref=3, func=geq_wrap\nflip 0, 0x40000, interval=1, nowait\n"
      "nop 1, 2\nwrite_data 0x300, 1, 2, 3\nwait_vsync 0\nwait_scanline 0, 10, 20\n"
      "fill 0x40000, 640, 640, 480, 0x1f001f\ncopy 0x40000, 640, 0x40004, 640, 100, 16\n"
      "context 1, 0x10000, 0x10000\ntimestamp 0x400\n";
  uint32_t *w = NULL;
  size_t n = assemble_ok(text, 0, &w);
  check_words_round_trip(w, n, 0);
  uint64_t s = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    uint32_t *m = malloc(n * 4);
    memcpy(m, w, n * 4);
    size_t k = rnd(&s) % n;
    switch (rnd(&s) % 3) {
    case 0: m[k] ^= 1u << (rnd(&s) % 32); break;
    case 1: m[k] = rnd(&s); break;
    default: m[k] = rnd(&s) % 8; break;
    }
    size_t len = 1 + rnd(&s) % n; /* truncated streams too */
    check_words_round_trip(m, len, 0);
    free(m);
  }
  free(w);
}

/* disasm(asm(text)) reassembles to identical words, for generated text. */
static void test_text_round_trip(void **state) {
  (void)state;
  uint64_t s = 777;
  static const char *const funcs[] = {"eq", "ne", "lt", "le", "gt", "ge", "geq_wrap"};
  for (int iter = 0; iter < 200; iter++) {
    char text[8192];
    size_t p = 0;
    int lines = 1 + (int)(rnd(&s) % 20);
    for (int l = 0; l < lines; l++) {
      uint32_t a = rnd(&s) & ~3u, v = rnd(&s);
      switch (rnd(&s) % 12) {
      case 0: p += (size_t)snprintf(text + p, sizeof text - p, "nop %u, %u\n", v, a); break;
      case 1: p += (size_t)snprintf(text + p, sizeof text - p, "indirect %u, %u, fence=%u%s\n", a, v & 0xffc, v, v & 1 ? ", skip" : ""); break;
      case 2: p += (size_t)snprintf(text + p, sizeof text - p, "fence 0x%x, %u%s\n", a, v, v & 2 ? ", irq" : ""); break;
      case 3: p += (size_t)snprintf(text + p, sizeof text - p, "write_data 0x%x, %u, %u, %u\n", a, v, v >> 3, v ^ a); break;
      case 4: p += (size_t)snprintf(text + p, sizeof text - p, "wait_mem 0x%x, mask=%u, ref=%u, func=%s\n", a, v, v >> 5, funcs[v % 7]); break;
      case 5: p += (size_t)snprintf(text + p, sizeof text - p, "wait_vsync %u\n", v % SGPU_MAX_SOURCES); break;
      case 6: p += (size_t)snprintf(text + p, sizeof text - p, "wait_scanline %u, %u, %u\n", v % SGPU_MAX_SOURCES, v & 0xffff, a >> 16); break;
      case 7: p += (size_t)snprintf(text + p, sizeof text - p, "fill 0x%x, %u, %u, %u, 0x%x\n", a, v & 0xffff, v >> 16, a & 0xffff, v); break;
      case 8: p += (size_t)snprintf(text + p, sizeof text - p, "copy 0x%x, %u, 0x%x, %u, %u, %u\n", a, v & 0xffff, v, a >> 16, v >> 16, a & 0xffff); break;
      case 9: p += (size_t)snprintf(text + p, sizeof text - p, "flip %u, 0x%x, interval=%u%s\n", v % SGPU_MAX_SOURCES, a, v % 6, v & 8 ? ", nowait" : ""); break;
      case 10: p += (size_t)snprintf(text + p, sizeof text - p, "context %u, 0x%x, 0x%x\n", v, a, a >> 1); break;
      default: p += (size_t)snprintf(text + p, sizeof text - p, "timestamp 0x%x\n", a); break;
      }
    }
    uint32_t *w = NULL, *w2 = NULL;
    size_t n = assemble_ok(text, 0, &w);
    char *t = disasm_ok(w, n, 0, 0);
    size_t n2 = assemble_ok(t, 0, &w2);
    assert_int_equal(n, n2);
    assert_memory_equal(w, w2, n * 4);
    /* Every line is a packet (no .word fallback) for well-formed text. */
    if (strstr(t, ".word")) fail_msg("valid text disassembled to .word:\n%s\nfrom:\n%s", t, text);
    free(t);
    free(w);
    free(w2);
  }
}

/* Words that do not form a packet come out as .word; packets that do not
 * fit the assembler's ranges too. */
static void test_word_fallback(void **state) {
  (void)state;
  const uint32_t cases[][4] = {
      {0x00000000u},                                              /* type 0 */
      {SGPU_PKT_HEADER(0x3f, 0, 0)},                              /* unknown opcode */
      {SGPU_PKT_HEADER(SGPU_OP_FENCE, 1, 0), 1},                  /* bad count */
      {SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, 0x80), 1, 2},            /* unknown flag */
      {SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, 0), 1},                  /* truncated */
      {SGPU_PKT_HEADER(SGPU_OP_FLIP, 3, 0), 0, 0x1000, 9},        /* interval 9 */
      {SGPU_PKT_HEADER(SGPU_OP_WAIT_VSYNC, 1, 0), 7},             /* source 7 */
      {SGPU_PKT_HEADER(SGPU_OP_WAIT_MEM, 3, 7), 0, 0, 0},         /* func 7 */
  };
  const size_t lens[] = {1, 1, 2, 3, 2, 4, 2, 4};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    char line[128];
    int used = sgpu_disasm_one(cases[i], lens[i], line, sizeof line);
    assert_int_equal(used, 1);
    assert_true(strncmp(line, ".word 0x", 8) == 0);
    check_words_round_trip(cases[i], lens[i], 0);
  }
  char line[128];
  uint32_t f[] = {SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, SGPU_FENCE_FLAG_IRQ), 0x100, 5};
  assert_int_equal(sgpu_disasm_one(f, 3, line, sizeof line), 3);
  assert_string_equal(line, "fence 0x100, 5, irq");
  assert_int_equal(sgpu_disasm_one(NULL, 3, line, sizeof line), SGPU_ASM_ERR_INVALID_ARG);
  assert_int_equal(sgpu_disasm_one(f, 0, line, sizeof line), SGPU_ASM_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------ errors */

struct bad {
  const char *text;
  int code;
  const char *message; /* exact one-line message */
};

static void test_error_messages(void **state) {
  (void)state;
  const struct bad b[] = {
      {"nop\nfense 1, 2\n", SGPU_ASM_ERR_UNKNOWN_MNEMONIC, "bad.s:2:1: error: unknown mnemonic 'fense'"},
      {"  fence 0x1g, 2", SGPU_ASM_ERR_BAD_NUMBER, "bad.s:1:9: error: bad number '0x1g'"},
      {"fence 0x, 2", SGPU_ASM_ERR_BAD_NUMBER, "bad.s:1:7: error: bad number '0x': no digits"},
      {"nop\n\nfence 1", SGPU_ASM_ERR_MISSING_OPERAND, "bad.s:3:8: error: missing operand: fence needs value"},
      {"fence 1,", SGPU_ASM_ERR_MISSING_OPERAND, "bad.s:1:9: error: missing operand after ','"},
      {"write_data 0x10", SGPU_ASM_ERR_MISSING_OPERAND,
       "bad.s:1:16: error: missing operand: write_data needs at least one data word"},
      {".word", SGPU_ASM_ERR_MISSING_OPERAND, "bad.s:1:6: error: missing operand: .word needs a value"},
      {"fence 1, 2, 3", SGPU_ASM_ERR_EXTRA_OPERAND, "bad.s:1:13: error: too many operands for fence"},
      {"flip 2, 0", SGPU_ASM_ERR_RANGE, "bad.s:1:6: error: source 2 out of range 0..1"},
      {"flip 0, 0, interval=6", SGPU_ASM_ERR_RANGE,
       "bad.s:1:21: error: interval 6 out of range 0..5 (or a name such as 'immediate')"},
      {"fill 0, 70000, 1, 1, 0", SGPU_ASM_ERR_RANGE, "bad.s:1:9: error: pitch 70000 out of range 0..65535"},
      {"wait_scanline 0, 1, 65536", SGPU_ASM_ERR_RANGE, "bad.s:1:21: error: last 65536 out of range 0..65535"},
      {"fence 1, 0x100000000", SGPU_ASM_ERR_RANGE,
       "bad.s:1:10: error: value 4294967296 out of range for value (32 bits)"},
      {"fence 1, 99999999999999999999999", SGPU_ASM_ERR_RANGE,
       "bad.s:1:10: error: number '99999999999999999999999' out of range (over 64 bits)"},
      {"fence x, 1", SGPU_ASM_ERR_UNDEFINED_SYMBOL, "bad.s:1:7: error: undefined symbol 'x'"},
      {"wait_mem 0, func=foo", SGPU_ASM_ERR_UNDEFINED_SYMBOL, "bad.s:1:18: error: undefined symbol 'foo'"},
      {"x: nop\n\nx: nop", SGPU_ASM_ERR_DUPLICATE_SYMBOL, "bad.s:3:1: error: label 'x' already defined on line 1"},
      {".foo 1", SGPU_ASM_ERR_UNKNOWN_DIRECTIVE, "bad.s:1:1: error: unknown directive '.foo'"},
      {"fence 1, 2 irq", SGPU_ASM_ERR_SYNTAX, "bad.s:1:12: error: expected ',' or end of line, found 'irq'"},
      {"  @", SGPU_ASM_ERR_SYNTAX, "bad.s:1:3: error: unexpected character '@'"},
      {"indirect 0, 4, bogus=1", SGPU_ASM_ERR_UNKNOWN_OPERAND,
       "bad.s:1:16: error: indirect has no operand named 'bogus'"},
      {"fence 1, 2, irq, irq", SGPU_ASM_ERR_DUPLICATE_OPERAND, "bad.s:1:18: error: flag 'irq' given twice"},
      {"fence 1, addr=2", SGPU_ASM_ERR_DUPLICATE_OPERAND, "bad.s:1:10: error: operand 'addr' given twice"},
      {"fence 1/0, 1", SGPU_ASM_ERR_DIV_ZERO, "bad.s:1:8: error: division by zero"},
      {".org 2", SGPU_ASM_ERR_RANGE, "bad.s:1:6: error: .org address 0x2 is not 4-byte aligned"},
      {".org later\nlater:", SGPU_ASM_ERR_UNDEFINED_SYMBOL,
       "bad.s:1:6: error: .org uses a symbol that is not defined before it"},
      {"fence (1, 2", SGPU_ASM_ERR_SYNTAX, "bad.s:1:9: error: expected ')'"},
      {"fence 1, 2 ; ok\nfence 3, 4\r\n\tnop 1, , 2", SGPU_ASM_ERR_SYNTAX,
       "bad.s:3:9: error: expected a value, found ','"},
  };
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
    uint32_t sentinel_w = 0xdead;
    uint32_t *w = &sentinel_w;
    size_t n = 4242;
    sgpu_asm_error e;
    int rc = sgpu_asm_assemble(b[i].text, strlen(b[i].text), "bad.s", 0, &w, &n, &e);
    if (rc != b[i].code || strcmp(e.message, b[i].message) != 0)
      fail_msg("for '%s': got %d '%s', want %d '%s'", b[i].text, rc, e.message, b[i].code,
               b[i].message);
    assert_int_equal(e.code, rc);
    assert_null(strchr(e.message, '\n'));
    /* Nothing half-written. */
    assert_ptr_equal(w, &sentinel_w);
    assert_int_equal(n, 4242);
    assert_string_not_equal(sgpu_asm_strerror(rc), "unknown assembler error");
  }
  /* Distinct codes have distinct strings. */
  for (int c1 = SGPU_ASM_ERR_TOO_DEEP; c1 <= SGPU_ASM_ERR_INVALID_ARG; c1++)
    for (int c2 = c1 + 1; c2 <= SGPU_ASM_ERR_INVALID_ARG; c2++)
      assert_string_not_equal(sgpu_asm_strerror(c1), sgpu_asm_strerror(c2));
  /* Bad arguments. */
  uint32_t *w;
  size_t n;
  assert_int_equal(sgpu_asm_assemble("nop", 3, NULL, 0, NULL, &n, NULL), SGPU_ASM_ERR_INVALID_ARG);
  assert_int_equal(sgpu_asm_assemble(NULL, 3, NULL, 0, &w, &n, NULL), SGPU_ASM_ERR_INVALID_ARG);
  assert_int_equal(sgpu_asm_assemble("nop", 3, NULL, 2, &w, &n, NULL), SGPU_ASM_ERR_RANGE);
  char *t;
  size_t len;
  assert_int_equal(sgpu_disasm(NULL, 1, 0, 0, &t, &len), SGPU_ASM_ERR_INVALID_ARG);
  /* NUL bytes and binary garbage in the text are errors, never crashes. */
  const char garbage[] = {'n', 'o', 'p', '\0', 'x', '\n', (char)0xff, '\n'};
  sgpu_asm_error e;
  int rc = sgpu_asm_assemble(garbage, sizeof garbage, "g.s", 0, &w, &n, &e);
  assert_int_equal(rc, SGPU_ASM_ERR_SYNTAX);
  assert_string_equal(e.message, "g.s:1:4: error: unexpected byte 0x00");
}

/* Random garbage text never crashes and always gives one-line errors. */
static void test_fuzz_text(void **state) {
  (void)state;
  uint64_t s = 4242;
  static const char alphabet[] = "nop fence fill x: ,=()+-*/<>0x1fgirq.word.org ;#\n\t09azAZ_";
  size_t errors = 0;
  for (int iter = 0; iter < 3000; iter++) {
    char text[200];
    size_t n = rnd(&s) % sizeof text;
    for (size_t i = 0; i < n; i++)
      text[i] = rnd(&s) % 16 == 0 ? (char)rnd(&s) : alphabet[rnd(&s) % (sizeof alphabet - 1)];
    uint32_t *w = NULL;
    size_t cnt = 0;
    sgpu_asm_error e;
    int rc = sgpu_asm_assemble(text, n, "f.s", 0, &w, &cnt, &e);
    if (rc) {
      errors++;
      assert_true(rc <= SGPU_ASM_ERR_INVALID_ARG && rc >= SGPU_ASM_ERR_TOO_DEEP);
      assert_null(strchr(e.message, '\n'));
      assert_true(strncmp(e.message, "f.s:", 4) == 0);
    } else {
      check_words_round_trip(w, cnt, 0);
      free(w);
    }
  }
  printf("FIGURE asm fuzz: 3000 random texts, %zu rejected with one-line errors\n", errors);
}

/* Deep nesting: `nop (((...1...)))` 20,000 levels deep (40 KB) used to
 * overflow the stack (primary/binary recursing once per level); it is an
 * error at the level past SGPU_ASM_MAX_NESTING, with FILE:LINE:COLUMN.
 * Exactly SGPU_ASM_MAX_NESTING levels still assemble; unary chains too. */
static char *nested(const char *prefix, const char *open, const char *mid, const char *close,
                    unsigned depth, size_t *len) {
  size_t pl = strlen(prefix), ol = strlen(open), ml = strlen(mid), cl = strlen(close);
  char *t = malloc(pl + depth * (ol + cl) + ml + 2);
  assert_non_null(t);
  size_t n = 0;
  memcpy(t + n, prefix, pl), n += pl;
  for (unsigned i = 0; i < depth; i++) memcpy(t + n, open, ol), n += ol;
  memcpy(t + n, mid, ml), n += ml;
  for (unsigned i = 0; i < depth; i++) memcpy(t + n, close, cl), n += cl;
  t[n++] = '\n';
  t[n] = '\0';
  *len = n;
  return t;
}

static void test_nesting_limit(void **state) {
  (void)state;
  static const struct {
    const char *prefix, *open, *close;
    unsigned depth;
  } deep[] = {
      {"nop ", "(", ")", 20000},  {"nop ", "-", "", 20000},     {"nop ", "~(", ")", 10000},
      {".equ X, ", "(", ")", 20000}, {"fence 0, ", "(", ")", 20000}, {".word ", "+", "", 20000},
  };
  for (size_t i = 0; i < sizeof deep / sizeof deep[0]; i++) {
    size_t len;
    char *t = nested(deep[i].prefix, deep[i].open, "1", deep[i].close, deep[i].depth, &len);
    uint32_t *w = NULL;
    size_t n = 0;
    sgpu_asm_error e;
    int rc = sgpu_asm_assemble(t, len, "deep.s", 0, &w, &n, &e);
    if (rc != SGPU_ASM_ERR_TOO_DEEP) fail_msg("%s%s... x%u: got %d '%s'", deep[i].prefix, deep[i].open, deep[i].depth, rc, e.message);
    assert_int_equal(e.line, 1);
    char want[64];
    snprintf(want, sizeof want, "deep.s:1:%u: error: ", e.column);
    assert_true(strncmp(e.message, want, strlen(want)) == 0);
    assert_non_null(strstr(e.message, "at most 64 levels"));
    free(t);
  }
  /* The limit itself is allowed; one more is not. */
  for (unsigned d = SGPU_ASM_MAX_NESTING - 1; d <= SGPU_ASM_MAX_NESTING + 1; d++) {
    size_t len;
    char *t = nested("fence 0, ", "(", "7", ")", d, &len);
    uint32_t *w = NULL;
    size_t n = 0;
    sgpu_asm_error e;
    int rc = sgpu_asm_assemble(t, len, "lim.s", 0, &w, &n, &e);
    if (d <= SGPU_ASM_MAX_NESTING) {
      if (rc) fail_msg("%u levels: %s", d, e.message);
      assert_int_equal(n, 3);
      assert_int_equal(w[2], 7);
      free(w);
    } else {
      assert_int_equal(rc, SGPU_ASM_ERR_TOO_DEEP);
      /* the column of the '(' past the limit */
      assert_int_equal(e.column, strlen("fence 0, ") + SGPU_ASM_MAX_NESTING + 1);
    }
    free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_mnemonic_encoding),
      cmocka_unit_test(test_operand_forms),
      cmocka_unit_test(test_labels_org_equ),
      cmocka_unit_test(test_predefined_symbols),
      cmocka_unit_test(test_random_word_streams),
      cmocka_unit_test(test_mutated_streams),
      cmocka_unit_test(test_text_round_trip),
      cmocka_unit_test(test_word_fallback),
      cmocka_unit_test(test_error_messages),
      cmocka_unit_test(test_fuzz_text),
      cmocka_unit_test(test_nesting_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
