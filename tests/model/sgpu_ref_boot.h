/* sgpu_ref_boot.h — a boot ROM image (docs/firmware.md: link WRITE and PING
 * frames, each behind a length byte, a 0 length at the end) replayed
 * through the reference model: memory writes and node registers go to the
 * model; source 0's display registers are kept aside for the caller, which
 * renders the screen from the model's memory.  The oracle of the power-on
 * screen tests (tests/firmware, tests/board). */
#ifndef SGPU_REF_BOOT_H
#define SGPU_REF_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu_ref.h"

typedef struct sgpu_ref_boot {
  uint32_t disp_control, disp_base, disp_pitch; /* source 0, as the ROM sets them */
  unsigned frames, writes;                      /* frames in the image, of them WRITE */
  size_t bytes;                                 /* image bytes up to its end marker */
} sgpu_ref_boot;

/* 0, or -1 with a one-line reason in why (a malformed frame, a write the
 * model refuses). */
int sgpu_ref_boot_replay(sgpu_ref *ref, const uint8_t *rom, size_t rom_len, sgpu_ref_boot *out,
                         char *why, size_t why_len);

/* The power-on tests' first step: reads the boot image at path into rom (at
 * most cap bytes, its length in *rom_len), creates a reference model with
 * cfg and replays the image through it.  0 with *ref set (the caller
 * destroys it), or -1 with a one-line reason in why and nothing to free. */
int sgpu_ref_boot_load(const char *path, const sgpu_ref_config *cfg, uint8_t *rom, size_t cap,
                       size_t *rom_len, sgpu_ref **ref, sgpu_ref_boot *out, char *why,
                       size_t why_len);

#endif
