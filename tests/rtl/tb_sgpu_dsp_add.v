// sgpu_dsp_add and sgpu_dsp_counter against reference arithmetic.
// Adders of W = 32, 31, 30, 17, 16, 8, 1 (every layout of the SB_MAC16
// path: carry in on CI or in a pad bit, carry out on CO or on a result
// bit): add and subtract, carry in 0 and 1, corner and random operands.
// Counters: two W = 32 chained into 64 bits (loads next to the carries),
// W = 8 + 8 chained and run through a full 16-bit wrap, W = 31 and W = 1;
// enable toggling, load, asynchronous reset between clock edges.
// Held compares (sgpu_dsp_ge_held, W = 18, either operand held): loads of
// corner and random values, compares against the tracked held value.
// Runs as is (plain Verilog) and, through tests/dsp_equiv.sh, with
// -DSYNTHESIS -DSGPU_ICE40_DSP on the yosys SB_MAC16 simulation model.
`timescale 1ns/1ps
module tb_sgpu_dsp_add;
  localparam NW = 7;
  function integer wsel;
    input integer i;
    begin
      case (i)
        0: wsel = 32; 1: wsel = 31; 2: wsel = 30; 3: wsel = 17;
        4: wsel = 16; 5: wsel = 8;  default: wsel = 1;
      endcase
    end
  endfunction

  // ---- adders
  reg  [31:0] a = 0, b = 0;
  reg         ci = 0, sub = 0;
  wire [NW*32-1:0] s_all;
  wire [NW-1:0]    co_all;
  genvar gi;
  generate
    for (gi = 0; gi < NW; gi = gi + 1) begin : g_add
      localparam WI = wsel(gi);
      sgpu_dsp_add #(.W(WI)) u_add (.a_i(a[WI-1:0]), .b_i(b[WI-1:0]), .ci_i(ci), .sub_i(sub),
                                    .s_o(s_all[gi*32 +: WI]), .co_o(co_all[gi]));
      if (WI < 32) begin : g_fill
        assign s_all[gi*32 + WI +: 32 - WI] = {(32 - WI){1'b0}};
      end
    end
  endgenerate

  integer seed, k, i, j, wi, nchk = 0, ncarry = 0;
  reg [63:0] mask, bm, sum;
  reg [31:0] got_s, want_s;
  reg        want_co;

  task check_add;
    begin
      #1;
      for (j = 0; j < NW; j = j + 1) begin
        wi = wsel(j);
        mask = (64'd1 << wi) - 1;
        bm = (sub ? ~{32'b0, b} : {32'b0, b}) & mask;
        sum = ({32'b0, a} & mask) + bm + {63'b0, ci};
        want_s = sum[31:0] & mask[31:0];
        want_co = sum[wi];
        got_s = s_all[j*32 +: 32];
        if (got_s !== want_s || co_all[j] !== want_co)
          $fatal(1, "W=%0d a=%h b=%h ci=%0d sub=%0d: want s=%h co=%0d, got s=%h co=%b",
                 wi, a & mask[31:0], b & mask[31:0], ci, sub, want_s, want_co, got_s, co_all[j]);
        if (want_co) ncarry = ncarry + 1;
        nchk = nchk + 1;
      end
    end
  endtask

  // corner operands
  function [31:0] corner;
    input integer n;
    begin
      case (n % 12)
        0: corner = 32'h0;          1: corner = 32'h1;          2: corner = 32'hFFFFFFFF;
        3: corner = 32'h80000000;   4: corner = 32'h7FFFFFFF;   5: corner = 32'h0000FFFF;
        6: corner = 32'h00010000;   7: corner = 32'h00007FFF;   8: corner = 32'h3FFFFFFF;
        9: corner = 32'h40000000;   10: corner = 32'hFFFFFFFE;  default: corner = 32'h0001FFFF;
      endcase
    end
  endfunction

  // ---- counters
  reg clk = 0, rst_n = 1;
  always #5 clk = ~clk;
  reg en = 0, ld = 0;
  reg [63:0] d = 0;
  // 64-bit: two W = 32 chained
  wire [31:0] q_lo, q_hi; wire co_lo, co_hi;
  sgpu_dsp_counter #(.W(32)) u_c_lo (.clk_i(clk), .rst_ni(rst_n), .en_i(en), .ld_i(ld), .d_i(d[31:0]),
                                     .q_o(q_lo), .co_o(co_lo));
  sgpu_dsp_counter #(.W(32)) u_c_hi (.clk_i(clk), .rst_ni(rst_n), .en_i(co_lo), .ld_i(ld), .d_i(d[63:32]),
                                     .q_o(q_hi), .co_o(co_hi));
  // 16-bit: two W = 8 chained
  wire [7:0] q8_lo, q8_hi; wire co8_lo, co8_hi;
  sgpu_dsp_counter #(.W(8)) u_c8_lo (.clk_i(clk), .rst_ni(rst_n), .en_i(en), .ld_i(ld), .d_i(d[7:0]),
                                     .q_o(q8_lo), .co_o(co8_lo));
  sgpu_dsp_counter #(.W(8)) u_c8_hi (.clk_i(clk), .rst_ni(rst_n), .en_i(co8_lo), .ld_i(ld), .d_i(d[15:8]),
                                     .q_o(q8_hi), .co_o(co8_hi));
  wire [30:0] q31; wire co31;
  sgpu_dsp_counter #(.W(31)) u_c31 (.clk_i(clk), .rst_ni(rst_n), .en_i(en), .ld_i(ld), .d_i(d[30:0]),
                                    .q_o(q31), .co_o(co31));
  wire [0:0] q1; wire co1;
  sgpu_dsp_counter #(.W(1)) u_c1 (.clk_i(clk), .rst_ni(rst_n), .en_i(en), .ld_i(ld), .d_i(d[0:0]),
                                  .q_o(q1), .co_o(co1));

  reg [63:0] r64; reg [15:0] r16; reg [30:0] r31; reg r1;
  integer ncnt = 0, nwrap64 = 0, nwrap16 = 0, nwrap32 = 0;

  task check_cnt_q;
    begin
      if ({q_hi, q_lo} !== r64) $fatal(1, "64-bit counter: want %h, got %h", r64, {q_hi, q_lo});
      if ({q8_hi, q8_lo} !== r16) $fatal(1, "16-bit counter: want %h, got %h", r16, {q8_hi, q8_lo});
      if (q31 !== r31) $fatal(1, "31-bit counter: want %h, got %h", r31, q31);
      if (q1 !== r1) $fatal(1, "1-bit counter: want %b, got %b", r1, q1);
    end
  endtask

  // one clock: check the carries of the inputs set now, clock, update the
  // reference, check the counts.
  task cnt_step;
    begin
      #1;
      if (co_lo !== (en && r64[31:0] == 32'hFFFFFFFF)) $fatal(1, "co_lo %b at %h en %b", co_lo, r64, en);
      if (co_hi !== (en && r64 == 64'hFFFFFFFFFFFFFFFF)) $fatal(1, "co_hi %b at %h en %b", co_hi, r64, en);
      if (co8_lo !== (en && r16[7:0] == 8'hFF)) $fatal(1, "co8_lo %b at %h en %b", co8_lo, r16, en);
      if (co8_hi !== (en && r16 == 16'hFFFF)) $fatal(1, "co8_hi %b at %h en %b", co8_hi, r16, en);
      if (co31 !== (en && r31 == 31'h7FFFFFFF)) $fatal(1, "co31 %b at %h en %b", co31, r31, en);
      if (co1 !== (en && r1)) $fatal(1, "co1 %b at %b en %b", co1, r1, en);
      if (en && r64[31:0] == 32'hFFFFFFFF) nwrap32 = nwrap32 + 1;
      if (en && r64 == 64'hFFFFFFFFFFFFFFFF) nwrap64 = nwrap64 + 1;
      if (en && r16 == 16'hFFFF) nwrap16 = nwrap16 + 1;
      @(posedge clk);
      if (ld) begin
        r64 = d; r16 = d[15:0]; r31 = d[30:0]; r1 = d[0];
      end else if (en) begin
        r64 = r64 + 1; r16 = r16 + 1; r31 = r31 + 1; r1 = ~r1;
      end
      @(negedge clk);
      check_cnt_q;
      ncnt = ncnt + 1;
    end
  endtask

  // ---- held compares
  reg  [17:0] ga = 0, gb = 0, held_a = 0, held_b = 0;
  reg         gld = 0;
  wire        ge_ha, ge_hb;
  integer     nge = 0, nge1 = 0;
  sgpu_dsp_ge_held #(.W(18), .HOLD_B(0)) u_ge_ha (.clk_i(clk), .ld_i(gld), .a_i(ga), .b_i(gb), .ge_o(ge_ha));
  sgpu_dsp_ge_held #(.W(18), .HOLD_B(1)) u_ge_hb (.clk_i(clk), .ld_i(gld), .a_i(ga), .b_i(gb), .ge_o(ge_hb));
  function [17:0] gval;
    input integer n;
    begin
      case (n % 6)
        0: gval = 18'h0; 1: gval = 18'h3FFFF; 2: gval = 18'h20000; 3: gval = 18'h1FFFF;
        4: gval = tb_random(0); default: gval = tb_random(0) >> ($unsigned(tb_random(0)) % 18);
      endcase
    end
  endfunction

  // ---- down counter with a held load value (W = 24)
  reg         hen = 0, hld = 0, hdld = 0;
  reg  [23:0] hd = 0, hq_r = 0, hheld_r = 0;
  wire [23:0] hq; wire hco;
  integer     nh = 0, nhco = 0;
  sgpu_dsp_counter_held #(.W(24)) u_ch (.clk_i(clk), .rst_ni(rst_n), .en_i(hen), .ld_i(hld), .dld_i(hdld),
                                        .d_i(hd), .q_o(hq), .co_o(hco));

  `include "tb_random.vh"
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 11;

    // adders: every corner pair, both operations, both carries
    for (k = 0; k < 144; k = k + 1) begin
      a = corner(k / 12); b = corner(k % 12);
      for (i = 0; i < 4; i = i + 1) begin
        sub = i[1]; ci = i[0];
        check_add;
      end
    end
    // a == b, a == b +- 1 (the compare edges), random
    for (k = 0; k < 6000; k = k + 1) begin
      a = tb_random(0);
      case (k % 6)
        0: b = a;
        1: b = a + 1;
        2: b = a - 1;
        3: b = tb_random(0) >> ($unsigned(tb_random(0)) % 32);
        default: b = tb_random(0);
      endcase
      if (k % 7 == 0) a = a >> ($unsigned(tb_random(0)) % 32);
      sub = tb_random(0); ci = tb_random(0);
      check_add;
    end
    if (ncarry == 0 || ncarry == nchk) $fatal(1, "carry out not exercised both ways");
    $display("adders: %0d checks, %0d with carry out", nchk, ncarry);

    // counters: asynchronous reset from unknown contents
    @(negedge clk); rst_n = 0; #1;
    r64 = 0; r16 = 0; r31 = 0; r1 = 0;
    check_cnt_q;
    @(negedge clk); rst_n = 1;
    // enable toggling from 0
    for (k = 0; k < 300; k = k + 1) begin
      en = (k % 5 != 3); cnt_step;
    end
    // the 64-bit carries: load just below each carry, run through it
    for (k = 0; k < 6; k = k + 1) begin
      ld = 1; en = k[0];
      case (k)
        0: d = 64'h00000000_FFFFFFFC;
        1: d = 64'h00000001_FFFFFFFD;
        2: d = 64'hFFFFFFFF_FFFFFFFB;
        3: d = 64'h7FFFFFFF_FFFFFFFE;
        4: d = 64'hFFFFFFFF_FFFFFFFA;
        default: d = {tb_random(0), 32'hFFFFFFF8};
      endcase
      cnt_step;
      ld = 0;
      for (i = 0; i < 12; i = i + 1) begin
        en = (i % 4 != 1); cnt_step;
      end
    end
    // asynchronous reset between clock edges, the counters not at 0
    @(negedge clk); #2 rst_n = 0; #1;
    r64 = 0; r16 = 0; r31 = 0; r1 = 0;
    check_cnt_q;
    @(posedge clk); #1 check_cnt_q;   // held in reset over a clock edge with en = 1
    @(negedge clk); rst_n = 1;
    // the 16-bit chain through a full wrap, with a load on the way
    en = 1;
    for (k = 0; k < 66000; k = k + 1) begin
      if (k == 1000) begin ld = 1; d = 64'hFFFFFFFF_FFFF8000; end
      else ld = 0;
      en = (k % 97 != 50);
      cnt_step;
    end
    if (nwrap64 < 3 || nwrap32 < 6 || nwrap16 < 2) $fatal(1, "carries not exercised: %0d %0d %0d",
                                                         nwrap64, nwrap32, nwrap16);
    $display("counters: %0d cycles, %0d 64-bit, %0d 32-bit, %0d 16-bit wraps", ncnt, nwrap64, nwrap32,
             nwrap16);
    // held compares: load, then compare the held value with operands near it
    for (k = 0; k < 3000; k = k + 1) begin
      @(negedge clk);
      if (k % 8 == 0) begin
        gld = 1; ga = gval(tb_random(0)); gb = gval(tb_random(0));
        @(posedge clk); held_a = ga; held_b = gb;
        @(negedge clk); gld = 0;
      end
      case (k % 4)
        0: begin ga = held_b; gb = held_a; end
        1: begin ga = held_b + 1; gb = held_a - 1; end
        2: begin ga = held_b - 1; gb = held_a + 1; end
        default: begin ga = gval(tb_random(0)); gb = gval(tb_random(0)); end
      endcase
      #1;
      if (ge_ha !== (held_a >= gb)) $fatal(1, "held a %h >= %h: got %b", held_a, gb, ge_ha);
      if (ge_hb !== (ga >= held_b)) $fatal(1, "%h >= held b %h: got %b", ga, held_b, ge_hb);
      nge = nge + 2; nge1 = nge1 + ge_ha + ge_hb;
    end
    if (nge1 == 0 || nge1 == nge) $fatal(1, "held compares not exercised both ways");
    $display("held compares: %0d checks, %0d true", nge, nge1);
    // held-value down counter: reset clears count and held value; loads take
    // the held value from before the same cycle's dld_i; values near 0
    @(negedge clk); rst_n = 0; #1;
    hq_r = 0; hheld_r = 0;
    if (hq !== 24'd0) $fatal(1, "held counter not reset: %h", hq);
    @(negedge clk); rst_n = 1;
    for (k = 0; k < 4000; k = k + 1) begin
      hen = (k % 7 != 3); hld = ($unsigned(tb_random(0)) % 9 == 0); hdld = ($unsigned(tb_random(0)) % 11 == 0);
      case ($unsigned(tb_random(0)) % 4)
        0: hd = $unsigned(tb_random(0)) % 6;
        1: hd = 24'd0;
        default: hd = tb_random(0);
      endcase
      #1;
      if (hco !== (hen && hq_r == 24'd0)) $fatal(1, "held counter co %b at %h en %b", hco, hq_r, hen);
      nhco = nhco + hco;
      @(posedge clk);
      if (hld) hq_r = hheld_r; else if (hen) hq_r = hq_r - 1;
      if (hdld) hheld_r = hd;
      @(negedge clk);
      if (hq !== hq_r) $fatal(1, "held counter: want %h, got %h", hq_r, hq);
      nh = nh + 1;
    end
    if (nhco == 0) $fatal(1, "held counter carry not exercised");
    $display("held counter: %0d cycles, %0d carries", nh, nhco);
    $display("PASS tb_sgpu_dsp_add");
    $finish;
  end
endmodule
