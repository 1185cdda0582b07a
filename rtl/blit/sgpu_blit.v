// sgpu_blit — the 2D engine: byte-granular FILL and overlap-safe COPY.
//
// A sequencer walks the rectangle row by row and cuts each row into chunks
// of at most 2^BUF_AW destination words; an executor runs one chunk at a
// time.  FILL chunks are plain strobed writes of the pattern (the pattern is
// address-aligned, so it is written as is).  COPY chunks first read every
// source word the chunk needs, aligning them to the destination on the way
// into a block-RAM buffer, then write the chunk out of that buffer.  The next
// chunk is computed combinationally from the sequencer state and loaded in
// the cycle the last write of the current one is accepted, so the port sees
// no bubbles between chunks or rows.
//
// Overlap: all reads of a chunk happen before its writes, so a chunk is a
// copy through a temporary.  Between chunks, let delta = dst_row - src_row of
// a row.  Rows with delta < 0 are processed top-down with their chunks
// left-to-right, rows with delta >= 0 bottom-up with chunks right-to-left:
// then every write lands at or above the source bytes just read, or below
// them, so never on a source byte still to be read.  delta is linear in the
// row number, so the rows split into at most one run of each kind; the
// sequencer processes an ascending run, walks (no memory traffic) to the top
// of the following delta >= 0 run, processes it descending, walks back past
// it and carries on.  With pitch >= width the two runs never feed each
// other, which makes the order safe for any pitches.
//
// Stop (preemption): with stop_i the engine ends its command early after
// the next chunk it loads, where what is left is at most two rectangles
// that new commands of the same kind, run one after the other, would run in
// the same order: in a top-down run (FILL always runs top-down) the rest of
// the row, then the rows below; in a bottom-up run that reaches the last
// row, the rest of the row (its left part), then the run's rows above.
// cut_o then says so: the part of a row left (cut_part_o: row cut_prow_o,
// bytes [cut_lo_o, cut_hi_o) of it), then the whole rows left (cut_first_o,
// cut_count_o, maybe 0); rows count from the command's top row.  A
// bottom-up run that ends above the last row is not cut (its rest would be
// three rectangles).
//
// Pause (priority): with pause_i the engine loads no new chunk; the chunk in
// flight finishes and everything else stays as it is, so when pause_i drops
// the command continues exactly where it paused.  A stop_i while paused is
// taken at the next chunk it loads, once pause_i drops.
`include "sgpu_hw.vh"

module sgpu_blit #(
  parameter integer BUF_AW = 6,    // chunk buffer of 2^BUF_AW words; 1..14
  parameter integer ADDR_W = 32,   // address bits kept (memory size); 17..32
  // 1: the sender keeps cmd_copy/dst_pitch/src_pitch/width stable from the
  // accepting cycle until busy_o falls (a single command processor does:
  // it waits for the engine with the packet in its registers), so the
  // engine reads them there instead of keeping 49 flip-flops of copies.
  parameter integer CMD_HELD = 0
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        abort_i,      // drop the command: no new request, drain reads, go idle
  input  wire        stop_i,       // end the command at the next row boundary that leaves one rectangle
  input  wire        pause_i,      // load no new chunk (the one in flight finishes)
  output wire        chunk_o,      // a chunk is in flight: memory traffic until it is done
  output wire        cut_o,        // the last command ended early (stop_i); valid while idle
  output wire [15:0] cut_first_o,  // its first row not done, counted from the top row
  output wire [15:0] cut_count_o,  // rows not done
  output wire        cut_part_o,   // before them, part of a row is left: ...
  output wire [15:0] cut_prow_o,   // ... this row, ...
  output wire [15:0] cut_lo_o,     // ... its bytes from this offset ...
  output wire [15:0] cut_hi_o,     // ... to this one
  input  wire        cmd_valid_i,
  output wire        cmd_ready_o,
  input  wire        cmd_copy_i,
  input  wire [31:0] cmd_dst_i,
  input  wire [15:0] cmd_dst_pitch_i,
  input  wire [31:0] cmd_src_i,
  input  wire [15:0] cmd_src_pitch_i,
  input  wire [15:0] cmd_width_i,
  input  wire [15:0] cmd_height_i,
  input  wire [31:0] cmd_pattern_i,
  output wire        busy_o,
  output wire        mem_req_valid_o,
  input  wire        mem_req_ready_i,
  output wire        mem_req_write_o,
  output wire [31:0] mem_req_addr_o,
  output wire [31:0] mem_req_wdata_o,
  output wire [3:0]  mem_req_wstrb_o,
  input  wire        mem_rsp_valid_i,
  input  wire [31:0] mem_rsp_rdata_i
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // BUF_AW: a row's 15-bit word offset splits into a chunk number (15 - BUF_AW bits) and a word in the chunk.
  generate if (!(BUF_AW >= 1 && BUF_AW <= 14)) begin : g_bad_buf_aw
    sgpu_precondition_failed_BUF_AW_1_to_14 u_fail ();
  end endgenerate
  // ADDR_W: word addresses (ADDR_W - 2 bits) hold a row's 15-bit word offset; ports are 32 bits.
  generate if (!(ADDR_W >= 17 && ADDR_W <= 32)) begin : g_bad_addr_w
    sgpu_precondition_failed_ADDR_W_17_to_32 u_fail ();
  end endgenerate

  localparam integer CW = 15;          // word offsets in a row: (3 + 65534) / 4 < 2^15
  localparam integer NW = BUF_AW + 1;  // counts 0..2^BUF_AW
  localparam integer CH = CW - BUF_AW; // chunk number in a row
  localparam integer WA = ADDR_W - 2;  // word address bits


  localparam [2:0] S_IDLE = 3'd0;
  localparam [2:0] S_UP   = 3'd1;  // rows top-down, chunks left-to-right
  localparam [2:0] S_WALK = 3'd2;  // find the top of a delta >= 0 run
  localparam [2:0] S_DOWN = 3'd3;  // rows bottom-up, chunks right-to-left
  localparam [2:0] S_RET  = 3'd4;  // walk back above the run just done

  // ---------------------------------------------------------------- command
  reg        copy_r;
  reg [15:0] dpitch_r, spitch_r, width_r;
  wire        is_copy  = (CMD_HELD != 0) ? cmd_copy_i      : copy_r;
  wire [15:0] dpitch   = (CMD_HELD != 0) ? cmd_dst_pitch_i : dpitch_r;
  wire [15:0] spitch   = (CMD_HELD != 0) ? cmd_src_pitch_i : spitch_r;
  wire [15:0] width    = (CMD_HELD != 0) ? cmd_width_i     : width_r;

  // ---------------------------------------------------------------- sequencer
  reg  [2:0]    st_q, st_d;
  reg  [ADDR_W-1:0] dst_row_q, src_row_q;  // byte addresses of the current row
  // Rows are numbered from ~height (row r of the rectangle is ~height + r), so
  // the last row is always ROW_LAST and needs no height - 1 register.
  localparam [15:0] ROW_LAST = 16'hFFFE;
  reg  [15:0]   row_q, base_q, top_q, top_d;
  reg  [15:0]   height_q;               // the command's height (cut_first_o counts from its top row)
  reg           cut_q, cut_d;           // ended early by stop_i
  reg  [15:0]   cut_first_q, cut_first_d, cut_count_q, cut_count_d;
  reg           cut_part_q, cut_part_d;
  reg  [15:0]   cut_prow_q, cut_prow_d, cut_lo_q, cut_lo_d, cut_hi_q, cut_hi_d;
  reg  [CH-1:0] cofs_q, cofs_d;         // chunk number (word offset / 2^BUF_AW) of the next chunk
  reg           newrow_q, newrow_d;     // cofs_q not yet set for this row
  reg           step_up, step_dn;

  // Executor (declared here: the sequencer loads it).
  reg              ex_act_q;
  wire             ex_done;
  wire             load;

  // Abort: from the first cycle of abort_i the engine presents no request
  // except one it already presented and must hold until accepted, waits for
  // the responses of the reads in flight, then goes idle.
  reg              abort_q;
  wire             kill = abort_i | abort_q;
  wire             drained;

  // Walker: one row up or down per cycle; {a,1} + {b,cin} adds a carry-in.
  wire [ADDR_W-1:0] dp_op = {{(ADDR_W-16){step_dn}}, dpitch ^ {16{step_dn}}};
  wire [ADDR_W-1:0] sp_op = {{(ADDR_W-16){step_dn}}, spitch ^ {16{step_dn}}};
  wire [ADDR_W:0]   dst_step = {dst_row_q, 1'b1} + {dp_op, step_dn};
  wire [ADDR_W:0]   src_step = {src_row_q, 1'b1} + {sp_op, step_dn};
  wire [15:0] row_step = row_q + {{15{step_dn}}, 1'b1};  // one adder: +1 or -1

  wire unused_carry = ^{dst_step[0], src_step[0]};

  wire [ADDR_W:0] delta = {1'b0, dst_row_q} - {1'b0, src_row_q};
  wire dge = ~delta[ADDR_W];             // delta >= 0
  wire at_last_row = (row_q == ROW_LAST);

  wire          desc = (st_q == S_DOWN);
  wire seq_vld = ((st_q == S_UP) & (~is_copy | ~dge)) | desc;
  assign load = seq_vld & (~ex_act_q | ex_done) & ~kill & ~pause_i;

  // Geometry of the current row and the next chunk's descriptor.  They are
  // used only in a cycle that loads a chunk (load) and are a don't-care
  // ('x) in every other: the simulator computes them in those cycles alone
  // (it did in every cycle, idle too), and synthesis may ignore the gate.
  reg  [1:0]        d_off, s_off, d_offm1, ed, shift;
  reg  [16:0]       end_off;     // offset of the last byte from the first word
  reg  [CW-1:0]     nm1;         // destination words in the row, minus 1
  reg  [CH-1:0]     cofs_e, cofs_step;
  reg               c_first, c_last, row_end, sh_nz, bor, c_sf, c_sl, c_dec;
  reg  [2:0]        ed_sh;
  reg  [BUF_AW-1:0] c_ndm1;
  reg  [NW-1:0]     c_nrd;
  reg  [WA-1:0]     c_wa, c_ra;
  reg  [CW-1:0]     c_rofs;
  reg  [3:0]        c_strbf, c_strbl;
  always @(*) begin
    {d_off, s_off, d_offm1, ed, shift} = 10'bx;
    {end_off, nm1, cofs_e, cofs_step} = {(17 + CW + 2 * CH){1'bx}};
    {c_first, c_last, row_end, sh_nz, bor, c_sf, c_sl, c_dec, ed_sh} = 11'bx;
    {c_ndm1, c_nrd, c_wa, c_ra, c_rofs, c_strbf, c_strbl} = {(BUF_AW + NW + 2 * WA + CW + 8){1'bx}};
    if (load) begin
      d_off   = dst_row_q[1:0];
      s_off   = src_row_q[1:0];
      d_offm1 = d_off - 2'd1;                              // d_off - 1, sign bit (d_off == 0) below
      end_off = {1'b0, width} + {{15{d_off == 2'd0}}, d_offm1};
      nm1     = end_off[16:2];
      ed      = end_off[1:0];                              // lane of the last byte
      cofs_e  = newrow_q ? (desc ? nm1[CW-1:BUF_AW] : {CH{1'b0}}) : cofs_q;
      c_first = (cofs_e == {CH{1'b0}});
      c_last  = (cofs_e == nm1[CW-1:BUF_AW]);
      row_end = desc ? c_first : c_last;                   // last chunk of the row in our order
      // Next chunk: one chunk stride on, rightward in S_UP, leftward in S_DOWN (one adder).
      cofs_step = cofs_e + {{(CH-1){desc}}, 1'b1};
      // Chunk descriptor.  Source word V_j feeds destination word j through a
      // byte shift; the virtual words at either end are skipped when none of
      // their bytes is inside the rectangle.
      shift   = s_off - d_off;
      sh_nz   = (shift != 2'd0);
      bor     = (s_off < d_off);                           // first source word is V_1
      ed_sh   = {1'b0, ed} + {1'b0, shift};
      c_sf    = c_first & bor;
      c_sl    = c_last & sh_nz & ~ed_sh[2];
      c_ndm1  = c_last ? nm1[BUF_AW-1:0] : {BUF_AW{1'b1}};
      c_nrd   = {1'b0, c_ndm1} + {{(NW-1){1'b0}}, 1'b1} + {{(NW-1){1'b0}}, sh_nz}
                - {{(NW-1){1'b0}}, c_sf} - {{(NW-1){1'b0}}, c_sl};
      c_wa    = {dst_row_q[ADDR_W-1:BUF_AW+2] + {{(WA-CW){1'b0}}, cofs_e}, dst_row_q[BUF_AW+1:2]};
      c_dec   = ~c_first & bor;                            // read from the word before the chunk
      c_rofs  = {cofs_e - {{(CH-1){1'b0}}, c_dec}, {BUF_AW{c_dec}}};
      c_ra    = src_row_q[ADDR_W-1:2] + {{(WA-CW){1'b0}}, c_rofs};
      c_strbf = c_first ? (4'hf << d_off) : 4'hf;
      c_strbl = c_last ? (4'hf >> (2'd3 - ed)) : 4'hf;
    end
  end
  wire              unused_ed_sh = ^ed_sh[1:0];

  // Byte offset in the row of chunk c's first byte (c >= 1): its first word
  // is the row's first word plus c chunks; the row starts d_off bytes in.
  // (A chunk inside the row starts below byte 65536: 16 bits hold it.)
  function [15:0] chunk_byte(input [CH-1:0] c, input [1:0] off);
    reg [15:0] b;
    begin
      b = {{(16-CH){1'b0}}, c} << (BUF_AW + 2);
      chunk_byte = b - {14'd0, off};
    end
  endfunction

  wire accept = cmd_valid_i & cmd_ready_o;
  wire unused_addr = ^{cmd_dst_i, cmd_src_i};  // bits above ADDR_W are outside memory

  always @(*) begin
    st_d = st_q;
    top_d = top_q;
    cofs_d = cofs_q;
    newrow_d = newrow_q;
    step_up = 1'b0;
    step_dn = 1'b0;
    cut_d = 1'b0;
    cut_first_d = cut_first_q;
    cut_count_d = cut_count_q;
    cut_part_d = 1'b0;
    cut_prow_d = cut_prow_q;
    cut_lo_d = cut_lo_q;
    cut_hi_d = cut_hi_q;
    case (st_q)
      S_UP: begin
        if (load) begin
          if (!row_end && stop_i) begin
            // The rest of this row (from the next chunk), then the rows below.
            st_d = S_IDLE; cut_d = 1'b1; cut_part_d = 1'b1;
            cut_prow_d = row_q + height_q + 16'd1;
            cut_lo_d = chunk_byte(cofs_step, d_off);
            cut_hi_d = width;
            cut_first_d = row_q + height_q + 16'd2;
            cut_count_d = ROW_LAST - row_q;
          end else if (!row_end) begin
            cofs_d = cofs_step;
            newrow_d = 1'b0;
          end else begin
            newrow_d = 1'b1;
            if (at_last_row) st_d = S_IDLE;
            else if (stop_i) begin
              // The rows below this one are left (rows count up to ROW_LAST).
              st_d = S_IDLE; cut_d = 1'b1;
              cut_first_d = row_q + height_q + 16'd2;
              cut_count_d = ROW_LAST - row_q;
            end else step_up = 1'b1;
          end
        end else if (is_copy && dge) begin
          st_d = S_WALK;  // this row starts a delta >= 0 run; base_q records it
        end
      end
      S_WALK: begin
        if (!dge) begin
          step_dn = 1'b1;
          top_d = row_step;  // row_q - 1 (step_dn)
          st_d = S_DOWN;
        end else if (at_last_row) begin
          top_d = row_q;
          st_d = S_DOWN;
        end else begin
          step_up = 1'b1;
        end
      end
      S_DOWN: begin
        if (load) begin
          if (!row_end && stop_i && top_q == ROW_LAST) begin
            // This row's left part (below the chunk just loaded), then the
            // run's rows above.
            st_d = S_IDLE; cut_d = 1'b1; cut_part_d = 1'b1;
            cut_prow_d = row_q + height_q + 16'd1;
            cut_lo_d = 16'd0;
            cut_hi_d = chunk_byte(cofs_e, d_off);
            cut_first_d = base_q + height_q + 16'd1;
            cut_count_d = row_q - base_q;
          end else if (!row_end) begin
            cofs_d = cofs_step;
            newrow_d = 1'b0;
          end else begin
            newrow_d = 1'b1;
            if (row_q != base_q && stop_i && top_q == ROW_LAST) begin
              // Bottom-up to the last row: the run's rows above this one are left.
              st_d = S_IDLE; cut_d = 1'b1;
              cut_first_d = base_q + height_q + 16'd1;
              cut_count_d = row_q - base_q;
            end else if (row_q != base_q) step_dn = 1'b1;
            else if (top_q == ROW_LAST) st_d = S_IDLE;
            else st_d = S_RET;
          end
        end
      end
      S_RET: begin
        step_up = 1'b1;
        if (row_q == top_q) st_d = S_UP;
      end
      default: ;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q      <= S_IDLE;
      copy_r    <= 1'b0;
      dpitch_r  <= 16'b0;
      spitch_r  <= 16'b0;
      width_r   <= 16'b0;
      dst_row_q <= {ADDR_W{1'b0}};
      src_row_q <= {ADDR_W{1'b0}};
      row_q     <= 16'b0;
      base_q    <= 16'b0;
      top_q     <= 16'b0;
      cofs_q    <= {CH{1'b0}};
      newrow_q  <= 1'b1;
      height_q  <= 16'd0;
      cut_q <= 1'b0; cut_first_q <= 16'd0; cut_count_q <= 16'd0;
      cut_part_q <= 1'b0; cut_prow_q <= 16'd0; cut_lo_q <= 16'd0; cut_hi_q <= 16'd0;
    end else if (kill) begin
      st_q      <= S_IDLE;
      newrow_q  <= 1'b1;
    end else if (accept) begin
      st_q      <= (cmd_width_i == 16'd0 || cmd_height_i == 16'd0) ? S_IDLE : S_UP;
      copy_r    <= cmd_copy_i;
      dpitch_r  <= cmd_dst_pitch_i;
      spitch_r  <= cmd_src_pitch_i;
      width_r   <= cmd_width_i;
      dst_row_q <= cmd_dst_i[ADDR_W-1:0];
      src_row_q <= cmd_src_i[ADDR_W-1:0];
      row_q     <= ~cmd_height_i;
      newrow_q  <= 1'b1;
      height_q  <= cmd_height_i;
      cut_q     <= 1'b0;
    end else begin
      if (cut_d) begin
        cut_q <= 1'b1; cut_first_q <= cut_first_d; cut_count_q <= cut_count_d;
        cut_part_q <= cut_part_d; cut_prow_q <= cut_prow_d; cut_lo_q <= cut_lo_d; cut_hi_q <= cut_hi_d;
      end
      st_q     <= st_d;
      top_q    <= top_d;
      cofs_q   <= cofs_d;
      newrow_q <= newrow_d;
      if (st_q == S_UP && st_d == S_WALK) base_q <= row_q;
      if (step_up || step_dn) begin
        dst_row_q <= dst_step[ADDR_W:1];
        src_row_q <= src_step[ADDR_W:1];
        row_q     <= row_step;
      end
    end
  end

  // ---------------------------------------------------------------- executor
  reg [WA-1:0]     ex_a_q;                 // next request's word address: reads, then writes
  reg [WA-1:0]     ex_wa_q;                // first write word address of the chunk
  reg [BUF_AW-1:0] ex_wi_q, ex_ndm1_q;     // write index in the chunk, words - 1
  reg [NW-1:0]     ex_rleft_q;             // reads still to issue
  reg [NW-1:0]     ex_rpend_q;             // responses still to come
  reg              ex_rgot_q;              // a response of this chunk arrived
  reg [NW-1:0]     ex_fill_q, ex_rp_q;     // buffer words written / read
  reg [3:0]        ex_strbf_q, ex_strbl_q;
  reg [1:0]        ex_shift_q;
  reg              ex_sf_q, ex_sl_q;
  reg              ov_q;                   // buffer output holds the next write's data
  reg              flush_q;                // one more destination word after the last response
  reg [31:8]       prev_q;                 // previous source word (bytes 1..3 are used)
  reg              pat_q;                  // read the pattern back out of the buffer

  wire [31:0] buf_rdata;

  reg  pres_q;  // a request was presented and not accepted last cycle
  wire rd_req = ex_act_q & (ex_rleft_q != {NW{1'b0}});
  wire wr_req = ex_act_q & (ex_rleft_q == {NW{1'b0}}) & (~is_copy | ov_q);
  wire req_v = (rd_req | wr_req) & (~kill | pres_q);
  wire req_acc = req_v & mem_req_ready_i;
  wire wr_acc = req_acc & ~rd_req;
  wire wi_first = (ex_wi_q == {BUF_AW{1'b0}});
  wire wi_last = (ex_wi_q == ex_ndm1_q);
  assign ex_done = wr_acc & wi_last;

  assign mem_req_valid_o = req_v;
  // Every read issued has returned (responses still to come = reads still to issue).
  assign drained = ~pres_q & (ex_rpend_q == ex_rleft_q);
  assign mem_req_write_o = ~rd_req;
  wire [WA-1:0] req_wa = ex_a_q;
  assign mem_req_addr_o  = {{(32-ADDR_W){1'b0}}, req_wa, 2'b00};
  // Write data always comes out of the buffer: a FILL writes its pattern into
  // the buffer word the executor reads first (both indices are 0 whenever the
  // engine is idle) when the command is accepted and reads it out the next
  // cycle; the buffer output then holds it for the whole command.
  assign mem_req_wdata_o = buf_rdata;
  assign mem_req_wstrb_o = (wi_first ? ex_strbf_q : 4'hf) & (wi_last ? ex_strbl_q : 4'hf);

  // Responses: align to the destination and fill the buffer in order.
  wire        rsp_out = (mem_rsp_valid_i & (ex_rgot_q | ex_sf_q | (ex_shift_q == 2'd0)))
                        | flush_q;
  // In the flush cycle the bytes taken from rsp_cur lie outside the
  // rectangle (their strobes are off), so the idle bus value will do.
  wire [31:0] rsp_cur = mem_rsp_rdata_i;
  reg  [31:0] rsp_word;  // bytes shift.. of {rsp_cur, prev_q}
  always @(*) begin
    case (ex_shift_q)
      2'd1:    rsp_word = {rsp_cur[7:0], prev_q[31:8]};
      2'd2:    rsp_word = {rsp_cur[15:0], prev_q[31:16]};
      2'd3:    rsp_word = {rsp_cur[23:0], prev_q[31:24]};
      default: rsp_word = rsp_cur;
    endcase
  end
  wire rsp_last = mem_rsp_valid_i & (ex_rpend_q == {{(NW-1){1'b0}}, 1'b1});

  // Buffer read ahead of the writes; only words already written.
  // (ex_rp_q <= ex_fill_q <= words of the chunk, so != means <.)
  wire buf_re = ex_act_q & is_copy & (ex_rp_q != ex_fill_q)
                & (~ov_q | wr_acc);

  sgpu_ram_2p #(.AW(BUF_AW), .DW(32)) u_buf (
    .clk_i   (clk_i),
    .we_i    (rsp_out | accept),
    .waddr_i (ex_fill_q[BUF_AW-1:0]),
    .wdata_i (accept ? cmd_pattern_i : rsp_word),
    .re_i    (buf_re | pat_q),
    .raddr_i (ex_rp_q[BUF_AW-1:0]),
    .rdata_o (buf_rdata)
  );

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ex_act_q   <= 1'b0;
      abort_q    <= 1'b0;
      pres_q     <= 1'b0;
      ex_a_q     <= {WA{1'b0}};
      ex_wa_q    <= {WA{1'b0}};
      ex_wi_q    <= {BUF_AW{1'b0}};
      ex_ndm1_q  <= {BUF_AW{1'b0}};
      ex_rleft_q <= {NW{1'b0}};
      ex_rpend_q <= {NW{1'b0}};
      ex_rgot_q  <= 1'b0;
      ex_fill_q  <= {NW{1'b0}};
      ex_rp_q    <= {NW{1'b0}};
      ex_strbf_q <= 4'h0;
      ex_strbl_q <= 4'h0;
      ex_shift_q <= 2'd0;
      ex_sf_q    <= 1'b0;
      ex_sl_q    <= 1'b0;
      ov_q       <= 1'b0;
      flush_q    <= 1'b0;
      prev_q     <= 24'b0;
      pat_q      <= 1'b0;
    end else begin
      if (mem_rsp_valid_i) prev_q <= mem_rsp_rdata_i[31:8];
      pat_q   <= accept & ~cmd_copy_i;
      flush_q <= rsp_last & ex_sl_q;
      pres_q  <= req_v & ~mem_req_ready_i;
      abort_q <= kill & ~drained;
      if (kill && drained) begin
        ex_act_q   <= 1'b0;
        ex_rleft_q <= {NW{1'b0}};
        ex_rpend_q <= {NW{1'b0}};
        ex_fill_q  <= {NW{1'b0}};
        ex_rp_q    <= {NW{1'b0}};
      end else if (load) begin
        ex_act_q   <= 1'b1;
        ex_a_q     <= is_copy ? c_ra : c_wa;
        ex_wa_q    <= c_wa;
        ex_wi_q    <= {BUF_AW{1'b0}};
        ex_ndm1_q  <= c_ndm1;
        ex_rleft_q <= is_copy ? c_nrd : {NW{1'b0}};
        ex_rpend_q <= is_copy ? c_nrd : {NW{1'b0}};
        ex_rgot_q  <= 1'b0;
        ex_fill_q  <= {NW{1'b0}};
        ex_rp_q    <= {NW{1'b0}};
        ex_strbf_q <= c_strbf;
        ex_strbl_q <= c_strbl;
        ex_shift_q <= shift;
        ex_sf_q    <= c_sf;
        ex_sl_q    <= c_sl;
        ov_q       <= 1'b0;
      end else begin
        if (ex_done) ex_act_q <= 1'b0;
        if (rd_req && req_acc) begin
          ex_rleft_q <= ex_rleft_q - {{(NW-1){1'b0}}, 1'b1};
        end
        if (wr_acc) begin
          ex_wi_q <= ex_wi_q + {{(BUF_AW-1){1'b0}}, 1'b1};
        end
        // One address register: after the last read it moves to the writes.
        if (req_acc) begin
          ex_a_q <= (rd_req && ex_rleft_q == {{(NW-1){1'b0}}, 1'b1}) ? ex_wa_q
                    : ex_a_q + {{(WA-1){1'b0}}, 1'b1};
        end
        if (mem_rsp_valid_i) begin
          ex_rpend_q <= ex_rpend_q - {{(NW-1){1'b0}}, 1'b1};
          ex_rgot_q  <= 1'b1;
        end
        if (rsp_out) ex_fill_q <= ex_fill_q + {{(NW-1){1'b0}}, 1'b1};
        if (buf_re) begin
          ex_rp_q <= ex_rp_q + {{(NW-1){1'b0}}, 1'b1};
          ov_q    <= 1'b1;
        end else if (wr_acc) begin
          ov_q <= 1'b0;
        end
        // The chunk is over (no response or buffer read can follow): back to
        // the idle indices the FILL pattern relies on.
        if (ex_done) begin
          ex_fill_q <= {NW{1'b0}};
          ex_rp_q   <= {NW{1'b0}};
        end
      end
    end
  end

  assign busy_o = (st_q != S_IDLE) | ex_act_q | abort_q;
  assign chunk_o     = ex_act_q;
  assign cut_o       = cut_q;
  assign cut_first_o = cut_first_q;
  assign cut_count_o = cut_count_q;
  assign cut_part_o  = cut_part_q;
  assign cut_prow_o  = cut_prow_q;
  assign cut_lo_o    = cut_lo_q;
  assign cut_hi_o    = cut_hi_q;
  assign cmd_ready_o = ~busy_o & ~abort_i;

endmodule
