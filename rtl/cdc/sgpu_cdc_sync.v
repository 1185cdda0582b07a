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
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // STAGES: two flip-flops at least against metastability.
  generate if (!(STAGES >= 2)) begin : g_bad_stages
    sgpu_precondition_failed_STAGES_at_least_2 u_fail ();
  end endgenerate

  // Stage s is sync_q[s*WIDTH +: WIDTH]; stage 0 samples d_i.
  reg [STAGES*WIDTH-1:0] sync_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) sync_q <= {STAGES{RESET_VAL}};
    else         sync_q <= {sync_q[(STAGES-1)*WIDTH-1:0], d_i};
  end

  assign q_o = sync_q[STAGES*WIDTH-1 -: WIDTH];

endmodule
