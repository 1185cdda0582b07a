// WAIT unit of the command processor (part of sgpu_cp): WAIT_MEM's compare
// of a polled word with its reference, the poll bookkeeping (a read in
// flight, the gap between polls), and the display conditions WAIT_VSYNC,
// WAIT_SCANLINE and FLIP wait for.
`include "sgpu_hw.vh"
module sgpu_cp_wait #(
  parameter SOURCES = 1,
  // Bits a display's scanline can have; the higher bits of scanline_i are 0.
  parameter LINE_W  = 16
) (
  input  wire                  clk_i,
  input  wire                  rst_ni,
  // ---- WAIT_MEM
  input  wire [2:0]            func_i,       // compare function (WAIT_FUNC_*)
  input  wire [31:0]           mask_i,
  input  wire [31:0]           ref_i,
  input  wire                  poll_sent_i,  // the poll read was accepted
  input  wire                  rsp_valid_i,  // the writer port's response ...
  input  wire [31:0]           rsp_rdata_i,  // ... and its data
  input  wire                  cmp_i,        // the executor acts on poll_ok_o (S_PCMP): the gap restarts
  output wire                  poll_pend_o,  // a poll read is in flight
  output wire                  poll_ok_o,    // the last response met the condition (registered)
  output wire                  gap_done_o,   // the gap between polls is over
  // ---- display conditions
  input  wire                  src_i,        // the packet's display source
  input  wire [31:0]           lines_i,      // WAIT_SCANLINE: first line [15:0], last line [31:16]
  input  wire [SOURCES-1:0]    vblank_i,
  input  wire [SOURCES-1:0]    in_vblank_i,
  input  wire [SOURCES-1:0]    flip_pending_i,
  input  wire [SOURCES*16-1:0] scanline_i,
  output wire                  vblank_o,     // the source's vblank strobe (WAIT_VSYNC ends)
  output wire                  in_scan_o,    // the source's beam is in [first, last] (WAIT_SCANLINE waits)
  output wire                  flip_pending_o // the source's flip is still pending (FLIP waits)
);
  localparam [3:0] POLL_GAP = 4'd15;

  // ------------------------------------------------------------ WAIT_MEM compare
  // One adder, cs = npv + ref with npv = ~pv (pv = word & mask):
  //   pv < ref   <=> carry out of cs
  //   pv == ref  <=> cs is all ones (ref - pv - 1 = -1)
  // and pv - ref = ~cs, so its sign bit is ~cs[31].  The adder is a DSP
  // block on the iCE40 (sgpu_dsp_add).
  wire [31:0] npv = ~(rsp_rdata_i & mask_i);
  wire        cs_co;
  wire [31:0] cs;
  sgpu_dsp_add #(.W(32)) u_poll_lt (
    .a_i(npv), .b_i(ref_i), .ci_i(1'b0), .sub_i(1'b0), .s_o(cs), .co_o(cs_co));
  wire        p_lt = cs_co;
  wire        p_eq = &cs;
  wire        p_gt = !p_lt && !p_eq;
  // The verdict is registered in the response's cycle (poll_ok_q) and acted
  // on in S_PCMP: memory read data never reaches the state machine directly.
  reg         poll_ok;
  always @(*) begin
    case (func_i)
      `SGPU_WAIT_FUNC_EQ:       poll_ok = p_eq;
      `SGPU_WAIT_FUNC_NE:       poll_ok = !p_eq;
      `SGPU_WAIT_FUNC_LT:       poll_ok = p_lt;
      `SGPU_WAIT_FUNC_LE:       poll_ok = p_lt || p_eq;
      `SGPU_WAIT_FUNC_GT:       poll_ok = p_gt;
      `SGPU_WAIT_FUNC_GE:       poll_ok = !p_lt;
      `SGPU_WAIT_FUNC_GEQ_WRAP: poll_ok = cs[31];
      default:                  poll_ok = 1'b0;
    endcase
  end

  reg       poll_pend_q, poll_ok_q;
  reg [3:0] gap_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      poll_pend_q <= 1'b0; poll_ok_q <= 1'b0; gap_q <= 4'd0;
    end else begin
      if (poll_sent_i) poll_pend_q <= 1'b1;
      else if (rsp_valid_i) poll_pend_q <= 1'b0;
      poll_ok_q <= poll_ok;
      if (cmp_i) gap_q <= POLL_GAP;
      else if (gap_q != 4'd0) gap_q <= gap_q - 4'd1;
    end
  end
  assign poll_pend_o = poll_pend_q;
  assign poll_ok_o   = poll_ok_q;
  assign gap_done_o  = (gap_q == 4'd0);

  // ------------------------------------------------------------ display status
  reg [1:0]  vbl_pad, invbl_pad, pend_pad;
  reg [31:0] scan_pad;
  always @(*) begin
    vbl_pad   = 2'b00; vbl_pad[SOURCES-1:0]   = vblank_i;
    invbl_pad = 2'b00; invbl_pad[SOURCES-1:0] = in_vblank_i;
    pend_pad  = 2'b00; pend_pad[SOURCES-1:0]  = flip_pending_i;
    scan_pad  = 32'd0; scan_pad[SOURCES*16-1:0] = scanline_i;
  end
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15:0] scan    = src_i ? scan_pad[31:16] : scan_pad[15:0];   // bits >= LINE_W are 0
  /* verilator lint_on UNUSEDSIGNAL */
  // scan < 2^LINE_W: a first line at or above that is never reached, a
  // last line at or above it is never passed.
  wire [15:0] s_first = lines_i[15:0], s_last = lines_i[31:16];
  wire        first_hi = (LINE_W < 16) && (s_first >> LINE_W) != 16'd0;
  wire        last_hi  = (LINE_W < 16) && (s_last >> LINE_W) != 16'd0;
  assign in_scan_o = !first_hi && (scan[LINE_W-1:0] >= s_first[LINE_W-1:0]) &&
                     (last_hi || scan[LINE_W-1:0] <= s_last[LINE_W-1:0]) && !invbl_pad[src_i];
  assign vblank_o       = vbl_pad[src_i];
  assign flip_pending_o = pend_pad[src_i];

`ifdef FORMAL
  // One poll at a time: the executor issues a poll read only while none is
  // in flight (the writer's valid is gated by poll_pend_o).
  always @(*) if (rst_ni && poll_sent_i) assert(!poll_pend_q);
`endif
endmodule
