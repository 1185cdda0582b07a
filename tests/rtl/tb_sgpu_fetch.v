// sgpu_fetch: streaming rate on a zero-wait memory, and random restarts /
// flushes with reads in flight under random latency and back-pressure: the
// consumer must see exactly the words of the current stream, in order.
// BYPASS = 0, as sgpu_cp uses it (tb_sgpu_fifo_ram covers both FIFO forms).
`timescale 1ns/1ps
module tb_sgpu_fetch;
  localparam AW = 16;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;
  reg           start = 0, flush = 0, en = 1, out_ready = 0;
  reg  [AW-1:0] start_off = 0, base = 0, mask = {AW{1'b1}}, endp = 0;
  wire          out_valid, req_valid, word;
  wire [31:0]   out_data, req_addr;
  reg           req_ready = 1;
  wire          rsp_valid;
  wire [31:0]   rsp_rdata;
  sgpu_fetch #(.AW(AW), .DEPTH(4), .BYPASS(0)) dut (
    .clk_i(clk), .rst_ni(rst_n), .start_i(start), .start_off_i(start_off), .flush_i(flush), .en_i(en),
    .base_i(base), .mask_i(mask), .end_i(endp), .out_valid_o(out_valid), .out_ready_i(out_ready),
    .out_data_o(out_data), .mem_req_valid_o(req_valid), .mem_req_ready_i(req_ready),
    .mem_req_addr_o(req_addr), .mem_rsp_valid_i(rsp_valid), .mem_rsp_rdata_i(rsp_rdata), .word_o(word));

  // memory: word at address a reads as f(a); fixed latency pipeline
  function [31:0] f(input [31:0] a); f = {a[15:0] ^ 16'hA5A5, a[15:0]}; endfunction
  integer lat = 1, bp = 0, seed, i;
  `include "tb_random.vh"
  reg pv [0:7]; reg [31:0] pd [0:7];
  integer inflight = 0, maxin = 0;
  initial for (i = 0; i < 8; i = i + 1) pv[i] = 0;
  always @(posedge clk) begin
    for (i = 7; i > 0; i = i - 1) begin pv[i] <= pv[i-1]; pd[i] <= pd[i-1]; end
    pv[0] <= req_valid && req_ready; pd[0] <= f(req_addr);
    if (req_valid && req_ready && req_addr[1:0] != 0) $fatal(1, "misaligned read");
    inflight = inflight + ((req_valid && req_ready) ? 1 : 0) - (rsp_valid ? 1 : 0);
    if (inflight > maxin) maxin = inflight;
  end
  assign rsp_valid = pv[lat-1];
  assign rsp_rdata = pd[lat-1];
  always @(negedge clk) req_ready <= (bp == 0) || (($unsigned(tb_random(0)) % 100) >= bp);

  // consumer: expects words at base|(exp_off & mask) in order
  reg [AW-1:0] exp_off = 0;
  integer got = 0, rdy_pct = 100;
  always @(negedge clk) out_ready <= (($unsigned(tb_random(0)) % 100) < rdy_pct);
  always @(posedge clk) if (rst_n && out_valid && out_ready && !start && !flush) begin
    if (out_data !== f({16'd0, base | exp_off})) begin
      $display("cycle %0d: got %h want %h (off %h)", cyc, out_data, f({16'd0, base | exp_off}), exp_off);
      $fatal(1, "wrong word");
    end
    if (exp_off == endp) $fatal(1, "word past the end");
    exp_off = (exp_off + 4) & mask;
    got = got + 1;
  end

  task restart(input [AW-1:0] off);
    begin
      @(negedge clk); start = 1; start_off = off;
      @(posedge clk); exp_off = off;
      @(negedge clk); start = 0;
    end
  endtask

  integer t0, n, k, phase, words;
  real rate;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 11;
    $display("seed %0d", seed);
    repeat (2) @(negedge clk); rst_n = 1;
    // 1. rate: 1024 words, zero-wait memory, consumer always ready
    rdy_pct = 100; lat = 1; bp = 0;
    endp = 16'h1000 + 4 * 1024; got = 0;
    restart(16'h1000); t0 = cyc;
    while (got < 1024) @(posedge clk);
    rate = 1024.0 / (cyc - t0);
    $display("FIGURE fetch_words_per_cycle %0.3f", rate);
    if (rate < 0.95) $fatal(1, "fetch rate below 0.95 words/cycle");
    repeat (10) @(posedge clk);
    if (out_valid || req_valid) $fatal(1, "fetched past the end");
    // 2. random restarts and flushes with reads in flight
    for (phase = 0; phase < 3; phase = phase + 1) begin
      // the memory model's latency only changes with no read in flight
      en = 0; repeat (20) @(negedge clk); en = 1;
      lat = (phase == 0) ? 2 : (phase == 1) ? 5 : 8;
      bp = (phase == 0) ? 0 : (phase == 1) ? 30 : 60;
      rdy_pct = (phase == 2) ? 40 : 80;
      for (k = 0; k < 300; k = k + 1) begin
        // base/mask/end change together with start (as the CP does)
        @(negedge clk);
        endp = (tb_random(0) & 16'hFFFC);
        if (k % 3 == 0) begin mask = 16'h00FF; base = 16'h4000; endp = endp & mask; end
        else begin mask = 16'hFFFF; base = 0; end
        start = 1; start_off = tb_random(0) & mask & 16'hFFFC;
        @(posedge clk); exp_off = start_off;
        @(negedge clk); start = 0;
        n = $unsigned(tb_random(0)) % 40;
        repeat (n) @(negedge clk);
        if ((k % 5) == 0) begin
          @(negedge clk); flush = 1; @(negedge clk); flush = 0;
          repeat (12) @(negedge clk);
          if (out_valid) $fatal(1, "data after flush");
        end
      end
      $display("phase %0d ok (latency %0d, back-pressure %0d%%)", phase, lat, bp);
    end
    // 3. ring mode: end moves (doorbell) while streaming, wraps at the mask
    en = 0; repeat (20) @(negedge clk); en = 1;
    lat = 3; bp = 20; rdy_pct = 70; mask = 16'h003F; base = 16'h2000; endp = 0;
    restart(0); got = 0; words = 0;
    for (k = 0; k < 200; k = k + 1) begin
      n = 1 + ($unsigned(tb_random(0)) % 10);
      while (((endp - exp_off) & mask) != 0) @(negedge clk);
      endp = (endp + 4 * n) & mask;
      words = words + n;
    end
    while (got < words) @(negedge clk);
    if (maxin < 3) $fatal(1, "never had several reads in flight");
    $display("FIGURE fetch_max_reads_in_flight %0d", maxin);
    $display("PASS tb_sgpu_fetch");
    $finish;
  end
  // in 1 ms steps: Verilator 5.006 wraps a single delay at 2^32 ps
  initial begin repeat (50) #1000000; $fatal(1, "timeout"); end
endmodule
