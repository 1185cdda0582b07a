// sgpu_gt_const: exhaustive against x > C for 6-bit operands (every C, as
// separate instances), and random 34-bit operands near a 2^17 boundary
// (the command processor's "past the end of memory" check).
`timescale 1ns/1ps
module tb_sgpu_gt_const;
  reg  [5:0]  x6;
  wire [63:0] gt6;
  genvar c;
  generate
    for (c = 0; c < 64; c = c + 1) begin : g_c
      sgpu_gt_const #(.W(6), .C(c)) u (.x_i(x6), .gt_o(gt6[c]));
    end
  endgenerate
  reg  [33:0] x34;
  wire        gt34;
  sgpu_gt_const #(.W(34), .C(34'h20000)) u34 (.x_i(x34), .gt_o(gt34));
  integer k, n, ones, seed;
  `include "tb_random.vh"
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 3;
    for (k = 0; k < 64; k = k + 1) begin
      x6 = k; #1;
      for (n = 0; n < 64; n = n + 1)
        if (gt6[n] !== (k > n)) $fatal(1, "%0d > %0d: got %b", k, n, gt6[n]);
    end
    ones = 0;
    for (k = 0; k < 4000; k = k + 1) begin
      case (k % 4)
        0: x34 = 34'h20000 + ($signed(tb_random(0)) % 8);        // around the boundary
        1: x34 = {tb_random(0), 2'b00} >> ($unsigned(tb_random(0)) % 34);
        2: x34 = 34'h20000;
        default: x34 = {tb_random(0), tb_random(0)};
      endcase
      #1;
      if (gt34 !== (x34 > 34'h20000)) $fatal(1, "%h > 20000: got %b", x34, gt34);
      if (gt34) ones = ones + 1;
    end
    if (ones == 0 || ones == 4000) $fatal(1, "both outcomes not exercised");
    $display("PASS tb_sgpu_gt_const");
    $finish;
  end
endmodule
