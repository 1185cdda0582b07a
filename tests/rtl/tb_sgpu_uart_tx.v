// tb_sgpu_uart_tx: the 8N1 transmitter, checked bit by bit.
// Random bytes offered with random gaps; the line must show a start bit,
// eight data bits LSB first and a stop bit, each exactly CLKS_PER_BIT
// cycles, idle high; ready_o is low from acceptance to the end of the stop
// bit, and every accepted byte is sent exactly once, in order.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_uart_tx;

  localparam integer CPB = 7;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  reg        valid = 1'b0;
  reg  [7:0] data = 8'h00;
  wire       ready, tx, busy;

  sgpu_uart_tx #(.CLKS_PER_BIT(CPB)) dut (
    .clk_i(clk), .rst_ni(rst_n), .valid_i(valid), .ready_o(ready),
    .data_i(data), .tx_o(tx), .busy_o(busy));

  integer seed = 32'h0A47_0002;
  `include "tb_random.vh"
  reg [7:0] expq [0:1023];
  integer   exp_wr = 0, exp_rd = 0;

  // Checker: the line level of every cycle of a character is predicted.
  reg [9:0] ch;
  integer   pos;          // cycle within the character, -1 idle
  initial pos = -1;
  always @(posedge clk) begin
    if (rst_n) begin
      if (busy === ready) $fatal(1, "busy_o must be !ready_o");
      if (pos < 0) begin
        if (tx !== 1'b1 && tx !== 1'b0) $fatal(1, "tx is X");
        if (tx == 1'b0) begin
          if (exp_rd == exp_wr) $fatal(1, "start bit with no byte accepted");
          ch = {1'b1, expq[exp_rd % 1024], 1'b0};
          exp_rd = exp_rd + 1;
          pos = 1;
        end
      end else begin
        if (pos < 10 * CPB) begin
          if (tx !== ch[pos / CPB]) $fatal(1, "bit %0d of byte %0d wrong at cycle %0d", pos / CPB, exp_rd - 1, pos);
          if (ready) $fatal(1, "ready during a character (cycle %0d)", pos);
          pos = pos + 1;
        end
        if (pos == 10 * CPB) pos = -1;
      end
    end
  end

  integer i, gap;
  initial begin
    if ($value$plusargs("seed=%d", seed)) $display("seed %0d", seed);
    repeat (3) @(posedge clk);
    rst_n <= 1'b1;
    repeat (5) @(posedge clk);
    if (tx !== 1'b1 || !ready) $fatal(1, "not idle after reset");
    for (i = 0; i < 300; i = i + 1) begin
      gap = (tb_random(0) % 2 == 0) ? 0 : $unsigned(tb_random(0)) % (CPB * 15);
      repeat (gap) @(posedge clk);
      // drive between edges: the byte is taken at the first rising edge
      // that sees valid and ready
      @(negedge clk);
      valid = 1'b1;
      data  = tb_random(0);
      while (!ready) @(negedge clk);
      expq[exp_wr % 1024] = data;
      exp_wr = exp_wr + 1;
      @(negedge clk);
      valid = 1'b0;
      data  = 8'hXX;
    end
    repeat (CPB * 11) @(posedge clk);
    if (exp_rd != exp_wr || pos != -1) $fatal(1, "sent %0d of %0d bytes", exp_rd, exp_wr);
    $display("tb_sgpu_uart_tx: PASS (%0d bytes)", exp_rd);
    $finish;
  end

  initial begin
    #20000000;
    $fatal(1, "tb_sgpu_uart_tx: timeout");
  end

endmodule
