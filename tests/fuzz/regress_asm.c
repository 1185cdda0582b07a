/* regress_asm.c — regression tests for the bugs fuzz_disasm / fuzz_asm
 * found, one test per bug, named after it (reproducers:
 * tests/fuzz/regressions/<target>/).
 *   disasm_past_4gib_does_not_reassemble: sgpu_disasm() of 33 words at base
 *       0xFFFFFF80 with SGPU_DISASM_ORG succeeds, but its text (".org
 *       0xffffff80" + 33 words) is refused by the assembler ("code runs past
 *       the end of the 32-bit address space"), breaking the round trip that
 *       sgpu_asm.h promises.  Either sgpu_disasm refuses such a range or the
 *       two agree on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_disasm_past_4gib_does_not_reassemble),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
