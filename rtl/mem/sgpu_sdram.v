// sgpu_sdram: SDR SDRAM controller, a slave on the sgpu memory port (the
// port of sgpu_sram: 32-bit words, byte strobes, reads answered in request
// order, one response per read, no back-pressure on responses).
//
// Built for the ULX3S's x16 SDRAM (AS4C32M16SB class: 4 banks, 8192 rows,
// 1024 columns; a 256 Mbit part has COL_BITS = 9).  A 32-bit word is two
// 16-bit beats, lower half first, at columns 2c and 2c+1; byte strobes become
// DQM.  Word address = {row, bank, column}: a sequential stream walks the
// four banks of a row before it changes row, so the next bank can be opened
// while the current one streams.
//
// Pieces: a request queue (sgpu_fifo; req_ready_o is "queue not full", so a
// request that changes while stalled is harmless: only the handshake counts),
// the power-up sequence (sgpu_sdram_init), the refresh timer
// (sgpu_sdram_refresh), the command sequencer with its per-bank state
// (sgpu_sdram_seq, sgpu_sdram_bank), and here the pin registers and the read
// path.  Every pin comes straight from a flip-flop and DQ is captured in one
// (both can go into the I/O cells); RDX adds capture stages when the board's
// clocking needs them.  sdram_clk_o is clk_i: the board top forwards it
// (ODDR, phase) as its timing requires; the tristate lives there too.
// CLK_INV = 1 is for a board that forwards it inverted (see below).
//
// Timing comes as nanoseconds and the clock in MHz (rounded up: cycles =
// ceil(ns * CLK_MHZ / 1000)).  Defaults: the -7 speed grade of the
// AS4C32M16SB datasheet (Alliance Memory, Rev 1.0 June 2016, Table 16
// "Electrical Characteristics and Recommended A.C. Operating Conditions",
// e.g. https://manualshelf.com/manual/alliance-memory/as4c32m16sb-7tcn/datasheet-english/page-21.html):
//   tRC 63, tRFC 63, tRCD 21, tRP 21, tRRD 14, tMRD 14, tRAS 42 (max 120K),
//   tWR 14 ns; tCK >= 10 ns at CL 2, >= 7 ns at CL 3; tREFI 7.8 us
//   (8192 refresh cycles / 64 ms, the datasheet's feature list).
// Power-up: 200 us of NOPs with a stable clock, then precharge all, auto
// refreshes, mode register set (order and the 200 us as in Alliance's SDR
// datasheets, e.g. AS4C4M16S "Initialization", which asks for 8 or more
// refreshes; INIT_REFS = 8 satisfies both that and the usual 2).
// tMRD is at least T_MRD_CK cycles (2: "no command can be asserted before at
// least two clock cycles have elapsed" after mode register programming, same
// source).
`include "sgpu_hw.vh"
module sgpu_sdram #(
  parameter integer CLK_MHZ   = 50,
  parameter integer CL        = 2,      // CAS latency: 2 (tCK >= 10 ns) or 3
  // 1: the board clocks the SDRAM with the inverse of clk_i (sdram_clk_o
  // forwarded inverted): the SDRAM samples each command half a cycle after
  // the pins change, so read data reaches the capture flop one clk_i edge
  // earlier than with CL alone (CL - 1 + 1/2 cycles after the READ leaves);
  // CL 3 with CLK_INV 1 has CL 2's latency here, with half a cycle of
  // setup and hold margin on every pin in both directions
  parameter integer CLK_INV   = 0,
  parameter integer BURST     = 2,      // beats per READ: 2 (one word), 4 or 8
  parameter integer COL_BITS  = 10,     // 10: 512 Mbit part, 9: 256 Mbit part
  parameter integer ROW_BITS  = 13,
  parameter integer QDEPTH    = 4,      // request queue (power of two >= 2)
  parameter integer RDX       = 0,      // extra read-capture stages
  parameter integer T_RCD_NS  = 21,
  parameter integer T_RP_NS   = 21,
  parameter integer T_RAS_NS  = 42,
  parameter integer T_RC_NS   = 63,
  parameter integer T_WR_NS   = 14,
  parameter integer T_RRD_NS  = 14,
  parameter integer T_MRD_NS  = 14,
  parameter integer T_MRD_CK  = 2,
  parameter integer T_RFC_NS  = 63,
  parameter integer T_REFI_NS = 7800,
  parameter integer T_INIT_US = 200,
  parameter integer INIT_REFS = 8
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // memory port
  input  wire        req_valid_i,
  output wire        req_ready_o,
  input  wire        req_write_i,
  input  wire [31:0] req_addr_i,
  input  wire [31:0] req_wdata_i,
  input  wire [3:0]  req_wstrb_i,
  output wire        rsp_valid_o,
  output wire [31:0] rsp_rdata_o,
  // SDRAM pins
  output wire        sdram_clk_o,
  output wire        sdram_cke_o,
  output wire        sdram_csn_o,
  output wire        sdram_rasn_o,
  output wire        sdram_casn_o,
  output wire        sdram_wen_o,
  output wire [1:0]  sdram_ba_o,
  output wire [12:0] sdram_a_o,
  output wire [1:0]  sdram_dqm_o,
  output wire [15:0] sdram_dq_o,
  output wire        sdram_dq_oe_o,
  input  wire [15:0] sdram_dq_i
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // CL: the mode register's CAS latency, 2 (tCK >= 10 ns) or 3.
  generate if (!(CL == 2 || CL == 3)) begin : g_bad_cl
    sgpu_precondition_failed_CL_2_or_3 u_fail ();
  end endgenerate
  // BURST: beats per READ, the mode register's burst length.
  generate if (!(BURST == 2 || BURST == 4 || BURST == 8)) begin : g_bad_burst
    sgpu_precondition_failed_BURST_2_4_or_8 u_fail ();
  end endgenerate
  // QDEPTH: the request queue is an sgpu_fifo.
  generate if (!(QDEPTH >= 2 && (QDEPTH & (QDEPTH - 1)) == 0)) begin : g_bad_qdepth
    sgpu_precondition_failed_QDEPTH_power_of_two_at_least_2 u_fail ();
  end endgenerate

  // ------------------------------------------------------------ timing
  // (elaboration-time functions: no coverage points)
  /* verilator coverage_off */
  function integer ck(input integer ns);
    begin
      ck = (ns * CLK_MHZ + 999) / 1000;
      if (ck < 1) ck = 1;
    end
  endfunction
  function integer max2(input integer a, input integer b);
    max2 = (a > b) ? a : b;
  endfunction
  /* verilator coverage_on */

  localparam integer RCD_CK  = ck(T_RCD_NS);
  localparam integer RP_CK   = ck(T_RP_NS);
  localparam integer RAS_CK  = ck(T_RAS_NS);
  localparam integer RC_CK   = ck(T_RC_NS);
  localparam integer WR_CK   = ck(T_WR_NS);
  localparam integer RRD_CK  = ck(T_RRD_NS);
  localparam integer MRD_CK  = max2(ck(T_MRD_NS), T_MRD_CK);
  localparam integer RFC_CK  = ck(T_RFC_NS);
  localparam integer REFI_CK = T_REFI_NS * CLK_MHZ / 1000;     // floor: never late on average
  localparam integer WAIT_CK = T_INIT_US * CLK_MHZ + 2;         // + the cycles CKE rises after reset

  localparam integer CW   = COL_BITS - 1;                       // word column bits
  localparam integer K    = BURST / 2;
  localparam integer TOKW = 3 + CL - CLK_INV + RDX + 2 * (K - 1);
  localparam integer PW   = $clog2(TOKW);

  // Mode register: burst length, sequential, CAS latency; writes are 2-beat
  // bursts with BURST = 2, single-beat (A9, "burst read single write")
  // otherwise, so a word write is always two beats.
  localparam [2:0]  BL_CODE = (BURST == 8) ? 3'd3 : ((BURST == 4) ? 3'd2 : 3'd1);
  localparam [31:0] CL_32   = CL;
  localparam [2:0]  CL_CODE = CL_32[2:0];
  localparam [12:0] MODE = {3'b000, (BURST != 2), 2'b00, CL_CODE, 1'b0, BL_CODE};

  localparam [3:0] C_NOP = 4'b0111;

  // ------------------------------------------------------------ request queue
  localparam integer QW = 1 + 4 + 32 + ROW_BITS + 2 + CW;
  wire [QW-1:0] q_in = {req_write_i, req_wstrb_i, req_wdata_i,
                        req_addr_i[2 + CW + 2 +: ROW_BITS], req_addr_i[2 + CW +: 2], req_addr_i[2 +: CW]};
  wire [QW-1:0] q_out;
  wire          q_valid, q_pop;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [$clog2(QDEPTH):0] q_count;
  /* verilator lint_on UNUSEDSIGNAL */

  sgpu_fifo #(.WIDTH(QW), .DEPTH(QDEPTH)) u_queue (
    .clk_i(clk_i), .rst_ni(rst_ni), .clr_i(1'b0),
    .in_valid_i(req_valid_i), .in_ready_o(req_ready_o), .in_data_i(q_in),
    .out_valid_o(q_valid), .out_ready_i(q_pop), .out_data_o(q_out), .count_o(q_count)
  );

  // ------------------------------------------------------------ pieces
  wire        init_done;
  wire [3:0]  init_cmd;
  wire [12:0] init_a;

  sgpu_sdram_init #(
    .WAIT_CK(WAIT_CK), .RP_CK(RP_CK), .RFC_CK(RFC_CK), .MRD_CK(MRD_CK),
    .REFS(INIT_REFS), .MODE(MODE)
  ) u_init (
    .clk_i(clk_i), .rst_ni(rst_ni), .cmd_o(init_cmd), .a_o(init_a), .done_o(init_done)
  );

  wire ref_req, ref_ack;
  sgpu_sdram_refresh #(.REFI_CK(REFI_CK)) u_refresh (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(init_done), .ack_i(ref_ack), .req_o(ref_req)
  );

  wire [3:0]    s_cmd;
  wire [1:0]    s_ba, s_dqm;
  wire [12:0]   s_a;
  wire [15:0]   s_dq;
  wire          s_oe, tok;
  wire [PW-1:0] tok_pos;

  sgpu_sdram_seq #(
    .ROW_BITS(ROW_BITS), .CW(CW), .CL(CL - CLK_INV), .TA(CLK_INV), .BURST(BURST), .RDX(RDX),
    .RCD_CK(RCD_CK), .RP_CK(RP_CK), .RAS_CK(RAS_CK), .RC_CK(RC_CK), .WR_CK(WR_CK),
    .RRD_CK(RRD_CK), .RFC_CK(RFC_CK), .PW(PW)
  ) u_seq (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(init_done),
    .q_valid_i(q_valid), .q_pop_o(q_pop),
    .q_write_i(q_out[QW-1]), .q_wstrb_i(q_out[QW-2 -: 4]), .q_wdata_i(q_out[QW-6 -: 32]),
    .q_row_i(q_out[CW + 2 +: ROW_BITS]), .q_bank_i(q_out[CW +: 2]), .q_col_i(q_out[0 +: CW]),
    .ref_req_i(ref_req), .ref_ack_o(ref_ack),
    .cmd_o(s_cmd), .ba_o(s_ba), .a_o(s_a), .dq_o(s_dq), .dqm_o(s_dqm), .dq_oe_o(s_oe),
    .tok_o(tok), .tok_pos_o(tok_pos)
  );

  // ------------------------------------------------------------ pin registers
  reg        cke_q, oe_q;
  reg [3:0]  cmd_q;
  reg [1:0]  ba_q, dqm_q;
  reg [12:0] a_q;
  reg [15:0] dq_q;

  // DQM stays high until the sequence is done (the datasheets' power-up
  // advice: outputs masked).
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cke_q <= 1'b0;
      cmd_q <= C_NOP;
      ba_q  <= 2'd0;
      a_q   <= 13'd0;
      dqm_q <= 2'b11;
      dq_q  <= 16'd0;
      oe_q  <= 1'b0;
    end else begin
      cke_q <= 1'b1;
      cmd_q <= init_done ? s_cmd : init_cmd;
      ba_q  <= init_done ? s_ba : 2'd0;
      a_q   <= init_done ? s_a : init_a;
      dqm_q <= init_done ? s_dqm : 2'b11;
      dq_q  <= s_dq;
      oe_q  <= init_done && s_oe;
    end
  end

  assign sdram_clk_o   = clk_i;
  assign sdram_cke_o   = cke_q;
  assign {sdram_csn_o, sdram_rasn_o, sdram_casn_o, sdram_wen_o} = cmd_q;
  assign sdram_ba_o    = ba_q;
  assign sdram_a_o     = a_q;
  assign sdram_dqm_o   = dqm_q;
  assign sdram_dq_o    = dq_q;
  assign sdram_dq_oe_o = oe_q;

  // ------------------------------------------------------------ read path
  // cap_q[15:0] is the I/O capture flop, RDX more stages above it; a word is
  // {this beat, previous beat} when the token reaches position 0.
  localparam integer CAPW = 16 * (RDX + 1);
  reg [CAPW-1:0] cap_q;
  reg [15:0]     prev_q;
  reg [TOKW-1:0] tok_q;
  wire [15:0]    beat = cap_q[CAPW-1 -: 16];

  always @(posedge clk_i) begin
    cap_q  <= (cap_q << 16) | {{(CAPW-16){1'b0}}, sdram_dq_i};
    prev_q <= beat;
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) tok_q <= {TOKW{1'b0}};
    else         tok_q <= (tok_q >> 1) | (tok ? ({{(TOKW-1){1'b0}}, 1'b1} << tok_pos) : {TOKW{1'b0}});
  end

  assign rsp_valid_o = tok_q[0];
  assign rsp_rdata_o = {beat, prev_q};

  // Bytes [1:0] are implied by the word port; bits above the SDRAM wrap.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = &{1'b0, req_addr_i[31:4 + CW + ROW_BITS], req_addr_i[1:0]};
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
