// board_sim.cpp — board-level simulation of the iCEBreaker image: the whole
// of rtl/boards/icebreaker_top.v verilated (Vicebreaker_top) behind the C ABI
// of board_sim.h.  Only pins are touched: both clocks, the button, the UART
// RX pin driven bit by bit, the UART TX pin decoded, the DVI pins captured
// into frames and checked against VESA 640x480@60, the LEDs.  The UART and
// the frame capture are board_pins.h's, shared with the ULX3S harness.
//
// Time.  One time unit is 1/402 of the system period: the system clock
// (12 MHz) toggles every 201 units, the pixel clock (25.125 MHz = 12 MHz *
// 201 / 96) every 96 units, so the ratio of the two is exact.  Pixel edges
// sit at 96 j + 1: 201 k = 96 j + 1 has no solution (3 divides 201 and 96,
// not 1), so no pixel edge ever coincides with a system edge.  Each edge is
// one eval.

#include "board_sim.h"

#include <memory>
#include <vector>

#include "Vicebreaker_top.h"
#include "Vicebreaker_top___024root.h"
#include "board_pins.h"
#include "sgpu_hw.h"
#include "verilated.h"

namespace {

constexpr uint64_t kSysHalf = 201;  // time units per half period
constexpr uint64_t kPixHalf = 96;
constexpr uint64_t kPixPhase = 1;
constexpr uint32_t kSysHz = 12000000u;
constexpr uint32_t kCyclesPerBit = (kSysHz + SGPU_LINK_BAUD_ICEBREAKER / 2) / SGPU_LINK_BAUD_ICEBREAKER;

// The first timing mismatch of a frame, as vesa::check_timing reports it.
constexpr char kMismatch[] =
    "pixel clock %llu of the frame (line %u, x %u from DE start): hsync %d vsync %d de %d, expected %d %d %d";

}  // namespace

struct board_sim {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vicebreaker_top> m;
  uint64_t t = 0;                  // time units
  uint64_t next_sys = kSysHalf;    // next system clock toggle
  uint64_t next_pix = kPixPhase;   // next pixel clock toggle
  int sys_clk = 0, pix_clk = 0;
  uint64_t cycle = 0, pix_cycle = 0;
  uint64_t reset_release = 0;
  int button = 0;
  board_uart uart{kCyclesPerBit};
  // the bridge's strobes (tests/board/board.vlt makes them visible)
  uint64_t frames_ok = 0, frames_err = 0;
  // video: vsync counts as active before the first clock (the pin is low
  // while the flip-flops are at 0); a line that vsync cuts short counts
  board_video<board_frame, uint16_t> video{true, true, kMismatch};
  uint64_t vs_start_pix = 0;

  void eval() { m->eval(); }

  void sys_negedge() {
    // Drive the RX pin for the coming rising edge.
    m->uart_rx_i = uart.rx_pin();
    m->btn_ni = button ? 0 : 1;
  }

  void sys_posedge_sample() {
    if (!reset_release && (m->rootp->icebreaker_top__DOT__por_done_q) & 1u) reset_release = cycle;
    if (m->rootp->icebreaker_top__DOT__frame_ok & 1u) frames_ok++;
    if (m->rootp->icebreaker_top__DOT__frame_err & 1u) frames_err++;
    const bool tx = m->uart_tx_o != 0;
    if (!reset_release && !tx) uart.tx_errors++;
    uart.sample_tx(tx, cycle);
    cycle++;
  }

  void pix_posedge_sample() {
    const bool hs = m->dvi_hsync_o == 0, vs = m->dvi_vsync_o == 0, de = m->dvi_de_o != 0;
    const uint16_t rgb = (uint16_t)((m->dvi_r_o & 15u) << 8 | (m->dvi_g_o & 15u) << 4 | (m->dvi_b_o & 15u));
    if (video.pixel(hs, vs, de, rgb, cycle, [this] { finish_frame(); })) vs_start_pix = pix_cycle;
    pix_cycle++;
  }

  // The board's own figures beside the shared ones: the start in pixel
  // clocks and the timing as measured (informative; the check is exact).
  void finish_frame() {
    board_frame &f = video.finish_frame();
    const std::vector<uint8_t> &flags = video.flags;
    f.start_pix = vs_start_pix;
    {
      // hsync period and width, front porch: from the first full line
      int64_t hs0 = -1, hs1 = -1, hs_end = -1, de_end = -1;
      for (size_t i = 1; i < flags.size(); i++) {
        const bool hs = flags[i] & vesa::F_HS, phs = flags[i - 1] & vesa::F_HS;
        const bool de = flags[i] & vesa::F_DE, pde = flags[i - 1] & vesa::F_DE;
        if (!de && pde && de_end < 0 && hs0 < 0) de_end = (int64_t)i;
        if (hs && !phs) {
          if (hs0 < 0 && de_end >= 0) hs0 = (int64_t)i;
          else if (hs0 >= 0 && hs1 < 0) hs1 = (int64_t)i;
        }
        if (!hs && phs && hs0 >= 0 && hs_end < 0) hs_end = (int64_t)i;
        if (hs1 >= 0 && hs_end >= 0) break;
      }
      if (hs1 > hs0 && hs0 >= 0) f.h_total = (uint32_t)(hs1 - hs0);
      if (hs_end > hs0 && hs0 >= 0) f.hsync_width = (uint32_t)(hs_end - hs0);
      if (hs0 >= de_end && de_end >= 0) f.h_front_porch = (uint32_t)(hs0 - de_end);
    }
    if (f.h_total) {
      f.v_total = (uint32_t)((flags.size() + f.h_total / 2) / f.h_total);
      uint64_t vs_n = 0, last_de = 0;
      for (size_t i = 0; i < flags.size(); i++) {
        if (flags[i] & vesa::F_VS) vs_n++;
        if (flags[i] & vesa::F_DE) last_de = i;
      }
      f.vsync_lines = (uint32_t)((vs_n + f.h_total / 2) / f.h_total);
      // lines from the end of the last active line to the end of the frame
      const uint64_t after = flags.size() - (last_de + 1) + (vesa::HT - vesa::HA);
      f.v_front_porch = (uint32_t)(after / f.h_total);
    }
  }

  void step_event() {
    if (next_sys < next_pix) {
      t = next_sys;
      next_sys += kSysHalf;
      sys_clk ^= 1;
      if (!sys_clk) sys_negedge();
      m->clk_12m_i = (uint8_t)sys_clk;
      eval();
      if (sys_clk) sys_posedge_sample();
    } else {
      t = next_pix;
      next_pix += kPixHalf;
      pix_clk ^= 1;
      m->clk_pix_sim_i = (uint8_t)pix_clk;
      eval();
      if (pix_clk) pix_posedge_sample();
    }
  }

  void run_cycles(uint64_t n) {
    const uint64_t end = cycle + n;
    while (cycle < end) step_event();
  }
};

extern "C" {

board_sim *board_sim_create(void) {
  std::unique_ptr<board_sim> b(new (std::nothrow) board_sim);
  if (!b) return nullptr;
  try {
    b->ctx.reset(new VerilatedContext);
    b->ctx->randReset(0);  // power-on: flip-flops at 0, as the FPGA's are
    b->m.reset(new Vicebreaker_top(b->ctx.get(), "board"));
  } catch (...) {
    return nullptr;
  }
  b->m->clk_12m_i = 0;
  b->m->clk_pix_sim_i = 0;
  b->m->btn_ni = 1;
  b->m->uart_rx_i = 1;
  b->m->eval();
  return b.release();
}

void board_sim_destroy(board_sim *b) {
  if (!b) return;
  b->m->final();
  delete b;
}

void board_sim_run(board_sim *b, uint64_t cycles) { b->run_cycles(cycles); }
uint64_t board_sim_cycle(const board_sim *b) { return b->cycle; }
uint64_t board_sim_pix_cycle(const board_sim *b) { return b->pix_cycle; }
uint64_t board_sim_reset_release(const board_sim *b) { return b->reset_release; }

int board_sim_run_to_reset_release(board_sim *b, uint64_t max_cycles) {
  const uint64_t end = b->cycle + max_cycles;
  while (!b->reset_release && b->cycle < end) b->step_event();
  return b->reset_release ? 0 : -1;
}

void board_sim_button(board_sim *b, int held) {
  b->button = held ? 1 : 0;
  if (held) b->reset_release = 0;
}

uint32_t board_sim_leds(const board_sim *b) {
  return (b->m->led_red_no ? 0u : 1u) | (b->m->led_green_no ? 0u : 2u) | ((uint32_t)(b->m->led_o & 0x1Fu) << 2);
}

void board_sim_uart_send(board_sim *b, const void *data, size_t n) { b->uart.send(data, n); }
size_t board_sim_uart_sending(const board_sim *b) { return b->uart.sending(); }
size_t board_sim_uart_recv(board_sim *b, uint8_t *data, size_t max) { return b->uart.recv(data, max); }
uint64_t board_sim_uart_last_rx_cycle(const board_sim *b) { return b->uart.tx_last; }
uint64_t board_sim_frames_ok(const board_sim *b) { return b->frames_ok; }
uint64_t board_sim_frames_err(const board_sim *b) { return b->frames_err; }
int board_sim_irq(const board_sim *b) { return (b->m->rootp->icebreaker_top__DOT__irq & 1u) ? 1 : 0; }
int board_sim_booting(const board_sim *b) { return (b->m->rootp->icebreaker_top__DOT__booting & 1u) ? 1 : 0; }
uint64_t board_sim_uart_errors(const board_sim *b) { return b->uart.tx_errors; }

void board_sim_last_frame(board_sim *b, board_frame *f) { b->video.last_frame(f); }
uint64_t board_sim_frames(const board_sim *b) { return b->video.frames; }
uint64_t board_sim_bad_frames(const board_sim *b) { return b->video.bad_frames; }

uint64_t board_sim_run_until_frame(board_sim *b, uint64_t max_cycles) {
  const uint64_t start = b->cycle, frames = b->video.frames;
  while (b->cycle - start < max_cycles && b->video.frames == frames) b->step_event();
  return b->cycle - start;
}

}  // extern "C"
