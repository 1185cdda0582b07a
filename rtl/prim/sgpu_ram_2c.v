// sgpu_ram_2c — simple dual-port RAM with a clock per port: one write port
// (wclk_i), one read port (rclk_i) with a synchronous, enabled read.  With
// both clocks the same it behaves like sgpu_ram_2p.  The plain coding is
// what yosys maps to SB_RAM40_4K (iCE40, separate WCLK and RCLK) or DP16KD
// (ECP5).  A read of the word being written in the same instant returns
// undefined data: users keep the two ports on different words (the
// display's line buffer halves).
module sgpu_ram_2c #(
  parameter integer AW = 8,
  parameter integer DW = 32
) (
  input  wire          wclk_i,
  input  wire          we_i,
  input  wire [AW-1:0] waddr_i,
  input  wire [DW-1:0] wdata_i,
  input  wire          rclk_i,
  input  wire          re_i,
  input  wire [AW-1:0] raddr_i,
  output reg  [DW-1:0] rdata_o
);

  reg [DW-1:0] mem [0:(1<<AW)-1];

  always @(posedge wclk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
  end

  always @(posedge rclk_i) begin
    if (re_i) rdata_o <= mem[raddr_i];
  end

endmodule
