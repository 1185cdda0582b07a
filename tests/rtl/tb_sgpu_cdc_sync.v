// tb_sgpu_cdc_sync — a Gray-coded counter crosses a two-flop synchroniser.
//
// The source (12 or 25.125 MHz) steps a 4-bit Gray counter at random times;
// the destination (the other clock) must see only whole counter values, in
// order, each step by one (never a skipped or torn code when the source
// steps slower than the destination), and after the source stops it must
// show the final value within STAGES + 1 destination cycles; the output
// holds RESET_VAL during reset.
`timescale 1ns/1ps
module tb_sgpu_cdc_sync;
  localparam integer NCFG = 2;
  integer seed;
  `include "tb_random.vh"
  integer done_cnt = 0;

  function [3:0] gray(input [3:0] b);
    gray = b ^ (b >> 1);
  endfunction

  genvar c;
  generate
    for (c = 0; c < NCFG; c = c + 1) begin : g_cfg
      localparam real SH = (c == 0) ? 41.667 : 19.900;
      localparam real DH = (c == 0) ? 19.900 : 41.667;
      reg sclk = 1'b0, dclk = 1'b0, drst_n = 1'b0;
      always #(SH) sclk = ~sclk;
      always #(DH) dclk = ~dclk;
      reg  [3:0] cnt = 4'd0;
      wire [3:0] q;
      sgpu_cdc_sync #(.WIDTH(4), .STAGES(2), .RESET_VAL(4'b1010)) dut (
        .clk_i(dclk), .rst_ni(drst_n), .d_i(gray(cnt)), .q_o(q));

      integer i, steps = 0, changes = 0;
      integer wr_n, wd_n;    // wait counters (one per block: Verilator shares a repeat's)
      reg [3:0] seen = 4'd0;
      reg       started = 1'b0;

      initial begin
        for (wd_n = 4; wd_n > 0; wd_n = wd_n - 1) @(posedge dclk);
        #0.1;
        if (q !== 4'b1010) $fatal(1, "cfg %0d: output %b in reset, want 1010", c, q);
        drst_n = 1'b1;
        for (wd_n = 4; wd_n > 0; wd_n = wd_n - 1) @(posedge dclk);
        // the source steps at most every 3 destination cycles (6 source
        // cycles when the source is the faster clock)
        for (i = 0; i < 600; i = i + 1) begin
          for (wr_n = (c == 0 ? 1 : 6) + (tb_random(0) & 3); wr_n > 0; wr_n = wr_n - 1) @(posedge sclk);
          #1;
          cnt = cnt + 4'd1;
          steps = steps + 1;
        end
        for (wd_n = 3; wd_n > 0; wd_n = wd_n - 1) @(posedge dclk);
        #0.1;
        if (!started || q !== gray(cnt)) $fatal(1, "cfg %0d: final %b, want %b", c, q, gray(cnt));
        if (changes != steps) $fatal(1, "cfg %0d: %0d changes seen, %0d steps", c, changes, steps);
        $display("cfg %0d: %0d steps", c, steps);
        done_cnt = done_cnt + 1;
      end

      always @(posedge dclk) begin
        #0.1;
        if (drst_n && !started) begin
          // leaving reset: RESET_VAL until the first value arrives
          if (q === gray(seen)) started = 1'b1;
          else if (q !== 4'b1010) $fatal(1, "cfg %0d: output %b leaving reset", c, q);
        end else if (drst_n && q !== gray(seen)) begin
          if (q !== gray(seen + 4'd1))
            $fatal(1, "cfg %0d: output %b after %b: not the next Gray code", c, q, gray(seen));
          seen = seen + 4'd1;
          changes = changes + 1;
        end
      end
    end
  endgenerate

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 3;
    $display("seed %0d", seed);
    wait (done_cnt == NCFG);
    $display("PASS tb_sgpu_cdc_sync");
    $finish;
  end
  initial begin
    #2000000;
    $fatal(1, "tb_sgpu_cdc_sync: timeout");
  end
endmodule
