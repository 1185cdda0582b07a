/* fuzz_disasm.c — libFuzzer target: the disassembler.
 *
 * The input (after a one-byte header: base and flags) is a stream of
 * little-endian words.  Properties (sgpu_asm.h):
 *   - sgpu_disasm() succeeds for any words that fit below 4 GiB from the base
 *     (SGPU_ASM_ERR_RANGE otherwise), its text is NUL-terminated with
 *     the length it reports, one '\n'-ended line per packet;
 *   - the text reassembles to the identical words, with every flag combination;
 *   - sgpu_disasm_one() at every position covers 1..count words and never
 *     writes past (or leaves unterminated) a small output buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sgpu_asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t hdr = data[0];
  size_t n = (size - 1) / 4;
  uint32_t *w = malloc(n ? n * 4 : 4);
  FZ_CHECK(w != NULL, "malloc");
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = data + 1 + 4 * i;
    w[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  }
  unsigned flags = hdr & (SGPU_DISASM_ADDRESSES | SGPU_DISASM_ORG);
  /* base: 4-aligned, from low values up to the top of the address space */
  uint32_t base = (hdr & 0x80) ? 0xFFFFF000u + ((hdr >> 2) & 0x1Fu) * 0x80u : ((hdr >> 2) & 0x1Fu) * 0x400u;

  char *text = NULL;
  size_t len = 0;
  int rc = sgpu_disasm(w, n, base, flags, &text, &len);
  /* Words that would run past 4 GiB from base are refused (the assembler
   * could not place them); anything else disassembles. */
  int past_4gib = (uint64_t)base + 4ull * n > 0x100000000ull;
  FZ_CHECK(past_4gib ? rc == SGPU_ASM_ERR_RANGE : rc == 0, "sgpu_disasm returned %d for %zu words at 0x%x",
           rc, n, base);
  if (past_4gib) {
    free(w);
    return 0;
  }
  FZ_CHECK(text != NULL && strlen(text) == len, "length %zu vs %zu", text ? strlen(text) : 0, len);
  FZ_CHECK(len == 0 || text[len - 1] == '\n', "last line not ended");

  uint32_t *w2 = NULL;
  size_t n2 = 0;
  sgpu_asm_error e;
  rc = sgpu_asm_assemble(text, len, "disasm.s", base, &w2, &n2, &e);
  FZ_CHECK(rc == 0, "disassembly does not reassemble: %s\n--- text:\n%s", e.message, text);
  FZ_CHECK(n2 == n && (n == 0 || memcmp(w, w2, n * 4) == 0),
           "round trip changed the words (%zu -> %zu)\n--- text:\n%s", n, n2, text);
  free(w2);
  free(text);

  /* One packet at a time, into buffers of many sizes. */
  char line[512];
  size_t sizes[] = {1, 2, 7, 16, 40, sizeof line - 8};
  for (size_t i = 0; i < n;) {
    size_t sz = sizes[(i + hdr) % (sizeof sizes / sizeof sizes[0])];
    memset(line, 0x55, sizeof line);
    int k = sgpu_disasm_one(w + i, n - i, line, sz);
    FZ_CHECK(k >= 1 && (size_t)k <= n - i, "disasm_one covered %d of %zu words", k, n - i);
    FZ_CHECK(memchr(line, 0, sz) != NULL, "line not terminated within %zu bytes", sz);
    for (size_t j = sz; j < sizeof line; j++) FZ_CHECK(line[j] == 0x55, "wrote past %zu bytes", sz);
    i += (size_t)k;
  }
  if (n == 0) {
    FZ_CHECK(sgpu_disasm_one(w, 0, line, sizeof line) < 0, "disasm_one of no words");
  }
  free(w);
  return 0;
}
