/* fuzz_cli.c — libFuzzer target: the files the `sgpu` CLI reads.
 *
 * The CLI reads command streams (assembly text or binary little-endian
 * words; `submit FILE`, `--run FILE`, `asm IN`, `disasm IN`) through
 * cli_load_stream() (host/cli/util.c), and `asm` / `disasm` through
 * cmd_asm() / cmd_disasm() (host/cli/cmd_asm.c).  Those are the public entry
 * points of the parsing; the input is written to a file in a private
 * temporary folder (named .s, .bin or neither, which changes the format
 * detection) and given to them, as the command line would.  Properties:
 *   - cli_load_stream: text is assembled exactly as sgpu_asm_assemble_ex
 *     would (with the predefined symbols the text does not define itself), binary gives size/4 little-endian words, anything else is an
 *     input error (exit code 2) — never a crash;
 *   - `asm IN -o OUT` writes the assembled words; `disasm IN -o OUT` writes
 *     text that the assembler turns back into IN's words.
 * The numeric option parser cli_parse_u32/u64 is fuzzed on the side.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz_util.h"

static struct {
  char dir[64];
  char path[4][96]; /* in.s, in.bin, in (no suffix), out */
  FILE *null_out;
} H;

static void cleanup(void) {
  for (int i = 0; i < 4; i++) unlink(H.path[i]);
  rmdir(H.dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(H.dir, sizeof H.dir, "%s/sgpu-fuzz-cli.XXXXXX", tmp && strlen(tmp) < 30 ? tmp : "/tmp");
  if (!mkdtemp(H.dir)) {
    perror("mkdtemp");
    exit(1);
  }
  const char *names[4] = {"in.s", "in.bin", "in", "out.bin"};
  for (int i = 0; i < 4; i++) snprintf(H.path[i], sizeof H.path[i], "%s/%s", H.dir, names[i]);
  H.null_out = fopen("/dev/null", "w");
  if (!H.null_out) exit(1);
  atexit(cleanup);
  return 0;
}

static void put_file(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  FZ_CHECK(f != NULL, "cannot create %s: %s", path, strerror(errno));
  FZ_CHECK(fwrite(d, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

static uint8_t *get_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  FZ_CHECK(f != NULL, "cannot open %s", path);
  size_t cap = 1024, len = 0;
  uint8_t *b = malloc(cap);
  for (;;) {
    if (len == cap) b = realloc(b, cap *= 2);
    FZ_CHECK(b != NULL, "malloc");
    size_t got = fread(b + len, 1, cap - len, f);
    if (!got) break;
    len += got;
  }
  fclose(f);
  *n = len;
  return b;
}

static void cli_init(cli *c, int json) {
  memset(c, 0, sizeof *c);
  c->prog = "sgpu";
  c->cmd = "asm";
  c->json = json != 0;
  c->out = H.null_out;
  c->syms[0] = (sgpu_asm_symbol){"FB0", 0x40000};
  c->syms[1] = (sgpu_asm_symbol){"SCRATCH", 0x1000};
  c->nsyms = 2;
}

static int is_text(const uint8_t *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t b = d[i];
    if (b == '\n' || b == '\r' || b == '\t' || b == '\f' || b == '\v') continue;
    if (b < 0x20 || b >= 0x7f) return 0;
  }
  return 1;
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What the CLI assembles: the predefined symbols, less those the text
 * defines itself (a label or .equ of the same name wins: util.c). */
static int assemble_like_cli(const uint8_t *d, size_t n, const char *name, uint32_t base,
                             const cli *c, uint32_t **w, size_t *wn, sgpu_asm_error *e) {
  sgpu_asm_symbol syms[CLI_MAX_SYMS];
  size_t ns = c->nsyms;
  memcpy(syms, c->syms, ns * sizeof *syms);
  for (;;) {
    sgpu_asm_options o = {base, syms, ns};
    int rc = sgpu_asm_assemble_ex((const char *)d, n, name, &o, w, wn, e);
    if (rc != SGPU_ASM_ERR_DUPLICATE_SYMBOL) return rc;
    size_t k = 0;
    for (; k < ns; k++) {
      char q[80];
      snprintf(q, sizeof q, "'%s' is a predefined symbol", syms[k].name);
      if (strstr(e->message, q)) break;
    }
    if (k == ns) return rc;
    memmove(&syms[k], &syms[k + 1], (ns - k - 1) * sizeof *syms);
    ns--;
  }
}

/* cli_load_stream with every format choice. */
static void load_stream(const uint8_t *d, size_t n, uint8_t hdr) {
  int which = hdr % 3;
  const char *path = H.path[which];
  put_file(path, d, n);
  cli_format fmt = (cli_format)((hdr >> 2) % 3);
  uint32_t base = ((hdr >> 4) & 3u) * 0x1000u;
  cli c;
  cli_init(&c, hdr & 0x40);
  uint32_t *w = (uint32_t *)(uintptr_t)0x1;
  size_t cnt = 777;
  bool was_text = false;
  int rc = cli_load_stream(&c, path, fmt, base, &w, &cnt, &was_text);
  int binary = fmt == FMT_BINARY || (fmt == FMT_AUTO && (which == 1 || !is_text(d, n)));
  if (binary) {
    if (n % 4) {
      FZ_CHECK(rc == EXIT_INPUT, "binary of %zu bytes: rc %d", n, rc);
      return;
    }
    FZ_CHECK(rc == 0, "binary of %zu bytes refused: rc %d", n, rc);
    FZ_CHECK(!was_text && cnt == n / 4, "binary: %zu words, was_text %d", cnt, was_text);
    for (size_t i = 0; i < cnt; i++) FZ_CHECK(w[i] == le32(d + 4 * i), "word %zu", i);
    free(w);
    return;
  }
  /* text: exactly what the assembler says */
  uint32_t *w2 = NULL;
  size_t n2 = 0;
  sgpu_asm_error e;
  int arc = assemble_like_cli(d, n, path, base, &c, &w2, &n2, &e);
  if (arc) {
    FZ_CHECK(rc == (arc == SGPU_ASM_ERR_NO_MEMORY ? EXIT_DEVICE : EXIT_INPUT), "rc %d for asm error %d",
             rc, arc);
    return;
  }
  FZ_CHECK(rc == 0 && was_text, "text assembled alone but cli_load_stream gave %d", rc);
  FZ_CHECK(cnt == n2 && (n2 == 0 || memcmp(w, w2, n2 * 4) == 0), "words differ");
  free(w);
  free(w2);
}

/* `sgpu asm IN -o OUT` and `sgpu disasm IN -o OUT` */
static void asm_disasm(const uint8_t *d, size_t n, uint8_t hdr) {
  const char *in = H.path[hdr & 1 ? 1 : 0], *out = H.path[3];
  put_file(in, d, n);
  unlink(out);
  cli c;
  cli_init(&c, hdr & 0x40);
  char base[32];
  snprintf(base, sizeof base, "--base=0x%x", ((hdr >> 2) & 7u) * 0x100u);
  if (hdr & 0x20) {
    c.cmd = "disasm";
    char *argv[] = {"disasm", base, "--addresses", (char *)in, "-o", (char *)out, NULL};
    int argc = 6;
    if (hdr & 0x10) { /* without --addresses */
      argv[2] = (char *)in;
      argv[3] = "-o";
      argv[4] = (char *)out;
      argv[5] = NULL;
      argc = 5;
    }
    int rc = cmd_disasm(&c, argc, argv);
    if (n % 4) {
      FZ_CHECK(rc == EXIT_INPUT, "disasm of %zu bytes: rc %d", n, rc);
      return;
    }
    FZ_CHECK(rc == 0, "disasm of %zu bytes failed: %d", n, rc);
    size_t tn;
    uint8_t *text = get_file(out, &tn);
    uint32_t *w = NULL;
    size_t wn = 0;
    sgpu_asm_error e;
    int arc = sgpu_asm_assemble((const char *)text, tn, "out", ((hdr >> 2) & 7u) * 0x100u, &w, &wn, &e);
    FZ_CHECK(arc == 0, "disasm output does not assemble: %s", e.message);
    FZ_CHECK(wn == n / 4, "%zu words back from %zu", wn, n / 4);
    for (size_t i = 0; i < wn; i++) FZ_CHECK(w[i] == le32(d + 4 * i), "word %zu changed", i);
    free(w);
    free(text);
    return;
  }
  char *argv[] = {"asm", base, (char *)in, "-o", (char *)out, NULL};
  int rc = cmd_asm(&c, 5, argv);
  uint32_t *w = NULL;
  size_t wn = 0;
  sgpu_asm_error e;
  int arc = assemble_like_cli(d, n, in, ((hdr >> 2) & 7u) * 0x100u, &c, &w, &wn, &e);
  if (arc) {
    FZ_CHECK(rc == EXIT_INPUT || rc == EXIT_DEVICE, "asm error %d but rc %d", arc, rc);
    return;
  }
  FZ_CHECK(rc == 0, "asm failed (%d) on text the assembler accepts", rc);
  size_t bn;
  uint8_t *bytes = get_file(out, &bn);
  FZ_CHECK(bn == wn * 4, "%zu bytes for %zu words", bn, wn);
  for (size_t i = 0; i < wn; i++) FZ_CHECK(le32(bytes + 4 * i) == w[i], "word %zu", i);
  free(bytes);
  free(w);
}

static void numbers(const uint8_t *d, size_t n) {
  char s[64];
  if (n >= sizeof s) n = sizeof s - 1;
  memcpy(s, d, n);
  s[n] = 0;
  uint64_t v64 = 0xABCDEF;
  uint32_t v32 = 0xABCDEF;
  bool ok64 = cli_parse_u64(s, &v64);
  bool ok32 = cli_parse_u32(s, &v32);
  if (ok32) FZ_CHECK(ok64 && v64 == v32, "u32 %u vs u64 %llu for '%s'", v32, (unsigned long long)v64, s);
  if (ok64 && v64 <= UINT32_MAX) FZ_CHECK(ok32, "'%s' fits 32 bits but was refused", s);
  if (!ok64) FZ_CHECK(v64 == 0xABCDEF, "value changed on failure");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  uint8_t op = data[0], hdr = data[1];
  data += 2;
  size -= 2;
  switch (op % 4) {
  case 0:
  case 1: load_stream(data, size, hdr); break;
  case 2: asm_disasm(data, size, hdr); break;
  default: numbers(data, size); break;
  }
  return 0;
}
