// sgpu_cp_regs: the node's register block on its own.  Random register
// writes (values biased to the checks' edges) against a model of the
// register map written here from the interface spec: which writes are
// refused with which CFG_ERROR bit (ring base and size, WPTR, RPTR_ADDR,
// CONTROL, WATCHDOG; read-only and unmapped offsets; the lock while
// enabled or busy), what each register then reads, the strobes to the
// executor (ring restart, engine reset, watchdog write); the status and
// pointer reads from the executor's inputs; the perf counters; the shadow
// RAM (FAULT_OPCODE and FAULT_FENCE only while faulted, LAST_FENCE and the
// context only after their commit, late by a cycle; the null context's
// WINDOW_SIZE is the memory size).  Once without the mirror, once with it
// (MIRROR = 1: the mirrored registers read 0 here).
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_sgpu_cp_regs;
  localparam IW = 16, MEMB = 65536;
  reg clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  reg         we = 0, re = 0;
  reg  [6:0]  ra = 0;
  reg  [31:0] wdata = 0;
  reg         preempted = 0;
  reg         busy = 0, faulted = 0, waiting = 0, ctx_null = 1, stall = 0, rword = 0, iword = 0, pdone = 0;
  reg  [1:0]  level = 0;
  reg  [IW-1:0] rptr = 0, haddr = 0;
  reg  [3:0]  freason = 0;
  reg  [31:0] sh_word = 0;
  reg         sh_hdr = 0, sh_ff = 0, sh_lf = 0, sh_cx = 0, lf_commit = 0, cx_commit = 0;
  reg  [1:0]  sh_idx = 0;

  wire [31:0] rd0, late0, rd1, late1;
  wire        cerr0, kept0, cerr1, kept1;
  wire [5:0]  cbits0, cbits1;
  wire [IW-1:0] base_o, mask_o, wptr_o, base_o1, mask_o1, wptr_o1;
  wire [IW-1:2] rpa_o, rpa_o1, save_o, save_o1;
  wire          preq_o, preq_o1;
  wire [23:0]   quantum_o, quantum_o1;
  wire        wb_o, en_o, cfgwe_o, rst_o, wdwe_o, wdon_o, wdnew_o;
  wire        wb_o1, en_o1, cfgwe_o1, rst_o1, wdwe_o1, wdon_o1, wdnew_o1;

  sgpu_cp_regs #(.IW(IW), .MEM_BYTES(MEMB), .PERF(1), .MIRROR(0)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .reg_we_i(we), .reg_addr_i(ra), .reg_wdata_i(wdata), .reg_re_i(re),
    .reg_rdata_o(rd0), .reg_rdata_late_o(late0), .cfg_err_o(cerr0), .reg_kept_o(kept0), .cfg_err_bits_o(cbits0),
    .ring_base_o(base_o), .ring_mask_o(mask_o), .wptr_o(wptr_o), .rptr_addr_o(rpa_o), .rptr_wb_o(wb_o),
    .enable_o(en_o), .ring_cfg_we_o(cfgwe_o), .reset_o(rst_o), .wdog_we_o(wdwe_o), .wdog_on_o(wdon_o),
    .wdog_new_o(wdnew_o),
    .preempt_req_o(preq_o), .save_addr_o(save_o), .quantum_o(quantum_o),
    .busy_i(busy), .faulted_i(faulted), .preempted_i(preempted), .waiting_i(waiting), .level_i(level), .rptr_i(rptr),
    .hdr_addr_i(haddr), .fault_reason_i(freason), .ctx_null_i(ctx_null),
    .stall_i(stall), .ring_word_i(rword), .ib_word_i(iword), .pkt_done_i(pdone),
    .sh_word_i(sh_word), .sh_hdr_we_i(sh_hdr), .sh_ffence_we_i(sh_ff), .sh_lf_we_i(sh_lf),
    .sh_cx_we_i(sh_cx), .sh_cx_idx_i(sh_idx), .lf_commit_i(lf_commit), .cx_commit_i(cx_commit));
  // the chip's configuration: mirrored registers, no perf counters
  sgpu_cp_regs #(.IW(IW), .MEM_BYTES(MEMB), .PERF(0), .MIRROR(1)) dut1 (
    .clk_i(clk), .rst_ni(rst_n),
    .reg_we_i(we), .reg_addr_i(ra), .reg_wdata_i(wdata), .reg_re_i(re),
    .reg_rdata_o(rd1), .reg_rdata_late_o(late1), .cfg_err_o(cerr1), .reg_kept_o(kept1), .cfg_err_bits_o(cbits1),
    .ring_base_o(base_o1), .ring_mask_o(mask_o1), .wptr_o(wptr_o1), .rptr_addr_o(rpa_o1), .rptr_wb_o(wb_o1),
    .enable_o(en_o1), .ring_cfg_we_o(cfgwe_o1), .reset_o(rst_o1), .wdog_we_o(wdwe_o1), .wdog_on_o(wdon_o1),
    .wdog_new_o(wdnew_o1),
    .preempt_req_o(preq_o1), .save_addr_o(save_o1), .quantum_o(quantum_o1),
    .busy_i(busy), .faulted_i(faulted), .preempted_i(preempted), .waiting_i(waiting), .level_i(level), .rptr_i(rptr),
    .hdr_addr_i(haddr), .fault_reason_i(freason), .ctx_null_i(ctx_null),
    .stall_i(stall), .ring_word_i(rword), .ib_word_i(iword), .pkt_done_i(pdone),
    .sh_word_i(sh_word), .sh_hdr_we_i(sh_hdr), .sh_ffence_we_i(sh_ff), .sh_lf_we_i(sh_lf),
    .sh_cx_we_i(sh_cx), .sh_cx_idx_i(sh_idx), .lf_commit_i(lf_commit), .cx_commit_i(cx_commit));

  // ---- the model
  localparam SIZE = 0, ALIGN = 1, PTR = 2, BITS = 3, VAL = 4, EN = 5;
  reg [31:0] m_base, m_size, m_wptr, m_rpa, m_en, m_wdog, m_save, m_pre, m_quantum;
  reg        e_preq;
  reg [31:0] m_busy, m_stall, m_words, m_pkts;
  reg [31:0] m_opcode, m_ffence;
  reg [31:0] m_lf [0:1], m_cx [0:5];   // two slots each: the current one, and the spare being written
  reg        m_lf_ok, m_lf_cur, m_cx_cur;
  reg [5:0]  e_bits;
  reg        e_kept, e_cfgwe, e_rst, e_wdwe;

  // the perf counters count every cycle's events
  always @(posedge clk) if (rst_n) begin
    m_busy <= m_busy + busy; m_stall <= m_stall + stall; m_words <= m_words + rword + iword;
    m_pkts <= m_pkts + pdone;
  end

  function is_pow2_size(input [31:0] v);
    integer b;
    begin
      is_pow2_size = 1'b0;
      for (b = 6; b <= 20; b = b + 1) if (v == (32'd1 << b)) is_pow2_size = 1'b1;
    end
  endfunction

  // the model's answer to a write (sets e_*, updates the model)
  task model_write(input [6:0] a, input [31:0] d);
    reg locked;
    begin
      e_bits = 0; e_kept = 0; e_cfgwe = 0; e_rst = 0; e_wdwe = 0; e_preq = 0;
      locked = m_en[0] || busy;
      case (a)
        7'h00: if (locked) e_bits[EN] = 1; else if (d % 64 != 0) e_bits[ALIGN] = 1;
               else if (d >= MEMB) e_bits[VAL] = 1;
               else begin m_base = d; m_wptr = 0; e_kept = 1; e_cfgwe = 1; end
        7'h04: if (locked) e_bits[EN] = 1; else if (!is_pow2_size(d)) e_bits[SIZE] = 1;
               else begin m_size = d; m_wptr = 0; e_kept = 1; e_cfgwe = 1; end
        7'h08: if (d % 4 != 0) e_bits[ALIGN] = 1; else if (d >= m_size) e_bits[PTR] = 1;
               else m_wptr = d % MEMB;   // a ring larger than memory (never enabled) keeps IW bits
        7'h10: if (locked) e_bits[EN] = 1; else if (d[1]) e_bits[BITS] = 1;
               else if (d >= MEMB) e_bits[VAL] = 1;
               else begin m_rpa = d; e_kept = 1; end
        7'h14: if (d > 3) e_bits[BITS] = 1;
               else if (d[1]) begin e_rst = 1; m_wptr = 0; end
               else if (d[0] && !m_en[0] && m_base % m_size != 0) e_bits[ALIGN] = 1;
               else if (d[0] && !m_en[0] && m_size > MEMB) e_bits[VAL] = 1;
               else begin m_en = d; e_kept = 1; end
        7'h2C: if (d > 32'hFF_FFFF) e_bits[VAL] = 1; else begin m_wdog = d; e_kept = 1; e_wdwe = 1; end
        7'h54: if (d % 4 != 0) e_bits[ALIGN] = 1; else if (d >= MEMB) e_bits[VAL] = 1;
               else begin m_save = d; e_kept = 1; end
        7'h58: begin m_pre = d; e_kept = 1; e_preq = 1; end
        7'h5C: if (d > 32'hFF_FFFF) e_bits[VAL] = 1; else begin m_quantum = d; e_kept = 1; end
        default: e_bits[BITS] = 1;
      endcase
    end
  endtask

  // a host read: the combinational word, or the late one a cycle after
  reg [31:0] got, got1;
  task rd(input [6:0] a);
    begin
      @(negedge clk); re = 1; ra = a; #1;
      got = rd0; got1 = rd1;
      if (a == 7'h24 || a == 7'h28 || a == 7'h30 || a == 7'h44 || a == 7'h48 || a == 7'h4C) begin
        @(posedge clk); #1;
        got = got | late0; got1 = got1 | late1;
      end
      re = 0;
    end
  endtask

  function [31:0] model_read(input [6:0] a, input mirror);
    case (a)
      7'h00: model_read = mirror ? 0 : m_base;
      7'h04: model_read = mirror ? 0 : m_size;
      7'h08: model_read = m_wptr;
      7'h0C: model_read = rptr;
      7'h10: model_read = mirror ? 0 : m_rpa;
      7'h14: model_read = mirror ? 0 : m_en;
      7'h18: model_read = {23'd0, preempted, 2'b00, level, m_en[0], waiting, faulted, busy};
      7'h1C: model_read = freason;
      7'h20: model_read = faulted ? haddr : 0;
      7'h24: model_read = faulted ? m_opcode : 0;
      7'h28: model_read = faulted ? m_ffence : 0;
      7'h2C: model_read = mirror ? 0 : m_wdog;
      7'h30: model_read = m_lf_ok ? m_lf[m_lf_cur] : 0;
      7'h34: model_read = mirror ? 0 : m_busy;     // PERF = 0 with the mirror
      7'h38: model_read = mirror ? 0 : m_stall;
      7'h3C: model_read = mirror ? 0 : m_words;
      7'h40: model_read = mirror ? 0 : m_pkts;
      7'h44: model_read = ctx_null ? 0 : m_cx[3 * m_cx_cur];
      7'h48: model_read = ctx_null ? 0 : m_cx[3 * m_cx_cur + 1];
      7'h4C: model_read = ctx_null ? MEMB : m_cx[3 * m_cx_cur + 2];
      7'h50: model_read = haddr;
      7'h54: model_read = mirror ? 0 : m_save;
      7'h58: model_read = mirror ? 0 : m_pre;
      7'h5C: model_read = mirror ? 0 : m_quantum;
      default: model_read = 0;
    endcase
  endfunction

  task check_all;
    integer r;
    begin
      for (r = 0; r < 7'h60; r = r + 4) begin
        rd(r);
        if (got !== model_read(r, 0)) $fatal(1, "read %h: %h, expected %h", r, got, model_read(r, 0));
        if (got1 !== model_read(r, 1)) $fatal(1, "mirror: read %h: %h, expected %h", r, got1, model_read(r, 1));
      end
      if (base_o !== m_base[IW-1:0] || mask_o !== (m_size[IW-1:0] - 1'b1) || wptr_o !== m_wptr[IW-1:0] ||
          {rpa_o, 1'b0, wb_o} !== m_rpa[IW-1:0] || en_o !== m_en[0] ||
          {save_o, 2'b00} !== m_save[IW-1:0] || save_o1 !== save_o ||
          quantum_o !== m_quantum[23:0] || quantum_o1 !== quantum_o)
        $fatal(1, "configuration outputs: base %h mask %h wptr %h rpa %h en %b", base_o, mask_o, wptr_o, rpa_o, en_o);
    end
  endtask

  integer seed, k, n, i;
  reg [6:0]  wa;
  reg [31:0] wd;
  reg        was_wdog;
  reg [5:0]  seen_bits;
  integer    n_kept, n_reset;
  reg [31:0] wdog_val;
  `include "tb_random.vh"
  localparam NADDR = 8;
  function [6:0] pick_addr(input dummy);
    case ($unsigned(tb_random(0)) % 13)
      0: pick_addr = 7'h00; 1: pick_addr = 7'h04; 2, 3: pick_addr = 7'h08; 4: pick_addr = 7'h10;
      5, 6: pick_addr = 7'h14; 7: pick_addr = 7'h2C;
      10: pick_addr = 7'h54; 11: pick_addr = 7'h58; 12: pick_addr = 7'h5C;
      default: pick_addr = 7'h04;
      8: pick_addr = 7'h0C + 4 * ($unsigned(tb_random(0)) % 4);   // read-only: RPTR, STATUS, ...
      9: pick_addr = tb_random(0);                                 // anything, unaligned too
    endcase
  endfunction
  function [31:0] pick_data(input [6:0] a);
    case ($unsigned(tb_random(0)) % 6)
      0: pick_data = tb_random(0);
      1: pick_data = 32'd1 << ($unsigned(tb_random(0)) % 32);
      2: pick_data = (32'd1 << ($unsigned(tb_random(0)) % 32)) | (32'd1 << ($unsigned(tb_random(0)) % 32));
      3: pick_data = $unsigned(tb_random(0)) % 4;
      4: pick_data = (a == 7'h08) ? ($unsigned(tb_random(0)) % m_size) & ~32'h3 :
                     (a == 7'h00) ? ($unsigned(tb_random(0)) % 32'h20000) & ~32'h3F :
                     (a == 7'h10) ? ($unsigned(tb_random(0)) % 32'h20000) & ~32'h2 :
                     (a == 7'h54) ? ($unsigned(tb_random(0)) % 32'h28000) & ~32'h3 :
                     (a == 7'h2C || a == 7'h5C) ? $unsigned(tb_random(0)) % 32'h2000000 : $unsigned(tb_random(0)) % 4;
      default: pick_data = $unsigned(tb_random(0)) >> ($unsigned(tb_random(0)) % 32);
    endcase
  endfunction

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 11;
    m_base = 0; m_size = 64; m_wptr = 0; m_rpa = 0; m_en = 0; m_wdog = 0; m_save = 0; m_pre = 0; m_quantum = 0;
    m_busy = 0; m_stall = 0; m_words = 0; m_pkts = 0;
    m_opcode = 0; m_ffence = 0; m_lf_ok = 0; m_lf_cur = 0; m_cx_cur = 0;
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    check_all;

    // ---- register writes
    seen_bits = 0; n_kept = 0; n_reset = 0;
    for (k = 0; k < 3000; k = k + 1) begin
      @(negedge clk);
      busy = ($unsigned(tb_random(0)) % 8 == 0);
      wa = pick_addr(0); wd = pick_data(wa);
      we = 1; ra = wa; wdata = wd;
      #1;
      model_write(wa, wd);
      if (cbits0 !== e_bits || cerr0 !== (e_bits != 0) || kept0 !== e_kept || cfgwe_o !== e_cfgwe ||
          rst_o !== e_rst || wdwe_o !== e_wdwe || preq_o !== e_preq || preq_o1 !== e_preq)
        $fatal(1, "write %h <- %h (busy %b): bits %b kept %b cfg %b reset %b wdog %b; expected %b %b %b %b %b",
               wa, wd, busy, cbits0, kept0, cfgwe_o, rst_o, wdwe_o, e_bits, e_kept, e_cfgwe, e_rst, e_wdwe);
      if (cbits1 !== e_bits || kept1 !== e_kept || rst_o1 !== e_rst) $fatal(1, "mirror: write checks differ");
      was_wdog = e_wdwe; wdog_val = wd;
      seen_bits = seen_bits | e_bits; n_kept = n_kept + e_kept; n_reset = n_reset + e_rst;
      @(posedge clk); #1 we = 0;
      if (wdnew_o !== was_wdog) $fatal(1, "WATCHDOG written last cycle: %b", wdnew_o);
      if (was_wdog && wdon_o !== (wdog_val != 0)) $fatal(1, "WATCHDOG on: %b for %h", wdon_o, wdog_val);
      busy = 0;
      if (k % 25 == 0) check_all;
    end
    check_all;
    if (seen_bits != 6'h3F || n_kept < 100 || n_reset == 0)
      $fatal(1, "writes not varied: bits %b, %0d kept, %0d resets", seen_bits, n_kept, n_reset);

    // ---- status and pointers from the executor
    for (k = 0; k < 200; k = k + 1) begin
      busy = tb_random(0); faulted = tb_random(0); waiting = tb_random(0); level = tb_random(0);
      preempted = tb_random(0);
      rptr = tb_random(0) & ~32'h3; haddr = tb_random(0) & ~32'h3; freason = tb_random(0);
      rd(7'h18); if (got !== model_read(7'h18, 0)) $fatal(1, "STATUS %h", got);
      rd(7'h0C); if (got !== rptr) $fatal(1, "RPTR %h", got);
      rd(7'h1C); if (got !== freason) $fatal(1, "FAULT_REASON %h", got);
      rd(7'h20); if (got !== model_read(7'h20, 0) || got1 !== got) $fatal(1, "FAULT_ADDR %h", got);
      rd(7'h50); if (got !== haddr) $fatal(1, "CUR_ADDR %h", got);
    end
    busy = 0; faulted = 0; preempted = 0;

    // ---- perf counters
    for (k = 0; k < 2000; k = k + 1) begin
      @(negedge clk);
      busy = tb_random(0); stall = tb_random(0); rword = tb_random(0); iword = tb_random(0); pdone = tb_random(0);
      @(posedge clk); #1;
    end
    @(negedge clk); busy = 0; stall = 0; rword = 0; iword = 0; pdone = 0;
    check_all;

    // ---- shadow RAM: first every slot written once, as the executor does
    // (a FENCE's value before its commit, CONTEXT's three words before its)
    for (k = 0; k < 600; k = k + 1) begin
      @(negedge clk);
      sh_word = tb_random(0);
      n = (k < 8) ? ((k % 4 == 3) ? 5 : 3) : (k < 12) ? ((k % 2) ? 4 : 2) : $unsigned(tb_random(0)) % 7;
      sh_hdr = (n == 0); sh_ff = (n == 1); sh_lf = (n == 2); sh_cx = (n == 3);
      sh_idx = (k < 8) ? k % 4 : $unsigned(tb_random(0)) % 3;
      lf_commit = (n == 4); cx_commit = (n == 5);
      @(posedge clk); #1;
      if (sh_hdr) m_opcode = sh_word;
      if (sh_ff) m_ffence = sh_word;
      if (sh_lf) m_lf[!m_lf_cur] = sh_word;
      if (sh_cx) m_cx[3 * !m_cx_cur + sh_idx] = sh_word;
      if (lf_commit) begin m_lf_cur = !m_lf_cur; m_lf_ok = 1; end
      if (cx_commit) m_cx_cur = !m_cx_cur;
      sh_hdr = 0; sh_ff = 0; sh_lf = 0; sh_cx = 0; lf_commit = 0; cx_commit = 0;
      if (k >= 12) begin faulted = tb_random(0); ctx_null = tb_random(0); end
      if (k % 3 == 0) check_all;
    end
    $display("PASS tb_sgpu_cp_regs");
    $finish;
  end
endmodule
