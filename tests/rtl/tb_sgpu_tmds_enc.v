// tb_sgpu_tmds_enc — the TMDS encoder against a decoder written here from
// the DVI 1.0 rules (not a second encoder):
//  - every symbol sent while de was high decodes back to its byte: bit 9
//    undoes the inversion, bit 8 tells an XOR chain from an XNOR chain;
//  - its 8 data bits (inversion undone) have at most 3 transitions, and the
//    symbol is never one of the four control symbols;
//  - the running disparity (ones minus zeros of every symbol since the last
//    blanking, counted here from the symbols) stays within -8..+8 and
//    reaches both ends (the stimulus includes lines of one byte repeated,
//    which push it there);
//  - every symbol sent while de was low is exactly the control symbol of
//    {C1, C0}; during reset the output is the symbol of 00;
//  - the latency is two clocks.
// Stimulus: lines of random length of random bytes, of one byte repeated,
// of slowly rising bytes, and single-pixel de pulses, with random controls
// in blanking.
`timescale 1ns/1ps
module tb_sgpu_tmds_enc;
  integer seed;
  `include "tb_random.vh"

  reg        clk = 1'b0, rst_n = 1'b0;
  reg        de = 1'b0;
  reg  [7:0] data = 8'd0;
  reg  [1:0] ctrl = 2'd0;
  wire [9:0] sym;
  always #20 clk = ~clk;

  sgpu_tmds_enc dut (.clk_i(clk), .rst_ni(rst_n), .de_i(de), .data_i(data), .ctrl_i(ctrl),
                     .sym_o(sym));

  // the four control symbols, sym[9:0] with sym[0] first on the wire
  function [9:0] ctl_sym(input [1:0] c);
    case (c)
      2'b00:   ctl_sym = 10'h354;
      2'b01:   ctl_sym = 10'h0AB;
      2'b10:   ctl_sym = 10'h154;
      default: ctl_sym = 10'h2AB;
    endcase
  endfunction

  // decoder: the byte a data symbol carries
  function [7:0] dec(input [9:0] s);
    reg [7:0] d;
    integer i;
    begin
      d = s[9] ? ~s[7:0] : s[7:0];
      dec[0] = d[0];
      for (i = 1; i < 8; i = i + 1) dec[i] = s[8] ? (d[i] ^ d[i-1]) : !(d[i] ^ d[i-1]);
    end
  endfunction

  function integer disp(input [9:0] s);   // ones minus zeros
    integer i;
    begin
      disp = -10;
      for (i = 0; i < 10; i = i + 1) disp = disp + (s[i] ? 2 : 0);
    end
  endfunction

  function integer trans8(input [9:0] s);  // transitions in the data bits
    reg [7:0] d;
    integer i;
    begin
      d = s[9] ? ~s[7:0] : s[7:0];
      trans8 = 0;
      for (i = 1; i < 8; i = i + 1) trans8 = trans8 + ((d[i] != d[i-1]) ? 1 : 0);
    end
  endfunction

  // inputs of the last three clocks: [0] the newest
  reg        h_de [0:2];
  reg  [7:0] h_data [0:2];
  reg  [1:0] h_ctrl [0:2];
  integer    hn = 0;                       // clocks since reset released
  integer    rd = 0, rd_min = 0, rd_max = 0;
  integer    n_data = 0, n_ctl = 0, n_inv = 0, n_xnor = 0;
  reg  [3:0] ctl_seen = 4'd0;
  integer    j;

  // check at each rising edge (before the inputs change) the symbol of the
  // inputs of two clocks before
  always @(posedge clk) begin
    if (rst_n) begin
      if (hn >= 2) begin
        if (!h_de[1]) begin
          if (sym !== ctl_sym(h_ctrl[1]))
            $fatal(1, "control %b: symbol %h, want %h", h_ctrl[1], sym, ctl_sym(h_ctrl[1]));
          rd = 0;
          n_ctl = n_ctl + 1;
          ctl_seen[h_ctrl[1]] = 1'b1;
        end else begin
          if (sym === ctl_sym(2'b00) || sym === ctl_sym(2'b01) ||
              sym === ctl_sym(2'b10) || sym === ctl_sym(2'b11))
            $fatal(1, "byte %h sent as control symbol %h", h_data[1], sym);
          if (dec(sym) !== h_data[1])
            $fatal(1, "symbol %h decodes to %h, sent %h", sym, dec(sym), h_data[1]);
          if (trans8(sym) > 3)
            $fatal(1, "symbol %h (byte %h): %0d transitions", sym, h_data[1], trans8(sym));
          rd = rd + disp(sym);
          if (rd > 8 || rd < -8)
            $fatal(1, "running disparity %0d after byte %h (symbol %h)", rd, h_data[1], sym);
          if (rd < rd_min) rd_min = rd;
          if (rd > rd_max) rd_max = rd;
          n_data = n_data + 1;
          if (sym[9]) n_inv = n_inv + 1;
          if (!sym[8]) n_xnor = n_xnor + 1;
        end
      end
      for (j = 2; j > 0; j = j - 1) begin
        h_de[j] = h_de[j-1]; h_data[j] = h_data[j-1]; h_ctrl[j] = h_ctrl[j-1];
      end
      h_de[0] = de; h_data[0] = data; h_ctrl[0] = ctrl;
      hn = hn + 1;
    end
  end

  integer line, n, px, kind, w_n;
  reg [7:0] b;

  task pixel(input d, input [7:0] v, input [1:0] c);
    begin
      @(negedge clk);
      de = d; data = v; ctrl = c;
    end
  endtask

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 11;
    $display("seed %0d", seed);
    for (w_n = 3; w_n > 0; w_n = w_n - 1) @(posedge clk);
    #1;
    if (sym !== ctl_sym(2'b00)) $fatal(1, "symbol %h in reset, want %h", sym, ctl_sym(2'b00));
    @(negedge clk);
    rst_n = 1'b1;
    for (line = 0; line < 600; line = line + 1) begin
      // blanking: random controls
      n = 2 + (tb_random(0) & 15);
      for (px = 0; px < n; px = px + 1) pixel(1'b0, tb_random(0), tb_random(0));
      kind = line % 5;
      n = 1 + (tb_random(0) & 127);
      if (kind == 4) n = 1;                 // a single-pixel line
      b = tb_random(0);
      for (px = 0; px < n; px = px + 1) begin
        case (kind)
          0, 4: pixel(1'b1, tb_random(0), 2'b00);
          1: pixel(1'b1, b, 2'b00);         // one byte repeated
          2: pixel(1'b1, b + px[9:2], 2'b00); // a slow ramp
          default: pixel(1'b1, (tb_random(0) & 1) ? b : ~b, 2'b00);
        endcase
      end
    end
    // every byte once, twice in a row, from each disparity the sweep reaches
    for (px = 0; px < 512; px = px + 1) pixel(1'b1, px[8:1], 2'b00);
    for (w_n = 4; w_n > 0; w_n = w_n - 1) pixel(1'b0, 2'b11, 2'b11);
    @(posedge clk);
    #1;
    if (ctl_seen !== 4'b1111) $fatal(1, "control symbols seen %b", ctl_seen);
    if (rd_min != -8 || rd_max != 8)
      $fatal(1, "disparity range %0d..%0d: the stimulus did not reach -8 and +8", rd_min, rd_max);
    if (n_inv == 0 || n_inv == n_data || n_xnor == 0 || n_xnor == n_data)
      $fatal(1, "coding choices not all exercised (%0d inverted, %0d XNOR of %0d)", n_inv, n_xnor, n_data);
    $display("%0d data symbols (%0d inverted, %0d XNOR), %0d control symbols, disparity %0d..%0d",
             n_data, n_inv, n_xnor, n_ctl, rd_min, rd_max);
    $display("PASS tb_sgpu_tmds_enc");
    $finish;
  end

  initial begin
    #20000000;
    $fatal(1, "tb_sgpu_tmds_enc: timeout");
  end
endmodule
