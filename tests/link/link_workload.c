/* link_workload [--small] URI [FRAME.png] — one workload on any device:
 * fills, a copy, a flip, fences, a fault and its reset, a preemption.  Prints the
 * fence/event log and checksums of the two framebuffers and of a captured
 * frame (also written to FRAME.png when given); the same workload through
 * sim, tcp:, serial: and sgpu-sim --board must print the same text
 * (test_link_three_ways.sh, test_link_boards.sh).
 *
 * Two sizes of the same steps: a 320x240 RGB565 display (pitch 640,
 * 153,600 bytes a framebuffer), or with --small 160x120 (pitch 320,
 * 38,400 bytes) for the smallest board: the iCEBreaker has 128 KiB of GPU
 * memory (segments 1 and 2 of 64 KiB), and each byte of a readback crosses
 * a simulated 3 Mbaud UART.  Every rectangle of the small workload is the
 * large one's halved (in pixels) on a framebuffer of half the size shown
 * with twice the replication, so the frame on the screen is the same to
 * the pixel: the same frame checksum.  Every buffer is taken from the
 * device's own segments (framebuffer 0 in segment 1, 1 in segment 2, as
 * the device reports them) instead of fixed addresses, so the workload
 * runs unchanged on every device, and the log names addresses relative to
 * their buffers (the fault's address as "lbuf+0x400", the frame's scanout
 * as "fb1").  Each of the first two submissions is waited for before the
 * next goes: an event's last completed fence is what the library read
 * when it retired it, and back to back a slow link can show fence 1
 * retired with fence 2 already done ("fence 1 last 2" was seen once on the
 * iCEBreaker), a timing the log should not depend on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgpu.h"
#include "sgpu_hw.h"

/* The display's size: the large workload, halved with --small (sc = 1). */
static uint32_t sc = 2, W = 320, HGT = 240, PITCH = 640, FB_BYTES = 640 * 240;

static sgpu_device *dev;
static sgpu_context *ctx;
static uint64_t hbuf; /* segment-0 command buffers */
static uint64_t lbuf; /* segment-1 scratch (fault set-up) */
static uint32_t fb0, fb1;

#define CHECK(x)                                                                       \
  do {                                                                                 \
    int r_ = (x);                                                                      \
    if (r_ < 0) {                                                                      \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #x, sgpu_strerror(r_), \
              sgpu_last_error(dev));                                                   \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static uint32_t fnv(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

/* An address as the log names it: relative to the buffer that holds it. */
static void name_addr(char *out, size_t n, uint32_t a) {
  if (a >= fb0 && a < fb0 + FB_BYTES) snprintf(out, n, "fb0+0x%x", a - fb0);
  else if (a >= fb1 && a < fb1 + FB_BYTES) snprintf(out, n, "fb1+0x%x", a - fb1);
  else if (a >= (uint32_t)lbuf && a < (uint32_t)lbuf + 4096) snprintf(out, n, "lbuf+0x%x", a - (uint32_t)lbuf);
  else snprintf(out, n, "0x%x (outside the workload's buffers)", a);
}

/* Submit the DMA buffer range [off, off + bytes) of an allocation of 4 KiB at
 * addr in segment seg (the words are already there). */
static void submit_at(uint32_t seg, uint64_t addr, uint32_t off, uint32_t bytes, uint32_t fence,
                      uint32_t flags) {
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = ctx;
  a.dma_buffer_segment_id = seg;
  a.dma_buffer_physical_address = addr;
  a.dma_buffer_size = 4096;
  a.dma_buffer_submission_start_offset = off;
  a.dma_buffer_submission_end_offset = off + bytes;
  a.submission_fence_id = fence;
  a.flags.value = flags;
  if (flags & SGPU_SUBMIT_FLIP) a.flip_interval = SGPU_FLIP_INTERVAL_ONE;
  CHECK(sgpu_submit_command(dev, &a));
}

static void submit(const uint32_t *words, uint32_t bytes, uint32_t fence, uint32_t flags) {
  CHECK(sgpu_write(dev, hbuf, words, bytes));
  submit_at(0, hbuf, 0, bytes, fence, flags);
}

static void log_events(void) {
  sgpu_event ev;
  while (sgpu_next_event(dev, &ev, 0) == 0) {
    if (ev.type == SGPU_EVENT_DMA_FAULTED) {
      char where[64];
      name_addr(where, sizeof where, ev.fault_address);
      printf("event FAULTED node %u reason %u addr %s opcode 0x%08x fence %u\n", ev.node_ordinal,
             ev.fault_reason, where, ev.fault_opcode, ev.fence_id);
    } else if (ev.type != SGPU_EVENT_CRTC_VSYNC) {
      printf("event %u node %u fence %u last %u\n", ev.type, ev.node_ordinal, ev.fence_id,
             ev.last_completed_fence_id);
    }
  }
}

static void fb_sum(const char *name, uint32_t addr) {
  static uint8_t px[640 * 240];
  CHECK(sgpu_read(dev, addr, px, FB_BYTES));
  printf("%s fnv %08x\n", name, fnv(px, FB_BYTES));
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--small") == 0) {
    sc = 1; W = 160; HGT = 120; PITCH = 320; FB_BYTES = 320 * 120;
    argc--; argv++;
  }
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: link_workload [--small] URI [FRAME.png]\n");
    return 1;
  }
  char msg[256];
  int r = sgpu_open_detail(argv[1], &dev, msg, sizeof msg);
  if (r) {
    fprintf(stderr, "open %s: %s: %s\n", argv[1], sgpu_strerror(r), msg);
    return 1;
  }
  CHECK(sgpu_create_context(dev, 0, &ctx));
  CHECK(sgpu_alloc(dev, 0, 4096, 16, &hbuf));
  CHECK(sgpu_alloc(dev, 1, 4096, 16, &lbuf));
  uint64_t a;
  CHECK(sgpu_alloc(dev, 1, FB_BYTES, 256, &a));
  fb0 = (uint32_t)a;
  CHECK(sgpu_alloc(dev, 2, FB_BYTES, 256, &a));
  fb1 = (uint32_t)a;
  sgpu_display_mode m;
  memset(&m, 0, sizeof m);
  m.width = W;
  m.height = HGT;
  m.pitch = PITCH;
  m.format = SGPU_FORMAT_RGB565;
  m.address = fb0;
  CHECK(sgpu_set_display_mode(dev, 0, &m));

  uint32_t words[256];
  sgpu_cmdbuf cb;
  /* 1: clear both framebuffers */
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, fb0, PITCH, PITCH, HGT, 0x001F001Fu);
  sgpu_cmd_fill(&cb, fb1, PITCH, PITCH, HGT, 0x07E007E0u);
  submit(words, sgpu_cmdbuf_size(&cb), 1, 0);
  CHECK(sgpu_wait_fence(dev, 0, 1, 20000));
  /* 2: rectangles and a copy from fb0 into fb1 */
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, fb0 + sc * (10 * PITCH + 20), PITCH, sc * 100, sc * 50, 0xF800F800u);
  sgpu_cmd_fill(&cb, fb0 + sc * (75 * PITCH + 150), PITCH, sc * 32, sc * 30, 0x12345678u);
  sgpu_cmd_copy(&cb, fb1 + sc * (30 * PITCH + 50), PITCH, fb0 + sc * (5 * PITCH + 10), PITCH,
                sc * 200, sc * 60);
  uint32_t data[3] = {0xA1, 0xB2, 0xC3};
  sgpu_cmd_write_data(&cb, (uint32_t)lbuf + 512, data, 3);
  submit(words, sgpu_cmdbuf_size(&cb), 2, 0);
  CHECK(sgpu_wait_fence(dev, 0, 2, 20000));
  /* 3: flip to fb1 */
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_flip(&cb, 0, fb1, 1, 0);
  submit(words, sgpu_cmdbuf_size(&cb), 3, SGPU_SUBMIT_FLIP);
  CHECK(sgpu_wait_fence(dev, 0, 3, 20000));
  printf("fences 1..3 done\n");
  log_events();

  /* 4 waits for a flag; 5's DMA buffer, in GPU memory, is corrupted behind
   * the library's back meanwhile (after its check, before the node fetches
   * it: one INDIRECT level, as every board nests); 6 is lost with the fault;
   * then the reset */
  uint32_t flag = (uint32_t)lbuf, ib = 1024;
  uint32_t zero = 0, nops[2] = {SGPU_PKT_HEADER(SGPU_OP_NOP, 0, 0), SGPU_PKT_HEADER(SGPU_OP_NOP, 0, 0)};
  CHECK(sgpu_write(dev, flag, &zero, 4));
  CHECK(sgpu_write(dev, lbuf + ib, nops, 8));
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_wait_mem(&cb, flag, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  submit(words, sgpu_cmdbuf_size(&cb), 4, 0);
  submit_at(1, lbuf, ib, 8, 5, 0);
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, fb0, PITCH, PITCH, 8, 0xFFFFFFFFu); /* lost with the fault */
  submit(words, sgpu_cmdbuf_size(&cb), 6, 0);
  uint32_t bad[2] = {SGPU_PKT_HEADER(0x3F, 0, 0), 0}, one = 1;
  CHECK(sgpu_write(dev, lbuf + ib, bad, 8));
  CHECK(sgpu_write(dev, flag, &one, 4));
  r = sgpu_wait_fence(dev, 0, 5, 20000);
  printf("wait fence 5: %s\n", sgpu_strerror(r));
  log_events();
  r = sgpu_reset_from_timeout(dev);
  printf("reset: %d dropped\n", r);
  log_events();
  /* 8 and 9 are preempted as they start and sent again with
   * flags.resubmission: the pixels are those they write alone.  (A board
   * with preemption stops inside 8's FILLs; one without drains 8 first;
   * either way every one of them runs once, so the log is the same.) */
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  for (uint32_t i = 0; i < 12; i++) /* long enough to be running when the request arrives */
    sgpu_cmd_fill(&cb, fb0 + sc * (60 * PITCH / 2), PITCH, PITCH, HGT / 2, 0x01010101u * (i + 1));
  sgpu_cmd_fill(&cb, fb0 + sc * (120 * PITCH / 2), PITCH, sc * 300, sc * 40, 0x0F0F0F0Fu);
  sgpu_cmd_copy(&cb, fb0 + sc * (170 * PITCH / 2), PITCH, fb0 + sc * (118 * PITCH / 2), PITCH, sc * 300,
                sc * 30);
  CHECK(sgpu_write(dev, hbuf, words, sgpu_cmdbuf_size(&cb)));
  uint32_t b8 = sgpu_cmdbuf_size(&cb);
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, fb1 + sc * (200 * PITCH / 2), PITCH, sc * 100, sc * 20, 0x33CC33CCu);
  CHECK(sgpu_write(dev, hbuf + 2048, words, sgpu_cmdbuf_size(&cb)));
  uint32_t b9 = sgpu_cmdbuf_size(&cb);
  submit_at(0, hbuf, 0, b8, 8, 0);
  submit_at(0, hbuf, 2048, b9, 9, 0);
  CHECK(sgpu_run_cycles(dev, 20000)); /* 8 is running */
  CHECK(sgpu_preempt(dev, 0, 1000));
  uint32_t preempted = 0;
  sgpu_event ev;
  while (sgpu_next_event(dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_PREEMPTED) preempted = ev.preempted_count;
  sgpu_info info;
  CHECK(sgpu_query_info(dev, &info));
  /* to stderr: it differs by board (stdout is compared between devices) */
  fprintf(stderr, "preempt: granularity %u, %u submissions preempted\n", info.preemption_granularity,
          preempted);
  if (preempted == 2) submit_at(0, hbuf, 0, b8, 8, SGPU_SUBMIT_RESUBMISSION);
  if (preempted >= 1) submit_at(0, hbuf, 2048, b9, 9, SGPU_SUBMIT_RESUBMISSION);
  CHECK(sgpu_wait_fence(dev, 0, 9, 20000));
  printf("preempted and sent again: fences 8, 9 done\n");
  while (sgpu_next_event(dev, &ev, 0) == 0) {
  }
  /* 10: the node runs again */
  sgpu_cmdbuf_init(&cb, words, sizeof words);
  sgpu_cmd_fill(&cb, fb1 + sc * 100 * PITCH, PITCH, sc * 160, sc * 10, 0x00FF00FFu);
  submit(words, sgpu_cmdbuf_size(&cb), 10, 0);
  CHECK(sgpu_wait_fence(dev, 0, 10, 20000));
  log_events();
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(dev, 0, &fi));
  printf("node 0 submitted %llu completed %llu pending %u faulted %u\n",
         (unsigned long long)fi.submitted, (unsigned long long)fi.completed, fi.pending,
         fi.faulted);
  uint32_t back[3];
  CHECK(sgpu_read(dev, lbuf + 512, back, 12));
  printf("write_data %x %x %x\n", back[0], back[1], back[2]);
  fb_sum("fb0", fb0);
  fb_sum("fb1", fb1);
  sgpu_frame f;
  CHECK(sgpu_capture_frame(dev, 0, &f));
  char where[64];
  name_addr(where, sizeof where, f.scanout_address);
  printf("frame %ux%u scanout %s fnv %08x\n", f.width, f.height, where,
         fnv(f.pixels, (size_t)f.width * f.height * 3));
  if (argc == 3) CHECK(sgpu_write_png(&f, argv[2]));
  sgpu_frame_release(&f);
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  return 0;
}
