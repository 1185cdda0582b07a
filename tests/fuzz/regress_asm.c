/* regress_asm.c — regression tests for the bugs fuzz_disasm / fuzz_asm
 * found, one test per bug, named after it (reproducers:
 * tests/fuzz/regressions/<target>/).
 *   disasm_past_4gib_does_not_reassemble: sgpu_disasm() of 33 words at base
 *       0xFFFFFF80 with SGPU_DISASM_ORG succeeds, but its text (".org
 *       0xffffff80" + 33 words) is refused by the assembler ("code runs past
 *       the end of the 32-bit address space"), breaking the round trip that
 *       sgpu_asm.h promises.  Either sgpu_disasm refuses such a range or the
 *       two agree on it.
 *   deep_nesting_stack_overflow: `nop (((...1...)))` 20,000 levels deep (a
 *       40 KB text) overflowed the stack: primary() and binary() recursed
 *       once per parenthesis (and primary() once per unary operator: the
 *       reproducer deep_unary_stack_overflow is `.word ----...1`).  The
 *       assembler refuses nesting past SGPU_ASM_MAX_NESTING with
 *       SGPU_ASM_ERR_TOO_DEEP and a FILE:LINE:COLUMN message; fuzz_cli's
 *       reproducer runs the same text through `sgpu asm`.
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

static void test_disasm_past_4gib_does_not_reassemble(void **state) {
  (void)state;
  uint32_t w[33];
  memset(w, 0, sizeof w);
  for (size_t n = 32; n <= 33; n++) {
    char *text = NULL;
    size_t len = 0;
    int rc = sgpu_disasm(w, n, 0xFFFFFF80u, SGPU_DISASM_ORG, &text, &len);
    if (rc != 0) { /* refusing the range is a valid fix */
      assert_int_equal(n, 33);
      continue;
    }
    uint32_t *w2 = NULL;
    size_t n2 = 0;
    sgpu_asm_error e;
    rc = sgpu_asm_assemble(text, len, "t.s", 0, &w2, &n2, &e);
    free(text);
    if (rc) fail_msg("%zu words at 0xFFFFFF80: disassembly does not reassemble: %s", n, e.message);
    assert_int_equal(n2, n);
    assert_memory_equal(w2, w, n * 4);
    free(w2);
  }
}

static void test_deep_nesting_stack_overflow(void **state) {
  (void)state;
  const size_t depth = 20000;
  for (int unary = 0; unary <= 1; unary++) {
    size_t cap = 16 + 2 * depth;
    char *t = malloc(cap);
    assert_non_null(t);
    size_t n = 0;
    n += (size_t)snprintf(t, cap, "%s", unary ? ".word " : "nop ");
    for (size_t i = 0; i < depth; i++) t[n++] = unary ? '-' : '(';
    t[n++] = '1';
    for (size_t i = 0; !unary && i < depth; i++) t[n++] = ')';
    t[n++] = '\n';
    uint32_t *w = NULL;
    size_t cnt = 0;
    sgpu_asm_error e;
    int rc = sgpu_asm_assemble(t, n, "deep.s", 0, &w, &cnt, &e);
    free(t);
    assert_int_equal(rc, SGPU_ASM_ERR_TOO_DEEP);
    assert_int_equal(e.line, 1);
    assert_int_equal(e.column, (unary ? 6 : 4) + SGPU_ASM_MAX_NESTING + 1);
    assert_non_null(strstr(e.message, "deep.s:1:"));
    assert_non_null(strstr(e.message, "nested too deeply (at most 64 levels"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_disasm_past_4gib_does_not_reassemble),
      cmocka_unit_test(test_deep_nesting_stack_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
