// 16x16 multiplier with a registered product: p_o and ovf_o hold the
// product of the a_i, b_i given with start_i from the next cycle on.  One
// multiply, so synthesis maps it onto a DSP block (iCE40UP5K SB_MAC16 with
// synth_ice40 -dsp, ECP5 MULT18X18D) instead of logic cells.  busy_o stays
// for the handshake of a multi-cycle multiplier and is never set.
// PW: product bits kept.  ovf_o is set when the product needs more than PW
// bits (p_o is then not meaningful); with PW = 32 it never is.
`include "sgpu_hw.vh"
module sgpu_mul16 #(
  parameter PW = 32               // 17..32
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  input  wire          start_i,
  input  wire [15:0]   a_i,
  input  wire [15:0]   b_i,
  output wire          busy_o,
  output wire [PW-1:0] p_o,
  output wire          ovf_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // PW: product bits kept out of the 32-bit product (ovf_o tests p_q[31:PW]).
  generate if (!(PW >= 17 && PW <= 32)) begin : g_bad_pw
    sgpu_precondition_failed_PW_17_to_32 u_fail ();
  end endgenerate

  // No reset: the product is read only after a start, and a register
  // without one is the DSP block's own output register.
  reg [31:0] p_q;

  always @(posedge clk_i) begin
    if (start_i) p_q <= a_i * b_i;
  end

  assign busy_o = 1'b0;
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = rst_ni;
  /* verilator lint_on UNUSEDSIGNAL */
  assign p_o    = p_q[PW-1:0];
  generate
    if (PW < 32) begin : g_ovf
      assign ovf_o = (p_q[31:PW] != 0);
    end else begin : g_no_ovf
      assign ovf_o = 1'b0;
    end
  endgenerate
endmodule
