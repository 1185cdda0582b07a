// sgpu_ram_2p — simple dual-port RAM: one write port, one read port with a
// synchronous, enabled read (the output holds while the reader stalls).
// Written in the plain form yosys maps to SB_RAM40_4K (iCE40) / DP16KD
// (ECP5); used for the 2D engine's chunk buffer.  A read of the word being
// written in the same cycle returns undefined data (users keep the ports on
// different words): no_rw_check tells yosys so, which spares the 72
// flip-flops and 37 LUTs of a read-during-write bypass around the block RAM.
module sgpu_ram_2p #(
  parameter integer AW = 8,
  parameter integer DW = 32
) (
  input  wire          clk_i,
  input  wire          we_i,
  input  wire [AW-1:0] waddr_i,
  input  wire [DW-1:0] wdata_i,
  input  wire          re_i,
  input  wire [AW-1:0] raddr_i,
  output reg  [DW-1:0] rdata_o
);

  (* no_rw_check *)
  reg [DW-1:0] mem [0:(1<<AW)-1];

  always @(posedge clk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
  end

  always @(posedge clk_i) begin
    if (re_i) rdata_o <= mem[raddr_i];
  end

endmodule
