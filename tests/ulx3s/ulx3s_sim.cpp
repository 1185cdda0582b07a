// ulx3s_sim.cpp — board-level simulation of the ULX3S image: the whole of
// rtl/boards/ulx3s_top.v with the SDRAM model on its SDRAM pins
// (tests/ulx3s/ulx3s_board.v) verilated (Vulx3s_board) behind the C ABI of
// ulx3s_sim.h, with a TMDS receiver that turns the four GPDI lanes back
// into pixels and syncs, a UART on the FT231X pins, and counters of the
// SDRAM commands on its pins.  The UART and the frame capture are
// tests/board/board_pins.h's, shared with the iCEBreaker harness.
//
// Time unit: 1/6 of the PLL's VCO period (1/4.5 GHz, 222 ps).  Serial
// clock (VCO / 6, 125 MHz) edges every 18 units, pixel clock (VCO / 30,
// 25 MHz) edges every 90 units (each on a serial edge: the PLL aligns
// them), system clock (VCO / 25, 30 MHz) edges at 1 + 75 k units: those
// are never multiples of 18 (75 k + 1 = 18 j needs 3 to divide 1), so no
// system edge meets the others.  Edges at the same time are applied
// together, then one eval.

#include "ulx3s_sim.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include "Vulx3s_board.h"
#include "Vulx3s_board___024root.h"
#include "board_pins.h"
#include "board_sim.h"
#include "sgpu_hw.h"
#include "verilated.h"

namespace {

constexpr uint64_t kSerHalf = 18, kPixHalf = 90, kSysHalf = 75, kSysPhase = 1;
// UART: the system clock (30 MHz) over the link rate (3 Mbaud): 10 per bit
constexpr uint32_t kSysHz = 30000000u;
constexpr uint32_t kCyclesPerBit = (kSysHz + SGPU_LINK_BAUD_ULX3S / 2) / SGPU_LINK_BAUD_ULX3S;
static_assert(kCyclesPerBit == 10, "3 Mbaud at 30 MHz");

// The first timing mismatch of a frame, as vesa::check_timing reports it.
constexpr char kMismatch[] = "pixel clock %llu (line %u, x %u): hsync %d vsync %d de %d, expected %d %d %d";

// The DVI control symbols, bit 0 first on the wire, for {C1, C0} = 0..3.
constexpr uint16_t kCtl[4] = {0x354, 0x0AB, 0x154, 0x2AB};
constexpr uint16_t kClkWord = 0x01F;  // five ones, then five zeros
constexpr int kLockRun = 16;          // control symbols in a row to find the boundary

int ctl_code(uint16_t w) {
  for (int c = 0; c < 4; c++)
    if (w == kCtl[c]) return c;
  return -1;
}

uint8_t tmds_byte(uint16_t w) {
  const uint8_t d = (uint8_t)((w & 0x200) ? ~w : w);
  uint8_t v = d & 1u;
  for (int i = 1; i < 8; i++) {
    uint8_t bit = (uint8_t)(((d >> i) ^ (d >> (i - 1))) & 1u);
    if (!(w & 0x100)) bit ^= 1u;  // XNOR chain
    v |= (uint8_t)(bit << i);
  }
  return v;
}

int ones_minus_zeros(uint16_t w) {
  int n = 0;
  for (int i = 0; i < 10; i++) n += (w >> i) & 1 ? 1 : -1;
  return n;
}

}  // namespace

struct ulx3s_sim {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vulx3s_board> m;
  uint64_t next_ser = kSerHalf, next_pix = kPixHalf, next_sys = kSysPhase;
  int ser_clk = 0, pix_clk = 0, sys_clk = 0;
  uint64_t cycle = 0, reset_release = 0;
  // receiver
  uint64_t bit_count = 0;
  uint16_t win[4] = {0, 0, 0, 0};  // per lane: the last 10 bits, the oldest at bit 0
  int run[3][10] = {};             // per data lane and phase: control symbols in a row
  int lane_phase[3] = {-1, -1, -1};
  int locked = 0;
  unsigned phase = 0;
  uint64_t symbols = 0, ctl_symbols = 0, errors = 0;
  char err[160] = "";
  int disp[3] = {0, 0, 0};
  bool hs_lvl = true, vs_lvl = true;  // the last syncs sent in blanking (levels)
  // frames: the receiver's syncs start inactive; a line that vsync cuts
  // short is not counted
  board_video<ulx3s_frame, uint32_t> video{false, false, kMismatch};
  // UART on the FT231X pins
  board_uart uart{kCyclesPerBit};
  // the bridge's strobes (tests/ulx3s/ulx3s.vlt makes them visible)
  uint64_t frames_ok = 0, frames_err = 0;
  // SDRAM commands seen on the pins (at the SDRAM's clock edge)
  uint32_t open_row[4] = {0, 0, 0, 0};
  uint32_t win_lo[2] = {0, 0}, win_hi[2] = {0, 0};
  ulx3s_sdram_stats sd{};

  void error(const char *what) {
    if (!errors) std::snprintf(err, sizeof err, "symbol %llu: %s", (unsigned long long)symbols, what);
    errors++;
  }

  // One bit per lane, in wire order.
  void take_bits(uint32_t lanes) {
    for (int l = 0; l < 4; l++) win[l] = (uint16_t)((win[l] >> 1) | (((lanes >> l) & 1u) << 9));
    bit_count++;
    const unsigned p = (unsigned)(bit_count % 10);
    if (!locked) {
      for (int l = 0; l < 3; l++) {
        if (ctl_code(win[l]) >= 0) {
          if (++run[l][p] >= kLockRun && lane_phase[l] < 0) lane_phase[l] = (int)p;
        } else {
          run[l][p] = 0;
        }
      }
      if (lane_phase[0] >= 0 && lane_phase[1] >= 0 && lane_phase[2] >= 0) {
        if (lane_phase[0] != lane_phase[1] || lane_phase[0] != lane_phase[2]) {
          error("data lanes found different symbol boundaries");
          for (int l = 0; l < 3; l++) lane_phase[l] = -1;
          std::memset(run, 0, sizeof run);
        } else {
          locked = 1;
          phase = (unsigned)lane_phase[0];
        }
      }
      return;
    }
    if (p == phase) symbol();
  }

  void symbol() {
    symbols++;
    if (win[3] != kClkWord) error("clock lane word is not 1111100000");
    const int cb = ctl_code(win[0]), cg = ctl_code(win[1]), cr = ctl_code(win[2]);
    bool de;
    uint32_t rgb = 0;
    if (cb >= 0 || cg >= 0 || cr >= 0) {
      if (cb < 0 || cg < 0 || cr < 0) error("lanes disagree on DE");
      if (cg > 0 || cr > 0) error("green or red control symbol with C1 C0 != 00");
      ctl_symbols++;
      de = false;
      if (cb >= 0) {
        hs_lvl = (cb & 1) != 0;
        vs_lvl = (cb & 2) != 0;
      }
      for (int l = 0; l < 3; l++) disp[l] = 0;
    } else {
      de = true;
      for (int l = 0; l < 3; l++) {
        disp[l] += ones_minus_zeros(win[l]);
        if (disp[l] > 8 || disp[l] < -8) error("running disparity outside -8..+8");
      }
      rgb = (uint32_t)tmds_byte(win[2]) << 16 | (uint32_t)tmds_byte(win[1]) << 8 | tmds_byte(win[0]);
    }
    video.pixel(!hs_lvl, !vs_lvl, de, rgb, cycle, [this] { video.finish_frame(); });
  }

  void step() {
    uint64_t t = next_ser < next_pix ? next_ser : next_pix;
    if (next_sys < t) t = next_sys;
    const bool ser = next_ser == t, pix = next_pix == t, sys = next_sys == t;
    if (ser) {
      ser_clk ^= 1;
      next_ser += kSerHalf;
      m->clk_ser_sim_i = (uint8_t)ser_clk;
    }
    if (pix) {
      pix_clk ^= 1;
      next_pix += kPixHalf;
      m->clk_pix_sim_i = (uint8_t)pix_clk;
    }
    if (sys) {
      sys_clk ^= 1;
      next_sys += kSysHalf;
      m->clk_sys_sim_i = (uint8_t)sys_clk;
    }
    if (sys && !sys_clk) m->uart_rx_i = uart.rx_pin();  // for the coming rising edge
    m->eval();
    // after a serial edge the lanes show the bit of this half cycle
    if (ser) take_bits(m->gpdi_dp_o);
    if (sys && !sys_clk) sdram_sample();  // the SDRAM's rising edge
    if (sys && sys_clk) {
      if (!reset_release && (m->rootp->ulx3s_board__DOT__u_top__DOT__por_q >> 16) & 1u) reset_release = cycle;
      if (m->rootp->ulx3s_board__DOT__u_top__DOT__frame_ok & 1u) frames_ok++;
      if (m->rootp->ulx3s_board__DOT__u_top__DOT__frame_err & 1u) frames_err++;
      uart.sample_tx(m->uart_tx_o != 0, cycle);
      cycle++;
    }
  }

  // One SDRAM command: ACTIVATE opens a row, READ/WRITE (BURST 2: one
  // 32-bit word each, columns 2c and 2c+1) is a word at {row, bank, c}.
  void sdram_sample() {
    const uint32_t cmd = m->sd_cmd_o & 15u, ba = m->sd_ba_o & 3u, a = m->sd_a_o & 0x1FFFu;
    switch (cmd) {
      case 0x3: open_row[ba] = a; sd.activates++; break;          // ACT
      case 0x1: sd.refreshes++; break;                            // REF
      case 0x5: case 0x4: {                                       // READ, WRITE
        const uint32_t addr = ((((open_row[ba] << 2) | ba) << 8) | ((a & 0x1FFu) >> 1)) << 2;
        for (int w = 0; w < 2; w++) {
          if (addr < win_lo[w] || addr >= win_hi[w]) continue;
          if (cmd == 0x5) sd.reads_in[w]++;
          else            sd.writes_in[w]++;
        }
        if (cmd == 0x5) sd.reads++;
        else            sd.writes++;
        break;
      }
      default: break;
    }
    sd.cycles = cycle;
  }

  void run_cycles(uint64_t n) {
    const uint64_t end = cycle + n;
    while (cycle < end) step();
  }
};

extern "C" {

ulx3s_sim *ulx3s_sim_create(void) {
  std::unique_ptr<ulx3s_sim> s(new (std::nothrow) ulx3s_sim);
  if (!s) return nullptr;
  try {
    s->ctx.reset(new VerilatedContext);
    s->ctx->randReset(0);  // power-on: flip-flops at 0, as the FPGA's are
    s->m.reset(new Vulx3s_board(s->ctx.get(), "ulx3s"));
  } catch (...) {
    return nullptr;
  }
  s->m->clk_25m_i = 0;
  s->m->clk_sys_sim_i = 0;
  s->m->clk_pix_sim_i = 0;
  s->m->clk_ser_sim_i = 0;
  s->m->btn_fire1_i = 0;
  s->m->uart_rx_i = 1;
  s->m->eval();
  return s.release();
}

void ulx3s_sim_destroy(ulx3s_sim *s) {
  if (!s) return;
  s->m->final();
  delete s;
}

void ulx3s_sim_run(ulx3s_sim *s, uint64_t cycles) { s->run_cycles(cycles); }
uint64_t ulx3s_sim_cycle(const ulx3s_sim *s) { return s->cycle; }
uint64_t ulx3s_sim_reset_release(const ulx3s_sim *s) { return s->reset_release; }

int ulx3s_sim_run_to_reset_release(ulx3s_sim *s, uint64_t max_cycles) {
  const uint64_t end = s->cycle + max_cycles;
  while (!s->reset_release && s->cycle < end) s->step();
  return s->reset_release ? 0 : -1;
}

uint32_t ulx3s_sim_leds(const ulx3s_sim *s) { return s->m->led_o; }

void ulx3s_sim_last_frame(ulx3s_sim *s, ulx3s_frame *f) { s->video.last_frame(f); }
uint64_t ulx3s_sim_frames(const ulx3s_sim *s) { return s->video.frames; }
uint64_t ulx3s_sim_bad_frames(const ulx3s_sim *s) { return s->video.bad_frames; }

uint64_t ulx3s_sim_run_until_frame(ulx3s_sim *s, uint64_t max_cycles) {
  const uint64_t start = s->cycle, frames = s->video.frames;
  while (s->cycle - start < max_cycles && s->video.frames == frames) s->step();
  return s->cycle - start;
}

void ulx3s_sim_uart_send(ulx3s_sim *s, const void *data, size_t n) { s->uart.send(data, n); }
size_t ulx3s_sim_uart_recv(ulx3s_sim *s, uint8_t *data, size_t max) { return s->uart.recv(data, max); }
uint64_t ulx3s_sim_uart_errors(const ulx3s_sim *s) { return s->uart.tx_errors; }
size_t ulx3s_sim_uart_sending(const ulx3s_sim *s) { return s->uart.sending(); }

void ulx3s_sim_sdram_window(ulx3s_sim *s, int w, uint32_t lo, uint32_t hi) {
  s->win_lo[w & 1] = lo;
  s->win_hi[w & 1] = hi;
}

void ulx3s_sim_sdram_stats(const ulx3s_sim *s, ulx3s_sdram_stats *st) {
  *st = s->sd;
  st->cycles = s->cycle;
}

board_sim *ulx3s_sim_board(ulx3s_sim *s) { return reinterpret_cast<board_sim *>(s); }

uint64_t ulx3s_sim_frames_ok(const ulx3s_sim *s) { return s->frames_ok; }
uint64_t ulx3s_sim_frames_err(const ulx3s_sim *s) { return s->frames_err; }
int ulx3s_sim_irq(const ulx3s_sim *s) { return (s->m->rootp->ulx3s_board__DOT__u_top__DOT__irq & 1u) ? 1 : 0; }
int ulx3s_sim_booting(const ulx3s_sim *s) {
  return (s->m->rootp->ulx3s_board__DOT__u_top__DOT__booting & 1u) ? 1 : 0;
}

void ulx3s_sim_tmds_stats(const ulx3s_sim *s, ulx3s_tmds_stats *st) {
  std::memset(st, 0, sizeof *st);
  st->locked = s->locked;
  st->phase = s->phase;
  st->symbols = s->symbols;
  st->control_symbols = s->ctl_symbols;
  st->errors = s->errors;
  std::snprintf(st->err, sizeof st->err, "%s", s->err);
}

}  // extern "C"
