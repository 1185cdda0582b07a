// sgpu_link_sim.cpp — the Verilator model of rtl/link/sgpu_link_top.v behind
// sgpu_link_sim.h: clock, reset, and the two byte streams paced at
// cycles_per_byte.  The memory is the RTL's own (sgpu_sram) inside the top.
//
// The host's bytes are queued in chunks, one per sgpu_lsim_send_after call;
// they enter the bridge at the wire rate (see rx_ready on the silences the
// host made before them, which are no longer kept).  The bridge's receiver
// and answers are still followed frame by frame (track_in, track_out).

#include "sgpu_link_sim.h"

#include <deque>
#include <memory>
#include <vector>

#include "Vsgpu_link_top.h"
#include "sgpu_hw.h"
#include "verilated.h"

// Cycles a run lasts at most while the bridge neither takes nor sends
// bytes: the server's poll interval then (about 0.1 ms of wall time).
#define SGPU_LSIM_IDLE_RUN 16u

namespace {
struct chunk {
  std::vector<uint8_t> bytes;
  size_t pos = 0;
  uint64_t quiet = 0;  // cycles of silence before its first byte
};
}  // namespace

struct sgpu_lsim {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vsgpu_link_top> m;
  uint32_t cpb = SGPU_LSIM_MIN_CPB;
  uint64_t cycle = 0;
  uint64_t next_rx = 0, next_tx = 0;
  std::deque<chunk> rxq;
  size_t queued = 0;
  uint64_t ok = 0, err = 0;
  uint64_t last_rx = 0;   // cycle the bridge took the last byte
  bool answered = true;   // an ACK/NAK began since then (or nothing taken yet)
  uint64_t quiet_total = 0;
  // the bridge's output, followed frame by frame (it is always well formed)
  uint32_t out_pos = 0, out_need = 0;
  uint16_t out_count = 0;
  uint8_t out_kind = 0;
  bool out_done = false;  // a frame's last byte left in this step
  // the bridge's receiver, followed from the bytes it took
  enum { R_HUNT, R_HDR, R_BODY, R_OWES, R_DRAIN } in_state = R_HUNT;
  uint8_t in_hdr[SGPU_LINK_REQ_HDR_BYTES];
  uint32_t in_pos = 0, in_left = 0;
};

namespace {

// Follow the bridge's answer stream: SYNC SEQ KIND INFO COUNT(2) DATA CRC(2).
void track_out(sgpu_lsim *s, uint8_t b) {
  if (s->out_pos == 0) {
    if (b == SGPU_LINK_SYNC) s->out_pos = 1;
    return;
  }
  s->out_pos++;
  if (s->out_pos == 3) {
    s->out_kind = b;
    if (b == SGPU_LINK_KIND_ACK || b == SGPU_LINK_KIND_NAK) {
      s->answered = true;
      // the answer of the frame it owed, or the NAK that ends a drain
      if (s->in_state == sgpu_lsim::R_OWES || s->in_state == sgpu_lsim::R_DRAIN)
        s->in_state = sgpu_lsim::R_HUNT;
    }
  }
  // a frame whose rest never came, dropped after the gap timeout
  if (s->out_pos == 4 && s->out_kind == SGPU_LINK_KIND_NAK && b == SGPU_LINK_NAK_TIMEOUT)
    s->in_state = sgpu_lsim::R_HUNT;
  if (s->out_pos == 5) s->out_count = b;
  if (s->out_pos == 6) {
    s->out_count = (uint16_t)(s->out_count | (b << 8));
    s->out_need = SGPU_LINK_RSP_HDR_BYTES + 4u * s->out_count + SGPU_LINK_CRC_BYTES;
  }
  if (s->out_pos >= 6 && s->out_pos >= s->out_need) {
    s->out_pos = 0;
    s->out_done = true;
  }
}

// Follow the bridge's receiver over a byte it took: SYNC, a header of
// SEQ CMD FLAGS COUNT(2) ADDR(4) checked at its last byte, then the WRITE
// data and the CRC.
void track_in(sgpu_lsim *s, uint8_t b) {
  switch (s->in_state) {
    case sgpu_lsim::R_HUNT:
    case sgpu_lsim::R_OWES:
      if (b == SGPU_LINK_SYNC) {
        s->in_state = sgpu_lsim::R_HDR;
        s->in_pos = 0;
      }
      break;
    case sgpu_lsim::R_HDR: {
      s->in_hdr[++s->in_pos] = b;
      if (s->in_pos + 1 < SGPU_LINK_REQ_HDR_BYTES) break;
      uint8_t cmd = s->in_hdr[2], flags = s->in_hdr[3];
      uint32_t count = s->in_hdr[4] | (uint32_t)s->in_hdr[5] << 8;
      bool rw = cmd == SGPU_LINK_CMD_READ || cmd == SGPU_LINK_CMD_WRITE;
      bool bad = (!rw && cmd != SGPU_LINK_CMD_PING) || (flags & SGPU_LINK_FLAGS_RESERVED_MASK) ||
                 (rw ? count == 0 || count > SGPU_LINK_MAX_WORDS : count != 0);
      s->in_state = bad ? sgpu_lsim::R_DRAIN : sgpu_lsim::R_BODY;
      s->in_left = (cmd == SGPU_LINK_CMD_WRITE ? 4u * count : 0u) + SGPU_LINK_CRC_BYTES;
      break;
    }
    case sgpu_lsim::R_BODY:
      if (--s->in_left == 0) s->in_state = sgpu_lsim::R_OWES;
      break;
    case sgpu_lsim::R_DRAIN:
      break;
  }
}

// May the bridge take the next host byte in this cycle?  Always, at the
// wire rate: the bridge answers a damaged header at once (it no longer
// drains such a frame until the line has been quiet for its gap timeout),
// so no host silence needs keeping.  Keeping them (a chunk that followed a
// complete frame waited, up to the silence before it, for the bridge to
// begin that frame's answer) turned harmful once the host repeated after
// 1 ms: when the follower lost step with the bridge (a bridge without a
// receive FIFO, link version 2, drops the bytes that come while a frame
// waits for its executor; version 3's FIFO keeps them), every chunk waited up to 6 ms of
// simulated time while the host's repeats queued up behind it, and a read
// was given up after 4.5 s of them (seen once in eight 256 KiB uploads
// through 1 % faults).  sgpu_lsim_send_after keeps its interface (sgpu-sim
// calls it) and sgpu_lsim_quiet_cycles now reports 0.
bool rx_ready(sgpu_lsim *s) {
  return !s->rxq.empty() && s->cycle >= s->next_rx;
}

void step(sgpu_lsim *s, int rst_n, uint8_t *out, size_t cap, size_t *n) {
  Vsgpu_link_top *m = s->m.get();
  m->rst_ni = rst_n;
  bool rx = rst_n && rx_ready(s);
  m->rx_valid_i = rx;
  m->rx_data_i = rx ? s->rxq.front().bytes[s->rxq.front().pos] : 0;
  bool ready = rst_n && s->cycle >= s->next_tx && *n < cap;
  m->tx_ready_i = ready;
  m->clk_i = 0;
  m->eval();
  if (ready && m->tx_valid_o) {
    out[(*n)++] = m->tx_data_o;
    track_out(s, m->tx_data_o);
    s->next_tx = s->cycle + s->cpb;
  }
  if (rx) {
    chunk &c = s->rxq.front();
    track_in(s, c.bytes[c.pos]);
    if (++c.pos == c.bytes.size()) s->rxq.pop_front();
    s->queued--;
    s->next_rx = s->cycle + s->cpb;
    s->last_rx = s->cycle;
    s->answered = false;
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
  if (cfg && cfg->cycles_per_byte > SGPU_LSIM_MIN_CPB) s->cpb = cfg->cycles_per_byte;
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

int sgpu_lsim_send_after(sgpu_lsim *s, const uint8_t *data, size_t len, uint64_t quiet_cycles) {
  if (!len) return 0;
  try {
    chunk c;
    c.bytes.assign(data, data + len);
    c.quiet = quiet_cycles;
    s->rxq.push_back(std::move(c));
  } catch (...) {
    return -1;
  }
  s->queued += len;
  return 0;
}

int sgpu_lsim_send(sgpu_lsim *s, const uint8_t *data, size_t len) {
  return sgpu_lsim_send_after(s, data, len, 0);
}

size_t sgpu_lsim_rx_queued(const sgpu_lsim *s) { return s->queued; }

uint64_t sgpu_lsim_run(sgpu_lsim *s, uint64_t max_cycles, uint8_t *out, size_t cap,
                       size_t *out_len) {
  size_t n = 0;
  uint64_t c = 0;
  // An answer the bridge has begun is run to its end (out_pos != 0), past
  // max_cycles if need be (bounded by the longest answer), so the server
  // hands every answer over in one piece: a tcp: client on a noisy line
  // then knows an answer is broken as soon as it has decoded what came.
  const uint64_t limit = max_cycles + (uint64_t)(SGPU_LINK_MAX_WORDS * 4 + 16) * s->cpb;
  while ((c < max_cycles || (s->out_pos != 0 && c < limit)) && n < cap) {
    s->out_done = false;
    step(s, 1, out, cap, &n);
    c++;
    // An answer is complete: hand it over now (the host is waiting for
    // it).  Nothing queued for the bridge and nothing leaving it: return
    // after a short run, so the server looks for the host's next bytes
    // soon (simulated time runs on either way).
    if (s->out_done) break;
    if (c >= SGPU_LSIM_IDLE_RUN && s->rxq.empty() && s->out_pos == 0) break;
  }
  if (out_len) *out_len = n;
  return c;
}

uint64_t sgpu_lsim_cycle(const sgpu_lsim *s) { return s->cycle; }
int sgpu_lsim_irq(const sgpu_lsim *s) { return s->m->irq_o ? 1 : 0; }
uint64_t sgpu_lsim_frames_ok(const sgpu_lsim *s) { return s->ok; }
uint64_t sgpu_lsim_frames_err(const sgpu_lsim *s) { return s->err; }
uint64_t sgpu_lsim_quiet_cycles(const sgpu_lsim *s) { return s->quiet_total; }

}  // extern "C"
