/* cmds.c — the commands of the `sgpu` CLI. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Parse the common device options; anything else that starts with '-' is an
 * error; other arguments are collected as positional. */
typedef struct positional {
  const char *arg[64];
  int n;
} positional;

int cli_usage_unknown(cli *c, const char *a) {
  return cli_fail(c, EXIT_USAGE, "unknown option '%s' (see %s %s --help)", a, c->prog, c->cmd);
}

int cli_bad_number(cli *c, const char *opt, const char *v) {
  return cli_fail(c, EXIT_USAGE, "bad number '%s' for %s", v, opt);
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

/* ---------------------------------------------------------------- info */

static const char *format_name(uint32_t f) {
  return f == SGPU_FORMAT_RGB332 ? "RGB332" : f == SGPU_FORMAT_RGB565 ? "RGB565" : "?";
}

int cmd_info(cli *c, int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    return argv[i][0] == '-' ? cli_usage_unknown(c, argv[i])
                             : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
  }
  if ((rc = cli_start_device(c, false, true))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  static const char *const seg_names[] = {"system", "local", "aperture"};
  sgpu_identity id;
  int have_id = sgpu_read_identity(c->dev, &id) == 0;
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "transport", in.transport);
    json_str(&j, "device", c->uri ? c->uri : "sim");
    json_u64(&j, "hw_version_major", in.hw_version_major);
    json_u64(&j, "hw_version_minor", in.hw_version_minor);
    json_u64(&j, "firmware_version", in.firmware_version);
    if (have_id) {
      json_obj(&j, "firmware");
      json_u64(&j, "version_major", id.fw_version >> 16);
      json_u64(&j, "version_minor", id.fw_version & 0xFFFFu);
      json_u64(&j, "board_id", id.board);
      json_str(&j, "board", id.board_name);
      json_u64(&j, "hw_version", id.hw_version);
      json_u64(&j, "caps", id.caps);
      json_u64(&j, "mem_size", id.mem_size);
      json_u64(&j, "screen_address", id.fb_base);
      json_u64(&j, "screen_width", id.fb_width);
      json_u64(&j, "screen_height", id.fb_height);
      json_end_obj(&j);
    }
    json_u64(&j, "caps", in.caps);
    json_u64(&j, "node_count", in.node_count);
    json_u64(&j, "source_count", in.source_count);
    json_bool(&j, "has_2d", in.has_2d);
    json_bool(&j, "has_display", in.has_display);
    json_bool(&j, "has_preemption", in.has_preemption);
    json_u64(&j, "mem_size", in.mem_size);
    json_u64(&j, "clock_hz", in.clock_hz);
    json_arr(&j, "segments");
    for (unsigned s = 0; s < SGPU_SEGMENT_COUNT; s++) {
      json_obj(&j, NULL);
      json_u64(&j, "id", s);
      json_str(&j, "name", seg_names[s]);
      json_u64(&j, "base", in.segment[s].base);
      json_u64(&j, "size", in.segment[s].size);
      json_u64(&j, "free", in.segment[s].free);
      json_end_obj(&j);
    }
    json_end_arr(&j);
    json_arr(&j, "display_modes");
    for (unsigned s = 0; s < in.source_count && s < SGPU_MAX_SOURCES; s++) {
      const sgpu_display_mode *m = &in.display_mode[s];
      json_obj(&j, NULL);
      json_u64(&j, "source", s);
      json_bool(&j, "enabled", m->enabled);
      json_u64(&j, "width", m->width);
      json_u64(&j, "height", m->height);
      json_u64(&j, "pitch", m->pitch);
      json_str(&j, "format", format_name(m->format));
      json_u64(&j, "address", m->address);
      json_u64(&j, "timing_width", m->timing_width);
      json_u64(&j, "timing_height", m->timing_height);
      json_u64(&j, "refresh_mhz", m->refresh_mhz);
      json_end_obj(&j);
    }
    json_end_arr(&j);
    cli_link_info(c, &j);
    json_end_obj(&j);
    json_finish(&j);
    return 0;
  }
  FILE *f = c->out;
  fprintf(f, "device:      %s (transport %s)\n", c->uri ? c->uri : "sim", in.transport);
  fprintf(f, "hardware:    version %u.%u, caps 0x%08x\n", in.hw_version_major, in.hw_version_minor,
          in.caps);
  if (have_id)
    fprintf(f, "firmware:    sgpu boot %u.%u, board %s, built for hardware %u.%u, caps 0x%08x, %u KiB, "
               "screen %ux%u at 0x%x\n",
            id.fw_version >> 16, id.fw_version & 0xFFFFu, id.board_name[0] ? id.board_name : "?",
            id.hw_version >> 16, id.hw_version & 0xFFFFu, id.caps, id.mem_size / 1024, id.fb_width,
            id.fb_height, id.fb_base);
  else fprintf(f, "firmware:    none (no boot firmware on this device)\n");
  fprintf(f, "nodes:       %u\nsources:     %u\n", in.node_count, in.source_count);
  fprintf(f, "engines:     2D %s, display %s, preemption %s\n", in.has_2d ? "yes" : "no",
          in.has_display ? "yes" : "no", in.has_preemption ? "yes" : "no");
  fprintf(f, "memory:      %u bytes\n", in.mem_size);
  for (unsigned s = 0; s < SGPU_SEGMENT_COUNT; s++)
    fprintf(f, "segment %u:   %-8s base 0x%llx size %llu free %llu\n", s, seg_names[s],
            (unsigned long long)in.segment[s].base, (unsigned long long)in.segment[s].size,
            (unsigned long long)in.segment[s].free);
  for (unsigned s = 0; s < in.source_count && s < SGPU_MAX_SOURCES; s++) {
    const sgpu_display_mode *m = &in.display_mode[s];
    if (!m->enabled) {
      fprintf(f, "display %u:   off\n", s);
      continue;
    }
    fprintf(f, "display %u:   %ux%u %s pitch %u at 0x%08x, timing %ux%u, replication %ux%u, %u.%03u Hz\n",
            s, m->width, m->height, format_name(m->format), m->pitch, m->address, m->timing_width,
            m->timing_height, m->replication_x, m->replication_y, m->refresh_mhz / 1000,
            m->refresh_mhz % 1000);
  }
  fprintf(f, "clock:       %u Hz (%s)\n", in.clock_hz,
          in.clock_hz == SGPU_NOMINAL_CLOCK_HZ ? "nominal: no board named by the firmware"
                                               : "the board's system clock, named by its firmware");
  cli_link_info(c, NULL);
  return 0;
}

/* ---------------------------------------------------------------- submit */

static int parse_flags(cli *c, const char *v, uint32_t *flags) {
  static const struct {
    const char *name;
    uint32_t bit;
  } names[] = {
      {"paging", SGPU_SUBMIT_PAGING},
      {"present", SGPU_SUBMIT_PRESENT},
      {"redirected_present", SGPU_SUBMIT_REDIRECTED_PRESENT},
      {"null_rendering", SGPU_SUBMIT_NULL_RENDERING},
      {"flip", SGPU_SUBMIT_FLIP},
      {"flip_with_no_wait", SGPU_SUBMIT_FLIP_WITH_NO_WAIT},
      {"context_switch", SGPU_SUBMIT_CONTEXT_SWITCH},
      {"resubmission", SGPU_SUBMIT_RESUBMISSION},
      {"virtual_machine_data", SGPU_SUBMIT_VIRTUAL_MACHINE_DATA},
  };
  if (cli_parse_u32(v, flags)) return 0;
  *flags = 0;
  const char *p = v;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    bool found = false;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
      if (strlen(names[k].name) == n && strncmp(names[k].name, p, n) == 0) {
        *flags |= names[k].bit;
        found = true;
      }
    if (!found)
      return cli_fail(c, EXIT_USAGE, "unknown submit flag '%.*s' in --flags (names: paging, present, "
                      "redirected_present, null_rendering, flip, flip_with_no_wait, "
                      "context_switch, resubmission, virtual_machine_data, or 0xNN)",
                      (int)n, p);
    p += n;
    if (*p == ',') p++;
  }
  return 0;
}

int cmd_submit(cli *c, int argc, char **argv) {
  submit_opts o;
  submit_opts_default(&o);
  positional files = {0};
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--node", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.node)) return cli_bad_number(c, "--node", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--fence", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.fence)) return cli_bad_number(c, "--fence", v);
      if (o.fence == 0) return cli_fail(c, EXIT_USAGE, "--fence must be at least 1");
    } else if ((m = cli_opt(c, argc, argv, &i, "--flags", &v))) {
      if (m < 0) return EXIT_USAGE;
      if ((rc = parse_flags(c, v, &o.flags))) return rc;
    } else if ((m = cli_opt(c, argc, argv, &i, "--interval", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.interval)) return cli_bad_number(c, "--interval", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--segment", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.segment) || o.segment >= SGPU_SEGMENT_COUNT)
        return cli_fail(c, EXIT_USAGE, "bad --segment '%s' (0, 1 or 2)", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--timeout", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.timeout_ms)) return cli_bad_number(c, "--timeout", v);
    } else if (cli_opt(c, argc, argv, &i, "--no-wait", NULL) > 0) {
      o.wait = false;
    } else if (cli_opt(c, argc, argv, &i, "--text", NULL) > 0) {
      o.format = FMT_TEXT;
    } else if (cli_opt(c, argc, argv, &i, "--binary", NULL) > 0) {
      o.format = FMT_BINARY;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_unknown(c, argv[i]);
    } else {
      if (files.n >= 64) return cli_fail(c, EXIT_USAGE, "at most 64 files");
      files.arg[files.n++] = argv[i];
    }
  }
  if (files.n == 0 && !(o.flags & SGPU_SUBMIT_CONTEXT_SWITCH))
    return cli_fail(c, EXIT_USAGE, "no command file given (see sgpu submit --help)");
  o.source = c->source;
  if ((rc = cli_start_device(c, false, true))) return rc;
  if (o.fence) c->next_fence[o.node < SGPU_MAX_NODES ? o.node : 0] = o.fence;
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_arr(&j, "submissions");
  }
  int result = 0;
  uint64_t total = 0;
  int nsub = files.n ? files.n : 1;
  for (int k = 0; k < nsub; k++) {
    uint32_t fence = 0;
    uint64_t cycles = 0;
    const char *name = files.n ? files.arg[k] : "(context switch)";
    c->last_faulted = false;
    if (files.n) rc = cli_submit_file(c, name, &o, &fence, &cycles);
    else rc = cli_submit_words(c, name, NULL, 0, &o, &fence, &cycles);
    if (rc) return rc;
    if (c->last_faulted) rc = EXIT_GPU;
    total += cycles;
    const char *status = rc == EXIT_GPU ? "faulted" : o.wait ? "completed" : "submitted";
    if (c->json) {
      json_obj(&j, NULL);
      json_str(&j, "file", name);
      json_u64(&j, "node", o.node);
      json_u64(&j, "fence", fence);
      json_str(&j, "status", status);
      json_u64(&j, "cycles", cycles);
      json_end_obj(&j);
    } else {
      fprintf(c->out, "%s: fence %u on node %u %s after %llu cycles\n", name, fence, o.node, status,
              (unsigned long long)cycles);
    }
    if (rc == EXIT_GPU) {
      result = EXIT_GPU;
      break;
    }
  }
  if (c->json) json_end_arr(&j);
  int nev = 0;
  int ev = cli_drain_events(c, c->json ? &j : NULL, "events", 0, -1, &nev);
  if (ev) result = ev;
  sgpu_fence_info fi;
  memset(&fi, 0, sizeof fi);
  sgpu_get_fence(c->dev, o.node, &fi);
  if (c->json) {
    json_u64(&j, "cycles", total);
    json_u64(&j, "last_completed_fence", fi.completed);
    json_bool(&j, "faulted", result == EXIT_GPU);
    json_end_obj(&j);
    json_finish(&j);
  } else {
    fprintf(c->out, "total: %llu cycles, %d event%s, last completed fence %llu on node %u%s\n",
            (unsigned long long)total, nev, nev == 1 ? "" : "s", (unsigned long long)fi.completed,
            o.node, result == EXIT_GPU ? ", GPU FAULT" : "");
  }
  if (result == EXIT_GPU) fprintf(stderr, "sgpu submit: the GPU faulted (see the DMA_FAULTED event)\n");
  return result;
}

/* ---------------------------------------------------------------- asm / disasm */

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

/* ---------------------------------------------------------------- flip */

static uint32_t sym_value(const cli *c, const char *name, uint32_t def) {
  for (size_t i = 0; i < c->nsyms; i++)
    if (strcmp(c->syms[i].name, name) == 0) return c->syms[i].value;
  return def;
}

static uint32_t sreg(const cli *c, uint32_t r) {
  uint32_t v = 0;
  sgpu_reg_read(c->dev, SGPU_SOURCE_REG(c->source, r), &v);
  return v;
}

int cmd_flip(cli *c, int argc, char **argv) {
  submit_opts o;
  submit_opts_default(&o);
  const char *addr_arg = NULL;
  bool nowait = false;
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--address", &v))) {
      if (m < 0) return EXIT_USAGE;
      addr_arg = v;
    } else if ((m = cli_opt(c, argc, argv, &i, "--interval", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.interval) || o.interval > SGPU_FLIP_INTERVAL_IMMEDIATE_ALLOW_TEARING)
        return cli_fail(c, EXIT_USAGE, "bad --interval '%s' (0..5)", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--node", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.node)) return cli_bad_number(c, "--node", v);
    } else if (cli_opt(c, argc, argv, &i, "--nowait", NULL) > 0) {
      nowait = true;
    } else {
      return argv[i][0] == '-' ? cli_usage_unknown(c, argv[i])
                               : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    }
  }
  uint32_t address = 0;
  if (addr_arg && !cli_parse_u32(addr_arg, &address)) return cli_bad_number(c, "--address", addr_arg);
  if ((rc = cli_start_device(c, true, true))) return rc;
  if (!addr_arg) address = sym_value(c, "FB1", sym_value(c, "FB0", 0));
  uint32_t words[8];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  rc = sgpu_cmd_flip(&cb, c->source, address, o.interval, nowait);
  if (rc) return cli_lib_fail(c, rc, "building the FLIP packet");
  o.flags = nowait ? SGPU_SUBMIT_FLIP_WITH_NO_WAIT : SGPU_SUBMIT_FLIP;
  o.source = c->source;
  uint32_t before_vblank = sreg(c, SGPU_SREG_DISP_VBLANK_COUNT);
  uint32_t before_flips = sreg(c, SGPU_SREG_DISP_FLIP_COUNT);
  uint32_t fence;
  uint64_t cycles;
  c->last_faulted = false;
  rc = cli_submit_words(c, "flip", words, sgpu_cmdbuf_size(&cb) / 4, &o, &fence, &cycles);
  if (rc) return rc;
  int faulted = c->last_faulted;
  uint32_t scanout = sreg(c, SGPU_SREG_DISP_BASE);
  uint32_t vblank = sreg(c, SGPU_SREG_DISP_VBLANK_COUNT);
  uint32_t flips = sreg(c, SGPU_SREG_DISP_FLIP_COUNT);
  uint32_t line = sreg(c, SGPU_SREG_DISP_SCANLINE);
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_u64(&j, "source", c->source);
    json_u64(&j, "address", address);
    json_u64(&j, "interval", o.interval);
    json_bool(&j, "nowait", nowait);
    json_u64(&j, "fence", fence);
    json_u64(&j, "cycles", cycles);
    json_u64(&j, "scanout_address", scanout);
    json_bool(&j, "taken", scanout == address);
    json_u64(&j, "vblanks", vblank - before_vblank);
    json_u64(&j, "flips", flips - before_flips);
    json_u64(&j, "scanline", line & 0xFFFFu);
    json_bool(&j, "in_vblank", (line >> 16) & 1u);
  } else {
    fprintf(c->out, "flip source %u to 0x%08x interval %u%s: fence %u %s after %llu cycles\n",
            c->source, address, o.interval, nowait ? " (no wait)" : "", fence,
            faulted ? "faulted" : "completed", (unsigned long long)cycles);
    fprintf(c->out, "scanout 0x%08x (%s), %u vblank%s and %u flip%s during the submission, "
                    "beam on line %u%s\n",
            scanout, scanout == address ? "flip taken" : "flip pending", vblank - before_vblank,
            vblank - before_vblank == 1 ? "" : "s", flips - before_flips,
            flips - before_flips == 1 ? "" : "s", line & 0xFFFFu, (line >> 16) & 1u ? " (vblank)" : "");
  }
  int ev = cli_drain_events(c, c->json ? &j : NULL, "events", 0, -1, NULL);
  if (c->json) {
    json_end_obj(&j);
    json_finish(&j);
  }
  return faulted || ev ? EXIT_GPU : 0;
}

/* ---------------------------------------------------------------- fence */

int cmd_fence(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t node = UINT32_MAX;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--node", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &node)) return cli_bad_number(c, "--node", v);
    } else {
      return argv[i][0] == '-' ? cli_usage_unknown(c, argv[i])
                               : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    }
  }
  if ((rc = cli_start_device(c, false, true))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  if (node != UINT32_MAX && node >= in.node_count)
    return cli_fail(c, EXIT_USAGE, "--node %u out of range (the device has %u nodes)", node, in.node_count);
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_arr(&j, "nodes");
  }
  for (uint32_t n = 0; n < in.node_count; n++) {
    if (node != UINT32_MAX && n != node) continue;
    sgpu_fence_info fi;
    if ((rc = sgpu_get_fence(c->dev, n, &fi))) return cli_lib_fail(c, rc, "reading the fence");
    uint32_t last = 0;
    sgpu_reg_read(c->dev, SGPU_NODE_REG(n, SGPU_NREG_LAST_FENCE), &last);
    if (c->json) {
      json_obj(&j, NULL);
      json_u64(&j, "node", n);
      json_u64(&j, "submitted", fi.submitted);
      json_u64(&j, "completed", fi.completed);
      json_u64(&j, "pending", fi.pending);
      json_bool(&j, "faulted", fi.faulted);
      json_u64(&j, "last_fence_register", last);
      json_end_obj(&j);
    } else {
      fprintf(c->out, "node %u: submitted %llu, completed %llu, pending %u%s (LAST_FENCE 0x%08x)\n", n,
              (unsigned long long)fi.submitted, (unsigned long long)fi.completed, fi.pending,
              fi.faulted ? ", FAULTED" : "", last);
    }
  }
  if (c->json) {
    json_end_arr(&j);
    json_end_obj(&j);
    json_finish(&j);
  }
  return 0;
}

/* ---------------------------------------------------------------- events */

int cmd_events(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t wait_ms = 0, count = 0;
  bool vsync = false, wait_set = false;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--wait", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &wait_ms)) return cli_bad_number(c, "--wait", v);
      wait_set = true;
    } else if ((m = cli_opt(c, argc, argv, &i, "--count", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &count) || count == 0 || count > 1000000)
        return cli_fail(c, EXIT_USAGE, "bad --count '%s' (1..1000000)", v);
    } else if (cli_opt(c, argc, argv, &i, "--vsync", NULL) > 0) {
      vsync = true;
    } else {
      return argv[i][0] == '-' ? cli_usage_unknown(c, argv[i])
                               : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    }
  }
  if (vsync && !wait_set) wait_ms = 100;
  if ((rc = cli_start_device(c, vsync, true))) return rc;
  if (vsync && (rc = sgpu_enable_vsync_events(c->dev, c->source, 1)))
    return cli_lib_fail(c, rc, "enabling vsync events");
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
  }
  int n = 0;
  int ev = cli_drain_events(c, c->json ? &j : NULL, "events", wait_ms, count ? (int)count : -1, &n);
  if (c->json) {
    json_u64(&j, "count", (uint64_t)n);
    json_end_obj(&j);
    json_finish(&j);
  } else if (n == 0) {
    fprintf(c->out, "no events\n");
  }
  return ev;
}

/* ---------------------------------------------------------------- screenshot */

int cmd_screenshot(cli *c, int argc, char **argv) {
  int rc = 0;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1]) return cli_usage_unknown(c, argv[i]);
    if (out) return cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    out = argv[i];
  }
  if (!out) return cli_fail(c, EXIT_USAGE, "no output file given (see sgpu screenshot --help)");
  if ((rc = cli_start_device(c, true, true))) return rc;
  sgpu_frame fr;
  memset(&fr, 0, sizeof fr);
  if ((rc = sgpu_capture_frame(c->dev, c->source, &fr))) return cli_lib_fail(c, rc, "capturing a frame");
  uint32_t crc = cli_crc32(fr.pixels, (size_t)fr.width * fr.height * 3);
  rc = sgpu_write_png(&fr, out);
  if (rc) {
    sgpu_frame_release(&fr);
    return cli_fail(c, EXIT_INPUT, "cannot write '%s': %s", out, sgpu_strerror(rc));
  }
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "file", out);
    json_u64(&j, "source", c->source);
    json_u64(&j, "width", fr.width);
    json_u64(&j, "height", fr.height);
    json_u64(&j, "frame_number", fr.frame_number);
    json_u64(&j, "start_cycle", fr.start_cycle);
    json_u64(&j, "scanout_address", fr.scanout_address);
    json_u64(&j, "crc32", crc);
    json_end_obj(&j);
    json_finish(&j);
  } else {
    fprintf(c->out, "%s: %ux%u, frame %llu (cycle %llu), scanout 0x%08x, crc32 %08x\n", out, fr.width,
            fr.height, (unsigned long long)fr.frame_number, (unsigned long long)fr.start_cycle,
            fr.scanout_address, crc);
  }
  sgpu_frame_release(&fr);
  return 0;
}

/* ---------------------------------------------------------------- ring */

static int read_words(cli *c, uint64_t addr, uint32_t *w, size_t n) {
  int rc = sgpu_read(c->dev, addr, w, (uint32_t)(n * 4));
  if (rc) return cli_lib_fail(c, rc, "reading GPU memory");
  return 0;
}

/* Decode n words at GPU address `addr` (from `w`); with `follow`, recurse into
 * INDIRECT targets (depth-limited). */
static int decode_span(cli *c, json *j, const uint32_t *w, size_t n, uint32_t ring_base, uint32_t ring_size,
                       uint32_t start_off, bool ring, bool follow, int depth) {
  size_t i = 0;
  while (i < n) {
    char line[512];
    int used = sgpu_disasm_one(w + i, n - i, line, sizeof line);
    if (used < 1) return cli_fail(c, EXIT_DEVICE, "disassembly failed");
    uint32_t addr = ring ? ring_base + (uint32_t)((start_off + 4 * i) & (ring_size - 1))
                         : start_off + (uint32_t)(4 * i);
    if (j) {
      json_obj(j, NULL);
      json_u64(j, "address", addr);
      json_u64(j, "depth", (uint64_t)depth);
      json_arr(j, "words");
      for (int k = 0; k < used; k++) json_u64(j, NULL, w[i + (size_t)k]);
      json_end_arr(j);
      json_str(j, "text", line);
      json_end_obj(j);
    } else {
      fprintf(c->out, "%*s0x%08x:  %s\n", 2 * depth, "", addr, line);
    }
    uint32_t h = w[i];
    if (follow && depth < (int)SGPU_MAX_IB_DEPTH && used == 4 &&
        SGPU_PKT_GET(OPCODE, h) == SGPU_OP_INDIRECT && !(SGPU_PKT_GET(FLAGS, h) & SGPU_INDIRECT_FLAG_SKIP)) {
      uint32_t ib = w[i + 1], len = w[i + 2];
      if (len % 4 == 0 && len <= 65536 && !(ib & 3u)) {
        uint32_t *b = malloc(len ? len : 4);
        if (!b) return cli_fail(c, EXIT_DEVICE, "out of memory");
        if (sgpu_read(c->dev, ib, b, len) == 0) {
          int rc = decode_span(c, j, b, len / 4, 0, 0, ib, false, follow, depth + 1);
          if (rc) {
            free(b);
            return rc;
          }
        } else if (!j) {
          fprintf(c->out, "%*s(buffer 0x%08x+%u not readable)\n", 2 * depth + 2, "", ib, len);
        }
        free(b);
      }
    }
    i += (size_t)used;
  }
  return 0;
}

int cmd_ring(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t node = 0;
  bool all = false, follow = false, pending = false;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--node", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &node)) return cli_bad_number(c, "--node", v);
    } else if (cli_opt(c, argc, argv, &i, "--all", NULL) > 0) {
      all = true;
    } else if (cli_opt(c, argc, argv, &i, "--follow", NULL) > 0) {
      follow = true;
    } else if (cli_opt(c, argc, argv, &i, "--pending", NULL) > 0) {
      pending = true;
    } else {
      return argv[i][0] == '-' ? cli_usage_unknown(c, argv[i])
                               : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    }
  }
  if ((rc = cli_start_device(c, false, !pending))) return rc;
  sgpu_ring_info ri;
  if ((rc = sgpu_get_ring_info(c->dev, node, &ri))) return cli_lib_fail(c, rc, "reading the ring state");
  if (ri.size == 0 || (ri.size & (ri.size - 1)) || ri.rptr >= ri.size || ri.wptr >= ri.size)
    return cli_fail(c, EXIT_DEVICE, "node %u ring not set up (base 0x%x size %u rptr %u wptr %u)", node,
                    ri.base, ri.size, ri.rptr, ri.wptr);
  uint32_t from = all ? 0 : ri.rptr;
  uint32_t bytes = (ri.wptr - from) & (ri.size - 1);
  uint32_t *ringw = malloc(ri.size);
  if (!ringw) return cli_fail(c, EXIT_DEVICE, "out of memory");
  if ((rc = read_words(c, ri.base, ringw, ri.size / 4))) {
    free(ringw);
    return rc;
  }
  uint32_t *span = malloc(bytes ? bytes : 4);
  if (!span) {
    free(ringw);
    return cli_fail(c, EXIT_DEVICE, "out of memory");
  }
  for (uint32_t k = 0; k < bytes / 4; k++) span[k] = ringw[((from / 4) + k) & (ri.size / 4 - 1)];
  free(ringw);
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_u64(&j, "node", node);
    json_u64(&j, "base", ri.base);
    json_u64(&j, "size", ri.size);
    json_u64(&j, "rptr", ri.rptr);
    json_u64(&j, "wptr", ri.wptr);
    json_u64(&j, "status", ri.status);
    json_u64(&j, "from", from);
    json_arr(&j, "packets");
  } else {
    fprintf(c->out, "node %u ring: base 0x%08x size %u rptr 0x%x wptr 0x%x status 0x%x%s%s\n", node, ri.base,
            ri.size, ri.rptr, ri.wptr, ri.status, ri.status & SGPU_STATUS_BUSY ? " BUSY" : "",
            ri.status & SGPU_STATUS_FAULTED ? " FAULTED" : "");
    if (bytes == 0) fprintf(c->out, "(empty: nothing between 0x%x and wptr; --all shows the history)\n", from);
  }
  rc = decode_span(c, c->json ? &j : NULL, span, bytes / 4, ri.base, ri.size, from, true, follow, 0);
  free(span);
  if (rc) return rc;
  if (c->json) {
    json_end_arr(&j);
    json_end_obj(&j);
    json_finish(&j);
  }
  return 0;
}

/* ---------------------------------------------------------------- peek / poke */

/* Parse ADDR: memory address or reg:NAME[@INDEX] / reg:0xOFF. */
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
  if (!cli_parse_u64(s, addr)) return cli_fail(c, EXIT_USAGE, "bad address '%s'", s);
  if (*addr & 3u) return cli_fail(c, EXIT_USAGE, "address '%s' is not 4-byte aligned", s);
  return 0;
}

static int access_words(cli *c, bool is_reg, uint64_t addr, uint32_t *w, size_t n, bool write) {
  for (size_t k = 0; k < n; k++) {
    int rc;
    uint64_t a = addr + 4 * k;
    if (is_reg) {
      if (a > 0xFFCu) return cli_fail(c, EXIT_USAGE, "register range runs past offset 0xffc");
      rc = write ? sgpu_reg_write(c->dev, (uint32_t)a, w[k])
                 : sgpu_reg_read(c->dev, (uint32_t)a, &w[k]);
    } else {
      rc = write ? sgpu_write(c->dev, a, &w[k], 4) : sgpu_read(c->dev, a, &w[k], 4);
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
  if ((rc = access_words(c, is_reg, addr, w, n, true))) return rc;
  if ((rc = access_words(c, is_reg, addr, w, n, false))) return rc;
  print_words(c, is_reg, addr, w, n);
  return 0;
}
