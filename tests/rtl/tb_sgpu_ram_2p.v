// tb_sgpu_ram_2p: random writes and enabled reads against a shadow array;
// the output must hold while the read enable is low and a read sees every
// earlier write.
`timescale 1ns/1ps
module tb_sgpu_ram_2p;
  localparam AW = 6, DW = 32, N = 4000;
  reg clk = 0;
  always #5 clk = ~clk;
  reg we = 0, re = 0;
  reg [AW-1:0] waddr = 0, raddr = 0;
  reg [DW-1:0] wdata = 0;
  wire [DW-1:0] rdata;
  sgpu_ram_2p #(.AW(AW), .DW(DW)) dut (
    .clk_i(clk), .we_i(we), .waddr_i(waddr), .wdata_i(wdata),
    .re_i(re), .raddr_i(raddr), .rdata_o(rdata));

  reg [DW-1:0] shadow [0:(1<<AW)-1];
  reg [DW-1:0] expect_q;
  reg          valid_q;       // shadow entry of the last read was written
  reg          written [0:(1<<AW)-1];
  integer i, seed, reads;
  `include "tb_random.vh"
  initial begin
    seed = 7; reads = 0; valid_q = 0;
    for (i = 0; i < (1<<AW); i = i + 1) written[i] = 0;
    for (i = 0; i < N; i = i + 1) begin
      @(negedge clk);
      // check the read issued at the previous edge (or the held value)
      if (valid_q && rdata !== expect_q)
        $fatal(1, "read mismatch: got %h expected %h", rdata, expect_q);
      we = (tb_random(0) & 1);
      waddr = tb_random(0);
      wdata = tb_random(0);
      re = (tb_random(0) & 1);
      raddr = tb_random(0);
      // a read and a write to the same address in one cycle: read-old is not
      // promised, so keep them apart
      if (we && re && waddr == raddr) re = 0;
      if (re) begin
        valid_q = written[raddr];
        expect_q = shadow[raddr];
        reads = reads + 1;
      end
      @(posedge clk);
      #1;
      if (we) begin shadow[waddr] = wdata; written[waddr] = 1; end
    end
    if (reads < N / 4) $fatal(1, "too few reads (%0d)", reads);
    $display("tb_sgpu_ram_2p: %0d reads checked", reads);
    $finish;
  end
endmodule
