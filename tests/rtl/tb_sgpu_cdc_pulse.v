// tb_sgpu_cdc_pulse — strobes cross between unrelated clocks one for one.
//
// Three clock pairs (12 -> 25.125 MHz, 25.125 -> 12 MHz, 25.125 -> 24.9
// MHz).  The source sends strobes spaced randomly from the documented
// minimum (3 destination cycles + 1 source cycle) to a few times that; every
// strobe must come out as exactly one one-cycle destination strobe, in time
// (before the next one is sent) and none may appear without a cause.
`timescale 1ns/1ps
module tb_sgpu_cdc_pulse;
  localparam integer NCFG = 3;
  integer seed;
  `include "tb_random.vh"
  integer done_cnt = 0;

  genvar c;
  generate
    for (c = 0; c < NCFG; c = c + 1) begin : g_cfg
      localparam real SH = (c == 0) ? 41.667 : (c == 1) ? 19.900 : 19.900;
      localparam real DH = (c == 0) ? 19.900 : (c == 1) ? 41.667 : 20.080;
      // minimum spacing in source cycles: 3 destination cycles + 1 source cycle
      localparam integer MIN_GAP = (c == 1) ? 8 : 4;
      reg sclk = 1'b0, dclk = 1'b0, srst_n = 1'b0, drst_n = 1'b0;
      always #(SH) sclk = ~sclk;
      always #(DH) dclk = ~dclk;
      reg  spulse = 1'b0;
      wire dpulse;
      sgpu_cdc_pulse dut (
        .src_clk_i(sclk), .src_rst_ni(srst_n), .src_pulse_i(spulse),
        .dst_clk_i(dclk), .dst_rst_ni(drst_n), .dst_pulse_o(dpulse));

      integer sent = 0, got = 0, i, gap;
      // Wait loops count in per-block variables: Verilator 5.006 keeps one
      // hidden counter per module for `repeat`, shared by the blocks' processes.
      integer wr_n, wd_n;
      reg     dprev = 1'b0;

      initial begin
        for (wr_n = 3; wr_n > 0; wr_n = wr_n - 1) @(negedge sclk);
        srst_n = 1'b1;
        for (wr_n = 5; wr_n > 0; wr_n = wr_n - 1) @(negedge sclk);
        for (i = 0; i < 400; i = i + 1) begin
          spulse = 1'b1;
          @(posedge sclk);
          sent = sent + 1;
          @(negedge sclk);
          spulse = 1'b0;
          gap = MIN_GAP - 1 + ((i % 4 == 0) ? (tb_random(0) & 15) : 0);
          for (wr_n = gap; wr_n > 0; wr_n = wr_n - 1) @(negedge sclk);
          if (got !== sent) $fatal(1, "cfg %0d: strobe %0d not delivered in time (%0d got)", c, sent, got);
        end
        for (wr_n = 20; wr_n > 0; wr_n = wr_n - 1) @(negedge sclk);
        if (got !== sent) $fatal(1, "cfg %0d: %0d sent, %0d received", c, sent, got);
        $display("cfg %0d: %0d strobes", c, got);
        done_cnt = done_cnt + 1;
      end

      initial begin
        for (wd_n = 2; wd_n > 0; wd_n = wd_n - 1) @(negedge dclk);
        drst_n = 1'b1;
        forever begin
          @(posedge dclk);
          #0.1;
          if (dpulse) begin
            if (dprev) $fatal(1, "cfg %0d: destination strobe longer than one cycle", c);
            got = got + 1;
            if (got > sent) $fatal(1, "cfg %0d: strobe without a source strobe", c);
          end
          dprev = dpulse;
        end
      end
    end
  endgenerate

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 5;
    $display("seed %0d", seed);
    wait (done_cnt == NCFG);
    $display("PASS tb_sgpu_cdc_pulse");
    $finish;
  end
  initial begin
    #2000000;
    $fatal(1, "tb_sgpu_cdc_pulse: timeout");
  end
endmodule
