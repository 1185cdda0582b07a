/* sgpu_ref_boot.c — see sgpu_ref_boot.h. */
#include "sgpu_ref_boot.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "link_frame.h"
#include "sgpu_hw.h"

static uint32_t le32(const uint8_t *p) {
  return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int fail(char *why, size_t why_len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why && why_len) vsnprintf(why, why_len, fmt, ap);
  va_end(ap);
  return -1;
}

int sgpu_ref_boot_replay(sgpu_ref *ref, const uint8_t *rom, size_t rom_len, sgpu_ref_boot *out,
                         char *why, size_t why_len) {
  memset(out, 0, sizeof *out);
  const uint32_t ctl = SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL);
  const uint32_t base = SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE);
  const uint32_t pitch = SGPU_SOURCE_REG(0, SGPU_SREG_DISP_PITCH);
  size_t pos = 0;
  for (;;) {
    if (pos >= rom_len) return fail(why, why_len, "the image ends without its 0 length");
    size_t len = rom[pos++];
    if (len == 0) break;
    unsigned k = out->frames;
    if (pos + len > rom_len || len < SGPU_LINK_REQ_HDR_BYTES + SGPU_LINK_CRC_BYTES)
      return fail(why, why_len, "frame %u: bad length %zu", k, len);
    const uint8_t *f = rom + pos;
    pos += len;
    out->frames++;
    if (f[0] != SGPU_LINK_SYNC) return fail(why, why_len, "frame %u does not start with SYNC", k);
    if (sgpu_link_crc32(SGPU_LINK_CRC_INIT, f + 1, len - 1) != 0)
      return fail(why, why_len, "frame %u: bad CRC", k);
    const uint32_t count = f[4] | (uint32_t)f[5] << 8, addr = le32(f + 6);
    if (f[2] == SGPU_LINK_CMD_PING && count == 0) continue;
    if (f[2] != SGPU_LINK_CMD_WRITE) return fail(why, why_len, "frame %u: not a WRITE or PING", k);
    /* whole words at incrementing addresses: what the replay models */
    if (f[3] != 0 || len != SGPU_LINK_REQ_HDR_BYTES + SGPU_LINK_CRC_BYTES + 4 * count)
      return fail(why, why_len, "frame %u: unexpected WRITE shape", k);
    out->writes++;
    for (uint32_t i = 0; i < count; i++) {
      const uint32_t a = addr + 4 * i, v = le32(f + 10 + 4 * i);
      const uint32_t off = a & ~SGPU_REG_SPACE;
      if (!(a & SGPU_REG_SPACE)) {
        if (sgpu_ref_mem_write(ref, a, &v, 4) != 0)
          return fail(why, why_len, "frame %u: write outside memory at 0x%08x", k, a);
      } else if (off == ctl) {
        out->disp_control = v;
      } else if (off == base) {
        out->disp_base = v;
      } else if (off == pitch) {
        out->disp_pitch = v;
      } else if (sgpu_ref_reg_write(ref, off, v) != 0) {
        return fail(why, why_len, "frame %u: register 0x%03x not modelled", k, off);
      }
    }
  }
  out->bytes = pos;
  return 0;
}

int sgpu_ref_boot_load(const char *path, const sgpu_ref_config *cfg, uint8_t *rom, size_t cap,
                       size_t *rom_len, sgpu_ref **ref, sgpu_ref_boot *out, char *why,
                       size_t why_len) {
  *ref = NULL;
  FILE *fp = fopen(path, "rb");
  if (!fp) return fail(why, why_len, "cannot open the boot image %s (make firmware builds it)", path);
  *rom_len = fread(rom, 1, cap, fp);
  fclose(fp);
  sgpu_ref *r = sgpu_ref_create(cfg);
  if (!r) return fail(why, why_len, "sgpu_ref_create failed");
  char reason[160];
  if (sgpu_ref_boot_replay(r, rom, *rom_len, out, reason, sizeof reason) != 0) {
    sgpu_ref_destroy(r);
    return fail(why, why_len, "boot image %s: %s", path, reason);
  }
  *ref = r;
  return 0;
}
