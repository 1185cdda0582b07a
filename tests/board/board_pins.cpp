// board_pins.cpp — board_pins.h: the UART and the VESA frame checks both
// board-level harnesses use on the chip's pins.

#include "board_pins.h"

#include <cstdio>

namespace vesa {

// The frame starts where vsync does; the position of that start in its line
// (h0, counted from the first DE clock of a line) follows from where the
// first DE clock of the frame is: vsync starts in line VA + VFP.
bool check_timing(const std::vector<uint8_t> &flags, const char *mismatch_format, char *err, size_t errn) {
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
    if (flags[i] != vesa::flags(hs, vs, de)) {
      std::snprintf(err, errn, mismatch_format, (unsigned long long)i, line, x, !!(flags[i] & F_HS),
                    !!(flags[i] & F_VS), !!(flags[i] & F_DE), hs, vs, de);
      return false;
    }
  }
  return true;
}

void frame_size(const std::vector<uint8_t> &flags, bool count_cut_line, uint32_t *width, uint32_t *height) {
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
  if (prev_de && count_cut_line) {
    lines++;
    if (run > w) w = run;
  }
  *width = w;
  *height = lines;
}

}  // namespace vesa

uint8_t board_uart::rx_pin() {
  if (!rx_busy && !rx_q.empty()) {
    rx_frame = (uint16_t)(0x200u | ((uint32_t)rx_q.front() << 1));
    rx_q.pop_front();
    rx_busy = true;
    rx_bit = 0;
    rx_left = cycles_per_bit;
  }
  const uint8_t level = rx_busy ? ((rx_frame >> rx_bit) & 1u) : 1u;
  if (rx_busy && --rx_left == 0) {
    rx_left = cycles_per_bit;
    if (++rx_bit == 10) rx_busy = false;
  }
  return level;
}

// Start bit, then the middle of each bit, stop bit checked.
void board_uart::sample_tx(bool tx, uint64_t cycle) {
  if (tx_state < 0) {
    if (tx_prev && !tx) tx_state = 0;
  } else {
    tx_state++;
  }
  if (tx_state >= 0) {
    const uint32_t half = cycles_per_bit / 2;
    if ((uint32_t)tx_state >= half && ((uint32_t)tx_state - half) % cycles_per_bit == 0) {
      const uint32_t bit = ((uint32_t)tx_state - half) / cycles_per_bit;
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
}

size_t board_uart::recv(uint8_t *data, size_t max) {
  const size_t n = tx_bytes.size() < max ? tx_bytes.size() : max;
  if (n) {
    std::memcpy(data, tx_bytes.data(), n);
    tx_bytes.erase(tx_bytes.begin(), tx_bytes.begin() + (std::ptrdiff_t)n);
  }
  return n;
}
