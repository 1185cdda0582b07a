// sgpu_cdc_rst — reset synchroniser: the output reset asserts at once
// (asynchronously) with rst_ni and deasserts STAGES clk_i edges after
// rst_ni rises, in step with clk_i, so every flop of the clock domain leaves
// reset in the same cycle.
module sgpu_cdc_rst #(
  parameter integer STAGES = 2             // >= 2
) (
  input  wire clk_i,
  input  wire rst_ni,                      // asynchronous, from any domain
  output wire rst_no                       // for the flops of clk_i's domain
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // STAGES: two flip-flops at least against metastability.
  generate if (!(STAGES >= 2)) begin : g_bad_stages
    sgpu_precondition_failed_STAGES_at_least_2 u_fail ();
  end endgenerate

  reg [STAGES-1:0] sync_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) sync_q <= {STAGES{1'b0}};
    else         sync_q <= {sync_q[STAGES-2:0], 1'b1};
  end

  assign rst_no = sync_q[STAGES-1];

endmodule
