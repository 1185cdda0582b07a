// Generic synchronous FIFO (first-word fall-through), flop storage.
// DEPTH must be a power of two >= 2.  clr_i empties it at once (flush).
`include "sgpu_hw.vh"
module sgpu_fifo #(
  parameter WIDTH = 32,
  parameter DEPTH = 4
) (
  input  wire               clk_i,
  input  wire               rst_ni,
  input  wire               clr_i,
  input  wire               in_valid_i,
  output wire               in_ready_o,
  input  wire [WIDTH-1:0]   in_data_i,
  output wire               out_valid_o,
  input  wire               out_ready_i,
  output wire [WIDTH-1:0]   out_data_o,
  output wire [$clog2(DEPTH):0] count_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // DEPTH: pointers wrap at DEPTH, one bit wider to tell full from empty.
  generate if (!(DEPTH >= 2 && (DEPTH & (DEPTH - 1)) == 0)) begin : g_bad_depth
    sgpu_precondition_failed_DEPTH_power_of_two_at_least_2 u_fail ();
  end endgenerate

  localparam PW = $clog2(DEPTH);

  reg [WIDTH-1:0] mem_q [0:DEPTH-1];
  reg [PW:0]      wptr_q, rptr_q;

  wire [PW:0] count = wptr_q - rptr_q;
  wire full  = count[PW];
  wire empty = (count == {(PW+1){1'b0}});
  wire push  = in_valid_i & ~full;
  wire pop   = out_ready_i & ~empty;

  assign in_ready_o  = ~full;
  assign out_valid_o = ~empty;
  assign out_data_o  = mem_q[rptr_q[PW-1:0]];
  assign count_o     = count;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q <= {(PW+1){1'b0}};
      rptr_q <= {(PW+1){1'b0}};
    end else if (clr_i) begin
      wptr_q <= {(PW+1){1'b0}};
      rptr_q <= {(PW+1){1'b0}};
    end else begin
      if (push) wptr_q <= wptr_q + 1'b1;
      if (pop)  rptr_q <= rptr_q + 1'b1;
    end
  end

  // Storage has no reset so it can map to plain DFFs/RAM.
  always @(posedge clk_i) begin
    if (push) mem_q[wptr_q[PW-1:0]] <= in_data_i;
  end

`ifdef FORMAL
  // Formal model (tests/formal/fifo.sby).  One word, picked at a free
  // moment as it is pushed, is tracked with the number of words ahead of
  // it; it must leave exactly when they have gone and with its data, which
  // proves order and integrity for every word.  Count model: the count moves
  // by push - pop and never exceeds DEPTH (no overflow); pop only when not
  // empty (no underflow).
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;

`ifdef VERILATOR
  // In simulation (the assertion build, sim/sim.mk) the tracked word is
  // the next one pushed once the last one has left.
  wire f_pick = 1'b1;
`else
  (* anyseq *) wire f_pick;
`endif
  reg             f_in_q = 1'b0;       // the tracked word is inside
  reg [PW:0]      f_ahead_q;
  reg [WIDTH-1:0] f_word_q;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [PW:0]     f_pos = rptr_q + f_ahead_q;
  /* verilator lint_on UNUSEDSIGNAL */

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_in_q <= 1'b0;
    else if (clr_i) f_in_q <= 1'b0;
    else if (f_in_q) begin
      if (pop && f_ahead_q == {(PW+1){1'b0}}) f_in_q <= 1'b0;
      else if (pop) f_ahead_q <= f_ahead_q - 1'b1;
    end else if (push && f_pick) begin
      f_in_q    <= 1'b1;
      f_word_q  <= in_data_i;
      f_ahead_q <= count - {{PW{1'b0}}, pop};
    end
  end

  always @(*) begin
    assert(count <= DEPTH);
    assert(full == (count == DEPTH));
    if (f_in_q) begin
      assert(f_ahead_q < count);
      assert(mem_q[f_pos[PW-1:0]] == f_word_q);
      if (f_ahead_q == {(PW+1){1'b0}}) assert(out_valid_o && out_data_o == f_word_q);
    end
  end
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni) && !$past(clr_i))
      assert(count == $past(count) + {{PW{1'b0}}, $past(push)} - {{PW{1'b0}}, $past(pop)});
    if (f_past_valid && rst_ni && $past(rst_ni) && $past(clr_i))
      assert(count == {(PW+1){1'b0}});
    cover(f_in_q && count == DEPTH && f_ahead_q == DEPTH - 1);
  end
`endif
endmodule
