// sgpu_fifo_ram: random push/pop against a queue model, full/empty, clear,
// with and without the bypass register.  With BYPASS = 1 the timing is that
// of sgpu_fifo; with BYPASS = 0 the only allowed difference is that a head
// word pushed in the previous cycle is not shown yet.  Both must stream one
// word per cycle.
`timescale 1ns/1ps
module fifo_ram_check #(parameter BYPASS = 1) (input wire clk, input wire rst_n, output reg done);
  reg         clr = 0, in_valid = 0, out_ready = 0;
  reg  [15:0] in_data = 0;
  wire        in_ready, out_valid;
  wire [15:0] out_data;
  wire [3:0]  count;
  sgpu_fifo_ram #(.WIDTH(16), .DEPTH(8), .BYPASS(BYPASS)) dut (
    .clk_i(clk), .rst_ni(rst_n), .clr_i(clr), .in_valid_i(in_valid), .in_ready_o(in_ready),
    .in_data_i(in_data), .out_valid_o(out_valid), .out_ready_i(out_ready), .out_data_o(out_data),
    .count_o(count));
  reg [15:0] q [0:1023];
  integer head = 0, tail = 0, i, seed, pushes = 0, pops = 0, fulls = 0, stream = 0;
  `include "tb_random.vh"
  integer head_pushed_at = -10;   // cycle the current head word was pushed
  reg [31:0] pushed_at [0:1023];
  initial begin
    done = 0;
    seed = 7 + BYPASS;
    @(posedge rst_n);
    for (i = 0; i < 24000; i = i + 1) begin
      @(negedge clk);
      if (i < 20000) begin
        in_valid = (tb_random(0) & 3) != 0;
        out_ready = (i < 10000) ? ((tb_random(0) & 3) == 0) : ((tb_random(0) & 3) != 0);
        clr = ((tb_random(0) & 1023) == 0);
      end else begin
        // streaming: push and pop every cycle
        in_valid = 1; out_ready = 1; clr = (i == 20000);   // from empty
      end
      in_data = tb_random(0);
      #1;
      if (count !== tail - head) $fatal(1, "BYPASS %0d: count %0d, model %0d", BYPASS, count, tail - head);
      if (in_ready !== (tail - head < 8)) $fatal(1, "BYPASS %0d: in_ready wrong", BYPASS);
      if (BYPASS != 0 || tail == head || pushed_at[head % 1024] != i - 1) begin
        if (out_valid !== (tail != head)) $fatal(1, "BYPASS %0d: out_valid wrong at %0d", BYPASS, i);
      end else if (out_valid !== 1'b0) $fatal(1, "BYPASS %0d: word shown early", BYPASS);
      if (out_valid && out_data !== q[head % 1024])
        $fatal(1, "BYPASS %0d: data %h, want %h", BYPASS, out_data, q[head % 1024]);
      @(posedge clk);
      if (clr) head = tail;
      else begin
        if (out_ready && out_valid) begin
          head = head + 1; pops = pops + 1;
          if (i >= 20100) stream = stream + 1;
        end
        if (in_valid && in_ready) begin
          q[tail % 1024] = in_data; pushed_at[tail % 1024] = i; tail = tail + 1; pushes = pushes + 1;
        end
        if (!in_ready) fulls = fulls + 1;
      end
    end
    if (fulls == 0 || pops < 1000) $fatal(1, "test did not reach full / enough traffic");
    if (stream != 3900) $fatal(1, "BYPASS %0d: streaming %0d words in 3900 cycles", BYPASS, stream);
    $display("PASS BYPASS=%0d: %0d pushes, %0d pops, %0d full cycles", BYPASS, pushes, pops, fulls);
    done = 1;
  end
endmodule

module tb_sgpu_fifo_ram;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  wire done1, done0;
  fifo_ram_check #(.BYPASS(1)) c1 (.clk(clk), .rst_n(rst_n), .done(done1));
  fifo_ram_check #(.BYPASS(0)) c0 (.clk(clk), .rst_n(rst_n), .done(done0));
  initial begin
    repeat (2) @(negedge clk); rst_n = 1;
    wait (done1 && done0);
    $display("PASS tb_sgpu_fifo_ram");
    $finish;
  end
endmodule
