// tb_sgpu_cdc_bus — a multi-bit value crosses by handshake between
// unrelated clocks (12 -> 25.125 MHz, 25.125 -> 12 MHz, 25.125 -> 24.9 MHz).
//
// The source value is {n, ~n} for a counter n that steps up at random times,
// sometimes every cycle (so values get skipped), sometimes held long.  The
// destination must only ever show whole values ({n, ~n}: no torn word),
// never go backwards, never show a value before the source had it, strobe
// dst_update_o when it refreshes, and, once the source holds still, show the
// current value within 8 destination + 8 source cycles
// (two handshake round trips).  RESET_VAL shows
// during reset.
`timescale 1ns/1ps
module tb_sgpu_cdc_bus;
  localparam integer NCFG = 3;
  integer seed;
  `include "tb_random.vh"
  integer done_cnt = 0;

  genvar c;
  generate
    for (c = 0; c < NCFG; c = c + 1) begin : g_cfg
      localparam real SH = (c == 0) ? 41.667 : (c == 1) ? 19.900 : 19.900;
      localparam real DH = (c == 0) ? 19.900 : (c == 1) ? 41.667 : 20.080;
      reg sclk = 1'b0, dclk = 1'b0, srst_n = 1'b0, drst_n = 1'b0;
      always #(SH) sclk = ~sclk;
      always #(DH) dclk = ~dclk;
      reg  [11:0] n = 12'd0;
      wire [23:0] q;
      wire        upd;
      sgpu_cdc_bus #(.WIDTH(24), .RESET_VAL(24'h000FFF)) dut (
        .src_clk_i(sclk), .src_rst_ni(srst_n), .src_data_i({n, ~n}),
        .dst_clk_i(dclk), .dst_rst_ni(drst_n), .dst_data_o(q), .dst_update_o(upd));

      integer i, k, updates = 0, moves = 0;
      integer wr_n, wd_n;    // wait counters (one per block: Verilator shares a repeat's)
      reg [23:0] prev = 24'h000FFF;

      initial begin
        for (wd_n = 3; wd_n > 0; wd_n = wd_n - 1) @(negedge dclk);
        if (q !== 24'h000FFF) $fatal(1, "cfg %0d: %h in reset", c, q);
        srst_n = 1'b1;
        drst_n = 1'b1;
        for (i = 0; i < 300; i = i + 1) begin
          if (i % 3 == 0) begin
            // burst: a new value every source cycle
            for (k = 0; k < 8; k = k + 1) begin
              @(posedge sclk); #1 n = n + 12'd1;
            end
          end else begin
            @(posedge sclk); #1 n = n + 12'd1;
          end
          if (i % 5 == 0) begin
            // hold still: the destination must catch up
            for (wr_n = 8; wr_n > 0; wr_n = wr_n - 1) @(posedge sclk);
            for (wd_n = 8; wd_n > 0; wd_n = wd_n - 1) @(posedge dclk);
            #0.1;
            if (q !== {n, ~n}) $fatal(1, "cfg %0d: shows %h, source %h for 8 + 8 cycles", c, q, {n, ~n});
          end else begin
            for (wr_n = tb_random(0) & 3; wr_n > 0; wr_n = wr_n - 1) @(posedge sclk);
          end
        end
        if (updates < 100 || moves < 60) $fatal(1, "cfg %0d: %0d updates, %0d moves", c, updates, moves);
        $display("cfg %0d: %0d updates, %0d changes", c, updates, moves);
        done_cnt = done_cnt + 1;
      end

      always @(posedge dclk) begin
        #0.1;
        if (q[23:12] !== ~q[11:0]) $fatal(1, "cfg %0d: torn value %h", c, q);
        if (q !== prev) begin
          if (q[23:12] < prev[23:12] && prev !== 24'h000FFF)
            $fatal(1, "cfg %0d: went back from %h to %h", c, prev, q);
          if (q[23:12] > n) $fatal(1, "cfg %0d: %h before the source had it", c, q);
          if (upd !== 1'b1) $fatal(1, "cfg %0d: value changed without dst_update_o", c);
          moves = moves + 1;
        end
        if (upd) updates = updates + 1;
        prev = q;
      end
    end
  endgenerate

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 9;
    $display("seed %0d", seed);
    wait (done_cnt == NCFG);
    $display("PASS tb_sgpu_cdc_bus");
    $finish;
  end
  initial begin
    #2000000;
    $fatal(1, "tb_sgpu_cdc_bus: timeout");
  end
endmodule
