// sgpu_cp_exec: the executor without the register block.  The bench
// drives the configuration (ring base, size, WPTR, ENABLE, RPTR write-back,
// engine reset, watchdog) straight into the executor's inputs, as
// sgpu_cp_regs would after checked writes, and serves its three memory
// ports from one memory with random back-pressure; the executor's peers
// are the real decoder, writer and WAIT unit, wired as in sgpu_cp.  Each
// case writes a ring (and buffers) in memory and checks the outcome against
// what the bench itself expects: the words in memory, RPTR and its
// write-back, the IB level reached, the 2D command's and flip's fields,
// the fault and its packet address, the watchdog's delay, the engine reset.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_sgpu_cp_exec;
  localparam IW = 16, MEMB = 65536, WORDS = MEMB / 4;
  reg clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;
  reg [63:0] cycle = 64'h0000_0007_FFFF_FFF0;
  always @(posedge clk) cycle <= cycle + 1;
  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

  // ---------------------------------------------------------------- configuration
  reg  [IW-1:0] base = 0, mask = 0, wptr = 0;
  reg           rptr_wb = 0, enable = 0, cfg_we = 0, eng_reset = 0;
  reg           wdog_we = 0, wdog_on = 0, wdog_new = 0;
  reg  [23:0]   wdog_limit = 0;
  reg           hold = 0;       // priority hold (a higher ring runs)
  wire          runnable, quiet;
  always @(posedge clk) begin
    wdog_new <= wdog_we;
    if (wdog_we) wdog_on <= (wdog_limit != 0);
  end

  // ---------------------------------------------------------------- memory
  reg [31:0] mem [0:WORDS-1];
  integer bp = 30;     // percent of cycles a port refuses
  reg r_rdy = 1, i_rdy = 1, w_rdy = 1;
  always @(negedge clk) begin
    r_rdy <= ($unsigned($random) % 100) >= bp;
    i_rdy <= ($unsigned($random) % 100) >= bp;
    w_rdy <= ($unsigned($random) % 100) >= bp;
  end
  wire        r_v, i_v, w_v, w_w;
  wire [31:0] r_a, i_a, w_a, w_d;
  wire [3:0]  w_s;
  reg         r_rv = 0, i_rv = 0, w_rv = 0;
  reg  [31:0] r_rd = 0, i_rd = 0, w_rd = 0;
  integer writes = 0;
  always @(posedge clk) begin
    r_rv <= r_v && r_rdy; r_rd <= mem[r_a[IW-1:2]];
    i_rv <= i_v && i_rdy; i_rd <= mem[i_a[IW-1:2]];
    w_rv <= w_v && w_rdy && !w_w; w_rd <= mem[w_a[IW-1:2]];
    if (w_v && w_rdy && w_w) begin
      if (w_s != 4'hF) $fatal(1, "partial write");
      mem[w_a[IW-1:2]] <= w_d; writes = writes + 1;
    end
    if ((r_v && r_a >= MEMB) || (i_v && i_a >= MEMB) || (w_v && w_a >= MEMB)) $fatal(1, "access outside memory");
  end

  integer polls = 0, ring_reads = 0;   // writer-port reads (WAIT_MEM polls), ring fetch reads
  always @(posedge clk) begin
    if (w_v && w_rdy && !w_w) polls = polls + 1;
    if (r_v && r_rdy) ring_reads = ring_reads + 1;
  end

  // ---------------------------------------------------------------- 2D engine and display
  wire        b_v, b_copy, b_abort;
  wire [31:0] b_dst, b_src, b_pat;
  wire [15:0] b_dp, b_sp, b_w, b_h;
  reg         b_busy = 0;
  integer     b_timer = 0, b_cmds = 0;
  reg  [31:0] bl_dst, bl_src, bl_pat;
  reg  [15:0] bl_dp, bl_sp, bl_w, bl_h;
  reg         bl_copy;
  always @(posedge clk) begin
    if (b_v && !b_busy) begin
      b_busy <= 1; b_timer = 6; b_cmds = b_cmds + 1;
      bl_copy = b_copy; bl_dst = b_dst; bl_src = b_src; bl_pat = b_pat;
      bl_dp = b_dp; bl_sp = b_sp; bl_w = b_w; bl_h = b_h;
    end else if (b_busy) begin
      b_timer = b_timer - 1;
      if (b_timer == 0) b_busy <= 0;
    end
  end
  wire        f_v, f_src;
  wire [31:0] f_addr;
  wire [2:0]  f_int;
  reg         f_pend = 0, vblank = 0, in_vbl = 0;
  reg  [15:0] scanline = 0;
  integer     flips = 0, vcnt = 0;
  reg  [31:0] fl_addr;
  reg  [2:0]  fl_int;
  always @(posedge clk) begin
    vcnt <= (vcnt + 1) % 200;
    vblank <= (vcnt + 1 == 150);
    in_vbl <= (vcnt + 1 >= 150);
    scanline <= ((vcnt + 1) % 200) / 4;
    if (f_v && !f_pend) begin f_pend <= 1; flips = flips + 1; fl_addr = f_addr; fl_int = f_int; end
    else if (vcnt + 1 == 150) f_pend <= 0;
  end

  // ---------------------------------------------------------------- the executor and its peers
  wire [IW-1:0] rptr, hdr_addr, addr;
  wire          busy, faulted, waiting, ctx_null, stall, ring_word, ib_word, pkt_done, firq, dirq;
  wire [1:0]    level;
  wire [3:0]    freason;
  wire [4:0]    state;
  wire [31:0]   sh_word, hdr, arg2, wr_data, wait_mask, wait_ref, scan_lines;
  wire          sh_hdr, sh_ff, sh_lf, sh_cx, cx_commit;
  wire [1:0]    sh_idx, arg_lo;
  wire          look, u16w, ib_full, in_ib, addr_hi, u16_bad, ctx_nz, phase, oor, win, empty;
  wire [IW-1:2] left;
  wire [3:0]    hf, pf, rf;
  wire [7:0]    op;
  wire [2:0]    idx, wfunc;
  wire [15:0]   pitch, width, height;
  wire          s_wdata, s_one, s_wb, s_poll, ts_start, stop, wvalid, ts_hi, wstep, tstep, fdone, psent;
  wire          cmp, src, ppend, pok, gdone, svbl, sscan, spend;

  sgpu_cp_exec #(.IW(IW), .MEM_BYTES(MEMB), .IB_DEPTH(2)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .ring_base_i(base), .ring_mask_i(mask), .wptr_i(wptr), .rptr_wb_i(rptr_wb), .enable_i(enable),
    .ring_cfg_we_i(cfg_we), .reset_i(eng_reset), .wdog_we_i(wdog_we), .wdog_limit_i(wdog_limit),
    .wdog_on_i(wdog_on), .wdog_new_i(wdog_new),
    .preempt_req_i(1'b0), .preempt_fence_i(32'd0), .save_addr_i({(IW-2){1'b0}}),  // preemption: tb_sgpu_cp and the chip tests
    .hold_i(hold), .runnable_o(runnable), .quiet_o(quiet),
    .busy_o(busy), .faulted_o(faulted), .waiting_o(waiting), .level_o(level), .rptr_o(rptr),
    .hdr_addr_o(hdr_addr), .fault_reason_o(freason), .ctx_null_o(ctx_null), .stall_o(stall),
    .ring_word_o(ring_word), .ib_word_o(ib_word), .pkt_done_o(pkt_done), .fault_irq_o(firq),
    .done_irq_o(dirq), .state_o(state),
    .sh_word_o(sh_word), .sh_hdr_we_o(sh_hdr), .sh_ffence_we_o(sh_ff), .sh_lf_we_o(sh_lf),
    .sh_cx_we_o(sh_cx), .sh_cx_idx_o(sh_idx), .cx_commit_o(cx_commit),
    .hdr_look_o(look), .hdr_o(hdr), .words_left_o(left), .hdr_fault_i(hf),
    .op_o(op), .pay_idx_o(idx), .u16_word_i(u16w), .ib_full_o(ib_full), .in_ib_o(in_ib),
    .addr_o(addr), .addr_hi_o(addr_hi), .arg_lo_o(arg_lo), .arg2_o(arg2), .pitch_o(pitch),
    .width_o(width), .height_o(height), .u16_bad_o(u16_bad), .ctx_id_nz_o(ctx_nz),
    .src_phase_o(phase), .oor_o(oor), .win_o(win), .pkt_fault_i(pf), .rect_fault_i(rf), .empty_i(empty),
    .st_wdata_o(s_wdata), .st_one_o(s_one), .st_wb_o(s_wb), .st_poll_o(s_poll), .ts_start_o(ts_start),
    .wr_stop_o(stop), .word_valid_o(wvalid), .wr_valid_i(w_v), .wr_ready_i(w_rdy), .rsp_valid_i(w_rv),
    .ts_hi_i(ts_hi), .wdata_step_i(wstep), .ts_step_i(tstep), .wr_data_o(wr_data),
    .cycle_hi_i(cycle[63:32]),
    .wait_cmp_o(cmp), .src_o(src), .wait_func_o(wfunc), .wait_mask_o(wait_mask), .wait_ref_o(wait_ref),
    .scan_lines_o(scan_lines), .poll_pend_i(ppend), .poll_ok_i(pok), .gap_done_i(gdone),
    .vblank_i(svbl), .in_scan_i(sscan), .flip_pending_i(spend),
    .ring_req_valid_o(r_v), .ring_req_ready_i(r_rdy), .ring_req_addr_o(r_a),
    .ring_rsp_valid_i(r_rv), .ring_rsp_rdata_i(r_rd),
    .ib_req_valid_o(i_v), .ib_req_ready_i(i_rdy), .ib_req_addr_o(i_a),
    .ib_rsp_valid_i(i_rv), .ib_rsp_rdata_i(i_rd),
    .blit_valid_o(b_v), .blit_ready_i(!b_busy), .blit_copy_o(b_copy), .blit_dst_o(b_dst),
    .blit_dst_pitch_o(b_dp), .blit_src_o(b_src), .blit_src_pitch_o(b_sp), .blit_width_o(b_w),
    .blit_height_o(b_h), .blit_pattern_o(b_pat), .blit_busy_i(b_busy), .blit_progress_i(1'b0),
    .blit_abort_o(b_abort),
    .flip_valid_o(f_v), .flip_ready_i(!f_pend), .flip_src_o(f_src), .flip_addr_o(f_addr),
    .flip_interval_o(f_int));
  sgpu_cp_decode #(.IW(IW), .SOURCES(1)) u_decode (
    .hdr_look_i(look), .hdr_i(hdr), .words_left_i(left), .hdr_fault_o(hf),
    .op_i(op), .pay_idx_i(idx), .u16_word_o(u16w), .func_i(wfunc), .ib_full_i(ib_full), .in_ib_i(in_ib),
    .addr_i(addr), .addr_hi_i(addr_hi), .arg_lo_i(arg_lo), .arg2_i(arg2), .pitch_i(pitch),
    .width_i(width), .height_i(height), .u16_bad_i(u16_bad), .ctx_id_nz_i(ctx_nz), .src_phase_i(phase),
    .oor_i(oor), .win_i(win), .pkt_fault_o(pf), .rect_fault_o(rf), .empty_o(empty));
  sgpu_cp_writer #(.IW(IW)) u_writer (
    .clk_i(clk), .rst_ni(rst_n),
    .st_wdata_i(s_wdata), .st_one_i(s_one), .st_wb_i(s_wb), .st_poll_i(s_poll),
    .op_fence_i(op == `SGPU_OP_FENCE), .op_ts_i(op == `SGPU_OP_TIMESTAMP), .ts_start_i(ts_start),
    .stop_i(stop), .poll_pend_i(ppend), .word_valid_i(wvalid), .word_i(sh_word), .addr_i(addr),
    .data_i(wr_data), .rptr_addr_i(14'h3F00), .rptr_i(rptr), .cycle_lo_i(cycle[31:0]),
    .wr_req_valid_o(w_v), .wr_req_ready_i(w_rdy), .wr_req_write_o(w_w), .wr_req_addr_o(w_a),
    .wr_req_wdata_o(w_d), .wr_req_wstrb_o(w_s), .ts_hi_o(ts_hi), .wdata_step_o(wstep),
    .ts_step_o(tstep), .fence_done_o(fdone), .poll_sent_o(psent), .f_wdata_live_o());
  sgpu_cp_wait #(.SOURCES(1), .LINE_W(16)) u_wait (
    .clk_i(clk), .rst_ni(rst_n), .func_i(wfunc), .mask_i(wait_mask), .ref_i(wait_ref),
    .poll_sent_i(psent), .rsp_valid_i(w_rv), .rsp_rdata_i(w_rd), .cmp_i(cmp),
    .poll_pend_o(ppend), .poll_ok_o(pok), .gap_done_o(gdone), .src_i(src), .lines_i(scan_lines),
    .vblank_i(vblank), .in_vblank_i(in_vbl), .flip_pending_i(f_pend), .scanline_i(scanline),
    .vblank_o(svbl), .in_scan_o(sscan), .flip_pending_o(spend));
  localparam [31:0] RPTR_WB_ADDR = 32'h3F00 << 2;

  // events
  integer dirqs = 0, firqs = 0, pkts = 0, max_level = 0;
  always @(posedge clk) if (rst_n) begin
    dirqs = dirqs + dirq; firqs = firqs + firq; pkts = pkts + pkt_done;
    if (level > max_level) max_level = level;
  end

  // ---------------------------------------------------------------- helpers
  localparam [31:0] RBASE = 32'h1000, RSIZE = 32'h400;
  reg [31:0] wp;             // the bench's WPTR (ring offset)
  function [31:0] H(input [7:0] o, input [13:0] n, input [7:0] f);
    H = {2'b11, n, f, o};
  endfunction
  task put(input [31:0] w);
    begin mem[(RBASE + wp) >> 2] = w; wp = (wp + 4) % RSIZE; end
  endtask
  task kick; begin @(negedge clk); wptr = wp; end endtask
  task settle;   // until the ring is empty and the engine idle (or faulted)
    integer t;
    begin
      t = 0;
      @(posedge clk); #1;
      while ((busy && !faulted) && t < 20000) begin @(posedge clk); #1 t = t + 1; end
      if (t >= 20000) $fatal(1, "executor stuck in state %0d", state);
    end
  endtask
  task engine_reset;
    begin
      @(negedge clk); eng_reset = 1; wptr = 0; @(negedge clk); eng_reset = 0; wp = 0;
      wait (!b_abort); @(negedge clk);
      if (rptr !== 0 || faulted || freason !== 0 || level !== 0 || !ctx_null) $fatal(1, "engine reset");
    end
  endtask
  task expect_fault(input [3:0] reason, input [31:0] at);
    begin
      if (!faulted) $fatal(1, "no fault, expected %0d", reason);
      if (freason !== reason) $fatal(1, "fault %0d, expected %0d", freason, reason);
      if ({16'd0, hdr_addr} !== at) $fatal(1, "fault at %h, expected %h", hdr_addr, at);
    end
  endtask

  integer seed, k, i, t0, w0, d0, p0;
  reg [31:0] a0, ts_lo, ts_hi_v, ib1, ib2, ib_fault_hdr;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    for (k = 0; k < WORDS; k = k + 1) mem[k] = 32'd0;
    repeat (3) @(posedge clk);
    #1 rst_n = 1;
    // the ring: as sgpu_cp_regs delivers it once RING_BASE, RING_SIZE and CONTROL are written
    @(negedge clk); base = RBASE; mask = RSIZE - 1; cfg_we = 1; @(negedge clk); cfg_we = 0; enable = 1;
    wp = 0;

    // ---- FENCE (with IRQ), WRITE_DATA, TIMESTAMP, NOP
    d0 = dirqs; p0 = pkts;
    put(H(8'h00, 2, 0)); put(32'hAAAA); put(32'hBBBB);                       // NOP, skipped
    put(H(8'h03, 4, 0)); put(32'h2000); put(32'h11); put(32'h22); put(32'h33);  // WRITE_DATA 3 words
    put(H(8'h02, 2, 1)); put(32'h2100); put(32'd42);                          // FENCE, IRQ
    put(H(8'h0B, 1, 0)); put(32'h2200);                                       // TIMESTAMP
    put(H(8'h02, 2, 0)); put(32'h2104); put(32'd43);                          // FENCE
    kick; settle;
    if (faulted) $fatal(1, "fault %0d in a valid ring", freason);
    if (mem[32'h2000 >> 2] !== 32'h11 || mem[32'h2004 >> 2] !== 32'h22 || mem[32'h2008 >> 2] !== 32'h33)
      $fatal(1, "WRITE_DATA: %h %h %h", mem[32'h2000 >> 2], mem[32'h2004 >> 2], mem[32'h2008 >> 2]);
    if (mem[32'h2100 >> 2] !== 42 || mem[32'h2104 >> 2] !== 43) $fatal(1, "FENCE values");
    ts_lo = mem[32'h2200 >> 2]; ts_hi_v = mem[32'h2204 >> 2];
    // one 64-bit count (the high word of the low word's cycle), near the carry, and of the past
    if ({ts_hi_v, ts_lo} < 64'h0000_0007_FFFF_FFF0 || {ts_hi_v, ts_lo} > cycle)
      $fatal(1, "TIMESTAMP %h_%h (now %h)", ts_hi_v, ts_lo, cycle);
    if (dirqs - d0 != 1) $fatal(1, "%0d done interrupts, expected 1", dirqs - d0);
    if (pkts - p0 != 5) $fatal(1, "%0d packets done, expected 5", pkts - p0);
    if (rptr !== wp[IW-1:0]) $fatal(1, "RPTR %h, WPTR %h", rptr, wp);

    // ---- RPTR write-back after each ring packet
    @(negedge clk); rptr_wb = 1;
    put(H(8'h02, 2, 0)); put(32'h2108); put(32'd44);
    kick; settle;
    if (mem[RPTR_WB_ADDR >> 2] !== wp) $fatal(1, "RPTR write-back %h, expected %h", mem[RPTR_WB_ADDR >> 2], wp);
    @(negedge clk); rptr_wb = 0;

    // ---- INDIRECT two levels deep; the ring's FENCE after it
    ib1 = 32'h4000; ib2 = 32'h5000;
    mem[(ib1 >> 2) + 0] = H(8'h02, 2, 0); mem[(ib1 >> 2) + 1] = 32'h2300; mem[(ib1 >> 2) + 2] = 32'd1;
    mem[(ib1 >> 2) + 3] = H(8'h01, 3, 0); mem[(ib1 >> 2) + 4] = ib2; mem[(ib1 >> 2) + 5] = 32'd16;
    mem[(ib1 >> 2) + 6] = 32'd0;
    mem[(ib1 >> 2) + 7] = H(8'h02, 2, 0); mem[(ib1 >> 2) + 8] = 32'h2308; mem[(ib1 >> 2) + 9] = 32'd3;
    mem[(ib2 >> 2) + 0] = H(8'h03, 2, 0); mem[(ib2 >> 2) + 1] = 32'h2304; mem[(ib2 >> 2) + 2] = 32'd2;
    mem[(ib2 >> 2) + 3] = H(8'h00, 0, 0);
    put(H(8'h01, 3, 0)); put(ib1); put(32'd40); put(32'd77);
    put(H(8'h01, 3, 1)); put(32'h6000); put(32'd64); put(32'd78);            // SKIP: not fetched
    put(H(8'h02, 2, 0)); put(32'h230C); put(32'd4);
    max_level = 0;
    kick; settle;
    if (faulted) $fatal(1, "fault %0d in nested buffers", freason);
    if (max_level != 2) $fatal(1, "IB level reached %0d, expected 2", max_level);
    for (k = 0; k < 4; k = k + 1)
      if (mem[(32'h2300 >> 2) + k] !== k + 1) $fatal(1, "nested writes: word %0d = %0d", k, mem[(32'h2300 >> 2) + k]);
    if (level !== 0) $fatal(1, "back in the ring at level %0d", level);

    // ---- FILL and COPY: the 2D command's fields
    w0 = b_cmds;
    put(H(8'h07, 5, 0)); put(32'h3000); put(32'd64); put(32'd10); put(32'd3); put(32'hC0FFEE00);
    kick; settle;
    if (b_cmds != w0 + 1 || bl_copy || bl_dst !== 32'h3000 || bl_dp !== 64 || bl_w !== 10 || bl_h !== 3 ||
        bl_pat !== 32'hC0FFEE00) $fatal(1, "FILL command");
    put(H(8'h08, 6, 0)); put(32'h3400); put(32'd32); put(32'h3800); put(32'd48); put(32'd16); put(32'd4);
    kick; settle;
    if (b_cmds != w0 + 2 || !bl_copy || bl_dst !== 32'h3400 || bl_dp !== 32 || bl_src !== 32'h3800 ||
        bl_sp !== 48 || bl_w !== 16 || bl_h !== 4) $fatal(1, "COPY command");
    put(H(8'h07, 5, 0)); put(32'h3000); put(32'd64); put(32'd0); put(32'd3); put(32'h1);   // empty
    kick; settle;
    if (b_cmds != w0 + 2 || faulted) $fatal(1, "an empty FILL issued a command");

    // ---- FLIP (waits for the flip to be taken at vblank), WAIT_VSYNC, WAIT_SCANLINE
    w0 = flips;
    put(H(8'h09, 3, 0)); put(32'd0); put(32'h8000); put(32'd2);
    put(H(8'h05, 1, 0)); put(32'd0);
    put(H(8'h06, 2, 0)); put(32'd0); put({16'd10, 16'd0});
    kick; settle;
    if (faulted || flips != w0 + 1 || fl_addr !== 32'h8000 || fl_int !== 2) $fatal(1, "FLIP request");
    if (f_pend && !faulted) ;   // NO_WAIT not set: the FLIP waited for the pending flip to clear

    // ---- WAIT_MEM: satisfied by a write from outside
    mem[32'h2400 >> 2] = 32'h0;
    put(H(8'h04, 3, `SGPU_WAIT_FUNC_GE)); put(32'h2400); put(32'h0000FFFF); put(32'd5);
    put(H(8'h02, 2, 0)); put(32'h2404); put(32'd9);
    kick;
    repeat (300) @(posedge clk);
    if (!waiting || mem[32'h2404 >> 2] === 32'd9) $fatal(1, "WAIT_MEM did not wait");
    mem[32'h2400 >> 2] = 32'h12340005;
    settle;
    if (faulted || mem[32'h2404 >> 2] !== 32'd9) $fatal(1, "WAIT_MEM did not end");

    // ---- faults: each at its packet, with nothing written
    // bad header type
    a0 = RBASE + wp;
    put(32'h0000_0002); put(32'h2500); put(32'd1);
    w0 = writes; t0 = firqs;
    kick; settle;
    expect_fault(`SGPU_FAULT_BAD_HEADER, a0);
    if (firqs != t0 + 1 || writes != w0) $fatal(1, "fault interrupt / writes");
    engine_reset;
    // misaligned FENCE
    a0 = RBASE + wp;
    put(H(8'h02, 2, 0)); put(32'h2502); put(32'd1);
    w0 = writes; kick; settle;
    expect_fault(`SGPU_FAULT_MISALIGNED, a0);
    if (writes != w0) $fatal(1, "a faulting FENCE wrote");
    engine_reset;
    // WRITE_DATA past the end of memory
    a0 = RBASE + wp;
    put(H(8'h03, 3, 0)); put(MEMB - 4); put(32'd1); put(32'd2);
    w0 = writes; kick; settle;
    expect_fault(`SGPU_FAULT_OUT_OF_RANGE, a0);
    if (writes != w0) $fatal(1, "a faulting WRITE_DATA wrote");
    engine_reset;
    // CONTEXT with a window, then an INDIRECT outside it: CONTEXT_WINDOW at the buffer's packet
    mem[(32'h4800 >> 2) + 0] = H(8'h02, 2, 0); mem[(32'h4800 >> 2) + 1] = 32'h7000; mem[(32'h4800 >> 2) + 2] = 1;
    mem[(32'h4800 >> 2) + 3] = H(8'h02, 2, 0); mem[(32'h4800 >> 2) + 4] = 32'h9000; mem[(32'h4800 >> 2) + 5] = 1;
    put(H(8'h0A, 3, 0)); put(32'd5); put(32'h7000); put(32'h1000);
    put(H(8'h01, 3, 0)); put(32'h4800); put(32'd24); put(32'd9);
    w0 = writes; kick; settle;
    expect_fault(`SGPU_FAULT_CONTEXT_WINDOW, 32'h480C);
    if (writes != w0 + 1 || mem[32'h7000 >> 2] !== 1 || mem[32'h9000 >> 2] !== 0) $fatal(1, "window: writes");
    if (ctx_null) $fatal(1, "CONTEXT not taken");
    engine_reset;
    // CONTEXT inside a buffer: PRIVILEGED
    mem[(32'h4900 >> 2) + 0] = H(8'h0A, 3, 0); mem[(32'h4900 >> 2) + 1] = 0;
    mem[(32'h4900 >> 2) + 2] = 0; mem[(32'h4900 >> 2) + 3] = 0;
    put(H(8'h01, 3, 0)); put(32'h4900); put(32'd16); put(32'd9);
    kick; settle;
    expect_fault(`SGPU_FAULT_PRIVILEGED, 32'h4900);
    engine_reset;
    // an overrun: the packet runs past WPTR
    a0 = RBASE + wp;
    put(H(8'h02, 2, 0)); put(32'h2600);
    kick; settle;
    expect_fault(`SGPU_FAULT_OVERRUN, a0);
    engine_reset;

    // ---- watchdog: a WAIT_MEM that never ends faults TIMEOUT about WATCHDOG cycles on
    @(negedge clk); wdog_limit = 24'd500; wdog_we = 1; @(negedge clk); wdog_we = 0;
    mem[32'h2700 >> 2] = 0;
    put(H(8'h04, 3, `SGPU_WAIT_FUNC_EQ)); put(32'h2700); put(32'hFFFFFFFF); put(32'd1);
    kick;
    wait (state == 5'd6);   // the first poll: the packet's last progress was two cycles before
    t0 = cyc;
    wait (faulted);
    if (freason !== `SGPU_FAULT_TIMEOUT || cyc - t0 < 495 || cyc - t0 > 510)
      $fatal(1, "watchdog: fault %0d after %0d cycles, expected TIMEOUT after about 500", freason, cyc - t0);
    $display("ok: watchdog TIMEOUT %0d cycles after the first poll (WATCHDOG 500)", cyc - t0);
    engine_reset;
    @(negedge clk); wdog_limit = 0; wdog_we = 1; @(negedge clk); wdog_we = 0;

    // ---- engine reset during a FILL: the 2D engine is aborted and drained
    put(H(8'h07, 5, 0)); put(32'h3000); put(32'd64); put(32'd10); put(32'd3); put(32'h5);
    kick;
    wait (b_busy);
    @(negedge clk); eng_reset = 1; wptr = 0; @(negedge clk); eng_reset = 0; wp = 0;
    if (!b_abort) $fatal(1, "no abort while the 2D engine works for us");
    wait (!b_busy); repeat (3) @(posedge clk); #1;
    if (b_abort || busy) $fatal(1, "engine reset did not end after the drain");

    // ---- hold: no header taken, no ring read, runnable and quiet; then on
    @(negedge clk); hold = 1;
    put(H(8'h02, 2, 0)); put(32'h2900); put(32'd5);
    w0 = writes; t0 = ring_reads;
    kick;
    repeat (300) @(posedge clk); #1;
    if (writes != w0 || ring_reads != t0 || state !== 5'd0 || !runnable || !quiet)
      $fatal(1, "held ring: %0d writes, %0d reads, state %0d, runnable %b quiet %b", writes - w0,
             ring_reads - t0, state, runnable, quiet);
    @(negedge clk); hold = 0;
    settle;
    if (faulted || mem[32'h2900 >> 2] !== 5 || runnable) $fatal(1, "the held FENCE after the hold");
    // hold inside a WAIT_MEM: no poll, no TIMEOUT (WATCHDOG 200, held 2000 cycles)
    @(negedge clk); wdog_limit = 24'd200; wdog_we = 1; @(negedge clk); wdog_we = 0;
    mem[32'h2904 >> 2] = 0;
    put(H(8'h04, 3, `SGPU_WAIT_FUNC_EQ)); put(32'h2904); put(32'hFFFFFFFF); put(32'd1);
    put(H(8'h02, 2, 0)); put(32'h2908); put(32'd6);
    kick;
    wait (state == 5'd8);   // between two polls
    @(negedge clk); hold = 1;
    repeat (40) @(posedge clk); #1;   // a poll already started ends
    t0 = polls;
    repeat (2000) @(posedge clk); #1;
    if (polls != t0 || faulted || !waiting || !quiet)
      $fatal(1, "held WAIT_MEM: %0d polls, faulted %b, waiting %b, quiet %b", polls - t0, faulted, waiting, quiet);
    mem[32'h2904 >> 2] = 1;
    @(negedge clk); hold = 0;
    settle;
    if (faulted || mem[32'h2908 >> 2] !== 6) $fatal(1, "the held WAIT_MEM did not continue");
    @(negedge clk); wdog_limit = 0; wdog_we = 1; @(negedge clk); wdog_we = 0;
    $display("ok: hold at a header and between WAIT_MEM polls");

    // ---- the ring again, after the reset: a FENCE
    put(H(8'h02, 2, 0)); put(32'h2800); put(32'd99);
    kick; settle;
    if (faulted || mem[32'h2800 >> 2] !== 99) $fatal(1, "ring after the reset");
    $display("PASS tb_sgpu_cp_exec");
    $finish;
  end
endmodule
