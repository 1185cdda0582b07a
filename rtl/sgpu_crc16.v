// sgpu_crc16: one byte step of the host link CRC (CRC-16/CCITT-FALSE:
// polynomial 0x1021, MSB first, not reflected; the caller starts from
// SGPU_LINK_CRC_INIT).  Purely combinational.
`include "sgpu_hw.vh"

module sgpu_crc16 (
  input  wire [15:0] crc_i,
  input  wire [7:0]  data_i,
  output wire [15:0] crc_o
);

  localparam [15:0] POLY = `SGPU_LINK_CRC_POLY;

  reg [15:0] c;
  integer i;

  always @(*) begin
    c = crc_i ^ {data_i, 8'h00};
    for (i = 0; i < 8; i = i + 1) begin
      c = c[15] ? ({c[14:0], 1'b0} ^ POLY) : {c[14:0], 1'b0};
    end
  end

  assign crc_o = c;

endmodule
