/* test_board_flip — flips on the iCEBreaker image land at vblank, no torn
 * frame.
 *
 * Two 160x120 RGB565 framebuffers (shown x4) are drawn by the chip from a
 * ring of FILL packets, a different pattern on every row, so that a frame
 * mixing them anywhere shows.  A second ring batch then queues 12 FLIPs with
 * interval 1 (B, A, B, ...; waiting flips, ALLOW_TEARING never used) and 3
 * with interval 2, each followed by a FENCE, all at once.  Every frame from
 * the DVI pins is classified: it must equal exactly one whole buffer as the
 * reference model (tests/model/sgpu_ref) drew it.  The flip rule says what
 * the sequence of frames is once the first flip shows: one flip per vblank
 * for interval 1, every second vblank for interval 2, so each switch lands
 * on a frame boundary and no vblank is skipped or doubled.  Every frame has
 * the VESA timing; DISP_FLIP_COUNT, the last fence and DISP_UNDERFLOW are
 * checked at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_link.h"
#include "sgpu_ref.h"

#define MEM 131072u
#define W 160u
#define H 120u
#define PITCH (W * 2u)
#define BUF_A 0x00000000u
#define BUF_B 0x00009600u
#define RING 0x00018000u
#define RING_SIZE 0x4000u
#define FENCE 0x0001F000u
#define N1 12 /* interval 1 flips */
#define N2 3  /* interval 2 flips */

static uint16_t expect[2][480 * 640];

static void render(const uint8_t *mem, uint32_t base, uint16_t *out) {
  for (uint32_t y = 0; y < 480; y++)
    for (uint32_t x = 0; x < 640; x++) {
      uint16_t p;
      memcpy(&p, mem + base + (y / 4) * PITCH + (x / 4) * 2, 2);
      out[y * 640 + x] = bl_pin_rgb565(p);
    }
}

/* 0 = A, 1 = B; fails when the frame is neither (torn or wrong). */
static int classify(const board_frame *f, uint64_t k) {
  BL_CHECK(f->timing_ok, "frame %llu timing: %s", (unsigned long long)k, f->timing_error);
  BL_CHECK(f->width == 640 && f->height == 480, "frame %llu is %ux%u", (unsigned long long)k, f->width,
           f->height);
  for (int c = 0; c < 2; c++)
    if (memcmp(f->pixels, expect[c], sizeof expect[c]) == 0) return c;
  int line[2] = {-1, -1};
  for (int c = 0; c < 2; c++)
    for (int y = 0; y < 480 && line[c] < 0; y++)
      if (memcmp(f->pixels + y * 640, expect[c] + y * 640, 640 * 2) != 0) line[c] = y;
  bl_fail(__FILE__, __LINE__, "frame %llu (started in cycle %llu) is no whole buffer: differs from A "
          "from line %d, from B from line %d", (unsigned long long)k, (unsigned long long)f->start_cycle,
          line[0], line[1]);
}

int main(void) {
  board_sim *b = board_sim_create();
  BL_CHECK(b, "board_sim_create");
  board_link l;
  bl_init(&l, b);
  BL_CHECK(board_sim_run_to_reset_release(b, 200000) == 0, "reset never released");
  bl_wait_boot(&l); /* the power-on screen is drawn; the link is the test's */

  sgpu_ref_config rc = {MEM, 1, 1, 1}; /* the UP5K build: one INDIRECT level */
  sgpu_ref *ref = sgpu_ref_create(&rc);
  BL_CHECK(ref, "sgpu_ref_create");
  bl_ring ring;
  bl_ring_init(&ring, &l, RING, RING_SIZE);
  BL_CHECK(sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), RING) == 0 &&
               sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), RING_SIZE) == 0 &&
               sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 1) == 0,
           "ref ring");
  uint32_t ref_wptr = 0;

  /* ---- draw both buffers: per row, two FILLs (left and right part) */
  static uint32_t w[4096];
  size_t n = 0;
  uint32_t s = 0xF1F0u;
  for (int c = 0; c < 2; c++)
    for (uint32_t y = 0; y < H; y++) {
      uint32_t base = (c ? BUF_B : BUF_A) + y * PITCH, split = 4u * (1 + (y * 7 + (uint32_t)c * 13) % 70);
      s = s * 1103515245u + 12345u;
      n = bl_pkt_fill(w, n, base, PITCH, split, 1, s ^ (c ? 0xFFFF0000u : 0x0000FFFFu));
      s = s * 1103515245u + 12345u;
      n = bl_pkt_fill(w, n, base + split, PITCH, PITCH - split, 1, s);
    }
  n = bl_pkt_fence(w, n, FENCE, 1, 0);
  BL_CHECK(n * 4 < RING_SIZE, "ring too small");
  bl_ring_submit(&ring, w, n);
  for (size_t i = 0; i < n; i++) {
    BL_CHECK(sgpu_ref_mem_write(ref, RING + ref_wptr, &w[i], 4) == 0, "ref ring");
    ref_wptr = (ref_wptr + 4) & (RING_SIZE - 1);
  }
  BL_CHECK(sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), ref_wptr) == 0, "ref doorbell");
  uint32_t v = 0;
  for (int tries = 0; v != 1; tries++) {
    BL_CHECK(tries < 100, "drawing fence not written");
    bl_run(&l, 20000);
    bl_read(&l, FENCE, &v, 1);
  }
  const uint8_t *rm = sgpu_ref_memory(ref);
  render(rm, BUF_A, expect[0]);
  render(rm, BUF_B, expect[1]);
  BL_CHECK(memcmp(expect[0], expect[1], sizeof expect[0]) != 0, "buffers equal");
  {
    static uint32_t rb[PITCH / 4 * 4];
    bl_read(&l, BUF_B + 60 * PITCH, rb, PITCH / 4 * 4);
    BL_CHECK(memcmp(rb, rm + BUF_B + 60 * PITCH, sizeof rb) == 0, "buffer B rows 60..63 differ from the reference");
  }

  /* ---- show A; wait for a frame of it */
  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  bl_wr(&l, src0 + SGPU_SREG_DISP_PITCH, PITCH);
  bl_wr(&l, src0 + SGPU_SREG_DISP_BASE, BUF_A);
  bl_wr(&l, src0 + SGPU_SREG_DISP_CONTROL, (1u << SGPU_DISP_ENABLE_SHIFT) |
                                               (2u << SGPU_DISP_CONTROL_HREP_SHIFT) |
                                               (2u << SGPU_DISP_CONTROL_VREP_SHIFT));
  board_frame f;
  uint64_t after = board_sim_cycle(b);
  do {
    BL_CHECK(board_sim_run_until_frame(b, 600000) < 600000, "no frame");
    board_sim_last_frame(b, &f);
  } while (f.start_cycle < after);
  BL_EQ(classify(&f, f.number), 0, "first frame shows A");
  uint32_t flips0 = bl_rd(&l, src0 + SGPU_SREG_DISP_FLIP_COUNT);

  /* ---- the flips, all queued at once */
  n = 0;
  int expect_seq[N1 + 2 * N2];
  int ns = 0;
  for (int i = 0; i < N1 + N2; i++) {
    int to = (i % 2 == 0) ? 1 : 0; /* B, A, B, ... */
    n = bl_pkt_flip(w, n, 0, to ? BUF_B : BUF_A, i < N1 ? 1 : 2, 0);
    n = bl_pkt_fence(w, n, FENCE, 100 + (uint32_t)i, 0);
    if (i >= N1) expect_seq[ns++] = !to; /* interval 2: the previous buffer one more frame */
    expect_seq[ns++] = to;
  }
  bl_ring_submit(&ring, w, n);
  uint64_t doorbell = board_sim_cycle(b);
  /* capture without link traffic: one frame per run */
  enum { NF = N1 + 2 * N2 + 6 };
  int seen[NF];
  uint64_t start[NF];
  for (int k = 0; k < NF; k++) {
    BL_CHECK(board_sim_run_until_frame(b, 600000) < 600000, "no frame");
    board_sim_last_frame(b, &f);
    BL_CHECK(k == 0 || f.number == board_sim_frames(b), "frame lost");
    seen[k] = classify(&f, f.number);
    start[k] = f.start_cycle;
  }
  char txt[NF + 1];
  for (int k = 0; k < NF; k++) txt[k] = seen[k] ? 'B' : 'A';
  txt[NF] = 0;
  printf("frames after the doorbell: %s\n", txt);
  /* the first flip shows from the first or second frame starting after the
   * doorbell (it is taken at the first vblank after the command processor
   * reaches it) */
  int k0 = 0;
  while (k0 < NF && start[k0] < doorbell) k0++;
  int first = k0;
  while (first < NF && seen[first] == 0) first++;
  BL_CHECK(first < NF && first <= k0 + 1, "first flip shown at frame %d (first frame after the doorbell %d)",
           first, k0);
  for (int i = 0; i < ns; i++)
    BL_CHECK(seen[first + i] == expect_seq[i], "frame %d after the first flip shows %c, the flip rule says %c "
             "(sequence %s)", i, seen[first + i] ? 'B' : 'A', expect_seq[i] ? 'B' : 'A', txt);
  for (int k = first + ns; k < NF; k++)
    BL_EQ(seen[k], expect_seq[ns - 1], "buffer after the last flip");
  BL_EQ(bl_rd(&l, src0 + SGPU_SREG_DISP_FLIP_COUNT) - flips0, N1 + N2, "DISP_FLIP_COUNT");
  bl_read(&l, FENCE, &v, 1);
  BL_EQ(v, 100 + N1 + N2 - 1, "last fence");
  BL_EQ(bl_rd(&l, src0 + SGPU_SREG_DISP_BASE), expect_seq[ns - 1] ? BUF_B : BUF_A, "DISP_BASE");
  BL_EQ(bl_rd(&l, src0 + SGPU_SREG_DISP_UNDERFLOW), 0, "DISP_UNDERFLOW");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED, 0, "node faulted");
  BL_EQ(board_sim_bad_frames(b), 0, "frames with bad timing");
  bl_figure("board_flip_frames_checked", NF + 1);
  bl_figure("board_frame_sys_cycles", (double)(start[NF - 1] - start[NF - 2]));
  sgpu_ref_destroy(ref);
  board_sim_destroy(b);
  printf("test_board_flip: PASS\n");
  return 0;
}
