// sgpu_cdc_sync — level synchroniser: each bit of d_i passes through a chain
// of STAGES flip-flops clocked by the destination clock (2 by default, the
// classic two-flop synchroniser).  Bits are synchronised independently, so a
// multi-bit d_i must change at most one bit at a time (a single level, a
// Gray-coded pointer); for other buses use sgpu_cdc_bus.  The first stage is
// the only flop that may go metastable; nothing but the next stage reads it.
module sgpu_cdc_sync #(
  parameter integer WIDTH  = 1,
  parameter integer STAGES = 2,            // >= 2
  parameter [WIDTH-1:0] RESET_VAL = {WIDTH{1'b0}}
) (
  input  wire             clk_i,           // destination clock
  input  wire             rst_ni,          // destination reset (asynchronous, active low)
  input  wire [WIDTH-1:0] d_i,             // from another clock domain
  output wire [WIDTH-1:0] q_o
);

  reg [WIDTH-1:0] sync_q [0:STAGES-1];
  integer s;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (s = 0; s < STAGES; s = s + 1) sync_q[s] <= RESET_VAL;
    end else begin
      sync_q[0] <= d_i;
      for (s = 1; s < STAGES; s = s + 1) sync_q[s] <= sync_q[s-1];
    end
  end

  assign q_o = sync_q[STAGES-1];

endmodule
