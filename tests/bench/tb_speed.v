// tb_speed.v — the same RTL as the Verilator model (sgpu_top, 2 nodes,
// 2 sources, 8 MiB), run under Icarus Verilog for `make bench`'s model-speed
// comparison: display source 0 on at 640x480 RGB565, zero-wait memory that
// answers every read in the next cycle, nothing else (the "idle" workload of
// tests/bench/bench_model.c).  Runs +cycles=N clock cycles (default 20000)
// and prints "ICARUS cycles=N".  tools/bench.sh times it.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_speed;
  reg clk = 0, rst_n = 0;
  reg host_valid = 0, host_write = 0;
  reg [31:0] host_addr = 0, host_wdata = 0;
  wire host_ready, host_rsp_valid;
  wire [31:0] host_rdata;
  wire mem_valid, mem_write;
  wire [31:0] mem_addr, mem_wdata;
  wire [3:0] mem_wstrb;
  reg mem_rsp_valid = 0;
  reg [31:0] mem_rdata = 0;
  wire [15:0] r, g, b;
  wire [1:0] hs, vs, de;
  wire irq;
  sgpu_top #(.NODES(2), .SOURCES(2), .MEM_BYTES(8388608)) dut (
    .clk_i(clk), .rst_ni(rst_n), .pix_en_i(1'b1), .pix_clk_i(1'b0), .pix_rst_ni(1'b1),
    .host_req_valid_i(host_valid), .host_req_ready_o(host_ready), .host_req_write_i(host_write),
    .host_req_addr_i(host_addr), .host_req_wdata_i(host_wdata), .host_req_wstrb_i(4'hF),
    .host_rsp_valid_o(host_rsp_valid), .host_rsp_rdata_o(host_rdata),
    .mem_req_valid_o(mem_valid), .mem_req_ready_i(1'b1), .mem_req_write_o(mem_write),
    .mem_req_addr_o(mem_addr), .mem_req_wdata_o(mem_wdata), .mem_req_wstrb_o(mem_wstrb),
    .mem_rsp_valid_i(mem_rsp_valid), .mem_rsp_rdata_i(mem_rdata),
    .vid_r_o(r), .vid_g_o(g), .vid_b_o(b), .vid_hsync_o(hs), .vid_vsync_o(vs), .vid_de_o(de),
    .irq_o(irq), .busy_o(), .fault_o(), .cycle_o());
  always #20 clk = ~clk;
  // Zero-wait memory: a read accepted in one cycle answers in the next; the
  // data is a function of the address (the picture does not matter here).
  always @(posedge clk) begin
    mem_rsp_valid <= mem_valid && !mem_write;
    mem_rdata <= mem_addr ^ 32'h5A5A5A5A;
  end
  task reg_write(input [31:0] a, input [31:0] d);
    begin
      @(negedge clk);
      host_valid = 1; host_write = 1; host_addr = a; host_wdata = d;
      @(posedge clk);
      while (!host_ready) @(posedge clk);
      @(negedge clk);
      host_valid = 0; host_write = 0;
    end
  endtask
  integer cycles, n;
  initial begin
    if (!$value$plusargs("cycles=%d", cycles)) cycles = 20000;
    repeat (4) @(posedge clk);
    rst_n = 1;
    reg_write(32'h80000000 | (`SGPU_SOURCE_BASE + `SGPU_SREG_DISP_BASE), 32'h00100000);
    reg_write(32'h80000000 | (`SGPU_SOURCE_BASE + `SGPU_SREG_DISP_PITCH), 32'd1280);
    reg_write(32'h80000000 | (`SGPU_SOURCE_BASE + `SGPU_SREG_DISP_CONTROL), 32'd1);
    for (n = 0; n < cycles; n = n + 1) @(posedge clk);
    $display("ICARUS cycles=%0d", cycles);
    $finish;
  end
endmodule
