// sgpu_fifo: random push/pop against a queue model, full/empty, clear.
`timescale 1ns/1ps
module tb_sgpu_fifo;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  reg         clr = 0, in_valid = 0, out_ready = 0;
  reg  [15:0] in_data = 0;
  wire        in_ready, out_valid;
  wire [15:0] out_data;
  wire [3:0]  count;
  sgpu_fifo #(.WIDTH(16), .DEPTH(8)) dut (
    .clk_i(clk), .rst_ni(rst_n), .clr_i(clr), .in_valid_i(in_valid), .in_ready_o(in_ready),
    .in_data_i(in_data), .out_valid_o(out_valid), .out_ready_i(out_ready), .out_data_o(out_data),
    .count_o(count));
  reg [15:0] q [0:1023];
  integer head = 0, tail = 0, i, seed, pushes = 0, pops = 0, fulls = 0;
  `include "tb_random.vh"
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 7;
    $display("seed %0d", seed);
    repeat (2) @(negedge clk); rst_n = 1;
    for (i = 0; i < 20000; i = i + 1) begin
      @(negedge clk);
      in_valid = (tb_random(0) & 3) != 0;
      out_ready = (i < 10000) ? ((tb_random(0) & 3) == 0) : ((tb_random(0) & 3) != 0);
      in_data = tb_random(0);
      clr = ((tb_random(0) & 1023) == 0);
      #1;
      if (count !== tail - head) $fatal(1, "count %0d, model %0d", count, tail - head);
      if (in_ready !== (tail - head < 8)) $fatal(1, "in_ready wrong");
      if (out_valid !== (tail != head)) $fatal(1, "out_valid wrong");
      if (out_valid && out_data !== q[head % 1024]) $fatal(1, "data %h, want %h", out_data, q[head % 1024]);
      @(posedge clk);
      if (clr) head = tail;
      else begin
        if (in_valid && in_ready) begin q[tail % 1024] = in_data; tail = tail + 1; pushes = pushes + 1; end
        if (out_ready && out_valid) begin head = head + 1; pops = pops + 1; end
        if (!in_ready) fulls = fulls + 1;
      end
    end
    if (fulls == 0 || pops < 1000) $fatal(1, "test did not reach full / enough traffic");
    $display("PASS tb_sgpu_fifo: %0d pushes, %0d pops, %0d full cycles", pushes, pops, fulls);
    $finish;
  end
endmodule
