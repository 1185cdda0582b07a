// tb_sgpu_cdc_rst — reset synchroniser: asserts at once, releases in step
// with the clock STAGES edges after rst_ni rises, at random phases of a
// 25.125 MHz clock against a 12 MHz reset source.
`timescale 1ns/1ps
module tb_sgpu_cdc_rst;
  integer seed;
  `include "tb_random.vh"
  reg clk = 1'b0, rst_n = 1'b0;
  always #19.900 clk = ~clk;
  wire rst_o;
  sgpu_cdc_rst #(.STAGES(2)) dut (.clk_i(clk), .rst_ni(rst_n), .rst_no(rst_o));

  integer i, edges;
  realtime t_rel;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 13;
    $display("seed %0d", seed);
    #1;
    if (rst_o !== 1'b0) $fatal(1, "reset output %b while rst_ni is low", rst_o);
    for (i = 0; i < 200; i = i + 1) begin
      // release at a random time (a 12 MHz source: multiples of 83.333 ns)
      #(83.333 * (1 + (tb_random(0) & 7)));
      rst_n = 1'b1;
      edges = 0;
      while (edges < 2) begin
        @(posedge clk);
        #0.1;
        edges = edges + 1;
        if (edges < 2 && rst_o !== 1'b0) $fatal(1, "released after %0d edges", edges);
      end
      if (rst_o !== 1'b1) $fatal(1, "not released after 2 edges");
      t_rel = $realtime;
      // assert at a random time: the output follows at once
      #(83.333 * (1 + (tb_random(0) & 7)) + 3.0);
      if (rst_o !== 1'b1) $fatal(1, "dropped reset by itself");
      rst_n = 1'b0;
      #0.1;
      if (rst_o !== 1'b0) $fatal(1, "reset did not assert asynchronously");
    end
    $display("PASS tb_sgpu_cdc_rst");
    $finish;
  end
endmodule
