// tb_sgpu_sdram_init: the power-up sequence.  Only NOPs for WAIT_CK cycles
// after reset, then PRECHARGE ALL (A10), REFS x AUTO REFRESH (the first RP_CK
// after the precharge, then RFC_CK apart), MODE REGISTER SET with the mode on
// A RFC_CK after the last refresh, and done_o from MRD_CK cycles after the
// MRS on, never before; nothing but NOPs after.  Two configurations: the
// ULX3S one's shape with short waits, and every wait at its 1-cycle floor.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module init_chk #(
  parameter integer  WAIT_CK = 20,
  parameter integer  RP_CK   = 3,
  parameter integer  RFC_CK  = 5,
  parameter integer  MRD_CK  = 2,
  parameter integer  REFS    = 3,
  parameter [12:0]   MODE    = 13'h0123
) (
  input  wire clk,
  input  wire rst_n,
  output reg  ok
);
  wire [3:0]  cmd;
  wire [12:0] a;
  wire        done;

  sgpu_sdram_init #(.WAIT_CK(WAIT_CK), .RP_CK(RP_CK), .RFC_CK(RFC_CK), .MRD_CK(MRD_CK),
                    .REFS(REFS), .MODE(MODE)) dut (
    .clk_i(clk), .rst_ni(rst_n), .cmd_o(cmd), .a_o(a), .done_o(done));

  localparam [3:0] C_NOP = 4'b0111, C_PRE = 4'b0010, C_REF = 4'b0001, C_MRS = 4'b0000;

  // expected: cycle (counted from the first cycle out of reset) and command
  integer cyc, n_ref, t_last, t_mrs;
  reg     seen_pre, seen_mrs;

  // sampled in each cycle before its rising edge (the command is combinational)
  always @(negedge clk) begin
    if (rst_n) begin
      if (done !== (seen_mrs && cyc - t_mrs >= MRD_CK))
        $fatal(1, "init: done %b in cycle %0d (MRS in %0d, tMRD %0d)", done, cyc, t_mrs, MRD_CK);
      case (cmd)
        C_NOP: ;
        C_PRE: begin
          if (seen_pre || cyc != WAIT_CK - 1 || !a[10])
            $fatal(1, "init: PRECHARGE in cycle %0d (A10 %b), want one, all banks, in %0d", cyc, a[10], WAIT_CK - 1);
          seen_pre = 1'b1; t_last = cyc;
        end
        C_REF: begin
          if (!seen_pre || seen_mrs || n_ref == REFS || cyc - t_last != (n_ref == 0 ? RP_CK : RFC_CK))
            $fatal(1, "init: REFRESH %0d in cycle %0d, %0d after the last command", n_ref, cyc, cyc - t_last);
          n_ref = n_ref + 1; t_last = cyc;
        end
        C_MRS: begin
          if (n_ref != REFS || seen_mrs || cyc - t_last != RFC_CK || a !== MODE)
            $fatal(1, "init: MRS (mode %h) in cycle %0d after %0d refreshes", a, cyc, n_ref);
          seen_mrs = 1'b1; t_mrs = cyc;
        end
        default: $fatal(1, "init: command %b in cycle %0d", cmd, cyc);
      endcase
      cyc = cyc + 1;
    end
  end

  initial begin
    cyc = 0; n_ref = 0; t_last = 0; t_mrs = 0; seen_pre = 1'b0; seen_mrs = 1'b0; ok = 1'b0;
    wait (done);
    repeat (20) @(posedge clk);
    ok = 1'b1;
  end
endmodule

module tb_sgpu_sdram_init;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;
  wire ok0, ok1;

  init_chk #(.WAIT_CK(20), .RP_CK(3), .RFC_CK(5), .MRD_CK(2), .REFS(3), .MODE(13'h0123))
    u0 (.clk(clk), .rst_n(rst_n), .ok(ok0));
  init_chk #(.WAIT_CK(1), .RP_CK(1), .RFC_CK(1), .MRD_CK(1), .REFS(1), .MODE(13'h1ABC))
    u1 (.clk(clk), .rst_n(rst_n), .ok(ok1));

  initial begin
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    wait (ok0 && ok1);
    $display("tb_sgpu_sdram_init: PASS");
    $finish;
  end
  initial begin
    repeat (500) @(posedge clk);
    $fatal(1, "tb_sgpu_sdram_init: sequence never done");
  end
endmodule
