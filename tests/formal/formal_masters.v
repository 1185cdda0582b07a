// Valid/ready harnesses of the masters that are checked at their ports
// only: sgpu_blit (memory port), sgpu_display (scanout port) and sgpu_cp
// (ring, IB and writer memory ports, 2D command and flip requests; sgpu_cp
// itself carries no formal code).  All inputs are free; memories answer a
// read only when one is outstanding.  Write data and strobes are payload
// of writes only.  Bounded proofs (abc bmc3), depth in
// masters.sby.

// Reads outstanding on one port: the environment answers none too many.
module formal_rd_count (
  input wire clk_i, rst_ni, fire_i, write_i, rsp_i
);
  reg [7:0] f_out_q;
  always @(posedge clk_i or negedge rst_ni)
    if (!rst_ni) f_out_q <= 8'd0;
    else f_out_q <= f_out_q + (fire_i && !write_i) - rsp_i;
  always @(*) if (rst_ni) assume(!rsp_i || f_out_q != 8'd0);
endmodule

module formal_reset (input wire clk_i, rst_ni);
  reg f_init = 1'b1;
  always @(posedge clk_i) f_init <= 1'b0;
  always @(*) if (f_init) assume(!rst_ni);
  always @(*) if (!f_init) assume(rst_ni);
endmodule

// sgpu_blit: the memory port keeps the rules without exception, abort
// included (an abort holds a presented request until it is accepted), and
// pause_i (free) only keeps the next chunk from loading.
module formal_blit #(parameter integer BUF_AW = 2, parameter integer ADDR_W = 17) (
  input wire clk_i, rst_ni, abort_i, pause_i, cmd_valid_i, cmd_copy_i,
  input wire [31:0] cmd_dst_i, cmd_src_i, cmd_pattern_i,
  input wire [15:0] cmd_dst_pitch_i, cmd_src_pitch_i, cmd_width_i, cmd_height_i,
  input wire mem_req_ready_i, mem_rsp_valid_i,
  input wire [31:0] mem_rsp_rdata_i
);
  formal_reset u_rst (.clk_i(clk_i), .rst_ni(rst_ni));
  wire cmd_ready, busy, v, w;
  wire [31:0] a, d;
  wire [3:0] s;
  sgpu_blit #(.BUF_AW(BUF_AW), .ADDR_W(ADDR_W)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .abort_i(abort_i), .pause_i(pause_i), .chunk_o(),
    .cmd_valid_i(cmd_valid_i), .cmd_ready_o(cmd_ready), .cmd_copy_i(cmd_copy_i),
    .cmd_dst_i(cmd_dst_i), .cmd_dst_pitch_i(cmd_dst_pitch_i), .cmd_src_i(cmd_src_i),
    .cmd_src_pitch_i(cmd_src_pitch_i), .cmd_width_i(cmd_width_i), .cmd_height_i(cmd_height_i),
    .cmd_pattern_i(cmd_pattern_i), .busy_o(busy),
    .mem_req_valid_o(v), .mem_req_ready_i(mem_req_ready_i), .mem_req_write_o(w),
    .mem_req_addr_o(a), .mem_req_wdata_o(d), .mem_req_wstrb_o(s),
    .mem_rsp_valid_i(mem_rsp_valid_i), .mem_rsp_rdata_i(mem_rsp_rdata_i));
  formal_rd_count u_rd (.clk_i(clk_i), .rst_ni(rst_ni), .fire_i(v && mem_req_ready_i),
    .write_i(w), .rsp_i(mem_rsp_valid_i));
  sgpu_vr_check #(.W(69)) u_vr (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(v),
    .ready_i(mem_req_ready_i), .payload_i({w, a, w ? {d, s} : 36'd0}), .excuse_i(1'b0));
  always @(posedge clk_i) cover(v && w && !mem_req_ready_i && abort_i);
endmodule

// sgpu_display: the scanout port keeps the rules without exception.
module formal_display #(parameter integer AW = 17, LB_AW = 2, CW = 10) (
  input wire clk_i, rst_ni, pix_en_i, reg_we_i,
  input wire [5:0] reg_addr_i,
  input wire [31:0] reg_wdata_i,
  input wire flip_valid_i,
  input wire [31:0] flip_addr_i,
  input wire [2:0] flip_interval_i,
  input wire mem_req_ready_i, mem_rsp_valid_i,
  input wire [31:0] mem_rsp_rdata_i
);
  formal_reset u_rst (.clk_i(clk_i), .rst_ni(rst_ni));
  wire v;
  wire [31:0] a;
  /* unused outputs */
  wire [31:0] rd; wire err, fr, fp, vb, ivb, hs, vs, de; wire [15:0] sl; wire [7:0] r, g, b;
  sgpu_display #(.AW(AW), .LB_AW(LB_AW), .CW(CW)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .pix_en_i(pix_en_i),
    .reg_we_i(reg_we_i), .reg_addr_i(reg_addr_i), .reg_wdata_i(reg_wdata_i),
    .reg_rdata_o(rd), .reg_error_o(err),
    .flip_valid_i(flip_valid_i), .flip_ready_o(fr), .flip_addr_i(flip_addr_i),
    .flip_interval_i(flip_interval_i), .flip_pending_o(fp), .vblank_o(vb),
    .scanline_o(sl), .in_vblank_o(ivb),
    .mem_req_valid_o(v), .mem_req_ready_i(mem_req_ready_i), .mem_req_addr_o(a),
    .mem_rsp_valid_i(mem_rsp_valid_i), .mem_rsp_rdata_i(mem_rsp_rdata_i),
    .vid_r_o(r), .vid_g_o(g), .vid_b_o(b), .vid_hsync_o(hs), .vid_vsync_o(vs), .vid_de_o(de));
  formal_rd_count u_rd (.clk_i(clk_i), .rst_ni(rst_ni), .fire_i(v && mem_req_ready_i),
    .write_i(1'b0), .rsp_i(mem_rsp_valid_i));
  sgpu_vr_check #(.W(32)) u_vr (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(v),
    .ready_i(mem_req_ready_i), .payload_i(a), .excuse_i(1'b0));
endmodule

// sgpu_cp: ring, IB and writer ports, the 2D command and the flip request.
// The writer and IB ports are checked too (CHECK_WR / CHECK_IB = 0 would
// leave them out).  This proof found both withdrawing a waiting request:
// the writer when RPTR_ADDR was rewritten during a write-back (RPTR_ADDR is
// now refused then), the IB fetch when a level-2 INDIRECT restarted the
// fetcher under a waiting prefetch (the restart now waits for it).  One
// payload is exempt by the interface spec: TIMESTAMP's low word is the
// cycle count of the cycle the write is accepted, so it moves while it
// waits (cp's f_wdata_live_o marks it); its address and strobes still hold.
module formal_cp #(parameter integer MEM_BYTES = 65536, parameter integer CHECK_WR = 1,
                   parameter integer CHECK_IB = 1, parameter integer VM = 0) (
  input wire clk_i, rst_ni, reg_we_i,
  input wire [6:0] reg_addr_i,
  input wire [31:0] reg_wdata_i,
  input wire [63:0] cycle_i,
  input wire ring_req_ready_i, ring_rsp_valid_i,
  input wire [31:0] ring_rsp_rdata_i,
  input wire ib_req_ready_i, ib_rsp_valid_i,
  input wire [31:0] ib_rsp_rdata_i,
  input wire wr_req_ready_i, wr_rsp_valid_i,
  input wire [31:0] wr_rsp_rdata_i,
  input wire blit_ready_i, blit_busy_i, blit_progress_i,
  input wire hold_i,   // priority hold: free, so it may rise and fall in any cycle
  input wire flip_ready_i, flip_pending_i, vblank_i, in_vblank_i,
  input wire [15:0] scanline_i
);
  formal_reset u_rst (.clk_i(clk_i), .rst_ni(rst_ni));
  localparam integer AW = $clog2(MEM_BYTES);
  wire [31:0] rd; wire cerr, dirq, firq; wire [5:0] cbits;
  wire rv, iv, wv, ww, bv, bc, ba, fv, fs;
  wire [31:0] ra, ia, wa, wd, bdst, bsrc, bpat, fa;
  wire [3:0] ws;
  wire [15:0] bdp, bsp, bw, bh;
  wire [2:0] fi;
  wire f_live;
  sgpu_cp #(.SOURCES(1), .MEM_BYTES(MEM_BYTES), .PERF(0), .AW(AW), .VM(VM)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .reg_we_i(reg_we_i), .reg_addr_i(reg_addr_i), .reg_wdata_i(reg_wdata_i), .reg_rdata_o(rd),
    .reg_re_i(1'b0), .reg_rdata_late_o(),
    .cfg_err_o(cerr), .cfg_err_bits_o(cbits), .cycle_i(cycle_i),
    .done_irq_o(dirq), .fault_irq_o(firq), .busy_o(), .faulted_o(),
    .hold_i(hold_i), .runnable_o(), .quiet_o(), .quantum_o(),
    .ring_req_valid_o(rv), .ring_req_ready_i(ring_req_ready_i), .ring_req_addr_o(ra),
    .ring_rsp_valid_i(ring_rsp_valid_i), .ring_rsp_rdata_i(ring_rsp_rdata_i),
    .ib_req_valid_o(iv), .ib_req_ready_i(ib_req_ready_i), .ib_req_addr_o(ia),
    .ib_rsp_valid_i(ib_rsp_valid_i), .ib_rsp_rdata_i(ib_rsp_rdata_i),
    .wr_req_valid_o(wv), .wr_req_ready_i(wr_req_ready_i), .wr_req_write_o(ww),
    .wr_req_addr_o(wa), .wr_req_wdata_o(wd), .wr_req_wstrb_o(ws),
    .wr_rsp_valid_i(wr_rsp_valid_i), .wr_rsp_rdata_i(wr_rsp_rdata_i),
    .blit_valid_o(bv), .blit_ready_i(blit_ready_i), .blit_copy_o(bc),
    .blit_dst_o(bdst), .blit_dst_pitch_o(bdp), .blit_src_o(bsrc), .blit_src_pitch_o(bsp),
    .blit_width_o(bw), .blit_height_o(bh), .blit_pattern_o(bpat),
    .blit_busy_i(blit_busy_i), .blit_progress_i(blit_progress_i), .blit_abort_o(ba),
    .flip_valid_o(fv), .flip_ready_i(flip_ready_i), .flip_src_o(fs), .flip_addr_o(fa),
    .flip_interval_o(fi), .flip_pending_i(flip_pending_i), .vblank_i(vblank_i),
    .in_vblank_i(in_vblank_i), .scanline_i(scanline_i), .f_wdata_live_o(f_live));
  formal_rd_count u_rd_ring (.clk_i(clk_i), .rst_ni(rst_ni), .fire_i(rv && ring_req_ready_i),
    .write_i(1'b0), .rsp_i(ring_rsp_valid_i));
  formal_rd_count u_rd_ib (.clk_i(clk_i), .rst_ni(rst_ni), .fire_i(iv && ib_req_ready_i),
    .write_i(1'b0), .rsp_i(ib_rsp_valid_i));
  formal_rd_count u_rd_wr (.clk_i(clk_i), .rst_ni(rst_ni), .fire_i(wv && wr_req_ready_i),
    .write_i(ww), .rsp_i(wr_rsp_valid_i));

  // Excused for the ring and IB fetches, the 2D command and the flip
  // request (an engine reset, CONTROL.RESET, drops a waiting FLIP / FILL):
  // withdrawing a waiting request in the
  // cycle after a host write to the node's registers (WPTR moved back onto
  // the fetch position, ENABLE cleared, ring base / size), while an engine
  // reset runs (blit_abort_o), and when the engine faults (fault_irq_o, in
  // that cycle or the one before; the watchdog included).
  reg f_we_q = 1'b0, f_fault_q = 1'b0;
  always @(posedge clk_i) begin
    f_we_q    <= reg_we_i;
    f_fault_q <= firq;
  end
  wire f_fetch_excuse = f_we_q || ba || firq || f_fault_q;

  sgpu_vr_check #(.W(32)) u_vr_ring (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(rv),
    .ready_i(ring_req_ready_i), .payload_i(ra), .excuse_i(f_fetch_excuse));
  sgpu_vr_check #(.W(32)) u_vr_ib (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(iv && CHECK_IB != 0),
    .ready_i(ib_req_ready_i), .payload_i(ia), .excuse_i(f_fetch_excuse));
  // The writer withdraws only for an engine reset (a CONTROL.RESET write
  // cuts it in that very cycle: "stop all memory traffic") or the watchdog
  // firing (a fault, fault_irq_o in that cycle).
  wire f_reset_now = reg_we_i && reg_addr_i == `SGPU_NREG_CONTROL && reg_wdata_i[`SGPU_CONTROL_RESET] &&
                     reg_wdata_i[31:2] == 30'd0;
  sgpu_vr_check #(.W(69)) u_vr_wr (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(wv && CHECK_WR != 0),
    .ready_i(wr_req_ready_i), .payload_i({ww, wa, ww ? {f_live ? 32'd0 : wd, ws} : 36'd0}), .excuse_i(f_reset_now || firq));
  sgpu_vr_check #(.W(177)) u_vr_blit (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(bv),
    .ready_i(blit_ready_i), .payload_i({bc, bdst, bdp, bsrc, bsp, bw, bh, bpat}), .excuse_i(f_fetch_excuse));
  sgpu_vr_check #(.W(36)) u_vr_flip (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(fv),
    .ready_i(flip_ready_i), .payload_i({fs, fa, fi}), .excuse_i(f_fetch_excuse));
endmodule
