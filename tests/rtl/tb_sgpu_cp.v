// Testbench of sgpu_cp: one node with its three memory ports through
// sgpu_mem_arb to a behavioural memory (configurable latency, random
// back-pressure), plus behavioural 2D engine and display models.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_cp_mem #(parameter WORDS = 16384) (
  input  wire        clk,
  input  wire        req_valid,
  output reg         req_ready,
  input  wire        req_write,
  input  wire [31:0] req_addr,
  input  wire [31:0] req_wdata,
  input  wire [3:0]  req_wstrb,
  output wire        rsp_valid,
  output wire [31:0] rsp_rdata
);
  reg [31:0] mem [0:WORDS-1];
  integer bp = 0;      // percent of cycles the memory refuses a request
  integer lat = 1;     // read latency in cycles (1 = data the next cycle)
  reg        pv [0:7];
  reg [31:0] pd [0:7];
  integer i;
  integer writes = 0, reads = 0;
  initial begin
    for (i = 0; i < 8; i = i + 1) begin pv[i] = 1'b0; pd[i] = 32'd0; end
    for (i = 0; i < WORDS; i = i + 1) mem[i] = 32'd0;
    req_ready = 1'b1;
  end
  always @(negedge clk) req_ready <= (bp == 0) ? 1'b1 : (($unsigned($random) % 100) >= bp);
  always @(posedge clk) begin
    for (i = 7; i > 0; i = i - 1) begin pv[i] <= pv[i-1]; pd[i] <= pd[i-1]; end
    pv[0] <= 1'b0;
    if (req_valid && req_ready) begin
      if (req_addr >= WORDS * 4) begin $display("mem access out of model: %h", req_addr); $fatal(1, "bad address"); end
      if (req_write) begin
        writes = writes + 1;
        if (req_wstrb[0]) mem[req_addr[31:2]][7:0]   <= req_wdata[7:0];
        if (req_wstrb[1]) mem[req_addr[31:2]][15:8]  <= req_wdata[15:8];
        if (req_wstrb[2]) mem[req_addr[31:2]][23:16] <= req_wdata[23:16];
        if (req_wstrb[3]) mem[req_addr[31:2]][31:24] <= req_wdata[31:24];
      end else begin
        reads = reads + 1;
        pv[0] <= 1'b1; pd[0] <= mem[req_addr[31:2]];
      end
    end
  end
  assign rsp_valid = pv[lat-1];
  assign rsp_rdata = pd[lat-1];
endmodule

module tb_sgpu_cp;
  localparam MEMB = 65536;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;
  reg [63:0] cycle = 64'h0000_0005_0000_0000;
  always @(posedge clk) cycle <= cycle + 1;

  // register port
  reg         reg_we = 0;
  reg  [6:0]  reg_addr = 0;
  reg  [31:0] reg_wdata = 0;
  wire [31:0] reg_rdata, reg_rdata_late;
  reg         reg_re = 0;
  wire        cfg_err;
  wire [5:0]  cfg_bits;
  wire        done_irq, fault_irq;

  // ports
  wire [3:0]   a_valid, a_ready, a_write, a_rsp;
  wire [127:0] a_addr, a_wdata;
  wire [15:0]  a_wstrb;
  wire [31:0]  a_rdata;
  wire m_valid, m_ready, m_write, m_rsp;
  wire [31:0] m_addr, m_wdata, m_rdata;
  wire [3:0] m_wstrb;

  // blit model
  wire        b_valid, b_copy;
  reg         b_busy = 0;
  reg         b_prog = 0;
  wire        b_abort;
  wire [31:0] b_dst, b_src, b_pat;
  wire [15:0] b_dpitch, b_spitch, b_width, b_height;
  // display model (one source)
  wire        f_valid, f_src;
  wire [31:0] f_addr;
  wire [2:0]  f_int;
  reg         f_pend = 0, vblank = 0, in_vbl = 0;
  reg  [15:0] scanline = 0;

  sgpu_cp #(.SOURCES(1), .MEM_BYTES(MEMB)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .reg_we_i(reg_we), .reg_addr_i(reg_addr), .reg_wdata_i(reg_wdata), .reg_rdata_o(reg_rdata),
    .reg_re_i(reg_re), .reg_rdata_late_o(reg_rdata_late),
    .cfg_err_o(cfg_err), .cfg_err_bits_o(cfg_bits), .cycle_i(cycle),
    .done_irq_o(done_irq), .fault_irq_o(fault_irq), .busy_o(), .faulted_o(),
    .hold_i(1'b0), .runnable_o(), .quiet_o(), .quantum_o(),   // priority hold: tb_sgpu_cp_exec and test_chip_priority
    .ring_req_valid_o(a_valid[0]), .ring_req_ready_i(a_ready[0]), .ring_req_addr_o(a_addr[31:0]),
    .ring_rsp_valid_i(a_rsp[0]), .ring_rsp_rdata_i(a_rdata),
    .ib_req_valid_o(a_valid[1]), .ib_req_ready_i(a_ready[1]), .ib_req_addr_o(a_addr[63:32]),
    .ib_rsp_valid_i(a_rsp[1]), .ib_rsp_rdata_i(a_rdata),
    .wr_req_valid_o(a_valid[2]), .wr_req_ready_i(a_ready[2]), .wr_req_write_o(a_write[2]),
    .wr_req_addr_o(a_addr[95:64]), .wr_req_wdata_o(a_wdata[95:64]), .wr_req_wstrb_o(a_wstrb[11:8]),
    .wr_rsp_valid_i(a_rsp[2]), .wr_rsp_rdata_i(a_rdata),
    .blit_valid_o(b_valid), .blit_ready_i(!b_busy), .blit_copy_o(b_copy),
    .blit_dst_o(b_dst), .blit_dst_pitch_o(b_dpitch), .blit_src_o(b_src), .blit_src_pitch_o(b_spitch),
    .blit_width_o(b_width), .blit_height_o(b_height), .blit_pattern_o(b_pat), .blit_busy_i(b_busy),
    .blit_progress_i(b_prog), .blit_abort_o(b_abort),
    .flip_valid_o(f_valid), .flip_ready_i(!f_pend), .flip_src_o(f_src), .flip_addr_o(f_addr),
    .flip_interval_o(f_int), .flip_pending_i(f_pend), .vblank_i(vblank), .in_vblank_i(in_vbl),
    .scanline_i(scanline)
  );
  assign a_write[1:0] = 2'b00;
  assign a_wdata[63:0] = 64'd0;
  assign a_wstrb[7:0] = 8'd0;
  // The blit model writes memory directly; port 3 stays idle.
  assign a_valid[3] = 1'b0; assign a_write[3] = 1'b0;
  assign a_addr[127:96] = 32'd0; assign a_wdata[127:96] = 32'd0; assign a_wstrb[15:12] = 4'd0;

  sgpu_mem_arb #(.M(4), .PRIO(0), .IDQ(8)) arb (
    .clk_i(clk), .rst_ni(rst_n),
    .req_valid_i(a_valid), .req_ready_o(a_ready), .req_write_i(a_write),
    .req_addr_i(a_addr), .req_wdata_i(a_wdata), .req_wstrb_i(a_wstrb),
    .rsp_valid_o(a_rsp), .rsp_rdata_o(a_rdata),
    .mem_req_valid_o(m_valid), .mem_req_ready_i(m_ready), .mem_req_write_o(m_write),
    .mem_req_addr_o(m_addr), .mem_req_wdata_o(m_wdata), .mem_req_wstrb_o(m_wstrb),
    .mem_rsp_valid_i(m_rsp), .mem_rsp_rdata_i(m_rdata)
  );
  tb_sgpu_cp_mem #(.WORDS(MEMB/4)) mem (
    .clk(clk), .req_valid(m_valid), .req_ready(m_ready), .req_write(m_write), .req_addr(m_addr),
    .req_wdata(m_wdata), .req_wstrb(m_wstrb), .rsp_valid(m_rsp), .rsp_rdata(m_rdata)
  );

  // ---------------------------------------------------------------- models
  integer b_cmds = 0, b_timer = 0, bi, bj;
  // b_len: cycles a command takes; b_progmode: report a memory request every
  // busy cycle; an abort drops the command unperformed after b_drain cycles.
  integer b_len = 20, b_drain = 0, b_aborts = 0, b_abort_cyc = 0;
  reg     b_progmode = 0, b_aborting = 0;
  reg        bl_copy;
  reg [31:0] bl_dst, bl_src, bl_pat;
  reg [15:0] bl_dp, bl_sp, bl_w, bl_h;
  reg [7:0]  tmpbuf [0:65535];
  task wbyte(input [31:0] a, input [7:0] v);
    case (a[1:0])
      2'd0: mem.mem[a[31:2]][7:0] = v;
      2'd1: mem.mem[a[31:2]][15:8] = v;
      2'd2: mem.mem[a[31:2]][23:16] = v;
      default: mem.mem[a[31:2]][31:24] = v;
    endcase
  endtask
  function [7:0] rbyte(input [31:0] a);
    rbyte = mem.mem[a[31:2]] >> (8 * a[1:0]);
  endfunction
  always @(posedge clk) begin
    b_prog <= b_busy && b_progmode && !b_aborting && b_timer > 1;
    if (b_abort) b_abort_cyc = b_abort_cyc + 1;
    if (b_valid && !b_busy) begin
      b_busy <= 1'b1; b_timer = b_len; b_cmds = b_cmds + 1;
      bl_copy = b_copy; bl_dst = b_dst; bl_src = b_src; bl_pat = b_pat;
      bl_dp = b_dpitch; bl_sp = b_spitch; bl_w = b_width; bl_h = b_height;
    end else if (b_busy && b_abort && !b_aborting) begin
      b_aborting = 1'b1; b_aborts = b_aborts + 1; b_timer = b_drain + 1;
    end else if (b_busy && b_aborting) begin
      b_timer = b_timer - 1;
      if (b_timer == 0) begin b_busy <= 1'b0; b_aborting = 1'b0; end
    end else if (b_busy) begin
      b_timer = b_timer - 1;
      if (b_timer == 0) begin
        // Perform the rectangle at once, then drop busy.
        for (bi = 0; bi < bl_h; bi = bi + 1)
          for (bj = 0; bj < bl_w; bj = bj + 1)
            if (bl_copy) tmpbuf[bj] = rbyte(bl_src + bi * bl_sp + bj);
            else wbyte(bl_dst + bi * bl_dp + bj, bl_pat >> (8 * ((bl_dst + bi * bl_dp + bj) % 4)));
        if (bl_copy)
          for (bi = 0; bi < bl_h; bi = bi + 1) begin
            for (bj = 0; bj < bl_w; bj = bj + 1) tmpbuf[bj] = rbyte(bl_src + bi * bl_sp + bj);
            for (bj = 0; bj < bl_w; bj = bj + 1) wbyte(bl_dst + bi * bl_dp + bj, tmpbuf[bj]);
          end
        b_busy <= 1'b0;
      end
    end
  end
  // While an aborted command drains, the reset engine must not start anything.
  always @(negedge clk)
    if (b_aborting && (a_valid[0] || a_valid[1] || a_valid[2] || b_valid))
      begin $display("valid %b blit %b state %0d", a_valid, b_valid, dut.state_q); $fatal(1, "cp issued a request while the aborted blit drains"); end
  // display: a frame of VT cycles, vblank for the last VB of them
  integer vt = 400, vb = 60, vcnt = 0, vblanks = 0, flips = 0;
  reg [31:0] flip_last_addr = 0;
  reg [2:0]  flip_last_int = 0;
  always @(posedge clk) begin
    vcnt <= (vcnt + 1) % vt;
    vblank <= (vcnt + 1 == vt - vb);
    in_vbl <= (vcnt + 1 >= vt - vb);
    scanline <= ((vcnt + 1) % vt) / 8;
    if (vcnt + 1 == vt - vb) vblanks = vblanks + 1;
    if (f_valid && !f_pend) begin
      f_pend <= 1'b1; flips = flips + 1; flip_last_addr = f_addr; flip_last_int = f_int;
      if (f_src != 1'b0) $fatal(1, "flip to a bad source");
    end else if (f_pend && ((flip_last_int == 3'd0) || (vcnt + 1 == vt - vb))) f_pend <= 1'b0;
  end
  integer irqs = 0, faults = 0;
  always @(posedge clk) begin
    if (done_irq) irqs = irqs + 1;
    if (fault_irq) faults = faults + 1;
  end

  // ---------------------------------------------------------------- helpers
  localparam RB = 32'h1000;            // ring base
  integer    RS = 1024;                // ring size
  localparam RPA = 32'h0F00;           // rptr write-back address
  integer wp = 0;                      // host's ring write offset
  reg [31:0] cur = 0;                  // IB build cursor
  reg        to_ring = 1;
  reg [31:0] rd;
  reg        last_err;
  reg [5:0]  last_bits;
  integer    errs;

  function [31:0] hdr(input [7:0] op, input [7:0] fl, input [13:0] cnt);
    hdr = {2'b11, cnt, fl, op};
  endfunction

  task rw(input [6:0] a, input [31:0] d);
    begin
      @(negedge clk); reg_we = 1; reg_addr = a; reg_wdata = d;
      #1 last_err = cfg_err; last_bits = cfg_bits;
      @(negedge clk); reg_we = 0;
    end
  endtask
  // A read takes a cycle: the block-RAM registers answer on reg_rdata_late
  // after the clock edge (0 for the others, whose value is on reg_rdata).
  reg [31:0] rr_now;
  task rr(input [6:0] a, output [31:0] d);
    begin
      @(negedge clk); reg_addr = a; reg_re = 1; #1 rr_now = reg_rdata;
      @(negedge clk); reg_re = 0; d = rr_now | reg_rdata_late;
    end
  endtask
  task expect_reg(input [6:0] a, input [31:0] v, input [255:0] what);
    begin
      rr(a, rd);
      if (rd !== v) begin $display("%0s: reg %h = %h, want %h", what, a, rd, v); $fatal(1, "register mismatch"); end
    end
  endtask
  task expect_mem(input [31:0] a, input [31:0] v, input [255:0] what);
    if (mem.mem[a[31:2]] !== v) begin
      $display("%0s: mem[%h] = %h, want %h", what, a, mem.mem[a[31:2]], v); $fatal(1, "memory mismatch");
    end
  endtask
  task emit(input [31:0] w);
    if (to_ring) begin mem.mem[(RB + wp) >> 2] = w; wp = (wp + 4) % RS; end
    else begin mem.mem[cur >> 2] = w; cur = cur + 4; end
  endtask
  task kick; rw(`SGPU_NREG_RING_WPTR, wp); endtask
  task wait_idle(input integer maxc);
    integer n;
    begin
      n = 0; rd = 1;
      while (rd[`SGPU_STATUS_BUSY] && !rd[`SGPU_STATUS_FAULTED]) begin
        rr(`SGPU_NREG_STATUS, rd); n = n + 1;
        if (n > maxc) $fatal(1, "engine did not go idle");
      end
    end
  endtask
  task run; begin kick; wait_idle(200000); end endtask
  task expect_ok(input [255:0] what);
    begin
      rr(`SGPU_NREG_STATUS, rd);
      if (rd[`SGPU_STATUS_FAULTED]) begin
        rr(`SGPU_NREG_FAULT_REASON, rd);
        $display("%0s: unexpected fault %0d", what, rd); $fatal(1, "unexpected fault");
      end
      rr(`SGPU_NREG_RING_RPTR, rd);
      if (rd != wp) begin $display("%0s: rptr %h wptr %h", what, rd, wp); $fatal(1, "ring not consumed"); end
      expect_mem(RPA, wp, what);
      $display("ok: %0s", what);
    end
  endtask
  task expect_fault(input [3:0] reason, input [31:0] addr, input [31:0] op, input [255:0] what);
    begin
      rr(`SGPU_NREG_STATUS, rd);
      if (!rd[`SGPU_STATUS_FAULTED]) begin $display("%0s: no fault", what); $fatal(1, "fault expected"); end
      expect_reg(`SGPU_NREG_FAULT_REASON, reason, what);
      expect_reg(`SGPU_NREG_FAULT_ADDR, addr, what);
      expect_reg(`SGPU_NREG_FAULT_OPCODE, op, what);
      $display("ok: fault %0s", what);
    end
  endtask
  task reset_engine;
    begin rw(`SGPU_NREG_CONTROL, 32'h2); wp = 0; to_ring = 1; end
  endtask
  // WRITE_DATA of n words, word i = base_val + i
  task p_wd(input [31:0] a, input integer n, input [31:0] v);
    integer i;
    begin emit(hdr(`SGPU_OP_WRITE_DATA, 0, n + 1)); emit(a); for (i = 0; i < n; i = i + 1) emit(v + i); end
  endtask
  task p_fence(input [31:0] a, input [31:0] v, input irq);
    begin emit(hdr(`SGPU_OP_FENCE, {7'd0, irq}, 2)); emit(a); emit(v); end
  endtask
  task p_ib(input [31:0] a, input [31:0] len, input [31:0] fence, input skip);
    begin emit(hdr(`SGPU_OP_INDIRECT, {7'd0, skip}, 3)); emit(a); emit(len); emit(fence); end
  endtask
  task p_wait(input [31:0] a, input [31:0] mask, input [31:0] refv, input [2:0] func);
    begin emit(hdr(`SGPU_OP_WAIT_MEM, {5'd0, func}, 3)); emit(a); emit(mask); emit(refv); end
  endtask
  task check_words(input [31:0] a, input integer n, input [31:0] v, input [255:0] what);
    integer i;
    for (i = 0; i < n; i = i + 1) expect_mem(a + 4 * i, v + i, what);
  endtask
  task check_zero(input [31:0] a, input integer n, input [255:0] what);
    integer i;
    for (i = 0; i < n; i = i + 1) expect_mem(a + 4 * i, 0, what);
  endtask
  task clear(input [31:0] a, input integer n);
    integer i;
    for (i = 0; i < n; i = i + 1) mem.mem[(a >> 2) + i] = 0;
  endtask

  // write monitor for ordering checks: when a write hits mon_addr, check
  // that the words [chk_a, chk_a + 4*chk_n) already hold chk_v + i
  reg [31:0] mon_addr = 32'hFFFF_FFFF, chk_a = 0, chk_v = 0;
  integer    chk_n = 0, mon_hits = 0, mon_bad = 0, mi;
  integer    last_data_wr = -1, fence_wr = -1;
  reg [31:0] last_data_addr = 32'hFFFF_FFFF;
  always @(posedge clk) if (m_valid && m_ready && m_write) begin
    if (m_addr == last_data_addr) last_data_wr = cyc;
    if (m_addr == mon_addr) begin
      mon_hits = mon_hits + 1; fence_wr = cyc;
      for (mi = 0; mi < chk_n; mi = mi + 1)
        if (mem.mem[(chk_a >> 2) + mi] !== chk_v + mi) mon_bad = mon_bad + 1;
    end
  end

  // doorbell-to-first-read monitor
  integer db_cyc = -1, db_first = -1;
  always @(posedge clk) begin
    if (reg_we && reg_addr == `SGPU_NREG_RING_WPTR && db_cyc < 0) db_cyc = cyc;
    if (db_cyc >= 0 && db_first < 0 && m_valid && m_ready && !m_write && m_addr >= RB && m_addr < RB + RS)
      db_first = cyc;
  end
  // IB streaming monitor
  integer ib_first = -1, ib_last = -1;
  reg [31:0] ib_lo = 0, ib_hi = 0;
  always @(posedge clk) if (a_rsp[1] && ib_first >= 0) ib_last = cyc;
  always @(posedge clk) if (ib_first < 0 && a_valid[1] && a_ready[1] && a_addr[63:32] >= ib_lo && a_addr[63:32] < ib_hi)
    ib_first = cyc;

  integer pass, i, j, n, seed, t0, lvl_back;
  `include "tb_random.vh"
  reg [31:0] v, a, ibA, ibB, ibC;

  // ---------------------------------------------------------------- program
  task setup_ring(input integer size);
    begin
      rw(`SGPU_NREG_CONTROL, 0);
      RS = size;
      rw(`SGPU_NREG_RING_BASE, RB);
      rw(`SGPU_NREG_RING_SIZE, size);
      rw(`SGPU_NREG_RPTR_ADDR, RPA | 1);
      rw(`SGPU_NREG_CONTROL, 1);
      if (last_err) $fatal(1, "ring enable rejected");
      wp = 0; to_ring = 1;
    end
  endtask

  task functional(input [255:0] tag);
    begin
      // --- WRITE_DATA + FENCE with IRQ
      clear(32'h8000, 64);
      p_wd(32'h8000, 5, 32'hA000_0000);
      p_fence(32'h9000, 32'h11, 1);
      n = irqs;
      run;
      check_words(32'h8000, 5, 32'hA000_0000, "write_data");
      expect_mem(32'h9000, 32'h11, "fence");
      expect_reg(`SGPU_NREG_LAST_FENCE, 32'h11, "last fence");
      if (irqs != n + 1) $fatal(1, "fence irq missing");
      expect_ok("write_data + fence");

      // --- nested INDIRECT ring -> IB -> IB, fence after
      ibA = 32'h4000; ibB = 32'h5000;
      to_ring = 0; cur = ibB; p_wd(32'h8100, 3, 32'hB000_0000);
      to_ring = 0; cur = ibA; p_wd(32'h8200, 2, 32'hC000_0000); p_ib(ibB, 4 * 5, 32'h99, 0); p_wd(32'h8300, 1, 32'hD000_0000);
      n = cur - ibA;
      to_ring = 1; p_ib(ibA, n, 32'h22, 0); p_fence(32'h9000, 32'h22, 0);
      mon_addr = 32'h9000; chk_a = 32'h8100; chk_v = 32'hB000_0000; chk_n = 3; mon_bad = 0;
      run;
      mon_addr = 32'hFFFF_FFFF;
      if (mon_bad != 0) $fatal(1, "fence before IB writes");
      check_words(32'h8100, 3, 32'hB000_0000, "ib2");
      check_words(32'h8200, 2, 32'hC000_0000, "ib1");
      check_words(32'h8300, 1, 32'hD000_0000, "ib1 after ib2");
      expect_mem(32'h9000, 32'h22, "fence after ib");
      expect_ok("nested indirect");

      // --- only [start,end) of a buffer runs: IB starting mid-buffer
      cur = 32'h4400; to_ring = 0;
      p_wd(32'h8400, 1, 32'h1);             // before start: must not run
      p_wd(32'h8404, 1, 32'h2);
      p_wd(32'h8408, 1, 32'h3);             // after end: must not run
      clear(32'h8400, 3);
      to_ring = 1; p_ib(32'h4400 + 12, 12, 32'h23, 0); run;
      expect_mem(32'h8400, 0, "before start"); expect_mem(32'h8404, 2, "range"); expect_mem(32'h8408, 0, "after end");
      expect_ok("indirect sub-range");

      // --- NullRendering: SKIP
      clear(32'h8500, 4);
      cur = 32'h4800; to_ring = 0; p_wd(32'h8500, 4, 32'h5);
      to_ring = 1; p_ib(32'h4800, 24, 32'h24, 1); p_fence(32'h9000, 32'h24, 1);
      n = irqs; run;
      check_zero(32'h8500, 4, "null rendering");
      expect_mem(32'h9000, 32'h24, "null rendering fence");
      if (irqs != n + 1) $fatal(1, "null rendering irq missing");
      expect_ok("null rendering");

      // --- NOP with payload, zero-length NOP, zero-length INDIRECT
      emit(hdr(`SGPU_OP_NOP, 0, 0)); emit(hdr(`SGPU_OP_NOP, 0, 3)); emit(0); emit(32'hFFFFFFFF); emit(7);
      p_ib(32'h4800, 0, 32'h25, 0);
      p_fence(32'h9000, 32'h25, 0); run;
      expect_mem(32'h9000, 32'h25, "nop"); expect_ok("nop");

      // --- WAIT_MEM: every compare function, satisfied at once
      mem.mem[32'h9100 >> 2] = 32'h0000_1234;
      p_wait(32'h9100, 32'hFFFF, 32'h1234, `SGPU_WAIT_FUNC_EQ);
      p_wait(32'h9100, 32'hFFFF, 32'h1233, `SGPU_WAIT_FUNC_NE);
      p_wait(32'h9100, 32'hFFFF, 32'h1235, `SGPU_WAIT_FUNC_LT);
      p_wait(32'h9100, 32'hFFFF, 32'h1234, `SGPU_WAIT_FUNC_LE);
      p_wait(32'h9100, 32'hFFFF, 32'h1233, `SGPU_WAIT_FUNC_GT);
      p_wait(32'h9100, 32'hFFFF, 32'h1234, `SGPU_WAIT_FUNC_GE);
      p_wait(32'h9100, 32'hFF00, 32'h1200, `SGPU_WAIT_FUNC_EQ);
      p_wait(32'h9100, 32'hFFFF, 32'hFFFF_FFF0, `SGPU_WAIT_FUNC_GEQ_WRAP);  // 0x1234 is "after" -16
      p_fence(32'h9000, 32'h26, 0); run;
      expect_mem(32'h9000, 32'h26, "wait_mem funcs"); expect_ok("wait_mem functions");

      // --- fence ids across 2^32, WAIT_MEM GEQ_WRAP blocks until the host writes
      v = 32'hFFFF_FFFD;
      for (i = 0; i < 5; i = i + 1) begin
        p_fence(32'h9004, v, 1); run;
        expect_reg(`SGPU_NREG_LAST_FENCE, v, "fence wrap");
        expect_mem(32'h9004, v, "fence wrap");
        v = v + 1;
      end
      mem.mem[32'h9108 >> 2] = 32'hFFFF_FFFE;
      p_wait(32'h9108, 32'hFFFF_FFFF, 32'h0000_0001, `SGPU_WAIT_FUNC_GEQ_WRAP);
      p_fence(32'h9000, 32'h27, 0); kick;
      repeat (300) @(negedge clk);
      rr(`SGPU_NREG_STATUS, rd);
      if (!rd[`SGPU_STATUS_WAITING] || mem.mem[32'h9000 >> 2] == 32'h27) $fatal(1, "GEQ_WRAP passed too early");
      mem.mem[32'h9108 >> 2] = 32'h0000_0000;          // still before 1
      repeat (100) @(negedge clk);
      if (mem.mem[32'h9000 >> 2] == 32'h27) $fatal(1, "GEQ_WRAP passed at 0 < 1");
      mem.mem[32'h9108 >> 2] = 32'h0000_0003;          // after the wrap: passes
      wait_idle(10000);
      expect_mem(32'h9000, 32'h27, "geq_wrap"); expect_ok("fence wrap 2^32, GEQ_WRAP");

      // --- TIMESTAMP
      emit(hdr(`SGPU_OP_TIMESTAMP, 0, 1)); emit(32'h9200); run;
      if (mem.mem[32'h9204 >> 2] != 32'h5 || mem.mem[32'h9200 >> 2] == 0 || mem.mem[32'h9200 >> 2] > cyc + 10)
        $fatal(1, "timestamp value");
      expect_ok("timestamp");

      // --- FILL then FENCE: fence only after the 2D engine is idle
      clear(32'hA000, 64);
      emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA001); emit(32); emit(7); emit(3); emit(32'hAABBCCDD);
      p_fence(32'h9000, 32'h28, 0);
      n = b_cmds; run;
      if (b_cmds != n + 1) $fatal(1, "fill not issued");
      if (bl_dst != 32'hA001 || bl_dp != 32 || bl_w != 7 || bl_h != 3 || bl_pat != 32'hAABBCCDD || bl_copy)
        $fatal(1, "fill fields");
      expect_mem(32'hA000, 32'hAABBCC00, "fill row 0");
      expect_mem(32'hA004, 32'hAABBCCDD, "fill row 0b");
      expect_mem(32'hA040, 32'hAABBCC00, "fill row 2");
      expect_mem(32'h9000, 32'h28, "fence after fill");
      expect_ok("fill");
      // COPY
      emit(hdr(`SGPU_OP_COPY, 0, 6)); emit(32'hA100); emit(16); emit(32'hA000); emit(32); emit(8); emit(3);
      n = b_cmds; run;
      if (b_cmds != n + 1 || !bl_copy || bl_src != 32'hA000 || bl_sp != 32 || bl_dp != 16 || bl_w != 8 || bl_h != 3)
        $fatal(1, "copy fields");
      expect_mem(32'hA120, 32'hAABBCC00, "copy");
      expect_ok("copy");
      // zero-size FILL does nothing
      emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA001); emit(0); emit(0); emit(3); emit(0);
      n = b_cmds; run;
      if (b_cmds != n) $fatal(1, "empty fill issued");
      expect_ok("empty fill");

      // --- FLIP (waits until taken), FLIP NO_WAIT, WAIT_VSYNC, WAIT_SCANLINE
      emit(hdr(`SGPU_OP_FLIP, 0, 3)); emit(0); emit(32'hC000); emit(1);
      p_fence(32'h9000, 32'h29, 0);
      mem.mem[32'h9000 >> 2] = 0; n = flips;
      kick;
      while (flips == n) @(negedge clk);
      if (flip_last_addr != 32'hC000 || flip_last_int != 1) $fatal(1, "flip fields");
      while (f_pend) begin
        @(negedge clk);
        if (mem.mem[32'h9000 >> 2] == 32'h29) $fatal(1, "fence passed a pending flip");
      end
      wait_idle(10000);
      expect_mem(32'h9000, 32'h29, "after flip"); expect_ok("flip waits for vblank");
      emit(hdr(`SGPU_OP_FLIP, 1, 3)); emit(0); emit(32'hC100); emit(2);
      p_fence(32'h9000, 32'h2A, 0);
      kick; wait_idle(10000);
      if (!f_pend) $fatal(1, "flip no_wait should still be pending");
      expect_ok("flip no_wait");
      while (f_pend) @(negedge clk);
      n = vblanks;
      emit(hdr(`SGPU_OP_WAIT_VSYNC, 0, 1)); emit(0); run;
      if (vblanks != n + 1) $fatal(1, "wait_vsync did not wait for a vblank");
      expect_ok("wait_vsync");
      while (scanline != 5) @(negedge clk);
      emit(hdr(`SGPU_OP_WAIT_SCANLINE, 0, 2)); emit(0); emit({16'd30, 16'd0}); run;
      if (scanline <= 30 && !in_vbl) $fatal(1, "wait_scanline returned inside the range");
      expect_ok("wait_scanline");

      // --- CONTEXT: window checks in IBs, not in the ring
      emit(hdr(`SGPU_OP_CONTEXT, 0, 3)); emit(7); emit(32'h8000); emit(32'h1000);
      p_wd(32'h9300, 1, 32'h77);             // ring: not checked against the window
      cur = 32'h4C00; to_ring = 0; p_wd(32'h8800, 2, 32'h88);
      to_ring = 1; p_ib(32'h4C00, 16, 32'h2B, 0); run;
      expect_reg(`SGPU_NREG_CONTEXT_ID, 7, "ctx id");
      expect_reg(`SGPU_NREG_WINDOW_BASE, 32'h8000, "ctx base");
      expect_reg(`SGPU_NREG_WINDOW_SIZE, 32'h1000, "ctx size");
      expect_mem(32'h9300, 32'h77, "ring outside window"); check_words(32'h8800, 2, 32'h88, "ib in window");
      expect_ok("context window");
      emit(hdr(`SGPU_OP_CONTEXT, 0, 3)); emit(0); emit(0); emit(0); run;
      expect_reg(`SGPU_NREG_WINDOW_SIZE, MEMB, "null ctx size");
      expect_ok("null context");
    end
  endtask

  task fault_tests;
    begin
      // Each case: reset, a good packet, the bad one, then check nothing of it
      // was written, the fault registers, and that the next submission runs.
      // ILLEGAL_OPCODE in the ring
      reset_engine; rw(`SGPU_NREG_CONTROL, 1);
      p_wd(32'h8000, 1, 32'h1); a = RB + wp; emit(hdr(8'h55, 0, 0)); p_wd(32'h8010, 1, 2);
      clear(32'h8010, 1); n = faults; run;
      if (faults != n + 1) $fatal(1, "fault irq");
      expect_fault(`SGPU_FAULT_ILLEGAL_OPCODE, a, hdr(8'h55, 0, 0), "illegal opcode");
      expect_mem(32'h8010, 0, "after fault");
      expect_reg(`SGPU_NREG_RING_RPTR, a - RB, "rptr at faulting packet");
      // reset, next submission runs
      reset_engine; expect_reg(`SGPU_NREG_FAULT_REASON, 0, "reset clears");
      expect_reg(`SGPU_NREG_CONTROL, 1, "reset keeps enable");
      p_fence(32'h9000, 32'h100, 1); run; expect_mem(32'h9000, 32'h100, "after reset"); expect_ok("reset then next submission");

      // BAD_HEADER: type 2, flags on WRITE_DATA
      a = RB + wp; emit(32'h8000_0000); run;
      expect_fault(`SGPU_FAULT_BAD_HEADER, a, 32'h8000_0000, "bad type");
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_WRITE_DATA, 2, 2)); emit(32'h8000); emit(5); run;
      expect_fault(`SGPU_FAULT_BAD_HEADER, a, hdr(`SGPU_OP_WRITE_DATA, 2, 2), "bad flags");
      // zero word is never a header
      reset_engine; a = RB + wp; emit(0); run;
      expect_fault(`SGPU_FAULT_BAD_HEADER, a, 0, "zero header");
      // BAD_COUNT
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_FENCE, 0, 3)); emit(32'h9000); emit(1); emit(2); run;
      expect_fault(`SGPU_FAULT_BAD_COUNT, a, hdr(`SGPU_OP_FENCE, 0, 3), "bad count");
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_WRITE_DATA, 0, 1)); emit(32'h9000); run;
      expect_fault(`SGPU_FAULT_BAD_COUNT, a, hdr(`SGPU_OP_WRITE_DATA, 0, 1), "write_data count 1");
      // OVERRUN in the ring: header claims more words than WPTR allows
      reset_engine; clear(32'h8000, 8); a = RB + wp; emit(hdr(`SGPU_OP_WRITE_DATA, 0, 5)); emit(32'h8000); emit(1); emit(2);
      run; expect_fault(`SGPU_FAULT_OVERRUN, a, hdr(`SGPU_OP_WRITE_DATA, 0, 5), "ring overrun");
      check_zero(32'h8000, 4, "overrun wrote");
      // OVERRUN in an IB
      reset_engine; cur = 32'h4000; to_ring = 0; p_wd(32'h8000, 4, 32'h3);
      to_ring = 1; p_ib(32'h4000, 16, 32'h1234, 0); run;
      expect_fault(`SGPU_FAULT_OVERRUN, 32'h4000, hdr(`SGPU_OP_WRITE_DATA, 0, 5), "ib overrun");
      expect_reg(`SGPU_NREG_FAULT_FENCE, 32'h1234, "fault fence");
      check_zero(32'h8000, 4, "ib overrun wrote");
      // MISALIGNED: FENCE address, INDIRECT length
      reset_engine; a = RB + wp; p_fence(32'h9002, 5, 1); run;
      expect_fault(`SGPU_FAULT_MISALIGNED, a, hdr(`SGPU_OP_FENCE, 1, 2), "fence misaligned");
      reset_engine; a = RB + wp; p_ib(32'h4000, 6, 32'h55, 0); run;
      expect_fault(`SGPU_FAULT_MISALIGNED, a, hdr(`SGPU_OP_INDIRECT, 0, 3), "ib misaligned");
      expect_reg(`SGPU_NREG_FAULT_FENCE, 32'h55, "fault fence of the faulting INDIRECT");
      // OUT_OF_RANGE: WRITE_DATA whose last word is past memory: nothing written
      reset_engine; a = RB + wp; mem.mem[(MEMB - 8) >> 2] = 0; mem.mem[(MEMB - 4) >> 2] = 0;
      p_wd(MEMB - 8, 3, 32'h6); run;
      expect_fault(`SGPU_FAULT_OUT_OF_RANGE, a, hdr(`SGPU_OP_WRITE_DATA, 0, 4), "write_data out of range");
      expect_mem(MEMB - 8, 0, "oor wrote"); expect_mem(MEMB - 4, 0, "oor wrote");
      // IB out of range, huge IB address
      reset_engine; a = RB + wp; p_ib(32'hFFFF_FFF0, 32'h20, 1, 0); run;
      expect_fault(`SGPU_FAULT_OUT_OF_RANGE, a, hdr(`SGPU_OP_INDIRECT, 0, 3), "ib out of range");
      // FILL rectangle past the end (checked with the multiplier)
      reset_engine; a = RB + wp; n = b_cmds;
      emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hF000); emit(256); emit(16); emit(17); emit(0); run;
      expect_fault(`SGPU_FAULT_OUT_OF_RANGE, a, hdr(`SGPU_OP_FILL, 0, 5), "fill out of range");
      if (b_cmds != n) $fatal(1, "faulting fill reached the engine");
      // same rectangle one row less fits exactly: end = F000 + 256*15 + 16 = FF10 (ok)
      reset_engine; emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hF000); emit(256); emit(16); emit(16); emit(0); run;
      expect_ok("fill exactly in range");
      // COPY with the source out of range
      reset_engine; a = RB + wp; n = b_cmds;
      emit(hdr(`SGPU_OP_COPY, 0, 6)); emit(32'hA000); emit(64); emit(32'hFF00); emit(64); emit(64); emit(5); run;
      expect_fault(`SGPU_FAULT_OUT_OF_RANGE, a, hdr(`SGPU_OP_COPY, 0, 6), "copy src out of range");
      if (b_cmds != n) $fatal(1, "faulting copy reached the engine");
      // BAD_PARAM: pitch < width, WAIT_MEM function 7, FLIP source, FLIP interval, width > 16 bits
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA000); emit(4); emit(8); emit(2); emit(0); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_FILL, 0, 5), "pitch < width");
      // COPY's source pitch < width: BAD_PARAM, even when the destination
      // rectangle is also out of range (the parameter fault comes first);
      // with one row a short pitch is fine
      reset_engine; a = RB + wp; n = b_cmds;
      emit(hdr(`SGPU_OP_COPY, 0, 6)); emit(32'hA000); emit(64); emit(32'hB000); emit(32); emit(48); emit(3); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_COPY, 0, 6), "copy src pitch < width");
      if (b_cmds != n) $fatal(1, "copy with a short source pitch reached the engine");
      reset_engine; a = RB + wp;
      emit(hdr(`SGPU_OP_COPY, 0, 6)); emit(32'hFF00); emit(64); emit(32'hB000); emit(32); emit(48); emit(9); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_COPY, 0, 6), "short src pitch, dst oor");
      reset_engine; a = RB + wp;
      emit(hdr(`SGPU_OP_COPY, 0, 6)); emit(32'hFF00); emit(64); emit(32'hB000); emit(48); emit(48); emit(9); run;
      expect_fault(`SGPU_FAULT_OUT_OF_RANGE, a, hdr(`SGPU_OP_COPY, 0, 6), "copy dst oor, pitches ok");
      reset_engine; n = b_cmds;
      emit(hdr(`SGPU_OP_COPY, 0, 6)); emit(32'hA000); emit(64); emit(32'hB000); emit(4); emit(48); emit(1); run;
      expect_ok("one-row copy, short src pitch");
      if (b_cmds != n + 1) $fatal(1, "one-row copy did not reach the engine");
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA000); emit(4); emit(32'h10000); emit(1); emit(0); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_FILL, 0, 5), "width > 16 bits");
      reset_engine; a = RB + wp; p_wait(32'h9000, 1, 1, 3'd7); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_WAIT_MEM, 7, 3), "wait func 7");
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_FLIP, 0, 3)); emit(1); emit(32'hC000); emit(1); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_FLIP, 0, 3), "flip source");
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_FLIP, 0, 3)); emit(0); emit(32'hC000); emit(6); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_FLIP, 0, 3), "flip interval");
      reset_engine; a = RB + wp; emit(hdr(`SGPU_OP_WAIT_VSYNC, 0, 1)); emit(1); run;
      expect_fault(`SGPU_FAULT_BAD_PARAM, a, hdr(`SGPU_OP_WAIT_VSYNC, 0, 1), "vsync source");
      // NESTING: ring -> IB -> IB -> IB
      reset_engine;
      cur = 32'h4200; to_ring = 0; p_wd(32'h8000, 1, 9);
      cur = 32'h4100; to_ring = 0; p_ib(32'h4200, 12, 3, 0);
      cur = 32'h4000; to_ring = 0; p_ib(32'h4100, 16, 2, 0);
      to_ring = 1; clear(32'h8000, 1); p_ib(32'h4000, 16, 32'h77, 0); run;
      expect_fault(`SGPU_FAULT_NESTING, 32'h4100, hdr(`SGPU_OP_INDIRECT, 0, 3), "nesting");
      expect_reg(`SGPU_NREG_FAULT_FENCE, 32'h77, "nesting fence");
      expect_mem(32'h8000, 0, "nesting wrote");
      // CONTEXT_WINDOW: IB write starting inside the window, ending outside
      reset_engine;
      emit(hdr(`SGPU_OP_CONTEXT, 0, 3)); emit(3); emit(32'h8000); emit(32'h100);
      cur = 32'h4000; to_ring = 0; p_wd(32'h80F8, 3, 32'h40);
      to_ring = 1; clear(32'h80F8, 3); p_ib(32'h4000, 20, 32'h78, 0); run;
      expect_fault(`SGPU_FAULT_CONTEXT_WINDOW, 32'h4000, hdr(`SGPU_OP_WRITE_DATA, 0, 4), "context window");
      check_zero(32'h80F8, 3, "window fault wrote");
      // PRIVILEGED: CONTEXT in an IB
      reset_engine;
      cur = 32'h4000; to_ring = 0; emit(hdr(`SGPU_OP_CONTEXT, 0, 3)); emit(0); emit(0); emit(0);
      to_ring = 1; p_ib(32'h4000, 16, 32'h79, 0); run;
      expect_fault(`SGPU_FAULT_PRIVILEGED, 32'h4000, hdr(`SGPU_OP_CONTEXT, 0, 3), "privileged");
      // TIMEOUT: WAIT_MEM never satisfied
      reset_engine; rw(`SGPU_NREG_WATCHDOG, 500);
      mem.mem[32'h9100 >> 2] = 0;
      a = RB + wp; p_wait(32'h9100, 32'hFFFFFFFF, 1, `SGPU_WAIT_FUNC_EQ); t0 = cyc; run;
      expect_fault(`SGPU_FAULT_TIMEOUT, a, hdr(`SGPU_OP_WAIT_MEM, 0, 3), "watchdog");
      if (cyc - t0 > 2000) $fatal(1, "watchdog too slow");
      rw(`SGPU_NREG_WATCHDOG, 0);
      // after all that, a normal submission still runs and fences
      reset_engine;
      expect_reg(`SGPU_NREG_CONTEXT_ID, 0, "reset -> null context");
      cur = 32'h4000; to_ring = 0; p_wd(32'h8000, 2, 32'h50);
      to_ring = 1; p_ib(32'h4000, 16, 32'h200, 0); p_fence(32'h9000, 32'h200, 1); run;
      check_words(32'h8000, 2, 32'h50, "after faults"); expect_mem(32'h9000, 32'h200, "after faults fence");
      expect_ok("recovery after faults");
    end
  endtask

  // Random packet streams through a small ring (wrap-around), checked
  // against a model of the memory.
  reg [31:0] model [0:255];
  task random_stream(input integer npk);
    integer k, len, off, pend, rwords;
    begin
      pend = 0;
      for (k = 0; k < 256; k = k + 1) begin model[k] = 0; mem.mem[(32'hE000 >> 2) + k] = 0; end
      for (k = 0; k < npk; k = k + 1) begin
        len = 1 + ($unsigned(tb_random(0)) % 6);
        off = $unsigned(tb_random(0)) % (256 - len);
        v = tb_random(0);
        // never overwrite ring words the engine has not consumed: the packet
        // takes len + 2 ring words, or 4 (the INDIRECT) when it goes via an IB
        rwords = (len + 2 > 4) ? len + 2 : 4;
        if (pend + rwords > RS / 4 - 1) begin run; pend = 0; end
        if (($unsigned(tb_random(0)) % 4) == 0) begin
          // via an IB
          cur = 32'h6000 + (k % 8) * 64; to_ring = 0; ibA = cur;
          p_wd(32'hE000 + 4 * off, len, v);
          to_ring = 1; p_ib(ibA, 4 * (len + 2), k, 0);
        end else p_wd(32'hE000 + 4 * off, len, v);
        for (j = 0; j < len; j = j + 1) model[off + j] = v + j;
        pend = pend + rwords;
        if (($unsigned(tb_random(0)) % 3) == 0 || k == npk - 1) begin run; pend = 0; end
      end
      for (k = 0; k < 256; k = k + 1)
        if (mem.mem[(32'hE000 >> 2) + k] !== model[k]) begin
          $display("word %0d: %h want %h", k, mem.mem[(32'hE000 >> 2) + k], model[k]); $fatal(1, "random stream");
        end
      expect_ok("random stream");
    end
  endtask

  task cfg_checks;
    begin
      rw(`SGPU_NREG_RING_SIZE, 256);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_WHILE_ENABLED]) $fatal(1, "size while enabled accepted");
      rw(`SGPU_NREG_RING_BASE, 32'h2000);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_WHILE_ENABLED]) $fatal(1, "base while enabled accepted");
      rw(`SGPU_NREG_RING_WPTR, wp + 2);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_MISALIGNED]) $fatal(1, "misaligned wptr accepted");
      rw(`SGPU_NREG_RING_WPTR, RS);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_POINTER_RANGE]) $fatal(1, "wptr >= size accepted");
      rw(`SGPU_NREG_CONTROL, 32'h10);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_UNKNOWN_BITS]) $fatal(1, "unknown control bits accepted");
      rw(`SGPU_NREG_RPTR_ADDR, RPA | 1);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_WHILE_ENABLED]) $fatal(1, "rptr_addr while enabled accepted");
      rw(`SGPU_NREG_LAST_FENCE, 1);
      if (!last_err) $fatal(1, "write to a read-only register accepted");
      expect_reg(`SGPU_NREG_RING_WPTR, wp, "wptr kept");
      expect_reg(`SGPU_NREG_RPTR_ADDR, RPA | 1, "rptr_addr kept");
      rw(`SGPU_NREG_CONTROL, 0);
      rw(`SGPU_NREG_RPTR_ADDR, RPA | 2);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_UNKNOWN_BITS]) $fatal(1, "rptr_addr bit 1 accepted");
      foreach_size;
      rw(`SGPU_NREG_RING_BASE, 32'h1010);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_MISALIGNED]) $fatal(1, "base not 64-aligned accepted");
      rw(`SGPU_NREG_RING_BASE, MEMB);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_VALUE_RANGE]) $fatal(1, "base out of memory accepted");
      rw(`SGPU_NREG_RING_BASE, 32'h1040); rw(`SGPU_NREG_RING_SIZE, 128);
      rw(`SGPU_NREG_CONTROL, 1);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_MISALIGNED]) $fatal(1, "enable with base not aligned to size");
      expect_reg(`SGPU_NREG_CONTROL, 0, "still disabled");
      rw(`SGPU_NREG_RING_BASE, 32'hFF00); rw(`SGPU_NREG_RING_SIZE, 512);
      rw(`SGPU_NREG_CONTROL, 1);
      if (!last_err) $fatal(1, "enable with ring past memory");
      // still works afterwards
      setup_ring(1024);
      p_fence(32'h9000, 32'h300, 0); run; expect_mem(32'h9000, 32'h300, "after cfg errors");
      expect_ok("cfg errors");
    end
  endtask
  // Long blits: progress keeps the watchdog quiet; an engine reset aborts the
  // blit working for the node and waits for it to drain.
  task blit_tests;
    integer n, i;
    reg [31:0] a;
    begin
      reset_engine; rw(`SGPU_NREG_WATCHDOG, 50);
      b_len = 400; b_progmode = 1; b_drain = 12; n = b_abort_cyc;
      clear(32'hA000, 64); mem.mem[32'h9000 >> 2] = 0;
      emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA001); emit(32); emit(7); emit(3); emit(32'h11223344);
      p_fence(32'h9000, 32'h31, 0);
      i = b_cmds; run;
      if (b_cmds != i + 1) $fatal(1, "long fill not issued");
      expect_mem(32'hA004, 32'h11223344, "long fill");
      expect_mem(32'h9000, 32'h31, "fence after long fill");
      expect_ok("long blit with progress: no watchdog");
      if (b_abort_cyc != n) $fatal(1, "blit_abort_o without a reset");
      // The same blit without progress is a TIMEOUT; the reset then aborts it.
      b_progmode = 0; a = RB + wp;
      emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA001); emit(32); emit(7); emit(3); emit(32'h55667788);
      p_fence(32'h9000, 32'h32, 0); run;
      expect_fault(`SGPU_FAULT_TIMEOUT, a, hdr(`SGPU_OP_FILL, 0, 5), "stalled blit");
      if (!b_busy) $fatal(1, "stalled blit should still run");
      n = b_aborts; reset_engine; repeat (2) @(negedge clk);
      if (b_aborts != n + 1) $fatal(1, "reset after a blit timeout did not abort the blit");
      rw(`SGPU_NREG_WATCHDOG, 50); wait_idle(1000);
      // Reset while a FILL (making progress) is in flight.
      b_progmode = 1; clear(32'hA000, 64);
      emit(hdr(`SGPU_OP_FILL, 0, 5)); emit(32'hA001); emit(32); emit(7); emit(3); emit(32'h99AABBCC);
      p_fence(32'h9000, 32'h33, 0); kick;
      i = 0; while (!b_busy) begin @(negedge clk); i = i + 1; if (i > 200) $fatal(1, "fill did not start"); end
      repeat (5) @(negedge clk);
      n = b_aborts; reset_engine; repeat (2) @(negedge clk);
      if (b_aborts != n + 1) $fatal(1, "blit_abort_o not asserted during reset with a FILL in progress");
      rr(`SGPU_NREG_STATUS, rd);
      if (b_busy && !rd[`SGPU_STATUS_BUSY]) $fatal(1, "engine idle while its blit drains");
      // The next submission runs only after the blit drained (checked above).
      p_fence(32'h9000, 32'h34, 1); run;
      expect_mem(32'hA004, 32'h0, "aborted fill wrote");
      expect_mem(32'h9000, 32'h34, "fence after abort");
      expect_ok("reset aborts a FILL in progress");
      b_len = 20; b_progmode = 0; b_drain = 0;
      rw(`SGPU_NREG_WATCHDOG, 0);
    end
  endtask

  task foreach_size;
    begin
      rw(`SGPU_NREG_RING_SIZE, 100);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_RING_SIZE]) $fatal(1, "size 100 accepted");
      rw(`SGPU_NREG_RING_SIZE, 32);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_RING_SIZE]) $fatal(1, "size 32 accepted");
      rw(`SGPU_NREG_RING_SIZE, 32'h200000);
      if (!last_err || !last_bits[`SGPU_CFG_ERROR_RING_SIZE]) $fatal(1, "size 2M accepted");
      rw(`SGPU_NREG_RING_SIZE, 0);
      if (!last_err) $fatal(1, "size 0 accepted");
      rw(`SGPU_NREG_RING_SIZE, 64);
      if (last_err) $fatal(1, "size 64 rejected");
    end
  endtask

  task figures;
    integer words;
    begin
      mem.bp = 0; mem.lat = 1;
      // INDIRECT streaming: one 1 KiB IB holding a single NOP
      words = 256;
      cur = 32'h2000; to_ring = 0; emit(hdr(`SGPU_OP_NOP, 0, words - 1));
      for (i = 1; i < words; i = i + 1) emit(32'hDEAD_0000 + i);
      to_ring = 1; p_ib(32'h2000, 4 * words, 1, 0); p_fence(32'h9000, 32'h400, 0);
      ib_lo = 32'h2000; ib_hi = 32'h2000 + 4 * words; ib_first = -1; ib_last = -1;
      // mark when the engine is back at ring level
      kick;
      wait (ib_first >= 0);
      t0 = ib_first;
      // the NOP is consumed 1 word/cycle: wait until the fence is written
      wait (mem.mem[32'h9000 >> 2] == 32'h400);
      wait_idle(10000);
      $display("FIGURE fetch_words_per_cycle %0.3f", words * 1.0 / (ib_last - t0 + 1));
      if (words * 1.0 / (ib_last - t0 + 1) < 0.95) $fatal(1, "IB streaming below 0.95 words/cycle");
      expect_ok("ib streaming");
      // doorbell to first ring read
      repeat (10) @(negedge clk);
      p_fence(32'h9000, 32'h401, 0);
      db_cyc = -1; db_first = -1;
      run;
      $display("FIGURE doorbell_to_first_read_cycles %0d", db_first - db_cyc);
      if (db_first - db_cyc > 4) $fatal(1, "doorbell to first read > 4 cycles");
      // last write of a buffer to its fence write
      cur = 32'h2000; to_ring = 0; p_wd(32'h8000, 16, 32'h1000);
      to_ring = 1; p_ib(32'h2000, 4 * 18, 32'h402, 0); p_fence(32'h9000, 32'h402, 1);
      last_data_addr = 32'h8000 + 4 * 15; mon_addr = 32'h9000; chk_n = 0; fence_wr = -1; last_data_wr = -1;
      run;
      $display("FIGURE last_write_to_fence_cycles %0d", fence_wr - last_data_wr);
      if (fence_wr - last_data_wr > 8 || fence_wr < 0 || last_data_wr < 0) $fatal(1, "last write to fence > 8 cycles");
      mon_addr = 32'hFFFF_FFFF;
      expect_ok("figures");
    end
  endtask

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    repeat (3) @(negedge clk);
    rst_n = 1;
    @(negedge clk);
    setup_ring(1024);
    figures;
    cfg_checks;
    for (pass = 0; pass < 3; pass = pass + 1) begin
      mem.bp  = (pass == 0) ? 0 : (pass == 1) ? 30 : 60;
      mem.lat = (pass == 0) ? 1 : (pass == 1) ? 3 : 7;
      $display("--- pass %0d: back-pressure %0d%%, latency %0d", pass, mem.bp, mem.lat);
      setup_ring(1024);
      functional("pass");
      fault_tests;
      blit_tests;
      setup_ring(64);       // smallest ring: packets wrap around its end
      random_stream(60);
      setup_ring(1024);
    end
    $display("PASS tb_sgpu_cp (seed %0d)", seed);
    $finish;
  end
  // in 1 ms steps: Verilator 5.006 wraps a single delay at 2^32 ps
  initial begin repeat (200) #1000000; $fatal(1, "global timeout"); end
endmodule
