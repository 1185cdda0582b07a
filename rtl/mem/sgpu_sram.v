// sgpu_sram: single-port synchronous RAM, a slave on the sgpu memory port.
//
// req_ready is always 1; a read returns its data (rsp_valid) in the next
// cycle; a write takes effect in the cycle it is accepted, with byte
// strobes.  The coding (one registered read that is skipped on writes, and
// byte-wide write enables) is what yosys maps to SB_SPRAM256KA on the
// iCE40UP5K with `synth_ice40 -spram` (BYTES = 131072: 32K x 32 = four
// 16K x 16 SPRAMs); elsewhere it becomes block RAM or a simulation array.
// Addresses wrap modulo BYTES (the chip never issues one outside memory).
`include "sgpu_hw.vh"

module sgpu_sram #(
  parameter integer BYTES = 131072    // power of two, >= 8
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        req_valid_i,
  output wire        req_ready_o,
  input  wire        req_write_i,
  input  wire [31:0] req_addr_i,
  input  wire [31:0] req_wdata_i,
  input  wire [3:0]  req_wstrb_i,
  output wire        rsp_valid_o,
  output wire [31:0] rsp_rdata_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // BYTES: word addresses wrap at BYTES / 4 (at least two words).
  generate if (!(BYTES >= 8 && (BYTES & (BYTES - 1)) == 0)) begin : g_bad_bytes
    sgpu_precondition_failed_BYTES_power_of_two_at_least_8 u_fail ();
  end endgenerate

  localparam integer WORDS = BYTES / 4;
  localparam integer AW = $clog2(WORDS);

  reg [31:0] mem_q [0:WORDS-1];
  reg [31:0] rdata_q;
  reg        rsp_valid_q;

  wire [AW-1:0] word_addr = req_addr_i[AW+1:2];
  wire          rd_en = req_valid_i && !req_write_i;
  wire          wr_en = req_valid_i && req_write_i;

  // Memory array: no reset (SPRAM/BRAM contents are not resettable).
  always @(posedge clk_i) begin
    if (wr_en) begin
      if (req_wstrb_i[0]) mem_q[word_addr][7:0]   <= req_wdata_i[7:0];
      if (req_wstrb_i[1]) mem_q[word_addr][15:8]  <= req_wdata_i[15:8];
      if (req_wstrb_i[2]) mem_q[word_addr][23:16] <= req_wdata_i[23:16];
      if (req_wstrb_i[3]) mem_q[word_addr][31:24] <= req_wdata_i[31:24];
    end else if (rd_en) begin
      rdata_q <= mem_q[word_addr];
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rsp_valid_q <= 1'b0;
    else         rsp_valid_q <= rd_en;
  end

  assign req_ready_o = 1'b1;
  assign rsp_valid_o = rsp_valid_q;
  assign rsp_rdata_o = rdata_q;

  // Only the word-address bits are decoded.
  wire unused_ok = &{1'b0, req_addr_i[31:AW+2], req_addr_i[1:0]};

endmodule
