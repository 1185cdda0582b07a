/* top.c — `sgpu top`: the chip's counters sampled over an interval, shown
 * like top(1) on a terminal, as text blocks otherwise, or as one JSON sample. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct node_sample {
  uint32_t busy, stall, words, packets, last_fence, status;
} node_sample;

typedef struct src_sample {
  uint32_t vblanks, underflow, flips, control;
} src_sample;

typedef struct sample {
  uint64_t cycles;
  uint64_t completed; /* fences completed (library event count) */
  node_sample node[SGPU_MAX_NODES];
  src_sample src[SGPU_MAX_SOURCES];
} sample;

static int rd(cli *c, uint32_t off, uint32_t *v) { return sgpu_reg_read(c->dev, off, v); }

static int take(cli *c, const sgpu_info *in, sample *s) {
  memset(s, 0, sizeof *s);
  int rc = sgpu_get_cycles(c->dev, &s->cycles);
  sgpu_stats st;
  if (!rc) rc = sgpu_get_stats(c->dev, &st);
  if (rc) return rc;
  s->completed = st.completed;
  for (uint32_t n = 0; n < in->node_count && !rc; n++) {
    node_sample *ns = &s->node[n];
    if (!rc) rc = rd(c, SGPU_NODE_REG(n, SGPU_NREG_PERF_BUSY), &ns->busy);
    if (!rc) rc = rd(c, SGPU_NODE_REG(n, SGPU_NREG_PERF_STALL), &ns->stall);
    if (!rc) rc = rd(c, SGPU_NODE_REG(n, SGPU_NREG_PERF_WORDS), &ns->words);
    if (!rc) rc = rd(c, SGPU_NODE_REG(n, SGPU_NREG_PERF_PACKETS), &ns->packets);
    if (!rc) rc = rd(c, SGPU_NODE_REG(n, SGPU_NREG_LAST_FENCE), &ns->last_fence);
    if (!rc) rc = rd(c, SGPU_NODE_REG(n, SGPU_NREG_STATUS), &ns->status);
  }
  for (uint32_t k = 0; k < in->source_count && !rc; k++) {
    src_sample *ss = &s->src[k];
    if (!rc) rc = rd(c, SGPU_SOURCE_REG(k, SGPU_SREG_DISP_VBLANK_COUNT), &ss->vblanks);
    if (!rc) rc = rd(c, SGPU_SOURCE_REG(k, SGPU_SREG_DISP_UNDERFLOW), &ss->underflow);
    if (!rc) rc = rd(c, SGPU_SOURCE_REG(k, SGPU_SREG_DISP_FLIP_COUNT), &ss->flips);
    if (!rc) rc = rd(c, SGPU_SOURCE_REG(k, SGPU_SREG_DISP_CONTROL), &ss->control);
  }
  return rc;
}

/* Let the interval pass: simulated time on sim, wall time elsewhere. */
static int wait_interval(cli *c, const sgpu_info *in, uint32_t ms) {
  if (strcmp(in->transport, "sim") == 0)
    return sgpu_run_cycles(c->dev, (uint64_t)in->clock_hz / 1000u * ms);
  struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
  nanosleep(&ts, NULL);
  return 0;
}

static double pct(uint32_t part, uint64_t whole) { return whole ? 100.0 * part / (double)whole : 0.0; }

static void show_text(cli *c, const sgpu_info *in, const sample *a, const sample *b, bool redraw) {
  FILE *f = c->out;
  uint64_t dc = b->cycles - a->cycles;
  double secs = dc / (double)in->clock_hz;
  if (redraw) fputs("\033[H\033[J", f);
  fprintf(f, "sgpu top — %s, %u node(s), %u source(s), cycle %llu, interval %.3f s (%llu cycles)\n",
          in->transport, in->node_count, in->source_count, (unsigned long long)b->cycles, secs,
          (unsigned long long)dc);
  if (!in->has_perf_counters)
    fputs("this build has no performance counters (CAPS.PERF = 0): busy, stall, words and packets "
          "are not measured\n",
          f);
  fprintf(f, "fences completed: %.1f/s\n\n", secs > 0 ? (b->completed - a->completed) / secs : 0.0);
  fprintf(f, "NODE  BUSY%%  STALL%%   WORDS/s  PACKETS/s  LAST_FENCE  STATE\n");
  for (uint32_t n = 0; n < in->node_count; n++) {
    const node_sample *x = &a->node[n], *y = &b->node[n];
    const char *state = (y->status & SGPU_STATUS_FAULTED)   ? "faulted"
                        : (y->status & SGPU_STATUS_WAITING) ? "waiting"
                        : (y->status & SGPU_STATUS_BUSY)    ? "busy"
                                                            : "idle";
    if (in->has_perf_counters)
      fprintf(f, "%4u %6.1f %7.1f %9.0f %10.0f  0x%08x  %s\n", n, pct(y->busy - x->busy, dc),
              pct(y->stall - x->stall, dc), secs > 0 ? (y->words - x->words) / secs : 0.0,
              secs > 0 ? (y->packets - x->packets) / secs : 0.0, y->last_fence, state);
    else
      fprintf(f, "%4u %6s %7s %9s %10s  0x%08x  %s\n", n, "-", "-", "-", "-", y->last_fence, state);
  }
  fprintf(f, "\nSOURCE  ENABLED  VBLANKS/s  FLIPS  UNDERFLOWS\n");
  for (uint32_t k = 0; k < in->source_count; k++) {
    const src_sample *x = &a->src[k], *y = &b->src[k];
    fprintf(f, "%6u  %7s  %9.1f  %5u  %10u\n", k,
            (y->control >> SGPU_DISP_ENABLE_SHIFT) & 1u ? "yes" : "no",
            secs > 0 ? (y->vblanks - x->vblanks) / secs : 0.0, y->flips, y->underflow);
  }
  fflush(f);
}

static void show_json(cli *c, const sgpu_info *in, const sample *a, const sample *b) {
  json j;
  uint64_t dc = b->cycles - a->cycles;
  double secs = dc / (double)in->clock_hz;
  json_begin(&j, c->out);
  json_obj(&j, NULL);
  json_str(&j, "transport", in->transport);
  json_bool(&j, "perf_counters", in->has_perf_counters != 0);
  json_u64(&j, "cycle", b->cycles);
  json_u64(&j, "interval_cycles", dc);
  json_f64(&j, "interval_seconds", secs);
  json_f64(&j, "fences_per_second", secs > 0 ? (b->completed - a->completed) / secs : 0.0);
  json_arr(&j, "nodes");
  for (uint32_t n = 0; n < in->node_count; n++) {
    const node_sample *x = &a->node[n], *y = &b->node[n];
    json_obj(&j, NULL);
    json_u64(&j, "node", n);
    if (in->has_perf_counters) {
      json_f64(&j, "busy_percent", pct(y->busy - x->busy, dc));
      json_f64(&j, "stall_percent", pct(y->stall - x->stall, dc));
      json_u64(&j, "words", y->words - x->words);
      json_u64(&j, "packets", y->packets - x->packets);
    }
    json_u64(&j, "last_fence", y->last_fence);
    json_u64(&j, "status", y->status);
    json_end_obj(&j);
  }
  json_end_arr(&j);
  json_arr(&j, "sources");
  for (uint32_t k = 0; k < in->source_count; k++) {
    const src_sample *x = &a->src[k], *y = &b->src[k];
    json_obj(&j, NULL);
    json_u64(&j, "source", k);
    json_u64(&j, "vblanks", y->vblanks - x->vblanks);
    json_u64(&j, "flips", y->flips);
    json_u64(&j, "underflows", y->underflow);
    json_end_obj(&j);
  }
  json_end_arr(&j);
  json_end_obj(&j);
  json_finish(&j);
}

int cmd_top(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t interval = 100, count = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if ((m = cli_opt(c, argc, argv, &i, "--interval", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &interval) || interval == 0 || interval > 600000)
        return cli_fail(c, EXIT_USAGE, "--interval '%s' must be 1..600000 milliseconds", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--count", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &count) || count == 0) return cli_bad_number(c, "--count", v);
    } else {
      return argv[i][0] == '-' ? cli_usage_unknown(c, argv[i])
                               : cli_fail(c, EXIT_USAGE, "unexpected argument '%s'", argv[i]);
    }
  }
  bool tty = !c->json && isatty(fileno(c->out));
  if (count == 0) count = tty ? UINT32_MAX : 1;
  if (c->json && count != 1) return cli_fail(c, EXIT_USAGE, "--json prints one sample: --count must be 1");
  if ((rc = cli_start_device(c, false, false))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  sample a, b;
  if ((rc = take(c, &in, &a))) return cli_lib_fail(c, rc, "reading the counters");
  for (uint32_t s = 0; s < count; s++) {
    if ((rc = wait_interval(c, &in, interval))) return cli_lib_fail(c, rc, "waiting for the interval");
    if ((rc = take(c, &in, &b))) return cli_lib_fail(c, rc, "reading the counters");
    if (c->json) show_json(c, &in, &a, &b);
    else show_text(c, &in, &a, &b, tty);
    a = b;
  }
  return 0;
}
