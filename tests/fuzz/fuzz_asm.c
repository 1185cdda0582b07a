/* fuzz_asm.c — libFuzzer target: the command-stream assembler.
 *
 * The input is assembly text (after a one-byte header choosing the base
 * address and whether predefined symbols are given).  Properties:
 *   - an error comes with a code in the assembler's range, the same code in
 *     *err, a one-line message, and leaves *words / *count untouched;
 *   - a success disassembles (with and without .org/addresses) to text that
 *     reassembles to the identical words (sgpu_asm.h's round-trip promise).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sgpu_asm.h"

static void round_trip(const uint32_t *w, size_t n, uint32_t base, unsigned flags) {
  char *text = NULL;
  size_t len = 0;
  int rc = sgpu_disasm(w, n, base, flags, &text, &len);
  FZ_CHECK(rc == 0, "sgpu_disasm of %zu words failed: %d", n, rc);
  FZ_CHECK(text && strlen(text) == len, "disassembly length %zu", len);
  uint32_t *w2 = NULL;
  size_t n2 = 0;
  sgpu_asm_error e;
  /* With .org the base is in the text; without it, the same base is given. */
  rc = sgpu_asm_assemble(text, len, "disasm.s", (flags & SGPU_DISASM_ORG) ? 0x1234u * 4 : base, &w2,
                         &n2, &e);
  FZ_CHECK(rc == 0, "disassembly does not reassemble: %s\n--- text:\n%s", e.message, text);
  FZ_CHECK(n2 == n && (n == 0 || memcmp(w, w2, n * 4) == 0),
           "round trip changed the words (%zu -> %zu words)\n--- text:\n%s", n, n2, text);
  free(w2);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t hdr = data[0];
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  uint32_t base = (hdr & 0x0Fu) * 0x1000u;
  static const sgpu_asm_symbol syms[] = {{"FB0", 0x40000}, {"FB1", 0x80000}, {"SCRATCH", 0x1000}};
  sgpu_asm_options o = {base, syms, (hdr & 0x10) ? 3u : 0u};

  uint32_t *w = (uint32_t *)(uintptr_t)0x1; /* must stay untouched on error */
  size_t n = 12345;
  sgpu_asm_error e;
  memset(&e, 0x7F, sizeof e);
  int rc = (hdr & 0x20) ? sgpu_asm_assemble(text, len, (hdr & 0x40) ? NULL : "fuzz.s", base, &w, &n, &e)
                        : sgpu_asm_assemble_ex(text, len, "fuzz.s", &o, &w, &n, &e);
  if (rc != 0) {
    FZ_CHECK(rc <= SGPU_ASM_ERR_INVALID_ARG && rc >= SGPU_ASM_ERR_TOO_DEEP, "code %d", rc);
    FZ_CHECK(e.code == rc, "err.code %d, returned %d", e.code, rc);
    FZ_CHECK(memchr(e.message, 0, sizeof e.message) != NULL, "message not terminated");
    FZ_CHECK(strchr(e.message, '\n') == NULL, "message has a newline: %s", e.message);
    FZ_CHECK(strstr(e.message, "error") != NULL, "message: %s", e.message);
    FZ_CHECK(w == (uint32_t *)(uintptr_t)0x1 && n == 12345, "outputs changed on error");
    FZ_CHECK(sgpu_asm_strerror(rc) != NULL, "no text");
    return 0;
  }
  FZ_CHECK(n <= SGPU_ASM_MAX_WORDS, "%zu words", n);
  FZ_CHECK(w != NULL, "no words");
  round_trip(w, n, base, 0);
  round_trip(w, n, base, SGPU_DISASM_ORG | SGPU_DISASM_ADDRESSES);
  free(w);
  return 0;
}
