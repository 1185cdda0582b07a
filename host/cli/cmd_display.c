/* cmd_display.c — the display: `sgpu flip` (a FLIP submission and when it
 * took effect) and `sgpu screenshot` (a captured frame as PNG). */
#include <string.h>

#include "cli.h"

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
    } else if (cli_opt_u32(c, argc, argv, &i, "--node", &o.node, &rc)) {
      if (rc) return rc;
    } else if (cli_opt(c, argc, argv, &i, "--nowait", NULL) > 0) {
      nowait = true;
    } else {
      return cli_unexpected_arg(c, argv[i]);
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
    json_u64(&j, "scanline", sgpu_disp_scanline_line(line));
    json_bool(&j, "in_vblank", sgpu_disp_scanline_in_vblank(line));
  } else {
    fprintf(c->out, "flip source %u to 0x%08x interval %u%s: fence %u %s after %llu cycles\n",
            c->source, address, o.interval, nowait ? " (no wait)" : "", fence,
            faulted ? "faulted" : "completed", (unsigned long long)cycles);
    fprintf(c->out, "scanout 0x%08x (%s), %u vblank%s and %u flip%s during the submission, "
                    "beam on line %u%s\n",
            scanout, scanout == address ? "flip taken" : "flip pending", vblank - before_vblank,
            vblank - before_vblank == 1 ? "" : "s", flips - before_flips,
            flips - before_flips == 1 ? "" : "s", sgpu_disp_scanline_line(line),
            sgpu_disp_scanline_in_vblank(line) ? " (vblank)" : "");
  }
  int ev = cli_drain_events(c, c->json ? &j : NULL, "events", 0, -1, NULL);
  if (c->json) {
    json_end_obj(&j);
    json_finish(&j);
  }
  return faulted || ev ? EXIT_GPU : 0;
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
