// sgpu_sdram_bank: the state of one SDRAM bank for sgpu_sdram's sequencer.
//
// Which row is open (if any) and three timers saying when the next ACTIVATE,
// READ/WRITE and PRECHARGE may go to this bank.  Each timer counts down to
// zero (zero = allowed); a command that needs "at least N cycles until X"
// loads N-1 unless the timer already waits longer, so the constraints of
// several commands combine by taking the latest.
//   ACT:   row open; READ/WRITE after RCD_CK, PRE after RAS_CK, ACT after RC_CK
//   PRE:   row closed; ACT after RP_CK
//   READ:  PRE after RD_PRE_CK (the burst must not be cut short)
//   WRITE: PRE after WR_PRE_CK (last data in, then tWR)
`include "sgpu_hw.vh"
module sgpu_sdram_bank #(
  parameter integer ROW_BITS  = 13,
  parameter integer TW        = 6,    // timer bits: every *_CK < 2^TW
  parameter integer RCD_CK    = 2,
  parameter integer RP_CK     = 2,
  parameter integer RAS_CK    = 3,
  parameter integer RC_CK     = 4,
  parameter integer RD_PRE_CK = 2,
  parameter integer WR_PRE_CK = 2
) (
  input  wire                clk_i,
  input  wire                rst_ni,
  input  wire                act_i,
  input  wire                pre_i,
  input  wire                rd_i,
  input  wire                wr_i,
  input  wire [ROW_BITS-1:0] row_i,
  output wire                open_o,
  output wire [ROW_BITS-1:0] row_o,
  output wire                act_ok_o,
  output wire                col_ok_o,
  output wire                pre_ok_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // Timers are TW bits: every *_CK below 2^TW.
  generate if (!(RCD_CK < (1 << TW) && RP_CK < (1 << TW) && RAS_CK < (1 << TW) && RC_CK < (1 << TW) &&
                 RD_PRE_CK < (1 << TW) && WR_PRE_CK < (1 << TW))) begin : g_bad_tw
    sgpu_precondition_failed_every_CK_below_2_pow_TW u_fail ();
  end endgenerate

  localparam [31:0]   RCD_32 = RCD_CK - 1;
  localparam [31:0]   RP_32  = RP_CK - 1;
  localparam [31:0]   RAS_32 = RAS_CK - 1;
  localparam [31:0]   RC_32  = RC_CK - 1;
  localparam [31:0]   RDP_32 = RD_PRE_CK - 1;
  localparam [31:0]   WRP_32 = WR_PRE_CK - 1;
  localparam [TW-1:0] RCD_M1 = RCD_32[TW-1:0];
  localparam [TW-1:0] RP_M1  = RP_32[TW-1:0];
  localparam [TW-1:0] RAS_M1 = RAS_32[TW-1:0];
  localparam [TW-1:0] RC_M1  = RC_32[TW-1:0];
  localparam [TW-1:0] RDP_M1 = RDP_32[TW-1:0];
  localparam [TW-1:0] WRP_M1 = WRP_32[TW-1:0];

  reg                open_q;
  reg [ROW_BITS-1:0] row_q;
  reg [TW-1:0]       act_q, col_q, pre_q;

  function [TW-1:0] later(input [TW-1:0] cnt, input [TW-1:0] need);
    reg [TW-1:0] dec;
    begin
      dec   = (cnt == {TW{1'b0}}) ? cnt : cnt - 1'b1;
      later = (need > dec) ? need : dec;
    end
  endfunction

  wire [TW-1:0] zero = {TW{1'b0}};

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q <= 1'b0;
      row_q  <= {ROW_BITS{1'b0}};
      act_q  <= zero;
      col_q  <= zero;
      pre_q  <= zero;
    end else begin
      if (act_i) begin
        open_q <= 1'b1;
        row_q  <= row_i;
      end else if (pre_i) begin
        open_q <= 1'b0;
      end
      act_q <= later(act_q, act_i ? RC_M1 : (pre_i ? RP_M1 : zero));
      col_q <= later(col_q, act_i ? RCD_M1 : zero);
      pre_q <= later(pre_q, act_i ? RAS_M1 : (rd_i ? RDP_M1 : (wr_i ? WRP_M1 : zero)));
    end
  end

  assign open_o   = open_q;
  assign row_o    = row_q;
  assign act_ok_o = (act_q == zero);
  assign col_ok_o = (col_q == zero);
  assign pre_ok_o = (pre_q == zero);
endmodule
