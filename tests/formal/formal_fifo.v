// Harness for sgpu_fifo / sgpu_fifo_ram: free inputs, reset in the first
// cycle (later resets are free too).  The properties are in the modules'
// `ifdef FORMAL blocks.
module formal_fifo #(
  parameter integer RAM    = 0,
  parameter integer WIDTH  = 2,   // two values tell any two words apart
  parameter integer DEPTH  = 4,
  parameter integer BYPASS = 1
) (
  input wire             clk_i,
  input wire             rst_ni,
  input wire             clr_i,
  input wire             in_valid_i,
  input wire [WIDTH-1:0] in_data_i,
  input wire             out_ready_i
);
  reg f_init = 1'b1;
  always @(posedge clk_i) f_init <= 1'b0;
  always @(*) if (f_init) assume(!rst_ni);
  reg f_clr_q = 1'b0;               // a flush empties the FIFO in the next cycle
  always @(posedge clk_i) f_clr_q <= clr_i;

  wire                   in_ready, out_valid;
  wire [WIDTH-1:0]       out_data;
  wire [$clog2(DEPTH):0] count;
  generate if (RAM != 0) begin : g_ram
    sgpu_fifo_ram #(.WIDTH(WIDTH), .DEPTH(DEPTH), .BYPASS(BYPASS)) dut (
      .clk_i(clk_i), .rst_ni(rst_ni), .clr_i(clr_i),
      .in_valid_i(in_valid_i), .in_ready_o(in_ready), .in_data_i(in_data_i),
      .out_valid_o(out_valid), .out_ready_i(out_ready_i), .out_data_o(out_data),
      .count_o(count));
  end else begin : g_flop
    sgpu_fifo #(.WIDTH(WIDTH), .DEPTH(DEPTH)) dut (
      .clk_i(clk_i), .rst_ni(rst_ni), .clr_i(clr_i),
      .in_valid_i(in_valid_i), .in_ready_o(in_ready), .in_data_i(in_data_i),
      .out_valid_o(out_valid), .out_ready_i(out_ready_i), .out_data_o(out_data),
      .count_o(count));
  end endgenerate

  // an offered word waits while the FIFO is full: the output side (a
  // FIFO is a slave on its input) keeps the valid/ready rules of its output
  sgpu_vr_check #(.W(WIDTH)) u_out_vr (
    .clk_i(clk_i), .rst_ni(rst_ni), .valid_i(out_valid), .ready_i(out_ready_i),
    .payload_i(out_data), .excuse_i(f_clr_q));
  always @(posedge clk_i) cover(rst_ni && count == DEPTH && !in_ready);
endmodule
