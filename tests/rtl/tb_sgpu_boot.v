// tb_sgpu_boot: the boot ROM's feeder against a model of the bridge.
// The ROM (filled here, ROM_FILE "") holds frames of random lengths (1 to
// 252 bytes) and contents behind their length bytes, then the 0 that ends
// the boot.  Checked: the bytes reach the bridge in ROM order, each frame
// once, GAP cycles apart within a frame; after a frame's last byte nothing
// is sent until the bridge's answer starts (answers come after random
// delays); while booting, UART bytes (sent at random) are ignored, every
// answer byte is taken (tx_ready_o) and none reaches the UART transmitter;
// afterwards both directions pass straight through.
`timescale 1ns/1ps

module tb_sgpu_boot;

  localparam integer ROM_BYTES = 1024;
  localparam integer GAP = 16;
  localparam integer NFRAMES = 6;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  // driven by the bridge model while booting, by the pass-through check after
  reg        b_uart_valid = 1'b0, p_uart_valid = 1'b0;
  reg  [7:0] b_uart_data = 8'h00, p_uart_data = 8'h00;
  reg        b_tx_valid = 1'b0, p_tx_valid = 1'b0;
  reg        p_utx_ready = 1'b0;
  reg        phase2 = 1'b0;
  wire       uart_valid = phase2 ? p_uart_valid : b_uart_valid;
  wire [7:0] uart_data  = phase2 ? p_uart_data : b_uart_data;
  wire       tx_valid   = phase2 ? p_tx_valid : b_tx_valid;
  wire       utx_ready  = phase2 ? p_utx_ready : 1'b0;
  wire       rx_valid, tx_ready, utx_valid, booting;
  wire [7:0] rx_data;

  sgpu_boot #(.ROM_FILE(""), .ROM_BYTES(ROM_BYTES), .GAP(GAP)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .uart_valid_i(uart_valid), .uart_data_i(uart_data),
    .rx_valid_o(rx_valid), .rx_data_o(rx_data),
    .tx_valid_i(tx_valid), .tx_ready_o(tx_ready),
    .utx_valid_o(utx_valid), .utx_ready_i(utx_ready),
    .booting_o(booting));

  integer seed = 32'h0B00_7001;
  `include "tb_random.vh"
  // a random number in 0..n-1
  function integer rnd;
    input integer n;
    reg [31:0] r;
    begin
      r = tb_random(0);
      rnd = r % n;
    end
  endfunction

  // the expected stream: the frames' bytes without their length bytes
  reg [7:0] expb [0:ROM_BYTES-1];
  reg       lastb [0:ROM_BYTES-1];   // the last byte of a frame
  integer   nexp = 0;

  integer f, k, len, pos;
  initial begin
    if ($value$plusargs("seed=%d", seed)) $display("seed %0d", seed);
    pos = 0;
    for (f = 0; f < NFRAMES; f = f + 1) begin
      case (f)
        0: len = 12;                      // a PING
        1: len = 252;                     // the longest frame the ROM allows
        2: len = 1;
        default: len = 1 + rnd(120);
      endcase
      dut.rom[pos] = len[7:0];
      pos = pos + 1;
      for (k = 0; k < len; k = k + 1) begin
        expb[nexp] = (k == 0) ? 8'hA5 : rnd(256);
        lastb[nexp] = (k == len - 1);
        dut.rom[pos] = expb[nexp];
        pos = pos + 1;
        nexp = nexp + 1;
      end
    end
    for (k = pos; k < ROM_BYTES; k = k + 1) dut.rom[k] = 8'h00;   // the end, then nothing
  end

  // ------------------------------------------------------------ bridge model and checks
  integer got = 0;          // bytes received while booting
  integer since = 1000;     // cycles since the last byte
  reg     awaiting = 1'b0;  // a frame ended, its answer has not started
  integer ans_in = -1;      // cycles until the answer starts
  integer ans_left = 0;     // answer bytes still to send
  integer frames_done = 0;
  reg     was_booting = 1'b1;

  always @(posedge clk) begin
    if (rst_n) begin
      since = since + 1;
      if (booting) begin
        if (utx_valid) $fatal(1, "an answer byte reached the UART while booting");
        if (!tx_ready) $fatal(1, "tx_ready_o low while booting");
        if (rx_valid) begin
          if (awaiting) $fatal(1, "byte %0d sent before the answer to the previous frame started", got);
          if (got >= nexp) $fatal(1, "more bytes than the ROM's frames hold");
          if (rx_data !== expb[got]) $fatal(1, "byte %0d is %02x, expected %02x", got, rx_data, expb[got]);
          if (since < GAP) $fatal(1, "byte %0d only %0d cycles after the previous one", got, since);
          if (got > 0 && !lastb[got - 1] && since != GAP)
            $fatal(1, "byte %0d %0d cycles after the previous one inside a frame (GAP %0d)", got, since, GAP);
          if (lastb[got]) begin
            awaiting = 1'b1;
            ans_in = 1 + rnd(300);
          end
          got = got + 1;
          since = 0;
        end
      end else if (was_booting) begin
        was_booting = 1'b0;
        if (got != nexp) $fatal(1, "boot ended after %0d of %0d bytes", got, nexp);
        if (frames_done != NFRAMES) $fatal(1, "boot ended after %0d of %0d answers", frames_done, NFRAMES);
      end
      // the answer: a few bytes, each offered until taken
      if (ans_in > 0) begin
        ans_in = ans_in - 1;
        if (ans_in == 0) begin
          ans_in = -1;
          ans_left = 3 + rnd(6);
        end
      end
      if (tx_valid && tx_ready) begin
        if (awaiting) begin
          awaiting = 1'b0;
          frames_done = frames_done + 1;
        end
        ans_left = ans_left - 1;
      end
      b_tx_valid <= booting && ans_left > 0;
      // UART bytes at random while booting: to be ignored
      b_uart_valid <= booting && rnd(37) == 0;
      b_uart_data  <= rnd(256);
    end
  end

  integer i;
  initial begin
    repeat (3) @(posedge clk);
    rst_n <= 1'b1;
    i = 0;
    while (booting) begin
      @(posedge clk);
      i = i + 1;
      if (i > 200000) $fatal(1, "boot did not end");
    end
    $display("boot: %0d bytes, %0d frames, %0d cycles", got, frames_done, i);
    // pass-through
    repeat (5) @(posedge clk);
    phase2 = 1'b1;
    for (i = 0; i < 200; i = i + 1) begin
      @(negedge clk);
      p_uart_valid = rnd(2);
      p_uart_data  = rnd(256);
      p_tx_valid   = rnd(2);
      p_utx_ready  = rnd(2);
      #1;
      if (rx_valid !== uart_valid || (uart_valid && rx_data !== uart_data))
        $fatal(1, "UART bytes do not pass to the bridge after the boot");
      if (utx_valid !== tx_valid || tx_ready !== utx_ready)
        $fatal(1, "the bridge's answers do not pass to the UART after the boot");
      if (booting) $fatal(1, "booting again");
    end
    $display("tb_sgpu_boot: PASS");
    $finish;
  end

endmodule
