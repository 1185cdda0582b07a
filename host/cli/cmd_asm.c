/* cmd_asm.c — `sgpu asm` and `sgpu disasm`: command-stream text to binary
 * words and back.  Neither sends anything to a device; asm opens one (sim
 * by default) only to learn the addresses its symbols (SCRATCH, FB0...)
 * have there. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int parse_io(cli *c, int argc, char **argv, const char **in, const char **out, uint32_t *base,
                    bool *addresses) {
  *in = NULL;
  *out = NULL;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int m = 0;
    if (strcmp(argv[i], "-o") == 0 || (m = cli_opt(c, argc, argv, &i, "--output", &v)) != 0) {
      if (strcmp(argv[i], "-o") == 0) {
        if (i + 1 >= argc) return cli_fail(c, EXIT_USAGE, "-o needs a file name");
        v = argv[++i];
      } else if (m < 0) {
        return EXIT_USAGE;
      }
      *out = v;
    } else if ((m = cli_opt(c, argc, argv, &i, "--base", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, base) || (*base & 3u))
        return cli_fail(c, EXIT_USAGE, "bad --base '%s' (a 4-byte aligned 32-bit address)", v);
    } else if (addresses && cli_opt(c, argc, argv, &i, "--addresses", NULL) > 0) {
      *addresses = true;
    } else if (!addresses && (m = cli_opt(c, argc, argv, &i, "--mode", &v))) {
      if (m < 0) return EXIT_USAGE;
      c->mode = v;
    } else if (!addresses && (m = cli_opt(c, argc, argv, &i, "--source", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &c->source) || c->source >= SGPU_MAX_SOURCES)
        return cli_fail(c, EXIT_USAGE, "bad --source '%s' (0..%u)", v, SGPU_MAX_SOURCES - 1);
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_unknown(c, argv[i]);
    } else if (*in) {
      return cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    } else {
      *in = argv[i];
    }
  }
  if (!*in) return cli_fail(c, EXIT_USAGE, "no input file given (see %s %s --help)", c->prog, c->cmd);
  return 0;
}

int cmd_asm(cli *c, int argc, char **argv) {
  const char *in, *out;
  uint32_t base = 0;
  int rc = parse_io(c, argc, argv, &in, &out, &base, NULL);
  if (rc) return rc;
  char *def = NULL;
  if (!out) {
    if (strcmp(in, "-") == 0) {
      out = "-";
    } else {
      size_t n = strlen(in);
      def = malloc(n + 5);
      if (!def) return cli_fail(c, EXIT_DEVICE, "out of memory");
      memcpy(def, in, n + 1);
      char *dot = strrchr(def, '.');
      char *slash = strrchr(def, '/');
      if (dot && (!slash || dot > slash)) *dot = '\0';
      strcat(def, ".bin");
      if (strcmp(def, in) == 0) {
        free(def);
        return cli_fail(c, EXIT_USAGE, "'%s' would overwrite its input; give -o OUT", in);
      }
      out = def;
    }
  }
  /* The symbols of the device commands (SCRATCH, FB0, ...), unless the
   * caller gave its own. */
  if (c->nsyms == 0 && (rc = cli_asm_symbols(c, c->uri != NULL))) {
    free(def);
    return rc;
  }
  uint32_t *w = NULL;
  size_t n = 0;
  rc = cli_load_stream(c, in, FMT_TEXT, base, &w, &n, NULL);
  if (rc) {
    free(def);
    return rc;
  }
  uint8_t *bytes = malloc(n * 4 + 1);
  if (!bytes) {
    free(w);
    free(def);
    return cli_fail(c, EXIT_DEVICE, "out of memory");
  }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) bytes[4 * i + (size_t)k] = (uint8_t)(w[i] >> (8 * k));
  free(w);
  rc = cli_write_file(c, out, bytes, n * 4);
  free(bytes);
  if (!rc && strcmp(out, "-") != 0) {
    if (c->json) {
      json j;
      json_begin(&j, c->out);
      json_obj(&j, NULL);
      json_str(&j, "input", in);
      json_str(&j, "output", out);
      json_u64(&j, "words", n);
      json_u64(&j, "bytes", n * 4);
      json_end_obj(&j);
      json_finish(&j);
    } else {
      fprintf(c->out, "%s: %zu words -> %s\n", in, n, out);
    }
  }
  free(def);
  return rc;
}

int cmd_disasm(cli *c, int argc, char **argv) {
  const char *in, *out;
  uint32_t base = 0;
  bool addresses = false;
  int rc = parse_io(c, argc, argv, &in, &out, &base, &addresses);
  if (rc) return rc;
  uint32_t *w = NULL;
  size_t n = 0;
  if ((rc = cli_load_stream(c, in, FMT_BINARY, 0, &w, &n, NULL))) return rc;
  char *text = NULL;
  size_t len = 0;
  rc = sgpu_disasm(w, n, base, (addresses ? SGPU_DISASM_ADDRESSES : 0) | (base ? SGPU_DISASM_ORG : 0),
                   &text, &len);
  free(w);
  if (rc) return cli_fail(c, EXIT_DEVICE, "%s: %s", in, sgpu_asm_strerror(rc));
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "input", in);
    json_u64(&j, "words", n);
    json_str(&j, "text", text);
    json_end_obj(&j);
    json_finish(&j);
    if (out) rc = cli_write_file(c, out, text, len);
  } else {
    rc = cli_write_file(c, out ? out : "-", text, len);
  }
  free(text);
  return rc;
}
