// sgpu_sim.cpp — the Verilator model of the whole chip behind the C ABI of
// sgpu_sim.h: clock and reset, a memory model on sgpu_top's external memory
// port (byte array, configurable read latency, random stall injection,
// in-order responses, byte strobes), host-port transactions, frame capture
// from the video outputs, a memory request log and VCD/FST tracing.
//
// The RTL is verilated three times (sim/sim.mk), each model behind the small
// ModelIf interface:
//   Vsgpu_top  the fast model, used unless a trace is asked for: sgpu_top in
//              the simulation-only wrapper sim/sgpu_sim_top.v, no tracing
//              code, optimised C++.  The wrapper registers sgpu_top's inputs,
//              loaded at the rising edge one cycle ahead, so that one cycle
//              is one rising-edge evaluation in which all the chip's
//              combinational logic is computed once (see sgpu_sim_top.v and
//              step_reg() below); driven directly, Verilator 5.006 computed
//              the logic that depends on an input three times per cycle.
//   Vsgpu_fst  sgpu_top itself with FST tracing, and
//   Vsgpu_vcd  with VCD tracing (Verilator builds one trace format per
//              model): driven directly, one evaluation at the falling edge
//              with the cycle's inputs and one at the rising edge
//              (step_direct()), so waveforms show sgpu_top as it is.
// Both ways give the same chip, cycle for cycle: sgpu_top sees the same
// inputs at every clock edge and the harness reads its outputs at the same
// point of each cycle.  No global mutable state: each sgpu_sim owns its own
// VerilatedContext.
//
// Built with SGPU_SIM_COVERAGE=1 (the coverage variant of sim/sim.mk), the
// fast model carries Verilator line coverage counters; each chip writes them
// when it is destroyed if SGPU_COVERAGE_DIR is set.
//
// Built with SGPU_SIM_MMU_STATS=1 (the plain library, sim/sim.mk), whose
// fast model is verilated with sim/sgpu_sim_mmu.vlt (each sgpu_mmu's st_q,
// acc_ok and up_probe_i readable), the harness can count the MMUs' work
// after each cycle (sgpu_sim_mmu_stats_*); off, it costs one test a cycle.
//
// Built with SGPU_SIM_PIX_CDC=1 (libsgpu_sim_2c, sim/sim.mk) the model is
// sgpu_top with PIX_CDC = 1 (Vsgpu_top, FST tracing, driven directly; no VCD
// model): the display's pixel side runs
// on pix_clk_i, toggled here at its real ratio to clk_i, 25.125 : 12 (the
// iCEBreaker's clocks; 96 : 201 in periods, exactly), with pix_rst_ni
// released on a pixel clock edge.  Frames are captured on pixel clocks
// (h_total and the sync widths in pixel clocks, start_cycle in system
// cycles).  The default build (0) is the one-clock chip, unchanged.

#include "sgpu_sim.h"

#ifndef SGPU_SIM_PIX_CDC
#define SGPU_SIM_PIX_CDC 0
#endif
#ifndef SGPU_SIM_MMU_STATS
#define SGPU_SIM_MMU_STATS 0
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "Vsgpu_top.h"
#include "Vsgpu_top___024root.h"
#ifndef SGPU_SIM_FAST_ONLY
#define SGPU_SIM_FAST_ONLY 0
#endif
#if !SGPU_SIM_FAST_ONLY
#include "Vsgpu_vcd.h"
#if !SGPU_SIM_PIX_CDC
#include "Vsgpu_fst.h"
#endif
#endif
#include "verilated.h"
#include "verilated_fst_c.h"
#include "verilated_vcd_c.h"
#if SGPU_SIM_COVERAGE
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

#include "verilated_cov.h"
#endif

#ifndef SGPU_SIM_NODES
#error "SGPU_SIM_NODES must be defined by the build (sim/sim.mk)"
#endif
#ifndef SGPU_SIM_SOURCES
#error "SGPU_SIM_SOURCES must be defined by the build (sim/sim.mk)"
#endif
#ifndef SGPU_SIM_MEM_BYTES
#error "SGPU_SIM_MEM_BYTES must be defined by the build (sim/sim.mk)"
#endif

namespace {

constexpr uint32_t kHostTimeout = 100000;  // cycles, per sgpu_sim.h
constexpr uint32_t kRegSpace = 1u << 31;
constexpr uint32_t kResetCycles = 4;
// Sync polarity of the generated timings (all negative today).  A sync is
// "active" when the output equals this level.
constexpr unsigned kSyncActiveLevel = 0;

struct Inputs {
  uint8_t host_valid = 0, host_write = 0, host_wstrb = 0;
  uint32_t host_addr = 0, host_wdata = 0;
  uint8_t mem_ready = 0, mem_rsp_valid = 0;
  uint32_t mem_rdata = 0;
  bool operator==(const Inputs &o) const {
    return host_valid == o.host_valid && host_write == o.host_write && host_wstrb == o.host_wstrb &&
           host_addr == o.host_addr && host_wdata == o.host_wdata && mem_ready == o.mem_ready &&
           mem_rsp_valid == o.mem_rsp_valid && mem_rdata == o.mem_rdata;
  }
  bool operator!=(const Inputs &o) const { return !(*this == o); }
  bool same_host(const Inputs &o) const {
    return host_valid == o.host_valid && host_write == o.host_write && host_wstrb == o.host_wstrb &&
           host_addr == o.host_addr && host_wdata == o.host_wdata;
  }
};

struct Outputs {
  uint8_t host_ready, host_rsp_valid;
  uint32_t host_rdata;
  uint8_t mem_valid, mem_write, mem_wstrb;
  uint32_t mem_addr, mem_wdata;
  uint32_t vid_r, vid_g, vid_b, hsync, vsync, de;
  uint8_t irq;
};

class ModelIf {
 public:
  virtual ~ModelIf() {}
  // Directly driven models (sgpu_top's own ports): set, evaluate.
  virtual void set(int clk, int rst_n, const Inputs &in) = 0;
  virtual void set_pix(int clk, int rst_n) = 0;  // SGPU_SIM_PIX_CDC only
  virtual void eval() = 0;
  // The registered model (sgpu_sim_top): load() puts the reset and host
  // inputs of the current cycle (with mem: the memory inputs too) into the
  // input registers without a clock edge; edge() clocks the chip and loads
  // the memory inputs of the next cycle, and with host: its reset and host
  // inputs (only when they differ from those loaded).
  virtual void load(int rst_n, const Inputs &in) = 0;
  virtual void edge(int rst_n, const Inputs &next, bool host) = 0;
  virtual void get(Outputs &out) const = 0;
  virtual bool open_trace(const char *path) = 0;
  virtual void dump(uint64_t time) = 0;
  virtual void final_() = 0;
  virtual void write_coverage(const char *path) = 0;
};

// One sgpu_mmu's signals read by the MMU counters (SGPU_SIM_MMU_STATS).
struct MmuTap {
  const uint8_t *st, *acc, *probe;
  unsigned kind;
  uint8_t prev;
};

struct NoTrace {};  // trace type of a model without tracing code

// The low clock between two rising edges.  Verilator 5.006 detects an edge
// by comparing each trigger signal with its value at the previous eval(),
// kept in the model's root (__Vtrigrprev__TOP__<signal>).  The registered
// model has no logic that a falling clk_i or ld_i would run, so an eval()
// with both low would only record them as low: where the root has those
// members, LowClock sets them directly instead (an evaluation saved per
// cycle); with any other Verilator it runs that eval().
template <class R, class = void>
struct HasTrigPrev : std::false_type {};
template <class R>
struct HasTrigPrev<R, std::void_t<decltype(std::declval<R &>().__Vtrigrprev__TOP__clk_i),
                                  decltype(std::declval<R &>().__Vtrigrprev__TOP__ld_i)>>
    : std::true_type {};

// A rising edge of clk_i alone (ld_i low, so rst_nq cannot change) runs
// Verilator 5.006's scheduler once around: the edge's triggers, then the
// flops and the logic after them (eval_nba); nothing it changes is a
// trigger, so eval()'s loop would find no more to do.  With that Verilator,
// ClockEdge calls those two functions of the generated model directly
// (eval() costs ~170 host instructions a cycle in its loop, trigger scans
// and end-of-eval bookkeeping, ~3.5 % of the cycle); with any other
// Verilator, or a model without them, it is the eval().  Not in the
// assertion variant (SGPU_SIM_ASSERT=1, sim/sim.mk): eval() first samples
// the values that $past and the clocked assertions read, which those two
// functions would skip.
// Ring clocks (sim/sim.mk's SGPU_SIM_GATE, the fast model only): each
// command processor has its own clock input (cp_clk_i), raised with clk_i
// only when the ring's cp_awake_o was set before the edge: an idle ring
// keeps all its flops still (sgpu_cp.v's sim_awake_o), so its clocked code
// is skipped.  Verilator 5.006 copies each bit of cp_clk_i into a member
// (__Vcellinp) before it takes it as a trigger, in the input evaluation
// that eval() runs first: RingClocks sets those members (and their previous
// values, for the low clock) directly, like LowClock and ClockEdge above.
// Without them (another Verilator) every eval() copies them itself.
#define SGPU_GATE_CLK(k) sgpu_sim_top__DOT__u_top__DOT____Vcellinp__g_node__BRA__##k##__KET____DOT__u_cp__sim_clk_i
#define SGPU_GATE_PREV(k) \
  __Vtrigrprev__TOP__sgpu_sim_top__DOT__u_top__DOT____Vcellinp__g_node__BRA__##k##__KET____DOT__u_cp__sim_clk_i
template <class M, class = void>
struct HasRingClocks : std::false_type {};
template <class M>
struct HasRingClocks<M, std::void_t<decltype(std::declval<M &>().cp_clk_i), decltype(std::declval<M &>().cp_awake_o)>>
    : std::true_type {};
template <class R, class = void>
struct HasRingClockMembers : std::false_type {};
template <class R>
struct HasRingClockMembers<R, std::void_t<decltype(std::declval<R &>().SGPU_GATE_CLK(0)),
                                          decltype(std::declval<R &>().SGPU_GATE_PREV(0)),
                                          decltype(std::declval<R &>().SGPU_GATE_CLK(5)),
                                          decltype(std::declval<R &>().SGPU_GATE_PREV(5))>>
    : std::true_type {};
static_assert(SGPU_SIM_NODES == 2, "the ring clock members below are the 2-node chip's six rings");

#if defined(VERILATOR_VERSION_INTEGER) && VERILATOR_VERSION_INTEGER == 5006000 && !SGPU_SIM_ASSERT
#define SGPU_SIM_DIRECT_EDGE 1
#else
#define SGPU_SIM_DIRECT_EDGE 0
#endif
}  // namespace
// Defined in the generated model (external linkage).
void Vsgpu_top___024root___eval_triggers__act(Vsgpu_top___024root *vlSelf);
void Vsgpu_top___024root___eval_nba(Vsgpu_top___024root *vlSelf);
namespace {

// M: the verilated class; T: its trace file class (NoTrace: none); kReg:
// M is sgpu_sim_top (registered inputs, no pixel-side ports), else sgpu_top.
template <class M, class T, bool kReg>
class Model final : public ModelIf {
  static constexpr bool kTrace = !std::is_same<T, NoTrace>::value;

 public:
  explicit Model(bool tracing) : ctx_(new VerilatedContext) {
    ctx_->randReset(0);
    if (tracing) ctx_->traceEverOn(true);
    m_.reset(new M(ctx_.get(), "sgpu"));
    if constexpr (kReg) {
      // Settle with every input low, so that the first load() is a rising
      // edge of ld_i (Verilator takes the first evaluation's values as the
      // previous ones).
      m_->clk_i = 0;
      m_->ld_i = 0;
      if constexpr (HasRingClocks<M>::value) m_->cp_clk_i = 0;
      m_->eval();
    }
  }
  ~Model() override {
    if constexpr (kTrace) {
      if (tfp_) tfp_->close();
      tfp_.reset();
    }
    // The model's public scopes (sim/sgpu_sim_mmu.vlt) leave the thread's
    // current context when destroyed, which is the last one created: with
    // several chips alive that may be another's, or one already gone.
    Verilated::threadContextp(ctx_.get());
    m_.reset();
  }
  void set(int clk, int rst_n, const Inputs &in) override {
    if constexpr (!kReg) {
      m_->clk_i = clk;
#if !SGPU_SIM_PIX_CDC
      m_->pix_en_i = 1;
      m_->pix_rst_ni = 1;  // one clock: the pixel side runs on clk_i with pix_en_i
#endif
      put(rst_n, in);
    } else {
      (void)clk, (void)rst_n, (void)in;
    }
  }
  void set_pix(int clk, int rst_n) override {
    if constexpr (!kReg) {
      m_->pix_clk_i = clk;
      m_->pix_rst_ni = rst_n;
    } else {
      (void)clk, (void)rst_n;
    }
  }
  void eval() override { m_->eval(); }
  void load(int rst_n, const Inputs &in) override {
    if constexpr (kReg) {
      if (m_->ld_i) {
        m_->ld_i = 0;
        m_->eval();
      }
      put_host(rst_n, in);
      m_->ld_i = 1;
      m_->eval();
    } else {
      (void)rst_n, (void)in;
    }
  }
  void edge(int rst_n, const Inputs &next, bool host) override {
    if constexpr (kReg) {
      using Root = std::remove_pointer_t<std::remove_cv_t<decltype(m_->rootp)>>;
      constexpr bool kGate = HasRingClocks<M>::value;
      constexpr bool kGateDirect = kGate && HasRingClockMembers<Root>::value;
      // the rings that tick at this edge: decided by the cycle that ends here
      unsigned awake = 0;
      if constexpr (kGate) awake = m_->cp_awake_o;
      m_->clk_i = 0;  // nothing depends on it: only the low clock is recorded
      m_->ld_i = 0;
      if constexpr (kGate) m_->cp_clk_i = 0;
      if constexpr (HasTrigPrev<Root>::value && (!kGate || kGateDirect)) {
        m_->rootp->__Vtrigrprev__TOP__clk_i = 0;
        m_->rootp->__Vtrigrprev__TOP__ld_i = 0;
        if constexpr (kGateDirect) ring_clocks(0);
      } else {
        m_->eval();
      }
      put_mem(next);
      if (host) put_host(rst_n, next);
      m_->ld_i = host;
      if constexpr (kGate) m_->cp_clk_i = awake;
      if constexpr (kGateDirect) ring_clocks(awake);
      m_->clk_i = 1;
      if constexpr (SGPU_SIM_DIRECT_EDGE && std::is_same<M, Vsgpu_top>::value && HasTrigPrev<Root>::value) {
        if (!host) {
          Root *const r = m_->rootp;
          Vsgpu_top___024root___eval_triggers__act(r);
          r->__VnbaTriggered = r->__VactTriggered;
          Vsgpu_top___024root___eval_nba(r);
          return;
        }
      }
      m_->eval();
    } else {
      (void)rst_n, (void)next, (void)host;
    }
  }
  void get(Outputs &o) const override {
    o.host_ready = m_->host_req_ready_o;
    o.host_rsp_valid = m_->host_rsp_valid_o;
    o.host_rdata = m_->host_rsp_rdata_o;
    o.mem_valid = m_->mem_req_valid_o;
    o.mem_write = m_->mem_req_write_o;
    o.mem_addr = m_->mem_req_addr_o;
    o.mem_wdata = m_->mem_req_wdata_o;
    o.mem_wstrb = m_->mem_req_wstrb_o;
    o.vid_r = m_->vid_r_o;
    o.vid_g = m_->vid_g_o;
    o.vid_b = m_->vid_b_o;
    o.hsync = m_->vid_hsync_o;
    o.vsync = m_->vid_vsync_o;
    o.de = m_->vid_de_o;
    o.irq = m_->irq_o;
  }
  bool open_trace(const char *path) override {
    if constexpr (kTrace) {
      tfp_.reset(new T);
      m_->trace(tfp_.get(), 99);
      tfp_->open(path);
      return tfp_->isOpen();
    } else {
      (void)path;
      return false;
    }
  }
  void dump(uint64_t time) override {
    if constexpr (kTrace) {
      if (tfp_) tfp_->dump(time);
    } else {
      (void)time;
    }
  }
  void final_() override { m_->final(); }
  // The fast model's sgpu_mmu instances (sim/sgpu_sim_mmu.vlt): none in
  // another model or build.
  std::vector<MmuTap> mmu_taps() {
    std::vector<MmuTap> t;
#if SGPU_SIM_MMU_STATS
    if constexpr (kReg) {
      auto *r = m_->rootp;
#define SGPU_SIM_TAP(path, k)                                                                   \
  t.push_back(MmuTap{&r->sgpu_sim_top__DOT__u_top__DOT__##path##__DOT__st_q,                  \
                     &r->sgpu_sim_top__DOT__u_top__DOT__##path##__DOT__acc_ok,                \
                     &r->sgpu_sim_top__DOT__u_top__DOT__##path##__DOT__up_probe_i, k, 0})
#define SGPU_SIM_TAP_NODE(n)                                                                    \
  SGPU_SIM_TAP(g_node__BRA__##n##__KET____DOT__u_cp__DOT__g_vm__DOT__u_mmu_ib, SGPU_SIM_MMU_FETCH); \
  SGPU_SIM_TAP(g_node__BRA__##n##__KET____DOT__u_cp__DOT__g_vm__DOT__u_mmu_wr, SGPU_SIM_MMU_WRITER)
      SGPU_SIM_TAP_NODE(0);
      SGPU_SIM_TAP_NODE(1);
      SGPU_SIM_TAP_NODE(2);
      SGPU_SIM_TAP_NODE(3);
      SGPU_SIM_TAP_NODE(4);
      SGPU_SIM_TAP_NODE(5);
      SGPU_SIM_TAP(g_eng_mmu__BRA__0__KET____DOT__g_mmu__DOT__u_mmu, SGPU_SIM_MMU_2D);
      SGPU_SIM_TAP(g_eng_mmu__BRA__1__KET____DOT__g_mmu__DOT__u_mmu, SGPU_SIM_MMU_2D);
      SGPU_SIM_TAP(g_eng_mmu__BRA__2__KET____DOT__g_mmu__DOT__u_mmu, SGPU_SIM_MMU_2D);
#undef SGPU_SIM_TAP_NODE
#undef SGPU_SIM_TAP
    }
#endif
    return t;
  }
  void write_coverage(const char *path) override {
#if SGPU_SIM_COVERAGE
    if constexpr (kReg) {  // only the fast model counts (sim/sim.mk)
      ctx_->coveragep()->write(path);
      return;
    }
#endif
    (void)path;
  }

 private:
  // The ring clocks' copies (and, low, their previous values) as eval()'s
  // input evaluation would leave them.
  template <class MM = M>
  void ring_clocks(unsigned bits) {
    using R = std::remove_pointer_t<std::remove_cv_t<decltype(std::declval<MM &>().rootp)>>;
    if constexpr (HasRingClocks<MM>::value && HasRingClockMembers<R>::value) {
      R *const r = m_->rootp;
      if (!bits) {
        r->SGPU_GATE_PREV(0) = r->SGPU_GATE_PREV(1) = r->SGPU_GATE_PREV(2) = 0;
        r->SGPU_GATE_PREV(3) = r->SGPU_GATE_PREV(4) = r->SGPU_GATE_PREV(5) = 0;
      }
      r->SGPU_GATE_CLK(0) = bits & 1;
      r->SGPU_GATE_CLK(1) = (bits >> 1) & 1;
      r->SGPU_GATE_CLK(2) = (bits >> 2) & 1;
      r->SGPU_GATE_CLK(3) = (bits >> 3) & 1;
      r->SGPU_GATE_CLK(4) = (bits >> 4) & 1;
      r->SGPU_GATE_CLK(5) = (bits >> 5) & 1;
    } else {
      (void)bits;
    }
  }
  void put(int rst_n, const Inputs &in) {
    put_host(rst_n, in);
    put_mem(in);
  }
  void put_host(int rst_n, const Inputs &in) {
    m_->rst_ni = rst_n;
    m_->host_req_valid_i = in.host_valid;
    m_->host_req_write_i = in.host_write;
    m_->host_req_addr_i = in.host_addr;
    m_->host_req_wdata_i = in.host_wdata;
    m_->host_req_wstrb_i = in.host_wstrb;
  }
  void put_mem(const Inputs &in) {
    m_->mem_req_ready_i = in.mem_ready;
    m_->mem_rsp_valid_i = in.mem_rsp_valid;
    m_->mem_rsp_rdata_i = in.mem_rdata;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<M> m_;
  std::unique_ptr<T> tfp_;
};

#if SGPU_SIM_FAST_ONLY
// The fast model alone (the training run of its profile-guided build,
// sim/sim.mk): no traced models, a trace is refused.
using FastModel = Model<Vsgpu_top, NoTrace, true>;
#elif SGPU_SIM_PIX_CDC
// The two-clock build has one model, sgpu_top with FST tracing, driven
// directly.  It has no VCD model of its own (Vsgpu_vcd.h is the one-clock
// model's header): a .vcd trace is refused.
using FastModel = Model<Vsgpu_top, VerilatedFstC, false>;
using FstModel = FastModel;
template <>
class Model<Vsgpu_vcd, VerilatedVcdC, false> final : public ModelIf {
 public:
  explicit Model(bool) { throw 0; }
  void set(int, int, const Inputs &) override {}
  void set_pix(int, int) override {}
  void eval() override {}
  void load(int, const Inputs &) override {}
  void edge(int, const Inputs &, bool) override {}
  void get(Outputs &) const override {}
  bool open_trace(const char *) override { return false; }
  void dump(uint64_t) override {}
  void final_() override {}
  void write_coverage(const char *) override {}
};
#else
using FastModel = Model<Vsgpu_top, NoTrace, true>;
using FstModel = Model<Vsgpu_fst, VerilatedFstC, false>;
#endif
#if !SGPU_SIM_FAST_ONLY
using VcdModel = Model<Vsgpu_vcd, VerilatedVcdC, false>;
#endif

struct PendingRead {
  uint64_t due;      // cycle in which the response is presented
  uint32_t data;
  uint64_t log_seq;  // sequence number of its log entry (or UINT64_MAX)
};

// Frame capture state of one source.
struct Capture {
  // measured timing (in pixel clocks; start_cycle in system cycles)
  uint64_t cycle_hsync_start = 0, cycle_vsync_start = 0, pix_vsync_start = 0;
  bool seen_hsync = false, seen_vsync = false;
  bool prev_hs = false, prev_vs = false, prev_de = false;
  // the same as the source's output bits (hsync | vsync << 1 | de << 2)
  unsigned prev_bits = (kSyncActiveLevel ? 0u : 3u);
  uint32_t h_total = 0, hsync_width = 0, vsync_lines = 0;
  uint64_t vsync_cycles = 0;
  // frame being assembled: npix bytes of pix (grown, never shrunk)
  std::vector<uint8_t> pix;
  size_t npix = 0;
  std::vector<uint32_t> row_len;
  uint32_t cur_row = 0;
  // last complete frame
  std::vector<uint8_t> last_rgb;
  sgpu_sim_frame last{};
  uint64_t frames = 0;
};

uint32_t xorshift32(uint32_t &s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

}  // namespace

struct sgpu_sim {
  sgpu_sim_config cfg{};
  std::unique_ptr<ModelIf> model;
  std::vector<uint8_t> mem;
  Inputs in;
  Outputs out{};
  uint64_t cycle = 0;
  uint32_t rng = 1;
  std::deque<PendingRead> rsp_q;
  bool tracing = false;
  bool reg = false;       // the fast model (registered inputs): step_reg()
  FastModel *fast = nullptr;  // model, as its own class when reg (direct calls)
  Inputs loaded;          // step_reg(): the inputs in the model's input registers
  int loaded_rst = -1;    // and its rst_n there (-1: nothing loaded yet)
  int rst_n = 0;
  uint64_t mem_errors = 0;
  // memory log
  bool log_on = false;
  size_t log_cap = 0;
  std::vector<sgpu_sim_mem_event> log;
  uint64_t log_base_seq = 0;  // sequence number of log[0]
  uint64_t last_host_write = 0;
  // MMU counters (SGPU_SIM_MMU_STATS)
  bool mmu_on = false;
  std::vector<MmuTap> mmu;
  sgpu_sim_mmu_stats mmu_st[SGPU_SIM_MMU_KINDS] = {};
  std::string mmu_file;  // SGPU_SIM_MMU_STATS=<file>: written at destroy
  // video
  Capture cap[SGPU_SIM_SOURCES];
  // per-step host results
  bool host_accepted = false, host_rsp = false;
  uint32_t host_rdata = 0;
#if SGPU_SIM_PIX_CDC
  // pixel clock: toggles at 96 j + 1 in units of 1/402 system period (system
  // edges at multiples of 201: never at the same time)
  uint64_t pix_next = 1, pix_cycle = 0;
  int pix_clk = 0, pix_rst_n = 0;
  void pix_until(uint64_t t) {
    while (pix_next < t) {
      pix_clk ^= 1;
      pix_next += 96;
      if (!pix_clk) pix_rst_n = rst_n;
      model->set_pix(pix_clk, pix_rst_n);
      model->eval();
      if (pix_clk) {
        model->get(out);
        if (pix_rst_n)
          for (unsigned s = 0; s < SGPU_SIM_SOURCES; s++) capture(s);
        pix_cycle++;
      }
    }
  }
  uint64_t pix_now() const { return pix_cycle; }
#else
  uint64_t pix_now() const { return cycle; }
#endif

  void log_push(const sgpu_sim_mem_event &e) {
    log.push_back(e);
    if (log.size() >= 2 * log_cap + 1024) {
      size_t drop = log.size() - log_cap;
      log.erase(log.begin(), log.begin() + (std::ptrdiff_t)drop);
      log_base_seq += drop;
    }
  }

  uint32_t mem_word(uint32_t addr) const {
    if ((uint64_t)addr + 4 > mem.size()) return 0xDEADBEEFu;
    uint32_t v;
    std::memcpy(&v, &mem[addr], 4);
    return v;  // host is little-endian (x86/arm64), as is the chip
  }

  // One pixel clock of a source's video outputs.  Most pixel clocks change
  // neither sync nor data-enable: only a pixel to store, or nothing.
  void capture(unsigned s) {
    Capture &c = cap[s];
    const unsigned bits = ((out.hsync >> s) & 1u) | ((out.vsync >> s) & 1u) << 1 | ((out.de >> s) & 1u) << 2;
    if (bits == c.prev_bits) {
      if ((bits & 4u) && c.seen_vsync) {
        c.row_len.back()++;
        put_pixel(c, s);
      }
      return;
    }
    c.prev_bits = bits;
    capture_edge(s, bits);
  }

  void put_pixel(Capture &c, unsigned s) {
    if (c.npix + 3 > c.pix.size()) c.pix.resize(c.pix.size() < 4096 ? 4096 : 2 * c.pix.size());
    uint8_t *p = &c.pix[c.npix];
    p[0] = (uint8_t)(out.vid_r >> (8 * s));
    p[1] = (uint8_t)(out.vid_g >> (8 * s));
    p[2] = (uint8_t)(out.vid_b >> (8 * s));
    c.npix += 3;
  }

  void capture_edge(unsigned s, unsigned bits) {
    Capture &c = cap[s];
    const bool hs = (bits & 1u) == kSyncActiveLevel;
    const bool vs = ((bits >> 1) & 1u) == kSyncActiveLevel;
    const bool de = (bits & 4u) != 0;
    const uint64_t now = pix_now();
    // hsync: measure period and width
    if (hs && !c.prev_hs) {
      if (c.seen_hsync) c.h_total = (uint32_t)(now - c.cycle_hsync_start);
      c.seen_hsync = true;
      c.cycle_hsync_start = now;
    }
    if (!hs && c.prev_hs && c.seen_hsync) c.hsync_width = (uint32_t)(now - c.cycle_hsync_start);
    // vsync: frame boundaries
    if (vs && !c.prev_vs) {
      if (c.seen_vsync) finish_frame(s);
      c.seen_vsync = true;
      c.cycle_vsync_start = cycle;
      c.pix_vsync_start = now;
      c.npix = 0;
      c.row_len.clear();
      c.prev_de = false;
    }
    if (!vs && c.prev_vs && c.seen_vsync) c.vsync_cycles = now - c.pix_vsync_start;
    // data-enable pixels
    if (c.seen_vsync && de) {
      if (!c.prev_de) c.row_len.push_back(0);
      c.row_len.back()++;
      put_pixel(c, s);
    }
    c.prev_hs = hs;
    c.prev_vs = vs;
    c.prev_de = de;
  }

  void finish_frame(unsigned s) {
    Capture &c = cap[s];
    uint32_t w = 0;
    for (uint32_t l : c.row_len) w = l > w ? l : w;
    const uint32_t h = (uint32_t)c.row_len.size();
    c.last_rgb.assign((size_t)w * h * 3, 0);
    size_t src = 0;
    for (uint32_t y = 0; y < h; y++) {  // short rows are padded with black
      std::memcpy(&c.last_rgb[(size_t)y * w * 3], &c.pix[src], (size_t)c.row_len[y] * 3);
      src += (size_t)c.row_len[y] * 3;
    }
    c.frames++;
    sgpu_sim_frame &f = c.last;
    f.width = w;
    f.height = h;
    f.rgb = c.last_rgb.data();
    f.frame_number = c.frames;
    f.start_cycle = c.cycle_vsync_start;
    f.h_total = c.h_total;
    const uint64_t frame_cycles = pix_now() - c.pix_vsync_start;
    f.v_total = c.h_total ? (uint32_t)((frame_cycles + c.h_total / 2) / c.h_total) : 0;
    f.hsync_width = c.hsync_width;
    f.vsync_lines = c.h_total ? (uint32_t)((c.vsync_cycles + c.h_total / 2) / c.h_total) : 0;
  }

  // Memory model: the stall decision and the read response presented in
  // cycle c (in.mem_*).  Called once per cycle, in cycle order.
  void mem_inputs(uint64_t c) {
    in.mem_ready = 1;
    if (cfg.stall_percent && xorshift32(rng) % 100u < cfg.stall_percent) in.mem_ready = 0;
    in.mem_rsp_valid = 0;
    if (!rsp_q.empty() && rsp_q.front().due <= c) {
      const PendingRead &r = rsp_q.front();
      in.mem_rsp_valid = 1;
      in.mem_rdata = r.data;
      if (log_on && r.log_seq != UINT64_MAX && r.log_seq >= log_base_seq &&
          r.log_seq - log_base_seq < log.size())
        log[(size_t)(r.log_seq - log_base_seq)].data = r.data;
      rsp_q.pop_front();
    }
  }

  // What happened in this cycle, from the outputs `out` before its rising
  // edge and the inputs `in` driven during it: memory requests accepted (the
  // memory model's writes, reads queued for their response) and host-port
  // results.
  void accept() {
    if (rst_n && out.mem_valid && in.mem_ready) {
      const uint32_t a = out.mem_addr;
      sgpu_sim_mem_event e{};
      e.cycle = cycle;
      e.address = a;
      e.write = out.mem_write;
      e.strobe = out.mem_write ? out.mem_wstrb : 0;
      const bool ok = (a & 3u) == 0 && (uint64_t)a + 4 <= mem.size();
      if (!ok) {
        if (mem_errors++ < 8)
          std::fprintf(stderr, "sgpu_sim: cycle %llu: memory %s at bad address 0x%08x ignored\n",
                       (unsigned long long)cycle, out.mem_write ? "write" : "read", a);
      }
      if (out.mem_write) {
        e.data = out.mem_wdata;
        if (ok)
          for (unsigned b = 0; b < 4; b++)
            if ((out.mem_wstrb >> b) & 1u) mem[a + b] = (uint8_t)(out.mem_wdata >> (8 * b));
      } else {
        const uint32_t lat = cfg.mem_latency ? cfg.mem_latency : 1;
        rsp_q.push_back(PendingRead{cycle + lat, ok ? mem_word(a) : 0xDEADBEEFu,
                                    log_on ? log_base_seq + log.size() : UINT64_MAX});
      }
      if (log_on) log_push(e);
    }
    host_accepted = in.host_valid && out.host_ready;
    if (host_accepted && in.host_write) last_host_write = cycle;
    host_rsp = out.host_rsp_valid;
    host_rdata = out.host_rdata;
  }

  // One clock cycle.  The host-port inputs in `in` are driven during it.
  void step() {
    if (reg)
      step_reg();
    else
      step_direct();
  }

  // The directly driven models (traced, two-clock): evaluate at the falling
  // edge with this cycle's inputs, read the outputs, evaluate at the rising
  // edge.
  void step_direct() {
#if SGPU_SIM_PIX_CDC
    pix_until(402 * cycle);  // pixel edges before this falling edge
#endif
    mem_inputs(cycle);
    model->set(0, rst_n, in);
    model->eval();
    model->get(out);
    accept();
#if SGPU_SIM_PIX_CDC
    pix_until(402 * cycle + 201);  // pixel edges before this rising edge
#else
    if (rst_n)
      for (unsigned s = 0; s < SGPU_SIM_SOURCES; s++) capture(s);
#endif
    if (tracing) model->dump(2 * cycle);
    model->set(1, rst_n, in);
    model->eval();
    if (tracing) model->dump(2 * cycle + 1);
    model->get(out);  // irq_o after the edge
    cycle++;
  }

  // The fast model: `out` already holds this cycle's outputs, computed after
  // the last rising edge from the inputs loaded there; that edge took the
  // memory model's inputs of this cycle and the host port's as they stood
  // (the host request withdrawn once accepted, as every caller does).  When
  // the caller has changed a host-port input (or reset) since, load() puts
  // them in and the outputs are computed again.  Then the rising edge ends
  // the cycle and loads the next cycle's memory inputs, and its host inputs
  // only when they differ from those held (sgpu_sim_top.v: the logic that
  // depends on them alone then runs only when they change): one evaluation
  // of the chip per cycle.  The first cycle (in reset) sees the memory
  // inputs' registers at 0, not its own; the chip ignores them in reset.
  // irq_o depends on state only, so `out.irq` after the edge is the same as
  // the directly driven model's.
  void step_reg() {
    if (rst_n != loaded_rst || !in.same_host(loaded)) {
      fast->load(rst_n, in);
      loaded = in;
      loaded_rst = rst_n;
      fast->get(out);
    }
    accept();
    if (rst_n)
      for (unsigned s = 0; s < SGPU_SIM_SOURCES; s++) capture(s);
    mem_inputs(cycle + 1);
    Inputs next = in;
    if (host_accepted) next.host_valid = next.host_write = 0;
    const bool host = !next.same_host(loaded);
    loaded = next;
    fast->edge(rst_n, loaded, host);
    fast->get(out);
    if (mmu_on) mmu_count();
    cycle++;
  }

  // After the edge: each MMU's state and acceptance in the cycle now
  // computed (sgpu_mmu.v: S_IDLE 0, S_PDE_RSP 3, S_PTE_RSP 5).
  void mmu_count() {
    for (MmuTap &t : mmu) {
      sgpu_sim_mmu_stats &c = mmu_st[t.kind];
      const uint8_t st = *t.st;
      if (*t.acc) (*t.probe ? c.probes : c.translations)++;
      if (st != 0) {
        c.walk_cycles++;
        if (t.prev == 0) c.walks++;
        if (st == 3 && t.prev != 3) c.dir_reads++;
        if (st == 5 && t.prev != 5) c.table_reads++;
      }
      t.prev = st;
    }
  }

  // Drive one host request until accepted; for reads, wait for the answer.
  int host_access(bool write, uint32_t addr, uint32_t wdata, uint8_t wstrb, uint32_t *rdata) {
    in.host_valid = 1;
    in.host_write = write;
    in.host_addr = addr;
    in.host_wdata = wdata;
    in.host_wstrb = wstrb;
    uint32_t n = 0;
    bool got = false;
    for (;;) {
      step();
      if (!write && host_rsp) {  // answered in its own acceptance cycle
        got = true;
        if (rdata) *rdata = host_rdata;
      }
      if (host_accepted) break;
      if (++n >= kHostTimeout) {
        in.host_valid = 0;
        return -1;
      }
    }
    in.host_valid = 0;
    in.host_write = 0;
    if (write || got) return 0;
    for (n = 0; n < kHostTimeout; n++) {
      step();
      if (host_rsp) {
        if (rdata) *rdata = host_rdata;
        return 0;
      }
    }
    return -1;
  }
};

extern "C" {

sgpu_sim *sgpu_sim_create(const sgpu_sim_config *config) {
  std::unique_ptr<sgpu_sim> s(new (std::nothrow) sgpu_sim);
  if (!s) return nullptr;
  if (config) s->cfg = *config;
  if (s->cfg.stall_percent > 100) s->cfg.stall_percent = 100;
  if (s->cfg.stall_percent == 100) return nullptr;  // memory would never answer
  if (s->cfg.mem_latency == 0) s->cfg.mem_latency = 1;
  s->rng = s->cfg.seed ? s->cfg.seed : 0x9E3779B9u;
  xorshift32(s->rng);
  const char *tp = s->cfg.trace_path;
  s->tracing = tp && *tp;
  s->cfg.trace_path = nullptr;  // not kept: the caller's string may go away
  bool vcd = false;
  if (s->tracing) {
    const size_t n = std::strlen(tp);
    vcd = !(n >= 4 && std::strcmp(tp + n - 4, ".fst") == 0);
  }
  try {
    s->mem.assign(SGPU_SIM_MEM_BYTES, 0);
#if SGPU_SIM_FAST_ONLY
    (void)vcd;
    if (s->tracing) return nullptr;
    s->model.reset(new FastModel(false));
#else
    if (vcd)
      s->model.reset(new VcdModel(true));
    else if (s->tracing)
      s->model.reset(new FstModel(true));
    else
      s->model.reset(new FastModel(false));
#endif
    s->reg = !s->tracing && !SGPU_SIM_PIX_CDC;
    if (s->reg) s->fast = static_cast<FastModel *>(s->model.get());
  } catch (...) {
    return nullptr;
  }
  if (s->tracing && !s->model->open_trace(tp)) return nullptr;
  if (s->reg) {
    s->mmu = s->fast->mmu_taps();
    const char *f = std::getenv("SGPU_SIM_MMU_STATS");
    if (f && *f && !s->mmu.empty()) {
      s->mmu_file = f;
      s->mmu_on = true;
    }
  }
  s->rst_n = 0;
  if (s->reg) s->mem_inputs(0);  // step_reg() takes the inputs of a cycle before it
  for (uint32_t i = 0; i < kResetCycles; i++) s->step();
  s->rst_n = 1;
  s->step();
  return s.release();
}

#if SGPU_SIM_COVERAGE
// <dir>/sim.<pid>.<n>.dat: one file per chip, so that parallel tests and
// several chips in one process never overwrite each other.  The counter is
// the one piece of process-wide state, and only names files.
static void write_coverage(sgpu_sim *sim) {
  static std::atomic<unsigned> seq{0};
  const char *dir = std::getenv("SGPU_COVERAGE_DIR");
  if (!dir || !*dir) return;
  mkdir(dir, 0777);  // may exist; Verilator aborts if the file cannot be opened
  const std::string path = std::string(dir) + "/sim." + std::to_string((long)getpid()) + "." +
                           std::to_string(seq++) + ".dat";
  sim->model->write_coverage(path.c_str());
}
#endif

void sgpu_sim_destroy(sgpu_sim *sim) {
  if (!sim) return;
  if (!sim->mmu_file.empty())
    if (FILE *f = std::fopen(sim->mmu_file.c_str(), "a")) {
      static const char *const kind[SGPU_SIM_MMU_KINDS] = {"fetch", "writer", "2d"};
      for (unsigned k = 0; k < SGPU_SIM_MMU_KINDS; k++) {
        const sgpu_sim_mmu_stats &c = sim->mmu_st[k];
        std::fprintf(f, "mmu %s translations %llu probes %llu walks %llu dir_reads %llu table_reads %llu walk_cycles %llu\n",
                     kind[k], (unsigned long long)c.translations, (unsigned long long)c.probes,
                     (unsigned long long)c.walks, (unsigned long long)c.dir_reads, (unsigned long long)c.table_reads,
                     (unsigned long long)c.walk_cycles);
      }
      std::fclose(f);
    }
  sim->model->final_();
#if SGPU_SIM_COVERAGE
  write_coverage(sim);
#endif
  delete sim;
}

uint32_t sgpu_sim_nodes(const sgpu_sim *) { return SGPU_SIM_NODES; }
uint32_t sgpu_sim_sources(const sgpu_sim *) { return SGPU_SIM_SOURCES; }
uint32_t sgpu_sim_mem_bytes(const sgpu_sim *) { return SGPU_SIM_MEM_BYTES; }

void sgpu_sim_pixel_ratio(const sgpu_sim *, uint32_t *num, uint32_t *den) {
  if (num) *num = SGPU_SIM_PIX_CDC ? 201u : 1u;
  if (den) *den = SGPU_SIM_PIX_CDC ? 96u : 1u;
}

int sgpu_sim_reg_read(sgpu_sim *sim, uint32_t offset, uint32_t *value) {
  uint32_t v = 0;
  int r = sim->host_access(false, kRegSpace | (offset & 0xFFFu), 0, 0, &v);
  if (value) *value = r == 0 ? v : 0;
  return r;
}

int sgpu_sim_reg_write(sgpu_sim *sim, uint32_t offset, uint32_t value) {
  return sim->host_access(true, kRegSpace | (offset & 0xFFFu), value, 0xF, nullptr);
}

static bool range_ok(const sgpu_sim *sim, uint32_t address, uint32_t size) {
  return (uint64_t)address + size <= sim->mem.size();
}

int sgpu_sim_mem_read(sgpu_sim *sim, uint32_t address, void *data, uint32_t size) {
  if (!range_ok(sim, address, size) || (size && !data)) return -2;
  uint8_t *d = static_cast<uint8_t *>(data);
  uint32_t a = address;
  const uint64_t end = (uint64_t)address + size;
  while (a < end) {
    const uint32_t w = a & ~3u;
    uint32_t v;
    if (sim->host_access(false, w, 0, 0, &v) != 0) return -1;
    for (uint32_t b = a - w; b < 4 && a < end; b++, a++) *d++ = (uint8_t)(v >> (8 * b));
  }
  return 0;
}

int sgpu_sim_mem_write(sgpu_sim *sim, uint32_t address, const void *data, uint32_t size) {
  if (!range_ok(sim, address, size) || (size && !data)) return -2;
  const uint8_t *d = static_cast<const uint8_t *>(data);
  uint32_t a = address;
  const uint64_t end = (uint64_t)address + size;
  // Writes have no response: stream them, one request per accepted cycle.
  while (a < end) {
    const uint32_t w = a & ~3u;
    uint32_t v = 0;
    uint8_t strb = 0;
    for (uint32_t b = a - w; b < 4 && a < end; b++, a++) {
      v |= (uint32_t)*d++ << (8 * b);
      strb |= (uint8_t)(1u << b);
    }
    sim->in.host_valid = 1;
    sim->in.host_write = 1;
    sim->in.host_addr = w;
    sim->in.host_wdata = v;
    sim->in.host_wstrb = strb;
    uint32_t n = 0;
    do {
      sim->step();
      if (!sim->host_accepted && ++n >= kHostTimeout) {
        sim->in.host_valid = 0;
        return -1;
      }
    } while (!sim->host_accepted);
  }
  sim->in.host_valid = 0;
  sim->in.host_write = 0;
  return 0;
}

uint64_t sgpu_sim_run(sgpu_sim *sim, uint64_t max_cycles, int stop_on_irq) {
  uint64_t n = 0;
  while (n < max_cycles) {
    sim->step();
    n++;
    if (stop_on_irq && sim->out.irq) break;
  }
  return n;
}

uint64_t sgpu_sim_run_until_frame(sgpu_sim *sim, uint32_t source, uint64_t max_cycles) {
  if (source >= SGPU_SIM_SOURCES) return 0;
  const uint64_t frames = sim->cap[source].frames;
  uint64_t n = 0;
  while (n < max_cycles) {
    sim->step();
    n++;
    if (sim->cap[source].frames != frames) break;
  }
  return n;
}

uint64_t sgpu_sim_cycle(const sgpu_sim *sim) { return sim->cycle; }
int sgpu_sim_irq(const sgpu_sim *sim) { return sim->out.irq ? 1 : 0; }

int sgpu_sim_last_frame(sgpu_sim *sim, uint32_t source, sgpu_sim_frame *frame) {
  if (source >= SGPU_SIM_SOURCES || !frame) return -1;
  const Capture &c = sim->cap[source];
  if (c.frames == 0) {
    std::memset(frame, 0, sizeof *frame);
    return 0;
  }
  *frame = c.last;
  frame->rgb = c.last_rgb.data();
  return 0;
}

void sgpu_sim_mem_log_enable(sgpu_sim *sim, size_t capacity) {
  sim->log.clear();
  sim->log_base_seq = 0;
  sim->log_cap = capacity;
  sim->log_on = capacity > 0;
  // Responses still in flight refer to the old log: detach them.
  for (PendingRead &r : sim->rsp_q) r.log_seq = UINT64_MAX;
}

size_t sgpu_sim_mem_log(const sgpu_sim *sim, const sgpu_sim_mem_event **events) {
  const size_t n = sim->log.size() < sim->log_cap ? sim->log.size() : sim->log_cap;
  if (events) *events = n ? sim->log.data() + (sim->log.size() - n) : nullptr;
  return n;
}

int sgpu_sim_mmu_stats_enable(sgpu_sim *sim) {
  if (!sim->reg || sim->mmu.empty()) return -1;
  for (sgpu_sim_mmu_stats &c : sim->mmu_st) c = sgpu_sim_mmu_stats{};
  for (MmuTap &t : sim->mmu) t.prev = *t.st;
  sim->mmu_on = true;
  return 0;
}

int sgpu_sim_mmu_stats_get(const sgpu_sim *sim, uint32_t kind, sgpu_sim_mmu_stats *stats) {
  if (!sim->mmu_on || kind >= SGPU_SIM_MMU_KINDS || !stats) return -1;
  *stats = sim->mmu_st[kind];
  return 0;
}

uint64_t sgpu_sim_last_host_write_cycle(const sgpu_sim *sim) { return sim->last_host_write; }

int sgpu_sim_backdoor_read(sgpu_sim *sim, uint32_t address, void *data, uint32_t size) {
  if (!range_ok(sim, address, size) || (size && !data)) return -2;
  if (size) std::memcpy(data, &sim->mem[address], size);
  return 0;
}

int sgpu_sim_backdoor_write(sgpu_sim *sim, uint32_t address, const void *data, uint32_t size) {
  if (!range_ok(sim, address, size) || (size && !data)) return -2;
  if (size) std::memcpy(&sim->mem[address], data, size);
  return 0;
}

}  // extern "C"
