/* mkboot — build the boot ROM image of a board (docs/firmware.md).
 *
 * Reads the boot command stream (firmware/boot.sgs, the project's command
 * assembly plus three lines of mkboot's own: .glyphs, .text, .ctext) and the
 * font (firmware/font5x7.txt), renders the glyph table the text needs, assembles
 * the stream with the library's assembler and wraps everything in host-link
 * request frames with the library's frame encoder (host/src/link_frame.c),
 * exactly the bytes a host would send over the UART:
 *
 *   PING; WRITE the glyph table; WRITE the command stream into the ring;
 *   WRITE DISP_BASE, DISP_PITCH; WRITE DISP_CONTROL; WRITE RING_BASE,
 *   RING_SIZE; WRITE CONTROL = ENABLE; WRITE RING_WPTR (the doorbell).
 *
 * The ROM holds each frame behind one length byte (so the feeder,
 * rtl/top/sgpu_boot.v, knows where a frame ends and waits for the bridge's answer
 * before the next), then a 0 length that ends the boot.  Outputs:
 *   --hex FILE   for $readmemh: one byte per line, padded to --rom-bytes
 *   --list FILE  a readable listing: symbols, the expanded source, the
 *                disassembled stream, the frames and the figures
 *   --bin FILE   the raw ROM image (what the tests replay)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_frame.h"
#include "sgpu.h"
#include "sgpu_asm.h"
#include "sgpu_hw.h"

#define CELL_W 6u
#define CELL_H 8u
#define GLYPH_ROWS 7u
#define GLYPH_COLS 5u
#define MAX_GLYPHS 96u
#define BURST_WORDS 60u /* 14 + 4 * 60 = 254: a frame's length fits the ROM's length byte */

typedef struct text_buf {
  char *s;
  size_t len, cap;
} text_buf;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("mkboot: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void tb_add(text_buf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_add(text_buf *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) die("formatting failed");
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    size_t ncap = t->cap ? t->cap * 2 : 4096;
    while (ncap <= t->len + (size_t)n) ncap *= 2;
    char *p = realloc(t->s, ncap);
    if (!p) die("out of memory");
    t->s = p;
    t->cap = ncap;
  }
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die("%s: %s", path, strerror(errno));
  text_buf t = {0};
  char chunk[4096];
  size_t n;
  tb_add(&t, "%s", "");
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tb_add(&t, "%.*s", (int)n, chunk);
  fclose(f);
  *len = t.len;
  return t.s;
}

/* ------------------------------------------------------------ font */
typedef struct font {
  int have[128];
  char rows[128][GLYPH_ROWS][GLYPH_COLS];
} font;

static void load_font(const char *path, font *f) {
  size_t len;
  char *text = read_file(path, &len);
  memset(f, 0, sizeof *f);
  int cur = -1;
  unsigned row = 0, lineno = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    lineno++;
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\r' || line[l - 1] == ' ')) line[--l] = 0;
    if (l == 0 || !strncmp(line, "# ", 2)) continue; /* blank, or a comment */
    if (!strncmp(line, "char ", 5) && l == 6) {
      if (cur >= 0 && row != GLYPH_ROWS) die("%s: glyph '%c' has %u rows, not %u", path, cur, row, GLYPH_ROWS);
      cur = (unsigned char)line[5];
      if (cur >= 128 || cur <= ' ') die("%s: glyph name '%s' is not printable ASCII", path, line + 5);
      f->have[cur] = 1;
      row = 0;
      continue;
    }
    if (cur < 0 || l != GLYPH_COLS || row >= GLYPH_ROWS || strspn(line, ".#") != GLYPH_COLS)
      die("%s: line '%s' is not a glyph row ('.' and '#', %u wide, %u rows after 'char C')", path,
          line, GLYPH_COLS, GLYPH_ROWS);
    memcpy(f->rows[cur][row++], line, GLYPH_COLS);
  }
  if (cur >= 0 && row != GLYPH_ROWS) die("%s: glyph '%c' has %u rows, not %u", path, cur, row, GLYPH_ROWS);
  free(text);
}

/* ------------------------------------------------------------ source */
typedef struct build {
  /* inputs */
  const char *board_name, *version;
  uint32_t board_id, mem_size, caps, fw_version, rom_bytes;
  uint32_t fb, fb_w, fb_h, fb_pitch, disp_ctl, glyphs;
  /* glyphs the text uses, in order of first use */
  char glyph_chars[MAX_GLYPHS];
  uint32_t nglyphs;
  int ink, paper; /* -1 until .glyphs */
} build;

static uint32_t glyph_index(build *b, const font *f, char c) {
  for (uint32_t i = 0; i < b->nglyphs; i++)
    if (b->glyph_chars[i] == c) return i;
  if (c < 0 || !f->have[(int)c]) die("the font has no glyph for '%c'", c);
  if (b->nglyphs == MAX_GLYPHS) die("more than %u glyphs", MAX_GLYPHS);
  b->glyph_chars[b->nglyphs] = c;
  return b->nglyphs++;
}

/* Replace ${BOARD} and ${VERSION}. */
static void substitute(const build *b, const char *in, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    const char *rep = NULL;
    size_t skip = 0;
    if (!strncmp(in + i, "${BOARD}", 8)) rep = b->board_name, skip = 8;
    else if (!strncmp(in + i, "${VERSION}", 10)) rep = b->version, skip = 10;
    if (rep) {
      size_t rl = strlen(rep);
      if (o + rl >= cap) die("text too long");
      memcpy(out + o, rep, rl);
      o += rl;
      i += skip;
    } else {
      if (o + 1 >= cap) die("text too long");
      out[o++] = in[i++];
    }
  }
  out[o] = 0;
}

static int parse_color(const char *s, const char *what) {
  (void)what;
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 0);
  while (*end == ' ' || *end == '\t') end++;
  if (errno || end == s || *end || v > 255) return -1;
  return (int)v;
}

/* Expand mkboot's lines; everything else passes through unchanged. */
static void preprocess(build *b, const font *f, const char *src, size_t len, text_buf *out,
                       const char *path) {
  text_buf line = {0};
  unsigned lineno = 0;
  for (size_t i = 0; i < len;) {
    /* one logical line: physical lines ending in '\' are joined */
    line.len = 0;
    tb_add(&line, "%s", "");
    for (;;) {
      size_t e = i;
      while (e < len && src[e] != '\n') e++;
      lineno++;
      size_t l = e - i;
      while (l && (src[i + l - 1] == '\r' || src[i + l - 1] == ' ')) l--;
      int cont = l && src[i + l - 1] == '\\';
      tb_add(&line, "%.*s%s", (int)(cont ? l - 1 : l), src + i, cont ? " " : "");
      i = e < len ? e + 1 : e;
      if (!cont || i >= len) break;
    }
    const char *p = line.s;
    while (*p == ' ' || *p == '\t') p++;
    if (!strncmp(p, ".glyphs", 7) && (p[7] == ' ' || p[7] == '\t')) {
      char a[64], c[64];
      if (sscanf(p + 7, " %63[^,], %63s", a, c) != 2) die("%s:%u: .glyphs INK, PAPER", path, lineno);
      b->ink = parse_color(a, "ink");
      b->paper = parse_color(c, "paper");
      if (b->ink < 0 || b->paper < 0) die("%s:%u: .glyphs colours must be numbers 0..255", path, lineno);
      tb_add(out, "; %s\n", p);
      continue;
    }
    int centred = !strncmp(p, ".ctext", 6) && (p[6] == ' ' || p[6] == '\t');
    if (centred || (!strncmp(p, ".text", 5) && (p[5] == ' ' || p[5] == '\t'))) {
      const char *q1 = strchr(p, '"'), *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
      if (!q1 || !q2) die("%s:%u: %s needs a \"string\"", path, lineno, centred ? ".ctext" : ".text");
      char args[256], str[256];
      size_t al = (size_t)(q1 - p) - (centred ? 6 : 5);
      if (al >= sizeof args) die("%s:%u: line too long", path, lineno);
      memcpy(args, p + (centred ? 6 : 5), al);
      args[al] = 0;
      /* drop the comma before the string */
      char *comma = strrchr(args, ',');
      if (!comma) die("%s:%u: expected ', \"string\"'", path, lineno);
      *comma = 0;
      substitute(b, q1 + 1, (size_t)(q2 - q1 - 1), str, sizeof str);
      char xexpr[256], yexpr[256];
      if (centred) {
        snprintf(xexpr, sizeof xexpr, "(FB_W - %u) / 2", (unsigned)(strlen(str) * CELL_W));
        snprintf(yexpr, sizeof yexpr, "%s", args);
      } else {
        char *c2 = strchr(args, ',');
        if (!c2) die("%s:%u: .text X, Y, \"string\"", path, lineno);
        *c2 = 0;
        snprintf(xexpr, sizeof xexpr, "%s", args);
        snprintf(yexpr, sizeof yexpr, "%s", c2 + 1);
      }
      tb_add(out, "; %s  -> \"%s\"\n", p, str);
      for (size_t k = 0; str[k]; k++) {
        if (str[k] == ' ') continue;
        uint32_t g = glyph_index(b, f, str[k]);
        tb_add(out, "        copy FB + (%s) * FB_PITCH + (%s) + %u, FB_PITCH, GLYPHS + %u, GLYPH_PITCH, "
                    "CELL_W, CELL_H  ; '%c'\n",
               yexpr, xexpr, (unsigned)(k * CELL_W), g * CELL_W, str[k]);
      }
      continue;
    }
    tb_add(out, "%s\n", line.s);
  }
  free(line.s);
}

/* ------------------------------------------------------------ frames */
typedef struct rom {
  uint8_t *bytes;
  size_t len, cap;
  uint32_t frames, payload;
  uint8_t seq;
  text_buf *list;
} rom;

static void rom_frame(rom *r, uint8_t cmd, uint32_t address, const uint32_t *data, uint32_t count,
                      const char *what) {
  sgpu_link_request q = {0};
  q.seq = r->seq++;
  q.cmd = cmd;
  q.count = (uint16_t)count;
  q.address = address;
  q.data = data;
  uint8_t buf[SGPU_LINK_MAX_REQ_FRAME];
  int n = sgpu_link_encode_request(&q, buf, sizeof buf);
  if (n <= 0) die("encoding frame %u (%s): %s", r->frames, what, sgpu_link_strerror(n));
  if (n > 255) die("frame %u is %d bytes: above the ROM's length byte", r->frames, n);
  if (r->len + 1 + (size_t)n > r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 4096;
    while (ncap < r->len + 1 + (size_t)n) ncap *= 2;
    uint8_t *p = realloc(r->bytes, ncap);
    if (!p) die("out of memory");
    r->bytes = p;
    r->cap = ncap;
  }
  tb_add(r->list, "  %3u  rom 0x%04zx  seq %3u  %-5s  addr 0x%08x  words %2u  bytes %3d  %s\n",
         r->frames, r->len, q.seq,
         cmd == SGPU_LINK_CMD_PING ? "PING" : cmd == SGPU_LINK_CMD_WRITE ? "WRITE" : "READ", address,
         count, n, what);
  r->bytes[r->len++] = (uint8_t)n;
  memcpy(r->bytes + r->len, buf, (size_t)n);
  r->len += (size_t)n;
  r->frames++;
  r->payload += 4u * count;
}

static void rom_write(rom *r, uint32_t address, const uint32_t *words, size_t count, const char *what) {
  for (size_t i = 0; i < count; i += BURST_WORDS) {
    size_t n = count - i < BURST_WORDS ? count - i : BURST_WORDS;
    rom_frame(r, SGPU_LINK_CMD_WRITE, address + 4u * (uint32_t)i, words + i, (uint32_t)n, what);
  }
}

static uint32_t reg(uint32_t offset) { return SGPU_REG_SPACE | offset; }

static void write_text(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f)) die("%s: %s", path, strerror(errno));
}

static uint32_t parse_u32(const char *s, const char *opt) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || v > 0xFFFFFFFFull) die("%s: '%s' is not a 32-bit number", opt, s);
  return (uint32_t)v;
}

static void usage(void) {
  fputs("usage: mkboot --source firmware/boot.sgs --font firmware/font5x7.txt --board NAME\n"
        "              --version MAJOR.MINOR [--mem BYTES]\n"
        "              [--rom-bytes N] [--hex OUT.hex] [--list OUT.lst] [--bin OUT.bin]\n"
        "boards: none, icebreaker, ulx3s.  Writes the boot ROM image (docs/firmware.md).\n",
        stderr);
  exit(2);
}

int main(int argc, char **argv) {
  const char *source = NULL, *font_path = NULL, *hex = NULL, *list = NULL, *bin = NULL;
  build b;
  memset(&b, 0, sizeof b);
  b.ink = b.paper = -1;
  b.mem_size = 131072;
  b.rom_bytes = 2048;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
    if (i + 1 >= argc) usage();
    const char *v = argv[++i];
    if (!strcmp(a, "--source")) source = v;
    else if (!strcmp(a, "--font")) font_path = v;
    else if (!strcmp(a, "--board")) b.board_name = v;
    else if (!strcmp(a, "--version")) b.version = v;
    else if (!strcmp(a, "--mem")) b.mem_size = parse_u32(v, a);
    else if (!strcmp(a, "--rom-bytes")) b.rom_bytes = parse_u32(v, a);
    else if (!strcmp(a, "--hex")) hex = v;
    else if (!strcmp(a, "--list")) list = v;
    else if (!strcmp(a, "--bin")) bin = v;
    else usage();
  }
  if (!source || !font_path || !b.board_name || !b.version) usage();

  /* each board's CAPS: what its image carries, from the interface's table */
  static const struct { const char *name; uint32_t id, caps; } boards[] = {
      {"icebreaker", SGPU_BOARD_ICEBREAKER, SGPU_BOARD_ICEBREAKER_CAPS},
      {"ulx3s", SGPU_BOARD_ULX3S, SGPU_BOARD_ULX3S_CAPS}};
  size_t bi;
  for (bi = 0; bi < sizeof boards / sizeof boards[0]; bi++)
    if (!strcmp(boards[bi].name, b.board_name)) break;
  if (bi == sizeof boards / sizeof boards[0]) die("unknown board '%s' (icebreaker, ulx3s)", b.board_name);
  b.board_id = boards[bi].id;
  b.caps = boards[bi].caps;
  if (strlen(b.board_name) > SGPU_IDENTITY_NAME_BYTES) die("board name longer than %u bytes", SGPU_IDENTITY_NAME_BYTES);
  unsigned vmaj, vmin;
  char extra;
  if (sscanf(b.version, "%u.%u%c", &vmaj, &vmin, &extra) != 2 || vmaj > 65535 || vmin > 65535)
    die("--version '%s' is not MAJOR.MINOR", b.version);
  b.fw_version = (uint32_t)vmaj << 16 | vmin;
  if (b.mem_size < SGPU_IDENTITY_ADDR + SGPU_IDENTITY_BYTES)
    die("--mem %u: the identity block at 0x%x needs at least 128 KiB", b.mem_size, SGPU_IDENTITY_ADDR);

  /* Memory map: the ring (the command stream) at 0, the glyph table at
   * 0x1000, the 320x240 RGB332 framebuffer just below the identity block. */
  b.fb_w = 320;
  b.fb_h = 240;
  b.fb_pitch = 320;
  b.fb = (SGPU_IDENTITY_ADDR - b.fb_pitch * b.fb_h) & ~0xFFFu;
  b.glyphs = 0x1000;
  b.disp_ctl = SGPU_FIELD_PUT(DISP_CONTROL_ENABLE, 1) | SGPU_FIELD_PUT(DISP_CONTROL_FORMAT, SGPU_HW_FORMAT_RGB332) |
               SGPU_FIELD_PUT(DISP_CONTROL_HREP, 1) | SGPU_FIELD_PUT(DISP_CONTROL_VREP, 1);

  font f;
  load_font(font_path, &f);
  size_t src_len;
  char *src = read_file(source, &src_len);
  text_buf expanded = {0};
  tb_add(&expanded, "; expanded by mkboot from %s for board %s, firmware %s\n", source, b.board_name, b.version);
  preprocess(&b, &f, src, src_len, &expanded, source);
  if (b.ink < 0) die("%s: no .glyphs INK, PAPER line", source);
  if (b.nglyphs == 0) die("%s: no text", source);

  uint32_t glyph_pitch = (b.nglyphs * CELL_W + 3) & ~3u;
  uint32_t glyph_bytes = glyph_pitch * CELL_H;
  uint8_t *gt = calloc(1, glyph_bytes);
  if (!gt) die("out of memory");
  for (uint32_t y = 0; y < CELL_H; y++)
    for (uint32_t x = 0; x < glyph_pitch; x++) {
      uint32_t g = x / CELL_W, cx = x % CELL_W;
      int ink = g < b.nglyphs && y < GLYPH_ROWS && cx < GLYPH_COLS &&
                f.rows[(int)b.glyph_chars[g]][y][cx] == '#';
      gt[y * glyph_pitch + x] = (uint8_t)(ink ? b.ink : b.paper);
    }

  uint32_t name[4] = {0};
  memcpy(name, b.board_name, strlen(b.board_name)); /* little-endian words of the ASCII name */
  const sgpu_asm_symbol syms[] = {
      {"FB", b.fb}, {"FB_W", b.fb_w}, {"FB_H", b.fb_h}, {"FB_PITCH", b.fb_pitch},
      {"DISP_CTL", b.disp_ctl}, {"GLYPHS", b.glyphs}, {"GLYPH_PITCH", glyph_pitch},
      {"CELL_W", CELL_W}, {"CELL_H", CELL_H}, {"ID_ADDR", SGPU_IDENTITY_ADDR},
      {"ID_MAGIC", SGPU_IDENTITY_MAGIC},
      {"ID_LAYOUT", SGPU_IDENTITY_LAYOUT_VERSION << 16 | SGPU_IDENTITY_BYTES},
      {"ID_DONE", SGPU_IDENTITY_DONE},
      {"HW_VERSION", (uint32_t)SGPU_HW_VERSION_MAJOR << 16 | SGPU_HW_VERSION_MINOR},
      {"FW_VERSION", b.fw_version}, {"BOARD_ID", b.board_id}, {"CAPS", b.caps},
      {"MEM_SIZE", b.mem_size}, {"NAME0", name[0]}, {"NAME1", name[1]}, {"NAME2", name[2]},
      {"NAME3", name[3]}, {"INK", (uint32_t)b.ink}, {"PAPER", (uint32_t)b.paper},
  };
  sgpu_asm_options ao = {0, syms, sizeof syms / sizeof syms[0]};
  uint32_t *words = NULL;
  size_t nwords = 0;
  sgpu_asm_error err;
  int rc = sgpu_asm_assemble_ex(expanded.s, expanded.len, source, &ao, &words, &nwords, &err);
  if (rc) die("%s", err.message);
  uint32_t stream_bytes = (uint32_t)nwords * 4u;
  uint32_t ring_size = 64;
  while (ring_size <= stream_bytes) ring_size *= 2; /* WPTR = stream_bytes must be < RING_SIZE */
  if (ring_size > b.glyphs) die("the command stream (%u bytes) does not fit below the glyph table", stream_bytes);
  if (b.glyphs + glyph_bytes > b.fb) die("the glyph table runs into the framebuffer");

  text_buf lst = {0};
  tb_add(&lst, "sgpu boot ROM: board %s (id %u), firmware %s\n\n", b.board_name, b.board_id, b.version);
  tb_add(&lst, "symbols:\n");
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    tb_add(&lst, "  %-12s 0x%08x  %u\n", syms[i].name, syms[i].value, syms[i].value);
  tb_add(&lst, "\nglyph table: %u glyphs \"%.*s\", %ux%u cells, ink 0x%02x on 0x%02x, %u bytes at 0x%x\n",
         b.nglyphs, (int)b.nglyphs, b.glyph_chars, CELL_W, CELL_H, b.ink, b.paper, glyph_bytes, b.glyphs);
  tb_add(&lst, "\nexpanded source:\n%s\n", expanded.s);
  char *dis = NULL;
  size_t dis_len = 0;
  if (sgpu_disasm(words, nwords, 0, SGPU_DISASM_ADDRESSES, &dis, &dis_len)) die("disassembly failed");
  tb_add(&lst, "command stream: %zu words (%u bytes) in a %u-byte ring at 0:\n%s\n", nwords, stream_bytes,
         ring_size, dis);
  free(dis);

  rom r = {0};
  r.list = &lst;
  r.seq = 0x80;
  tb_add(&lst, "frames (each behind a length byte in the ROM):\n");
  rom_frame(&r, SGPU_LINK_CMD_PING, 0, NULL, 0, "session start");
  rom_write(&r, b.glyphs, (const uint32_t *)gt, glyph_bytes / 4, "glyph table");
  rom_write(&r, 0, words, nwords, "command stream (the ring)");
  uint32_t disp[2] = {b.fb, b.fb_pitch};
  rom_frame(&r, SGPU_LINK_CMD_WRITE, reg(SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE)), disp, 2,
            "DISP_BASE, DISP_PITCH");
  rom_frame(&r, SGPU_LINK_CMD_WRITE, reg(SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL)), &b.disp_ctl, 1,
            "DISP_CONTROL: RGB332, 2x2 replication, enable");
  uint32_t ring[2] = {0, ring_size};
  rom_frame(&r, SGPU_LINK_CMD_WRITE, reg(SGPU_NODE_REG(0, SGPU_NREG_RING_BASE)), ring, 2,
            "RING_BASE, RING_SIZE");
  uint32_t en = SGPU_CONTROL_ENABLE;
  rom_frame(&r, SGPU_LINK_CMD_WRITE, reg(SGPU_NODE_REG(0, SGPU_NREG_CONTROL)), &en, 1, "CONTROL: enable");
  rom_frame(&r, SGPU_LINK_CMD_WRITE, reg(SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR)), &stream_bytes, 1,
            "RING_WPTR: the doorbell");
  uint8_t zero = 0;
  if (r.len + 1 > r.cap) {
    uint8_t *p = realloc(r.bytes, r.len + 1);
    if (!p) die("out of memory");
    r.bytes = p;
  }
  r.bytes[r.len++] = zero; /* the end */
  tb_add(&lst, "\nROM: %zu bytes (%u frames, %zu payload bytes) of %u; %u block RAMs of 512x8\n", r.len,
         r.frames, (size_t)r.payload, b.rom_bytes, (b.rom_bytes + 511) / 512);
  if (r.len > b.rom_bytes)
    die("the boot image is %zu bytes, more than --rom-bytes %u (raise it here and ROM_BYTES in "
        "rtl/top/sgpu_boot.v)", r.len, b.rom_bytes);

  if (hex) {
    text_buf h = {0};
    tb_add(&h, "%s", "");
    for (size_t i = 0; i < b.rom_bytes; i++) tb_add(&h, "%02x\n", i < r.len ? r.bytes[i] : 0);
    write_text(hex, h.s, h.len);
    free(h.s);
  }
  if (bin) write_text(bin, (const char *)r.bytes, r.len);
  if (list) write_text(list, lst.s, lst.len);
  printf("mkboot: %s: %zu ROM bytes of %u, %u frames, stream %u bytes, %u glyphs\n", b.board_name, r.len,
         b.rom_bytes, r.frames, stream_bytes, b.nglyphs);
  free(lst.s);
  free(r.bytes);
  free(words);
  free(gt);
  free(expanded.s);
  free(src);
  return 0;
}
