// sgpu_gt_const: gt_o = x_i > C, for a constant C.
//
// Synthesis turns a compare into a carry chain (one logic cell a bit on the
// iCE40) even when one side is a constant; written out as a ripple from the
// top bit -- x > C once x has a 1 where C has a 0 below equal upper bits --
// with C fixed it folds to a few LUTs (x > 5 is x[W-1:3] != 0 or x[2:0] > 5).
module sgpu_gt_const #(
  parameter integer W = 32,
  parameter [W-1:0] C = {W{1'b0}}
) (
  input  wire [W-1:0] x_i,
  output wire         gt_o
);
`ifdef VERILATOR
  // This simulator unrolls the ripple into a statement per bit and
  // instance (the chip model grew by a sixth): it gets the plain compare,
  // the same function; tests/rtl/tb_sgpu_gt_const checks the ripple
  // against it under Icarus.
  assign gt_o = x_i > C;
`else
  function automatic gt_c(input [W-1:0] x);
    integer i;
    reg     gt, eq;
    begin
      gt = 1'b0;
      eq = 1'b1;
      for (i = W - 1; i >= 0; i = i - 1) begin
        gt = gt | (eq & x[i] & !C[i]);
        eq = eq & (x[i] == C[i]);
      end
      gt_c = gt;
    end
  endfunction
  assign gt_o = gt_c(x_i);
`endif
endmodule
