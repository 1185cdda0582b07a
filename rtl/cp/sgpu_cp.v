// Command processor of one node: ring + INDIRECT fetch, packet decode and
// checks, FENCE / WRITE_DATA / TIMESTAMP writer, WAIT_*, FILL/COPY hand-off,
// FLIP, CONTEXT, faults, watchdog and perf counters.
//
// Every check of a packet happens after its payload is collected and before
// its first write, so a faulting packet never writes anything.  The checks
// and their order (which fault wins) are the interface spec's
// (docs/interface.md, "Checks and their precedence"); the library's packet
// checker reads the same table, and the differential test holds this RTL to it.  The ring has
// its own fetcher and keeps its next words prefetched while an IB runs, so
// the FENCE after an IB starts without a refetch.  Both IB levels share the
// second fetcher; returning from level 2 restarts it at level 1's position.
`include "sgpu_hw.vh"
module sgpu_cp #(
  parameter SOURCES   = 1,
  parameter MEM_BYTES = 8388608,
  parameter PERF      = 1,         // 0: no PERF_* counters (they read 0)
  parameter AW        = 32,        // meaningful GPU address bits (memory is 2^AW bytes)
  // 1: RING_BASE, RING_SIZE, RPTR_ADDR, CONTROL and WATCHDOG read 0 here;
  // the chip answers them from its register mirror (reg_kept_o), which
  // keeps them out of this read mux.
  parameter MIRROR    = 0,
  // Bits a display's scanline can have (its timing counter width); the
  // higher bits of scanline_i are 0, so WAIT_SCANLINE compares only these.
  parameter LINE_W    = 16,
  // INDIRECT levels below the ring (1..MAX_IB_DEPTH; CAPS.IB_DEPTH): with 1,
  // an INDIRECT inside a buffer faults NESTING and level 2's end and return
  // address need no registers.
  parameter IB_DEPTH  = `SGPU_MAX_IB_DEPTH
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // register port: offset inside the node block, reads are combinational
  input  wire        reg_we_i,
  input  wire [6:0]  reg_addr_i,
  input  wire [31:0] reg_wdata_i,
  output reg  [31:0] reg_rdata_o,
  // FAULT_OPCODE, FAULT_FENCE, LAST_FENCE and CONTEXT_ID live in block RAM:
  // their value comes on reg_rdata_late_o in the cycle after a read
  // (reg_re_i), and reg_rdata_o is 0 for them; reg_rdata_late_o is 0 for
  // every other register.
  input  wire        reg_re_i,
  output wire [31:0] reg_rdata_late_o,
  output wire        cfg_err_o,        // strobe: this write was rejected
  output wire        reg_kept_o,       // strobe: this write was taken and reads back as written
  output wire [5:0]  cfg_err_bits_o,   // SGPU_CFG_ERROR_* bits of the rejection
  input  wire [63:0] cycle_i,
  output wire        done_irq_o,       // strobe: FENCE with IRQ written
  output wire        fault_irq_o,      // strobe: engine faulted
  output wire        busy_o,           // STATUS.BUSY
  output wire        faulted_o,        // STATUS.FAULTED
  // ring fetch (read only)
  output wire        ring_req_valid_o,
  input  wire        ring_req_ready_i,
  output wire [31:0] ring_req_addr_o,
  input  wire        ring_rsp_valid_i,
  input  wire [31:0] ring_rsp_rdata_i,
  // indirect buffer fetch (read only)
  output wire        ib_req_valid_o,
  input  wire        ib_req_ready_i,
  output wire [31:0] ib_req_addr_o,
  input  wire        ib_rsp_valid_i,
  input  wire [31:0] ib_rsp_rdata_i,
  // writes (FENCE, WRITE_DATA, TIMESTAMP, RPTR) and WAIT_MEM polls
  output wire        wr_req_valid_o,
  input  wire        wr_req_ready_i,
  output wire        wr_req_write_o,
  output wire [31:0] wr_req_addr_o,
  output wire [31:0] wr_req_wdata_o,
  output wire [3:0]  wr_req_wstrb_o,
  input  wire        wr_rsp_valid_i,
  input  wire [31:0] wr_rsp_rdata_i,
  // 2D engine command
  output wire        blit_valid_o,
  input  wire        blit_ready_i,
  output wire        blit_copy_o,
  output wire [31:0] blit_dst_o,
  output wire [15:0] blit_dst_pitch_o,
  output wire [31:0] blit_src_o,
  output wire [15:0] blit_src_pitch_o,
  output wire [15:0] blit_width_o,
  output wire [15:0] blit_height_o,
  output wire [31:0] blit_pattern_o,
  input  wire        blit_busy_i,
  input  wire        blit_progress_i,  // the 2D engine, working for us, had a request accepted
  output wire        blit_abort_o,     // engine reset while the 2D engine may work for us
  // display: flip request (source selected by flip_src_o) and status
  output wire        flip_valid_o,
  input  wire        flip_ready_i,
  output wire        flip_src_o,
  output wire [31:0] flip_addr_o,
  output wire [2:0]  flip_interval_o,
  input  wire [SOURCES-1:0]    flip_pending_i,
  input  wire [SOURCES-1:0]    vblank_i,
  input  wire [SOURCES-1:0]    in_vblank_i,
  input  wire [SOURCES*16-1:0] scanline_i
`ifdef FORMAL
  ,
  // The writer presents TIMESTAMP's live low word (for the harness's
  // valid/ready check: its data is the count of the accepting cycle).
  output wire                  f_wdata_live_o
`endif
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // The range checker's narrow arithmetic (IW - 15 bits) needs 64 KiB of memory.
  generate if (!(MEM_BYTES >= 65536 && AW >= 16)) begin : g_bad_mem_bytes
    sgpu_precondition_failed_MEM_BYTES_at_least_64KiB_and_AW_at_least_16 u_fail ();
  end endgenerate
  // INDIRECT levels: level_q is 2 bits, CAPS.IB_DEPTH 1..MAX_IB_DEPTH.
  generate if (!(IB_DEPTH >= 1 && IB_DEPTH <= `SGPU_MAX_IB_DEPTH)) begin : g_bad_ib_depth
    sgpu_precondition_failed_IB_DEPTH_1_to_MAX_IB_DEPTH u_fail ();
  end endgenerate
  // The vblank, flip and scanline inputs are padded to MAX_SOURCES (2) sources.
  generate if (!(SOURCES >= 1 && SOURCES <= `SGPU_MAX_SOURCES)) begin : g_bad_sources
    sgpu_precondition_failed_SOURCES_1_to_MAX_SOURCES u_fail ();
  end endgenerate

  // Internal address width: AW, or fewer bits if the memory is smaller.
  localparam MAW = $clog2(MEM_BYTES);
  localparam IW  = (AW < MAW) ? AW : MAW;
  localparam [31:0] MEM32   = MEM_BYTES;
  localparam [32:0] MEM_END = (IW < MAW) ? (33'd1 << IW) : (33'd0 + MEM32);
  localparam [3:0]  POLL_GAP = 4'd15;
  localparam [31:0] AW32  = IW;
  localparam [4:0]  AW_LG = AW32[4:0];

  // ------------------------------------------------------------ states
  localparam [4:0] S_HDR    = 5'd0,   // wait for / decode a header
                   S_PAY    = 5'd1,   // collect (or skip, NOP) payload words
                   S_EXEC   = 5'd2,   // check the packet, dispatch
                   S_WD     = 5'd3,   // WRITE_DATA words
                   S_WR     = 5'd4,   // one write (FENCE, TIMESTAMP lo/hi)
                   S_WB     = 5'd5,   // RPTR write-back
                   S_POLL   = 5'd6,   // WAIT_MEM read
                   S_PRSP   = 5'd7,   // WAIT_MEM response
                   S_PGAP   = 5'd8,   // WAIT_MEM gap between polls
                   S_VSYNC  = 5'd9,
                   S_SCAN   = 5'd10,
                   S_MUL    = 5'd11,  // FILL/COPY: pitch * (height-1)
                   S_RCHK   = 5'd12,  // FILL/COPY: rectangle range check
                   S_BLIT   = 5'd13,
                   S_BLITW1 = 5'd14,
                   S_BLITW  = 5'd15,
                   S_FLIP   = 5'd16,
                   S_FLIPW1 = 5'd17,
                   S_FLIPW  = 5'd18,
                   S_FAULT  = 5'd19,
                   S_RSTW1  = 5'd20,  // engine reset: abort our blit, then
                   S_RSTW   = 5'd21,  // wait for the 2D engine to drain
                   S_CHK    = 5'd22,  // range checks of the collected packet (registered)
                   S_PCMP   = 5'd23;  // WAIT_MEM: act on the registered compare

  // ------------------------------------------------------------ registers
  reg [IW-1:0] ring_base_q;
  reg [4:0]    ring_lg_q;       // log2 of RING_SIZE
  reg [IW-1:0] wptr_q, rptr_q, rcur_q;
  reg [IW-1:2] rptr_addr_q;   // bits at or above IW are rejected at write
  reg          rptr_wb_q;
  reg          enable_q;
  reg [23:0]   watchdog_q;          // WATCHDOG: 24 bits, larger values are rejected
                                    // (read here only without the mirror)
  wire [23:0]  wd_cnt;              // WATCHDOG - cycles without progress, restarted on
                                    // progress (sgpu_dsp_counter_held: a DSP block on the iCE40)
  reg [3:0]    fault_reason_q;
  reg [31:0]   perf_busy_q, perf_stall_q, perf_words_q, perf_packets_q;
  // The context window: ctx_null_q marks the null context (whole memory,
  // id 0), so an engine reset only sets that flag; the stored id and window
  // are then not looked at.
  // (the window's base and end are held in the compare blocks, u_win_*)
  reg          ctx_null_q;

  reg [4:0]    state_q;
  reg [1:0]    level_q;
  reg [IW-1:0] ibcur_q, ibend1_q, ibend2_q, ib1_save_q;
  reg [15:0]   hdr_q;          // opcode and flags (the whole word is in the shadow)
  reg [IW-1:0] hdr_addr_q;
  reg          pkt_ring_q;
  reg [13:0]   left_q;
  reg [2:0]    pi_q;
  // Payload words in their real widths: p0 is an address or a source
  // (p0_hi_q: bits at or above IW set), p3/p4/p5 are 16-bit FILL/COPY fields;
  // p1/p2 may be data.  hi_bad_q: a FILL/COPY 16-bit field had high bits
  // set.  Of CONTEXT's id (word 0) only "not 0" is kept (ctx_nz_q; the id
  // itself is in the shadow RAM), its window base (word 1) in p0 and its
  // size (word 2) in p1, where the range checker expects them.
  reg [IW-1:0] p0_q;
  reg          p0_hi_q, hi_bad_q;
  reg [31:0]   p1_q, p2_q;
  reg [15:0]   p4_q;
  reg          ctx_nz_q;        // CONTEXT: word 0 (the id) is not 0
  reg [15:0]   p3_q, p5_q;
  reg          ph_q;            // FILL/COPY: 0 destination, 1 source rectangle
  reg          tshi_q;          // TIMESTAMP: high word next
  reg [3:0]    gap_q;
  reg          poll_pend_q;
  reg          blit_own_q;      // the 2D engine accepted our command and may still work

  wire [7:0]  op   = hdr_q[7:0];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [7:0]  fl   = hdr_q[15:8];     // checked against the opcode's flag mask at decode
  /* verilator lint_on UNUSEDSIGNAL */
  wire        in_ib = (level_q != 2'd0);
  wire        in_ib2 = (IB_DEPTH > 1) && (level_q == 2'd2);
  localparam [1:0] IB_LEVELS = IB_DEPTH;

  // Thermometer mask and one-hot size: no adder.  (A shift of a constant:
  // each bit is a function of ring_lg_q alone for synthesis, and one shift
  // for the simulator, where a loop of 32 compares ran every cycle.)
  wire [31:0] ring_mask32 = ~(32'hFFFF_FFFF << ring_lg_q);
  wire [31:0] ring_size = {ring_mask32[30:0], 1'b1} & ~ring_mask32;
  wire [IW-1:0] ring_mask = ring_mask32[IW-1:0];
  wire [IW-1:0] ibend = in_ib2 ? ibend2_q : ibend1_q;

  // ------------------------------------------------------------ fetchers
  reg           ring_start, ib_start, ib_flush;
  reg  [IW-1:0] ib_start_off;
  wire          ring_valid, ib_valid, ring_word, ib_word;
  wire [31:0]   ring_data, ib_data;
  wire          st_pop;

  wire rst_wait = (state_q == S_RSTW1) || (state_q == S_RSTW);
  sgpu_fetch #(.AW(IW), .DEPTH(4), .START_ACTIVE(1), .BYPASS(0)) u_ring (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .start_i(ring_start), .start_off_i({IW{1'b0}}), .flush_i(1'b0),
    .en_i(enable_q && state_q != S_FAULT && !rst_wait),
    .base_i(ring_base_q), .mask_i(ring_mask), .end_i(wptr_q),
    .out_valid_o(ring_valid), .out_ready_i(st_pop && !in_ib), .out_data_o(ring_data),
    .mem_req_valid_o(ring_req_valid_o), .mem_req_ready_i(ring_req_ready_i),
    .mem_req_addr_o(ring_req_addr_o),
    .mem_rsp_valid_i(ring_rsp_valid_i), .mem_rsp_rdata_i(ring_rsp_rdata_i),
    .word_o(ring_word)
  );

  sgpu_fetch #(.AW(IW), .DEPTH(4), .START_ACTIVE(0), .BYPASS(0)) u_ib (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .start_i(ib_start), .start_off_i(ib_start_off), .flush_i(ib_flush),
    .en_i(state_q != S_FAULT),
    .base_i({IW{1'b0}}), .mask_i({IW{1'b1}}), .end_i(ibend),
    .out_valid_o(ib_valid), .out_ready_i(st_pop && in_ib), .out_data_o(ib_data),
    .mem_req_valid_o(ib_req_valid_o), .mem_req_ready_i(ib_req_ready_i),
    .mem_req_addr_o(ib_req_addr_o),
    .mem_rsp_valid_i(ib_rsp_valid_i), .mem_rsp_rdata_i(ib_rsp_rdata_i),
    .word_o(ib_word)
  );

  wire        st_valid = in_ib ? ib_valid : ring_valid;
  wire [31:0] st_data  = in_ib ? ib_data : ring_data;

  // ------------------------------------------------------------ header decode
  // Work to do at the header: more words in this buffer, or an IB to leave.
  wire ib_end     = in_ib && (ibcur_q == ibend);
  wire have_words = in_ib ? !ib_end : (enable_q && rcur_q != wptr_q);
  // A header waits to be taken.  The decode below is computed only then and
  // is a don't-care ('x) otherwise: the simulator skips it on every other
  // cycle (it ran on all of them, idle or not), and synthesis may ignore the
  // condition.
  wire hdr_look   = (state_q == S_HDR) && have_words && st_valid;
  wire [31:0] h      = st_data;
  wire [7:0]  h_op   = h[7:0];
  wire [7:0]  h_fl   = h[15:8];
  wire [13:0] h_cnt  = h[29:16];
  reg  [7:0]  h_flmask;
  reg         h_op_ok, h_cnt_ok;
  // Compares with a constant, in LUTs rather than carry chains (sgpu_gt_const).
  localparam [13:0] WD_MIN1 = `SGPU_OP_WRITE_DATA_MIN_COUNT - 14'd1;
  wire        h_cnt_wd;       // WRITE_DATA's count is large enough
  sgpu_gt_const #(.W(14), .C(WD_MIN1)) u_wd_cnt_ok (.x_i(h_cnt), .gt_o(h_cnt_wd));
  always @(*) begin
    h_op_ok  = 1'bx;
    h_flmask = 8'hxx;
    h_cnt_ok = 1'bx;
    if (hdr_look) begin
    h_op_ok  = 1'b1;
    h_flmask = 8'h00;
    h_cnt_ok = 1'b0;
    case (h_op)
      `SGPU_OP_NOP:           h_cnt_ok = 1'b1;
      `SGPU_OP_INDIRECT:      begin h_flmask = `SGPU_OP_INDIRECT_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_INDIRECT_COUNT); end
      `SGPU_OP_FENCE:         begin h_flmask = `SGPU_OP_FENCE_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_FENCE_COUNT); end
      `SGPU_OP_WRITE_DATA:    h_cnt_ok = h_cnt_wd;
      `SGPU_OP_WAIT_MEM:      begin h_flmask = `SGPU_OP_WAIT_MEM_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_WAIT_MEM_COUNT); end
      `SGPU_OP_WAIT_VSYNC:    h_cnt_ok = (h_cnt == `SGPU_OP_WAIT_VSYNC_COUNT);
      `SGPU_OP_WAIT_SCANLINE: h_cnt_ok = (h_cnt == `SGPU_OP_WAIT_SCANLINE_COUNT);
      `SGPU_OP_FILL:          h_cnt_ok = (h_cnt == `SGPU_OP_FILL_COUNT);
      `SGPU_OP_COPY:          h_cnt_ok = (h_cnt == `SGPU_OP_COPY_COUNT);
      `SGPU_OP_FLIP:          begin h_flmask = `SGPU_OP_FLIP_FLAG_MASK; h_cnt_ok = (h_cnt == `SGPU_OP_FLIP_COUNT); end
      `SGPU_OP_CONTEXT:       h_cnt_ok = (h_cnt == `SGPU_OP_CONTEXT_COUNT);
      `SGPU_OP_TIMESTAMP:     h_cnt_ok = (h_cnt == `SGPU_OP_TIMESTAMP_COUNT);
      default:                h_op_ok = 1'b0;
    endcase
    end
  end
  // Words left in the current buffer from the header on (ring: up to WPTR).
  // One subtractor: the operands are chosen first.  Everything is word
  // aligned, so 4 * (count + 1) > bytes left <=> count >= words left: no
  // adder for the packet's size.
  wire [IW-1:0] cur_addr   = in_ib ? ibcur_q : (ring_base_q | rcur_q);
  reg  [IW-1:2] avail_w;
  reg           h_overrun;
  reg  [3:0]    h_fault;
  always @(*) begin
    avail_w   = {(IW-2){1'bx}};
    h_overrun = 1'bx;
    h_fault   = 4'bxxxx;
    if (hdr_look) begin
      avail_w   = ((in_ib ? ibend[IW-1:2] : wptr_q[IW-1:2]) - (in_ib ? ibcur_q[IW-1:2] : rcur_q[IW-1:2])) &
                  (in_ib ? {(IW-2){1'b1}} : ring_mask[IW-1:2]);
      h_overrun = ({18'd0, h_cnt} >= {{(34-IW){1'b0}}, avail_w});
      if (h[31:30] != `SGPU_PKT_TYPE3)     h_fault = `SGPU_FAULT_BAD_HEADER;
      else if (!h_op_ok)                   h_fault = `SGPU_FAULT_ILLEGAL_OPCODE;
      else if ((h_fl & ~h_flmask) != 8'h0) h_fault = `SGPU_FAULT_BAD_HEADER;
      else if (!h_cnt_ok)                  h_fault = `SGPU_FAULT_BAD_COUNT;
      else if (h_overrun)                  h_fault = `SGPU_FAULT_OVERRUN;
      else                                 h_fault = `SGPU_FAULT_NONE;
    end
  end
  // FILL/COPY payload words that must fit in 16 bits (pitch, width, height).
  wire hi_pos = (op == `SGPU_OP_FILL) ? (pi_q == 3'd1 || pi_q == 3'd2 || pi_q == 3'd3) :
                (op == `SGPU_OP_COPY) ? (pi_q == 3'd1 || pi_q == 3'd3 || pi_q == 3'd4 || pi_q == 3'd5) : 1'b0;

  // ------------------------------------------------------------ multiplier
  reg         mul_start;
  wire        mul_busy;
  wire [IW:0] mul_p;              // IW+1 product bits; mul_ovf: more needed
  wire        mul_ovf;
  wire        is_copy = (op == `SGPU_OP_COPY);
  wire        is_fill = (op == `SGPU_OP_FILL);
  // FILL's width, height and pattern are stored where COPY keeps its width,
  // height and source (p4, p5, p2), so neither needs a mux.
  wire [15:0] r_width  = p4_q;
  wire [15:0] r_height = p5_q;
  // The source rectangle's multiply starts from S_RCHK.
  wire [15:0] r_pitch  = (state_q == S_RCHK) ? p3_q : p1_q[15:0];
  // One compare for both pitches: the destination's in S_EXEC, COPY's
  // source pitch in S_RCHK before its range verdict (the same fault first).
  wire        pitch_short = (r_pitch < r_width);
  sgpu_mul16 #(.PW(IW+1)) u_mul (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(mul_start), .a_i(r_pitch), .b_i(r_height - 16'd1),
    .busy_o(mul_busy), .p_o(mul_p), .ovf_o(mul_ovf)
  );

  // ------------------------------------------------------------ range check
  // One shared checker: [lo, lo+len) inside memory, and inside the context
  // window when the packet comes from an IB.  Its verdicts are registered
  // (chk_oor_q, chk_win_q): computed in S_CHK for the packet's own range
  // and in S_MUL for a FILL/COPY rectangle (the product is ready there),
  // used one cycle later in S_EXEC and S_RCHK, so the adder and compares
  // are off the path from the packet registers to the state machine.
  // Narrow arithmetic (IW+2 bits): any operand bit at or above the memory
  // size already means out of range.  Needs MEM_BYTES >= 64 KiB (checked above).
  reg  [IW-1:0] chk_lo;
  reg         chk_lo_hi;       // chk_lo has bits at or above IW set
  reg  [IW:0] chk_len;
  reg         chk_big;
  wire [IW:0] rect_len = {1'b0, mul_p[IW-1:0]} + {{(IW-15){1'b0}}, r_width};
  // Used only in these states (the verdicts in the next one); a don't-care
  // otherwise, which the simulator then skips.
  wire chk_look = (state_q == S_CHK) || (state_q == S_MUL) || (state_q == S_EXEC);
  always @(*) begin
    chk_lo  = {IW{1'bx}};
    chk_lo_hi = 1'bx;
    chk_len = {(IW+1){1'bx}};
    chk_big = 1'bx;
    if (!chk_look) ;
    else if (state_q == S_MUL) begin
      chk_lo  = ph_q ? p2_q[IW-1:0] : p0_q;
      chk_lo_hi = ph_q ? (p2_q[31:IW] != 0) : p0_hi_q;
      chk_len = rect_len;
      chk_big = mul_ovf || mul_p[IW];
    end else begin
      chk_lo  = p0_q;
      chk_lo_hi = p0_hi_q;
      chk_len = 4;
      chk_big = 1'b0;
      case (op)
        `SGPU_OP_INDIRECT, `SGPU_OP_CONTEXT: begin chk_len = p1_q[IW:0]; chk_big = (p1_q[31:IW+1] != 0); end
        `SGPU_OP_FLIP:       begin chk_lo = p1_q[IW-1:0]; chk_lo_hi = (p1_q[31:IW] != 0); end
        `SGPU_OP_WRITE_DATA: chk_len = {{(IW-15){1'b0}}, left_q, 2'b00};   // count - 1 words
        `SGPU_OP_TIMESTAMP:  chk_len = 8;
        default: ;
      endcase
    end
  end
  wire [IW+1:0] chk_hi  = {2'b00, chk_lo} + {1'b0, chk_len};
  wire          chk_past_end;
  sgpu_gt_const #(.W(IW+2), .C(MEM_END[IW+1:0])) u_past_end (.x_i(chk_hi), .gt_o(chk_past_end));
  wire          chk_oor = chk_lo_hi || chk_big || chk_past_end;
  // Only meaningful when !chk_oor, so IW+1 bits hold both ends.
  // The null context's window is all of memory: nothing beyond chk_oor.
  // The window's two compares run in DSP blocks on the iCE40, which also
  // hold the window's base and end (sgpu_dsp_ge_held: u_win_lo, u_win_hi,
  // below the state machine), not in logic cells.
  wire          lo_ge_base, wend_ge_hi;
  wire          chk_win = in_ib && !ctx_null_q && (!lo_ge_base || !wend_ge_hi);
  reg           chk_oor_q, chk_win_q;

  // ------------------------------------------------------------ WAIT_MEM compare
  // One adder, cs = npv + ref with npv = ~pv:
  //   pv < ref   <=> carry out of cs
  //   pv == ref  <=> cs is all ones (ref - pv - 1 = -1)
  // and pv - ref = ~cs, so its sign bit is ~cs[31].  The adder is a DSP
  // block on the iCE40 (sgpu_dsp_add).
  wire [31:0] npv = ~(wr_rsp_rdata_i & p1_q);
  wire        cs_co;
  wire [31:0] cs;
  sgpu_dsp_add #(.W(32)) u_poll_lt (
    .a_i(npv), .b_i(p2_q), .ci_i(1'b0), .sub_i(1'b0), .s_o(cs), .co_o(cs_co));
  wire        p_lt = cs_co;
  wire        p_eq = &cs;
  wire        p_gt = !p_lt && !p_eq;
  // The verdict is registered in the response's cycle (poll_ok_q) and acted
  // on in S_PCMP: memory read data never reaches the state machine directly.
  reg         poll_ok, poll_ok_q;
  always @(*) begin
    case (fl[2:0])
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

  // ------------------------------------------------------------ display status
  reg [1:0]  vbl_pad, invbl_pad, pend_pad;
  reg [31:0] scan_pad;
  always @(*) begin
    vbl_pad   = 2'b00; vbl_pad[SOURCES-1:0]   = vblank_i;
    invbl_pad = 2'b00; invbl_pad[SOURCES-1:0] = in_vblank_i;
    pend_pad  = 2'b00; pend_pad[SOURCES-1:0]  = flip_pending_i;
    scan_pad  = 32'd0; scan_pad[SOURCES*16-1:0] = scanline_i;
  end
  wire        src     = p0_q[0];
  localparam [IW-1:0] SRC_LAST = SOURCES - 1;
  wire        p0_past_src, p2_past_intv, r_height_gt1;
  sgpu_gt_const #(.W(IW), .C(SRC_LAST)) u_src_bad (.x_i(p0_q), .gt_o(p0_past_src));
  sgpu_gt_const #(.W(32), .C(`SGPU_FLIP_INTERVAL_MAX)) u_intv_bad (.x_i(p2_q), .gt_o(p2_past_intv));
  sgpu_gt_const #(.W(16), .C(16'd1)) u_h_gt1 (.x_i(r_height), .gt_o(r_height_gt1));
  wire        src_bad = p0_hi_q || p0_past_src;
  wire        ctx_nz  = ctx_nz_q;   // CONTEXT: not the null context
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15:0] scan    = src ? scan_pad[31:16] : scan_pad[15:0];   // bits >= LINE_W are 0
  /* verilator lint_on UNUSEDSIGNAL */
  // scan < 2^LINE_W: a first line at or above that is never reached, a
  // last line at or above it is never passed.
  wire [15:0] s_first = p1_q[15:0], s_last = p1_q[31:16];
  wire        first_hi = (LINE_W < 16) && (s_first >> LINE_W) != 16'd0;
  wire        last_hi  = (LINE_W < 16) && (s_last >> LINE_W) != 16'd0;
  wire        in_scan = !first_hi && (scan[LINE_W-1:0] >= s_first[LINE_W-1:0]) &&
                        (last_hi || scan[LINE_W-1:0] <= s_last[LINE_W-1:0]) && !invbl_pad[src];

  // ------------------------------------------------------------ register writes
  reg        cfg_err;
  reg [5:0]  cfg_bits;
  reg        w_base, w_size, w_wptr, w_rptra, w_ctrl, w_wd, do_reset;
  wire [31:0] wd = reg_wdata_i;
  // A power of two from 64 to 1 MiB: exactly one of bits [20:6] set (and
  // no other bit): "any" and "two or more" chains, no subtractor.  wd_lg is
  // the log2 of the highest set bit (only stored when there is one bit).
  reg         wd_any, wd_two;
  reg  [4:0]  wd_lg;
  integer k;
  always @(*) begin
    wd_any = 1'b0; wd_two = 1'b0; wd_lg = 5'd0;
    for (k = 6; k <= 20; k = k + 1) begin
      wd_two = wd_two | (wd_any & wd[k]);
      wd_any = wd_any | wd[k];
      if (wd[k]) wd_lg = k[4:0];
    end
  end
  wire        wd_pow2 = (wd[31:21] == 11'd0) && (wd[5:0] == 6'd0) && wd_any && !wd_two;
  wire        wd_big  = (wd[31:IW] != 0);   // at or past the end of memory

  localparam CE_SIZE = `SGPU_CFG_ERROR_RING_SIZE,     CE_ALIGN = `SGPU_CFG_ERROR_MISALIGNED,
             CE_PTR  = `SGPU_CFG_ERROR_POINTER_RANGE, CE_BITS  = `SGPU_CFG_ERROR_UNKNOWN_BITS,
             CE_VAL  = `SGPU_CFG_ERROR_VALUE_RANGE,   CE_EN    = `SGPU_CFG_ERROR_WHILE_ENABLED;

  // Ring base, size and RPTR_ADDR change only on a disabled, idle node: a
  // packet still running (after ENABLE was cleared) keeps its ring words,
  // RPTR write-back address and data (valid/ready).
  wire cfg_locked;
  always @(*) begin
    cfg_bits = 6'd0;
    w_base = 1'b0; w_size = 1'b0; w_wptr = 1'b0; w_rptra = 1'b0; w_ctrl = 1'b0; w_wd = 1'b0;
    do_reset = 1'b0;
    if (reg_we_i) begin
      case (reg_addr_i)
        `SGPU_NREG_RING_BASE:
          if (cfg_locked)                       cfg_bits[CE_EN] = 1'b1;
          else if (wd[5:0] != 6'd0)             cfg_bits[CE_ALIGN] = 1'b1;
          else if (wd_big)                      cfg_bits[CE_VAL] = 1'b1;
          else                                  w_base = 1'b1;
        `SGPU_NREG_RING_SIZE:
          if (cfg_locked)                       cfg_bits[CE_EN] = 1'b1;
          else if (!wd_pow2)                    cfg_bits[CE_SIZE] = 1'b1;
          else                                  w_size = 1'b1;
        `SGPU_NREG_RING_WPTR:
          if (wd[1:0] != 2'd0)                  cfg_bits[CE_ALIGN] = 1'b1;
          else if ((wd & ~ring_mask32) != 0)    cfg_bits[CE_PTR] = 1'b1;
          else                                  w_wptr = 1'b1;
        `SGPU_NREG_RPTR_ADDR:
          if (cfg_locked)                       cfg_bits[CE_EN] = 1'b1;
          else if (wd[1])                       cfg_bits[CE_BITS] = 1'b1;
          else if (wd_big)                      cfg_bits[CE_VAL] = 1'b1;
          else                                  w_rptra = 1'b1;
        `SGPU_NREG_CONTROL:
          if (wd[31:2] != 30'd0)                cfg_bits[CE_BITS] = 1'b1;
          else if (wd[`SGPU_CONTROL_RESET])     do_reset = 1'b1;
          else if (wd[`SGPU_CONTROL_ENABLE] && !enable_q &&
                   ((ring_base_q & ring_mask) != {IW{1'b0}})) cfg_bits[CE_ALIGN] = 1'b1;
          // base is aligned to the size and inside memory: it fits if the size does
          else if (wd[`SGPU_CONTROL_ENABLE] && !enable_q && ring_lg_q > AW_LG)
                                                cfg_bits[CE_VAL] = 1'b1;
          else                                  w_ctrl = 1'b1;
        `SGPU_NREG_WATCHDOG:
          if (wd[31:24] != 8'd0)                cfg_bits[CE_VAL] = 1'b1;
          else                                  w_wd = 1'b1;
        default:                                cfg_bits[CE_BITS] = 1'b1;  // read-only or unmapped
      endcase
    end
    cfg_err = (cfg_bits != 6'd0);
  end
  assign cfg_err_o      = cfg_err;
  // Each of these stores the written word as is (the checks above reject
  // every word that would read back differently).
  assign reg_kept_o     = w_base | w_size | w_rptra | w_ctrl | w_wd;
  assign cfg_err_bits_o = cfg_bits;

  // ------------------------------------------------------------ main FSM
  reg [4:0]   state_d;
  reg [3:0]   fault_d;          // != NONE: fault this cycle
  reg         fault_at_hdr;     // header-time fault: address/opcode from the stream
  reg         pkt_done;         // packet finished (go to RPTR write-back or next header)
  reg         pop;
  // The write port's valid never depends on its ready (no combinational loop
  // through the arbiter); only the watchdog or a reset can cut it short.
  // Watchdog counts cycles without progress up to WATCHDOG; cleared on
  // progress or when idle.
  wire blit_acc = blit_valid_o && blit_ready_i;
  // The counter restarts from WATCHDOG (held in the counter's own load
  // register: a DSP block's input register on the iCE40, no flip-flops) and
  // counts down to 0, WATCHDOG cycles later: a NOR, not a 24-bit equality
  // with a register.  A WATCHDOG write restarts it in the next cycle (wd_new_q,
  // when the load register holds the new value); until then it cannot fire.
  wire wd_hit   = ~|wd_cnt;
  reg  wd_on_q, wd_new_q;          // WATCHDOG != 0; WATCHDOG written last cycle
  wire wd_fire  = (state_q != S_FAULT) && !rst_wait && wd_on_q && !wd_new_q && wd_hit;
  wire wr_write = (state_q != S_POLL);
  wire wr_valid = !wd_fire && !do_reset &&
                  ((state_q == S_WD && st_valid) || state_q == S_WR || state_q == S_WB ||
                   (state_q == S_POLL && !poll_pend_q));
  reg         done_irq;

  assign st_pop = pop;

  always @(*) begin
    state_d      = state_q;
    fault_d      = `SGPU_FAULT_NONE;
    fault_at_hdr = 1'b0;
    pkt_done     = 1'b0;
    pop          = 1'b0;
    done_irq     = 1'b0;
    mul_start    = 1'b0;
    ib_start     = 1'b0;
    ib_start_off = ib1_save_q;
    case (state_q)
      S_HDR: begin
        if (ib_end) begin
          // Leave the IB; back in level 1 the fetcher restarts where it was.
          if (in_ib2) ib_start = 1'b1;
        end else if (have_words && st_valid) begin
          if (h_fault != `SGPU_FAULT_NONE) begin
            fault_d = h_fault; fault_at_hdr = 1'b1;
          end else begin
            pop = 1'b1;
            state_d = (h_cnt == 14'd0) ? S_HDR : S_PAY;
            if (h_cnt == 14'd0) pkt_done = 1'b1;
          end
        end
      end
      S_PAY: if (st_valid) begin
        pop = 1'b1;
        if (left_q == 14'd1 || (op == `SGPU_OP_WRITE_DATA)) begin
          if (op == `SGPU_OP_NOP) pkt_done = 1'b1;
          else state_d = S_CHK;
        end
      end
      S_CHK: state_d = S_EXEC;
      S_EXEC: begin
        case (op)
          `SGPU_OP_INDIRECT:
            if (level_q == IB_LEVELS)             fault_d = `SGPU_FAULT_NESTING;
            else if ((p0_q[1:0] | p1_q[1:0]) != 2'd0) fault_d = `SGPU_FAULT_MISALIGNED;
            else if (chk_oor_q)                     fault_d = `SGPU_FAULT_OUT_OF_RANGE;
            else if (chk_win_q)                     fault_d = `SGPU_FAULT_CONTEXT_WINDOW;
            // Entering a level-2 buffer restarts the IB fetcher: first let
            // a level-1 prefetch read that is waiting be accepted, so the
            // port never withdraws a request (its word is dropped).
            else if (!fl[`SGPU_INDIRECT_FLAG_SKIP] && p1_q != 32'd0 && ib_req_valid_o && !ib_req_ready_i) ;
            else begin
              pkt_done = 1'b1;
              if (!fl[`SGPU_INDIRECT_FLAG_SKIP] && p1_q != 32'd0) begin
                ib_start = 1'b1; ib_start_off = {p0_q[IW-1:2], 2'b00};  // checked aligned
              end
            end
          `SGPU_OP_FENCE, `SGPU_OP_WRITE_DATA, `SGPU_OP_WAIT_MEM, `SGPU_OP_TIMESTAMP:
            if (op == `SGPU_OP_WAIT_MEM && fl[2:0] > `SGPU_WAIT_MEM_FUNC_MAX) fault_d = `SGPU_FAULT_BAD_PARAM;
            else if (p0_q[1:0] != 2'd0)           fault_d = `SGPU_FAULT_MISALIGNED;
            else if (chk_oor_q)                     fault_d = `SGPU_FAULT_OUT_OF_RANGE;
            else if (chk_win_q)                     fault_d = `SGPU_FAULT_CONTEXT_WINDOW;
            else state_d = (op == `SGPU_OP_WRITE_DATA) ? S_WD :
                           (op == `SGPU_OP_WAIT_MEM) ? S_POLL : S_WR;
          `SGPU_OP_WAIT_VSYNC, `SGPU_OP_WAIT_SCANLINE:
            if (src_bad)                          fault_d = `SGPU_FAULT_BAD_PARAM;
            else state_d = (op == `SGPU_OP_WAIT_VSYNC) ? S_VSYNC : S_SCAN;
          `SGPU_OP_FILL, `SGPU_OP_COPY:
            if (hi_bad_q)                         fault_d = `SGPU_FAULT_BAD_PARAM;
            else if (r_height_gt1 && pitch_short) fault_d = `SGPU_FAULT_BAD_PARAM;
            else if (r_width == 16'd0 || r_height == 16'd0) pkt_done = 1'b1;
            else begin mul_start = 1'b1; state_d = S_MUL; end
          `SGPU_OP_FLIP:
            if (src_bad || p2_past_intv)          fault_d = `SGPU_FAULT_BAD_PARAM;
            else if (p1_q[1:0] != 2'd0)           fault_d = `SGPU_FAULT_MISALIGNED;
            else if (chk_oor_q)                     fault_d = `SGPU_FAULT_OUT_OF_RANGE;
            else if (chk_win_q)                     fault_d = `SGPU_FAULT_CONTEXT_WINDOW;
            else state_d = S_FLIP;
          `SGPU_OP_CONTEXT:
            if (in_ib)                            fault_d = `SGPU_FAULT_PRIVILEGED;
            else if (ctx_nz && (p0_q[1:0] | p1_q[1:0]) != 2'd0) fault_d = `SGPU_FAULT_MISALIGNED;
            else if (ctx_nz && chk_oor_q)    fault_d = `SGPU_FAULT_OUT_OF_RANGE;
            else if (!blit_busy_i)                pkt_done = 1'b1;   // drained
          default:                                fault_d = `SGPU_FAULT_UNSUPPORTED;
        endcase
      end
      S_WD: if (st_valid) begin
        if (wr_req_ready_i) begin
          pop = 1'b1;
          if (left_q == 14'd1) pkt_done = 1'b1;
        end
      end
      S_WR: begin
        if (wr_req_ready_i) begin
          if (op == `SGPU_OP_TIMESTAMP && !tshi_q) state_d = S_WR;
          else begin
            pkt_done = 1'b1;
            done_irq = (op == `SGPU_OP_FENCE) && fl[`SGPU_FENCE_FLAG_IRQ];
          end
        end
      end
      S_WB: if (wr_req_ready_i) state_d = S_HDR;
      S_POLL: if (!poll_pend_q && wr_req_ready_i) state_d = S_PRSP;
      S_PRSP: if (wr_rsp_valid_i) state_d = S_PCMP;
      S_PCMP: if (poll_ok_q) pkt_done = 1'b1;
              else state_d = S_PGAP;
      S_PGAP: if (gap_q == 4'd0) state_d = S_POLL;
      S_VSYNC: if (vbl_pad[src]) pkt_done = 1'b1;
      S_SCAN: if (!in_scan) pkt_done = 1'b1;
      S_MUL: if (!mul_busy) state_d = S_RCHK;
      S_RCHK:
        if (is_copy && !ph_q && r_height_gt1 && pitch_short) fault_d = `SGPU_FAULT_BAD_PARAM;
        else if (chk_oor_q) fault_d = `SGPU_FAULT_OUT_OF_RANGE;
        else if (chk_win_q) fault_d = `SGPU_FAULT_CONTEXT_WINDOW;
        else if (is_copy && !ph_q) begin mul_start = 1'b1; state_d = S_MUL; end
        else state_d = S_BLIT;
      S_BLIT: if (blit_ready_i) state_d = S_BLITW1;
      S_BLITW1: state_d = S_BLITW;
      S_BLITW: if (!blit_busy_i) pkt_done = 1'b1;
      S_FLIP: if (flip_ready_i) begin
        if (fl[`SGPU_FLIP_FLAG_NO_WAIT]) pkt_done = 1'b1;
        else state_d = S_FLIPW1;
      end
      S_FLIPW1: state_d = S_FLIPW;
      S_FLIPW: if (!pend_pad[src]) pkt_done = 1'b1;
      S_RSTW1: state_d = S_RSTW;
      S_RSTW: if (!blit_busy_i) state_d = S_HDR;
      default: ;  // S_FAULT: stay until CONTROL.RESET
    endcase
    // A finished ring packet writes RPTR back (zero-payload packets finish in S_HDR).
    if (pkt_done) state_d = ((state_q == S_HDR ? !in_ib : pkt_ring_q) && rptr_wb_q) ? S_WB : S_HDR;
    // Watchdog: no progress for WATCHDOG cycles while busy.
    if (fault_d == `SGPU_FAULT_NONE && wd_fire) fault_d = `SGPU_FAULT_TIMEOUT;
    if (fault_d != `SGPU_FAULT_NONE) begin
      state_d = S_FAULT; pop = 1'b0; pkt_done = 1'b0; done_irq = 1'b0;
      mul_start = 1'b0; ib_start = 1'b0;
    end
    if (do_reset) begin
      // The 2D engine may still work for us: abort it and wait until it drains.
      state_d = (blit_own_q || blit_acc) ? S_RSTW1 : S_HDR; pop = 1'b0; pkt_done = 1'b0; done_irq = 1'b0;
      ib_start = 1'b0;
    end
  end

  // Progress is registered: the watchdog clears one cycle after it (it may
  // count one cycle more), which keeps the state machine's decision off the
  // counter's enable path.
  wire progress = pkt_done | pop | ring_word | ib_word | blit_progress_i;
  reg  progress_q;
  wire ring_pkt_done  = pkt_done && (state_q == S_HDR ? !in_ib : pkt_ring_q);

  always @(*) begin
    ring_start = w_base | w_size | do_reset;
    ib_flush   = do_reset | (fault_d != `SGPU_FAULT_NONE);
  end

  // Busy: a packet in progress or work queued.
  wire busy = (state_q != S_HDR && state_q != S_FAULT) || in_ib ||
              (state_q == S_HDR && enable_q && rcur_q != wptr_q);
  assign cfg_locked = enable_q || busy;
  wire wd_clear = !busy || progress_q || state_q == S_FAULT || w_wd || wd_new_q || do_reset;
  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_dsp_counter_held #(.W(24)) u_wd_cnt (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(!wd_hit), .ld_i(wd_clear), .dld_i(w_wd), .d_i(wd[23:0]),
    .q_o(wd_cnt), .co_o());
  /* verilator lint_on PINCONNECTEMPTY */
  wire waiting = (state_q == S_PRSP) || (state_q == S_PCMP) || (state_q == S_POLL) || (state_q == S_PGAP) ||
                 (state_q == S_VSYNC) || (state_q == S_SCAN) || (state_q == S_FLIPW) ||
                 (state_q == S_FLIPW1);
  wire stall = ((state_q == S_HDR && have_words) || state_q == S_PAY || state_q == S_WD) && !st_valid ||
               (wr_req_valid_o && !wr_req_ready_i);

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ring_base_q <= {IW{1'b0}};
      ring_lg_q   <= 5'd6;
      wptr_q <= {IW{1'b0}}; rptr_q <= {IW{1'b0}}; rcur_q <= {IW{1'b0}};
      rptr_addr_q <= {(IW-2){1'b0}}; rptr_wb_q <= 1'b0;
      enable_q <= 1'b0;
      watchdog_q <= 24'd0; wd_on_q <= 1'b0; wd_new_q <= 1'b0;
      fault_reason_q <= `SGPU_FAULT_NONE;
      perf_busy_q <= 32'd0; perf_stall_q <= 32'd0; perf_words_q <= 32'd0; perf_packets_q <= 32'd0;
      ctx_null_q <= 1'b1;
      state_q <= S_HDR; level_q <= 2'd0;
      ibcur_q <= {IW{1'b0}}; ibend1_q <= {IW{1'b0}}; ibend2_q <= {IW{1'b0}}; ib1_save_q <= {IW{1'b0}};
      hdr_q <= 16'd0; hdr_addr_q <= {IW{1'b0}}; pkt_ring_q <= 1'b0;
      left_q <= 14'd0; pi_q <= 3'd0;
      p0_q <= {IW{1'b0}}; p1_q <= 32'd0; p2_q <= 32'd0; p3_q <= 16'd0; p4_q <= 16'd0; p5_q <= 16'd0; ctx_nz_q <= 1'b0;
      p0_hi_q <= 1'b0; hi_bad_q <= 1'b0;
      ph_q <= 1'b0; tshi_q <= 1'b0; gap_q <= 4'd0; poll_pend_q <= 1'b0;
      blit_own_q <= 1'b0;
      progress_q <= 1'b0; chk_oor_q <= 1'b0; chk_win_q <= 1'b0; poll_ok_q <= 1'b0;
    end else begin
      if (blit_acc) blit_own_q <= 1'b1;
      else if ((state_q == S_BLITW || state_q == S_RSTW) && !blit_busy_i) blit_own_q <= 1'b0;
      state_q <= state_d;

      // registers
      if (w_base) ring_base_q <= wd[IW-1:0];
      if (w_size) ring_lg_q <= wd_lg;
      if (w_base || w_size) begin wptr_q <= {IW{1'b0}}; rptr_q <= {IW{1'b0}}; rcur_q <= {IW{1'b0}}; end
      if (w_wptr) wptr_q <= wd[IW-1:0];
      if (w_rptra) begin rptr_addr_q <= wd[IW-1:2]; rptr_wb_q <= wd[0]; end
      if (w_ctrl) enable_q <= wd[`SGPU_CONTROL_ENABLE];
      if (w_wd) begin watchdog_q <= wd[23:0]; wd_on_q <= (wd[23:0] != 24'd0); end
      wd_new_q <= w_wd;

      // perf
      if (PERF != 0 && busy) perf_busy_q <= perf_busy_q + 32'd1;
      if (PERF != 0 && stall) perf_stall_q <= perf_stall_q + 32'd1;
      if (PERF != 0 && (ring_word | ib_word)) perf_words_q <= perf_words_q + {30'd0, ring_word & ib_word, ring_word ^ ib_word};
      if (PERF != 0 && pkt_done) perf_packets_q <= perf_packets_q + 32'd1;

      // watchdog
      progress_q <= progress;
      chk_oor_q <= chk_oor;
      chk_win_q <= chk_win;

      // stream consumption
      if (pop) begin
        if (in_ib) ibcur_q <= ibcur_q + 4;
        else rcur_q <= (rcur_q + 4) & ring_mask;
        if (state_q == S_PAY) begin
          left_q <= left_q - 14'd1;
          pi_q <= pi_q + 3'd1;
          case (pi_q)
            3'd0: begin
              p0_q <= st_data[IW-1:0]; p0_hi_q <= (st_data[31:IW] != 0);
              p4_q <= st_data[15:0]; ctx_nz_q <= (st_data != 32'd0);
            end
            3'd1: begin
              p1_q <= st_data;
              if (op == `SGPU_OP_CONTEXT) begin
                p0_q <= st_data[IW-1:0]; p0_hi_q <= (st_data[31:IW] != 0);
              end
            end
            3'd2: if (is_fill) p4_q <= st_data[15:0];
                  else if (op == `SGPU_OP_CONTEXT) p1_q <= st_data;
                  else p2_q <= st_data;
            3'd3: if (is_fill) p5_q <= st_data[15:0]; else p3_q <= st_data[15:0];
            3'd4: if (is_fill) p2_q <= st_data; else p4_q <= st_data[15:0];
            3'd5: p5_q <= st_data[15:0];
            default: ;
          endcase
          if (hi_pos && st_data[31:16] != 16'd0) hi_bad_q <= 1'b1;
        end
      end
      // The header registers also hold a header-time fault's packet: a
      // stopped engine keeps them, so they double as FAULT_ADDR/OPCODE.
      if (state_q == S_HDR && (pop || fault_at_hdr)) begin
        hdr_q <= h[15:0]; hdr_addr_q <= cur_addr; pkt_ring_q <= !in_ib;
        left_q <= h_cnt; pi_q <= 3'd0; hi_bad_q <= 1'b0;
      end
      if (state_q == S_HDR && ib_end) begin
        level_q <= (IB_DEPTH > 1) ? level_q - 2'd1 : 2'd0;
        if (in_ib2) ibcur_q <= ib1_save_q;
      end


      // execution side effects
      if (state_q == S_EXEC && state_d != S_FAULT) begin
        case (op)
          `SGPU_OP_INDIRECT: begin
            if (ib_start) begin
              level_q <= (IB_DEPTH > 1) ? level_q + 2'd1 : 2'd1;
              ibcur_q <= p0_q[IW-1:0];
              // end = p0 + p1 from the range checker (it passed: no carry out)
              if (in_ib) begin ibend2_q <= chk_hi[IW-1:0]; ib1_save_q <= ibcur_q; end
              else ibend1_q <= chk_hi[IW-1:0];
            end
          end
          `SGPU_OP_TIMESTAMP: tshi_q <= 1'b0;
          `SGPU_OP_CONTEXT: if (pkt_done) begin
            ctx_null_q <= !ctx_nz;
          end
          default: ;
        endcase
        ph_q <= 1'b0;
      end
      if (state_q == S_WD && wr_valid && wr_req_ready_i) begin
        p0_q[IW-1:0] <= p0_q[IW-1:0] + 4; left_q <= left_q - 14'd1;
      end
      if (state_q == S_WR && wr_req_ready_i) begin
        // TIMESTAMP: the low word goes out live from cycle_i and counts in
        // the cycle it is accepted; the high word of that same cycle is
        // kept for the second write (no 32 flops to hold a sample: the
        // iCE40 build has no room for them).
        if (op == `SGPU_OP_TIMESTAMP) begin p0_q[IW-1:0] <= p0_q[IW-1:0] + 4; p1_q <= cycle_i[63:32]; tshi_q <= 1'b1; end
      end
      if (state_q == S_RCHK && state_d == S_MUL) ph_q <= 1'b1;
      // The packet's last word may be popped in the cycle it completes.
      if (ring_pkt_done) rptr_q <= pop ? ((rcur_q + 4) & ring_mask) : rcur_q;

      // WAIT_MEM
      if (state_q == S_POLL && wr_valid && wr_req_ready_i) poll_pend_q <= 1'b1;
      else if (wr_rsp_valid_i) poll_pend_q <= 1'b0;
      poll_ok_q <= poll_ok;
      if (state_q == S_PCMP) gap_q <= POLL_GAP;
      else if (gap_q != 4'd0) gap_q <= gap_q - 4'd1;

      // faults
      if (fault_d != `SGPU_FAULT_NONE) begin
        fault_reason_q <= fault_d;
      end

      // engine reset: stop, drop all state, pointers to 0, null context
      if (do_reset) begin
        level_q <= 2'd0;
        wptr_q <= {IW{1'b0}}; rptr_q <= {IW{1'b0}}; rcur_q <= {IW{1'b0}};
        fault_reason_q <= `SGPU_FAULT_NONE;
        ctx_null_q <= 1'b1;
      end

      // Alignment every writer above guarantees (checked at the register
      // write or the packet's checks): the constant low bits need no flops.
      ring_base_q[5:0] <= 6'd0;
      wptr_q[1:0] <= 2'd0; rptr_q[1:0] <= 2'd0; rcur_q[1:0] <= 2'd0;
      ibcur_q[1:0] <= 2'd0; ibend1_q[1:0] <= 2'd0; ibend2_q[1:0] <= 2'd0; ib1_save_q[1:0] <= 2'd0;
      hdr_addr_q[1:0] <= 2'd0;
    end
  end

  // ------------------------------------------------------------ outputs
  assign wr_req_valid_o = wr_valid;
  assign wr_req_write_o = wr_write;
  assign wr_req_addr_o  = {{(32-IW){1'b0}}, (state_q == S_WB) ? {rptr_addr_q, 2'b00} : p0_q};
  assign wr_req_wdata_o = (state_q == S_WD) ? st_data :
                          (state_q == S_WB) ? {{(32-IW){1'b0}}, rptr_q} :
                          (op == `SGPU_OP_TIMESTAMP && !tshi_q) ? cycle_i[31:0] : p1_q;
  assign wr_req_wstrb_o = 4'hF;
`ifdef FORMAL
  assign f_wdata_live_o = (state_q == S_WR) && (op == `SGPU_OP_TIMESTAMP) && !tshi_q;
`endif

  assign blit_valid_o     = (state_q == S_BLIT);
  assign blit_copy_o      = is_copy;
  assign blit_dst_o       = {{(32-IW){1'b0}}, p0_q};
  assign blit_dst_pitch_o = p1_q[15:0];
  assign blit_src_o       = p2_q;
  assign blit_src_pitch_o = p3_q;
  assign blit_width_o     = r_width;
  assign blit_height_o    = r_height;
  assign blit_pattern_o   = p2_q;   // FILL's pattern (see r_width)

  assign blit_abort_o     = rst_wait;

  assign flip_valid_o    = (state_q == S_FLIP);
  assign flip_src_o      = src;
  assign flip_addr_o     = p1_q;
  assign flip_interval_o = p2_q[2:0];

  assign done_irq_o  = done_irq;
  assign fault_irq_o = (state_q != S_FAULT) && (state_d == S_FAULT);
  assign busy_o      = busy;
  assign faulted_o   = (state_q == S_FAULT);

  // ------------------------------------------------------------ shadow registers
  // Values the command processor only writes and the host only reads sit in
  // a small block RAM instead of flip-flops and the read mux: the header of
  // the last packet taken (FAULT_OPCODE), the fence id in flight
  // (FAULT_FENCE, a ring INDIRECT's), the last FENCE value written
  // (LAST_FENCE) and the context's id, window base and size (CONTEXT_ID,
  // WINDOW_BASE, WINDOW_SIZE: CONTEXT's three words, which read back as
  // written once the packet's checks passed).  Every one is written
  // straight from the stream word as it is taken, so the RAM needs no data
  // mux.  LAST_FENCE and the context change only when their packet
  // completes: each has two slots, the word goes to the spare one, and
  // completion flips which slot is current (lf_cur_q, cx_cur_q).  FAULT_FENCE is the
  // INDIRECT's last payload word, taken right before its checks, where the
  // id counts as in flight.  Slots not written since reset read 0.  A read
  // never shows a slot written in the same cycle (LAST_FENCE and the context
  // read the current slot, written ones are the spare; the opcode and fence
  // slots show only while faulted, when nothing is taken): no_rw_check spares
  // yosys's read-during-write bypass (32 flip-flops and a 32-bit mux).
  localparam [3:0] SH_OPCODE = 4'd0, SH_FFENCE = 4'd1, SH_LF0 = 4'd2, SH_CX0 = 4'd4,
                   SH_WB0 = 4'd6, SH_WS0 = 4'd8;
  (* ram_style = "block", no_rw_check *) reg [31:0] sh_mem [0:15];
  reg  [31:0] sh_rdata_q;
  reg         op_ok_q, ff_ok_q, lf_ok_q;   // written since reset
  reg         lf_cur_q, cx_cur_q;
  reg         sh_sel_q;                    // the last cycle's read showed a slot
  reg         sh_we;
  reg  [3:0]  sh_wa;
  always @(*) begin
    sh_we = 1'b0; sh_wa = SH_OPCODE;
    if (state_q == S_HDR && (pop || fault_at_hdr)) sh_we = 1'b1;
    if (state_q == S_PAY && pop) begin
      if (op == `SGPU_OP_INDIRECT && pi_q == 3'd2 && !in_ib) begin sh_we = 1'b1; sh_wa = SH_FFENCE; end
      if (op == `SGPU_OP_FENCE && pi_q == 3'd1) begin sh_we = 1'b1; sh_wa = SH_LF0 | {3'b000, !lf_cur_q}; end
      if (op == `SGPU_OP_CONTEXT) begin
        sh_we = (pi_q <= 3'd2);
        sh_wa = ((pi_q == 3'd0) ? SH_CX0 : (pi_q == 3'd1) ? SH_WB0 : SH_WS0) | {3'b000, !cx_cur_q};
      end
    end
  end
  // A CONTEXT loads its window into the compares in S_EXEC: its base (word
  // 1, in p0) and its end (base + size, from the checker).  The window is
  // used only once the packet completes (ctx_null_q): one that faults
  // instead stops the engine, and the reset that restarts it selects the
  // null context.  So no need to wait for completion here.
  wire          win_ld = (state_q == S_EXEC) && (op == `SGPU_OP_CONTEXT);
  wire          cx_commit = win_ld && pkt_done;
  sgpu_dsp_ge_held #(.W(IW+1), .HOLD_B(1)) u_win_lo (
    .clk_i(clk_i), .ld_i(win_ld), .a_i({1'b0, chk_lo}), .b_i({1'b0, p0_q}), .ge_o(lo_ge_base));
  sgpu_dsp_ge_held #(.W(IW+1), .HOLD_B(0)) u_win_hi (
    .clk_i(clk_i), .ld_i(win_ld), .a_i(chk_hi[IW:0]), .b_i(chk_hi[IW:0]), .ge_o(wend_ge_hi));
  wire lf_commit = (state_q == S_WR) && wr_req_ready_i && wr_valid && (op == `SGPU_OP_FENCE);
  // the slot a read asks for, and whether it shows it now
  reg  [3:0]  sh_ra;
  reg         sh_rd;
  always @(*) begin
    sh_ra = SH_OPCODE; sh_rd = 1'b0;
    case (reg_addr_i)
      `SGPU_NREG_FAULT_OPCODE: begin sh_ra = SH_OPCODE; sh_rd = (state_q == S_FAULT) && op_ok_q; end
      `SGPU_NREG_FAULT_FENCE:  begin sh_ra = SH_FFENCE; sh_rd = (state_q == S_FAULT) && ff_ok_q; end
      `SGPU_NREG_LAST_FENCE:   begin sh_ra = SH_LF0 | {3'b000, lf_cur_q}; sh_rd = lf_ok_q; end
      `SGPU_NREG_CONTEXT_ID:   begin sh_ra = SH_CX0 | {3'b000, cx_cur_q}; sh_rd = !ctx_null_q; end
      `SGPU_NREG_WINDOW_BASE:  begin sh_ra = SH_WB0 | {3'b000, cx_cur_q}; sh_rd = !ctx_null_q; end
      `SGPU_NREG_WINDOW_SIZE:  begin sh_ra = SH_WS0 | {3'b000, cx_cur_q}; sh_rd = !ctx_null_q; end
      default: ;
    endcase
  end
  always @(posedge clk_i) begin
    if (sh_we) sh_mem[sh_wa] <= st_data;
    sh_rdata_q <= sh_mem[sh_ra];
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      op_ok_q <= 1'b0; ff_ok_q <= 1'b0; lf_ok_q <= 1'b0;
      lf_cur_q <= 1'b0; cx_cur_q <= 1'b0; sh_sel_q <= 1'b0;
    end else begin
      if (sh_we && sh_wa == SH_OPCODE) op_ok_q <= 1'b1;
      if (sh_we && sh_wa == SH_FFENCE) ff_ok_q <= 1'b1;
      if (lf_commit) begin lf_cur_q <= !lf_cur_q; lf_ok_q <= 1'b1; end
      if (cx_commit) cx_cur_q <= !cx_cur_q;
      sh_sel_q <= reg_re_i && sh_rd;
    end
  end
  assign reg_rdata_late_o = {32{sh_sel_q}} & sh_rdata_q;

  // ------------------------------------------------------------ register reads
  wire [31:0] status = ({31'd0, busy} << `SGPU_STATUS_BUSY_LSB) |
                       ({31'd0, state_q == S_FAULT} << `SGPU_STATUS_FAULTED_LSB) |
                       ({31'd0, waiting} << `SGPU_STATUS_WAITING_LSB) |
                       ({31'd0, enable_q} << `SGPU_STATUS_ENABLED_LSB) |
                       ({30'd0, level_q} << `SGPU_STATUS_IB_DEPTH_LSB);
  wire        faulted = (state_q == S_FAULT);
  // One AND-OR read mux: each register's select is decoded once (the FAULT_*
  // ones only while faulted) and narrow registers add no terms to high bits.
  wire [4:0] ra = reg_addr_i[6:2];
  function sel(input [4:0] a, input [6:0] off);
    sel = (a == off[6:2]) && (off[1:0] == 2'b00);
  endfunction
  wire [31:0] base32  = {{(32-IW){1'b0}}, ring_base_q};
  wire [31:0] wptr32  = {{(32-IW){1'b0}}, wptr_q};
  wire [31:0] rptr32  = {{(32-IW){1'b0}}, rptr_q};
  wire [31:0] haddr32 = {{(32-IW){1'b0}}, hdr_addr_q};
  wire [31:0] memend32 = {{(31-IW){1'b0}}, MEM_END[IW:0]};
  wire [31:0] rpa32   = {{(32-IW){1'b0}}, rptr_addr_q, 1'b0, rptr_wb_q};
  wire here = (MIRROR == 0);   // the registers the mirror answers otherwise
  // sgpu_top takes it only in a read's cycle (reg_re_i); a don't-care
  // otherwise, which the simulator then skips.
  always @(*) begin
    reg_rdata_o = 32'hxxxx_xxxx;
    if (reg_re_i) reg_rdata_o =
      ({32{here && sel(ra, `SGPU_NREG_RING_BASE)}} & base32) |
      ({32{here && sel(ra, `SGPU_NREG_RING_SIZE)}} & ring_size) |
      ({32{sel(ra, `SGPU_NREG_RING_WPTR)}}    & wptr32) |
      ({32{sel(ra, `SGPU_NREG_RING_RPTR)}}    & rptr32) |
      ({32{here && sel(ra, `SGPU_NREG_RPTR_ADDR)}} & rpa32) |
      ({32{here && sel(ra, `SGPU_NREG_CONTROL)}}   & {31'd0, enable_q}) |
      ({32{sel(ra, `SGPU_NREG_STATUS)}}       & status) |
      ({32{sel(ra, `SGPU_NREG_FAULT_REASON)}} & {28'd0, fault_reason_q}) |
      ({32{(sel(ra, `SGPU_NREG_FAULT_ADDR) && faulted) || sel(ra, `SGPU_NREG_CUR_ADDR)}} & haddr32) |
      ({32{here && sel(ra, `SGPU_NREG_WATCHDOG)}}  & {8'd0, watchdog_q}) |
      ({32{sel(ra, `SGPU_NREG_PERF_BUSY)}}    & perf_busy_q) |
      ({32{sel(ra, `SGPU_NREG_PERF_STALL)}}   & perf_stall_q) |
      ({32{sel(ra, `SGPU_NREG_PERF_WORDS)}}   & perf_words_q) |
      ({32{sel(ra, `SGPU_NREG_PERF_PACKETS)}} & perf_packets_q) |
      ({32{sel(ra, `SGPU_NREG_WINDOW_SIZE) && ctx_null_q}}  & memend32);
  end
endmodule
