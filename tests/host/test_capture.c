/* test_capture.c — sgpu_capture_frame timing against the RTL model:
 * back-to-back captures return consecutive frames exactly one frame period
 * apart and return in the cycle the frame ends; a late call gets a frame that
 * starts after it; scanout_address names the buffer the frame shows, also
 * when a flip is taken near the end of the frame being emitted. */
#include "host_test.h"

#define H(op, n, fl) SGPU_PKT_HEADER(SGPU_OP_##op, n, fl)
#define TINY_PERIOD ((uint64_t)SGPU_TIMING_TINY_H_TOTAL * SGPU_TIMING_TINY_V_TOTAL)
#define VGA_PERIOD ((uint64_t)SGPU_TIMING_VGA_H_TOTAL * SGPU_TIMING_VGA_V_TOTAL)
/* A capture returns in the cycle after the ending vsync plus one register read. */
#define RETURN_SLACK 64u
#define VIDEO_TIMING "frame timing of the video output in simulated cycles (a link capture reads the framebuffer being scanned out)"
/* The figures are simulated cycles: the model's, in-process or through
 * sgpud (the server's model; its time runs for this program's calls, no
 * other program works in the suite's servers), not a link's (wall clock). */
#define NEEDS_VIDEO_TIMING()                           \
  do {                                                 \
    if (!test_shared_device()) TEST_NEEDS_MODEL(VIDEO_TIMING); \
  } while (0)

static uint32_t px(const sgpu_frame *fr, uint32_t x, uint32_t y) {
  const uint8_t *p = fr->pixels + ((size_t)y * fr->width + x) * 3;
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* Two framebuffers filled by the GPU (red, blue) for a w x h RGB565 mode. */
static void setup_display(fixture *f, uint32_t w, uint32_t h, uint32_t fb[2]) {
  uint64_t a;
  for (int k = 0; k < 2; k++) {
    CHECK(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, w * h * 2, 256, &a));
    fb[k] = (uint32_t)a;
  }
  uint32_t cmd[] = {H(FILL, 5, 0), fb[0], w * 2, w * 2, h, 0xF800F800u,
                    H(FILL, 5, 0), fb[1], w * 2, w * 2, h, 0x001F001Fu};
  put(f, f->buf, cmd, 12);
  sgpu_submit_command_args s = fixture_args(f, sizeof cmd);
  CHECK(sgpu_submit_command(f->dev, &s));
  f->fence[0]++;
  CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(1000)));
  sgpu_display_mode m;
  memset(&m, 0, sizeof m);
  m.width = w;
  m.height = h;
  m.format = SGPU_FORMAT_RGB565;
  m.address = fb[0];
  CHECK(sgpu_set_display_mode(f->dev, 0, &m));
}

static void consecutive(const char *uri, uint32_t w, uint32_t h, uint64_t period) {
  NEEDS_VIDEO_TIMING();
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, uri), 0);
  sgpu_display_mode now;
  CHECK(sgpu_get_display_mode(f->dev, 0, &now));
  if (test_shared_device() && now.timing_width != (period == VGA_PERIOD ? SGPU_TIMING_VGA_H_ACTIVE
                                                                         : SGPU_TIMING_TINY_H_ACTIVE)) {
    /* through sgpud the URI's video= is not the program's: the server's
     * --device sets the timing */
    fprintf(stderr, "skipped on %s (the server's video timing): %s needs a server whose "
            "--device runs that timing (through sgpud the URI's video= is not the program's)\n",
            test_link_uri(), uri);
    fixture_close(f);
    skip();
  }
  uint32_t fb[2];
  setup_display(f, w, h, fb);
  sgpu_frame fr[4];
  uint64_t ret[4];
  for (int i = 0; i < 4; i++) {
    CHECK(sgpu_capture_frame(f->dev, 0, &fr[i]));
    CHECK(sgpu_get_cycles(f->dev, &ret[i]));
    printf("%s: capture %d: frame #%llu start %llu returned at %llu (+%llu after its end)\n", uri, i,
           (unsigned long long)fr[i].frame_number, (unsigned long long)fr[i].start_cycle,
           (unsigned long long)ret[i], (unsigned long long)(ret[i] - fr[i].start_cycle - period));
    /* Returned right when the frame ended, not a chunk of a frame later. */
    assert_true(ret[i] > fr[i].start_cycle + period);
    assert_true(ret[i] <= fr[i].start_cycle + period + RETURN_SLACK);
    assert_int_equal(fr[i].scanout_address, fb[0]);
    assert_true((px(&fr[i], 0, 0) >> 16) >= 0xF0);
  }
  for (int i = 1; i < 4; i++) {
    assert_int_equal(fr[i].frame_number, fr[0].frame_number + (uint64_t)i);
    assert_int_equal(fr[i].start_cycle - fr[i - 1].start_cycle, period);
    assert_int_equal(ret[i] - ret[i - 1], period);
  }
  for (int i = 0; i < 4; i++) sgpu_frame_release(&fr[i]);
  fixture_close(f);
}

static void test_consecutive_tiny(void **state) {
  (void)state;
  consecutive("sim:video=tiny", 32, 24, TINY_PERIOD);
}

static void test_consecutive_vga(void **state) {
  (void)state;
  consecutive("sim:video=vga", 320, 240, VGA_PERIOD);
}

/* After more than a frame without capturing, the frame returned starts after
 * the call (its successor stream is broken, nothing stale comes back). */
static void test_late_call(void **state) {
  (void)state;
  NEEDS_VIDEO_TIMING();
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint32_t fb[2];
  setup_display(f, 32, 24, fb);
  sgpu_frame a, b;
  CHECK(sgpu_capture_frame(f->dev, 0, &a));
  CHECK(sgpu_run_cycles(f->dev, TINY_PERIOD + TINY_PERIOD / 2));
  uint64_t call;
  CHECK(sgpu_get_cycles(f->dev, &call));
  CHECK(sgpu_capture_frame(f->dev, 0, &b));
  assert_true(b.start_cycle >= call);
  assert_true(b.start_cycle < call + TINY_PERIOD);
  assert_int_equal(b.frame_number, a.frame_number + 3);
  sgpu_frame_release(&a);
  sgpu_frame_release(&b);
  fixture_close(f);
}

/* Capture, queue a flip (interval 1, no host wait), capture, capture: the
 * frame being emitted while the flip is taken still shows the old buffer and
 * says so; the next one shows the new buffer. */
static void test_flip_between_captures(void **state) {
  (void)state;
  NEEDS_VIDEO_TIMING();
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint32_t fb[2];
  setup_display(f, 32, 24, fb);
  sgpu_frame a, b, c;
  CHECK(sgpu_capture_frame(f->dev, 0, &a));
  assert_int_equal(a.scanout_address, fb[0]);
  uint32_t fw[] = {H(FLIP, 3, 0), 0, fb[1], SGPU_FLIP_INTERVAL_ONE};
  put(f, f->buf, fw, 4);
  sgpu_submit_command_args s = fixture_args(f, sizeof fw);
  s.flags.flip = 1;
  s.flip_interval = SGPU_FLIP_INTERVAL_ONE;
  CHECK(sgpu_submit_command(f->dev, &s));
  f->fence[0]++;
  CHECK(sgpu_capture_frame(f->dev, 0, &b));
  CHECK(sgpu_capture_frame(f->dev, 0, &c));
  printf("flip: #%llu 0x%x %06x, #%llu 0x%x %06x, #%llu 0x%x %06x\n", (unsigned long long)a.frame_number,
         a.scanout_address, px(&a, 5, 5), (unsigned long long)b.frame_number, b.scanout_address,
         px(&b, 5, 5), (unsigned long long)c.frame_number, c.scanout_address, px(&c, 5, 5));
  assert_int_equal(b.frame_number, a.frame_number + 1);
  assert_int_equal(c.frame_number, a.frame_number + 2);
  assert_int_equal(b.scanout_address, fb[0]);
  assert_true((px(&b, 5, 5) >> 16) >= 0xF0 && (px(&b, 5, 5) & 0xFF) == 0);
  assert_int_equal(c.scanout_address, fb[1]);
  assert_true((px(&c, 5, 5) & 0xFF) >= 0xF0 && (px(&c, 5, 5) >> 16) == 0);
  CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(10)));
  sgpu_frame_release(&a);
  sgpu_frame_release(&b);
  sgpu_frame_release(&c);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_consecutive_tiny),
      cmocka_unit_test(test_consecutive_vga),
      cmocka_unit_test(test_late_call),
      cmocka_unit_test(test_flip_between_captures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
