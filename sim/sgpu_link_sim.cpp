// sgpu_link_sim.cpp — the Verilator model of rtl/sgpu_link_top.v behind
// sgpu_link_sim.h: clock, reset, and the two byte streams paced at
// cycles_per_byte.  The memory is the RTL's own (sgpu_sram) inside the top.

#include "sgpu_link_sim.h"

#include <deque>
#include <memory>

#include "Vsgpu_link_top.h"
#include "verilated.h"

struct sgpu_lsim {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vsgpu_link_top> m;
  uint32_t cpb = 10;
  uint64_t cycle = 0;
  uint64_t next_rx = 0, next_tx = 0;
  std::deque<uint8_t> rxq;
  uint64_t ok = 0, err = 0;
};

namespace {

void step(sgpu_lsim *s, int rst_n, uint8_t *out, size_t cap, size_t *n) {
  Vsgpu_link_top *m = s->m.get();
  m->rst_ni = rst_n;
  bool rx = rst_n && !s->rxq.empty() && s->cycle >= s->next_rx;
  m->rx_valid_i = rx;
  m->rx_data_i = rx ? s->rxq.front() : 0;
  bool ready = rst_n && s->cycle >= s->next_tx && *n < cap;
  m->tx_ready_i = ready;
  m->clk_i = 0;
  m->eval();
  if (ready && m->tx_valid_o) {
    out[(*n)++] = m->tx_data_o;
    s->next_tx = s->cycle + s->cpb;
  }
  if (rx) {
    s->rxq.pop_front();
    s->next_rx = s->cycle + s->cpb;
  }
  m->clk_i = 1;
  m->eval();
  if (m->frame_ok_o) s->ok++;
  if (m->frame_err_o) s->err++;
  s->cycle++;
}

}  // namespace

extern "C" {

sgpu_lsim *sgpu_lsim_create(const sgpu_lsim_config *cfg) {
  sgpu_lsim *s = new (std::nothrow) sgpu_lsim;
  if (!s) return nullptr;
  s->ctx.reset(new VerilatedContext);
  s->ctx->randReset(0);
  s->m.reset(new Vsgpu_link_top(s->ctx.get(), "sgpu"));
  if (cfg && cfg->cycles_per_byte > 10) s->cpb = cfg->cycles_per_byte;
  uint8_t dummy[1];
  size_t n = 0;
  for (int i = 0; i < 4; i++) step(s, 0, dummy, 0, &n);
  return s;
}

void sgpu_lsim_destroy(sgpu_lsim *s) {
  if (!s) return;
  s->m->final();
  delete s;
}

int sgpu_lsim_send(sgpu_lsim *s, const uint8_t *data, size_t len) {
  try {
    s->rxq.insert(s->rxq.end(), data, data + len);
  } catch (...) {
    return -1;
  }
  return 0;
}

size_t sgpu_lsim_rx_queued(const sgpu_lsim *s) { return s->rxq.size(); }

uint64_t sgpu_lsim_run(sgpu_lsim *s, uint64_t max_cycles, uint8_t *out, size_t cap,
                       size_t *out_len) {
  size_t n = 0;
  uint64_t c = 0;
  while (c < max_cycles && n < cap) {
    step(s, 1, out, cap, &n);
    c++;
  }
  if (out_len) *out_len = n;
  return c;
}

uint64_t sgpu_lsim_cycle(const sgpu_lsim *s) { return s->cycle; }
int sgpu_lsim_irq(const sgpu_lsim *s) { return s->m->irq_o ? 1 : 0; }
uint64_t sgpu_lsim_frames_ok(const sgpu_lsim *s) { return s->ok; }
uint64_t sgpu_lsim_frames_err(const sgpu_lsim *s) { return s->err; }

}  // extern "C"
