/* cmd_preempt.c — `sgpu preempt`: stop a node at its next boundary
 * (sgpu_preempt), print the DMA_PREEMPTED event, and with --resubmit send
 * the preempted submissions again (flags.resubmission) so that they finish.
 *
 * The CLI opens the device for one run: the submissions it can preempt are
 * those of this run (the --run files, submitted without waiting).  Opening
 * a device resets its nodes and closing it stops them, so nothing another
 * `sgpu` run left is still there to preempt; a device shared through sgpud
 * does not carry sgpu_preempt yet. */
#include <string.h>

#include "cli.h"

/* Fence a comes after b (wrap-around compare, as the library does). */
static bool fence_after(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }

int cmd_preempt(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t node = 0, fence = 0, timeout_ms = 200;
  uint64_t after = 0;
  bool node_set = false, fence_set = false, resubmit = false;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--node", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &node)) return cli_fail(c, EXIT_USAGE, "bad node '%s' (a node ordinal: 0, 1, ...)", v);
      node_set = true;
    } else if (cli_opt_u32(c, argc, argv, &i, "--fence", &fence, &rc)) {
      if (rc) return rc;
      fence_set = true;
    } else if ((m = cli_opt(c, argc, argv, &i, "--after", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u64(v, &after) || after > 1000000000ull)
        return cli_fail(c, EXIT_USAGE, "bad --after '%s' (0..1000000000 cycles)", v);
    } else if (cli_opt_u32(c, argc, argv, &i, "--timeout", &timeout_ms, &rc)) {
      if (rc) return rc;
    } else if (cli_opt(c, argc, argv, &i, "--resubmit", NULL) > 0) {
      resubmit = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_unknown(c, argv[i]);
    } else if (!node_set) {
      if (!cli_parse_u32(argv[i], &node))
        return cli_fail(c, EXIT_USAGE, "bad node '%s' (a node ordinal: 0, 1, ...)", argv[i]);
      node_set = true;
    } else if (!fence_set) {
      if (!cli_parse_u32(argv[i], &fence))
        return cli_fail(c, EXIT_USAGE, "bad preemption fence id '%s'", argv[i]);
      fence_set = true;
    } else {
      return cli_fail(c, EXIT_USAGE, "unexpected argument '%s' (sgpu preempt [NODE [FENCE_ID]])", argv[i]);
    }
  }
  if ((rc = cli_start_device(c, false, false))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  if (node >= in.node_count)
    return cli_fail(c, EXIT_USAGE, "node %u does not exist: the device has %u node%s (0..%u)", node,
                    in.node_count, in.node_count == 1 ? "" : "s", in.node_count ? in.node_count - 1 : 0);
  sgpu_fence_info fi;
  memset(&fi, 0, sizeof fi);
  if ((rc = sgpu_get_fence(c->dev, node, &fi))) return cli_lib_fail(c, rc, "reading the fence");
  /* Default: the fence id after the node's last submitted one. */
  if (!fence_set) fence = (uint32_t)fi.submitted + 1u ? (uint32_t)fi.submitted + 1u : 1u;
  if (after && (rc = sgpu_run_cycles(c->dev, after))) return cli_lib_fail(c, rc, "running the chip");
  bool drained = in.preemption_granularity != SGPU_PREEMPTION_PACKET_BOUNDARY;
  rc = sgpu_preempt(c->dev, node, fence);
  if (rc == SGPU_ERROR_NOT_SUPPORTED && !strcmp(in.transport, "sgpud"))
    return cli_fail(c, EXIT_DEVICE,
                    "node %u cannot be preempted through sgpud: the server does not carry sgpu_preempt "
                    "yet (%s, %d)",
                    node, sgpu_strerror(rc), rc);
  if (rc) {
    char what[64];
    snprintf(what, sizeof what, "preempting node %u", node);
    return cli_lib_fail(c, rc, what);
  }

  /* The events so far: the --run files' completions, then DMA_PREEMPTED. */
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "device", c->uri ? c->uri : "sim");
    json_str(&j, "transport", in.transport);
    json_u64(&j, "node", node);
    json_u64(&j, "preemption_fence", fence);
    json_str(&j, "granularity", cli_granularity_name(in.preemption_granularity));
    json_str(&j, "granularity_text", cli_granularity_text(in.preemption_granularity));
    json_bool(&j, "hardware_preemption", in.has_preemption != 0);
    json_bool(&j, "drained", drained);
    json_arr(&j, "events");
  }
  sgpu_event pe;
  memset(&pe, 0, sizeof pe);
  bool have = false;
  int result = 0;
  for (;;) {
    sgpu_event ev;
    if (sgpu_next_event(c->dev, &ev, 0)) break;
    if (ev.type == SGPU_EVENT_DMA_FAULTED) result = EXIT_GPU;
    if (ev.type == SGPU_EVENT_DMA_PREEMPTED && ev.node_ordinal == node && !have) {
      pe = ev;
      have = true;
    }
    cli_event_out(c, c->json ? &j : NULL, &ev);
  }
  if (c->json) json_end_arr(&j);
  if (!have)
    return cli_fail(c, EXIT_DEVICE, "node %u: sgpu_preempt returned without a DMA_PREEMPTED event", node);
  if (c->json) {
    json_obj(&j, "preempted");
    json_u64(&j, "preemption_fence", pe.fence_id);
    json_u64(&j, "last_completed_fence", pe.last_completed_fence_id);
    json_u64(&j, "preempted_count", pe.preempted_count);
    json_u64(&j, "latency_cycles", pe.latency_cycles);
    json_u64(&j, "cycle", pe.cycle);
    json_end_obj(&j);
  } else {
    FILE *f = c->out;
    fprintf(f, "node %u %s: preemption fence %u, last completed fence %u, %u submission%s preempted, "
               "stopped after %u cycles\n",
            node, drained ? "drained" : "preempted", pe.fence_id, pe.last_completed_fence_id,
            pe.preempted_count, pe.preempted_count == 1 ? "" : "s", pe.latency_cycles);
    fprintf(f, "granularity: %s\n", cli_granularity_text(in.preemption_granularity));
    if (drained)
      fprintf(f, "this device has no hardware preemption: the running buffer ran to its end, the "
                 "node stopped before the next one\n");
  }

  /* The preempted submissions: this run's on the node not completed, in
   * order.  Without --resubmit they are left (the node takes no new work
   * until they are sent again; closing the device stops it anyway). */
  int idx[CLI_MAX_SUBS], np = 0;
  for (int k = 0; k < c->nsubs; k++)
    if (c->subs[k].node_ordinal == node && fence_after(c->subs[k].submission_fence_id, pe.last_completed_fence_id))
      idx[np++] = k;
  if (resubmit && (uint32_t)np != pe.preempted_count)
    return cli_fail(c, EXIT_DEVICE,
                    "--resubmit: node %u has %u preempted submissions, this run made %d of them",
                    node, pe.preempted_count, np);
  if (c->json) json_arr(&j, "resubmitted");
  for (int k = 0; resubmit && k < np && !result; k++) {
    sgpu_submit_command_args a = c->subs[idx[k]];
    a.flags.value |= SGPU_SUBMIT_RESUBMISSION;
    if ((rc = sgpu_submit_command(c->dev, &a))) {
      char what[300];
      snprintf(what, sizeof what, "resubmitting %s (fence %u)", c->sub_names[idx[k]], a.submission_fence_id);
      return cli_lib_fail(c, rc, what);
    }
  }
  uint32_t wait_fence = 0;
  for (int k = 0; resubmit && k < np; k++) {
    const sgpu_submit_command_args *a = &c->subs[idx[k]];
    uint64_t t0 = 0, t1 = 0;
    sgpu_get_cycles(c->dev, &t0);
    wait_fence = a->submission_fence_id;
    rc = sgpu_wait_fence(c->dev, node, wait_fence, timeout_ms);
    sgpu_get_cycles(c->dev, &t1);
    const char *status = rc == 0 ? "completed" : rc == SGPU_ERROR_TIMEOUT ? "timeout" : rc == SGPU_ERROR_NODE_FAULTED ? "faulted" : "failed";
    if (c->json) {
      json_obj(&j, NULL);
      json_str(&j, "file", c->sub_names[idx[k]]);
      json_u64(&j, "fence", a->submission_fence_id);
      json_str(&j, "status", status);
      json_u64(&j, "cycles", t1 - t0);
      json_end_obj(&j);
    } else {
      fprintf(c->out, "resubmitted %s: fence %u on node %u %s after %llu cycles\n", c->sub_names[idx[k]],
              a->submission_fence_id, node, status, (unsigned long long)(t1 - t0));
    }
    if (rc) break;
  }
  if (c->json) json_end_arr(&j);
  int rc_wait = rc;
  if (resubmit && np) {
    /* The resubmissions' events (completions, a fault). */
    int nev = 0;
    if (cli_drain_events(c, c->json ? &j : NULL, "resubmitted_events", 0, -1, &nev)) result = EXIT_GPU;
  }
  memset(&fi, 0, sizeof fi);
  sgpu_get_fence(c->dev, node, &fi);
  if (c->json) {
    json_u64(&j, "last_completed_fence", fi.completed);
    json_u64(&j, "pending", fi.pending);
    json_end_obj(&j);
    json_finish(&j);
  } else if (!resubmit && np) {
    fprintf(c->out,
            "node %u takes no new work until %s sent again with flags.resubmission, oldest first "
            "(--resubmit does it; this run ends here and closing the device stops the node)\n",
            node, np == 1 ? "it is" : "they are");
  } else if (resubmit) {
    fprintf(c->out, "last completed fence %llu on node %u\n", (unsigned long long)fi.completed, node);
  }
  if (resubmit && rc_wait) {
    if (rc_wait == SGPU_ERROR_TIMEOUT)
      return cli_fail(c, EXIT_GPU,
                      "resubmitted fence %u on node %u did not complete within %u ms of simulated time",
                      wait_fence, node, timeout_ms);
    if (rc_wait == SGPU_ERROR_NODE_FAULTED)
      return cli_fail(c, EXIT_GPU, "node %u faulted running resubmitted fence %u (see the DMA_FAULTED event)",
                      node, wait_fence);
    char what[64];
    snprintf(what, sizeof what, "waiting for resubmitted fence %u on node %u", wait_fence, node);
    return cli_lib_fail(c, rc_wait, what);
  }
  if (result == EXIT_GPU) fprintf(stderr, "sgpu preempt: the GPU faulted (see the DMA_FAULTED event)\n");
  return result;
}
