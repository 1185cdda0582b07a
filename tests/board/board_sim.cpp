// board_sim.cpp — board-level simulation of the iCEBreaker image: the whole
// of rtl/boards/icebreaker_top.v verilated (Vicebreaker_top) behind the C ABI
// of board_sim.h.  Only pins are touched: both clocks, the button, the UART
// RX pin driven bit by bit, the UART TX pin decoded, the DVI pins captured
// into frames and checked against VESA 640x480@60, the LEDs.
//
// Time.  One time unit is 1/402 of the system period: the system clock
// (12 MHz) toggles every 201 units, the pixel clock (25.125 MHz = 12 MHz *
// 201 / 96) every 96 units, so the ratio of the two is exact.  Pixel edges
// sit at 96 j + 1: 201 k = 96 j + 1 has no solution (3 divides 201 and 96,
// not 1), so no pixel edge ever coincides with a system edge.  Each edge is
// one eval.

#include "board_sim.h"

#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "Vicebreaker_top.h"
#include "Vicebreaker_top___024root.h"
#include "sgpu_hw.h"
#include "verilated.h"

namespace {

constexpr uint64_t kSysHalf = 201;  // time units per half period
constexpr uint64_t kPixHalf = 96;
constexpr uint64_t kPixPhase = 1;
constexpr uint32_t kSysHz = 12000000u;
constexpr uint32_t kCyclesPerBit = (kSysHz + SGPU_LINK_BAUD_ICEBREAKER / 2) / SGPU_LINK_BAUD_ICEBREAKER;

// VESA 640x480@60 (the generated VGA timing; its constants are checked
// against the VESA numbers by the tests).
constexpr uint32_t HA = SGPU_TIMING_VGA_H_ACTIVE, HFP = SGPU_TIMING_VGA_H_FP,
                   HS = SGPU_TIMING_VGA_H_SYNC, HT = SGPU_TIMING_VGA_H_TOTAL;
constexpr uint32_t VA = SGPU_TIMING_VGA_V_ACTIVE, VFP = SGPU_TIMING_VGA_V_FP,
                   VS = SGPU_TIMING_VGA_V_SYNC, VT = SGPU_TIMING_VGA_V_TOTAL;
static_assert(HA == 640 && HFP == 16 && HS == 96 && HT == 800, "VESA 640x480 horizontal");
static_assert(VA == 480 && VFP == 10 && VS == 2 && VT == 525, "VESA 640x480 vertical");
static_assert(SGPU_TIMING_VGA_SYNC_POSITIVE == 0, "VESA 640x480 syncs are active low");

// One pixel clock as seen on the pins.
enum : uint8_t { F_HS = 1, F_VS = 2, F_DE = 4 };  // sync flags = active

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
  // UART RX (driven)
  std::deque<uint8_t> rx_q;
  bool rx_busy = false;
  uint16_t rx_frame = 0;  // 10 bits: start, data LSB first, stop
  uint32_t rx_bit = 0, rx_left = 0;
  // UART TX (decoded)
  int tx_state = -1;      // -1 idle; else cycles since the start bit's first cycle
  uint32_t tx_shift = 0;
  std::vector<uint8_t> tx_bytes;
  uint64_t tx_last = 0, tx_errors = 0;
  bool tx_prev = true;
  // the bridge's strobes (tests/board/board.vlt makes them visible)
  uint64_t frames_ok = 0, frames_err = 0;
  // video
  bool seen_vsync = false, prev_vs = true;
  uint64_t vs_start_cycle = 0, vs_start_pix = 0;
  std::vector<uint8_t> flags;   // per pixel clock of the frame being assembled
  std::vector<uint16_t> px;     // DE pixels of it
  std::vector<uint16_t> last_px;
  board_frame last{};
  uint64_t frames = 0, bad_frames = 0;

  void eval() { m->eval(); }

  void sys_negedge() {
    // Drive the RX pin for the coming rising edge.
    if (!rx_busy && !rx_q.empty()) {
      rx_frame = (uint16_t)(0x200u | ((uint32_t)rx_q.front() << 1));
      rx_q.pop_front();
      rx_busy = true;
      rx_bit = 0;
      rx_left = kCyclesPerBit;
    }
    m->uart_rx_i = rx_busy ? ((rx_frame >> rx_bit) & 1u) : 1u;
    if (rx_busy && --rx_left == 0) {
      rx_left = kCyclesPerBit;
      if (++rx_bit == 10) rx_busy = false;
    }
    m->btn_ni = button ? 0 : 1;
  }

  void sys_posedge_sample() {
    if (!reset_release && (m->rootp->icebreaker_top__DOT__por_done_q) & 1u) reset_release = cycle;
    if (m->rootp->icebreaker_top__DOT__frame_ok & 1u) frames_ok++;
    if (m->rootp->icebreaker_top__DOT__frame_err & 1u) frames_err++;
    const bool tx = m->uart_tx_o != 0;
    if (!reset_release && !tx) tx_errors++;
    if (tx_state < 0) {
      if (tx_prev && !tx) tx_state = 0;
    } else {
      tx_state++;
    }
    if (tx_state >= 0) {
      const uint32_t half = kCyclesPerBit / 2;
      if ((uint32_t)tx_state >= half && ((uint32_t)tx_state - half) % kCyclesPerBit == 0) {
        const uint32_t bit = ((uint32_t)tx_state - half) / kCyclesPerBit;
        if (bit == 0) {
          if (tx) tx_state = -1;  // a glitch, not a start bit
        } else if (bit <= 8) {
          tx_shift |= (uint32_t)tx << (bit - 1);
        } else {
          if (!tx) tx_errors++;
          tx_bytes.push_back((uint8_t)tx_shift);
          tx_last = cycle;
          tx_shift = 0;
          tx_state = -1;
        }
      }
    }
    tx_prev = tx;
    cycle++;
  }

  void pix_posedge_sample() {
    const bool hs = m->dvi_hsync_o == 0, vs = m->dvi_vsync_o == 0, de = m->dvi_de_o != 0;
    if (vs && !prev_vs) {
      if (seen_vsync) finish_frame();
      seen_vsync = true;
      vs_start_cycle = cycle;
      vs_start_pix = pix_cycle;
      flags.clear();
      px.clear();
    }
    prev_vs = vs;
    if (seen_vsync) {
      flags.push_back((uint8_t)((hs ? F_HS : 0) | (vs ? F_VS : 0) | (de ? F_DE : 0)));
      if (de)
        px.push_back((uint16_t)((m->dvi_r_o & 15u) << 8 | (m->dvi_g_o & 15u) << 4 | (m->dvi_b_o & 15u)));
    }
    pix_cycle++;
  }

  // Check every clock of the frame against VESA 640x480@60.  The frame
  // starts where vsync does; the position of that start in its line (h0,
  // counted from the first DE clock of a line) follows from where the first
  // DE clock of the frame is: vsync starts in line VA + VFP.
  bool check_timing(char *err, size_t errn) {
    const uint64_t n = flags.size();
    if (n != (uint64_t)HT * VT) {
      std::snprintf(err, errn, "frame is %llu pixel clocks, not %u", (unsigned long long)n, HT * VT);
      return false;
    }
    uint64_t de0 = n;
    for (uint64_t i = 0; i < n; i++)
      if (flags[i] & F_DE) {
        de0 = i;
        break;
      }
    if (de0 == n) {
      std::snprintf(err, errn, "no DE in the frame");
      return false;
    }
    const uint64_t start_pos = (uint64_t)HT * VT - de0;  // position of the vsync start
    if (start_pos / HT != VA + VFP) {
      std::snprintf(err, errn, "vsync starts in line %llu after the first active one, not %u",
                    (unsigned long long)(start_pos / HT), VA + VFP);
      return false;
    }
    for (uint64_t i = 0; i < n; i++) {
      const uint64_t p = (start_pos + i) % ((uint64_t)HT * VT);
      const uint32_t line = (uint32_t)(p / HT), x = (uint32_t)(p % HT);
      const bool de = line < VA && x < HA;
      const bool hs = x >= HA + HFP && x < HA + HFP + HS;
      const bool vs = i < (uint64_t)VS * HT;
      const uint8_t want = (uint8_t)((hs ? F_HS : 0) | (vs ? F_VS : 0) | (de ? F_DE : 0));
      if (flags[i] != want) {
        std::snprintf(err, errn,
                      "pixel clock %llu of the frame (line %u, x %u from DE start): hsync %d vsync %d de %d, "
                      "expected %d %d %d",
                      (unsigned long long)i, line, x, !!(flags[i] & F_HS), !!(flags[i] & F_VS),
                      !!(flags[i] & F_DE), hs, vs, de);
        return false;
      }
    }
    return true;
  }

  void finish_frame() {
    board_frame &f = last;
    std::memset(&f, 0, sizeof f);
    frames++;
    f.number = frames;
    f.start_cycle = vs_start_cycle;
    f.start_pix = vs_start_pix;
    // measured figures (informative; the check below is exact)
    uint32_t lines = 0, w = 0, run = 0;
    bool prev_de = false;
    for (uint8_t fl : flags) {
      const bool de = fl & F_DE;
      if (de) run++;
      if (!de && prev_de) {
        lines++;
        if (run > w) w = run;
        run = 0;
      }
      prev_de = de;
    }
    if (prev_de) {
      lines++;
      if (run > w) w = run;
    }
    f.width = w;
    f.height = lines;
    {
      // hsync period and width, front porch: from the first full line
      int64_t hs0 = -1, hs1 = -1, hs_end = -1, de_end = -1;
      for (size_t i = 1; i < flags.size(); i++) {
        const bool hs = flags[i] & F_HS, phs = flags[i - 1] & F_HS;
        const bool de = flags[i] & F_DE, pde = flags[i - 1] & F_DE;
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
        if (flags[i] & F_VS) vs_n++;
        if (flags[i] & F_DE) last_de = i;
      }
      f.vsync_lines = (uint32_t)((vs_n + f.h_total / 2) / f.h_total);
      // lines from the end of the last active line to the end of the frame
      const uint64_t after = flags.size() - (last_de + 1) + (HT - HA);
      f.v_front_porch = (uint32_t)(after / f.h_total);
    }
    f.timing_ok = check_timing(f.timing_error, sizeof f.timing_error) ? 1 : 0;
    if (!f.timing_ok) bad_frames++;
    last_px = px;
    f.pixels = last_px.data();
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

void board_sim_uart_send(board_sim *b, const void *data, size_t n) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  b->rx_q.insert(b->rx_q.end(), p, p + n);
}

size_t board_sim_uart_sending(const board_sim *b) { return b->rx_q.size() + (b->rx_busy ? 1 : 0); }

size_t board_sim_uart_recv(board_sim *b, uint8_t *data, size_t max) {
  const size_t n = b->tx_bytes.size() < max ? b->tx_bytes.size() : max;
  if (n) {
    std::memcpy(data, b->tx_bytes.data(), n);
    b->tx_bytes.erase(b->tx_bytes.begin(), b->tx_bytes.begin() + (std::ptrdiff_t)n);
  }
  return n;
}

uint64_t board_sim_uart_last_rx_cycle(const board_sim *b) { return b->tx_last; }
uint64_t board_sim_frames_ok(const board_sim *b) { return b->frames_ok; }
uint64_t board_sim_frames_err(const board_sim *b) { return b->frames_err; }
int board_sim_irq(const board_sim *b) { return (b->m->rootp->icebreaker_top__DOT__irq & 1u) ? 1 : 0; }
int board_sim_booting(const board_sim *b) { return (b->m->rootp->icebreaker_top__DOT__booting & 1u) ? 1 : 0; }
uint64_t board_sim_uart_errors(const board_sim *b) { return b->tx_errors; }

void board_sim_last_frame(board_sim *b, board_frame *f) {
  if (!b->frames) {
    std::memset(f, 0, sizeof *f);
    return;
  }
  *f = b->last;
  f->pixels = b->last_px.data();
}

uint64_t board_sim_frames(const board_sim *b) { return b->frames; }
uint64_t board_sim_bad_frames(const board_sim *b) { return b->bad_frames; }

uint64_t board_sim_run_until_frame(board_sim *b, uint64_t max_cycles) {
  const uint64_t start = b->cycle, frames = b->frames;
  while (b->cycle - start < max_cycles && b->frames == frames) b->step_event();
  return b->cycle - start;
}

}  // extern "C"
