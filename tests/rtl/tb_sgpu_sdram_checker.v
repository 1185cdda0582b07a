// tb_sgpu_sdram_checker: the SDRAM model's checker can fail.  Each unit runs
// sgpu_sdram with one timing parameter broken (or, where a correct
// controller cannot break a rule on its own, the model's limit tightened or
// the bench forcing the fault) under random traffic, with the model told
// which rule must fire (EXPECT).  The bench passes when every unit's rule
// fired; a unit whose rule never fires, or where another rule fires first,
// fails it.  tb_sgpu_sdram runs the same model with every rule armed.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
`include "sgpu_sdram_model.vh"

/* verilator coverage_off */
module sdram_chk_unit #(
  parameter         RULE       = "tRCD",
  parameter integer CLK_MHZ    = 50,
  parameter integer CL         = 2,
  parameter integer BURST      = 2,
  // controller (broken values go here)
  parameter integer C_RCD      = 21,
  parameter integer C_RP       = 21,
  parameter integer C_RAS      = 42,
  parameter integer C_WR       = 14,
  parameter integer C_RRD      = 14,
  parameter integer C_MRD      = 14,
  parameter integer C_MRD_CK   = 2,
  parameter integer C_RFC      = 63,
  parameter integer C_REFI     = 7800,
  parameter integer C_INIT_US  = 10,
  parameter integer C_REFS     = 8,
  // model (tightened limits go here)
  parameter integer M_RC       = 63,
  parameter integer M_RAS_MAX  = 120000,
  parameter integer M_GAP      = 9 * 7800,
  parameter integer M_REF_ROWS = 8192,
  parameter integer M_WINDOW   = 64000,
  parameter integer M_INIT_US  = 10,
  // the bench drives DQ into the SDRAM's read data
  parameter integer FORCE_OE   = 0,
  parameter integer SEED       = 1
) (
  input  wire clk,
  input  wire rst_n,
  output wire fired,
  output reg  timeout
);
  integer seed = SEED;
  `include "tb_random.vh"

  reg         valid, write;
  reg  [31:0] addr, wdata;
  reg  [3:0]  wstrb;
  wire        ready;
  /* verilator lint_off UNUSEDSIGNAL */
  wire        rsp_valid, s_clk;
  wire [31:0] rsp_rdata;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        s_cke, s_csn, s_rasn, s_casn, s_wen, s_oe;
  wire [1:0]  s_ba, s_dqm;
  wire [12:0] s_a;
  wire [15:0] s_dq_o, s_dq_i;
  integer     cyc;

  sgpu_sdram #(.CLK_MHZ(CLK_MHZ), .CL(CL), .BURST(BURST), .T_RCD_NS(C_RCD), .T_RP_NS(C_RP),
               .T_RAS_NS(C_RAS), .T_WR_NS(C_WR), .T_RRD_NS(C_RRD), .T_MRD_NS(C_MRD),
               .T_MRD_CK(C_MRD_CK), .T_RFC_NS(C_RFC), .T_REFI_NS(C_REFI), .T_INIT_US(C_INIT_US),
               .INIT_REFS(C_REFS)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .req_valid_i(valid), .req_ready_o(ready), .req_write_i(write), .req_addr_i(addr),
    .req_wdata_i(wdata), .req_wstrb_i(wstrb), .rsp_valid_o(rsp_valid), .rsp_rdata_o(rsp_rdata),
    .sdram_clk_o(s_clk), .sdram_cke_o(s_cke), .sdram_csn_o(s_csn), .sdram_rasn_o(s_rasn),
    .sdram_casn_o(s_casn), .sdram_wen_o(s_wen), .sdram_ba_o(s_ba), .sdram_a_o(s_a),
    .sdram_dqm_o(s_dqm), .sdram_dq_o(s_dq_o), .sdram_dq_oe_o(s_oe), .sdram_dq_i(s_dq_i));

  // FORCE_OE: the controller's DQ enable, plus the SDRAM's read-data drive
  // once traffic runs (as if the controller wrote into a read burst)
  wire oe = s_oe | ((FORCE_OE != 0) && (cyc > 400) && model.drv_q);

  sgpu_sdram_model #(.CLK_MHZ(CLK_MHZ), .T_RC_NS(M_RC), .T_RAS_MAX_NS(M_RAS_MAX),
                     .T_REF_GAP_NS(M_GAP), .REF_ROWS(M_REF_ROWS), .T_REF_WINDOW_US(M_WINDOW),
                     .T_INIT_US(M_INIT_US), .EXPECT(RULE)) model (
    .clk_i(clk), .cke_i(s_cke), .csn_i(s_csn), .rasn_i(s_rasn), .casn_i(s_casn), .wen_i(s_wen),
    .ba_i(s_ba), .a_i(s_a), .dqm_i(s_dqm), .dq_i(s_dq_o), .dq_oe_i(oe), .dq_o(s_dq_i));

  assign fired = model.fired;

  always @(posedge clk) cyc = cyc + 1;

  // random reads and writes over two rows of each bank: row hits and misses
  // in every bank, requests queued from reset on
  initial begin
    cyc = 0; timeout = 1'b0;
    valid = 1'b0; write = 1'b0; addr = 32'd0; wdata = 32'd0; wstrb = 4'd0;
    @(posedge rst_n);
    while (!fired && cyc < 40000) begin
      @(negedge clk);
      valid = ({tb_random(0)} % 4) != 0;
      write = tb_random(0) & 1;
      addr  = ({tb_random(0)} & 32'h0000_1FFC) | (({tb_random(0)} & 32'd1) << 13);  // row 0 or 1
      wdata = tb_random(0);
      wstrb = tb_random(0);
    end
    valid = 1'b0;
    timeout = !fired;
  end
endmodule

module tb_sgpu_sdram_checker;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  localparam integer N = 15;
  wire [N-1:0] fired, tmo;
  wire [N-1:0] over = fired | tmo;
  // a unit's clock stops once its rule fired or it gave up
  wire [N-1:0] uclk = {N{clk}} & ~over;

  // 50 MHz unless noted; tRC cannot be broken by a controller that keeps
  // tRAS and tRP (63 ns = 42 + 21), so the model's tRC is raised instead
  sdram_chk_unit #(.RULE("tRCD"), .C_RCD(5), .SEED(1))
    u_rcd (.clk(uclk[0]), .rst_n(rst_n), .fired(fired[0]), .timeout(tmo[0]));
  sdram_chk_unit #(.RULE("tRP"), .C_RP(5), .SEED(2))
    u_rp (.clk(uclk[1]), .rst_n(rst_n), .fired(fired[1]), .timeout(tmo[1]));
  sdram_chk_unit #(.RULE("tRAS"), .CLK_MHZ(133), .CL(3), .C_RAS(10), .SEED(3))
    u_ras (.clk(uclk[2]), .rst_n(rst_n), .fired(fired[2]), .timeout(tmo[2]));
  sdram_chk_unit #(.RULE("tRC"), .M_RC(200), .BURST(4), .SEED(4))
    u_rc (.clk(uclk[3]), .rst_n(rst_n), .fired(fired[3]), .timeout(tmo[3]));
  sdram_chk_unit #(.RULE("tWR"), .CLK_MHZ(133), .CL(3), .C_WR(1), .SEED(5))
    u_wr (.clk(uclk[4]), .rst_n(rst_n), .fired(fired[4]), .timeout(tmo[4]));
  sdram_chk_unit #(.RULE("tRRD"), .CLK_MHZ(133), .CL(3), .C_RRD(1), .SEED(6))
    u_rrd (.clk(uclk[5]), .rst_n(rst_n), .fired(fired[5]), .timeout(tmo[5]));
  sdram_chk_unit #(.RULE("tMRD"), .CLK_MHZ(133), .CL(3), .C_MRD(1), .C_MRD_CK(1), .SEED(7))
    u_mrd (.clk(uclk[6]), .rst_n(rst_n), .fired(fired[6]), .timeout(tmo[6]));
  sdram_chk_unit #(.RULE("tRFC"), .C_RFC(10), .SEED(8))
    u_rfc (.clk(uclk[7]), .rst_n(rst_n), .fired(fired[7]), .timeout(tmo[7]));
  // refreshes 80 us apart against a limit of nine 7.8 us intervals
  sdram_chk_unit #(.RULE("refresh-gap"), .CLK_MHZ(25), .C_REFI(80000), .SEED(9))
    u_gap (.clk(uclk[8]), .rst_n(rst_n), .fired(fired[8]), .timeout(tmo[8]));
  // 16 refresh rows in a window of 16 x 7.8 us, refreshes every 9 us
  sdram_chk_unit #(.RULE("refresh-window"), .CLK_MHZ(25), .C_REFI(9000), .M_REF_ROWS(16),
                   .M_WINDOW(125), .SEED(10))
    u_win (.clk(uclk[9]), .rst_n(rst_n), .fired(fired[9]), .timeout(tmo[9]));
  // CL 2 at 125 MHz: tCK 8 ns < 10 ns
  sdram_chk_unit #(.RULE("CL-tCK"), .CLK_MHZ(125), .CL(2), .SEED(11))
    u_cl (.clk(uclk[10]), .rst_n(rst_n), .fired(fired[10]), .timeout(tmo[10]));
  sdram_chk_unit #(.RULE("init-wait"), .C_INIT_US(5), .SEED(12))
    u_iw (.clk(uclk[11]), .rst_n(rst_n), .fired(fired[11]), .timeout(tmo[11]));
  // one refresh at power-up where the model wants two
  sdram_chk_unit #(.RULE("init-order"), .C_REFS(1), .SEED(13))
    u_io (.clk(uclk[12]), .rst_n(rst_n), .fired(fired[12]), .timeout(tmo[12]));
  // no refresh at all, rows left open longer than a tightened tRAS max
  sdram_chk_unit #(.RULE("tRAS-max"), .C_REFI(1000000), .M_GAP(1000000000), .M_RAS_MAX(3000),
                   .SEED(14))
    u_rmax (.clk(uclk[13]), .rst_n(rst_n), .fired(fired[13]), .timeout(tmo[13]));
  sdram_chk_unit #(.RULE("DQ-contention"), .FORCE_OE(1), .SEED(15))
    u_dq (.clk(uclk[14]), .rst_n(rst_n), .fired(fired[14]), .timeout(tmo[14]));

  integer i, n;
  initial begin
    repeat (3) @(posedge clk);
    #1 rst_n = 1'b1;
    wait (&over);
    if (!(&fired)) begin
      n = 0;
      for (i = 0; i < N; i = i + 1) begin
        if (!fired[i]) $display("tb_sgpu_sdram_checker: unit %0d: its rule never fired", i);
        else n = n + 1;
      end
      $fatal(1, "tb_sgpu_sdram_checker: FAIL (%0d of %0d rules fired)", n, N);
    end
    $display("tb_sgpu_sdram_checker: PASS (all %0d broken timings caught by the model)", N);
    $finish;
  end
endmodule
/* verilator coverage_on */
