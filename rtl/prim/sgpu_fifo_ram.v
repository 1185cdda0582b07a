// Synchronous FIFO (first-word fall-through) on a block RAM with a
// registered read, so yosys maps the storage to SB_RAM40_4K / DP16KD.
// Same ports as sgpu_fifo, one pop per cycle.  The RAM is read every cycle
// at the next head (rptr after this cycle's pop); a word written in the same
// cycle to that address is not seen by the read.  BYPASS = 1 forwards it
// from a bypass register (a word pushed in cycle t is at the output in cycle
// t+1, as in sgpu_fifo); BYPASS = 0 saves that register and shows such a
// word one cycle later (t+2), when the RAM read has caught up.  Back-to-back
// streaming stays at one word per cycle either way.
// DEPTH must be a power of two >= 2.  clr_i empties it at once (flush).
`include "sgpu_hw.vh"
module sgpu_fifo_ram #(
  parameter WIDTH  = 32,
  parameter DEPTH  = 4,
  parameter BYPASS = 1
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

  // The ECP5 build defines SGPU_FIFO_LUTRAM: there a block RAM's
  // unregistered read costs 5.6 ns of the 29 ns cycle and a FIFO of a few
  // words fills a 16 Kbit DP16KD to a sixty-fourth, while LUT RAM with the
  // read register in flops starts the consumer's paths 5 ns earlier.  The
  // iCE40 has no LUT RAM, and there the block RAM saves logic cells.
`ifdef SGPU_FIFO_LUTRAM
  (* ram_style = "distributed", no_rw_check *)
`else
  (* ram_style = "block", no_rw_check *)
`endif
  reg [WIDTH-1:0] mem_q [0:DEPTH-1];
  reg [WIDTH-1:0] rdata_q, byp_q;
  reg             use_byp_q;     // BYPASS = 1: byp_q holds the head; else: head not read yet
  reg [PW:0]      wptr_q, rptr_q;

  wire [PW:0] count = wptr_q - rptr_q;
  wire full  = count[PW];
  wire empty = (count == {(PW+1){1'b0}});
  wire push  = in_valid_i & ~full;
  wire pop   = out_ready_i & out_valid_o;
  wire [PW:0] rptr_d = rptr_q + {{PW{1'b0}}, pop};
  // Not full, so equal indices mean the word written now is the next head.
  wire hit = push & (wptr_q[PW-1:0] == rptr_d[PW-1:0]);

  assign in_ready_o  = ~full;
  assign out_valid_o = ~empty & ((BYPASS != 0) | ~use_byp_q);
  assign out_data_o  = ((BYPASS != 0) && use_byp_q) ? byp_q : rdata_q;
  assign count_o     = count;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q    <= {(PW+1){1'b0}};
      rptr_q    <= {(PW+1){1'b0}};
      use_byp_q <= 1'b0;
    end else if (clr_i) begin
      wptr_q    <= {(PW+1){1'b0}};
      rptr_q    <= {(PW+1){1'b0}};
      use_byp_q <= 1'b0;
    end else begin
      if (push) wptr_q <= wptr_q + 1'b1;
      rptr_q    <= rptr_d;
      use_byp_q <= hit;
    end
  end

  // Storage, read register and bypass data have no reset (block RAM).  What
  // the read returns when it meets a write to the same address does not
  // matter (the bypass covers it): no_rw_check tells yosys so, and it adds
  // no collision logic of its own.
  always @(posedge clk_i) begin
    if (push) mem_q[wptr_q[PW-1:0]] <= in_data_i;
  end
  always @(posedge clk_i) begin
    rdata_q <= mem_q[rptr_d[PW-1:0]];
  end
  always @(posedge clk_i) begin
    if (hit && BYPASS != 0) byp_q <= in_data_i;
  end

`ifdef FORMAL
  // Formal model (tests/formal/fifo.sby), as in sgpu_fifo: a count model
  // (no overflow, no underflow) and one word, picked at a free moment as it
  // is pushed, tracked with the number of words ahead of it; it must be the
  // output exactly when they have gone (order and data).  BYPASS = 0 may
  // hide a non-empty head for one cycle only.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;

`ifdef VERILATOR
  // In simulation (the assertion build, sim/sim.mk) the tracked word is
  // the next one pushed once the last one has left.
  wire f_pick = 1'b1;
`else
  (* anyseq *) wire f_pick;
`endif
  reg             f_in_q = 1'b0;
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
      if (f_ahead_q == {(PW+1){1'b0}} && out_valid_o) assert(out_data_o == f_word_q);
    end
    if (BYPASS != 0) assert(out_valid_o == !empty);
  end
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni) && !$past(clr_i)) begin
      assert(count == $past(count) + {{PW{1'b0}}, $past(push)} - {{PW{1'b0}}, $past(pop)});
      if ($past(!empty && !out_valid_o)) assert(out_valid_o);
    end
    if (f_past_valid && rst_ni && $past(rst_ni) && $past(clr_i))
      assert(count == {(PW+1){1'b0}});
    cover(f_in_q && count == DEPTH && f_ahead_q == DEPTH - 1);
  end
`endif
endmodule
