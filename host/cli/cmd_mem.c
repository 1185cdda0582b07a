/* cmd_mem.c — `sgpu peek` and `sgpu poke`: GPU memory and registers, a
 * 32-bit word at a time. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A symbol of the set-up (SCRATCH, FB0, FB1, ...: `sgpu info` lists them)
 * with an optional +OFFSET; known once the device is set up. */
static bool is_symbolic(const char *s) {
  return (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_';
}

static int resolve_symbol(cli *c, const char *s, uint64_t *addr) {
  size_t len = strcspn(s, "+");
  uint32_t off = 0;
  if (s[len] && !cli_parse_u32(s + len + 1, &off))
    return cli_fail(c, EXIT_USAGE, "bad offset in '%s' (SYMBOL+N)", s);
  for (size_t i = 0; i < c->nsyms; i++)
    if (strlen(c->syms[i].name) == len && strncmp(c->syms[i].name, s, len) == 0) {
      *addr = (uint64_t)c->syms[i].value + off;
      if (*addr & 3u) return cli_fail(c, EXIT_USAGE, "address '%s' is not 4-byte aligned", s);
      return 0;
    }
  char names[256] = "";
  for (size_t i = 0; i < c->nsyms; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", c->syms[i].name);
  return cli_fail(c, EXIT_USAGE, "unknown symbol '%.*s' (this set-up has %s; FB0/FB1 need --mode)",
                  (int)len, s, names);
}

/* Parse ADDR: memory address or reg:NAME[@INDEX] / reg:0xOFF; a symbol
 * (SCRATCH[+N]) is left for resolve_symbol once the device is set up. */
static int parse_target(cli *c, const char *s, bool *is_reg, uint64_t *addr) {
  if (strncmp(s, "reg:", 4) == 0) {
    *is_reg = true;
    const char *r = s + 4;
    uint32_t off;
    if (cli_parse_u32(r, &off)) {
      if (off & 3u || off > 0xFFFu)
        return cli_fail(c, EXIT_USAGE, "register offset '%s' must be 4-byte aligned and below 0x1000", r);
      *addr = off;
      return 0;
    }
    char name[64];
    snprintf(name, sizeof name, "%s", r);
    uint32_t index = 0;
    char *at = strchr(name, '@');
    if (at) {
      *at = '\0';
      if (!cli_parse_u32(at + 1, &index))
        return cli_fail(c, EXIT_USAGE, "bad register index in '%s'", s);
    }
    for (char *p = name; *p; p++)
      if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    if (at && sgpu_register_is_global(name))
      return cli_fail(c, EXIT_USAGE, "register %s is global: no @INDEX", name);
    int rc = sgpu_register_offset(name, index, &off);
    if (rc == SGPU_ERROR_INVALID_NODE)
      return cli_fail(c, EXIT_USAGE, "node index %u out of range in '%s'", index, s);
    if (rc == SGPU_ERROR_INVALID_SOURCE)
      return cli_fail(c, EXIT_USAGE, "source index %u out of range in '%s'", index, s);
    if (rc == 0) {
      *addr = off;
      return 0;
    }
    return cli_fail(c, EXIT_USAGE, "unknown register '%s' (see sgpu peek --help)", r);
  }
  *is_reg = false;
  if (is_symbolic(s)) return 0;
  if (!cli_parse_u64(s, addr)) return cli_fail(c, EXIT_USAGE, "bad address '%s'", s);
  if (*addr & 3u) return cli_fail(c, EXIT_USAGE, "address '%s' is not 4-byte aligned", s);
  return 0;
}

/* Registers the library programs itself (per node, and the interrupt mask):
 * poke may write them, and says what it overrides. */
static const char *const library_regs[] = {"RING_BASE", "RING_SIZE", "RING_WPTR", "RPTR_ADDR",
                                           "CONTROL",   "WATCHDOG",  "INT_ENABLE"};

static void warn_library_reg(uint32_t off) {
  char buf[64];
  const char *nm = sgpu_register_name(off, buf, sizeof buf);
  if (!nm) return;
  size_t len = strcspn(nm, "@");
  for (size_t i = 0; i < sizeof library_regs / sizeof library_regs[0]; i++)
    if (strlen(library_regs[i]) == len && strncmp(nm, library_regs[i], len) == 0) {
      fprintf(stderr, "sgpu poke: warning: %s is programmed by the library (rings, interrupts): "
                      "this write overrides it\n", nm);
      return;
    }
}

static void warn_reserved(cli *c, uint64_t a) {
  sgpu_area areas[64];
  int n = sgpu_get_areas(c->dev, areas, 64);
  for (int i = 0; i < n && i < 64; i++)
    if (areas[i].kind == SGPU_AREA_RESERVED && a >= areas[i].base && a - areas[i].base < areas[i].size) {
      fprintf(stderr,
              "sgpu poke: warning: 0x%08llx is in %s (0x%llx+%llu), reserved by the library: "
              "overriding it\n",
              (unsigned long long)a, areas[i].name, (unsigned long long)areas[i].base,
              (unsigned long long)areas[i].size);
      return;
    }
  fprintf(stderr, "sgpu poke: warning: %s: overriding it\n", sgpu_last_error(c->dev));
}

static int access_words(cli *c, bool is_reg, uint64_t addr, uint32_t *w, size_t n, bool write) {
  for (size_t k = 0; k < n; k++) {
    int rc;
    uint64_t a = addr + 4 * k;
    if (is_reg) {
      if (a > 0xFFCu) return cli_fail(c, EXIT_USAGE, "register range runs past offset 0xffc");
      if (write) warn_library_reg((uint32_t)a);
      rc = write ? sgpu_reg_write(c->dev, (uint32_t)a, w[k])
                 : sgpu_reg_read(c->dev, (uint32_t)a, &w[k]);
    } else {
      rc = write ? sgpu_write(c->dev, a, &w[k], 4) : sgpu_read(c->dev, a, &w[k], 4);
      if (rc == SGPU_ERROR_RESERVED_ADDRESS) {
        /* poke is the raw path: say what it overrides, then write anyway. */
        warn_reserved(c, a);
        rc = sgpu_write_raw(c->dev, a, &w[k], 4);
      }
    }
    if (rc) {
      char what[96];
      snprintf(what, sizeof what, "%s %s 0x%llx", write ? "writing" : "reading", is_reg ? "register" : "address",
               (unsigned long long)a);
      return cli_lib_fail(c, rc, what);
    }
  }
  return 0;
}

static void print_words(cli *c, bool is_reg, uint64_t addr, const uint32_t *w, size_t n) {
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "space", is_reg ? "register" : "memory");
    json_u64(&j, "address", addr);
    json_arr(&j, "values");
    for (size_t k = 0; k < n; k++) json_u64(&j, NULL, w[k]);
    json_end_arr(&j);
    if (is_reg) {
      json_arr(&j, "names");
      for (size_t k = 0; k < n; k++) {
        char buf[64];
        const char *nm = sgpu_register_name((uint32_t)(addr + 4 * k), buf, sizeof buf);
        json_str(&j, NULL, nm ? nm : "");
      }
      json_end_arr(&j);
    }
    json_end_obj(&j);
    json_finish(&j);
    return;
  }
  for (size_t k = 0; k < n; k++) {
    uint64_t a = addr + 4 * k;
    if (is_reg) {
      char buf[64];
      const char *nm = sgpu_register_name((uint32_t)a, buf, sizeof buf);
      fprintf(c->out, "reg:0x%03llx %-20s 0x%08x\n", (unsigned long long)a, nm ? nm : "", w[k]);
    } else {
      fprintf(c->out, "0x%08llx: 0x%08x\n", (unsigned long long)a, w[k]);
    }
  }
}

int cmd_peek(cli *c, int argc, char **argv) {
  int rc = 0;
  positional p = {0};
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1]) return cli_usage_unknown(c, argv[i]);
    if (p.n >= 2) return cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    p.arg[p.n++] = argv[i];
  }
  if (p.n == 0) return cli_fail(c, EXIT_USAGE, "no address given (see sgpu peek --help)");
  bool is_reg;
  uint64_t addr;
  uint32_t n = 1;
  if ((rc = parse_target(c, p.arg[0], &is_reg, &addr))) return rc;
  if (p.n > 1 && (!cli_parse_u32(p.arg[1], &n) || n == 0 || n > 65536))
    return cli_fail(c, EXIT_USAGE, "bad word count '%s' (1..65536)", p.arg[1]);
  if ((rc = cli_start_device(c, false, true))) return rc;
  if (!is_reg && is_symbolic(p.arg[0]) && (rc = resolve_symbol(c, p.arg[0], &addr))) return rc;
  uint32_t *w = calloc(n, 4);
  if (!w) return cli_fail(c, EXIT_DEVICE, "out of memory");
  rc = access_words(c, is_reg, addr, w, n, false);
  if (!rc) print_words(c, is_reg, addr, w, n);
  free(w);
  return rc;
}

int cmd_poke(cli *c, int argc, char **argv) {
  int rc = 0;
  positional p = {0};
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1]) return cli_usage_unknown(c, argv[i]);
    if (p.n >= 64) return cli_fail(c, EXIT_USAGE, "at most 63 values");
    p.arg[p.n++] = argv[i];
  }
  if (p.n < 2) return cli_fail(c, EXIT_USAGE, "need ADDR and at least one VALUE (see sgpu poke --help)");
  bool is_reg;
  uint64_t addr;
  if ((rc = parse_target(c, p.arg[0], &is_reg, &addr))) return rc;
  uint32_t w[64];
  size_t n = (size_t)p.n - 1;
  for (size_t k = 0; k < n; k++)
    if (!cli_parse_u32(p.arg[k + 1], &w[k]))
      return cli_fail(c, EXIT_USAGE, "bad value '%s' (a 32-bit number)", p.arg[k + 1]);
  if ((rc = cli_start_device(c, false, true))) return rc;
  if (!is_reg && is_symbolic(p.arg[0]) && (rc = resolve_symbol(c, p.arg[0], &addr))) return rc;
  if ((rc = access_words(c, is_reg, addr, w, n, true))) return rc;
  if ((rc = access_words(c, is_reg, addr, w, n, false))) return rc;
  print_words(c, is_reg, addr, w, n);
  return 0;
}
