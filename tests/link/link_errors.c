/* link_errors URI — a small workload over a damaged link (sgpu-sim
 * --link-errors): words written and read back, two submissions (a FILL and
 * WRITE_DATA, then WRITE_DATA again) and their fences.  Every result is
 * checked against what the workload itself computes (the pattern written,
 * the FILL and WRITE_DATA semantics of docs/interface.md), every fence must
 * complete exactly once, in order, and the link's counters
 * (sgpu_get_link_stats) are printed as "stat NAME VALUE" lines for the test
 * to compare with the faults the server reports having injected.
 * Exit 0 when everything checks, 1 with a one-line reason otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgpu.h"
#include "sgpu_hw.h"

#define DATA 0x210000u  /* words written and read back */
#define NDATA 96u
#define RECT 0x220000u  /* the FILL: 6 rows of 40 bytes, pitch 64 */
#define RECT_PITCH 64u
#define RECT_W 40u
#define RECT_H 6u
#define PATTERN 0x5AC3E10Fu
#define WORDS 0x221000u /* WRITE_DATA targets */

static sgpu_device *dev;

#define CHECK(x)                                                                        \
  do {                                                                                  \
    int r_ = (x);                                                                       \
    if (r_ < 0) {                                                                       \
      printf("FAIL %s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #x, sgpu_strerror(r_),    \
             sgpu_last_error(dev));                                                     \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

static void fail(const char *what) {
  printf("FAIL %s\n", what);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: link_errors URI\n");
    return 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  char msg[256];
  int r = sgpu_open_detail(argv[1], &dev, msg, sizeof msg);
  if (r) {
    printf("FAIL open %s: %s: %s\n", argv[1], sgpu_strerror(r), msg);
    return 1;
  }
  /* 1. words written and read back */
  uint32_t w[NDATA], back[NDATA];
  uint32_t s = 0x1234567u;
  for (uint32_t i = 0; i < NDATA; i++) w[i] = s = s * 1664525u + 1013904223u;
  CHECK(sgpu_write(dev, DATA, w, sizeof w));
  memset(back, 0, sizeof back);
  CHECK(sgpu_read(dev, DATA, back, sizeof back));
  if (memcmp(w, back, sizeof w)) fail("words read back differ from those written");
  printf("ok %u words written and read back\n", NDATA);

  /* 2. the rectangle's old contents and the WRITE_DATA targets: cleared
   * first (a link's chip keeps its memory between sessions) */
  uint8_t rect[RECT_PITCH * RECT_H], want[RECT_PITCH * RECT_H];
  for (uint32_t i = 0; i < sizeof rect; i++) rect[i] = (uint8_t)(i * 7u + 1u);
  CHECK(sgpu_write(dev, RECT, rect, sizeof rect));
  uint32_t zeros[4] = {0, 0, 0, 0};
  CHECK(sgpu_write(dev, WORDS, zeros, sizeof zeros));
  memcpy(want, rect, sizeof want);
  for (uint32_t y = 0; y < RECT_H; y++)
    for (uint32_t x = 0; x < RECT_W; x++)
      want[y * RECT_PITCH + x] = (uint8_t)(PATTERN >> (8u * (x & 3u)));

  /* 3. two submissions */
  sgpu_context *ctx;
  CHECK(sgpu_create_context(dev, 0, &ctx));
  uint64_t hb;
  CHECK(sgpu_alloc(dev, 0, 256, 16, &hb));
  uint32_t cmd[64];
  sgpu_cmdbuf cb;
  for (uint32_t k = 0; k < 2; k++) {
    sgpu_cmdbuf_init(&cb, cmd, sizeof cmd);
    uint32_t vals[3] = {0xA0000001u + k, 0xB0000002u + k, 0xC0000003u + k};
    if (k == 0) sgpu_cmd_fill(&cb, RECT, RECT_PITCH, RECT_W, RECT_H, PATTERN);
    sgpu_cmd_write_data(&cb, WORDS + 4u * k, vals, 3);
    CHECK(sgpu_cmdbuf_error(&cb));
    CHECK(sgpu_write(dev, hb, cmd, sgpu_cmdbuf_size(&cb)));
    sgpu_submit_command_args a;
    memset(&a, 0, sizeof a);
    a.context = ctx;
    a.dma_buffer_segment_id = 0;
    a.dma_buffer_physical_address = hb;
    a.dma_buffer_size = 256;
    a.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&cb);
    a.submission_fence_id = k + 1;
    CHECK(sgpu_submit_command(dev, &a));
  }
  CHECK(sgpu_wait_fence(dev, 0, 2, 60000));

  /* 4. fences: each completed once, in order */
  sgpu_event ev;
  uint32_t done[8], ndone = 0;
  while (sgpu_next_event(dev, &ev, 0) == 0) {
    if (ev.type == SGPU_EVENT_DMA_FAULTED) fail("a submission faulted");
    if (ev.type == SGPU_EVENT_DMA_COMPLETED && ndone < 8) done[ndone++] = ev.fence_id;
  }
  if (ndone != 2 || done[0] != 1 || done[1] != 2) {
    printf("FAIL %u completion events (fences", ndone);
    for (uint32_t i = 0; i < ndone; i++) printf(" %u", done[i]);
    printf("), want fences 1 and 2 once each\n");
    return 1;
  }
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(dev, 0, &fi));
  if (fi.submitted != 2 || fi.completed != 2 || fi.pending || fi.faulted)
    fail("node 0 fence state is not 2 submitted, 2 completed, none pending");
  printf("ok fences 1 and 2 completed once each, in order\n");

  /* 5. what the submissions wrote */
  uint8_t got[sizeof rect];
  CHECK(sgpu_read(dev, RECT, got, sizeof got));
  for (uint32_t i = 0; i < sizeof got; i++)
    if (got[i] != want[i]) {
      printf("FAIL rectangle byte %u (row %u, column %u) is %02x, want %02x\n", i, i / RECT_PITCH,
             i % RECT_PITCH, got[i], want[i]);
      return 1;
    }
  /* the second WRITE_DATA, one word further on, overwrote words 1 and 2 */
  uint32_t words[4], wwant[4] = {0xA0000001u, 0xA0000002u, 0xB0000003u, 0xC0000004u};
  CHECK(sgpu_read(dev, WORDS, words, sizeof words));
  for (uint32_t i = 0; i < 4; i++)
    if (words[i] != wwant[i]) {
      printf("FAIL WRITE_DATA word %u is 0x%08x, want 0x%08x\n", i, words[i], wwant[i]);
      return 1;
    }
  printf("ok the FILL and both WRITE_DATA wrote what they say, nothing else\n");

  sgpu_link_stats st;
  CHECK(sgpu_get_link_stats(dev, &st));
  printf("stat frames_sent %llu\nstat frames_received %llu\nstat retransmissions %llu\n"
         "stat timeouts %llu\nstat naks %llu\nstat crc_errors %llu\nstat rejected %llu\n"
         "stat duplicates %llu\nstat events %llu\nstat events_missed %llu\n"
         "stat burst_words %u\n",
         (unsigned long long)st.frames_sent, (unsigned long long)st.frames_received,
         (unsigned long long)st.retransmissions, (unsigned long long)st.timeouts,
         (unsigned long long)st.naks, (unsigned long long)st.crc_errors,
         (unsigned long long)st.rejected, (unsigned long long)st.duplicates,
         (unsigned long long)st.events, (unsigned long long)st.events_missed, st.burst_words);
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  return 0;
}
