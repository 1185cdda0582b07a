// sgpu_vr_check: the valid/ready rules of one handshake port
// (docs/architecture.md, memory port protocol), for formal harnesses.
//  - once valid is high and not accepted (ready low), valid stays high in
//    the next cycle, and
//  - the payload stays the same while it waits.
// hold_i (sampled with the waiting cycle's successor) excuses a port
// from both rules in that cycle: the master's documented exceptions (abort,
// flush, reset of the engine); harnesses say precisely what they pass in.
// ASSUME = 1 turns the assertions into assumptions, to constrain the
// inputs of a slave under test the same way.
module sgpu_vr_check #(
  parameter integer W      = 32,
  parameter integer ASSUME = 0
) (
  input  wire         clk_i,
  input  wire         rst_ni,
  input  wire         valid_i,
  input  wire         ready_i,
  input  wire [W-1:0] payload_i,
  input  wire         excuse_i
);
  reg         f_past_valid = 1'b0;
  reg         f_wait_q = 1'b0;       // last cycle: valid and not ready
  reg [W-1:0] f_payload_q;

  always @(posedge clk_i) begin
    f_past_valid <= 1'b1;
    f_wait_q     <= rst_ni && valid_i && !ready_i;
    f_payload_q  <= payload_i;
  end

  wire f_check = f_past_valid && rst_ni && f_wait_q && !excuse_i;
  generate if (ASSUME != 0) begin : g_assume
    always @(*) if (f_check) assume(valid_i && payload_i == f_payload_q);
  end else begin : g_assert
    always @(*) if (f_check) begin
      assert(valid_i);
      assert(payload_i == f_payload_q);
    end
    // the rules are not vacuous: a stall does happen
    always @(posedge clk_i) cover(f_check && valid_i && ready_i);
  end endgenerate
endmodule
