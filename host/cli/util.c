/* util.c — helpers of the `sgpu` CLI: JSON writer, errors, parsing, files,
 * device set-up and submission. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---------------------------------------------------------------- JSON */

void json_begin(json *j, FILE *f) {
  memset(j, 0, sizeof *j);
  j->f = f;
}

static void put_string(FILE *f, const char *v) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    default:
      if (*p < 0x20 || *p >= 0x7f) fprintf(f, "\\u%04x", *p);
      else fputc(*p, f);
    }
  }
  fputc('"', f);
}

static void json_sep(json *j, const char *key) {
  if (j->depth > 0 && j->need_comma[j->depth]) fputc(',', j->f);
  if (j->depth > 0) j->need_comma[j->depth] = true;
  if (key) {
    put_string(j->f, key);
    fputc(':', j->f);
  }
}

static void json_open(json *j, const char *key, char ch) {
  json_sep(j, key);
  fputc(ch, j->f);
  if (j->depth < 31) j->depth++;
  j->need_comma[j->depth] = false;
}

void json_obj(json *j, const char *key) { json_open(j, key, '{'); }
void json_arr(json *j, const char *key) { json_open(j, key, '['); }
void json_end_obj(json *j) {
  fputc('}', j->f);
  if (j->depth > 0) j->depth--;
}
void json_end_arr(json *j) {
  fputc(']', j->f);
  if (j->depth > 0) j->depth--;
}

void json_str(json *j, const char *key, const char *v) {
  json_sep(j, key);
  put_string(j->f, v);
}

/* Array elements call these with key NULL: separate them too. */
static void json_value_sep(json *j, const char *key) { json_sep(j, key); }

void json_u64(json *j, const char *key, uint64_t v) {
  json_value_sep(j, key);
  fprintf(j->f, "%llu", (unsigned long long)v);
}
void json_i64(json *j, const char *key, int64_t v) {
  json_value_sep(j, key);
  fprintf(j->f, "%lld", (long long)v);
}
void json_f64(json *j, const char *key, double v) {
  json_value_sep(j, key);
  fprintf(j->f, "%.4f", v);
}
void json_bool(json *j, const char *key, bool v) {
  json_value_sep(j, key);
  fputs(v ? "true" : "false", j->f);
}
void json_finish(json *j) { fputc('\n', j->f); }

/* ---------------------------------------------------------------- errors */

int cli_fail(cli *c, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  if (c->cmd) fprintf(stderr, "%s %s: %s\n", c->prog, c->cmd, msg);
  else fprintf(stderr, "%s: %s\n", c->prog, msg);
  if (c->json) {
    /* main() prints this object instead of the command's output. */
    c->json_error = true;
    snprintf(c->json_message, sizeof c->json_message, "%s", msg);
    c->json_exit = code;
  }
  return code;
}

/* Exit code of a library error. */
static int lib_exit_code(int rc) {
  if (rc == SGPU_ERROR_TIMEOUT || rc == SGPU_ERROR_NODE_FAULTED) return EXIT_GPU;
  if (rc <= SGPU_ERROR_SUBMIT_NULL_CONTEXT && rc >= SGPU_ERROR_VALIDATE_FENCE_PASSED)
    return EXIT_REJECTED;
  if (rc == SGPU_ERROR_INVALID_URI) return EXIT_USAGE;
  return EXIT_DEVICE;
}

int cli_lib_fail(cli *c, int rc, const char *what) {
  int code = lib_exit_code(rc);
  const char *detail = c->dev ? sgpu_last_error(c->dev) : "";
  if (detail && *detail)
    return cli_fail(c, code, "%s: %s (%d): %s", what, sgpu_strerror(rc), rc, detail);
  return cli_fail(c, code, "%s: %s (%d)", what, sgpu_strerror(rc), rc);
}

int cli_usage_unknown(cli *c, const char *a) {
  return cli_fail(c, EXIT_USAGE, "unknown option '%s' (see %s %s --help)", a, c->prog, c->cmd);
}

int cli_bad_number(cli *c, const char *opt, const char *v) {
  return cli_fail(c, EXIT_USAGE, "bad number '%s' for %s", v, opt);
}

int cli_unexpected_arg(cli *c, const char *a) {
  return a[0] == '-' ? cli_usage_unknown(c, a) : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", a);
}

/* ---------------------------------------------------------------- parsing */

bool cli_parse_u64(const char *s, uint64_t *v) {
  if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return false;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 0);
  if (errno || *end) return false;
  *v = x;
  return true;
}

bool cli_parse_u32(const char *s, uint32_t *v) {
  uint64_t x;
  if (!cli_parse_u64(s, &x) || x > UINT32_MAX) return false;
  *v = (uint32_t)x;
  return true;
}

int cli_opt(cli *c, int argc, char **argv, int *i, const char *name, const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '\0') {
    if (!value) return 1;
    if (*i + 1 >= argc) {
      cli_fail(c, EXIT_USAGE, "option %s needs a value (see %s%s%s --help)", name, c->prog,
               c->cmd ? " " : "", c->cmd ? c->cmd : "");
      return -1;
    }
    *value = argv[++*i];
    return 1;
  }
  if (a[n] == '=') {
    if (!value) {
      cli_fail(c, EXIT_USAGE, "option %s takes no value", name);
      return -1;
    }
    *value = a + n + 1;
    return 1;
  }
  return 0;
}

int cli_opt_u32(cli *c, int argc, char **argv, int *i, const char *name, uint32_t *out, int *rc) {
  const char *v;
  int m = cli_opt(c, argc, argv, i, name, &v);
  if (m == 0) return 0;
  if (m < 0) *rc = EXIT_USAGE;
  else *rc = cli_parse_u32(v, out) ? 0 : cli_bad_number(c, name, v);
  return 1;
}

/* ---------------------------------------------------------------- files */

int cli_read_file(cli *c, const char *path, uint8_t **data, size_t *size) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return cli_fail(c, EXIT_INPUT, "cannot open '%s': %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  if (!buf) {
    if (f != stdin) fclose(f);
    return cli_fail(c, EXIT_DEVICE, "out of memory");
  }
  for (;;) {
    if (n == cap) {
      /* A file of exactly SGPU_ASM_MAX_TEXT bytes is accepted: only a byte
       * past the limit refuses it. */
      if (cap >= SGPU_ASM_MAX_TEXT) {
        if (fgetc(f) == EOF) break;
        free(buf);
        if (f != stdin) fclose(f);
        return cli_fail(c, EXIT_INPUT, "'%s' is over the size limit (at most %u bytes)", path,
                        SGPU_ASM_MAX_TEXT);
      }
      uint8_t *p = realloc(buf, cap * 2);
      if (!p) {
        free(buf);
        if (f != stdin) fclose(f);
        return cli_fail(c, EXIT_DEVICE, "out of memory");
      }
      buf = p;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  if (f != stdin) fclose(f);
  if (err) {
    free(buf);
    return cli_fail(c, EXIT_INPUT, "cannot read '%s'", path);
  }
  *data = buf;
  *size = n;
  return 0;
}

int cli_write_file(cli *c, const char *path, const void *data, size_t size) {
  bool out = strcmp(path, "-") == 0;
  FILE *f = out ? stdout : fopen(path, "wb");
  if (!f) return cli_fail(c, EXIT_INPUT, "cannot create '%s': %s", path, strerror(errno));
  size_t put = fwrite(data, 1, size, f);
  int bad = put != size;
  if (out) bad |= fflush(f) != 0;
  else bad |= fclose(f) != 0;
  if (bad) {
    if (!out) remove(path);
    return cli_fail(c, EXIT_INPUT, "cannot write '%s'", path);
  }
  return 0;
}

static bool looks_binary(const uint8_t *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t b = d[i];
    if (b == '\n' || b == '\r' || b == '\t' || b == '\f' || b == '\v') continue;
    if (b < 0x20 || b >= 0x7f) return true;
  }
  return false;
}

static bool has_suffix(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

int cli_load_stream(cli *c, const char *path, cli_format fmt, uint32_t base, uint32_t **words,
                    size_t *count, bool *was_text) {
  uint8_t *d;
  size_t n;
  int rc = cli_read_file(c, path, &d, &n);
  if (rc) return rc;
  if (fmt == FMT_AUTO) fmt = has_suffix(path, ".bin") || looks_binary(d, n) ? FMT_BINARY : FMT_TEXT;
  if (was_text) *was_text = fmt == FMT_TEXT;
  if (fmt == FMT_BINARY) {
    if (n % 4) {
      free(d);
      return cli_fail(c, EXIT_INPUT, "%s: binary command stream of %zu bytes is not a whole number of 32-bit words",
                      path, n);
    }
    uint32_t *w = malloc(n ? n : 4);
    if (!w) {
      free(d);
      return cli_fail(c, EXIT_DEVICE, "out of memory");
    }
    for (size_t i = 0; i < n / 4; i++)
      w[i] = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 | (uint32_t)d[4 * i + 2] << 16 |
             (uint32_t)d[4 * i + 3] << 24;
    free(d);
    *words = w;
    *count = n / 4;
    return 0;
  }
  /* A label or .equ in the file wins over a predefined symbol of the same
   * name (the file's own FB stays its own): the assembler refuses the
   * clash, so assemble again without that symbol. */
  sgpu_asm_symbol syms[CLI_MAX_SYMS];
  size_t nsyms = c->nsyms;
  memcpy(syms, c->syms, nsyms * sizeof *syms);
  sgpu_asm_error e;
  for (;;) {
    sgpu_asm_options o = {base, syms, nsyms};
    rc = sgpu_asm_assemble_ex((const char *)d, n, strcmp(path, "-") ? path : "<stdin>", &o, words,
                              count, &e);
    const char *tail = rc == SGPU_ASM_ERR_DUPLICATE_SYMBOL ? strstr(e.message, "' is a predefined symbol") : NULL;
    if (!tail) break;
    size_t k = 0;
    for (; k < nsyms; k++) {
      size_t len = strlen(syms[k].name);
      if ((size_t)(tail - e.message) > len && strncmp(tail - len, syms[k].name, len) == 0 &&
          tail[-(ptrdiff_t)len - 1] == '\'')
        break;
    }
    if (k == nsyms) break;
    memmove(&syms[k], &syms[k + 1], (nsyms - k - 1) * sizeof *syms);
    nsyms--;
  }
  free(d);
  if (rc) return cli_fail(c, rc == SGPU_ASM_ERR_NO_MEMORY ? EXIT_DEVICE : EXIT_INPUT, "%s", e.message);
  return 0;
}

/* ---------------------------------------------------------------- device */

int cli_open(cli *c) {
  char detail[512];
  int rc = sgpu_open_detail(c->uri, &c->dev, detail, sizeof detail);
  if (rc) {
    c->dev = NULL;
    /* The library's reason names the URI part that is wrong (or the failing
     * step); the code's text says which kind of failure it is. */
    const char *uri = c->uri ? c->uri : "sim";
    if (*detail && strstr(detail, uri))
      return cli_fail(c, lib_exit_code(rc), "cannot open device: %s (%s, %d)", detail,
                      sgpu_strerror(rc), rc);
    if (*detail)
      return cli_fail(c, lib_exit_code(rc), "cannot open device '%s': %s (%s, %d)", uri, detail,
                      sgpu_strerror(rc), rc);
    return cli_fail(c, lib_exit_code(rc), "cannot open device '%s': %s (%d)", uri, sgpu_strerror(rc),
                    rc);
  }
  for (unsigned n = 0; n < SGPU_MAX_NODES; n++) c->next_fence[n] = 1;
  c->priority_rings = -1;
  sgpu_get_cycles(c->dev, &c->start_cycles);
  return 0;
}

void cli_close(cli *c) {
  for (unsigned n = 0; n < SGPU_MAX_NODES; n++)
    if (c->ctx[n]) sgpu_destroy_context(c->ctx[n]);
  if (c->dev) sgpu_close(c->dev);
  c->dev = NULL;
}

static void add_sym(cli *c, const char *name, uint32_t v) {
  for (size_t i = 0; i < c->nsyms; i++)
    if (strcmp(c->syms[i].name, name) == 0) {
      c->syms[i].value = v;
      return;
    }
  if (c->nsyms < CLI_MAX_SYMS) c->syms[c->nsyms++] = (sgpu_asm_symbol){name, v};
}

const char *cli_common_help(void) {
  return "device set-up (every run on the sim device starts a fresh chip):\n"
         "  --mode WxH[:rgb565|rgb332]  set the display mode of --source first, with two\n"
         "                              framebuffers FB0 (scanned out) and FB1 allocated\n"
         "                              in local video memory and cleared to black\n"
         "  --source S                  display source for --mode and the command (default 0)\n"
         "  --run FILE                  submit a command file first and wait for it\n"
         "                              (repeatable, in order; fences count up from 1)\n"
         "  symbols usable in command files: SCRATCH (4 KiB of local video memory),\n"
         "  SOURCE, and with a display mode FB, FB0, FB1, FB_PITCH, FB_WIDTH, FB_HEIGHT,\n"
         "  FB_BYTES (`sgpu info` with the same options lists them and the free areas;\n"
         "  `sgpu asm` knows them too); a label or .equ of the same name in the file\n"
         "  takes precedence\n";
}

int cli_common_opt(cli *c, int argc, char **argv, int *i, int *rc) {
  const char *v = NULL;
  int m;
  if ((m = cli_opt(c, argc, argv, i, "--mode", &v))) {
    if (m < 0) return *rc = EXIT_USAGE, 1;
    c->mode = v;
    return 1;
  }
  if ((m = cli_opt(c, argc, argv, i, "--source", &v))) {
    if (m < 0) return *rc = EXIT_USAGE, 1;
    if (!cli_parse_u32(v, &c->source) || c->source >= SGPU_MAX_SOURCES) {
      *rc = cli_fail(c, EXIT_USAGE, "bad --source '%s' (0..%u)", v, SGPU_MAX_SOURCES - 1);
      return 1;
    }
    return 1;
  }
  if ((m = cli_opt(c, argc, argv, i, "--run", &v))) {
    if (m < 0) return *rc = EXIT_USAGE, 1;
    if (c->nrun >= CLI_MAX_RUN) {
      *rc = cli_fail(c, EXIT_USAGE, "at most %d --run files", CLI_MAX_RUN);
      return 1;
    }
    c->run[c->nrun++] = v;
    return 1;
  }
  return 0;
}

static int parse_mode(cli *c, const char *s, uint32_t *w, uint32_t *h, uint32_t *fmt) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  *fmt = SGPU_FORMAT_RGB565;
  char *colon = strchr(buf, ':');
  if (colon) {
    *colon = '\0';
    if (strcmp(colon + 1, "rgb565") == 0) *fmt = SGPU_FORMAT_RGB565;
    else if (strcmp(colon + 1, "rgb332") == 0) *fmt = SGPU_FORMAT_RGB332;
    else return cli_fail(c, EXIT_USAGE, "bad --mode format '%s' (rgb565 or rgb332)", colon + 1);
  }
  char *x = strchr(buf, 'x');
  if (!x) return cli_fail(c, EXIT_USAGE, "bad --mode '%s' (want WIDTHxHEIGHT, e.g. 320x240)", s);
  *x = '\0';
  if (!cli_parse_u32(buf, w) || !cli_parse_u32(x + 1, h) || *w == 0 || *h == 0 || *w > 4096 ||
      *h > 4096)
    return cli_fail(c, EXIT_USAGE, "bad --mode '%s' (want WIDTHxHEIGHT, e.g. 320x240)", s);
  return 0;
}

/* The user's areas of the set-up: SCRATCH (4 KiB), and with a mode the two
 * framebuffers, allocated in segment 1 in this order (the allocator is
 * deterministic: the same device and mode give the same addresses), with
 * their symbols.  With clear, they are zeroed on the device. */
static int setup_areas(cli *c, const char *mode, bool clear, uint64_t fb[2], uint32_t *pitch_out,
                       uint32_t *w_out, uint32_t *h_out, uint32_t *fmt_out) {
  int rc;
  uint64_t scratch;
  rc = sgpu_alloc(c->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &scratch);
  if (rc) return cli_lib_fail(c, rc, "allocating SCRATCH");
  uint8_t zero[4096] = {0};
  if (clear && (rc = sgpu_write(c->dev, scratch, zero, sizeof zero)))
    return cli_lib_fail(c, rc, "clearing SCRATCH");
  c->scratch = (uint32_t)scratch;
  add_sym(c, "SCRATCH", (uint32_t)scratch);
  add_sym(c, "SOURCE", c->source);
  if (!mode) return 0;
  uint32_t w = 0, h = 0, fmt = 0;
  if ((rc = parse_mode(c, mode, &w, &h, &fmt))) return rc;
  uint32_t bpp = fmt == SGPU_FORMAT_RGB332 ? 1 : 2;
  uint32_t pitch = (w * bpp + 3u) & ~3u;
  uint32_t bytes = pitch * h;
  for (int k = 0; k < 2; k++) {
    rc = sgpu_alloc(c->dev, SGPU_SEGMENT_LOCAL, bytes, 4096, &fb[k]);
    if (rc) return cli_lib_fail(c, rc, "allocating a framebuffer for --mode");
    for (uint32_t off = 0; clear && off < bytes; off += sizeof zero) {
      uint32_t n = bytes - off < sizeof zero ? bytes - off : (uint32_t)sizeof zero;
      if ((rc = sgpu_write(c->dev, fb[k] + off, zero, n))) return cli_lib_fail(c, rc, "clearing a framebuffer");
    }
    c->fb[k] = (uint32_t)fb[k];
  }
  c->fb_bytes = bytes;
  add_sym(c, "FB", (uint32_t)fb[0]);
  add_sym(c, "FB0", (uint32_t)fb[0]);
  add_sym(c, "FB1", (uint32_t)fb[1]);
  add_sym(c, "FB_PITCH", pitch);
  add_sym(c, "FB_WIDTH", w);
  add_sym(c, "FB_HEIGHT", h);
  add_sym(c, "FB_BYTES", bytes);
  *pitch_out = pitch;
  *w_out = w;
  *h_out = h;
  *fmt_out = fmt;
  return 0;
}

int cli_asm_symbols(cli *c, bool explicit_device) {
  char detail[512];
  sgpu_device *dev = NULL;
  int rc = sgpu_open_detail(c->uri, &dev, detail, sizeof detail);
  if (rc) {
    if (!explicit_device) return 0; /* e.g. a build without the model: no symbols */
    return cli_fail(c, lib_exit_code(rc), "cannot open device '%s' for the symbols: %s (%s, %d)",
                    c->uri ? c->uri : "sim", detail, sgpu_strerror(rc), rc);
  }
  c->dev = dev;
  uint64_t fb[2];
  uint32_t pitch, w, h, fmt;
  rc = setup_areas(c, c->mode ? c->mode : "320x240", false, fb, &pitch, &w, &h, &fmt);
  sgpu_close(dev);
  c->dev = NULL;
  return rc;
}

int cli_setup(cli *c, bool wait_runs) {
  int rc;
  uint64_t fb[2];
  uint32_t pitch = 0, w = 0, h = 0, fmt = 0;
  if ((rc = setup_areas(c, c->mode, true, fb, &pitch, &w, &h, &fmt))) return rc;
  if (c->mode) {
    sgpu_display_mode m;
    memset(&m, 0, sizeof m);
    m.width = w;
    m.height = h;
    m.pitch = pitch;
    m.format = fmt;
    m.address = (uint32_t)fb[0];
    if ((rc = sgpu_set_display_mode(c->dev, c->source, &m)))
      return cli_lib_fail(c, rc, "setting the display mode");
    c->mode_set = true;
  } else {
    sgpu_display_mode m;
    if (sgpu_get_display_mode(c->dev, c->source, &m) == 0 && m.enabled) {
      add_sym(c, "FB", m.address);
      add_sym(c, "FB0", m.address);
      add_sym(c, "FB_PITCH", m.pitch);
      add_sym(c, "FB_WIDTH", m.width);
      add_sym(c, "FB_HEIGHT", m.height);
      add_sym(c, "FB_BYTES", m.pitch * m.height);
    }
  }
  submit_opts o;
  submit_opts_default(&o);
  o.wait = wait_runs;
  for (int i = 0; i < c->nrun; i++) {
    uint32_t fence;
    uint64_t cyc;
    c->last_faulted = false;
    if ((rc = cli_submit_file(c, c->run[i], &o, &fence, &cyc))) return rc;
    if (c->last_faulted) {
      cli_drain_events(c, NULL, NULL, 0, -1, NULL);
      return cli_fail(c, EXIT_GPU, "--run %s: the GPU faulted (fence %u)", c->run[i], fence);
    }
  }
  return 0;
}

/* Start a device command: open the device and run the set-up. */
int cli_start_device(cli *c, bool default_mode, bool wait_runs) {
  int rc = cli_open(c);
  if (rc) return rc;
  if (default_mode && !c->mode) {
    sgpu_display_mode m;
    if (sgpu_get_display_mode(c->dev, c->source, &m) != 0 || !m.enabled) c->mode = "320x240";
  }
  return cli_setup(c, wait_runs);
}

/* ---------------------------------------------------------------- submit */

void submit_opts_default(submit_opts *o) {
  memset(o, 0, sizeof *o);
  o->interval = SGPU_FLIP_INTERVAL_ONE;
  o->timeout_ms = 200;
  o->wait = true;
  o->segment = SGPU_SEGMENT_SYSTEM;
  o->format = FMT_AUTO;
}

static int get_context(cli *c, uint32_t node, sgpu_context **ctx) {
  if (node >= SGPU_MAX_NODES)
    return cli_fail(c, EXIT_USAGE, "--node %u out of range (0..%u)", node, SGPU_MAX_NODES - 1);
  if (!c->ctx[node]) {
    int rc = sgpu_create_context(c->dev, node, &c->ctx[node]);
    if (rc) {
      c->ctx[node] = NULL;
      return cli_lib_fail(c, rc, "creating a context");
    }
  }
  *ctx = c->ctx[node];
  return 0;
}

int cli_submit_words(cli *c, const char *name, const uint32_t *words, size_t count,
                     const submit_opts *o, uint32_t *fence_out, uint64_t *cycles) {
  sgpu_context *ctx = NULL;
  int rc = get_context(c, o->node, &ctx);
  if (rc) return rc;
  if (sgpu_context_priority(ctx) != o->priority && (rc = sgpu_set_context_priority(ctx, o->priority)))
    return cli_lib_fail(c, rc, "setting the context's priority");
  uint32_t size = (uint32_t)(count * 4);
  uint64_t addr;
  rc = sgpu_alloc(c->dev, o->segment, size ? size : 4, 4096, &addr);
  if (rc) return cli_lib_fail(c, rc, "allocating the command buffer");
  if (size && (rc = sgpu_write(c->dev, addr, words, size)))
    return cli_lib_fail(c, rc, "writing the command buffer");
  uint32_t fence = o->fence ? o->fence : c->next_fence[o->node];
  c->next_fence[o->node] = fence + 1;
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = ctx;
  a.dma_buffer_segment_id = o->segment;
  a.dma_buffer_physical_address = addr;
  a.dma_buffer_size = size ? size : 4;
  a.dma_buffer_submission_start_offset = 0;
  a.dma_buffer_submission_end_offset = size;
  a.submission_fence_id = fence;
  a.flags.value = o->flags;
  if (o->flags & (SGPU_SUBMIT_FLIP | SGPU_SUBMIT_FLIP_WITH_NO_WAIT)) a.vidpn_source_id = o->source;
  if (o->flags & SGPU_SUBMIT_FLIP) a.flip_interval = o->interval;
  a.node_ordinal = o->node;
  uint64_t t0 = 0, t1 = 0;
  sgpu_get_cycles(c->dev, &t0);
  rc = sgpu_submit_command(c->dev, &a);
  if (rc) {
    char what[300];
    snprintf(what, sizeof what, "submitting %s", name);
    return cli_lib_fail(c, rc, what);
  }
  if (c->nsubs < CLI_MAX_SUBS) {
    c->sub_names[c->nsubs] = name;
    c->subs[c->nsubs++] = a;
  }
  if (o->wait) {
    rc = sgpu_wait_fence(c->dev, o->node, fence, o->timeout_ms);
    if (rc == SGPU_ERROR_TIMEOUT)
      return cli_fail(c, EXIT_GPU, "%s: fence %u on node %u did not complete within %u ms of simulated time",
                      name, fence, o->node, o->timeout_ms);
    if (rc == SGPU_ERROR_NODE_FAULTED) {
      /* Reported through the DMA_FAULTED event by the caller. */
      c->last_faulted = true;
      *fence_out = fence;
      sgpu_get_cycles(c->dev, &t1);
      *cycles = t1 - t0;
      return 0;
    }
    if (rc) return cli_lib_fail(c, rc, "waiting for the fence");
  }
  sgpu_get_cycles(c->dev, &t1);
  *fence_out = fence;
  *cycles = t1 - t0;
  return 0;
}

int cli_submit_file(cli *c, const char *path, const submit_opts *o, uint32_t *fence,
                    uint64_t *cycles) {
  uint32_t *w = NULL;
  size_t n = 0;
  bool text;
  int rc = cli_load_stream(c, path, o->format, 0, &w, &n, &text);
  if (rc) return rc;
  if (text && o->segment != SGPU_SEGMENT_SYSTEM) {
    /* Labels are GPU addresses: assemble again at the buffer's address.  The
     * allocator is deterministic, so peek at where the buffer will go. */
    uint64_t probe;
    rc = sgpu_alloc(c->dev, o->segment, n ? (uint32_t)(n * 4) : 4, 4096, &probe);
    if (rc) {
      free(w);
      return cli_lib_fail(c, rc, "allocating the command buffer");
    }
    sgpu_free(c->dev, probe);
    free(w);
    w = NULL;
    if ((rc = cli_load_stream(c, path, o->format, (uint32_t)probe, &w, &n, &text))) return rc;
  }
  if (n > UINT32_MAX / 8) {
    free(w);
    return cli_fail(c, EXIT_INPUT, "%s: command stream of %zu words is over the limit (at most %u words)",
                    path, n, UINT32_MAX / 8);
  }
  rc = cli_submit_words(c, path, w, n, o, fence, cycles);
  free(w);
  return rc;
}

/* ---------------------------------------------------------------- events */

static const char *event_name(uint32_t t) {
  switch (t) {
  case SGPU_EVENT_DMA_COMPLETED: return "DMA_COMPLETED";
  case SGPU_EVENT_DMA_PREEMPTED: return "DMA_PREEMPTED";
  case SGPU_EVENT_DMA_FAULTED: return "DMA_FAULTED";
  case SGPU_EVENT_CRTC_VSYNC: return "CRTC_VSYNC";
  case SGPU_EVENT_DMA_DROPPED: return "DMA_DROPPED";
  case SGPU_EVENT_ENGINE_RESET: return "ENGINE_RESET";
  default: return "NONE";
  }
}

/* The faulting packet, disassembled from GPU memory (best effort). */
/* The page directory of the node's current context (VM_ROOT), 0 when it is
 * physical or the device has no VM: a VM context's FAULT_ADDR is virtual. */
static uint32_t node_vm_root(cli *c, uint32_t node) {
  uint32_t off = 0, root = 0;
  if (sgpu_register_offset("VM_ROOT", node, &off) || sgpu_reg_read(c->dev, off, &root)) return 0;
  return root;
}

static void fault_packet_text(cli *c, uint32_t address, uint32_t vm_root, char *buf, size_t size) {
  uint32_t w[16];
  snprintf(buf, size, "?");
  if (address & 3u) return;
  size_t n = 0;
  for (; n < 16; n++) {
    uint32_t pa = address + 4 * (uint32_t)n;
    if (vm_root && cli_vm_translate(c, vm_root, pa, &pa)) break;
    if (sgpu_read(c->dev, pa, &w[n], 4)) break;
  }
  if (n) sgpu_disasm_one(w, n, buf, size);
}

const char *cli_granularity_text(uint32_t granularity) {
  switch (granularity) {
  case SGPU_PREEMPTION_PACKET_BOUNDARY: return "packet boundary (inside buffers and WAITs)";
  case SGPU_PREEMPTION_DMA_BUFFER_BOUNDARY:
    return "drains to the end of the running buffer (no hardware preemption on this board)";
  default: return "unknown";
  }
}

const char *cli_granularity_name(uint32_t granularity) {
  switch (granularity) {
  case SGPU_PREEMPTION_PACKET_BOUNDARY: return "packet_boundary";
  case SGPU_PREEMPTION_DMA_BUFFER_BOUNDARY: return "dma_buffer_boundary";
  default: return "unknown";
  }
}

/* " priority=high" for a DMA event of a device with priority rings, else "". */
static const char *event_priority(cli *c, const sgpu_event *ev) {
  if (ev->type == SGPU_EVENT_CRTC_VSYNC) return "";
  if (c->priority_rings < 0) {
    uint32_t caps = 0;
    c->priority_rings = sgpu_reg_read(c->dev, SGPU_REG_CAPS, &caps) == 0 && SGPU_FIELD_GET(CAPS_PRIORITY, caps);
  }
  if (!c->priority_rings) return "";
  return ev->priority == SGPU_PRIORITY_HIGH ? " priority=high" : " priority=normal";
}

/* A page fault's access and unit (sgpu_event.fault_access, fault_unit). */
static const char *access_name(uint32_t a) {
  return a == SGPU_ACCESS_FETCH ? "fetch" : a == SGPU_ACCESS_READ ? "read" : a == SGPU_ACCESS_WRITE ? "write" : "?";
}
static const char *unit_name(uint32_t u) { return u == SGPU_UNIT_CP ? "cp" : u == SGPU_UNIT_2D ? "2d" : "?"; }
static int page_fault(const sgpu_event *ev) {
  return ev->type == SGPU_EVENT_DMA_FAULTED &&
         (ev->fault_reason == SGPU_FAULT_PAGE_NOT_PRESENT || ev->fault_reason == SGPU_FAULT_PAGE_PROTECTION);
}

void cli_event_out(cli *c, json *j, const sgpu_event *ev) {
  char packet[256] = "";
  const char *prio = event_priority(c, ev);
  uint32_t vm_root = ev->type == SGPU_EVENT_DMA_FAULTED ? node_vm_root(c, ev->node_ordinal) : 0;
  if (ev->type == SGPU_EVENT_DMA_FAULTED) fault_packet_text(c, ev->fault_address, vm_root, packet, sizeof packet);
  if (j) {
    json_obj(j, NULL);
    json_str(j, "type", event_name(ev->type));
    json_u64(j, "cycle", ev->cycle);
    if (ev->type == SGPU_EVENT_CRTC_VSYNC) {
      json_u64(j, "source", ev->source_id);
      json_u64(j, "scanout_address", ev->scanout_address);
      json_u64(j, "vblank_count", ev->vblank_count);
    } else {
      json_u64(j, "node", ev->node_ordinal);
      if (*prio) json_str(j, "priority", ev->priority == SGPU_PRIORITY_HIGH ? "high" : "normal");
      json_u64(j, "fence", ev->fence_id);
      json_u64(j, "fence64", ev->fence_id64);
      json_u64(j, "flags", ev->flags);
      if (ev->type != SGPU_EVENT_DMA_COMPLETED)
        json_u64(j, "last_completed_fence", ev->last_completed_fence_id);
      if (ev->type == SGPU_EVENT_DMA_FAULTED) {
        json_str(j, "reason", sgpu_fault_name(ev->fault_reason));
        json_u64(j, "reason_code", ev->fault_reason);
        json_u64(j, "address", ev->fault_address);
        if (vm_root) json_bool(j, "address_virtual", true);
        json_u64(j, "header", ev->fault_opcode);
        json_str(j, "packet", packet);
        if (page_fault(ev)) {
          json_u64(j, "fault_va", ev->fault_va);
          json_str(j, "fault_access", access_name(ev->fault_access));
          json_str(j, "fault_unit", unit_name(ev->fault_unit));
        }
      }
      if (ev->type == SGPU_EVENT_DMA_PREEMPTED) {
        json_u64(j, "preemption_fence", ev->fence_id);
        json_u64(j, "preempted_count", ev->preempted_count);
        json_u64(j, "latency_cycles", ev->latency_cycles);
      }
      if (ev->type == SGPU_EVENT_DMA_DROPPED) json_u64(j, "context", ev->context_id);
      if (ev->type == SGPU_EVENT_ENGINE_RESET) {
        json_u64(j, "last_aborted_fence", ev->fence_id);
        json_u64(j, "guilty_context", ev->context_id);
        json_u64(j, "guilty_count", ev->guilty_count);
        json_bool(j, "banned", ev->banned != 0);
        json_u64(j, "resubmitted", ev->resubmitted);
      }
    }
    json_end_obj(j);
    return;
  }
  FILE *f = c->out;
  fprintf(f, "event %-13s cycle=%llu", event_name(ev->type), (unsigned long long)ev->cycle);
  switch (ev->type) {
  case SGPU_EVENT_CRTC_VSYNC:
    fprintf(f, " source=%u scanout=0x%08x vblank=%llu\n", ev->source_id, ev->scanout_address,
            (unsigned long long)ev->vblank_count);
    break;
  case SGPU_EVENT_DMA_FAULTED:
    fprintf(f, " node=%u fence=%u reason=%s address=0x%08x header=0x%08x last_completed=%u%s\n"
               "  faulting packet: %s\n",
            ev->node_ordinal, ev->fence_id, sgpu_fault_name(ev->fault_reason), ev->fault_address,
            ev->fault_opcode, ev->last_completed_fence_id, prio, packet);
    if (vm_root) fprintf(f, "  in a VM context (page directory 0x%08x): address is virtual\n", vm_root);
    if (page_fault(ev))
      fprintf(f, "  page fault: va=0x%08llx access=%s unit=%s\n", (unsigned long long)ev->fault_va,
              access_name(ev->fault_access), unit_name(ev->fault_unit));
    break;
  case SGPU_EVENT_DMA_PREEMPTED:
    fprintf(f, " node=%u preemption_fence=%u last_completed=%u preempted=%u latency=%u cycles%s\n",
            ev->node_ordinal, ev->fence_id, ev->last_completed_fence_id, ev->preempted_count,
            ev->latency_cycles, prio);
    break;
  case SGPU_EVENT_ENGINE_RESET:
    fprintf(f, " node=%u last_aborted=%u guilty_context=%u guilty_count=%u banned=%s resubmitted=%u%s\n",
            ev->node_ordinal, ev->fence_id, ev->context_id, ev->guilty_count, ev->banned ? "yes" : "no",
            ev->resubmitted, prio);
    break;
  case SGPU_EVENT_DMA_DROPPED:
    fprintf(f, " node=%u fence=%u context=%u last_completed=%u flags=0x%x (the guilty context's: not run)%s\n",
            ev->node_ordinal, ev->fence_id, ev->context_id, ev->last_completed_fence_id, ev->flags, prio);
    break;
  default:
    fprintf(f, " node=%u fence=%u flags=0x%x%s\n", ev->node_ordinal, ev->fence_id, ev->flags, prio);
  }
}

int cli_drain_events(cli *c, json *j, const char *key, uint32_t timeout_ms, int max, int *count) {
  int result = 0, n = 0;
  if (j) json_arr(j, key);
  while (max < 0 || n < max) {
    sgpu_event ev;
    int rc = sgpu_next_event(c->dev, &ev, n == 0 ? timeout_ms : (max < 0 ? 0 : timeout_ms));
    if (rc) break;
    n++;
    if (ev.type == SGPU_EVENT_DMA_FAULTED) result = EXIT_GPU;
    cli_event_out(c, j, &ev);
  }
  if (j) json_end_arr(j);
  if (count) *count = n;
  return result;
}

uint32_t cli_crc32(const uint8_t *d, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    crc ^= d[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}
