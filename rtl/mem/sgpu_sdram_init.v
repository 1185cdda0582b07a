// sgpu_sdram_init: the SDRAM power-up sequence of sgpu_sdram.
//
// After reset: WAIT_CK cycles of NOP (the datasheet's 200 us of stable clock),
// PRECHARGE ALL, REFS x AUTO REFRESH (each tRFC apart), MODE REGISTER SET,
// then done_o rises tMRD after it and the sequencer may issue commands.  The
// command is combinational from the state; sgpu_sdram registers it onto the
// pins like every other command.
`include "sgpu_hw.vh"
module sgpu_sdram_init #(
  parameter integer  WAIT_CK = 10000,
  parameter integer  RP_CK   = 2,
  parameter integer  RFC_CK  = 4,
  parameter integer  MRD_CK  = 2,
  parameter integer  REFS    = 8,
  parameter [12:0]   MODE    = 13'h021
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  output reg  [3:0]  cmd_o,     // {csn, rasn, casn, wen}
  output reg  [12:0] a_o,
  output wire        done_o
);
  localparam [3:0] C_NOP = 4'b0111, C_PRE = 4'b0010, C_REF = 4'b0001, C_MRS = 4'b0000;
  localparam [2:0] S_WAIT = 3'd0, S_REF = 3'd1, S_MRS = 3'd2, S_END = 3'd3, S_DONE = 3'd4;
  localparam integer CW = $clog2(WAIT_CK + 1);
  localparam [31:0]   WAIT_32 = WAIT_CK - 1;
  localparam [31:0]   RP_32   = RP_CK - 1;
  localparam [31:0]   RFC_32  = RFC_CK - 1;
  localparam [31:0]   MRD_32  = MRD_CK - 1;
  localparam [31:0]   LAST_32 = REFS - 1;
  localparam [CW-1:0] WAIT_M1 = WAIT_32[CW-1:0];
  localparam [CW-1:0] RP_M1   = RP_32[CW-1:0];
  localparam [CW-1:0] RFC_M1  = RFC_32[CW-1:0];
  localparam [CW-1:0] MRD_M1  = MRD_32[CW-1:0];
  localparam [3:0]    LAST_REF = LAST_32[3:0];

  reg [2:0]    st_q, st_d;
  reg [CW-1:0] cnt_q, cnt_d;
  reg [3:0]    refs_q, refs_d;

  wire zero = (cnt_q == {CW{1'b0}});

  // Every state waits for its counter, then issues its command and loads
  // the wait that command needs before the next one.
  always @(*) begin
    st_d   = st_q;
    cnt_d  = zero ? cnt_q : cnt_q - 1'b1;
    refs_d = refs_q;
    cmd_o  = C_NOP;
    a_o    = 13'd0;
    case (st_q)
      S_WAIT: if (zero) begin
        cmd_o = C_PRE; a_o[10] = 1'b1; cnt_d = RP_M1; st_d = S_REF;
      end
      S_REF: if (zero) begin
        cmd_o = C_REF; cnt_d = RFC_M1; refs_d = refs_q + 1'b1;
        if (refs_q == LAST_REF) st_d = S_MRS;
      end
      S_MRS: if (zero) begin
        cmd_o = C_MRS; a_o = MODE; cnt_d = MRD_M1; st_d = S_END;
      end
      S_END: if (zero) st_d = S_DONE;
      default: ;
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= S_WAIT;
      cnt_q  <= WAIT_M1;
      refs_q <= 4'd0;
    end else begin
      st_q   <= st_d;
      cnt_q  <= cnt_d;
      refs_q <= refs_d;
    end
  end

  // done tMRD cycles after the MRS: the next command may go in that cycle
  assign done_o = (st_q == S_DONE) || ((st_q == S_END) && zero);
endmodule
