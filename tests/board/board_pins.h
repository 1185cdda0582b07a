// board_pins.h — what the two board-level harnesses (tests/board/board_sim.cpp,
// iCEBreaker; tests/ulx3s/ulx3s_sim.cpp, ULX3S) do alike on the chip's pins:
// the UART (bytes sent 8N1 onto RX, bytes decoded from TX) and the capture
// of frames from the syncs, DE and pixels, checked against VESA 640x480@60.
// How each board gets those levels (its clocks, DVI pins or TMDS lanes)
// stays in its harness.  C++ only: the harnesses' C ABI is their own header.
#ifndef BOARD_PINS_H
#define BOARD_PINS_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

#include "sgpu_hw.h"

// VESA 640x480@60 (the generated VGA timing; its constants are checked
// against the VESA numbers by the tests).
namespace vesa {
constexpr uint32_t HA = SGPU_TIMING_VGA_H_ACTIVE, HFP = SGPU_TIMING_VGA_H_FP,
                   HS = SGPU_TIMING_VGA_H_SYNC, HT = SGPU_TIMING_VGA_H_TOTAL;
constexpr uint32_t VA = SGPU_TIMING_VGA_V_ACTIVE, VFP = SGPU_TIMING_VGA_V_FP,
                   VS = SGPU_TIMING_VGA_V_SYNC, VT = SGPU_TIMING_VGA_V_TOTAL;
static_assert(HA == 640 && HFP == 16 && HS == 96 && HT == 800, "VESA 640x480 horizontal");
static_assert(VA == 480 && VFP == 10 && VS == 2 && VT == 525, "VESA 640x480 vertical");
static_assert(SGPU_TIMING_VGA_SYNC_POSITIVE == 0, "VESA 640x480 syncs are active low");

// One pixel clock as seen on the pins.
enum : uint8_t { F_HS = 1, F_VS = 2, F_DE = 4 };  // sync flags = active

inline uint8_t flags(bool hs, bool vs, bool de) {
  return (uint8_t)((hs ? F_HS : 0) | (vs ? F_VS : 0) | (de ? F_DE : 0));
}

// Every pixel clock of a frame (from the first clock of its vsync) against
// the timing.  The first mismatch goes to err through mismatch_format
// (pixel clock, line, x from DE start; the pins' hsync, vsync, DE; the
// expected ones): each board words it its own way.
bool check_timing(const std::vector<uint8_t> &flags, const char *mismatch_format, char *err, size_t errn);
// DE pixels of the longest line, lines with DE; a line still in DE at the
// frame's end is counted only with count_cut_line (the boards differ).
void frame_size(const std::vector<uint8_t> &flags, bool count_cut_line, uint32_t *width, uint32_t *height);
}  // namespace vesa

// The UART on the chip's pins at cycles_per_bit system cycles a bit.
struct board_uart {
  explicit board_uart(uint32_t cycles_per_bit) : cycles_per_bit(cycles_per_bit) {}

  const uint32_t cycles_per_bit;
  // RX (driven): queued bytes, sent back to back (10 bits each)
  std::deque<uint8_t> rx_q;
  bool rx_busy = false;
  uint16_t rx_frame = 0;  // 10 bits: start, data LSB first, stop
  uint32_t rx_bit = 0, rx_left = 0;
  // TX (decoded)
  int tx_state = -1;  // -1 idle; else cycles since the start bit's first cycle
  uint32_t tx_shift = 0;
  std::vector<uint8_t> tx_bytes;
  uint64_t tx_last = 0;    // system cycle of the last stop bit
  uint64_t tx_errors = 0;  // stop bits decoded as 0 (a harness may count more)
  bool tx_prev = true;

  // The RX pin's level for the coming rising edge: called once a system
  // cycle, at the falling edge.
  uint8_t rx_pin();
  // The TX pin at a rising edge of the system clock, in system cycle `cycle`.
  void sample_tx(bool tx, uint64_t cycle);

  void send(const void *data, size_t n) {
    const uint8_t *p = static_cast<const uint8_t *>(data);
    rx_q.insert(rx_q.end(), p, p + n);
  }
  // Bytes still queued or being shifted out onto the RX pin.
  size_t sending() const { return rx_q.size() + (rx_busy ? 1 : 0); }
  size_t recv(uint8_t *data, size_t max);
};

// Frames assembled from one pixel clock after another, from vsync to vsync.
// Frame is the board's C frame struct (number, start_cycle, width, height,
// pixels, timing_ok, timing_error); Pixel is what its pixels hold.
template <typename Frame, typename Pixel>
struct board_video {
  // vs_at_power_on: whether vsync counts as active before the first clock
  // (a vsync begins on the first active clock after an inactive one); the
  // other two as vesa::frame_size and vesa::check_timing take them.
  board_video(bool vs_at_power_on, bool count_cut_line, const char *mismatch_format)
      : prev_vs(vs_at_power_on), count_cut_line(count_cut_line), mismatch_format(mismatch_format) {}

  bool seen_vsync = false, prev_vs;
  const bool count_cut_line;
  const char *const mismatch_format;
  uint64_t vs_start_cycle = 0;
  std::vector<uint8_t> flags;  // per pixel clock of the frame being assembled
  std::vector<Pixel> px;       // DE pixels of it
  std::vector<Pixel> last_px;
  Frame last{};
  uint64_t frames = 0, bad_frames = 0;

  // One pixel clock (syncs and DE as active) in system cycle `cycle`.  When
  // it begins a vsync, frame_done() is called first if a frame was being
  // assembled (flags still hold it), and true is returned.
  template <typename Done>
  bool pixel(bool hs, bool vs, bool de, Pixel p, uint64_t cycle, Done &&frame_done) {
    const bool begins = vs && !prev_vs;
    if (begins) {
      if (seen_vsync) frame_done();
      seen_vsync = true;
      vs_start_cycle = cycle;
      flags.clear();
      px.clear();
    }
    prev_vs = vs;
    if (seen_vsync) {
      flags.push_back(vesa::flags(hs, vs, de));
      if (de) px.push_back(p);
    }
    return begins;
  }

  // The frame just assembled becomes the last one; returned for the
  // board's own figures.
  Frame &finish_frame() {
    Frame &f = last;
    std::memset(&f, 0, sizeof f);
    f.number = ++frames;
    f.start_cycle = vs_start_cycle;
    vesa::frame_size(flags, count_cut_line, &f.width, &f.height);
    f.timing_ok = vesa::check_timing(flags, mismatch_format, f.timing_error, sizeof f.timing_error) ? 1 : 0;
    if (!f.timing_ok) bad_frames++;
    last_px = px;
    f.pixels = last_px.data();
    return f;
  }

  // The most recent complete frame (number 0 when none).
  void last_frame(Frame *f) const {
    if (!frames) {
      std::memset(f, 0, sizeof *f);
      return;
    }
    *f = last;
    f->pixels = last_px.data();
  }
};

#endif
