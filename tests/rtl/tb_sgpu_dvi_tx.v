// tb_sgpu_dvi_tx — the DVI transmitter core from pixels to serial bits and
// back, with a receiver written here:
//  - pixel clock 25 MHz, serial clock 125 MHz, aligned (as one PLL gives
//    them); the serial side leaves reset later than the pixel side;
//  - stimulus: lines of 24..39 blanking clocks with random syncs, then
//    1..64 pixels of random colour;
//  - the receiver takes d0 then d1 of every serial clock per lane, finds the
//    symbol boundary from 16 control symbols in a row on each data lane (the
//    three must agree), then decodes every 10 bits: the clock lane must be
//    five ones then five zeros; a control symbol on blue gives {VSYNC,
//    HSYNC} (green and red must send C1 C0 = 00 at the same time), a data
//    symbol the byte (bit 9 undoes the inversion, bit 8 the XOR/XNOR);
//  - the decoded sequence of (DE, colour or syncs) must equal the sequence
//    of inputs at one fixed latency, over every symbol after the lock;
//  - underflow_o stays low.
`timescale 1ns/1ps
module tb_sgpu_dvi_tx;
  integer seed;
  `include "tb_random.vh"

  reg pix_clk = 1'b0, ser_clk = 1'b0, pix_rst_n = 1'b0, ser_rst_n = 1'b0;
  always #20 pix_clk = ~pix_clk;
  always #4  ser_clk = ~ser_clk;

  reg        de = 1'b0, hs = 1'b1, vs = 1'b1;
  reg  [7:0] r = 8'd0, g = 8'd0, b = 8'd0;
  wire [3:0] d0, d1;
  wire       under;

  sgpu_dvi_tx dut (
    .pix_clk_i(pix_clk), .pix_rst_ni(pix_rst_n),
    .de_i(de), .r_i(r), .g_i(g), .b_i(b), .hsync_i(hs), .vsync_i(vs),
    .ser_clk_i(ser_clk), .ser_rst_ni(ser_rst_n),
    .d0_o(d0), .d1_o(d1), .underflow_o(under));

  // ------------------------------------------------------------ inputs
  // One word per pixel clock: {de, hs, vs, r, g, b}; syncs only count in
  // blanking, colours only in active video.
  localparam integer N = 8192;
  reg [26:0] sent [0:N-1];
  integer    n_sent = 0;
  always @(posedge pix_clk) begin
    if (pix_rst_n && n_sent < N) begin
      sent[n_sent] <= de ? {1'b1, 2'b00, r, g, b} : {1'b0, hs, vs, 24'd0};
      n_sent <= n_sent + 1;
    end
  end

  // ------------------------------------------------------------ receiver
  function integer ctl_code(input [9:0] w);
    case (w)
      10'h354: ctl_code = 0;
      10'h0AB: ctl_code = 1;
      10'h154: ctl_code = 2;
      10'h2AB: ctl_code = 3;
      default: ctl_code = -1;
    endcase
  endfunction

  function [7:0] tmds_byte(input [9:0] w);
    reg [7:0] d;
    integer i;
    begin
      d = w[9] ? ~w[7:0] : w[7:0];
      tmds_byte[0] = d[0];
      for (i = 1; i < 8; i = i + 1) tmds_byte[i] = w[8] ? (d[i] ^ d[i-1]) : !(d[i] ^ d[i-1]);
    end
  endfunction

  reg [9:0]  win0 = 10'd0, win1 = 10'd0, win2 = 10'd0, win3 = 10'd0;
  integer    bits = 0, ph, lock_ph = -1;
  integer    run0 [0:9];
  integer    run1 [0:9];
  integer    run2 [0:9];
  integer    ph0 = -1, ph1 = -1, ph2 = -1;
  reg [26:0] got [0:N-1];
  integer    n_got = 0, k;
  integer    c0, c1, c2;
  initial for (k = 0; k < 10; k = k + 1) begin run0[k] = 0; run1[k] = 0; run2[k] = 0; end

  task take_bit(input [3:0] l);
    begin
      win0 = {l[0], win0[9:1]};
      win1 = {l[1], win1[9:1]};
      win2 = {l[2], win2[9:1]};
      win3 = {l[3], win3[9:1]};
      bits = bits + 1;
      ph = bits % 10;
      if (lock_ph < 0) begin
        if (ctl_code(win0) >= 0) run0[ph] = run0[ph] + 1; else run0[ph] = 0;
        if (ctl_code(win1) >= 0) run1[ph] = run1[ph] + 1; else run1[ph] = 0;
        if (ctl_code(win2) >= 0) run2[ph] = run2[ph] + 1; else run2[ph] = 0;
        if (ph0 < 0 && run0[ph] >= 16) ph0 = ph;
        if (ph1 < 0 && run1[ph] >= 16) ph1 = ph;
        if (ph2 < 0 && run2[ph] >= 16) ph2 = ph;
        if (ph0 >= 0 && ph1 >= 0 && ph2 >= 0) begin
          if (ph0 != ph1 || ph0 != ph2) $fatal(1, "lanes lock at phases %0d %0d %0d", ph0, ph1, ph2);
          lock_ph = ph0;
        end
      end else if (ph == lock_ph) begin
        if (win3 !== 10'b0000011111) $fatal(1, "clock lane word %b", win3);
        c0 = ctl_code(win0); c1 = ctl_code(win1); c2 = ctl_code(win2);
        if (c0 >= 0 || c1 >= 0 || c2 >= 0) begin
          if (c0 < 0 || c1 != 0 || c2 != 0)
            $fatal(1, "symbols %h %h %h: mixed control and data, or C1 C0 != 00 on green/red",
                   win0, win1, win2);
          // blue's {C1, C0} = {VSYNC, HSYNC}
          if (n_got < N) got[n_got] = {1'b0, c0[0], c0[1], 24'd0};
        end else begin
          if (n_got < N) got[n_got] = {1'b1, 2'b00, tmds_byte(win2), tmds_byte(win1), tmds_byte(win0)};
        end
        n_got = n_got + 1;
      end
    end
  endtask

  always @(posedge ser_clk) begin
    #1;
    if (ser_rst_n) begin
      take_bit(d0);
      take_bit(d1);
    end
  end

  // ------------------------------------------------------------ stimulus
  integer line, px, w_n, lat, i, ok;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 5;
    $display("seed %0d", seed);
    for (w_n = 3; w_n > 0; w_n = w_n - 1) @(posedge pix_clk);
    @(negedge pix_clk) pix_rst_n = 1'b1;
    for (w_n = 7; w_n > 0; w_n = w_n - 1) @(posedge ser_clk);
    @(negedge ser_clk) ser_rst_n = 1'b1;
    while (n_sent < N - 8) begin
      for (px = 24 + (tb_random(0) & 15); px > 0; px = px - 1) begin
        @(negedge pix_clk);
        de = 1'b0; hs = tb_random(0); vs = tb_random(0);
      end
      for (px = 1 + (tb_random(0) & 63); px > 0; px = px - 1) begin
        @(negedge pix_clk);
        de = 1'b1; r = tb_random(0); g = tb_random(0); b = tb_random(0);
      end
    end
    for (w_n = 8; w_n > 0; w_n = w_n - 1) @(posedge pix_clk);
    if (lock_ph < 0) $fatal(1, "the receiver never found the symbol boundary");
    if (under) $fatal(1, "underflow");
    // the latency that makes the decoded sequence the sent one
    lat = -1;
    for (k = 0; k < 400 && lat < 0; k = k + 1) begin
      ok = 1;
      for (i = 0; i < 200 && ok; i = i + 1)
        if (got[i] !== sent[i + k]) ok = 0;
      if (ok) lat = k;
    end
    if (lat < 0) $fatal(1, "decoded symbols match the inputs at no latency (first %h, sent[0..2] %h %h %h)",
                        got[0], sent[0], sent[1], sent[2]);
    for (i = 0; i + lat < n_sent && i < n_got; i = i + 1)
      if (got[i] !== sent[i + lat])
        $fatal(1, "symbol %0d: decoded %h, sent %h (latency %0d)", i, got[i], sent[i + lat], lat);
    if (i < N - 200) $fatal(1, "only %0d symbols compared", i);
    $display("%0d symbols decoded, boundary at phase %0d, all equal to the inputs %0d clocks earlier",
             i, lock_ph, lat);
    $display("PASS tb_sgpu_dvi_tx");
    $finish;
  end

  initial begin
    #2000000;
    $fatal(1, "tb_sgpu_dvi_tx: timeout");
  end
endmodule
