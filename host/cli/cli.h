/* cli.h — shared pieces of the `sgpu` command-line tool. */
#ifndef SGPU_CLI_H
#define SGPU_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sgpu.h"
#include "sgpu_asm.h"

/* Exit codes (documented in `sgpu --help`). */
enum {
  EXIT_OK = 0,
  EXIT_USAGE = 1,    /* bad command line */
  EXIT_INPUT = 2,    /* bad input file */
  EXIT_DEVICE = 3,   /* device, transport or library error */
  EXIT_GPU = 4,      /* GPU fault or timeout */
  EXIT_REJECTED = 5, /* submission rejected by the library's validation */
};

/* A small streaming JSON writer (objects/arrays, escaping). */
typedef struct json {
  FILE *f;
  int depth;
  bool need_comma[32];
} json;

void json_begin(json *j, FILE *f);
void json_obj(json *j, const char *key);   /* key NULL inside arrays / at top */
void json_arr(json *j, const char *key);
void json_end_obj(json *j);
void json_end_arr(json *j);
void json_str(json *j, const char *key, const char *value);
void json_u64(json *j, const char *key, uint64_t value);
void json_i64(json *j, const char *key, int64_t value);
void json_bool(json *j, const char *key, bool value);
void json_f64(json *j, const char *key, double value);
void json_finish(json *j); /* newline */

#define CLI_MAX_RUN 16
#define CLI_MAX_SYMS 16
#define CLI_MAX_SUBS 128

/* Per-invocation state; no globals. */
typedef struct cli {
  const char *prog;    /* "sgpu" */
  const char *cmd;     /* command name */
  const char *uri;
  bool json;
  sgpu_device *dev;
  sgpu_context *ctx[SGPU_MAX_NODES];
  uint32_t next_fence[SGPU_MAX_NODES];
  /* Device set-up options common to device commands. */
  const char *run[CLI_MAX_RUN];
  int nrun;
  const char *mode;    /* --mode WxH[:fmt] */
  uint32_t source;     /* --source */
  bool mode_set;
  sgpu_asm_symbol syms[CLI_MAX_SYMS];
  size_t nsyms;
  uint32_t scratch, fb[2], fb_bytes; /* the set-up's areas (fb: with a mode) */
  uint64_t start_cycles;
  FILE *out;           /* command output: stdout, or a buffer with --json */
  bool last_faulted;   /* the last submission stopped on a GPU fault */
  int priority_rings;  /* CAPS.PRIORITY, read when the first event is printed (-1: not yet) */
  /* The submissions this run made, in order (`sgpu preempt --resubmit`
   * sends the preempted ones again with the same arguments). */
  sgpu_submit_command_args subs[CLI_MAX_SUBS];
  const char *sub_names[CLI_MAX_SUBS];
  int nsubs;
  bool json_error;     /* --json: print this error object instead of the output */
  int json_exit;
  char json_message[512];
} cli;

/* One-line error to stderr (and a JSON error object with --json); returns code. */
int cli_fail(cli *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Map a library error to an exit code and report it. */
int cli_lib_fail(cli *c, int rc, const char *what);
/* "unknown option" and "bad number" usage errors (exit 1). */
int cli_usage_unknown(cli *c, const char *arg);
int cli_bad_number(cli *c, const char *opt, const char *value);
/* An argument no option matched: "unknown option" for a dash, else
 * "unexpected argument" (exit 1). */
int cli_unexpected_arg(cli *c, const char *arg);

/* Parsing helpers. */
bool cli_parse_u32(const char *s, uint32_t *v);
bool cli_parse_u64(const char *s, uint64_t *v);
/* Match `--name` or `--name=value`; for options with a value, takes the next
 * argument when needed.  Returns 1 matched, 0 not this option, -1 error. */
int cli_opt(cli *c, int argc, char **argv, int *i, const char *name, const char **value);
/* cli_opt for a 32-bit number: returns 1 when the option matched, with *rc
 * 0 and *out set, or *rc the exit code of a missing or bad number. */
int cli_opt_u32(cli *c, int argc, char **argv, int *i, const char *name, uint32_t *out, int *rc);
/* The positional arguments of a command (those that are not options). */
typedef struct positional {
  const char *arg[64];
  int n;
} positional;

/* File helpers. */
int cli_read_file(cli *c, const char *path, uint8_t **data, size_t *size);
int cli_write_file(cli *c, const char *path, const void *data, size_t size);
/* Load a command stream: text (assembled) or binary (little-endian words). */
typedef enum { FMT_AUTO, FMT_TEXT, FMT_BINARY } cli_format;
int cli_load_stream(cli *c, const char *path, cli_format fmt, uint32_t base, uint32_t **words,
                    size_t *count, bool *was_text);

/* Device helpers. */
int cli_open(cli *c);
void cli_close(cli *c);
/* The symbols a device command defines (SCRATCH, SOURCE, FB0, FB1, FB_*),
 * for `sgpu asm`: the device (c->uri, default sim) is opened, the set-up's
 * areas allocated as a device command would (with c->mode, default
 * 320x240), nothing written, and it is closed.  When it cannot be opened:
 * an error if the device was named, else no symbols (returns 0). */
int cli_asm_symbols(cli *c, bool explicit_device);
/* Handle --run/--mode/--source for a device command (after cli_open). */
int cli_setup(cli *c, bool wait_runs);
/* Start a device command: open the device and run the set-up options; with
 * default_mode, set a 320x240 mode first when neither --mode nor a display
 * mode is there. */
int cli_start_device(cli *c, bool default_mode, bool wait_runs);
int cli_common_opt(cli *c, int argc, char **argv, int *i, int *rc);
const char *cli_common_help(void);

typedef struct submit_opts {
  uint32_t node;
  uint32_t fence;      /* 0 = next */
  uint32_t flags;
  uint32_t source;
  uint32_t interval;
  uint32_t segment;
  uint32_t timeout_ms;
  uint32_t priority;   /* SGPU_PRIORITY_*: the context's (sgpu_set_context_priority) */
  cli_format format;
  bool wait;
} submit_opts;
void submit_opts_default(submit_opts *o);
/* Submit a file; with o->wait wait for its fence.  Fills the fence used and
 * the cycles it took.  Prints nothing; returns an exit code. */
int cli_submit_file(cli *c, const char *path, const submit_opts *o, uint32_t *fence,
                    uint64_t *cycles);
/* Submit words already in host memory (same rules). */
int cli_submit_words(cli *c, const char *name, const uint32_t *words, size_t count,
                     const submit_opts *o, uint32_t *fence, uint64_t *cycles);
/* One event: a text line on c->out, or an object in the array open in j. */
void cli_event_out(cli *c, json *j, const sgpu_event *ev);
/* sgpu_info.preemption_granularity in words, and as a JSON name. */
const char *cli_granularity_text(uint32_t granularity);
const char *cli_granularity_name(uint32_t granularity);
/* Print or JSON-emit pending events; returns EXIT_GPU if a fault was seen. */
int cli_drain_events(cli *c, json *j, const char *key, uint32_t timeout_ms, int max, int *n);
uint32_t cli_crc32(const uint8_t *data, size_t size);

/* Commands, one file per family. */
int cmd_info(cli *c, int argc, char **argv);       /* cmd_info.c */
int cmd_submit(cli *c, int argc, char **argv);     /* cmd_submit.c */
int cmd_fence(cli *c, int argc, char **argv);
int cmd_events(cli *c, int argc, char **argv);
int cmd_asm(cli *c, int argc, char **argv);        /* cmd_asm.c */
int cmd_disasm(cli *c, int argc, char **argv);
int cmd_flip(cli *c, int argc, char **argv);       /* cmd_display.c */
int cmd_screenshot(cli *c, int argc, char **argv);
int cmd_ring(cli *c, int argc, char **argv);       /* cmd_ring.c */
int cmd_peek(cli *c, int argc, char **argv);       /* cmd_mem.c */
int cmd_poke(cli *c, int argc, char **argv);
int cmd_top(cli *c, int argc, char **argv);        /* top.c */
int cmd_flash(cli *c, int argc, char **argv);      /* flash.c */
int cmd_list(cli *c, int argc, char **argv);       /* list.c */
int cmd_ping(cli *c, int argc, char **argv);       /* linkcmd.c */
int cmd_preempt(cli *c, int argc, char **argv);    /* cmd_preempt.c */
int cmd_vm(cli *c, int argc, char **argv);         /* cmd_vm.c */
/* va translated through the page directory at root as the hardware walks
 * it (cmd_vm.c): 0 and *pa, or -1 when not mapped or unreadable. */
int cli_vm_translate(cli *c, uint32_t root, uint32_t va, uint32_t *pa);
/* The link statistics of `info` (linkcmd.c): a "link" object in j, or text
 * lines on c->out when j is NULL; nothing when the device has no link. */
void cli_link_info(cli *c, json *j);

#endif
