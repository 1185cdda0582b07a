// sgpu_sdram_seq: the command sequencer of sgpu_sdram.
//
// Takes the requests in order from the queue head (one "current" request
// held here, the next one still at the queue head for look-ahead) and picks
// at most one SDRAM command per cycle, after the power-up sequence (en_i):
//   1. the second half of a 32-bit write (upper 16 bits: a NOP carrying the
//      second beat of a 2-beat write burst, or with BURST > 2, where writes
//      are single-beat, a second WRITE one column up); with BURST = 2 the
//      command slot may precharge or activate for the next request;
//   2. a claim: the current read wants a later word of the block the last
//      READ fetches (BURST > 2), so it takes that word and issues nothing;
//   3. a refresh owed: PRECHARGE ALL when rows are open, then AUTO REFRESH;
//   4. the current request: READ/WRITE on a row hit, PRECHARGE on a miss,
//      ACTIVATE on a closed bank, each when its bank's timers allow;
//   5. when the current request must wait, the next request's bank is
//      prepared (PRECHARGE/ACTIVATE) if it is another bank.  A sequential
//      read stream crossing into the next bank finds its row open.
// Rows stay open after an access (no auto precharge); refresh closes all.
// A READ fetches BURST beats from the aligned block holding the word; its
// word and any later words claimed from the block make response tokens:
// tok_o asks the read path for a response tok_pos_o + 1 cycles later.
`include "sgpu_hw.vh"
module sgpu_sdram_seq #(
  parameter integer ROW_BITS = 13,
  parameter integer CW       = 9,     // word (32-bit) column bits: COL_BITS - 1
  parameter integer CL       = 2,     // cycles from READ to data at the capture flop, less 2
  parameter integer TA       = 0,     // extra cycles of READ -> WRITE turnaround
  parameter integer BURST    = 2,     // beats per READ: 2, 4 or 8
  parameter integer RDX      = 0,     // extra read-capture stages
  parameter integer TW       = 6,     // timer bits: every *_CK < 2^TW
  parameter integer RCD_CK   = 2,
  parameter integer RP_CK    = 2,
  parameter integer RAS_CK   = 3,
  parameter integer RC_CK    = 4,
  parameter integer WR_CK    = 1,
  parameter integer RRD_CK   = 1,
  parameter integer RFC_CK   = 4,
  parameter integer PW       = 5      // bits of tok_pos_o
) (
  input  wire                clk_i,
  input  wire                rst_ni,
  input  wire                en_i,
  // request queue head (first-word fall-through)
  input  wire                q_valid_i,
  output wire                q_pop_o,
  input  wire                q_write_i,
  input  wire [1:0]          q_bank_i,
  input  wire [ROW_BITS-1:0] q_row_i,
  input  wire [CW-1:0]       q_col_i,
  input  wire [31:0]         q_wdata_i,
  input  wire [3:0]          q_wstrb_i,
  // refresh timer
  input  wire                ref_req_i,
  output reg                 ref_ack_o,
  // next values of the SDRAM pins (the caller registers them)
  output reg  [3:0]          cmd_o,      // {csn, rasn, casn, wen}
  output reg  [1:0]          ba_o,
  output reg  [12:0]         a_o,
  output reg  [15:0]         dq_o,
  output reg  [1:0]          dqm_o,
  output reg                 dq_oe_o,
  // read response token
  output reg                 tok_o,
  output reg  [PW-1:0]       tok_pos_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // BURST: beats per READ (K = BURST / 2 words, a 3-bit word mask).
  generate if (!(BURST == 2 || BURST == 4 || BURST == 8)) begin : g_bad_burst
    sgpu_precondition_failed_BURST_2_4_or_8 u_fail ();
  end endgenerate
  // Timers are TW bits: every *_CK and the READ gaps below 2^TW (the banks check theirs).
  generate if (!(RRD_CK < (1 << TW) && RFC_CK < (1 << TW) && CL + TA + BURST < (1 << TW))) begin : g_bad_tw
    sgpu_precondition_failed_every_CK_below_2_pow_TW u_fail ();
  end endgenerate

  localparam [3:0] C_NOP = 4'b0111, C_ACT = 4'b0011, C_RD = 4'b0101, C_WR = 4'b0100,
                   C_PRE = 4'b0010, C_REF = 4'b0001;
  localparam integer K  = BURST / 2;                // words per READ
  localparam [31:0]  KM_32    = K - 1;
  localparam [31:0]  P0_32    = 2 + CL + RDX;
  localparam [31:0]  RRD_32   = RRD_CK - 1;
  localparam [31:0]  RFC_32   = RFC_CK - 1;
  localparam [31:0]  RDRD_32  = BURST - 1;
  localparam [31:0]  RDWR_32  = CL + TA + BURST;
  localparam [2:0]   KM = KM_32[2:0];                 // word-in-block mask
  localparam [6:0]   P0 = P0_32[6:0];                 // token position of word 0
  localparam [TW-1:0] RRD_M1 = RRD_32[TW-1:0];
  localparam [TW-1:0] RFC_M1 = RFC_32[TW-1:0];
  localparam [TW-1:0] RD_RD  = RDRD_32[TW-1:0];       // READ -> READ: whole burst
  localparam [TW-1:0] RD_WR  = RDWR_32[TW-1:0];       // READ -> WRITE: bus free + 1 turnaround
  localparam [TW-1:0] WR_ANY = {{(TW-1){1'b0}}, 1'b1};  // WRITE -> READ/WRITE: both beats in
  localparam [TW-1:0] ZERO   = {TW{1'b0}};

  function [TW-1:0] later(input [TW-1:0] cnt, input [TW-1:0] need);
    reg [TW-1:0] dec;
    begin
      dec   = (cnt == ZERO) ? cnt : cnt - 1'b1;
      later = (need > dec) ? need : dec;
    end
  endfunction

  // ------------------------------------------------------------ banks
  reg  [3:0]            act_b, pre_b, rd_b, wr_b;
  reg  [ROW_BITS-1:0]   act_row;
  wire [3:0]            open_v, act_ok_v, col_ok_v, pre_ok_v;
  wire [4*ROW_BITS-1:0] row_v;

  genvar g;
  generate for (g = 0; g < 4; g = g + 1) begin : g_bank
    sgpu_sdram_bank #(
      .ROW_BITS(ROW_BITS), .TW(TW), .RCD_CK(RCD_CK), .RP_CK(RP_CK), .RAS_CK(RAS_CK),
      .RC_CK(RC_CK), .RD_PRE_CK(BURST), .WR_PRE_CK(1 + WR_CK)
    ) u_bank (
      .clk_i(clk_i), .rst_ni(rst_ni),
      .act_i(act_b[g]), .pre_i(pre_b[g]), .rd_i(rd_b[g]), .wr_i(wr_b[g]), .row_i(act_row),
      .open_o(open_v[g]), .row_o(row_v[g*ROW_BITS +: ROW_BITS]),
      .act_ok_o(act_ok_v[g]), .col_ok_o(col_ok_v[g]), .pre_ok_o(pre_ok_v[g])
    );
  end endgenerate

  // ------------------------------------------------------------ state
  reg                cur_v_q, cur_wr_q;
  reg [1:0]          cur_bank_q;
  reg [ROW_BITS-1:0] cur_row_q;
  reg [CW-1:0]       cur_col_q;
  reg [31:0]         cur_wdata_q;
  reg [3:0]          cur_wstrb_q;

  reg                wr2_q;               // upper half of a write goes next
  reg [1:0]          wr2_bank_q;
  reg [CW-1:0]       wr2_col_q;
  reg [15:0]         wr2_data_q;
  reg [1:0]          wr2_dqm_q;

  reg [TW-1:0]       rrd_q, rfc_q, rd_q, wr_q;

  wire rrd_ok = (rrd_q == ZERO);
  wire cmd_ok = (rfc_q == ZERO);          // nothing but NOP during tRFC
  wire rd_ok  = (rd_q == ZERO);
  wire wr_ok  = (wr_q == ZERO);

  wire [1:0]          cb      = cur_bank_q;
  wire [1:0]          nb      = q_bank_i;
  wire [ROW_BITS-1:0] cb_row  = row_v[cb * ROW_BITS +: ROW_BITS];
  wire [ROW_BITS-1:0] nb_row  = row_v[nb * ROW_BITS +: ROW_BITS];
  wire                cur_hit = open_v[cb] && (cb_row == cur_row_q);
  wire [2:0]          cur_j   = cur_col_q[2:0] & KM;
  wire [CW-1:0]       blk_m   = ~{{(CW-3){1'b0}}, KM};
  wire [6:0]          cpos    = P0 + {3'd0, cur_j, 1'b0};   // token position at age 0
  wire                claim_ok;
  wire [PW-1:0]       claim_pos;

  // Column address of a word: A0 selects the 16-bit half; A10 stays 0
  // (no auto precharge).
  function [12:0] col_addr(input [CW-1:0] col, input hi);
    begin
      col_addr = 13'd0;
      col_addr[CW:0] = {col, hi};
    end
  endfunction

  reg  done, claim, rd_go, wr_go, la;

  always @(*) begin
    cmd_o = C_NOP; ba_o = 2'd0; a_o = 13'd0; dq_o = 16'd0; dqm_o = 2'b00; dq_oe_o = 1'b0;
    act_b = 4'd0; pre_b = 4'd0; rd_b = 4'd0; wr_b = 4'd0; act_row = cur_row_q;
    done = 1'b0; claim = 1'b0; rd_go = 1'b0; wr_go = 1'b0; la = 1'b0;
    tok_o = 1'b0; tok_pos_o = {PW{1'b0}}; ref_ack_o = 1'b0;
    if (en_i) begin
      if (wr2_q) begin
        cmd_o = (K == 1) ? C_NOP : C_WR;
        ba_o = wr2_bank_q; a_o = col_addr(wr2_col_q, 1'b1);
        dq_o = wr2_data_q; dqm_o = wr2_dqm_q; dq_oe_o = 1'b1;
        // BURST 2: the second beat needs no command, so the next request's
        // row can be closed or opened meanwhile (another bank: its own
        // timers say; the written bank: tWR holds its precharge off)
        if (K == 1 && cur_v_q && !ref_req_i && cmd_ok && !cur_hit) begin
          if (open_v[cb]) begin
            if (pre_ok_v[cb]) begin
              cmd_o = C_PRE; ba_o = cb; pre_b[cb] = 1'b1;
            end
          end else if (act_ok_v[cb] && rrd_ok) begin
            cmd_o = C_ACT; ba_o = cb; a_o = 13'd0; a_o[ROW_BITS-1:0] = cur_row_q; act_b[cb] = 1'b1;
          end
        end
      end else if (claim_ok) begin
        claim = 1'b1; done = 1'b1;
        tok_o = 1'b1; tok_pos_o = claim_pos[PW-1:0];
      end else if (ref_req_i) begin
        if (|open_v) begin
          if (&pre_ok_v && cmd_ok) begin
            cmd_o = C_PRE; a_o[10] = 1'b1; pre_b = 4'hF;
          end
        end else if (&act_ok_v && cmd_ok) begin
          cmd_o = C_REF; ref_ack_o = 1'b1;
        end
      end else if (cur_v_q) begin
        if (cur_hit) begin
          if (col_ok_v[cb] && cmd_ok && (cur_wr_q ? wr_ok : rd_ok)) begin
            done = 1'b1; ba_o = cb;
            if (cur_wr_q) begin
              cmd_o = C_WR; a_o = col_addr(cur_col_q, 1'b0);
              dq_o = cur_wdata_q[15:0]; dqm_o = ~cur_wstrb_q[1:0]; dq_oe_o = 1'b1;
              wr_b[cb] = 1'b1; wr_go = 1'b1;
            end else begin
              cmd_o = C_RD; a_o = col_addr(cur_col_q & blk_m, 1'b0);
              rd_b[cb] = 1'b1; rd_go = 1'b1;
              tok_o = 1'b1; tok_pos_o = cpos[PW-1:0];
            end
          end else la = 1'b1;
        end else if (open_v[cb]) begin
          if (pre_ok_v[cb] && cmd_ok) begin
            cmd_o = C_PRE; ba_o = cb; pre_b[cb] = 1'b1;
          end else la = 1'b1;
        end else begin
          if (act_ok_v[cb] && rrd_ok && cmd_ok) begin
            cmd_o = C_ACT; ba_o = cb; a_o[ROW_BITS-1:0] = cur_row_q; act_b[cb] = 1'b1;
          end else la = 1'b1;
        end
        // look-ahead: never the current request's bank
        if (la && q_valid_i && (nb != cb) && cmd_ok) begin
          if (open_v[nb]) begin
            if ((nb_row != q_row_i) && pre_ok_v[nb]) begin
              cmd_o = C_PRE; ba_o = nb; pre_b[nb] = 1'b1;
            end
          end else if (act_ok_v[nb] && rrd_ok) begin
            cmd_o = C_ACT; ba_o = nb; a_o[ROW_BITS-1:0] = q_row_i;
            act_row = q_row_i; act_b[nb] = 1'b1;
          end
        end
      end
    end
  end

  assign q_pop_o = q_valid_i && (!cur_v_q || done);

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cur_v_q <= 1'b0;
      wr2_q <= 1'b0;
      rrd_q <= ZERO; rfc_q <= ZERO; rd_q <= ZERO; wr_q <= ZERO;
    end else begin
      if (q_pop_o) cur_v_q <= 1'b1;
      else if (done) cur_v_q <= 1'b0;
      wr2_q <= wr_go;
      rrd_q <= later(rrd_q, (|act_b) ? RRD_M1 : ZERO);
      rfc_q <= later(rfc_q, ref_ack_o ? RFC_M1 : ZERO);
      rd_q  <= later(rd_q, rd_go ? RD_RD : (wr_go ? WR_ANY : ZERO));
      wr_q  <= later(wr_q, rd_go ? RD_WR : (wr_go ? WR_ANY : ZERO));
    end
  end

  // Request fields and burst/write-half data: no reset needed (qualified by
  // the valid flags above).
  always @(posedge clk_i) begin
    if (q_pop_o) begin
      cur_wr_q    <= q_write_i;
      cur_bank_q  <= q_bank_i;
      cur_row_q   <= q_row_i;
      cur_col_q   <= q_col_i;
      cur_wdata_q <= q_wdata_i;
      cur_wstrb_q <= q_wstrb_i;
    end
    if (wr_go) begin
      wr2_bank_q <= cb;
      wr2_col_q  <= cur_col_q;
      wr2_data_q <= cur_wdata_q[31:16];
      wr2_dqm_q  <= ~cur_wstrb_q[3:2];
    end
  end

  // ------------------------------------------------------------ claims
  // The last READ's block, while later words of it may still be handed to
  // the requests that follow (in order: each claim takes a later word, and a
  // write, a refresh or a precharge of that bank ends the window, so no
  // claimed word can be older than a write before it).  A word can be
  // claimed while its token is not yet due: cpos >= age.
  generate if (K > 1) begin : g_claim
    reg                burst_v_q;
    reg [1:0]          burst_bank_q;
    reg [ROW_BITS-1:0] burst_row_q;
    reg [CW-1:0]       burst_col_q;
    reg [2:0]          burst_j_q;         // last word of the block handed out
    reg [4:0]          age_q;             // cycles since that READ
    wire [6:0]         left = cpos - {2'd0, age_q};

    assign claim_ok = burst_v_q && cur_v_q && !cur_wr_q && (cb == burst_bank_q) &&
                      (cur_row_q == burst_row_q) &&
                      ((cur_col_q & blk_m) == (burst_col_q & blk_m)) &&
                      (cur_j > burst_j_q) && (cpos >= {2'd0, age_q});
    assign claim_pos = left[PW-1:0];

    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        burst_v_q <= 1'b0;
        burst_j_q <= 3'd0;
        age_q     <= 5'd0;
      end else begin
        if (age_q != 5'd31) age_q <= age_q + 1'b1;
        if (rd_go) begin
          burst_v_q <= 1'b1;
          burst_j_q <= cur_j;
          age_q     <= 5'd1;
        end else begin
          if (claim) burst_j_q <= cur_j;
          if (wr_go || ref_ack_o || pre_b[burst_bank_q]) burst_v_q <= 1'b0;
        end
      end
    end
    always @(posedge clk_i) begin
      if (rd_go) begin
        burst_bank_q <= cb;
        burst_row_q  <= cur_row_q;
        burst_col_q  <= cur_col_q;
      end
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, left[6:PW]};   // tokens never sit further out than PW bits
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : g_noclaim
    // One word per READ: nothing to claim.
    assign claim_ok  = 1'b0;
    assign claim_pos = {PW{1'b0}};
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, claim, cur_j, blk_m, cpos};
    /* verilator lint_on UNUSEDSIGNAL */
  end endgenerate
endmodule
