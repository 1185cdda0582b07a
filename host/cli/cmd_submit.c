/* cmd_submit.c — the work of the nodes: `sgpu submit` (command files as DMA
 * buffers), `sgpu fence` (fence state of each node) and `sgpu events`
 * (the interrupt events the device raised). */
#include <string.h>

#include "cli.h"

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
  bool quantum_set = false;
  uint32_t quantum = 0; /* --quantum: the node's time slice, set before submitting */
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (cli_opt_u32(c, argc, argv, &i, "--node", &o.node, &rc)) {
      if (rc) return rc;
    } else if (cli_opt_u32(c, argc, argv, &i, "--fence", &o.fence, &rc)) {
      if (rc) return rc;
      if (o.fence == 0) return cli_fail(c, EXIT_USAGE, "--fence must be at least 1");
    } else if ((m = cli_opt(c, argc, argv, &i, "--flags", &v))) {
      if (m < 0) return EXIT_USAGE;
      if ((rc = parse_flags(c, v, &o.flags))) return rc;
    } else if ((m = cli_opt(c, argc, argv, &i, "--priority", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (strcmp(v, "normal") == 0) o.priority = SGPU_PRIORITY_NORMAL;
      else if (strcmp(v, "high") == 0) o.priority = SGPU_PRIORITY_HIGH;
      else return cli_fail(c, EXIT_USAGE, "bad --priority '%s' (normal or high)", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--quantum", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &quantum) || quantum > SGPU_NREG_QUANTUM_MAX)
        return cli_fail(c, EXIT_USAGE, "bad --quantum '%s' (cycles, 0..%u; 0 = no time slices)", v,
                        SGPU_NREG_QUANTUM_MAX);
      quantum_set = true;
    } else if (cli_opt_u32(c, argc, argv, &i, "--interval", &o.interval, &rc)) {
      if (rc) return rc;
    } else if ((m = cli_opt(c, argc, argv, &i, "--segment", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &o.segment) || o.segment >= SGPU_SEGMENT_COUNT)
        return cli_fail(c, EXIT_USAGE, "bad --segment '%s' (0, 1 or 2)", v);
    } else if (cli_opt_u32(c, argc, argv, &i, "--timeout", &o.timeout_ms, &rc)) {
      if (rc) return rc;
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
  if (quantum_set && (rc = sgpu_set_time_slice(c->dev, o.node, quantum)))
    return cli_lib_fail(c, rc, "setting the node's time slice");
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
      json_str(&j, "priority", o.priority == SGPU_PRIORITY_HIGH ? "high" : "normal");
      json_u64(&j, "fence", fence);
      json_str(&j, "status", status);
      json_u64(&j, "cycles", cycles);
      json_end_obj(&j);
    } else {
      fprintf(c->out, "%s: fence %u on node %u%s %s after %llu cycles\n", name, fence, o.node,
              o.priority == SGPU_PRIORITY_HIGH ? " (high priority)" : "", status,
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

/* ---------------------------------------------------------------- fence */

int cmd_fence(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t node = UINT32_MAX;
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (cli_opt_u32(c, argc, argv, &i, "--node", &node, &rc)) {
      if (rc) return rc;
    } else {
      return cli_unexpected_arg(c, argv[i]);
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
    if (cli_opt_u32(c, argc, argv, &i, "--wait", &wait_ms, &rc)) {
      if (rc) return rc;
      wait_set = true;
    } else if ((m = cli_opt(c, argc, argv, &i, "--count", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &count) || count == 0 || count > 1000000)
        return cli_fail(c, EXIT_USAGE, "bad --count '%s' (1..1000000)", v);
    } else if (cli_opt(c, argc, argv, &i, "--vsync", NULL) > 0) {
      vsync = true;
    } else {
      return cli_unexpected_arg(c, argv[i]);
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
