/* bench_sgpud.c — a program for tests/host/test_sgpud.sh: the same calls on
 * any device URI (sgpud:PATH, or sim for the in-process comparison).
 *
 *   bench_sgpud fences URI N TAG   N submissions on node 0 counting fences
 *                                  from 1, each filling its own word with
 *                                  TAG<<16|i; checks its events (only its
 *                                  own, in order, with its private data),
 *                                  its fences, its stats and the words
 *   bench_sgpud victim URI         allocates, prints READY, then submits
 *                                  forever (the test SIGKILLs it)
 *   bench_sgpud queue URI K        K large fills on node 1 queued, never
 *                                  waited for; READY, then sleeps (SIGKILL)
 *   bench_sgpud isolate URI        two connections: the second cannot read,
 *                                  write, free or submit the first's memory
 *   bench_sgpud isolate-vm URI     two programs' VM contexts: mappings of the
 *                                  program's own memory only, a rewritten
 *                                  buffer's page fault
 *   bench_sgpud fault URI          a hang of one program's work (needs a short
 *                                  watchdog): the other's completes untouched
 *   bench_sgpud threads URI        one thread waits, the other is not held
 *   bench_sgpud errors URI         wrong calls: "code text" per line (the
 *                                  test compares sgpud's with in-process)
 *   bench_sgpud unsupported URI    calls refused: NOT_SUPPORTED and why; raw
 *                                  writes, vsync events, runs carried
 *   bench_sgpud limits URI         a server's --max-memory 65536 --max-contexts 2
 *   bench_sgpud lost URI           READY, a line on stdin (the server is killed
 *                                  meanwhile), then calls: SGPU_ERROR_IO
 *   bench_sgpud free URI           free bytes of segments 0, 1 and 2
 *   bench_sgpud hostile PATH MODE  raw socket: MODE half (half a request,
 *                                  then waits to be closed), oversize
 *   bench_sgpud garbage PATH N SEED  raw socket: N requests of random ops and
 *                                  bodies after a proper HELLO
 *   bench_sgpud edges PATH         raw socket: the edges of the display, capture,
 *                                  run, ping and raw-write requests refused
 *   bench_sgpud idle URI K         K connections open until stdin closes
 *   bench_sgpud bench URI N        figures: submissions/s, call latency
 * Exit status 0 when every check holds; FAIL lines say what did not. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../host/src/remote_proto.h"
#include "sgpu.h"

static int failures;
#define CHECK(cond, ...)                  \
  do {                                    \
    if (!(cond)) {                        \
      printf("FAIL %s:%d: ", __func__, __LINE__); \
      printf(__VA_ARGS__);                \
      printf("\n");                       \
      fflush(stdout);                     \
      failures++;                         \
    }                                     \
  } while (0)

static sgpu_device *open_or_die(const char *uri) {
  sgpu_device *dev = NULL;
  char msg[256];
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  if (r) {
    printf("FAIL open %s: %s (%s)\n", uri, sgpu_strerror(r), msg);
    exit(1);
  }
  return dev;
}

#define TRY(dev, call)                                                               \
  do {                                                                               \
    int r_ = (call);                                                                 \
    if (r_ < 0) {                                                                    \
      printf("FAIL %s:%d: %s: %s (%s)\n", __func__, __LINE__, #call, sgpu_strerror(r_), \
             sgpu_last_error(dev));                                                  \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

/* A submission on ctx (node 0) of the bytes [0, end) of the buffer
 * [buf, +size) of the segment: the caller sets the fence (and flags). */
static sgpu_submit_command_args submission_at(sgpu_context *ctx, uint32_t segment, uint64_t buf,
                                              uint32_t size, uint32_t end) {
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = ctx;
  a.dma_buffer_segment_id = segment;
  a.dma_buffer_physical_address = buf;
  a.dma_buffer_size = size;
  a.dma_buffer_submission_end_offset = end;
  return a;
}

/* A NOP in a 64-byte buffer of segment 1 of its own (*buf), as a
 * submission on ctx (node 0): the caller sets the fence. */
static sgpu_submit_command_args nop_submission(sgpu_device *dev, sgpu_context *ctx, uint64_t *buf) {
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 64, 0, buf));
  uint32_t w[4];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_nop(&cb, 0);
  TRY(dev, sgpu_write(dev, *buf, w, sgpu_cmdbuf_size(&cb)));
  sgpu_submit_command_args a = submission_at(ctx, SGPU_SEGMENT_LOCAL, *buf, 64, sgpu_cmdbuf_size(&cb));
  return a;
}

/* ------------------------------------------------------------ fences */
static int cmd_fences(const char *uri, unsigned n, unsigned tag) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx;
  uint64_t target, cmds, host;
  TRY(dev, sgpu_create_context(dev, 0, &ctx));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 4 * n, 0, &target));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 32 * n, 0, &cmds));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_SYSTEM, 64, 0, &host));
  uint32_t *zero = calloc(n, 4), *words = calloc(8 * n, 4);
  TRY(dev, sgpu_write(dev, target, zero, 4 * n));
  /* One FILL per submission (6 words, padded to 8), each its own word. */
  for (unsigned i = 0; i < n; i++) {
    sgpu_cmdbuf cb;
    sgpu_cmdbuf_init(&cb, words + 8 * i, 32);
    sgpu_cmd_fill(&cb, (uint32_t)target + 4 * i, 4, 4, 1, (tag << 16) | (i + 1));
    sgpu_cmd_nop(&cb, 8 - sgpu_cmdbuf_size(&cb) / 4 - 1);
    CHECK(sgpu_cmdbuf_error(&cb) == 0 && sgpu_cmdbuf_size(&cb) == 32, "cmdbuf %u", i);
  }
  TRY(dev, sgpu_write(dev, cmds, words, 32 * n));
  char *priv = calloc(n + 1, 1);
  sgpu_submit_command_args a;
  for (unsigned i = 1; i <= n; i++) {
    a = submission_at(ctx, SGPU_SEGMENT_LOCAL, cmds, 32 * n, 0);
    a.dma_buffer_submission_start_offset = 32 * (i - 1);
    a.dma_buffer_submission_end_offset = 32 * i;
    if (i % 7 == 0) { /* some from host memory (segment 0: staged) */
      TRY(dev, sgpu_write(dev, host, words + 8 * (i - 1), 32));
      a.dma_buffer_segment_id = SGPU_SEGMENT_SYSTEM;
      a.dma_buffer_physical_address = host;
      a.dma_buffer_size = 64;
      a.dma_buffer_submission_start_offset = 0;
      a.dma_buffer_submission_end_offset = 32;
    }
    a.dma_buffer_private_data = priv + i;
    a.dma_buffer_private_data_size = 1;
    a.dma_buffer_private_data_submission_end_offset = 1;
    a.submission_fence_id = i;
    TRY(dev, sgpu_submit_command(dev, &a));
    if (i % 7 == 0) TRY(dev, sgpu_wait_fence(dev, 0, i, 10000)); /* host buffer reused */
    if (i % 5 == 0 && i > 2) TRY(dev, sgpu_wait_fence(dev, 0, i - 2, 10000));
  }
  TRY(dev, sgpu_wait_fence(dev, 0, n, 10000));
  /* Its events: exactly its n completions, in order, with its private data. */
  sgpu_event ev;
  unsigned seen = 0;
  while (sgpu_next_event(dev, &ev, 0) == 0) {
    CHECK(ev.type == SGPU_EVENT_DMA_COMPLETED, "event type %u", ev.type);
    CHECK(ev.node_ordinal == 0 && ev.fence_id == seen + 1 && ev.fence_id64 == seen + 1,
          "event %u: node %u fence %u/%llu", seen, ev.node_ordinal, ev.fence_id,
          (unsigned long long)ev.fence_id64);
    CHECK(ev.private_data == priv + seen + 1 && ev.private_data_size == 1,
          "event %u: private data %p+%u, expected %p", seen, ev.private_data, ev.private_data_size,
          (void *)(priv + seen + 1));
    seen++;
  }
  CHECK(seen == n, "%u completion events, expected %u", seen, n);
  sgpu_fence_info fi;
  TRY(dev, sgpu_get_fence(dev, 0, &fi));
  CHECK(fi.submitted == n && fi.completed == n && fi.pending == 0 && !fi.faulted,
        "fence info %llu/%llu pending %u", (unsigned long long)fi.submitted,
        (unsigned long long)fi.completed, fi.pending);
  sgpu_stats st;
  TRY(dev, sgpu_get_stats(dev, &st));
  CHECK(st.submissions == n && st.completed == n, "stats: %llu submissions %llu completed",
        (unsigned long long)st.submissions, (unsigned long long)st.completed);
  uint32_t *got = calloc(n, 4);
  TRY(dev, sgpu_read(dev, target, got, 4 * n));
  for (unsigned i = 0; i < n; i++)
    CHECK(got[i] == ((tag << 16) | (i + 1)), "word %u is 0x%08x, expected 0x%08x", i, got[i],
          (tag << 16) | (i + 1));
  TRY(dev, sgpu_free(dev, target));
  TRY(dev, sgpu_free(dev, cmds));
  TRY(dev, sgpu_free(dev, host));
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  free(zero);
  free(words);
  free(priv);
  free(got);
  if (!failures) printf("OK fences %u tag %u\n", n, tag);
  return failures != 0;
}

/* ------------------------------------------------------------ victim */
static int cmd_victim(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx;
  uint64_t target, cmds, extra;
  TRY(dev, sgpu_create_context(dev, 0, &ctx));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 16384, 0, &target));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 64, 0, &cmds));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_SYSTEM, 4096, 0, &extra));
  uint32_t words[16];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, (uint32_t)target, 1024, 1024, 16, 0xdeadbeef);
  TRY(dev, sgpu_write(dev, cmds, words, sgpu_cmdbuf_size(&cb)));
  printf("READY\n");
  fflush(stdout);
  for (uint32_t i = 1;; i++) {
    sgpu_submit_command_args a = submission_at(ctx, SGPU_SEGMENT_LOCAL, cmds, 64, sgpu_cmdbuf_size(&cb));
    a.submission_fence_id = i;
    TRY(dev, sgpu_submit_command(dev, &a));
    if (i % 16 == 0) TRY(dev, sgpu_wait_fence(dev, 0, i - 8, 60000));
  }
}

/* K large fills queued and never waited for (the simulated chip runs only
 * while someone waits: they stay queued), then READY and sleep: the test
 * SIGKILLs it with work queued. */
static int cmd_queue(const char *uri, unsigned k) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx;
  uint64_t target, cmds;
  TRY(dev, sgpu_create_context(dev, 1, &ctx));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 65536, 0, &target));
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 64, 0, &cmds));
  uint32_t words[16];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, (uint32_t)target, 4096, 4096, 16, 0x5a5a5a5a);
  TRY(dev, sgpu_write(dev, cmds, words, sgpu_cmdbuf_size(&cb)));
  for (uint32_t i = 1; i <= k; i++) {
    sgpu_submit_command_args a = submission_at(ctx, SGPU_SEGMENT_LOCAL, cmds, 64, sgpu_cmdbuf_size(&cb));
    a.node_ordinal = 1;
    a.submission_fence_id = i;
    TRY(dev, sgpu_submit_command(dev, &a));
  }
  sgpu_fence_info fi;
  TRY(dev, sgpu_get_fence(dev, 1, &fi));
  printf("READY %llu queued\n", (unsigned long long)fi.pending);
  for (;;) pause();
}

/* ------------------------------------------------------------ a hang */
/* Two programs (connections) on node 0: P's first submission waits for a
 * word that never comes (the watchdog faults it), Q's two fills are queued
 * behind it.  The server resets the node: Q's work completes as if nothing
 * happened; P gets FAULTED, its work DROPPED (its fences still pass) and
 * ENGINE_RESET naming its context. */
static uint64_t submit_words(sgpu_device *dev, sgpu_context *ctx, const uint32_t *w, uint32_t bytes,
                             uint32_t fence) {
  uint64_t buf;
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 64, 0, &buf));
  TRY(dev, sgpu_write(dev, buf, w, bytes));
  sgpu_submit_command_args a = submission_at(ctx, SGPU_SEGMENT_LOCAL, buf, 64, bytes);
  a.submission_fence_id = fence;
  TRY(dev, sgpu_submit_command(dev, &a));
  return buf;
}

static int cmd_fault(const char *uri) {
  sgpu_device *p = open_or_die(uri), *q = open_or_die(uri);
  sgpu_context *pc, *qc;
  TRY(p, sgpu_create_context(p, 0, &pc));
  TRY(q, sgpu_create_context(q, 0, &qc));
  uint64_t word, target;
  uint32_t zero[2] = {0, 0}, w[16];
  TRY(p, sgpu_alloc(p, SGPU_SEGMENT_LOCAL, 4, 0, &word));
  TRY(p, sgpu_write(p, word, zero, 4));
  TRY(q, sgpu_alloc(q, SGPU_SEGMENT_LOCAL, 8, 0, &target));
  TRY(q, sgpu_write(q, target, zero, 8));
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_wait_mem(&cb, (uint32_t)word, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  submit_words(p, pc, w, sgpu_cmdbuf_size(&cb), 1);
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_nop(&cb, 0);
  submit_words(p, pc, w, sgpu_cmdbuf_size(&cb), 2);
  for (uint32_t i = 1; i <= 2; i++) {
    sgpu_cmdbuf_init(&cb, w, sizeof w);
    sgpu_cmd_fill(&cb, (uint32_t)target + 4 * (i - 1), 4, 4, 1, 0x51000000u | i);
    submit_words(q, qc, w, sgpu_cmdbuf_size(&cb), i);
  }
  TRY(q, sgpu_wait_fence(q, 0, 2, 10000));
  uint32_t got[2];
  TRY(q, sgpu_read(q, target, got, 8));
  CHECK(got[0] == 0x51000001u && got[1] == 0x51000002u, "Q's words 0x%08x 0x%08x", got[0], got[1]);
  sgpu_event ev;
  unsigned qn = 0;
  while (sgpu_next_event(q, &ev, 0) == 0) {
    CHECK(ev.type == SGPU_EVENT_DMA_COMPLETED && ev.fence_id == qn + 1, "Q's event %u: type %u fence %u",
          qn, ev.type, ev.fence_id);
    printf("  Q: completed fence %u flags 0x%x\n", ev.fence_id, ev.flags);
    qn++;
  }
  CHECK(qn == 2, "Q saw %u events", qn);
  TRY(p, sgpu_wait_fence(p, 0, 2, 10000)); /* its fences pass, its work dropped */
  unsigned faulted = 0, dropped = 0, reset = 0;
  while (sgpu_next_event(p, &ev, 0) == 0) {
    printf("  P: event %u fence %u reason %u context %u\n", ev.type, ev.fence_id, ev.fault_reason,
           ev.context_id);
    if (ev.type == SGPU_EVENT_DMA_FAULTED) {
      faulted++;
      CHECK(ev.fence_id == 1 && ev.fault_reason == SGPU_FAULT_TIMEOUT, "P's fault: fence %u reason %u",
            ev.fence_id, ev.fault_reason);
    } else if (ev.type == SGPU_EVENT_DMA_DROPPED) {
      dropped++;
      CHECK(ev.fence_id == dropped, "P's drop %u: fence %u", dropped, ev.fence_id);
    } else if (ev.type == SGPU_EVENT_ENGINE_RESET) {
      reset++;
      CHECK(ev.context_id == sgpu_context_id(pc), "reset names context %u, P's is %u", ev.context_id,
            sgpu_context_id(pc));
    } else {
      CHECK(0, "P: unexpected event %u", ev.type);
    }
  }
  CHECK(faulted == 1 && dropped == 2 && reset == 1, "P's events: %u faulted %u dropped %u resets",
        faulted, dropped, reset);
  sgpu_stats st;
  TRY(p, sgpu_get_stats(p, &st));
  CHECK(st.faulted == 1 && st.dropped == 2 && st.resets == 1 && st.completed == 0,
        "P's stats: %llu faulted %llu dropped %llu resets %llu completed",
        (unsigned long long)st.faulted, (unsigned long long)st.dropped,
        (unsigned long long)st.resets, (unsigned long long)st.completed);
  TRY(q, sgpu_get_stats(q, &st));
  CHECK(st.faulted == 0 && st.dropped == 0 && st.resets == 0 && st.completed == 2,
        "Q's stats: %llu faulted %llu dropped %llu completed", (unsigned long long)st.faulted,
        (unsigned long long)st.dropped, (unsigned long long)st.completed);
  /* A hang again, and more submissions behind it than the ring holds: the
   * ones without room wait in the server (not inside the library, which
   * would hold every program); the watchdog faults the hang, the node is
   * reset, and every one of them is accepted. */
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_wait_mem(&cb, (uint32_t)word, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  submit_words(p, pc, w, sgpu_cmdbuf_size(&cb), 3);
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_nop(&cb, 0);
  uint64_t nop = submit_words(p, pc, w, sgpu_cmdbuf_size(&cb), 4);
  sgpu_submit_command_args a = submission_at(pc, SGPU_SEGMENT_LOCAL, nop, 64, sgpu_cmdbuf_size(&cb));
  unsigned over = 0;
  for (uint32_t i = 5; i < 5 + 199; i++) { /* 200 x 28 bytes: more than a 4 KiB ring */
    a.submission_fence_id = i;
    int r = sgpu_submit_command(p, &a);
    if (r) {
      CHECK(0, "P's submission %u behind the hang: %s (%s)", i, sgpu_strerror(r), sgpu_last_error(p));
      break;
    }
    over++;
  }
  printf("  P: %u submissions behind a hang accepted\n", over + 1);
  sgpu_event pe;
  while (sgpu_next_event(p, &pe, 0) == 0) {
  }
  /* and from host memory (segment 0, staged): more than the staging area
   * holds behind the hang */
  {
    sgpu_context *pc2; /* pc was found guilty twice: a third time would ban it */
    TRY(p, sgpu_create_context(p, 0, &pc2));
    uint64_t hbuf;
    TRY(p, sgpu_alloc(p, SGPU_SEGMENT_SYSTEM, 2048, 0, &hbuf));
    uint32_t big[512];
    sgpu_cmdbuf hb;
    sgpu_cmdbuf_init(&hb, big, sizeof big);
    sgpu_cmd_nop(&hb, 511); /* 2 KiB */
    TRY(p, sgpu_write(p, hbuf, big, sizeof big));
    sgpu_cmdbuf_init(&cb, w, sizeof w);
    sgpu_cmd_wait_mem(&cb, (uint32_t)word, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
    submit_words(p, pc2, w, sgpu_cmdbuf_size(&cb), 204);
    a = submission_at(pc2, SGPU_SEGMENT_SYSTEM, hbuf, 2048, 2048);
    unsigned staged = 0;
    for (uint32_t i = 205; i < 205 + 24; i++) { /* 48 KiB: more than any node's staging area */
      a.submission_fence_id = i;
      int r = sgpu_submit_command(p, &a);
      if (r) {
        CHECK(0, "P's staged submission %u behind the hang: %s (%s)", i, sgpu_strerror(r),
              sgpu_last_error(p));
        break;
      }
      staged++;
    }
    printf("  P: %u staged submissions (2 KiB each) behind a hang accepted\n", staged);
    while (sgpu_next_event(p, &pe, 0) == 0) {
    }
    sgpu_destroy_context(pc2);
  }
  /* Both go on on the node. */
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_nop(&cb, 0);
  submit_words(p, pc, w, sgpu_cmdbuf_size(&cb), 229);
  submit_words(q, qc, w, sgpu_cmdbuf_size(&cb), 3);
  TRY(p, sgpu_wait_fence(p, 0, 229, 10000));
  TRY(q, sgpu_wait_fence(q, 0, 3, 10000));
  sgpu_destroy_context(pc);
  sgpu_destroy_context(qc);
  sgpu_close(p);
  sgpu_close(q);
  if (!failures) printf("OK fault\n");
  return failures != 0;
}

/* ------------------------------------------------------------ isolation */
static void expect(sgpu_device *dev, int r, int code, const char *what, const char *text) {
  CHECK(r == code, "%s: %d (%s), expected %d (%s)", what, r, sgpu_strerror(r), code,
        sgpu_strerror(code));
  CHECK(!text || strstr(sgpu_last_error(dev), text), "%s: text '%s' lacks '%s'", what,
        sgpu_last_error(dev), text);
  printf("  %s: %s: %s\n", what, sgpu_strerror(r), sgpu_last_error(dev));
}

static int cmd_isolate(const char *uri) {
  sgpu_device *a = open_or_die(uri), *b = open_or_die(uri);
  sgpu_context *ca, *cb;
  uint64_t x, h, bcmd;
  TRY(a, sgpu_create_context(a, 0, &ca));
  TRY(b, sgpu_create_context(b, 0, &cb));
  TRY(a, sgpu_alloc(a, SGPU_SEGMENT_LOCAL, 256, 0, &x));
  TRY(a, sgpu_alloc(a, SGPU_SEGMENT_SYSTEM, 256, 0, &h));
  TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 64, 0, &bcmd));
  uint8_t pat[256], got[256], junk[256];
  for (int i = 0; i < 256; i++) pat[i] = (uint8_t)(i * 7 + 1);
  memset(junk, 0xEE, sizeof junk);
  TRY(a, sgpu_write(a, x, pat, sizeof pat));
  TRY(a, sgpu_write(a, h, pat, sizeof pat));
  const char *txt = "not inside one of this program's allocations";
  expect(b, sgpu_read(b, x, got, 16), SGPU_ERROR_NOT_OWNER, "read another's GPU memory", txt);
  expect(b, sgpu_write(b, x + 16, junk, 16), SGPU_ERROR_NOT_OWNER, "write another's GPU memory", txt);
  expect(b, sgpu_write(b, bcmd, junk, 128), SGPU_ERROR_NOT_OWNER,
         "write from its own into the next allocation", txt);
  expect(b, sgpu_read(b, h, got, 16), SGPU_ERROR_NOT_OWNER, "read another's host memory", txt);
  expect(b, sgpu_write(b, h, junk, 16), SGPU_ERROR_NOT_OWNER, "write another's host memory", txt);
  expect(b, sgpu_free(b, x), SGPU_ERROR_NOT_OWNER, "free another's allocation", "another program");
  expect(b, sgpu_free(b, h), SGPU_ERROR_NOT_OWNER, "free another's host allocation", "another program");
  /* A submission of the other's buffer as its DMA buffer. */
  sgpu_submit_command_args s = submission_at(cb, SGPU_SEGMENT_LOCAL, x, 256, 0);
  s.submission_fence_id = 1;
  expect(b, sgpu_submit_command(b, &s), SGPU_ERROR_NOT_OWNER, "submit another's buffer", NULL);
  s.context = ca; /* the other's context handle */
  expect(b, sgpu_submit_command(b, &s), SGPU_ERROR_SUBMIT_CONTEXT_DEVICE, "submit another's context",
         NULL);
  /* Command buffers reach only the program's own memory: B's FILL, COPY,
   * WRITE_DATA, FENCE, WAIT_MEM and TIMESTAMP over A's allocation, and a
   * COPY out of it, are refused before anything runs. */
  {
    uint64_t bbuf, bown;
    TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 256, 0, &bbuf));
    TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 256, 0, &bown));
    uint32_t cw[32], one = 1;
    sgpu_cmdbuf k;
    const char *names[] = {"FILL", "COPY into", "COPY out of", "WRITE_DATA", "FENCE", "WAIT_MEM",
                           "TIMESTAMP", "INDIRECT"};
    for (int t = 0; t < 8; t++) {
      sgpu_cmdbuf_init(&k, cw, sizeof cw);
      switch (t) {
      case 0: sgpu_cmd_fill(&k, (uint32_t)x, 16, 16, 2, 0xEEEEEEEE); break;
      case 1: sgpu_cmd_copy(&k, (uint32_t)x, 16, (uint32_t)bown, 16, 16, 1); break;
      case 2: sgpu_cmd_copy(&k, (uint32_t)bown, 16, (uint32_t)x, 16, 16, 1); break;
      case 3: sgpu_cmd_write_data(&k, (uint32_t)x + 8, &one, 1); break;
      case 4: sgpu_cmd_fence(&k, (uint32_t)x, 7, 0); break;
      case 5: sgpu_cmd_wait_mem(&k, (uint32_t)x, 0, 0, SGPU_WAIT_FUNC_EQ); break;
      case 6: sgpu_cmd_timestamp(&k, (uint32_t)x); break;
      case 7: sgpu_cmd_indirect(&k, (uint32_t)x, 16, 0, 0); break;
      }
      TRY(b, sgpu_write(b, bbuf, cw, sgpu_cmdbuf_size(&k)));
      sgpu_submit_command_args g = submission_at(cb, SGPU_SEGMENT_LOCAL, bbuf, 256, sgpu_cmdbuf_size(&k));
      g.submission_fence_id = 1;
      char what[64];
      snprintf(what, sizeof what, "a %s packet on another's memory", names[t]);
      expect(b, sgpu_submit_command(b, &g), SGPU_ERROR_NOT_OWNER, what,
             "not inside one of this program's allocations");
    }
    /* and on its own memory they go */
    sgpu_cmdbuf_init(&k, cw, sizeof cw);
    sgpu_cmd_fill(&k, (uint32_t)bown, 16, 16, 2, 0x12345678);
    sgpu_cmd_copy(&k, (uint32_t)bown + 64, 16, (uint32_t)bown, 16, 16, 1);
    TRY(b, sgpu_write(b, bbuf, cw, sgpu_cmdbuf_size(&k)));
    sgpu_submit_command_args g = submission_at(cb, SGPU_SEGMENT_LOCAL, bbuf, 256, sgpu_cmdbuf_size(&k));
    g.submission_fence_id = 1;
    TRY(b, sgpu_submit_command(b, &g));
    TRY(b, sgpu_wait_fence(b, 0, 1, 10000));
    uint32_t v = 0;
    TRY(b, sgpu_read(b, bown + 64, &v, 4));
    CHECK(v == 0x12345678, "B's own COPY: 0x%08x", v);
    sgpu_event e;
    while (sgpu_next_event(b, &e, 0) == 0) {
    }
    TRY(b, sgpu_free(b, bbuf));
    TRY(b, sgpu_free(b, bown));
  }
  /* Memory freed while the program's work may still write it is held
   * until that work is done: A frees an allocation that a FILL queued
   * behind A's WAIT_MEM will write; B's next allocations do not get it, and
   * what B keeps there is not overwritten when A's work runs. */
  {
    uint64_t word, tgt, cmd, got1, got2;
    uint32_t zero = 0, one = 1, cw[32];
    TRY(a, sgpu_alloc(a, SGPU_SEGMENT_LOCAL, 4, 0, &word));
    TRY(a, sgpu_write(a, word, &zero, 4));
    TRY(a, sgpu_alloc(a, SGPU_SEGMENT_LOCAL, 4096, 4096, &tgt));
    TRY(a, sgpu_alloc(a, SGPU_SEGMENT_LOCAL, 64, 0, &cmd));
    sgpu_cmdbuf k;
    sgpu_cmdbuf_init(&k, cw, sizeof cw);
    sgpu_cmd_wait_mem(&k, (uint32_t)word, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
    sgpu_cmd_fill(&k, (uint32_t)tgt, 4096, 4096, 1, 0xBADBADBA);
    TRY(a, sgpu_write(a, cmd, cw, sgpu_cmdbuf_size(&k)));
    sgpu_submit_command_args g = submission_at(ca, SGPU_SEGMENT_LOCAL, cmd, 64, sgpu_cmdbuf_size(&k));
    g.submission_fence_id = 1;
    TRY(a, sgpu_submit_command(a, &g));
    TRY(a, sgpu_free(a, tgt)); /* as in-process: at once, 0 */
    expect(a, sgpu_read(a, tgt, got, 4), SGPU_ERROR_NOT_OWNER, "read what it freed", NULL);
    TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 4096, 4096, &got1));
    CHECK(got1 != tgt, "B was given 0x%llx, freed by A with A's FILL still queued on it",
          (unsigned long long)got1);
    uint8_t mine[4096];
    memset(mine, 0x3C, sizeof mine);
    TRY(b, sgpu_write(b, got1, mine, sizeof mine));
    TRY(a, sgpu_write(a, word, &one, 4)); /* A's work goes */
    TRY(a, sgpu_wait_fence(a, 0, 1, 10000));
    uint8_t back[4096];
    TRY(b, sgpu_read(b, got1, back, sizeof back));
    CHECK(!memcmp(back, mine, sizeof back), "B's memory changed by A's late FILL");
    /* A's work done: the memory is free again (B may be given it). */
    TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 4096, 4096, &got2));
    printf("  freed with work queued: held until the work was done (0x%llx; B got 0x%llx, then "
           "0x%llx)\n", (unsigned long long)tgt, (unsigned long long)got1, (unsigned long long)got2);
    TRY(b, sgpu_free(b, got1));
    TRY(b, sgpu_free(b, got2));
    TRY(a, sgpu_free(a, cmd));
    TRY(a, sgpu_free(a, word));
    sgpu_event e;
    while (sgpu_next_event(a, &e, 0) == 0) {
    }
  }
  /* The library's areas: writes refused as in-process, reads refused too. */
  sgpu_info info;
  TRY(b, sgpu_query_info(b, &info));
  CHECK(!strcmp(info.transport, "sgpud"), "transport '%s'", info.transport);
  expect(b, sgpu_read(b, info.segment[1].base, got, 16), SGPU_ERROR_NOT_OWNER,
         "read the library's ring", txt);
  expect(b, sgpu_write(b, info.segment[1].base, junk, 16), SGPU_ERROR_RESERVED_ADDRESS,
         "write the library's ring", "reserved by the library (through sgpud sgpu_write_raw is refused there too)");
  expect(b, sgpu_read(b, info.mem_size, got, 16), SGPU_ERROR_INVALID_ADDRESS,
         "read beyond GPU memory", "leaves GPU memory");
  /* Nothing changed. */
  TRY(a, sgpu_read(a, x, got, sizeof got));
  CHECK(!memcmp(got, pat, sizeof pat), "A's GPU memory changed");
  TRY(a, sgpu_read(a, h, got, sizeof got));
  CHECK(!memcmp(got, pat, sizeof pat), "A's host memory changed");
  /* Events: A's completion is A's alone; fence 1 for both. */
  uint32_t w[8];
  sgpu_cmdbuf c;
  sgpu_cmdbuf_init(&c, w, sizeof w);
  sgpu_cmd_nop(&c, 1);
  TRY(b, sgpu_write(b, bcmd, w, sgpu_cmdbuf_size(&c)));
  s.context = cb;
  s.dma_buffer_physical_address = bcmd;
  s.dma_buffer_size = 64;
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&c);
  s.submission_fence_id = 2;
  TRY(b, sgpu_submit_command(b, &s));
  TRY(b, sgpu_wait_fence(b, 0, 2, 10000));
  sgpu_event ev;
  expect(a, sgpu_next_event(a, &ev, 0), SGPU_ERROR_TIMEOUT, "A sees no event of B's", "no event");
  TRY(b, sgpu_next_event(b, &ev, 0));
  CHECK(ev.type == SGPU_EVENT_DMA_COMPLETED && ev.fence_id == 2, "B's event %u fence %u", ev.type,
        ev.fence_id);
  sgpu_fence_info fi;
  TRY(a, sgpu_get_fence(a, 0, &fi));
  CHECK(fi.submitted == 1 && fi.completed == 1, "A's fences moved: %llu/%llu",
        (unsigned long long)fi.submitted, (unsigned long long)fi.completed);
  expect(a, sgpu_wait_fence(a, 0, 2, 10), SGPU_ERROR_FENCE_NOT_SUBMITTED, "A waits B's fence 2",
         "ahead of the last one submitted");
  /* Raw writes: the program's own memory only. */
  expect(b, sgpu_write_raw(b, x, junk, 16), SGPU_ERROR_NOT_OWNER, "raw write of another's memory",
         "sgpu_write_raw reaches only the program's own");
  TRY(a, sgpu_read(a, x, got, sizeof got));
  CHECK(!memcmp(got, pat, sizeof pat), "A's GPU memory changed by B's raw write");
  /* The display: A shows its framebuffer on source 0; B may see it (the
   * mode, a capture, vsync events) but not change it, nor show A's memory
   * on another source; once A is gone the source is off and B may take it. */
  uint64_t afb, bfb, bflip;
  TRY(a, sgpu_alloc(a, SGPU_SEGMENT_LOCAL, 32 * 24 * 2, 256, &afb));
  TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 32 * 24 * 2, 256, &bfb));
  sgpu_display_mode m, g;
  memset(&m, 0, sizeof m);
  m.width = 32;
  m.height = 24;
  m.address = (uint32_t)afb;
  TRY(a, sgpu_set_display_mode(a, 0, &m));
  sgpu_display_mode bm = m;
  bm.address = (uint32_t)bfb;
  expect(b, sgpu_set_display_mode(b, 0, &bm), SGPU_ERROR_NOT_OWNER, "set the mode of A's source",
         "only it may change the source");
  sgpu_display_mode off;
  memset(&off, 0, sizeof off);
  expect(b, sgpu_set_display_mode(b, 0, &off), SGPU_ERROR_NOT_OWNER, "turn A's source off",
         "only it may change the source");
  expect(b, sgpu_set_display_mode(b, 1, &m), SGPU_ERROR_NOT_OWNER, "show A's memory on source 1",
         "not inside one of this program's allocations");
  {
    uint32_t fw[4];
    sgpu_cmdbuf k;
    sgpu_cmdbuf_init(&k, fw, sizeof fw);
    sgpu_cmd_flip(&k, 0, (uint32_t)bfb, SGPU_FLIP_INTERVAL_ONE, 0);
    TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 64, 0, &bflip));
    TRY(b, sgpu_write(b, bflip, fw, sgpu_cmdbuf_size(&k)));
    sgpu_submit_command_args fl = submission_at(cb, SGPU_SEGMENT_LOCAL, bflip, 64, sgpu_cmdbuf_size(&k));
    fl.submission_fence_id = 3;
    fl.flags.flip = 1;
    fl.flip_interval = SGPU_FLIP_INTERVAL_ONE;
    expect(b, sgpu_submit_command(b, &fl), SGPU_ERROR_NOT_OWNER, "flip A's source",
           "a flip: display source 0 shows the framebuffer of program");
  }
  TRY(b, sgpu_get_display_mode(b, 0, &g));
  CHECK(g.enabled == 1 && g.width == 32, "B reads A's mode: enabled %u width %u", g.enabled, g.width);
  sgpu_frame fr;
  TRY(b, sgpu_capture_frame(b, 0, &fr));
  CHECK(fr.scanout_address == (uint32_t)afb && fr.pixels, "B's capture shows 0x%x, A's is 0x%llx",
        fr.scanout_address, (unsigned long long)afb);
  sgpu_frame_release(&fr);
  TRY(b, sgpu_enable_vsync_events(b, 0, 1));
  int vr = sgpu_next_event(b, &ev, 1000);
  CHECK(vr == 0 && ev.type == SGPU_EVENT_CRTC_VSYNC && ev.scanout_address == (uint32_t)afb,
        "B's vsync event: %d type %u scanout 0x%x", vr, ev.type, ev.scanout_address);
  TRY(b, sgpu_enable_vsync_events(b, 0, 0));
  while (sgpu_next_event(b, &ev, 0) == 0) {
  }
  expect(a, sgpu_next_event(a, &ev, 0), SGPU_ERROR_TIMEOUT, "A gets no vsync event of B's asking",
         "no event");
  sgpu_program_info pl[8];
  uint32_t aid = 0;
  int np = sgpu_list_programs(a, pl, 8);
  for (int i = 0; i < np && i < 8; i++)
    if (pl[i].self) aid = pl[i].id;
  sgpu_destroy_context(ca);
  sgpu_close(a);
  /* the server sees A go when it next polls: until B's listing says so */
  for (int tries = 0, there = 1; there && tries < 500; tries++) {
    there = 0;
    np = sgpu_list_programs(b, pl, 8);
    for (int i = 0; i < np && i < 8; i++) there |= pl[i].id == aid && !pl[i].gone;
    if (there) nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
  }
  TRY(b, sgpu_get_display_mode(b, 0, &g));
  CHECK(g.enabled == 0, "A is gone, its source still shows: enabled %u", g.enabled);
  TRY(b, sgpu_set_display_mode(b, 0, &bm));
  TRY(b, sgpu_get_display_mode(b, 0, &g));
  CHECK(g.enabled == 1, "B's mode: enabled %u", g.enabled);
  /* B frees the framebuffer it shows: the memory may be another's next, so
   * the source goes off (in-process it would show whatever comes there) */
  TRY(b, sgpu_free(b, bfb));
  TRY(b, sgpu_get_display_mode(b, 0, &g));
  CHECK(g.enabled == 0, "B freed its framebuffer, the source still shows it: enabled %u", g.enabled);
  printf("  display: A's source 0 refused to B (mode, off, flip), readable and captured by B; off "
         "once A went, then B's until B freed its framebuffer\n");
  sgpu_destroy_context(cb);
  sgpu_close(b);
  if (!failures) printf("OK isolate\n");
  return failures != 0;
}

/* ------------------------------------------------------------ errors */
static void show(sgpu_device *dev, const char *what, int r) {
  printf("%s: %d %s | %s\n", what, r, sgpu_strerror(r), r < 0 ? sgpu_last_error(dev) : "");
}

static int cmd_errors(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx = NULL;
  uint64_t a = 0, cmd = 0;
  show(dev, "context on node 9", sgpu_create_context(dev, 9, &ctx));
  {
    uint32_t v = 0;
    sgpu_ring_info ri;
    show(dev, "register read misaligned", sgpu_reg_read(dev, 2, &v));
    show(dev, "register read past the block", sgpu_reg_read(dev, 0x1000, &v));
    show(dev, "register read ID", sgpu_reg_read(dev, SGPU_REG_ID, &v));
    printf("  ID 0x%08x\n", v);
    show(dev, "register write misaligned", sgpu_reg_write(dev, 3, 0));
    show(dev, "register write ID (read-only)", sgpu_reg_write(dev, SGPU_REG_ID, 1));
    show(dev, "register write SCRATCH", sgpu_reg_write(dev, SGPU_REG_SCRATCH, 0x5a5a5a5au));
    show(dev, "register read SCRATCH", sgpu_reg_read(dev, SGPU_REG_SCRATCH, &v));
    printf("  SCRATCH 0x%08x\n", v);
    show(dev, "ring info of node 9", sgpu_get_ring_info(dev, 9, &ri));
    show(dev, "ring info of node 0", sgpu_get_ring_info(dev, 0, &ri));
    printf("  ring 0x%x+%u\n", ri.base, ri.size); /* wptr: the server has served others */
    show(dev, "areas NULL with max 1", sgpu_get_areas(dev, NULL, 1));
  }
  show(dev, "window misaligned", sgpu_create_context_windowed(dev, 0, 2, 64, &ctx));
  show(dev, "alloc segment 3", sgpu_alloc(dev, 3, 64, 0, &a));
  show(dev, "alloc alignment 3", sgpu_alloc(dev, 1, 64, 3, &a));
  show(dev, "alloc too big", sgpu_alloc(dev, 1, 0x40000000u, 0, &a));
  show(dev, "free never allocated", sgpu_free(dev, 0x123450));
  show(dev, "read beyond memory", sgpu_read(dev, 0xFFFFFF00u, &a, 8));
  show(dev, "read host unallocated", sgpu_read(dev, SGPU_HOST_ADDRESS_BASE + 0x1000, &a, 8));
  show(dev, "wait node 7", sgpu_wait_fence(dev, 7, 1, 10));
  show(dev, "wait unsubmitted", sgpu_wait_fence(dev, 0, 3, 10));
  show(dev, "fence info node 5", sgpu_get_fence(dev, 5, &(sgpu_fence_info){0}));
  sgpu_event ev;
  show(dev, "next event", sgpu_next_event(dev, &ev, 0));
  TRY(dev, sgpu_create_context(dev, 0, &ctx));
  sgpu_submit_command_args s = nop_submission(dev, ctx, &cmd);
  s.submission_fence_id = 0;
  show(dev, "fence 0", sgpu_submit_command(dev, &s));
  s.submission_fence_id = 1;
  s.flags.value = 0x8000;
  show(dev, "reserved flags (fence fine)", sgpu_submit_command(dev, &s));
  s.flags.value = 0;
  s.dma_buffer_submission_end_offset = 128;
  show(dev, "end offset beyond size", sgpu_submit_command(dev, &s));
  s.dma_buffer_submission_end_offset = 4;
  show(dev, "submit 1", sgpu_submit_command(dev, &s));
  show(dev, "submit 1 again", sgpu_submit_command(dev, &s));
  s.flags.value = 0x8000;
  show(dev, "reserved flags and a stale fence", sgpu_submit_command(dev, &s));
  s.flags.value = 0;
  s.node_ordinal = 3;
  show(dev, "node 3", sgpu_submit_command(dev, &s));
  s.node_ordinal = 0;
  s.context = NULL;
  show(dev, "NULL context", sgpu_submit_command(dev, &s));
  show(dev, "wait 1", sgpu_wait_fence(dev, 0, 1, 1000));
  show(dev, "wait 2", sgpu_wait_fence(dev, 0, 2, 10));
  /* A fill of 1 MiB takes longer than 2 ms: the wait times out. */
  uint64_t big, fillbuf;
  TRY(dev, sgpu_alloc(dev, 1, 1u << 20, 0, &big));
  TRY(dev, sgpu_alloc(dev, 1, 64, 0, &fillbuf));
  uint32_t fw[8];
  sgpu_cmdbuf fcb;
  sgpu_cmdbuf_init(&fcb, fw, sizeof fw);
  sgpu_cmd_fill(&fcb, (uint32_t)big, 4096, 4096, 256, 0x01020304);
  TRY(dev, sgpu_write(dev, fillbuf, fw, sgpu_cmdbuf_size(&fcb)));
  s.context = ctx;
  s.dma_buffer_physical_address = fillbuf;
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&fcb);
  s.submission_fence_id = 2;
  show(dev, "submit a long fill", sgpu_submit_command(dev, &s));
  show(dev, "wait 2 ms for it", sgpu_wait_fence(dev, 0, 2, 2));
  show(dev, "wait idle 1 ms", sgpu_wait_idle(dev, 1));
  show(dev, "wait for it", sgpu_wait_fence(dev, 0, 2, 10000));
  /* sgpu_validate_submit_command */
  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  v.commands = cmd;
  v.command_length = 4;
  v.context_count = 1;
  v.context[0] = ctx;
  show(dev, "validate a NOP", sgpu_validate_submit_command(dev, &v));
  v.flags.value = 2;
  show(dev, "validate reserved flags", sgpu_validate_submit_command(dev, &v));
  v.flags.value = 0;
  v.context_count = 0;
  show(dev, "validate no context", sgpu_validate_submit_command(dev, &v));
  v.context_count = 2;
  v.context[1] = NULL;
  show(dev, "validate a NULL context", sgpu_validate_submit_command(dev, &v));
  v.context_count = 1;
  v.command_length = 6;
  show(dev, "validate misaligned", sgpu_validate_submit_command(dev, &v));
  v.command_length = 4;
  v.commands = 0xFFFFFF00u;
  show(dev, "validate out of memory", sgpu_validate_submit_command(dev, &v));
  v.commands = cmd;
  v.hw_queue_progress_fence_id = 2;
  show(dev, "validate a passed progress fence", sgpu_validate_submit_command(dev, &v));
  v.hw_queue_progress_fence_id = 0;
  uint32_t bad = 0x12345678u;
  TRY(dev, sgpu_write(dev, cmd, &bad, 4));
  show(dev, "validate a bad header", sgpu_validate_submit_command(dev, &v));
  /* GPU virtual memory */
  {
    const uint32_t page = SGPU_PAGE_BYTES;
    sgpu_context *vc = NULL;
    uint64_t m = 0, va = 0;
    show(dev, "VM context on node 9", sgpu_create_context_vm(dev, 9, &vc));
    TRY(dev, sgpu_create_context_vm(dev, 0, &vc));
    TRY(dev, sgpu_alloc(dev, 1, 2 * page, page, &m));
    show(dev, "map into a physical context", sgpu_map(ctx, m, page, SGPU_MAP_READ, &va));
    show(dev, "map a misaligned address", sgpu_map(vc, m + 4, page, SGPU_MAP_READ, &va));
    show(dev, "map access 0", sgpu_map(vc, m, page, 0, &va));
    show(dev, "map past the allocation", sgpu_map(vc, m, 3 * page, SGPU_MAP_READ, &va));
    show(dev, "map free memory", sgpu_map(vc, (m + 64 * page) & ~(uint64_t)(page - 1), page, SGPU_MAP_READ, &va));
    show(dev, "unmap what is not mapped", sgpu_unmap(vc, page, page));
    show(dev, "unmap in a physical context", sgpu_unmap(ctx, page, page));
    sgpu_submit_command_args vs = s;
    vs.context = vc;
    vs.dma_buffer_physical_address = 0;
    vs.dma_buffer_virtual_address = 0x100000;
    vs.dma_buffer_submission_end_offset = 4;
    vs.submission_fence_id = 3;
    show(dev, "submit from an unmapped VA", sgpu_submit_command(dev, &vs));
    vs.context = ctx;
    vs.dma_buffer_physical_address = s.dma_buffer_physical_address; /* its own buffer */
    show(dev, "a VA in a physical context", sgpu_submit_command(dev, &vs));
    sgpu_destroy_context(vc);
    TRY(dev, sgpu_free(dev, m));
  }
  /* the display, the device-wide queries, raw writes and runs */
  {
    sgpu_info info;
    TRY(dev, sgpu_query_info(dev, &info));
    sgpu_display_mode m, g;
    memset(&m, 0, sizeof m);
    uint64_t fb;
    TRY(dev, sgpu_alloc(dev, 1, 32 * 24 * 2, 256, &fb));
    m.width = 32;
    m.height = 24;
    m.format = SGPU_FORMAT_RGB565;
    m.address = (uint32_t)fb;
    show(dev, "display mode of source 5", sgpu_get_display_mode(dev, 5, &g));
    show(dev, "set a mode on source 5", sgpu_set_display_mode(dev, 5, &m));
    m.width = 30;
    show(dev, "set 30x24", sgpu_set_display_mode(dev, 0, &m));
    m.width = 32;
    m.format = 7;
    show(dev, "set format 7", sgpu_set_display_mode(dev, 0, &m));
    m.format = SGPU_FORMAT_RGB565;
    m.address = info.mem_size - 4;
    show(dev, "set a framebuffer leaving memory", sgpu_set_display_mode(dev, 0, &m));
    m.address = (uint32_t)fb;
    show(dev, "set 32x24 on its own buffer", sgpu_set_display_mode(dev, 0, &m));
    show(dev, "get the mode", sgpu_get_display_mode(dev, 0, &g));
    printf("  %ux%u pitch %u enabled %u replication %u\n", g.width, g.height, g.pitch, g.enabled,
           g.replication_x);
    sgpu_frame fr;
    show(dev, "capture source 0", sgpu_capture_frame(dev, 0, &fr));
    printf("  frame %ux%u scanout is its buffer: %d\n", fr.width, fr.height,
           fr.scanout_address == (uint32_t)fb);
    sgpu_frame_release(&fr);
    sgpu_display_mode off;
    memset(&off, 0, sizeof off);
    show(dev, "turn source 1 off", sgpu_set_display_mode(dev, 1, &off));
    show(dev, "capture source 1 (off)", sgpu_capture_frame(dev, 1, &fr));
    show(dev, "capture source 4", sgpu_capture_frame(dev, 4, &fr));
    show(dev, "vsync events of source 7", sgpu_enable_vsync_events(dev, 7, 1));
    show(dev, "vsync events of source 0 on", sgpu_enable_vsync_events(dev, 0, 1));
    show(dev, "vsync events of source 0 off", sgpu_enable_vsync_events(dev, 0, 0));
    show(dev, "turn source 0 off", sgpu_set_display_mode(dev, 0, &off));
    sgpu_identity id;
    show(dev, "read the identity block", sgpu_read_identity(dev, &id));
    sgpu_link_stats ls;
    show(dev, "link stats", sgpu_get_link_stats(dev, &ls));
    uint32_t rtt = 0;
    show(dev, "ping", sgpu_ping(dev, 100, &rtt));
    show(dev, "ping with timeout 0", sgpu_ping(dev, 0, &rtt));
    uint32_t word = 0x600DF00Du, back = 0;
    show(dev, "raw write beyond memory", sgpu_write_raw(dev, info.mem_size, &word, 4));
    show(dev, "raw write of its own", sgpu_write_raw(dev, fb, &word, 4));
    TRY(dev, sgpu_read(dev, fb, &back, 4));
    printf("  reads 0x%08x\n", back);
    uint64_t c0 = 0, c1 = 0;
    TRY(dev, sgpu_get_cycles(dev, &c0));
    show(dev, "run 100 cycles", sgpu_run_cycles(dev, 100));
    TRY(dev, sgpu_get_cycles(dev, &c1));
    printf("  at least 100 cycles ran: %d\n", c1 - c0 >= 100);
    sgpu_event e;
    while (sgpu_next_event(dev, &e, 0) == 0) { /* vsyncs that came while on */
    }
    sgpu_free(dev, fb);
  }
  sgpu_free(dev, big);
  sgpu_free(dev, fillbuf);
  sgpu_destroy_context(ctx);
  sgpu_free(dev, cmd);
  sgpu_close(dev);
  return 0;
}

/* ------------------------------------------------------------ isolation, VM */
/* Two programs' VM contexts: B cannot map A's allocation; B's FILL through
 * its own mapping lands; a FILL aimed at A's physical address is a virtual
 * address B never mapped, refused by validation; the same FILL written into
 * B's own buffer by the GPU after validation faults PAGE_NOT_PRESENT (the
 * event names the address), the server resets the node at once, and A's
 * bytes are unchanged. */
static int cmd_isolate_vm(const char *uri) {
  sgpu_device *a = open_or_die(uri), *b = open_or_die(uri);
  sgpu_info in;
  TRY(a, sgpu_query_info(a, &in));
  CHECK(in.has_vm, "the device has no GPU virtual memory (CAPS.VM)");
  const uint32_t page = SGPU_PAGE_BYTES;
  sgpu_context *ca, *cb;
  TRY(a, sgpu_create_context_vm(a, 0, &ca));
  TRY(b, sgpu_create_context_vm(b, 0, &cb));
  CHECK(sgpu_context_is_vm(cb) == 1, "B's context is not a VM context");
  uint64_t x, va_x, bd, bc, vbd, vbc;
  TRY(a, sgpu_alloc(a, SGPU_SEGMENT_LOCAL, page, page, &x));
  TRY(a, sgpu_map(ca, x, page, SGPU_MAP_WRITE, &va_x));
  uint8_t pat[256], got[256];
  for (int i = 0; i < 256; i++) pat[i] = (uint8_t)(i * 13 + 5);
  TRY(a, sgpu_write(a, x, pat, sizeof pat));
  uint64_t va = 0;
  expect(b, sgpu_map(cb, x, page, SGPU_MAP_READ, &va), SGPU_ERROR_NOT_OWNER, "map another's allocation",
         "another program's");
  TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, page, page, &bd));
  TRY(b, sgpu_alloc(b, SGPU_SEGMENT_LOCAL, 2 * page, page, &bc));
  TRY(b, sgpu_map(cb, bd, page, SGPU_MAP_WRITE, &vbd));
  TRY(b, sgpu_map(cb, bc, 2 * page, SGPU_MAP_WRITE, &vbc));
  CHECK((x >= vbd && x < vbd + page) == 0 && (x >= vbc && x < vbc + 2 * page) == 0,
        "A's physical page 0x%llx is one of B's VAs", (unsigned long long)x);
  /* 1: B's FILL through its own mapping */
  uint32_t w[32];
  sgpu_cmdbuf k;
  sgpu_cmdbuf_init(&k, w, sizeof w);
  sgpu_cmd_fill(&k, (uint32_t)vbd, 64, 64, 1, 0x0B0B0B0Bu);
  TRY(b, sgpu_write(b, bc, w, sgpu_cmdbuf_size(&k)));
  sgpu_submit_command_args s;
  memset(&s, 0, sizeof s);
  s.context = cb;
  s.dma_buffer_virtual_address = vbc;
  s.dma_buffer_size = page;
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&k);
  s.submission_fence_id = 1;
  TRY(b, sgpu_submit_command(b, &s));
  TRY(b, sgpu_wait_fence(b, 0, 1, 10000));
  uint32_t v = 0;
  TRY(b, sgpu_read(b, bd, &v, 4));
  CHECK(v == 0x0B0B0B0Bu, "B's FILL through its mapping: 0x%08x", v);
  /* 2: a FILL at A's physical address: a VA B never mapped, refused */
  sgpu_cmdbuf_init(&k, w, sizeof w);
  sgpu_cmd_fill(&k, (uint32_t)x, 64, 64, 1, 0xEEEEEEEEu);
  TRY(b, sgpu_write(b, bc, w, sgpu_cmdbuf_size(&k)));
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&k);
  s.submission_fence_id = 2;
  expect(b, sgpu_submit_command(b, &s), SGPU_ERROR_PACKET_PAGE_NOT_PRESENT, "FILL at A's physical address",
         NULL);
  /* 3: the GPU rewrites B's validated FILL (second page of B's buffer) to
   * A's address before fetching it */
  uint32_t w2[32];
  sgpu_cmdbuf k2;
  sgpu_cmdbuf_init(&k2, w2, sizeof w2);
  sgpu_cmd_fill(&k2, (uint32_t)vbd, 64, 64, 1, 0xEEEEEEEEu); /* FILL's dst is word 1 */
  TRY(b, sgpu_write(b, bc + page, w2, sgpu_cmdbuf_size(&k2)));
  uint32_t evil = (uint32_t)x;
  sgpu_cmdbuf_init(&k, w, sizeof w);
  sgpu_cmd_write_data(&k, (uint32_t)vbc + page + 4, &evil, 1);
  TRY(b, sgpu_write(b, bc, w, sgpu_cmdbuf_size(&k)));
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&k);
  s.submission_fence_id = 3;
  TRY(b, sgpu_submit_command(b, &s));
  s.dma_buffer_virtual_address = vbc + page;
  s.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&k2);
  s.submission_fence_id = 4;
  TRY(b, sgpu_submit_command(b, &s)); /* validated: a FILL at vbd */
  TRY(b, sgpu_wait_fence(b, 0, 4, 10000)); /* through sgpud its fences pass, its work dropped */
  sgpu_event ev;
  int faulted = 0;
  while (sgpu_next_event(b, &ev, 1000) == 0) {
    if (ev.type != SGPU_EVENT_DMA_FAULTED) continue;
    faulted = 1;
    CHECK(ev.fault_reason == SGPU_FAULT_PAGE_NOT_PRESENT && ev.fault_va == x &&
              ev.fault_access == SGPU_ACCESS_WRITE && ev.fault_unit == SGPU_UNIT_2D && ev.fence_id == 4,
          "fault event: reason %u va 0x%llx access %u unit %u fence %u", ev.fault_reason,
          (unsigned long long)ev.fault_va, ev.fault_access, ev.fault_unit, ev.fence_id);
    break;
  }
  CHECK(faulted, "no DMA_FAULTED event for the rewritten FILL");
  TRY(a, sgpu_read(a, x, got, sizeof got));
  CHECK(!memcmp(got, pat, sizeof pat), "A's page changed under B's rewritten FILL");
  TRY(b, sgpu_read(b, bd, &v, 4));
  CHECK(v == 0x0B0B0B0Bu, "the faulting FILL wrote B's page: 0x%08x", v);
  printf("  VM: B's rewritten FILL faulted PAGE_NOT_PRESENT at va 0x%llx (A's page), nothing written\n",
         (unsigned long long)ev.fault_va);
  sgpu_destroy_context(ca);
  sgpu_destroy_context(cb);
  sgpu_close(a);
  sgpu_close(b);
  if (failures) return 1;
  printf("OK isolate-vm\n");
  return 0;
}

/* ------------------------------------------------------------ refused */
static void refused(sgpu_device *dev, const char *fn, int r, const char *why) {
  CHECK(r == SGPU_ERROR_NOT_SUPPORTED, "%s: %d, expected NOT_SUPPORTED", fn, r);
  CHECK(strstr(sgpu_last_error(dev), fn) && strstr(sgpu_last_error(dev), "is refused through sgpud: ") &&
            strstr(sgpu_last_error(dev), why),
        "%s: text '%s'", fn, sgpu_last_error(dev));
  printf("  %s: %s\n", fn, sgpu_last_error(dev));
}

/* The calls a program of a shared device may not make: NOT_SUPPORTED and
 * why; the carried device-wide ones work. */
static int cmd_unsupported(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  uint32_t v;
  uint64_t a = 0;
  sgpu_ring_info ri;
  sgpu_area ar[4];
  refused(dev, "sgpu_reset_engine", sgpu_reset_engine(dev, 0, NULL), "resets a faulted node itself");
  refused(dev, "sgpu_reset_from_timeout", sgpu_reset_from_timeout(dev),
          "resets a faulted node itself");
  refused(dev, "sgpu_set_ban_threshold", sgpu_set_ban_threshold(dev, 1), "the same for every program");
  /* carried: reads of any register, the ring's view, the areas (another
   * program's allocation named so); writes to SCRATCH only */
  expect(dev, sgpu_reg_write(dev, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), 0), SGPU_ERROR_NOT_OWNER,
         "write a ring register", "only SCRATCH (0x038) may be written");
  TRY(dev, sgpu_reg_write(dev, SGPU_REG_SCRATCH, 0x1234u));
  TRY(dev, sgpu_reg_read(dev, SGPU_REG_SCRATCH, &v));
  CHECK(v == 0x1234u, "SCRATCH reads 0x%x", v);
  TRY(dev, sgpu_get_ring_info(dev, 0, &ri));
  CHECK(ri.size > 0, "ring info: size %u", ri.size);
  int na = sgpu_get_areas(dev, ar, 4);
  CHECK(na > 4, "areas: %d", na);
  /* raw writes reach the program's own memory only: not the library's */
  expect(dev, sgpu_write_raw(dev, ri.base, &v, 4), SGPU_ERROR_NOT_OWNER, "raw write of the ring",
         "sgpu_write_raw reaches only the program's own");
  expect(dev, sgpu_write_raw(dev, ri.fence_address, &v, 4), SGPU_ERROR_NOT_OWNER,
         "raw write of the fence words", "sgpu_write_raw reaches only the program's own");
  /* vsync events: asked for, they come (time runs while the program waits) */
  uint64_t fb;
  TRY(dev, sgpu_alloc(dev, 1, 32 * 24 * 2, 256, &fb));
  sgpu_display_mode m;
  memset(&m, 0, sizeof m);
  m.width = 32;
  m.height = 24;
  m.address = (uint32_t)fb;
  TRY(dev, sgpu_set_display_mode(dev, 0, &m));
  TRY(dev, sgpu_enable_vsync_events(dev, 0, 1));
  sgpu_event ev;
  int r = sgpu_next_event(dev, &ev, 1000);
  CHECK(r == 0 && ev.type == SGPU_EVENT_CRTC_VSYNC && ev.source_id == 0 &&
            ev.scanout_address == (uint32_t)fb,
        "vsync event: %d type %u source %u scanout 0x%x", r, ev.type, ev.source_id, ev.scanout_address);
  TRY(dev, sgpu_enable_vsync_events(dev, 0, 0));
  while (sgpu_next_event(dev, &ev, 0) == 0) {
  }
  expect(dev, sgpu_next_event(dev, &ev, 50), SGPU_ERROR_TIMEOUT, "no vsync event once off", "no event");
  /* a run: the cycles pass */
  uint64_t c0 = 0, c1 = 0;
  TRY(dev, sgpu_get_cycles(dev, &c0));
  TRY(dev, sgpu_run_cycles(dev, 3 * SGPUD_MAX_RUN_CYCLES + 7)); /* in four requests */
  TRY(dev, sgpu_get_cycles(dev, &c1));
  CHECK(c1 - c0 >= 3 * SGPUD_MAX_RUN_CYCLES + 7, "run: %llu cycles", (unsigned long long)(c1 - c0));
  /* and the carried ones still work after them */
  TRY(dev, sgpu_alloc(dev, 1, 64, 0, &a));
  TRY(dev, sgpu_free(dev, a));
  sgpu_close(dev);
  if (!failures) printf("OK unsupported\n");
  return failures != 0;
}

/* ------------------------------------------------------------ limits */
/* Against a server started with --max-memory 65536 --max-contexts 2. */
static int cmd_limits(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  uint64_t a, b, c;
  sgpu_context *x, *y, *z;
  TRY(dev, sgpu_alloc(dev, 1, 40000, 0, &a));
  expect(dev, sgpu_alloc(dev, 1, 30000, 0, &b), SGPU_ERROR_OUT_OF_GPU_MEMORY, "alloc past the limit",
         "this program's limit of 65536 bytes");
  TRY(dev, sgpu_alloc(dev, 0, 25536, 0, &c)); /* segment 0 counts too: exactly at the limit */
  expect(dev, sgpu_alloc(dev, 2, 4, 0, &b), SGPU_ERROR_OUT_OF_GPU_MEMORY, "one more word", "limit");
  TRY(dev, sgpu_free(dev, a));
  TRY(dev, sgpu_alloc(dev, 2, 30000, 0, &b)); /* room again */
  TRY(dev, sgpu_create_context(dev, 0, &x));
  TRY(dev, sgpu_create_context(dev, 1, &y));
  expect(dev, sgpu_create_context(dev, 0, &z), SGPU_ERROR_BUSY, "a third context", "its limit");
  sgpu_destroy_context(x);
  TRY(dev, sgpu_create_context(dev, 0, &z));
  sgpu_destroy_context(y);
  sgpu_destroy_context(z);
  sgpu_close(dev);
  if (!failures) printf("OK limits\n");
  return failures != 0;
}

/* ------------------------------------------------------------ server lost */
/* Opens, says READY, waits for a line on stdin (the test kills the server
 * meanwhile), then every call fails cleanly with SGPU_ERROR_IO. */
static int cmd_lost(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx;
  TRY(dev, sgpu_create_context(dev, 0, &ctx));
  printf("READY\n");
  char line[16];
  if (!fgets(line, sizeof line, stdin)) {
  }
  sgpu_fence_info fi;
  uint64_t a;
  expect(dev, sgpu_get_fence(dev, 0, &fi), SGPU_ERROR_IO, "a call after the server died",
         "sgpud at "); /* the send fails (EPIPE) or the answer never comes (EOF) */
  expect(dev, sgpu_alloc(dev, 1, 64, 0, &a), SGPU_ERROR_IO, "the next call", "lost earlier");
  expect(dev, sgpu_wait_fence(dev, 0, 0, 1000), SGPU_ERROR_IO, "a wait", "lost earlier");
  sgpu_destroy_context(ctx); /* no answer needed */
  sgpu_close(dev);
  if (!failures) printf("OK lost\n");
  return failures != 0;
}

/* ------------------------------------------------------------ free bytes */
static int cmd_free(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_info info;
  TRY(dev, sgpu_query_info(dev, &info));
  printf("%llu %llu %llu\n", (unsigned long long)info.segment[0].free,
         (unsigned long long)info.segment[1].free, (unsigned long long)info.segment[2].free);
  sgpu_close(dev);
  return 0;
}

/* ------------------------------------------------------------ hostile */
static int cmd_hostile(const char *path, const char *mode) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
    printf("FAIL connect %s: %s\n", path, strerror(errno));
    return 1;
  }
  uint32_t hdr[2];
  if (!strcmp(mode, "oversize")) {
    hdr[0] = 0x7FFFFFFF;
    hdr[1] = 1;
  } else { /* half: a header promising 64 bytes, then 10 of them */
    hdr[0] = 64;
    hdr[1] = 1;
  }
  if (send(fd, hdr, sizeof hdr, MSG_NOSIGNAL) != sizeof hdr) return 1;
  if (strcmp(mode, "oversize")) send(fd, "0123456789", 10, MSG_NOSIGNAL);
  /* The server must close the connection (after an error answer, or none). */
  char buf[1024];
  for (;;) {
    ssize_t k = recv(fd, buf, sizeof buf, 0);
    if (k <= 0) break;
  }
  printf("OK hostile %s: closed by the server\n", mode);
  return 0;
}

/* ------------------------------------------------------------ idle */
static int cmd_idle(const char *uri, unsigned k) {
  sgpu_device **d = calloc(k, sizeof *d);
  for (unsigned i = 0; i < k; i++) d[i] = open_or_die(uri);
  printf("OPEN %u\n", k);
  char line[16];
  if (!fgets(line, sizeof line, stdin)) { /* until stdin closes */
  }
  for (unsigned i = 0; i < k; i++) sgpu_close(d[i]);
  free(d);
  return 0;
}

/* ------------------------------------------------------------ threads */
/* One program, two threads on one device: a thread waits for fence 2
 * before it is submitted; the main thread submits 1 and 2 meanwhile (it
 * must not be held until the wait times out), and the wait returns. */
typedef struct waiter_arg {
  sgpu_device *dev;
  int r;
  double done_at;
} waiter_arg;

static double now_s(void);
static void *waiter(void *v) {
  waiter_arg *a = v;
  a->r = sgpu_wait_fence(a->dev, 0, 2, 60000);
  a->done_at = now_s();
  return NULL;
}

static int cmd_threads(const char *uri) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx;
  TRY(dev, sgpu_create_context(dev, 0, &ctx));
  uint32_t w[4];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_nop(&cb, 0);
  /* Fence 1 first: fence 2 must not be ahead of the last submitted when
   * the waiter asks (the library's rule), so it waits on 2 after 1. */
  submit_words(dev, ctx, w, sgpu_cmdbuf_size(&cb), 1);
  sgpu_submit_command_args a;
  uint64_t buf;
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 64, 0, &buf));
  /* A WAIT_MEM on a word only the main thread will write: fence 2 cannot
   * pass until then, so the waiter really waits. */
  uint64_t word;
  uint32_t zero = 0, one = 1;
  TRY(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, 4, 0, &word));
  TRY(dev, sgpu_write(dev, word, &zero, 4));
  sgpu_cmdbuf_init(&cb, w, sizeof w);
  sgpu_cmd_wait_mem(&cb, (uint32_t)word, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  TRY(dev, sgpu_write(dev, buf, w, sgpu_cmdbuf_size(&cb)));
  a = submission_at(ctx, SGPU_SEGMENT_LOCAL, buf, 64, sgpu_cmdbuf_size(&cb));
  a.submission_fence_id = 2;
  TRY(dev, sgpu_submit_command(dev, &a));
  waiter_arg wa = {dev, 1, 0};
  pthread_t t;
  pthread_create(&t, NULL, waiter, &wa);
  struct timespec ts = {0, 100 * 1000000L};
  nanosleep(&ts, NULL); /* the waiter is (most likely) waiting now */
  /* The main thread is not held by the wait: it writes the word. */
  double t0 = now_s();
  TRY(dev, sgpu_write(dev, word, &one, 4));
  double t1 = now_s();
  pthread_join(t, NULL);
  CHECK(wa.r == 0, "the waiter's wait: %d (%s)", wa.r, sgpu_strerror(wa.r));
  sgpu_fence_info fi;
  TRY(dev, sgpu_get_fence(dev, 0, &fi));
  CHECK(fi.completed == 2, "completed %llu", (unsigned long long)fi.completed);
  printf("  the write while the other thread waited took %.1f ms (wall)\n", (t1 - t0) * 1e3);
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  if (!failures) printf("OK threads\n");
  return failures != 0;
}

/* ------------------------------------------------------------ garbage */
/* After a proper HELLO, n requests of every op (and unknown ones) with
 * random bodies of random sizes, each answer read before the next request
 * (waits get timeouts of 0..2 ms); the server must answer every one or
 * close the connection, and survive.  Prints how the answers went. */
static int recv_exact(int fd, void *p, size_t n) {
  uint8_t *b = p;
  while (n) {
    ssize_t k = recv(fd, b, n, 0);
    if (k <= 0) return -1;
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

/* A raw connection that has said a proper HELLO as NAME; -1 on failure. */
static int raw_hello(const char *path, const char *name) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) return -1;
  sgpud_hello_req hq;
  memset(&hq, 0, sizeof hq);
  hq.version = SGPUD_PROTO_VERSION;
  hq.info_size = sizeof(sgpu_info);
  hq.event_size = sizeof(sgpud_event);
  hq.stats_size = sizeof(sgpu_stats);
  hq.submit_size = sizeof(sgpud_submit_req);
  snprintf(hq.name, sizeof hq.name, "%s", name);
  sgpud_hdr h = {sizeof hq, SGPUD_OP_HELLO};
  send(fd, &h, sizeof h, MSG_NOSIGNAL);
  send(fd, &hq, sizeof hq, MSG_NOSIGNAL);
  uint8_t body[256];
  if (recv_exact(fd, &h, sizeof h) || h.size > sizeof body || recv_exact(fd, body, h.size)) {
    close(fd);
    return -1;
  }
  return fd;
}

/* One request (op, body of size bytes) on a raw connection: its status
 * (the error text, if any, in text), or 1 when no answer came. */
static int raw_call(int fd, uint32_t op, const void *body, uint32_t size, char *text, size_t text_size) {
  static uint8_t ans[SGPUD_MAX_BODY];
  sgpud_hdr h = {size, op};
  sgpud_status st;
  if (send(fd, &h, sizeof h, MSG_NOSIGNAL) != sizeof h ||
      (size && send(fd, body, size, MSG_NOSIGNAL) != (ssize_t)size))
    return 1;
  if (recv_exact(fd, &h, sizeof h) || h.size < sizeof st || h.size > sizeof ans ||
      recv_exact(fd, ans, h.size) || h.op != (op | SGPUD_REPLY))
    return 1;
  memcpy(&st, ans, sizeof st);
  size_t n = h.size - sizeof st < text_size - 1 ? h.size - sizeof st : text_size - 1;
  memcpy(text, ans + sizeof st, st.status < 0 ? n : 0);
  text[st.status < 0 ? n : 0] = 0;
  return st.status;
}

/* The new requests' edges, each refused with its code and the connection
 * kept: a frame read before any capture and past its end (offset + size
 * wrapping), a run longer than one request may ask, a short display mode,
 * sources that do not exist, a raw write whose data is not the size it
 * says, a mode whose numbers overflow. */
static int cmd_edges(const char *path) {
  int fd = raw_hello(path, "edges");
  if (fd < 0) {
    printf("FAIL edges: no connection to %s\n", path);
    return 1;
  }
  char text[SGPUD_MAX_TEXT + 1];
  struct {
    const char *what;
    uint32_t op, size;
    uint32_t body[32];
    int code;
  } c[] = {
      {"frame read before a capture", SGPUD_OP_FRAME_READ, 8, {0, 16}, SGPU_ERROR_INVALID_PARAM},
      {"frame read wrapping", SGPUD_OP_FRAME_READ, 8, {0xFFFFFFF0u, 0x20}, SGPU_ERROR_INVALID_PARAM},
      {"frame read too large", SGPUD_OP_FRAME_READ, 8, {0, SGPUD_MAX_DATA + 1}, SGPU_ERROR_INVALID_PARAM},
      {"a run of 2^40 cycles", SGPUD_OP_RUN_CYCLES, 8, {0, 0x100}, SGPU_ERROR_INVALID_PARAM},
      {"a display mode cut short", SGPUD_OP_SET_DISPLAY, 8, {0, 0}, SGPU_ERROR_INVALID_PARAM},
      {"a capture of source 7", SGPUD_OP_CAPTURE, 8, {7, 0}, SGPU_ERROR_INVALID_SOURCE},
      {"a capture of source 2^32-1", SGPUD_OP_CAPTURE, 8, {0xFFFFFFFFu, 0}, SGPU_ERROR_INVALID_SOURCE},
      {"vsync events of source 40", SGPUD_OP_ENABLE_VSYNC, 8, {40, 1}, SGPU_ERROR_INVALID_SOURCE},
      {"a mode of source 9", SGPUD_OP_GET_DISPLAY, 8, {9, 0}, SGPU_ERROR_INVALID_SOURCE},
      /* source 0, width 1, height 2^32-1, pitch 2^32-1, format 0, address 2^32-4 */
      {"a mode whose numbers overflow", SGPUD_OP_SET_DISPLAY, 8 + sizeof(sgpu_display_mode),
       {0, 0, 1, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0xFFFFFFFCu}, SGPU_ERROR_INVALID_MODE},
      /* address 0x10000, 4 bytes said, whole range the same, no data */
      {"a raw write without its data", SGPUD_OP_WRITE_RAW, sizeof(sgpud_mem_req),
       {0x10000, 0, 4, 0, 0x10000, 0, 4, 0}, SGPU_ERROR_INVALID_PARAM},
      {"a ping of 0 ms", SGPUD_OP_PING, 8, {0, 0}, SGPU_ERROR_INVALID_PARAM},
      {"a VM context on node 2^32-1", SGPUD_OP_CREATE_CONTEXT_VM, 8, {0xFFFFFFFFu, 0},
       SGPU_ERROR_INVALID_NODE},
      /* context, access, address (64-bit), size (64-bit) */
      {"a map into context 77", SGPUD_OP_MAP, sizeof(sgpud_map_req), {77, 1, 0x10000, 0, 0x1000, 0},
       SGPU_ERROR_INVALID_CONTEXT},
      {"an unmap in context 0", SGPUD_OP_UNMAP, sizeof(sgpud_map_req), {0, 0, 0x1000, 0, 0x1000, 0},
       SGPU_ERROR_INVALID_CONTEXT},
      {"a map cut short", SGPUD_OP_MAP, 8, {1, 1}, SGPU_ERROR_INVALID_PARAM},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    int r = raw_call(fd, c[i].op, c[i].body, c[i].size, text, sizeof text);
    CHECK(r == c[i].code, "%s: %d (%s), expected %d", c[i].what, r, text, c[i].code);
    printf("  %s: %d %s\n", c[i].what, r, text);
  }
  close(fd);
  if (!failures) printf("OK edges\n");
  return failures != 0;
}

static int cmd_garbage(const char *path, unsigned n, unsigned seed) {
  int fd = raw_hello(path, "garbage");
  if (fd < 0) return 1;
  static uint8_t body[SGPUD_MAX_BODY];
  sgpud_hdr h;
  srand(seed);
  unsigned ok = 0, refused = 0;
  for (unsigned i = 0; i < n; i++) {
    uint32_t op = 1 + (uint32_t)rand() % (SGPUD_OP_COUNT + 1); /* every op, and unknown ones */
    uint32_t size = (uint32_t)rand() % 5 == 0 ? (uint32_t)rand() % 2048 : (uint32_t)rand() % 160;
    for (uint32_t k = 0; k < size; k++) body[k] = (uint8_t)rand();
    if (rand() % 3 == 0) /* small numbers: more of them pass the first checks */
      for (uint32_t k = 0; k + 4 <= size; k += 4) {
        uint32_t v = (uint32_t)rand() % 4 == 0 ? 0x100000000ull >> 1 : (uint32_t)rand() % 4096;
        memcpy(body + k, &v, 4);
      }
    if (op == SGPUD_OP_WAIT_FENCE || op == SGPUD_OP_WAIT_IDLE || op == SGPUD_OP_NEXT_EVENT) {
      uint32_t t = (uint32_t)rand() % 3; /* no wait may park for long */
      if (size >= 12) memcpy(body + 8, &t, 4);
    }
    h.size = size;
    h.op = op;
    if (send(fd, &h, sizeof h, MSG_NOSIGNAL) != sizeof h ||
        (size && send(fd, body, size, MSG_NOSIGNAL) != (ssize_t)size))
      break;
    sgpud_hdr a;
    sgpud_status st;
    if (recv_exact(fd, &a, sizeof a) || a.size < sizeof st || a.size > sizeof body ||
        recv_exact(fd, body, a.size)) {
      printf("  request %u (op %u, %u bytes): connection closed\n", i, op, size);
      break;
    }
    memcpy(&st, body, sizeof st);
    if (a.op != (op | SGPUD_REPLY)) {
      printf("FAIL answer op 0x%x to request op %u\n", a.op, op);
      return 1;
    }
    if (st.status < 0) refused++;
    else ok++;
  }
  close(fd);
  printf("OK garbage: %u requests answered (%u refused), seed %u\n", ok + refused, refused, seed);
  return 0;
}

/* ------------------------------------------------------------ figures */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmd_bench(const char *uri, unsigned n) {
  sgpu_device *dev = open_or_die(uri);
  sgpu_context *ctx;
  uint64_t cmds;
  TRY(dev, sgpu_create_context(dev, 0, &ctx));
  sgpu_submit_command_args a = nop_submission(dev, ctx, &cmds);
  uint64_t c0 = 0, c1 = 0;
  sgpu_get_cycles(dev, &c0);
  double t0 = now_s(), tsub = 0;
  for (unsigned i = 1; i <= n; i++) {
    a.submission_fence_id = i;
    double s0 = now_s();
    TRY(dev, sgpu_submit_command(dev, &a));
    tsub += now_s() - s0;
    if (i % 32 == 0) TRY(dev, sgpu_wait_fence(dev, 0, i, 10000));
  }
  TRY(dev, sgpu_wait_fence(dev, 0, n, 10000));
  double t1 = now_s();
  sgpu_get_cycles(dev, &c1);
  sgpu_event ev;
  while (sgpu_next_event(dev, &ev, 0) == 0) {
  }
  /* A call that does the least: sgpu_get_fence. */
  sgpu_fence_info fi;
  double g0 = now_s();
  for (unsigned i = 0; i < n; i++) TRY(dev, sgpu_get_fence(dev, 0, &fi));
  double g1 = now_s();
  printf("RESULT %s: %u submissions (wait every 32) in %.3f s: %.0f submissions/s; "
         "%.1f us per sgpu_submit_command; %.1f us per sgpu_get_fence; %llu simulated cycles\n",
         uri, n, t1 - t0, n / (t1 - t0), tsub / n * 1e6, (g1 - g0) / n * 1e6,
         (unsigned long long)(c1 - c0));
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 3) {
    fprintf(stderr, "usage: bench_sgpud fences|victim|isolate|isolate-vm|errors|unsupported|free|hostile|bench ...\n");
    return 2;
  }
  const char *m = argv[1];
  if (!strcmp(m, "fences") && argc >= 5)
    return cmd_fences(argv[2], (unsigned)strtoul(argv[3], NULL, 0), (unsigned)strtoul(argv[4], NULL, 0));
  if (!strcmp(m, "victim")) return cmd_victim(argv[2]);
  if (!strcmp(m, "queue") && argc >= 4) return cmd_queue(argv[2], (unsigned)strtoul(argv[3], NULL, 0));
  if (!strcmp(m, "isolate")) return cmd_isolate(argv[2]);
  if (!strcmp(m, "isolate-vm")) return cmd_isolate_vm(argv[2]);
  if (!strcmp(m, "fault")) return cmd_fault(argv[2]);
  if (!strcmp(m, "threads")) return cmd_threads(argv[2]);
  if (!strcmp(m, "errors")) return cmd_errors(argv[2]);
  if (!strcmp(m, "unsupported")) return cmd_unsupported(argv[2]);
  if (!strcmp(m, "free")) return cmd_free(argv[2]);
  if (!strcmp(m, "limits")) return cmd_limits(argv[2]);
  if (!strcmp(m, "lost")) return cmd_lost(argv[2]);
  if (!strcmp(m, "hostile") && argc >= 4) return cmd_hostile(argv[2], argv[3]);
  if (!strcmp(m, "edges")) return cmd_edges(argv[2]);
  if (!strcmp(m, "garbage") && argc >= 5)
    return cmd_garbage(argv[2], (unsigned)strtoul(argv[3], NULL, 0), (unsigned)strtoul(argv[4], NULL, 0));
  if (!strcmp(m, "idle") && argc >= 4) return cmd_idle(argv[2], (unsigned)strtoul(argv[3], NULL, 0));
  if (!strcmp(m, "bench") && argc >= 4) return cmd_bench(argv[2], (unsigned)strtoul(argv[3], NULL, 0));
  fprintf(stderr, "bench_sgpud: bad arguments\n");
  return 2;
}
