// tb_sgpu_link_rx_fifo: the host bridge's receive FIFO, driven directly.
// A FIFO of 16 bytes gets bytes in random bursts (up to one a cycle, so it
// fills and drops) while a consumer pulls with a random pattern; the bench
// keeps its own queue of the bytes it expects: a byte is queued when it
// arrives and the FIFO holds fewer than 16 (else it must be dropped), and
// leaves the queue when it is strobed out.  Checks: every strobed byte is
// the oldest queued one (order, no loss, no duplicate), a strobe only in
// the cycle after a pull and never two cycles running, a byte strobed
// whenever the consumer pulls and one waits (none withheld), and the
// number of drops.  RX_FIFO_BYTES 0: the bytes pass straight through.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_link_rx_fifo;

  localparam integer DEPTH = 16;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer seed = 32'h0F1F_0001;
  `include "tb_random.vh"

  reg        in_valid = 1'b0;
  reg  [7:0] in_data = 8'h00;
  reg        pull = 1'b0;
  wire       out_valid, out_valid0;
  wire [7:0] out_data, out_data0;

  sgpu_link_rx_fifo #(.RX_FIFO_BYTES(DEPTH)) dut (
    .clk_i(clk), .rst_ni(rst_n), .in_valid_i(in_valid), .in_data_i(in_data),
    .pull_i(pull), .out_valid_o(out_valid), .out_data_o(out_data));

  sgpu_link_rx_fifo #(.RX_FIFO_BYTES(0)) dut0 (
    .clk_i(clk), .rst_ni(rst_n), .in_valid_i(in_valid), .in_data_i(in_data),
    .pull_i(pull), .out_valid_o(out_valid0), .out_data_o(out_data0));

  // the bench's queue: bytes the FIFO holds, oldest at q_rd
  reg [7:0] q [0:4095];
  integer   q_rd = 0, q_wr = 0;
  integer   held = 0;             // bytes in the FIFO (not yet read out of it)
  integer   drops = 0, exp_drops = 0, outs = 0, ins = 0;
  reg       prev_pull = 1'b0, prev_out = 1'b0, prev_can = 1'b0;

  always @(posedge clk) begin
    if (rst_n) begin
      // the pass-through instance
      if (out_valid0 !== in_valid || (in_valid && out_data0 !== in_data))
        $fatal(1, "RX_FIFO_BYTES 0: not a pass-through");
      // a strobe: the byte read out in the cycle before
      if (out_valid) begin
        if (!prev_pull) $fatal(1, "byte strobed without a pull in the cycle before");
        if (prev_out) $fatal(1, "bytes strobed in two cycles running");
        if (q_rd == q_wr) $fatal(1, "byte %h strobed from an empty FIFO", out_data);
        if (out_data !== q[q_rd % 4096]) $fatal(1, "byte %0d: %h, expected %h", q_rd, out_data, q[q_rd % 4096]);
        q_rd = q_rd + 1;
        outs = outs + 1;
      end
      // a pull with a byte waiting (and no strobe then) must give one now
      if (prev_can && !out_valid) $fatal(1, "a byte waited, the consumer pulled, none came");
      // the next cycle's expectation: the FIFO reads a byte out now when
      // the consumer pulls, one waits and none is strobed now
      prev_can  = pull && (held > 0) && !out_valid;
      if (prev_can) held = held - 1;
      prev_pull = pull;
      prev_out  = out_valid;
      // a byte in: queued while the FIFO has room (counted before the read
      // of this cycle), else dropped
      if (in_valid) begin
        ins = ins + 1;
        if (held + (prev_can ? 1 : 0) < DEPTH) begin
          q[q_wr % 4096] = in_data;
          q_wr = q_wr + 1;
          held = held + 1;
        end else begin
          exp_drops = exp_drops + 1;
        end
      end
    end
  end

  integer n, i, burst, mode;
  initial begin
    repeat (3) @(posedge clk);
    rst_n <= 1'b1;
    @(posedge clk);
    for (n = 0; n < 600; n = n + 1) begin
      // a burst: every cycle, every few cycles, or nothing; the consumer
      // pulls always, never, or at random
      burst = $unsigned(tb_random(0)) % 40;
      mode  = $unsigned(tb_random(0)) % 4;
      for (i = 0; i < burst; i = i + 1) begin
        in_valid <= (mode == 0) ? 1'b1 : ((tb_random(0) & 3) == 0);
        in_data  <= tb_random(0);
        pull     <= (mode == 1) ? 1'b0 : (mode == 2) ? 1'b1 : (tb_random(0) & 1);
        @(posedge clk);
      end
      in_valid <= 1'b0;
    end
    // drain
    pull <= 1'b1;
    repeat (3 * DEPTH) @(posedge clk);
    pull <= 1'b0;
    @(posedge clk);
    if (q_rd != q_wr) $fatal(1, "%0d bytes left in the FIFO after the drain", q_wr - q_rd);
    drops = ins - outs;
    if (drops != exp_drops) $fatal(1, "%0d bytes dropped, expected %0d", drops, exp_drops);
    if (exp_drops == 0 || outs < 1000) $fatal(1, "stimulus too weak: %0d out, %0d dropped", outs, exp_drops);
    $display("tb_sgpu_link_rx_fifo: PASS (%0d bytes in, %0d out, %0d dropped when full)", ins, outs, drops);
    $finish;
  end
endmodule
