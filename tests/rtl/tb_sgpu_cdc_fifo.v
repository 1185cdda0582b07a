// tb_sgpu_cdc_fifo — the asynchronous FIFO between unrelated clocks.
//
// Three instances: 12 MHz -> 25.125 MHz, 25.125 MHz -> 12 MHz, and two
// nearly equal clocks (25.125 / 24.9 MHz, the phase drifts through every
// alignment).  The writer pushes 0, 1, 2, ... with random valid, the reader
// pops with random ready; each popped word must be the next number (order,
// no loss, no duplicate).  Phases: slow reader (the FIFO fills and w_ready
// falls), fast reader (it empties), even rates; then the reader stops: once
// quiet the FIFO must hold exactly its depth with w_ready low and r_valid
// high; then the writer stops and the reader drains all: r_valid low,
// w_ready high, pops = pushes.
`timescale 1ns/1ps
module tb_sgpu_cdc_fifo;
  localparam integer AW = 2;
  localparam integer DEPTH = 1 << AW;
  localparam integer NCFG = 3;
  integer seed;
  `include "tb_random.vh"
  integer done_cnt = 0;

  genvar c;
  generate
    for (c = 0; c < NCFG; c = c + 1) begin : g_cfg
      // half periods in ns
      localparam real WH = (c == 0) ? 41.667 : (c == 1) ? 19.900 : 19.900;
      localparam real RH = (c == 0) ? 19.900 : (c == 1) ? 41.667 : 20.080;
      reg wclk = 1'b0, rclk = 1'b0, wrst_n = 1'b0, rrst_n = 1'b0;
      always #(WH) wclk = ~wclk;
      always #(RH) rclk = ~rclk;
      reg         w_valid = 1'b0, r_ready = 1'b0;
      reg  [15:0] w_data = 16'd0;
      wire        w_ready, r_valid;
      wire [15:0] r_data;
      sgpu_cdc_fifo #(.WIDTH(16), .AW(AW)) dut (
        .w_clk_i(wclk), .w_rst_ni(wrst_n), .w_valid_i(w_valid), .w_ready_o(w_ready),
        .w_data_i(w_data),
        .r_clk_i(rclk), .r_rst_ni(rrst_n), .r_valid_o(r_valid), .r_ready_i(r_ready),
        .r_data_o(r_data));

      integer pushes = 0, pops = 0, fulls = 0, empties = 0, i;
      integer nw, nr;        // wait counters of the writer and the reader (see tb_sgpu_cdc_pulse)
      integer phase = 0;       // 0 fill, 1 drain, 2 even, 3 reader stopped, 4 writer stopped
      reg     stop_r = 1'b0;

      // writer (write clock)
      initial begin
        for (nw = 3; nw > 0; nw = nw - 1) @(negedge wclk);
        wrst_n = 1'b1;
        for (phase = 0; phase < 3; phase = phase + 1) begin
          for (i = 0; i < 1500; i = i + 1) begin
            @(negedge wclk);
            w_valid = (phase == 0) ? ((tb_random(0) & 7) != 0) :
                      (phase == 1) ? ((tb_random(0) & 7) == 0) : ((tb_random(0) & 1) != 0);
            w_data = pushes[15:0];
            @(posedge wclk);
            if (w_valid && w_ready) pushes = pushes + 1;
            if (!w_ready) fulls = fulls + 1;
          end
        end
        // phase 3: the reader stops; fill to the brim, then wait until quiet
        stop_r = 1'b1;
        for (i = 0; i < 40; i = i + 1) begin
          @(negedge wclk);
          w_valid = 1'b1;
          w_data = pushes[15:0];
          @(posedge wclk);
          if (w_valid && w_ready) pushes = pushes + 1;
        end
        @(negedge wclk);
        w_valid = 1'b0;
        for (nw = 10; nw > 0; nw = nw - 1) @(negedge wclk);
        if (w_ready !== 1'b0 || r_valid !== 1'b1 || pushes - pops !== DEPTH)
          $fatal(1, "cfg %0d: at rest with the reader stopped: w_ready %b r_valid %b, %0d stored (want %0d)",
                 c, w_ready, r_valid, pushes - pops, DEPTH);
        // phase 4: the reader drains everything
        phase = 4;
        stop_r = 1'b0;
        for (nw = 60; nw > 0; nw = nw - 1) @(negedge wclk);
        if (w_ready !== 1'b1 || r_valid !== 1'b0 || pops !== pushes)
          $fatal(1, "cfg %0d: after draining: w_ready %b r_valid %b, %0d pushes %0d pops",
                 c, w_ready, r_valid, pushes, pops);
        if (fulls < 50 || empties < 50 || pushes < 500)
          $fatal(1, "cfg %0d: too little coverage: %0d full, %0d empty cycles, %0d pushes",
                 c, fulls, empties, pushes);
        $display("cfg %0d: %0d words, %0d full cycles, %0d empty cycles", c, pushes, fulls, empties);
        done_cnt = done_cnt + 1;
      end

      // reader (read clock)
      initial begin
        for (nr = 3; nr > 0; nr = nr - 1) @(negedge rclk);
        rrst_n = 1'b1;
        forever begin
          @(negedge rclk);
          r_ready = stop_r ? 1'b0 :
                    (phase == 0) ? ((tb_random(0) & 7) == 0) :
                    (phase == 1) ? ((tb_random(0) & 7) != 0) :
                    (phase == 2) ? ((tb_random(0) & 1) != 0) : 1'b1;
          if (r_valid && r_data !== pops[15:0])
            $fatal(1, "cfg %0d: read %0d, want %0d", c, r_data, pops);
          if (r_valid && pops >= pushes)
            $fatal(1, "cfg %0d: r_valid with nothing written", c);
          @(posedge rclk);
          if (r_ready && r_valid) pops = pops + 1;
          if (r_ready && !r_valid) empties = empties + 1;
          // the writer never gets more than DEPTH ahead
          if (pushes - pops > DEPTH) $fatal(1, "cfg %0d: %0d words stored", c, pushes - pops);
        end
      end
    end
  endgenerate

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 11;
    $display("seed %0d", seed);
    wait (done_cnt == NCFG);
    $display("PASS tb_sgpu_cdc_fifo");
    $finish;
  end
  initial begin
    #2000000;
    $fatal(1, "tb_sgpu_cdc_fifo: timeout");
  end
endmodule
