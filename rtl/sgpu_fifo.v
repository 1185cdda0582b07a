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
endmodule
