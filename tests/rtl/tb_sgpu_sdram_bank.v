// tb_sgpu_sdram_bank: one bank's state and timers against a reference that
// keeps, per command, the first cycle the next one is allowed: ACT opens
// the row (READ/WRITE from RCD_CK on, PRE from RAS_CK, ACT from RC_CK), PRE
// closes it (ACT from RP_CK), READ and WRITE hold PRE off for RD_PRE_CK /
// WR_PRE_CK.  Random commands in random cycles (allowed or not: the bank
// only counts); each cycle the open flag, the row and the three "ok" flags
// must match.  Two configurations: long waits, and every wait 1 cycle.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module bank_chk #(
  parameter integer RCD = 3, RP = 2, RAS = 6, RC = 9, RDP = 8, WRP = 3, SEED = 1
) (
  input  wire clk,
  input  wire rst_n,
  output reg  ok
);
  integer seed = SEED;
  `include "tb_random.vh"

  reg         act, pre, rd, wr;
  reg  [12:0] row;
  wire        open_o, act_ok, col_ok, pre_ok;
  wire [12:0] row_o;

  sgpu_sdram_bank #(.ROW_BITS(13), .TW(4), .RCD_CK(RCD), .RP_CK(RP), .RAS_CK(RAS), .RC_CK(RC),
                    .RD_PRE_CK(RDP), .WR_PRE_CK(WRP)) dut (
    .clk_i(clk), .rst_ni(rst_n), .act_i(act), .pre_i(pre), .rd_i(rd), .wr_i(wr), .row_i(row),
    .open_o(open_o), .row_o(row_o), .act_ok_o(act_ok), .col_ok_o(col_ok), .pre_ok_o(pre_ok));

  integer cyc, e_act, e_col, e_pre, i, r;
  reg     m_open;
  reg [12:0] m_row;

  function integer max(input integer a, input integer b);
    max = (a > b) ? a : b;
  endfunction

  initial begin
    ok = 1'b0; cyc = 0; e_act = 0; e_col = 0; e_pre = 0; m_open = 1'b0; m_row = 13'd0;
    act = 1'b0; pre = 1'b0; rd = 1'b0; wr = 1'b0; row = 13'd0;
    @(posedge rst_n);
    for (i = 0; i < 20000; i = i + 1) begin
      @(negedge clk);
      if (open_o !== m_open || (m_open && row_o !== m_row) || act_ok !== (cyc >= e_act) ||
          col_ok !== (cyc >= e_col) || pre_ok !== (cyc >= e_pre))
        $fatal(1, "bank: cycle %0d: open %b row %0d act_ok %b col_ok %b pre_ok %b, want %b %0d %b %b %b",
               cyc, open_o, row_o, act_ok, col_ok, pre_ok, m_open, m_row, cyc >= e_act,
               cyc >= e_col, cyc >= e_pre);
      // one command (or none) this cycle, as the sequencer gives them
      r = {tb_random(0)} % 8;
      act = (r == 0); pre = (r == 1); rd = (r == 2); wr = (r == 3);
      row = tb_random(0);
      if (act) begin
        m_open = 1'b1; m_row = row;
        e_act = max(e_act, cyc + RC); e_col = max(e_col, cyc + RCD); e_pre = max(e_pre, cyc + RAS);
      end
      if (pre) begin m_open = 1'b0; e_act = max(e_act, cyc + RP); end
      if (rd) e_pre = max(e_pre, cyc + RDP);
      if (wr) e_pre = max(e_pre, cyc + WRP);
      cyc = cyc + 1;
    end
    ok = 1'b1;
  end
endmodule

module tb_sgpu_sdram_bank;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;
  wire ok0, ok1;

  bank_chk #(.RCD(3), .RP(2), .RAS(6), .RC(9), .RDP(8), .WRP(3), .SEED(5)) u0 (.clk(clk), .rst_n(rst_n), .ok(ok0));
  bank_chk #(.RCD(1), .RP(1), .RAS(1), .RC(1), .RDP(1), .WRP(1), .SEED(6)) u1 (.clk(clk), .rst_n(rst_n), .ok(ok1));

  initial begin
    repeat (2) @(posedge clk);
    @(negedge clk) rst_n = 1'b1;
    wait (ok0 && ok1);
    $display("tb_sgpu_sdram_bank: PASS (20000 cycles of random commands, two configurations)");
    $finish;
  end
endmodule
