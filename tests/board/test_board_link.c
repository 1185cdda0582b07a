/* test_board_link — the iCEBreaker image through its pins: the power-on
 * reset, then a host frame sequence on the UART RX pin at 3 Mbaud (encoded
 * with the host library's codec, answers decoded from the TX pin): PING,
 * identity registers, WRITE then READ of memory, a ring of FILL / COPY /
 * FENCE packets whose fence comes back both in memory and as an EVENT frame.
 * The framebuffer (read back over the link, and as captured from the DVI
 * pins at 160x120 RGB565 x4) must equal the C reference model
 * (tests/model/sgpu_ref) run on the same packets; every captured frame has
 * the VESA 640x480@60 timing.  Figures: cycles from power-on to reset
 * release, link round trips, FILL and COPY words per system cycle on the
 * SPRAM (TIMESTAMP packets around each blit, display off and on).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_link.h"
#include "sgpu_ref.h"

#define MEM 131072u
#define FB 0x00000000u
#define W 160u
#define H 120u
#define PITCH (W * 2u)
#define RING 0x0001C000u
#define RING_SIZE 0x1000u
#define FENCE 0x0001F000u
#define TS 0x0001F100u
#define SCRATCH_MEM 0x00014000u
#define IB1 0x0001E000u /* nesting check: a level-1 buffer and the level-2 one it names */
#define IB2 0x0001E100u

static uint32_t rnd(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static void ref_run_ring(sgpu_ref *ref, const uint32_t *words, size_t n, uint32_t *wptr) {
  for (size_t i = 0; i < n; i++) {
    BL_CHECK(sgpu_ref_mem_write(ref, RING + *wptr, &words[i], 4) == 0, "ref ring write");
    *wptr = (*wptr + 4u) & (RING_SIZE - 1u);
  }
  BL_CHECK(sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), *wptr) == 0, "ref doorbell");
}

/* Cycles of one blit from TIMESTAMP pairs: [ts a][blit][ts b] minus [ts c][ts d]. */
static double blit_cycles(board_link *l, bl_ring *r, const uint32_t *blit, size_t nblit, uint32_t fence) {
  uint32_t w[64];
  size_t n = 0;
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0);
  w[n++] = TS;
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0);
  w[n++] = TS + 8;
  memcpy(&w[n], blit, 4 * nblit);
  n += nblit;
  w[n++] = SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0);
  w[n++] = TS + 16;
  n = bl_pkt_fence(w, n, FENCE, fence, 0);
  bl_ring_submit(r, w, n);
  for (int tries = 0;; tries++) {
    uint32_t v;
    bl_read(l, FENCE, &v, 1);
    if (v == fence) break;
    BL_CHECK(tries < 200, "fence %u not written", fence);
    bl_run(l, 20000);
  }
  uint32_t ts[6];
  bl_read(l, TS, ts, 6);
  double empty = (double)(ts[2] - ts[0]);
  double with = (double)(ts[4] - ts[2]);
  return with - empty;
}

int main(void) {
  board_sim *b = board_sim_create();
  BL_CHECK(b, "board_sim_create");
  board_link l;
  bl_init(&l, b);

  /* ---- power-on reset: 2^11 system cycles; the TX pin stays idle */
  BL_CHECK(board_sim_run_to_reset_release(b, 200000) == 0, "reset never released");
  uint64_t rel = board_sim_reset_release(b);
  printf("reset released in system cycle %llu\n", (unsigned long long)rel);
  BL_CHECK(rel >= 2048 && rel < 2048 + 8, "reset released at cycle %llu, not 2^11 after power-on",
           (unsigned long long)rel);
  bl_figure("board_reset_release_cycles", (double)rel);
  bl_run(&l, 100);
  BL_EQ(board_sim_uart_errors(b), 0, "TX pin errors");
  /* the boot ROM draws the power-on screen first; the link is ours after it */
  uint64_t boot = bl_wait_boot(&l);
  printf("boot done (identity block DONE read) %llu cycles after the reset's release\n",
         (unsigned long long)boot);

  /* ---- PING and identity */
  uint64_t c0 = board_sim_cycle(b);
  uint32_t info = bl_ping(&l);
  uint64_t ping_cycles = board_sim_cycle(b) - c0;
  /* the receive FIFO the board table gives the iCEBreaker: version 3 with
   * one, version 2's rules (one frame in flight) without */
  BL_EQ(info & 0xFFu, SGPU_BOARD_ICEBREAKER_RX_FIFO_BYTES ? SGPU_LINK_VERSION : SGPU_LINK_VERSION_SINGLE,
        "PING version");
  BL_EQ((info >> 8) & 0xFFu, SGPU_LINK_MAX_WORDS, "PING max words");
  BL_EQ((info >> 16) & 0xFFu, SGPU_BOARD_ICEBREAKER_RX_FIFO_BYTES / SGPU_LINK_RX_FIFO_UNIT, "PING receive FIFO");
  BL_EQ(info >> 24, 0, "PING info reserved bits");
  BL_EQ(bl_rd(&l, SGPU_REG_ID), 0x53475055u, "ID");
  BL_EQ(bl_rd(&l, SGPU_REG_MEM_SIZE), MEM, "MEM_SIZE");
  uint32_t caps = bl_rd(&l, SGPU_REG_CAPS);
  BL_EQ((caps & SGPU_CAPS_NODES_MASK) >> SGPU_CAPS_NODES_SHIFT, 1, "CAPS nodes");
  BL_EQ((caps & SGPU_CAPS_SOURCES_MASK) >> SGPU_CAPS_SOURCES_SHIFT, 1, "CAPS sources");
  /* the UP5K build nests one INDIRECT level (rtl/boards/icebreaker_top.v) */
  BL_EQ((caps & SGPU_CAPS_IB_DEPTH_MASK) >> SGPU_CAPS_IB_DEPTH_SHIFT, 1, "CAPS IB_DEPTH");
  bl_figure("board_link_ping_cycles", (double)ping_cycles);

  /* ---- WRITE then READ: 300 random words (bursts of 64 and a short one) */
  uint32_t rng = 0xB0A4D;
  enum { NW = 300 };
  uint32_t wr[NW], rd[NW];
  for (int i = 0; i < NW; i++) wr[i] = rnd(&rng);
  c0 = board_sim_cycle(b);
  bl_write(&l, SCRATCH_MEM, wr, NW);
  uint64_t wcyc = board_sim_cycle(b) - c0;
  c0 = board_sim_cycle(b);
  bl_read(&l, SCRATCH_MEM, rd, NW);
  uint64_t rcyc = board_sim_cycle(b) - c0;
  for (int i = 0; i < NW; i++)
    BL_CHECK(rd[i] == wr[i], "word %d read back 0x%08x, wrote 0x%08x", i, rd[i], wr[i]);
  bl_figure("board_link_write_bytes_per_kcycle", 4000.0 * NW / (double)wcyc);
  bl_figure("board_link_read_bytes_per_kcycle", 4000.0 * NW / (double)rcyc);

  /* ---- the reference model, same memory, same ring */
  sgpu_ref_config rc = {MEM, 1, 1, 1};
  sgpu_ref *ref = sgpu_ref_create(&rc);
  BL_CHECK(ref, "sgpu_ref_create");
  BL_CHECK(sgpu_ref_mem_write(ref, SCRATCH_MEM, wr, sizeof wr) == 0, "ref write");

  /* framebuffer: random pixels, uploaded through the link */
  static uint32_t fb[W * H / 2];
  for (size_t i = 0; i < W * H / 2; i++) fb[i] = rnd(&rng);
  bl_write(&l, FB, fb, W * H / 2);
  BL_CHECK(sgpu_ref_mem_write(ref, FB, fb, sizeof fb) == 0, "ref fb");

  const uint32_t src0 = SGPU_SOURCE_REG(0, 0);
  bl_wr(&l, src0 + SGPU_SREG_DISP_PITCH, PITCH);
  bl_wr(&l, src0 + SGPU_SREG_DISP_BASE, FB);
  bl_wr(&l, src0 + SGPU_SREG_DISP_CONTROL,
        (1u << SGPU_DISP_ENABLE_SHIFT) | (2u << SGPU_DISP_CONTROL_HREP_SHIFT) |
            (2u << SGPU_DISP_CONTROL_VREP_SHIFT));
  BL_EQ(bl_rd(&l, src0 + SGPU_SREG_DISP_TIMING), (480u << 16) | 640u, "DISP_TIMING");

  bl_ring ring;
  bl_ring_init(&ring, &l, RING, RING_SIZE);
  BL_CHECK(sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_BASE), RING) == 0 &&
               sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_RING_SIZE), RING_SIZE) == 0 &&
               sgpu_ref_reg_write(ref, SGPU_NODE_REG(0, SGPU_NREG_CONTROL), 1) == 0,
           "ref ring");
  uint32_t ref_wptr = 0;
  bl_wr(&l, SGPU_REG_INT_ENABLE, SGPU_INT_DMA_COMPLETED(0));

  /* random FILL / COPY inside the framebuffer, any byte alignment, then a
   * FENCE with IRQ */
  uint32_t w[512];
  size_t n = 0;
  for (int k = 0; k < 24; k++) {
    uint32_t wb = 1 + rnd(&rng) % PITCH, h = 1 + rnd(&rng) % H;
    uint32_t x = rnd(&rng) % (PITCH - wb + 1), y = rnd(&rng) % (H - h + 1);
    if (k % 2 == 0) {
      n = bl_pkt_fill(w, n, FB + y * PITCH + x, PITCH, wb, h, rnd(&rng));
    } else {
      uint32_t sx = rnd(&rng) % (PITCH - wb + 1), sy = rnd(&rng) % (H - h + 1);
      n = bl_pkt_copy(w, n, FB + y * PITCH + x, PITCH, FB + sy * PITCH + sx, PITCH, wb, h);
    }
  }
  n = bl_pkt_fence(w, n, FENCE, 1, 1);
  bl_ring_submit(&ring, w, n);
  uint64_t doorbell = board_sim_cycle(b);
  ref_run_ring(ref, w, n, &ref_wptr);
  uint32_t st = 0;
  BL_CHECK(bl_wait_event(&l, 4000000, &st) == 0, "no EVENT frame after the fence");
  BL_CHECK(st & SGPU_INT_DMA_COMPLETED(0), "EVENT INT_STATUS 0x%08x without DMA_COMPLETED", st);
  printf("EVENT INT_STATUS 0x%08x %llu cycles after the doorbell's ACK\n", st,
         (unsigned long long)(l.event_cycle[0] - doorbell));
  bl_wr(&l, SGPU_REG_INT_STATUS, st);
  uint32_t fv;
  bl_read(&l, FENCE, &fv, 1);
  BL_EQ(fv, 1, "fence value in memory");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_LAST_FENCE)), 1, "LAST_FENCE");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED, 0, "node faulted");
  const uint8_t *rm = sgpu_ref_memory(ref);

  /* read back the first and last rows over the link */
  static uint32_t rb[PITCH / 4 * 8];
  bl_read(&l, FB, rb, PITCH / 4 * 8);
  BL_CHECK(memcmp(rb, rm + FB, sizeof rb) == 0, "framebuffer rows 0..7 differ from the reference");
  bl_read(&l, FB + (H - 8) * PITCH, rb, PITCH / 4 * 8);
  BL_CHECK(memcmp(rb, rm + FB + (H - 8) * PITCH, sizeof rb) == 0, "rows %u.. differ from the reference", H - 8);

  /* a whole frame from the pins, started after the fence */
  uint64_t after = board_sim_cycle(b);
  board_frame f;
  do {
    BL_CHECK(board_sim_run_until_frame(b, 600000) < 600000, "no frame");
    board_sim_last_frame(b, &f);
  } while (f.start_cycle < after);
  BL_CHECK(f.timing_ok, "frame timing: %s", f.timing_error);
  printf("frame %llu: %ux%u active, %u x %u, hsync %u after %u, vsync %u lines after %u\n",
         (unsigned long long)f.number, f.width, f.height, f.h_total, f.v_total, f.hsync_width,
         f.h_front_porch, f.vsync_lines, f.v_front_porch);
  BL_EQ(f.width, 640, "active width");
  BL_EQ(f.height, 480, "active height");
  BL_EQ(f.h_total, 800, "h total");
  BL_EQ(f.v_total, 525, "v total");
  BL_EQ(f.hsync_width, 96, "hsync width");
  BL_EQ(f.h_front_porch, 16, "h front porch");
  BL_EQ(f.vsync_lines, 2, "vsync lines");
  BL_EQ(f.v_front_porch, 10, "v front porch");
  for (uint32_t y = 0; y < 480; y++)
    for (uint32_t x = 0; x < 640; x++) {
      uint16_t p;
      memcpy(&p, rm + FB + (y / 4) * PITCH + (x / 4) * 2, 2);
      uint16_t e = bl_pin_rgb565(p);
      BL_CHECK(f.pixels[y * 640 + x] == e, "pixel (%u,%u) on the pins 0x%03x, reference 0x%03x", x, y,
               f.pixels[y * 640 + x], e);
    }
  BL_EQ(board_sim_bad_frames(b), 0, "frames with bad timing");
  BL_EQ(bl_rd(&l, src0 + SGPU_SREG_DISP_UNDERFLOW), 0, "DISP_UNDERFLOW");

  /* ---- FILL and COPY words per system cycle (display on, 160x120 RGB565 x4,
   * then off).  TIMESTAMP pairs bracket each blit; an empty pair is the
   * overhead. */
  uint32_t blit[8];
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) bl_wr(&l, src0 + SGPU_SREG_DISP_CONTROL, 0);
    size_t nb = bl_pkt_fill(blit, 0, 0x4000u, 1024, 1024, 64, 0x12345678u); /* 16384 words */
    double fc = blit_cycles(&l, &ring, blit, nb, 10 + 2 * (uint32_t)pass);
    nb = bl_pkt_copy(blit, 0, 0x14000u, 1024, 0x4000u, 1024, 1024, 32); /* 8192 words */
    double cc = blit_cycles(&l, &ring, blit, nb, 11 + 2 * (uint32_t)pass);
    printf("%s: FILL 16384 words in %.0f cycles, COPY 8192 words in %.0f cycles\n",
           pass ? "display off" : "display on (160x120 RGB565)", fc, cc);
    BL_CHECK(fc > 0 && cc > 0, "blit cycles");
    bl_figure(pass ? "board_fill_words_per_cycle" : "board_fill_words_per_cycle_scanout", 16384.0 / fc);
    bl_figure(pass ? "board_copy_words_per_cycle" : "board_copy_words_per_cycle_scanout", 8192.0 / cc);
  }
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED, 0, "node faulted");

  /* ---- CAPS.IB_DEPTH 1 is what the chip does: ring -> IB1 -> IB2 faults
   * NESTING at IB1's INDIRECT, as the reference model configured with one
   * level says, and nothing of IB2 runs */
  const uint32_t ib2[] = {SGPU_PKT_HEADER(SGPU_OP_NOP, 0, 0), SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, 0), FENCE, 99};
  const uint32_t ib1[] = {SGPU_PKT_HEADER(SGPU_OP_NOP, 0, 0), SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, 0), IB2,
                          sizeof ib2, 98};
  bl_write(&l, IB2, ib2, 4);
  bl_write(&l, IB1, ib1, 5);
  BL_CHECK(sgpu_ref_mem_write(ref, IB2, ib2, sizeof ib2) == 0 && sgpu_ref_mem_write(ref, IB1, ib1, sizeof ib1) == 0,
           "ref IBs");
  uint32_t nest[] = {SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, 0), IB1, sizeof ib1, 97};
  bl_ring_submit(&ring, nest, 4);
  ref_run_ring(ref, nest, 4, &ref_wptr);
  const sgpu_ref_fault *rf;
  BL_CHECK(sgpu_ref_faults(ref, &rf) == 1, "reference model: %zu faults, expected 1", sgpu_ref_faults(ref, &rf));
  BL_EQ(rf[0].reason, SGPU_FAULT_NESTING, "reference FAULT_REASON");
  BL_EQ(rf[0].addr, IB1 + 4, "reference FAULT_ADDR");
  for (int tries = 0; !(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_STATUS)) & SGPU_STATUS_FAULTED); tries++)
    BL_CHECK(tries < 100, "no fault after ring -> IB -> IB");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_FAULT_REASON)), rf[0].reason, "FAULT_REASON");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_FAULT_ADDR)), rf[0].addr, "FAULT_ADDR");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_FAULT_OPCODE)), rf[0].header, "FAULT_OPCODE");
  BL_EQ(bl_rd(&l, SGPU_NODE_REG(0, SGPU_NREG_FAULT_FENCE)), rf[0].fence, "FAULT_FENCE");
  uint32_t fv2;
  bl_read(&l, FENCE, &fv2, 1);
  BL_CHECK(fv2 != 99, "the level-2 buffer's FENCE ran");
  BL_EQ(board_sim_uart_errors(b), 0, "TX pin framing errors");
  bl_figure("board_link_frames", (double)l.frames_sent);
  printf("simulated %llu system cycles (%.1f ms)\n", (unsigned long long)board_sim_cycle(b),
         board_sim_cycle(b) / 12000.0);
  sgpu_ref_destroy(ref);
  board_sim_destroy(b);
  printf("test_board_link: PASS\n");
  return 0;
}
