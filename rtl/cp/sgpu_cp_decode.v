// Header decoder and packet checker of the command processor (part of
// sgpu_cp); combinational.  It tells which fault, if any, a packet raises,
// in the interface spec's order of checks (docs/interface.md, "Checks and
// their precedence"; tools/hwspec.py's OPCODES checks):
//  - at the header, for every packet: type (BAD_HEADER), opcode
//    (ILLEGAL_OPCODE), reserved flag bits (BAD_HEADER), count (BAD_COUNT),
//    then OVERRUN when the packet runs past the end of its buffer;
//  - once the payload is collected (the executor's S_EXEC): the opcode's
//    own checks, the range and window verdicts registered by the executor's
//    range checker (oor_i, win_i) taking their place in that order (in a
//    VM context win_i is 0: the executor makes the page check, the last
//    check of each list, itself once these pass);
//  - for FILL and COPY, once a rectangle's extent is known (S_RCHK): COPY's
//    source pitch, then that rectangle's range and window.
// It also says which payload words of FILL and COPY must fit in 16 bits.
`include "sgpu_hw.vh"
module sgpu_cp_decode #(
  parameter IW      = 23,    // internal address width (sgpu_cp)
  parameter SOURCES = 1
) (
  // ---- header
  input  wire          hdr_look_i,     // a header waits to be taken (else the header outputs are 'x)
  input  wire [31:0]   hdr_i,
  input  wire [IW-1:2] words_left_i,   // words in the buffer from the header on
  output reg  [3:0]    hdr_fault_o,
  // ---- payload: which word must fit in 16 bits
  input  wire [7:0]    op_i,           // the packet's opcode (header taken)
  input  wire [2:0]    pay_idx_i,      // index of the payload word being taken
  output wire          u16_word_o,
  // ---- payload checks
  input  wire [2:0]    func_i,         // flags[2:0]: WAIT_MEM's compare function
  input  wire          ib_full_i,      // already MAX_IB_DEPTH (IB_DEPTH) buffers deep
  input  wire          in_ib_i,        // the packet comes from an indirect buffer
  input  wire [IW-1:0] addr_i,         // word 0 (CONTEXT: word 1, the window base)
  input  wire          addr_hi_i,      // word 0 had bits at or above IW
  input  wire [1:0]    arg_lo_i,       // word 1's low bits (INDIRECT length, FLIP address; CONTEXT: size)
  input  wire [31:0]   arg2_i,         // word 2 (FLIP interval)
  input  wire [15:0]   pitch_i,        // FILL/COPY: the pitch of the rectangle checked
  input  wire [15:0]   width_i,
  input  wire [15:0]   height_i,
  input  wire          u16_bad_i,      // FILL/COPY: a 16-bit word had high bits
  input  wire          ctx_id_nz_i,    // CONTEXT: id != 0
  input  wire          src_phase_i,    // COPY: 0 destination, 1 source rectangle
  input  wire          oor_i,          // range checker: out of memory
  input  wire          win_i,          // range checker: outside the context window
  output reg  [3:0]    pkt_fault_o,    // S_EXEC's checks (NONE: passed)
  output reg  [3:0]    rect_fault_o,   // S_RCHK's checks (NONE: passed)
  output wire          empty_o         // FILL/COPY: width or height 0, nothing to do
);
  // ------------------------------------------------------------ header
  wire [7:0]  h_op   = hdr_i[7:0];
  wire [7:0]  h_fl   = hdr_i[15:8];
  wire [13:0] h_cnt  = hdr_i[29:16];
  reg  [7:0]  h_flmask;
  reg         h_op_ok, h_cnt_ok;
  // Compares with a constant, in LUTs rather than carry chains (sgpu_gt_const).
  localparam [13:0] WDATA_MIN1 = `SGPU_OP_WRITE_DATA_MIN_COUNT - 14'd1;
  wire        h_cnt_wdata;    // WRITE_DATA's count is large enough
  sgpu_gt_const #(.W(14), .C(WDATA_MIN1)) u_wdata_cnt_ok (.x_i(h_cnt), .gt_o(h_cnt_wdata));
  // The decode is computed only when a header waits and is a don't-care
  // ('x) otherwise: the simulator skips it on every other cycle, and
  // synthesis may ignore the condition.
  always @(*) begin
    h_op_ok  = 1'bx;
    h_flmask = 8'hxx;
    h_cnt_ok = 1'bx;
    if (hdr_look_i) begin
    h_op_ok  = 1'b1;
    h_flmask = 8'h00;
    h_cnt_ok = 1'b0;
    case (h_op)
      `SGPU_OP_NOP:           h_cnt_ok = 1'b1;
      `SGPU_OP_INDIRECT:      begin h_flmask = `SGPU_OP_INDIRECT_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_INDIRECT_COUNT); end
      `SGPU_OP_FENCE:         begin h_flmask = `SGPU_OP_FENCE_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_FENCE_COUNT); end
      `SGPU_OP_WRITE_DATA:    h_cnt_ok = h_cnt_wdata;
      `SGPU_OP_WAIT_MEM:      begin h_flmask = `SGPU_OP_WAIT_MEM_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_WAIT_MEM_COUNT); end
      `SGPU_OP_WAIT_VSYNC:    h_cnt_ok = (h_cnt == `SGPU_OP_WAIT_VSYNC_COUNT);
      `SGPU_OP_WAIT_SCANLINE: h_cnt_ok = (h_cnt == `SGPU_OP_WAIT_SCANLINE_COUNT);
      `SGPU_OP_FILL:          h_cnt_ok = (h_cnt == `SGPU_OP_FILL_COUNT);
      `SGPU_OP_COPY:          h_cnt_ok = (h_cnt == `SGPU_OP_COPY_COUNT);
      `SGPU_OP_FLIP:          begin h_flmask = `SGPU_OP_FLIP_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_FLIP_COUNT); end
      `SGPU_OP_CONTEXT:       begin h_flmask = `SGPU_OP_CONTEXT_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_CONTEXT_COUNT); end
      `SGPU_OP_TLB_INVALIDATE: h_cnt_ok = (h_cnt == `SGPU_OP_TLB_INVALIDATE_COUNT);
      `SGPU_OP_TIMESTAMP:     h_cnt_ok = (h_cnt == `SGPU_OP_TIMESTAMP_COUNT);
      default:                h_op_ok = 1'b0;
    endcase
    end
  end
  // Everything is word aligned, so 4 * (count + 1) > bytes left <=>
  // count >= words left: no adder for the packet's size.
  reg h_overrun;
  always @(*) begin
    h_overrun   = 1'bx;
    hdr_fault_o = 4'bxxxx;
    if (hdr_look_i) begin
      h_overrun = ({18'd0, h_cnt} >= {{(34-IW){1'b0}}, words_left_i});
      if (hdr_i[31:30] != `SGPU_PKT_TYPE3)  hdr_fault_o = `SGPU_FAULT_BAD_HEADER;
      else if (!h_op_ok)                    hdr_fault_o = `SGPU_FAULT_ILLEGAL_OPCODE;
      else if ((h_fl & ~h_flmask) != 8'h0)  hdr_fault_o = `SGPU_FAULT_BAD_HEADER;
      else if (!h_cnt_ok)                   hdr_fault_o = `SGPU_FAULT_BAD_COUNT;
      else if (h_overrun)                   hdr_fault_o = `SGPU_FAULT_OVERRUN;
      else                                  hdr_fault_o = `SGPU_FAULT_NONE;
    end
  end

  // ------------------------------------------------------------ payload
  wire is_fill = (op_i == `SGPU_OP_FILL);
  wire is_copy = (op_i == `SGPU_OP_COPY);
  // FILL: pitch, width, height (words 1-3); COPY: both pitches, width and
  // height (words 1, 3, 4, 5).
  assign u16_word_o = is_fill ? (pay_idx_i == 3'd1 || pay_idx_i == 3'd2 || pay_idx_i == 3'd3) :
                      is_copy ? (pay_idx_i == 3'd1 || pay_idx_i == 3'd3 || pay_idx_i == 3'd4 ||
                                 pay_idx_i == 3'd5) : 1'b0;

  // Each opcode's fields, by name.
  wire [1:0]    ib_addr_lo    = addr_i[1:0];
  wire [1:0]    ib_len_lo     = arg_lo_i;
  wire [1:0]    mem_addr_lo   = addr_i[1:0];    // FENCE, WRITE_DATA, WAIT_MEM, TIMESTAMP
  wire [2:0]    wait_func     = func_i;
  wire [IW-1:0] source        = addr_i;         // WAIT_VSYNC, WAIT_SCANLINE, FLIP
  wire [1:0]    flip_addr_lo  = arg_lo_i;
  wire [31:0]   flip_interval = arg2_i;
  wire [1:0]    ctx_base_lo   = addr_i[1:0];
  wire [1:0]    ctx_size_lo   = arg_lo_i;

  localparam [IW-1:0] SRC_LAST = SOURCES - 1;
  wire source_past, interval_past, height_gt1;
  sgpu_gt_const #(.W(IW), .C(SRC_LAST)) u_src_bad (.x_i(source), .gt_o(source_past));
  sgpu_gt_const #(.W(32), .C(`SGPU_FLIP_INTERVAL_MAX)) u_intv_bad (.x_i(flip_interval), .gt_o(interval_past));
  sgpu_gt_const #(.W(16), .C(16'd1)) u_h_gt1 (.x_i(height_i), .gt_o(height_gt1));
  wire source_bad  = addr_hi_i || source_past;
  // One compare for both pitches: the destination's at S_EXEC, COPY's
  // source pitch at S_RCHK (the executor chooses pitch_i).
  wire pitch_short = (pitch_i < width_i);
  assign empty_o   = (width_i == 16'd0 || height_i == 16'd0);

  always @(*) begin
    pkt_fault_o = `SGPU_FAULT_NONE;
    case (op_i)
      `SGPU_OP_INDIRECT:
        if (ib_full_i)                              pkt_fault_o = `SGPU_FAULT_NESTING;
        else if ((ib_addr_lo | ib_len_lo) != 2'd0)  pkt_fault_o = `SGPU_FAULT_MISALIGNED;
        else if (oor_i)                             pkt_fault_o = `SGPU_FAULT_OUT_OF_RANGE;
        else if (win_i)                             pkt_fault_o = `SGPU_FAULT_CONTEXT_WINDOW;
      `SGPU_OP_FENCE, `SGPU_OP_WRITE_DATA, `SGPU_OP_WAIT_MEM, `SGPU_OP_TIMESTAMP:
        if (op_i == `SGPU_OP_WAIT_MEM && wait_func > `SGPU_WAIT_MEM_FUNC_MAX)
                                                    pkt_fault_o = `SGPU_FAULT_BAD_PARAM;
        else if (mem_addr_lo != 2'd0)               pkt_fault_o = `SGPU_FAULT_MISALIGNED;
        else if (oor_i)                             pkt_fault_o = `SGPU_FAULT_OUT_OF_RANGE;
        else if (win_i)                             pkt_fault_o = `SGPU_FAULT_CONTEXT_WINDOW;
      `SGPU_OP_WAIT_VSYNC, `SGPU_OP_WAIT_SCANLINE:
        if (source_bad)                             pkt_fault_o = `SGPU_FAULT_BAD_PARAM;
      `SGPU_OP_FILL, `SGPU_OP_COPY:
        // then "empty" (no further checks), the rectangle's at S_RCHK
        if (u16_bad_i)                              pkt_fault_o = `SGPU_FAULT_BAD_PARAM;
        else if (height_gt1 && pitch_short)         pkt_fault_o = `SGPU_FAULT_BAD_PARAM;
      `SGPU_OP_FLIP:
        if (source_bad || interval_past)            pkt_fault_o = `SGPU_FAULT_BAD_PARAM;
        else if (flip_addr_lo != 2'd0)              pkt_fault_o = `SGPU_FAULT_MISALIGNED;
        else if (oor_i)                             pkt_fault_o = `SGPU_FAULT_OUT_OF_RANGE;
        else if (win_i)                             pkt_fault_o = `SGPU_FAULT_CONTEXT_WINDOW;
      `SGPU_OP_CONTEXT:
        if (in_ib_i)                                pkt_fault_o = `SGPU_FAULT_PRIVILEGED;
        else if (ctx_id_nz_i && (ctx_base_lo | ctx_size_lo) != 2'd0) pkt_fault_o = `SGPU_FAULT_MISALIGNED;
        else if (ctx_id_nz_i && oor_i)              pkt_fault_o = `SGPU_FAULT_OUT_OF_RANGE;
      `SGPU_OP_TLB_INVALIDATE:
        if (in_ib_i)                                pkt_fault_o = `SGPU_FAULT_PRIVILEGED;
      default:                                      pkt_fault_o = `SGPU_FAULT_UNSUPPORTED;
    endcase
  end

  always @(*) begin
    rect_fault_o = `SGPU_FAULT_NONE;
    if (is_copy && !src_phase_i && height_gt1 && pitch_short) rect_fault_o = `SGPU_FAULT_BAD_PARAM;
    else if (oor_i)                                           rect_fault_o = `SGPU_FAULT_OUT_OF_RANGE;
    else if (win_i)                                           rect_fault_o = `SGPU_FAULT_CONTEXT_WINDOW;
  end
endmodule
