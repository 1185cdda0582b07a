// sgpu_cp_wait: WAIT_MEM's compare for every function against a model
// computed here ((word & mask) FUNC reference, GEQ_WRAP as a signed
// difference), registered one cycle after the response; the poll-in-flight
// flag and the 15-cycle gap between polls; and the display conditions
// (vblank, the scanline window with LINE_W < 16, flip pending) for two
// sources.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_sgpu_cp_wait;
  reg clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  reg  [2:0]  func;
  reg  [31:0] mask, refv, rdata, lines;
  reg         sent, rsp, cmp, src;
  reg  [1:0]  vbl, invbl, pend;
  reg  [31:0] scan;
  wire        pend_o, ok_o, gap_done, vbl_o, in_scan, fpend_o;

  localparam LINE_W = 10;
  sgpu_cp_wait #(.SOURCES(2), .LINE_W(LINE_W)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .func_i(func), .mask_i(mask), .ref_i(refv), .poll_sent_i(sent), .rsp_valid_i(rsp),
    .rsp_rdata_i(rdata), .cmp_i(cmp), .poll_pend_o(pend_o), .poll_ok_o(ok_o), .gap_done_o(gap_done),
    .src_i(src), .lines_i(lines), .vblank_i(vbl), .in_vblank_i(invbl), .flip_pending_i(pend),
    .scanline_i(scan), .vblank_o(vbl_o), .in_scan_o(in_scan), .flip_pending_o(fpend_o));

  // one source: a single-bit display (the unused upper half of the pads)
  wire vbl1, scan1, pend1, p1_pend, p1_ok, p1_gap;
  sgpu_cp_wait #(.SOURCES(1), .LINE_W(16)) dut1 (
    .clk_i(clk), .rst_ni(rst_n),
    .func_i(func), .mask_i(mask), .ref_i(refv), .poll_sent_i(sent), .rsp_valid_i(rsp),
    .rsp_rdata_i(rdata), .cmp_i(cmp), .poll_pend_o(p1_pend), .poll_ok_o(p1_ok), .gap_done_o(p1_gap),
    .src_i(1'b0), .lines_i(lines), .vblank_i(vbl[0]), .in_vblank_i(invbl[0]), .flip_pending_i(pend[0]),
    .scanline_i(scan[15:0]), .vblank_o(vbl1), .in_scan_o(scan1), .flip_pending_o(pend1));

  function model_ok(input [2:0] f, input [31:0] w, input [31:0] m, input [31:0] r);
    reg [31:0] v;
    begin
      v = w & m;
      case (f)
        3'd0: model_ok = (v == r);
        3'd1: model_ok = (v != r);
        3'd2: model_ok = (v < r);
        3'd3: model_ok = (v <= r);
        3'd4: model_ok = (v > r);
        3'd5: model_ok = (v >= r);
        3'd6: model_ok = ($signed(v - r) >= 0);
        default: model_ok = 1'b0;
      endcase
    end
  endfunction
  function model_in_scan(input [15:0] line, input [15:0] first, input [15:0] last, input in_vbl);
    model_in_scan = !in_vbl && line >= first && line <= last;
  endfunction

  integer seed, k, i, oks, gapc;
  reg expect_ok;
  reg [15:0] line;
  `include "tb_random.vh"
  function [31:0] pick(input dummy);
    case ($unsigned(tb_random(0)) % 4)
      0: pick = $unsigned(tb_random(0)) % 4;
      1: pick = 32'h8000_0000 + $signed(tb_random(0)) % 3;
      2: pick = 32'hFFFF_FFFF - $unsigned(tb_random(0)) % 3;
      default: pick = tb_random(0);
    endcase
  endfunction

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 5;
    func = 0; mask = 0; refv = 0; rdata = 0; lines = 0; sent = 0; rsp = 0; cmp = 0; src = 0;
    vbl = 0; invbl = 0; pend = 0; scan = 0;
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    if (pend_o !== 1'b0 || ok_o !== 1'b0 || gap_done !== 1'b1) $fatal(1, "reset state");

    // ---- the compare, every function, registered
    oks = 0;
    for (k = 0; k < 6000; k = k + 1) begin
      func = tb_random(0);
      mask = (tb_random(0) % 3 == 0) ? 32'hFFFF_FFFF : pick(0);
      rdata = pick(0);
      refv = (tb_random(0) % 4 == 0) ? rdata & mask : pick(0);
      expect_ok = model_ok(func, rdata, mask, refv);
      @(posedge clk); #1;
      if (ok_o !== expect_ok || p1_ok !== expect_ok)
        $fatal(1, "func %0d word %h mask %h ref %h: ok %b, expected %b", func, rdata, mask, refv, ok_o, expect_ok);
      if (expect_ok) oks = oks + 1;
    end
    if (oks == 0 || oks == 6000) $fatal(1, "both verdicts not exercised");

    // ---- a poll in flight: set by the accepted read, cleared by the response
    sent = 1; @(posedge clk); #1 sent = 0;
    if (pend_o !== 1'b1) $fatal(1, "poll not in flight after the read");
    repeat (3) begin @(posedge clk); #1; if (pend_o !== 1'b1) $fatal(1, "poll flag dropped"); end
    rsp = 1; @(posedge clk); #1 rsp = 0;
    if (pend_o !== 1'b0) $fatal(1, "poll flag not cleared by the response");
    // a read and a response in the same cycle: the new read is in flight
    sent = 1; rsp = 1; @(posedge clk); #1 sent = 0; rsp = 0;
    if (pend_o !== 1'b1) $fatal(1, "new poll lost to an old response");
    rsp = 1; @(posedge clk); #1 rsp = 0;

    // ---- the gap: 15 cycles from the compare, restarted by another
    cmp = 1; @(posedge clk); #1 cmp = 0;
    gapc = 0;
    while (!gap_done) begin @(posedge clk); #1 gapc = gapc + 1; end
    if (gapc != 15) $fatal(1, "gap of %0d cycles, expected 15", gapc);
    cmp = 1; @(posedge clk); #1 cmp = 0;
    repeat (5) @(posedge clk);
    cmp = 1; @(posedge clk); #1 cmp = 0;
    gapc = 0;
    while (!gap_done) begin @(posedge clk); #1 gapc = gapc + 1; end
    if (gapc != 15) $fatal(1, "restarted gap of %0d cycles, expected 15", gapc);

    // ---- display conditions
    for (k = 0; k < 4000; k = k + 1) begin
      src = tb_random(0); vbl = tb_random(0); invbl = tb_random(0); pend = tb_random(0);
      for (i = 0; i < 2; i = i + 1) begin
        line = $unsigned(tb_random(0)) % (1 << LINE_W);      // the display's counter width
        scan[i*16 +: 16] = line;
      end
      lines[15:0]  = (tb_random(0) % 8 == 0) ? 16'hFFFF - $unsigned(tb_random(0)) % 2000 :
                     $unsigned(tb_random(0)) % (1 << LINE_W);
      lines[31:16] = (tb_random(0) % 8 == 0) ? 16'hFFFF - $unsigned(tb_random(0)) % 2000 :
                     $unsigned(tb_random(0)) % (1 << LINE_W);
      #1;
      if (vbl_o !== vbl[src]) $fatal(1, "vblank of source %0d", src);
      if (fpend_o !== pend[src]) $fatal(1, "flip pending of source %0d", src);
      if (in_scan !== model_in_scan(scan[src*16 +: 16], lines[15:0], lines[31:16], invbl[src]))
        $fatal(1, "source %0d line %0d in [%0d, %0d] (vblank %b): %b", src, scan[src*16 +: 16],
               lines[15:0], lines[31:16], invbl[src], in_scan);
      if (vbl1 !== vbl[0] || pend1 !== pend[0] ||
          scan1 !== model_in_scan(scan[15:0], lines[15:0], lines[31:16], invbl[0]))
        $fatal(1, "one source: conditions");
    end
    $display("PASS tb_sgpu_cp_wait");
    $finish;
  end
endmodule
