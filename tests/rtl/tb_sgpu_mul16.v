// sgpu_mul16: random and corner operands against a*b, cycle count <= 17;
// a second instance keeps 17 product bits and flags larger products.
`timescale 1ns/1ps
module tb_sgpu_mul16;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  reg start = 0; reg [15:0] a = 0, b = 0;
  wire busy; wire [31:0] p; wire ovf;
  sgpu_mul16 dut (.clk_i(clk), .rst_ni(rst_n), .start_i(start), .a_i(a), .b_i(b), .busy_o(busy), .p_o(p),
                  .ovf_o(ovf));
  wire busy17, ovf17; wire [16:0] p17;
  sgpu_mul16 #(.PW(17)) dut17 (.clk_i(clk), .rst_ni(rst_n), .start_i(start), .a_i(a), .b_i(b),
                               .busy_o(busy17), .p_o(p17), .ovf_o(ovf17));
  reg [31:0] want;
  integer ovfs = 0;
  integer k, n, seed, worst = 0;
  `include "tb_random.vh"
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 5;
    repeat (2) @(negedge clk); rst_n = 1;
    for (k = 0; k < 3000; k = k + 1) begin
      a = (k == 0) ? 16'hFFFF : (k == 1) ? 0 : (k == 2) ? 16'h1 : (k == 3) ? 16'h8000 :
          (k == 4) ? 16'd2 : (k == 5) ? 16'd511 : tb_random(0);
      b = (k == 0) ? 16'hFFFF : (k == 1) ? 16'hFFFF : (k == 2) ? 0 : (k == 3) ? 16'd4 :
          (k == 4) ? 16'hFFFF : (k == 5) ? 16'd257 : tb_random(0);
      if (k >= 6 && k % 3 == 0) b = b >> ($unsigned(tb_random(0)) % 16);  // small products too
      @(negedge clk); start = 1; @(negedge clk); start = 0; n = 1;
      while (busy) begin @(negedge clk); n = n + 1; end
      want = a * b;
      if (p !== want || ovf !== 1'b0) $fatal(1, "%0d * %0d = %0d, got %0d", a, b, want, p);
      if (busy17) $fatal(1, "PW=17 instance still busy");
      if (ovf17 !== (want >= 32'h20000)) $fatal(1, "PW=17: %0d * %0d: ovf %0d", a, b, ovf17);
      if (!ovf17 && p17 !== want[16:0]) $fatal(1, "PW=17: %0d * %0d = %0d, got %0d", a, b, want, p17);
      if (ovf17) ovfs = ovfs + 1;
      if (n > worst) worst = n;
    end
    if (ovfs == 0 || ovfs == 3000) $fatal(1, "PW=17 overflow not exercised both ways");
    if (worst > 17) $fatal(1, "multiply took %0d cycles", worst);
    $display("FIGURE mul16_worst_cycles %0d", worst);
    $display("PASS tb_sgpu_mul16");
    $finish;
  end
endmodule
