// Multi-cycle 16x16 shift-add multiplier (one bit of b per cycle, stops
// early when the remaining multiplier bits are zero): cheap on iCE40.
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
  reg [PW-1:0] acc_q, a_q;
  reg          acc_ovf_q, a_ovf_q;   // product / shifted a reached 2^PW
  reg [15:0]   b_q;

  wire [PW:0] sum = {1'b0, acc_q} + {1'b0, a_q};

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q <= {PW{1'b0}}; a_q <= {PW{1'b0}}; b_q <= 16'd0;
      acc_ovf_q <= 1'b0; a_ovf_q <= 1'b0;
    end else if (start_i) begin
      acc_q <= {PW{1'b0}}; a_q <= {{(PW-16){1'b0}}, a_i}; b_q <= b_i;
      acc_ovf_q <= 1'b0; a_ovf_q <= 1'b0;
    end else if (b_q != 16'd0) begin
      if (b_q[0]) begin
        acc_q <= sum[PW-1:0];
        if (sum[PW] || a_ovf_q) acc_ovf_q <= 1'b1;
      end
      a_q <= {a_q[PW-2:0], 1'b0};
      if (a_q[PW-1]) a_ovf_q <= 1'b1;
      b_q <= {1'b0, b_q[15:1]};
    end
  end

  assign busy_o = (b_q != 16'd0);
  assign p_o    = acc_q;
  assign ovf_o  = acc_ovf_q;
endmodule
