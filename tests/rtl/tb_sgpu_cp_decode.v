// sgpu_cp_decode: the header checks and the packet checks against a model
// written here from the interface spec (tools/hwspec.py's OPCODES: each
// opcode's count, flag mask and checks in order; the header checks first:
// type, opcode, reserved flags, count, overrun).  Random headers and
// payload fields biased towards the boundaries, for one and two display
// sources; every fault code the checker can raise must be seen.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_sgpu_cp_decode;
  localparam IW = 16;

  reg           look;
  reg  [31:0]   hdr;
  reg  [IW-1:2] left;
  reg  [7:0]    op;
  reg  [2:0]    idx, func;
  reg           ib_full, in_ib, addr_hi, u16_bad, ctx_nz, phase, oor, win;
  reg  [IW-1:0] addr;
  reg  [1:0]    arg_lo;
  reg  [31:0]   arg2;
  reg  [15:0]   pitch, width, height;
  wire [3:0]    hf1, pf1, rf1, hf2, pf2, rf2;
  wire          u16w1, empty1, u16w2, empty2;

  sgpu_cp_decode #(.IW(IW), .SOURCES(1)) dut1 (
    .hdr_look_i(look), .hdr_i(hdr), .words_left_i(left), .hdr_fault_o(hf1),
    .op_i(op), .pay_idx_i(idx), .u16_word_o(u16w1),
    .func_i(func), .ib_full_i(ib_full), .in_ib_i(in_ib), .addr_i(addr), .addr_hi_i(addr_hi),
    .arg_lo_i(arg_lo), .arg2_i(arg2), .pitch_i(pitch), .width_i(width), .height_i(height),
    .u16_bad_i(u16_bad), .ctx_id_nz_i(ctx_nz), .src_phase_i(phase), .oor_i(oor), .win_i(win),
    .pkt_fault_o(pf1), .rect_fault_o(rf1), .empty_o(empty1));
  sgpu_cp_decode #(.IW(IW), .SOURCES(2)) dut2 (
    .hdr_look_i(look), .hdr_i(hdr), .words_left_i(left), .hdr_fault_o(hf2),
    .op_i(op), .pay_idx_i(idx), .u16_word_o(u16w2),
    .func_i(func), .ib_full_i(ib_full), .in_ib_i(in_ib), .addr_i(addr), .addr_hi_i(addr_hi),
    .arg_lo_i(arg_lo), .arg2_i(arg2), .pitch_i(pitch), .width_i(width), .height_i(height),
    .u16_bad_i(u16_bad), .ctx_id_nz_i(ctx_nz), .src_phase_i(phase), .oor_i(oor), .win_i(win),
    .pkt_fault_o(pf2), .rect_fault_o(rf2), .empty_o(empty2));

  // ---- the model
  localparam [3:0] NONE = 4'd0, ILLEGAL = 4'd1, BAD_HEADER = 4'd2, BAD_COUNT = 4'd3, OVERRUN = 4'd4,
                   MISALIGNED = 4'd5, OOR = 4'd6, WINDOW = 4'd7, NESTING = 4'd8, BAD_PARAM = 4'd10,
                   PRIVILEGED = 4'd11, UNSUPPORTED = 4'd12;
  // payload count of each opcode (-1: unknown; WRITE_DATA: at least 2) and its flag bits
  function integer count_of(input [7:0] o);
    case (o)
      8'h00: count_of = 1000;   // NOP: any
      8'h01: count_of = 3;  8'h02: count_of = 2;  8'h03: count_of = 2000;  // WRITE_DATA: >= 2
      8'h04: count_of = 3;  8'h05: count_of = 1;  8'h06: count_of = 2;  8'h07: count_of = 5;
      8'h08: count_of = 6;  8'h09: count_of = 3;  8'h0A: count_of = 3;  8'h0B: count_of = 1;
      8'h0C: count_of = 0;  // TLB_INVALIDATE
      default: count_of = -1;
    endcase
  endfunction
  function [7:0] flags_of(input [7:0] o);
    case (o)
      8'h01, 8'h02, 8'h09, 8'h0A: flags_of = 8'h01;   // SKIP, IRQ, NO_WAIT, VM
      8'h04:               flags_of = 8'h07;   // FUNC
      default:             flags_of = 8'h00;
    endcase
  endfunction
  function [3:0] hdr_model(input [31:0] h, input integer words_left);
    integer n, c;
    begin
      n = h[29:16]; c = count_of(h[7:0]);
      if (h[31:30] != 2'd3)                      hdr_model = BAD_HEADER;
      else if (c < 0)                            hdr_model = ILLEGAL;
      else if ((h[15:8] & ~flags_of(h[7:0])) != 0) hdr_model = BAD_HEADER;
      else if (!(c == 1000 || (c == 2000 && n >= 2) || n == c)) hdr_model = BAD_COUNT;
      else if (4 * (n + 1) > 4 * words_left)     hdr_model = OVERRUN;
      else                                       hdr_model = NONE;
    end
  endfunction
  function [3:0] pkt_model(input integer sources);
    reg src_bad;
    begin
      src_bad = addr_hi || addr >= sources;
      pkt_model = NONE;
      case (op)
        8'h01: if (ib_full) pkt_model = NESTING;
               else if (addr[1:0] != 0 || arg_lo != 0) pkt_model = MISALIGNED;
               else if (oor) pkt_model = OOR; else if (win) pkt_model = WINDOW;
        8'h02, 8'h03, 8'h0B: if (addr[1:0] != 0) pkt_model = MISALIGNED;
               else if (oor) pkt_model = OOR; else if (win) pkt_model = WINDOW;
        8'h04: if (func > 6) pkt_model = BAD_PARAM; else if (addr[1:0] != 0) pkt_model = MISALIGNED;
               else if (oor) pkt_model = OOR; else if (win) pkt_model = WINDOW;
        8'h05, 8'h06: if (src_bad) pkt_model = BAD_PARAM;
        8'h07, 8'h08: if (u16_bad) pkt_model = BAD_PARAM;              // "max" checks
               else if (height > 1 && pitch < width) pkt_model = BAD_PARAM;   // "pitch"
        8'h09: if (src_bad) pkt_model = BAD_PARAM; else if (arg2 > 5) pkt_model = BAD_PARAM;
               else if (arg_lo != 0) pkt_model = MISALIGNED;
               else if (oor) pkt_model = OOR; else if (win) pkt_model = WINDOW;
        8'h0A: if (in_ib) pkt_model = PRIVILEGED;
               else if (ctx_nz && (addr[1:0] != 0 || arg_lo != 0)) pkt_model = MISALIGNED;
               else if (ctx_nz && oor) pkt_model = OOR;
        8'h0C: if (in_ib) pkt_model = PRIVILEGED;
        default: pkt_model = UNSUPPORTED;
      endcase
    end
  endfunction
  function [3:0] rect_model(input dummy);
    begin
      if (op == 8'h08 && !phase && height > 1 && pitch < width) rect_model = BAD_PARAM;
      else if (oor) rect_model = OOR; else if (win) rect_model = WINDOW;
      else rect_model = NONE;
    end
  endfunction
  function u16_model(input dummy);
    case (op)
      8'h07: u16_model = (idx >= 1 && idx <= 3);             // pitch, width, height
      8'h08: u16_model = (idx == 1 || idx >= 3 && idx <= 5); // pitches, width, height
      default: u16_model = 1'b0;
    endcase
  endfunction

  integer seed, k, n, wl, r;
  integer seen_h [0:15];
  integer seen_p [0:15];
  reg [3:0] e;
  `include "tb_random.vh"
  function [15:0] r16(input dummy);
    r16 = (tb_random(0) % 3 == 0) ? ($unsigned(tb_random(0)) % 4) : tb_random(0);
  endfunction

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 21;
    for (k = 0; k < 16; k = k + 1) begin seen_h[k] = 0; seen_p[k] = 0; end
    look = 1'b1;
    // ---- headers
    for (k = 0; k < 20000; k = k + 1) begin
      r = $unsigned(tb_random(0)) % 16;
      hdr[31:30] = (r == 0) ? tb_random(0) : 2'd3;
      hdr[7:0]   = (r == 1) ? tb_random(0) : ($unsigned(tb_random(0)) % 14);
      hdr[15:8]  = (r == 2) ? tb_random(0) : (tb_random(0) & 32'h01 & flags_of(hdr[7:0])) |
                                             ((hdr[7:0] == 8'h04) ? tb_random(0) & 32'h7 : 0);
      n = count_of(hdr[7:0]);
      if (r == 3 || n < 0 || n >= 1000) n = $unsigned(tb_random(0)) % ((r == 4) ? 16384 : 9);
      hdr[29:16] = n;
      wl = (r == 5) ? $unsigned(tb_random(0)) % 16384 : n + 1 - 2 + $unsigned(tb_random(0)) % 4;
      if (wl < 0) wl = 0;
      if (wl > 16383) wl = 16383;
      left = wl;
      #1;
      e = hdr_model(hdr, wl);
      if (hf1 !== e || hf2 !== e)
        $fatal(1, "header %h, %0d words left: fault %0d / %0d, expected %0d", hdr, wl, hf1, hf2, e);
      seen_h[e] = seen_h[e] + 1;
    end
    // ---- packet checks
    for (k = 0; k < 40000; k = k + 1) begin
      op = ($unsigned(tb_random(0)) % 20 == 0) ? 8'h00 : 8'h01 + $unsigned(tb_random(0)) % 12;
      idx = tb_random(0);
      func = (tb_random(0) % 4 == 0) ? 3'd7 : tb_random(0) % 7;
      ib_full = (tb_random(0) % 4 == 0); in_ib = (tb_random(0) % 3 == 0);
      addr = (tb_random(0) % 2) ? ($unsigned(tb_random(0)) % 3) * 4 : tb_random(0) & ~32'h3;
      if (tb_random(0) % 4 == 0) addr[1:0] = tb_random(0);
      addr_hi = (tb_random(0) % 6 == 0);
      arg_lo = (tb_random(0) % 4 == 0) ? tb_random(0) : 2'd0;
      arg2 = (tb_random(0) % 2) ? $unsigned(tb_random(0)) % 8 : tb_random(0);
      pitch = r16(0); width = r16(0); height = r16(0);
      u16_bad = (tb_random(0) % 5 == 0); ctx_nz = (tb_random(0) % 2 == 0);
      phase = tb_random(0); oor = (tb_random(0) % 4 == 0); win = (tb_random(0) % 4 == 0);
      #1;
      e = pkt_model(1);
      if (pf1 !== e) $fatal(1, "op %h (1 source): fault %0d, expected %0d", op, pf1, e);
      seen_p[e] = seen_p[e] + 1;
      e = pkt_model(2);
      if (pf2 !== e) $fatal(1, "op %h (2 sources): fault %0d, expected %0d", op, pf2, e);
      e = rect_model(0);
      if (rf1 !== e || rf2 !== e) $fatal(1, "op %h rectangle: fault %0d, expected %0d", op, rf1, e);
      if (empty1 !== (width == 0 || height == 0)) $fatal(1, "empty %b for %0d x %0d", empty1, width, height);
      if (u16w1 !== u16_model(0) || u16w2 !== u16w1) $fatal(1, "op %h word %0d: 16-bit %b", op, idx, u16w1);
    end
    for (k = 0; k <= 4; k = k + 1)
      if (seen_h[k] == 0) $fatal(1, "header fault %0d never seen", k);
    for (k = 0; k <= 12; k = k + 1)
      if (k != 1 && k != 2 && k != 3 && k != 4 && k != 9 && seen_p[k] == 0)
        $fatal(1, "packet fault %0d never seen", k);
    $display("PASS tb_sgpu_cp_decode");
    $finish;
  end
endmodule
