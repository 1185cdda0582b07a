/* top.c — `sgpu top`: the chip's counters sampled over an interval, shown
 * like top(1) on a terminal, as text blocks otherwise, or as one JSON sample.
 * Every rate is per second of the chip's own time: the cycles its CYCLE
 * counter (CYCLE_LO/CYCLE_HI) advanced over the sample, divided by the clock
 * it counts, on every transport (a link's device runs at its own pace,
 * which is not the host's). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <termios.h>
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
  uint64_t preempted, resets; /* sgpu_stats: preemptions and engine resets */
  node_sample node[SGPU_MAX_NODES];
  src_sample src[SGPU_MAX_SOURCES];
} sample;

static int rd(cli *c, uint32_t off, uint32_t *v) { return sgpu_reg_read(c->dev, off, v); }

/* The chip's cycle counter: reading CYCLE_LO latches CYCLE_HI. */
static int chip_cycles(cli *c, uint64_t *cycles) {
  uint32_t lo = 0, hi = 0;
  int rc = rd(c, SGPU_REG_CYCLE_LO, &lo);
  if (!rc) rc = rd(c, SGPU_REG_CYCLE_HI, &hi);
  if (!rc) *cycles = (uint64_t)hi << 32 | lo;
  return rc;
}

static int take(cli *c, const sgpu_info *in, sample *s) {
  memset(s, 0, sizeof *s);
  int rc = chip_cycles(c, &s->cycles);
  sgpu_stats st;
  if (!rc) rc = sgpu_get_stats(c->dev, &st);
  if (rc) return rc;
  s->completed = st.completed;
  s->preempted = st.preempted;
  s->resets = st.resets;
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

/* Keys on an interactive terminal: stdin in non-canonical mode without echo
 * while top runs (restored at the end, and on Ctrl-C, which ends it too). */
typedef struct keys {
  bool on;
  struct termios saved;
} keys;

static volatile sig_atomic_t top_interrupted; /* set by SIGINT while keys are on */
static void on_sigint(int sig) {
  (void)sig;
  top_interrupted = 1;
}

static void keys_start(keys *k) {
  k->on = false;
  if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &k->saved) != 0) return;
  struct termios t = k->saved;
  t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(STDIN_FILENO, TCSANOW, &t) != 0) return;
  k->on = true;
  top_interrupted = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, NULL);
}

static void keys_stop(keys *k) {
  if (!k->on) return;
  tcsetattr(STDIN_FILENO, TCSANOW, &k->saved);
  signal(SIGINT, SIG_DFL);
  k->on = false;
}

/* Wait up to ms for a key (0: just look); true when top should quit: 'q',
 * 'Q', Ctrl-C or the end of stdin. */
static bool keys_quit(keys *k, uint32_t ms) {
  if (!k->on) return false;
  if (top_interrupted) return true;
  fd_set fds;
  FD_ZERO(&fds);
  FD_SET(STDIN_FILENO, &fds);
  struct timeval tv = {(time_t)(ms / 1000u), (suseconds_t)(ms % 1000u) * 1000};
  int n = select(STDIN_FILENO + 1, &fds, NULL, NULL, &tv);
  if (n < 0) return errno == EINTR && top_interrupted;
  if (n == 0) return false;
  char ch;
  ssize_t got = read(STDIN_FILENO, &ch, 1);
  if (got == 0) return true;
  return got == 1 && (ch == 'q' || ch == 'Q');
}

/* Let the interval pass in the chip's time: on sim by running the model (in
 * slices, looking at the keys between them); elsewhere the device runs on
 * its own, so wait until its cycle counter has advanced by the interval
 * since `from` (a link's model may run slower than real time; a board runs
 * at its clock).  A counter that stops moving ends the wait after 10 s +
 * 100 intervals of wall time; the rates use the cycles that did pass.
 * *quit when a key said so. */
static int wait_interval(cli *c, const sgpu_info *in, uint32_t ms, uint64_t from, keys *k, bool *quit) {
  *quit = false;
  if (strcmp(in->transport, "sim") == 0) {
    uint64_t left = (uint64_t)in->clock_hz / 1000u * ms, slice = (uint64_t)in->clock_hz / 100u;
    while (left) {
      uint64_t step = left < slice || !k->on ? left : slice;
      int rc = sgpu_run_cycles(c->dev, step);
      if (rc) return rc;
      left -= step;
      if (keys_quit(k, 0)) return *quit = true, 0;
    }
    return 0;
  }
  uint64_t want = (uint64_t)in->clock_hz / 1000u * ms;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  double give_up = 10.0 + ms / 10.0; /* seconds: 100 intervals */
  for (;;) {
    uint64_t now = 0;
    int rc = chip_cycles(c, &now);
    if (rc) return rc;
    if (now - from >= want) return 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if ((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 > give_up) return 0;
    /* sleep for what is left at the chip's clock, 1..50 ms at a time */
    uint64_t left_ms = (want - (now - from)) * 1000u / (in->clock_hz ? in->clock_hz : 1u);
    uint32_t nap = left_ms < 1 ? 1 : left_ms > 50 ? 50 : (uint32_t)left_ms;
    if (k->on) {
      if (keys_quit(k, nap)) return *quit = true, 0;
    } else {
      struct timespec ts = {0, (long)nap * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
}

static double pct(uint32_t part, uint64_t whole) { return whole ? 100.0 * part / (double)whole : 0.0; }

static void show_text(cli *c, const sgpu_info *in, const sample *a, const sample *b, bool redraw) {
  FILE *f = c->out;
  uint64_t dc = b->cycles - a->cycles;
  double secs = dc / (double)in->clock_hz;
  if (redraw) fputs("\033[H\033[J", f);
  fprintf(f, "sgpu top — %s, %u node(s), %u source(s), cycle %llu, interval %.3f s (%llu cycles)%s\n",
          in->transport, in->node_count, in->source_count, (unsigned long long)b->cycles, secs,
          (unsigned long long)dc, redraw ? "  [q quits]" : "");
  if (!in->has_perf_counters)
    fputs("this build has no performance counters (CAPS.PERF = 0): busy, stall, words and packets "
          "are not measured\n",
          f);
  fprintf(f, "fences completed: %.1f/s  preemptions: %.1f/s  engine resets: %.1f/s\n\n",
          secs > 0 ? (b->completed - a->completed) / secs : 0.0,
          secs > 0 ? (b->preempted - a->preempted) / secs : 0.0,
          secs > 0 ? (b->resets - a->resets) / secs : 0.0);
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
  json_f64(&j, "preemptions_per_second", secs > 0 ? (b->preempted - a->preempted) / secs : 0.0);
  json_f64(&j, "resets_per_second", secs > 0 ? (b->resets - a->resets) / secs : 0.0);
  json_u64(&j, "preemptions", b->preempted - a->preempted);
  json_u64(&j, "resets", b->resets - a->resets);
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

/* ---------------------------------------------------------------- sgpud */
/* A shared device (sgpud): a line per program, its rates over wall time
 * (the server's chip runs only while some program waits, so its cycles are
 * no clock here); the chip's own counters are the server's. */
#define TOP_PROGRAMS 256

static int list_programs(cli *c, sgpu_program_info *v, int *n) {
  int r = sgpu_list_programs(c->dev, v, TOP_PROGRAMS);
  if (r < 0) return r;
  *n = r < TOP_PROGRAMS ? r : TOP_PROGRAMS;
  return 0;
}

static double wall_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const sgpu_program_info *program_by_id(const sgpu_program_info *v, int n, uint32_t id) {
  for (int i = 0; i < n; i++)
    if (v[i].id == id) return &v[i];
  return NULL;
}

static void show_programs(cli *c, const sgpu_info *in, const sgpu_program_info *a, int na,
                          const sgpu_program_info *b, int nb, double secs, bool redraw) {
  FILE *f = c->out;
  json j;
  if (c->json) {
    json_begin(&j, f);
    json_obj(&j, NULL);
    json_str(&j, "transport", in->transport);
    json_f64(&j, "interval_seconds", secs);
    json_arr(&j, "programs");
  } else {
    if (redraw) fputs("\033[H\033[J", f);
    fprintf(f, "sgpu top — sgpud, %d program(s), interval %.3f s (wall)%s\n\n", nb, secs,
            redraw ? "  [q quits]" : "");
    fprintf(f, "%5s %7s %-16s %4s %6s %10s %9s %9s %6s  %s\n", "ID", "PID", "NAME", "CTX", "ALLOCS",
            "MEMORY", "SUBMIT/s", "FENCES/s", "QUEUED", "STATE");
  }
  for (int i = 0; i < nb; i++) {
    const sgpu_program_info *y = &b[i], *x = program_by_id(a, na, y->id);
    double sub = x && secs > 0 ? (double)(y->submissions - x->submissions) / secs : 0.0;
    double fen = x && secs > 0 ? (double)(y->completed - x->completed) / secs : 0.0;
    const char *state = y->gone ? "gone (draining)" : y->self ? "this sgpu" : "";
    if (c->json) {
      json_obj(&j, NULL);
      json_u64(&j, "id", y->id);
      json_u64(&j, "pid", y->pid);
      json_str(&j, "name", y->name);
      json_u64(&j, "contexts", y->contexts);
      json_u64(&j, "allocations", y->allocations);
      json_u64(&j, "memory", y->memory);
      json_f64(&j, "submissions_per_second", sub);
      json_f64(&j, "fences_per_second", fen);
      json_u64(&j, "queued", y->queued);
      json_bool(&j, "gone", y->gone != 0);
      json_bool(&j, "self", y->self != 0);
      json_end_obj(&j);
    } else {
      fprintf(f, "%5u %7u %-16.16s %4u %6u %10llu %9.1f %9.1f %6u  %s\n", y->id, y->pid, y->name,
              y->contexts, y->allocations, (unsigned long long)y->memory, sub, fen, y->queued, state);
    }
  }
  if (c->json) {
    json_end_arr(&j);
    json_end_obj(&j);
    json_finish(&j);
  }
  fflush(f);
}

static int top_programs(cli *c, const sgpu_info *in, uint32_t interval, uint32_t count, bool tty) {
  static sgpu_program_info a[TOP_PROGRAMS], b[TOP_PROGRAMS];
  int na = 0, nb = 0, rc;
  if ((rc = list_programs(c, a, &na))) return cli_lib_fail(c, rc, "listing the programs");
  double t0 = wall_s();
  keys k = {0};
  if (tty) keys_start(&k);
  for (uint32_t s = 0; s < count; s++) {
    if (k.on) {
      if (keys_quit(&k, interval) || top_interrupted) break;
    } else {
      struct timespec ts = {(time_t)(interval / 1000u), (long)(interval % 1000u) * 1000000L};
      nanosleep(&ts, NULL);
    }
    if ((rc = list_programs(c, b, &nb))) {
      keys_stop(&k);
      return cli_lib_fail(c, rc, "listing the programs");
    }
    double t1 = wall_s();
    show_programs(c, in, a, na, b, nb, t1 - t0, tty);
    memcpy(a, b, sizeof(sgpu_program_info) * (size_t)nb);
    na = nb;
    t0 = t1;
  }
  keys_stop(&k);
  return 0;
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
      return cli_unexpected_arg(c, argv[i]);
    }
  }
  bool tty = !c->json && isatty(fileno(c->out));
  if (count == 0) count = tty ? UINT32_MAX : 1;
  if (c->json && count != 1) return cli_fail(c, EXIT_USAGE, "--json prints one sample: --count must be 1");
  if ((rc = cli_start_device(c, false, false))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  if (!strcmp(in.transport, "sgpud")) return top_programs(c, &in, interval, count, tty);
  sample a, b;
  if ((rc = take(c, &in, &a))) return cli_lib_fail(c, rc, "reading the counters");
  /* q quits when top redraws a terminal and stdin is one too */
  keys k = {0};
  if (tty) keys_start(&k);
  for (uint32_t s = 0; s < count; s++) {
    bool quit = false;
    if ((rc = wait_interval(c, &in, interval, a.cycles, &k, &quit))) {
      keys_stop(&k);
      return cli_lib_fail(c, rc, "waiting for the interval");
    }
    if (quit) break;
    if ((rc = take(c, &in, &b))) {
      keys_stop(&k);
      return cli_lib_fail(c, rc, "reading the counters");
    }
    if (c->json) show_json(c, &in, &a, &b);
    else show_text(c, &in, &a, &b, tty);
    a = b;
  }
  keys_stop(&k);
  return 0;
}
