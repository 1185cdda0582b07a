/* fuzz_util.h — reading typed values from a libFuzzer input (header only).
 * Reads past the end give zeros, so every input is a valid derivation. */
#ifndef SGPU_FUZZ_UTIL_H
#define SGPU_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct fz {
  const uint8_t *p;
  size_t n;
} fz;

static inline uint8_t fz_u8(fz *f) {
  if (!f->n) return 0;
  f->n--;
  return *f->p++;
}
/* little-endian; one read after the other */
static inline uint16_t fz_u16(fz *f) {
  uint16_t lo = fz_u8(f);
  return (uint16_t)(lo | fz_u8(f) << 8);
}
static inline uint32_t fz_u32(fz *f) {
  uint32_t lo = fz_u16(f);
  return lo | (uint32_t)fz_u16(f) << 16;
}
static inline uint64_t fz_u64(fz *f) {
  uint64_t lo = fz_u32(f);
  return lo | (uint64_t)fz_u32(f) << 32;
}

/* A property the code under test must keep: report and abort (a crash). */
#define FZ_CHECK(cond, ...)                                                   \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "fuzz property violated: %s: ", #cond);                \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
      abort();                                                                \
    }                                                                         \
  } while (0)

#endif
