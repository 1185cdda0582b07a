// sgpu_board_lsim.cpp — sgpu_board_lsim.h: the link model on a board-level
// simulation.  The board models are tests/board/board_sim.cpp (iCEBreaker)
// and tests/ulx3s/ulx3s_sim.cpp (ULX3S with the SDRAM model), used through
// their C APIs as the board tests use them; this file only moves bytes
// between the server and the UART pins.
//
// Bytes.  A host chunk's bytes are handed to the board's UART one at a time,
// the next as soon as the one before has started to shift (so they go out
// back to back at the board's rate, 10 bit times a byte, as from an FTDI
// chip).  The host's silences are not kept, as in sim/sgpu_link_sim.cpp:
// the bridge NAKs a damaged frame at once (docs/link-protocol.md,
// "Silences on a simulated wire").

#include "sgpu_board_lsim.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <new>
#include <vector>

#include "board_sim.h"
#include "sgpu_hw.h"
#include "ulx3s_sim.h"

namespace {

struct chunk {
  std::vector<uint8_t> bytes;
  size_t pos = 0;
};

constexpr uint64_t kIceHz = 12000000u, kUlxHz = 30000000u;

#ifndef SGPU_BOARD_ROOT
#define SGPU_BOARD_ROOT "."
#endif

// The boards' boot ROMs are filled by $readmemh from a path relative to the
// working folder (ROM_FILE of rtl/top/sgpu_boot.v: build/firmware/boot_*.hex),
// read in the model's first evaluation, which *_sim_create makes.  From
// another folder the model is made in the source tree the program was
// built from (SGPU_BOARD_ROOT), then the working folder is restored.
template <typename T, typename F>
T *make_in_root(const char *rom, F create) {
  if (access(rom, R_OK) == 0) return create();
  const int here = open(".", O_RDONLY | O_DIRECTORY);
  if (here < 0 || chdir(SGPU_BOARD_ROOT) != 0 || access(rom, R_OK) != 0) {
    std::fprintf(stderr, "sgpu-sim: the boot ROM image %s is found neither here nor in %s (make firmware)\n",
                 rom, SGPU_BOARD_ROOT);
    if (here >= 0) {
      if (fchdir(here) != 0) std::perror("sgpu-sim: fchdir");
      close(here);
    }
    return nullptr;
  }
  T *m = create();
  if (fchdir(here) != 0) std::perror("sgpu-sim: fchdir");
  close(here);
  return m;
}

}  // namespace

struct sgpu_blsim {
  uint32_t kind = SGPU_BOARD_ICEBREAKER;
  board_sim *ice = nullptr;
  ulx3s_sim *ulx = nullptr;
  uint64_t hz = 0;
  uint32_t baud = 0, cpb = 0;  // system cycles a UART byte (10 bits)
  uint64_t boot_cycle = 0, ok0 = 0, err0 = 0;
  std::deque<chunk> rxq;
  size_t queued = 0;
  // video
  std::vector<uint8_t> rgb;
  uint64_t rgb_number = 0;

  // ---- the board, whichever it is
  void run(uint64_t n) {
    if (ice) board_sim_run(ice, n);
    else ulx3s_sim_run(ulx, n);
  }
  uint64_t cycle() const { return ice ? board_sim_cycle(ice) : ulx3s_sim_cycle(ulx); }
  void uart_put(uint8_t b) {
    if (ice) board_sim_uart_send(ice, &b, 1);
    else ulx3s_sim_uart_send(ulx, &b, 1);
  }
  size_t uart_sending() const { return ice ? board_sim_uart_sending(ice) : ulx3s_sim_uart_sending(ulx); }
  size_t uart_get(uint8_t *p, size_t max) {
    return ice ? board_sim_uart_recv(ice, p, max) : ulx3s_sim_uart_recv(ulx, p, max);
  }
  uint64_t ok() const { return ice ? board_sim_frames_ok(ice) : ulx3s_sim_frames_ok(ulx); }
  uint64_t err() const { return ice ? board_sim_frames_err(ice) : ulx3s_sim_frames_err(ulx); }
  int booting() const { return ice ? board_sim_booting(ice) : ulx3s_sim_booting(ulx); }

  // Hand the next host byte to the UART once the one before has started to
  // shift.
  void feed() {
    if (rxq.empty() || uart_sending() > 1) return;
    chunk &c = rxq.front();
    uart_put(c.bytes[c.pos]);
    if (++c.pos == c.bytes.size()) rxq.pop_front();
    queued--;
  }
};

extern "C" {

sgpu_blsim *sgpu_blsim_create(uint32_t kind) {
  sgpu_blsim *s = new (std::nothrow) sgpu_blsim;
  if (!s) return nullptr;
  s->kind = kind;
  if (kind == SGPU_BOARD_ICEBREAKER) {
    s->ice = make_in_root<board_sim>("build/firmware/boot_icebreaker.hex", board_sim_create);
    s->hz = kIceHz;
    s->baud = SGPU_LINK_BAUD_ICEBREAKER;
  } else if (kind == SGPU_BOARD_ULX3S) {
    s->ulx = make_in_root<ulx3s_sim>("build/firmware/boot_ulx3s.hex", ulx3s_sim_create);
    s->hz = kUlxHz;
    s->baud = SGPU_LINK_BAUD_ULX3S;
  }
  if (!s->ice && !s->ulx) {
    delete s;
    return nullptr;
  }
  s->cpb = (uint32_t)(10u * ((s->hz + s->baud / 2) / s->baud));
  // power on, reset, boot ROM: the bridge is the UART's once the feeder is done
  const int rel = s->ice ? board_sim_run_to_reset_release(s->ice, 1000000)
                         : ulx3s_sim_run_to_reset_release(s->ulx, 1000000);
  uint64_t limit = s->cycle() + 20000000u;
  while (rel == 0 && s->booting() && s->cycle() < limit) s->run(256);
  if (rel != 0 || s->booting()) {
    sgpu_blsim_destroy(s);
    return nullptr;
  }
  s->run(2000);  // let the feeder's last dropped answer pass
  uint8_t junk[256];
  while (s->uart_get(junk, sizeof junk)) {
  }
  s->boot_cycle = s->cycle();
  s->ok0 = s->ok();
  s->err0 = s->err();
  return s;
}

void sgpu_blsim_destroy(sgpu_blsim *s) {
  if (!s) return;
  if (s->ice) board_sim_destroy(s->ice);
  if (s->ulx) ulx3s_sim_destroy(s->ulx);
  delete s;
}

int sgpu_blsim_send(sgpu_blsim *s, const uint8_t *data, size_t len) {
  if (!len) return 0;
  try {
    chunk c;
    c.bytes.assign(data, data + len);
    s->rxq.push_back(std::move(c));
  } catch (...) {
    return -1;
  }
  s->queued += len;
  return 0;
}

// The silence is not kept (see the top of this file).
int sgpu_blsim_send_after(sgpu_blsim *s, const uint8_t *data, size_t len, uint64_t quiet_cycles) {
  (void)quiet_cycles;
  return sgpu_blsim_send(s, data, len);
}
size_t sgpu_blsim_rx_queued(const sgpu_blsim *s) { return s->queued; }
uint64_t sgpu_blsim_quiet_cycles(const sgpu_blsim *s) {
  (void)s;
  return 0;
}

uint64_t sgpu_blsim_run(sgpu_blsim *s, uint64_t max_cycles, uint8_t *out, size_t cap, size_t *out_len) {
  size_t n = 0;
  uint64_t c = 0;
  // with bytes to hand over, look at the UART every quarter byte; else in
  // larger steps (the TX bytes wait in the harness when out is full)
  const uint64_t fine = s->cpb / 4 ? s->cpb / 4 : 1;
  while (c < max_cycles && n < cap) {
    s->feed();
    uint64_t step = s->rxq.empty() ? 256 : fine;
    if (step > max_cycles - c) step = max_cycles - c;
    s->run(step);
    c += step;
    n += s->uart_get(out + n, cap - n);
  }
  if (out_len) *out_len = n;
  return c;
}

uint64_t sgpu_blsim_cycle(const sgpu_blsim *s) { return s->cycle(); }
int sgpu_blsim_irq(const sgpu_blsim *s) { return s->ice ? board_sim_irq(s->ice) : ulx3s_sim_irq(s->ulx); }
uint64_t sgpu_blsim_frames_ok(const sgpu_blsim *s) { return s->ok() - s->ok0; }
uint64_t sgpu_blsim_frames_err(const sgpu_blsim *s) { return s->err() - s->err0; }
uint64_t sgpu_blsim_clock_hz(const sgpu_blsim *s) { return s->hz; }
uint32_t sgpu_blsim_baud(const sgpu_blsim *s) { return s->baud; }
uint64_t sgpu_blsim_boot_cycle(const sgpu_blsim *s) { return s->boot_cycle; }

void sgpu_blsim_frame(sgpu_blsim *s, uint64_t *number, uint32_t *width, uint32_t *height, const uint8_t **rgb,
                      int *timing_ok) {
  uint64_t num = 0;
  uint32_t w = 0, h = 0;
  int ok = 0;
  if (s->ice) {
    board_frame f;
    board_sim_last_frame(s->ice, &f);
    num = f.number;
    w = f.width;
    h = f.height;
    ok = f.timing_ok;
    if (num && num != s->rgb_number) {
      s->rgb.resize((size_t)w * h * 3);
      for (size_t i = 0; i < (size_t)w * h; i++) {
        const uint16_t p = f.pixels[i];
        s->rgb[3 * i + 0] = (uint8_t)(((p >> 8) & 15u) * 17u);
        s->rgb[3 * i + 1] = (uint8_t)(((p >> 4) & 15u) * 17u);
        s->rgb[3 * i + 2] = (uint8_t)((p & 15u) * 17u);
      }
    }
  } else {
    ulx3s_frame f;
    ulx3s_sim_last_frame(s->ulx, &f);
    num = f.number;
    w = f.width;
    h = f.height;
    ok = f.timing_ok;
    if (num && num != s->rgb_number) {
      s->rgb.resize((size_t)w * h * 3);
      for (size_t i = 0; i < (size_t)w * h; i++) {
        const uint32_t p = f.pixels[i];
        s->rgb[3 * i + 0] = (uint8_t)(p >> 16);
        s->rgb[3 * i + 1] = (uint8_t)(p >> 8);
        s->rgb[3 * i + 2] = (uint8_t)p;
      }
    }
  }
  s->rgb_number = num;
  if (number) *number = num;
  if (width) *width = num ? w : 0;
  if (height) *height = num ? h : 0;
  if (rgb) *rgb = num ? s->rgb.data() : nullptr;
  if (timing_ok) *timing_ok = ok;
}

}  // extern "C"
