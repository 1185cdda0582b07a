// tb_sgpu_uart_rx: the 8N1 receiver against a bit-level sender.
// Random bytes, back to back and with gaps, at the nominal rate and with
// the sender's bit time off by -3 % and +3 %; a start-bit glitch shorter
// than half a bit is ignored; a byte with a 0 stop bit is dropped with
// frame_err_o; every byte appears exactly once.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_uart_rx;

  localparam integer CPB = 16;
  localparam real TCLK = 10.0;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #(TCLK / 2) clk = ~clk;

  reg        line = 1'b1;
  wire       valid, ferr;
  wire [7:0] data;

  sgpu_uart_rx #(.CLKS_PER_BIT(CPB)) dut (
    .clk_i(clk), .rst_ni(rst_n), .rx_i(line),
    .valid_o(valid), .data_o(data), .frame_err_o(ferr));

  integer seed = 32'h0A47_0001;
  `include "tb_random.vh"
  reg [7:0] expq [0:1023];
  integer   exp_wr = 0, exp_rd = 0, ferrs = 0;

  always @(posedge clk) begin
    if (valid) begin
      if (exp_rd == exp_wr) $fatal(1, "unexpected byte %h", data);
      if (data !== expq[exp_rd % 1024]) $fatal(1, "byte %0d = %h, want %h", exp_rd, data, expq[exp_rd % 1024]);
      exp_rd = exp_rd + 1;
    end
    if (ferr) ferrs = ferrs + 1;
    if (valid && ferr) $fatal(1, "valid and frame error together");
  end

  // send one character with bit time bt (ns) and the given stop bit
  task send(input [7:0] b, input real bt, input stop);
    integer i;
    begin
      line = 1'b0;
      #(bt);
      for (i = 0; i < 8; i = i + 1) begin
        line = b[i];
        #(bt);
      end
      line = stop;
      #(bt);
      line = 1'b1;
    end
  endtask

  integer i, n, f;
  real bt;
  reg [7:0] b;

  initial begin
    if ($value$plusargs("seed=%d", seed)) $display("seed %0d", seed);
    #(TCLK * 3.3);
    rst_n = 1'b1;
    #(TCLK * 20);
    for (f = 0; f < 3; f = f + 1) begin
      bt = CPB * TCLK * (f == 0 ? 1.0 : (f == 1 ? 0.97 : 1.03));
      for (i = 0; i < 100; i = i + 1) begin
        b = tb_random(0);
        if (i < 4) b = (i == 0) ? 8'h00 : (i == 1) ? 8'hFF : (i == 2) ? 8'h55 : 8'hA5;
        expq[exp_wr % 1024] = b;
        exp_wr = exp_wr + 1;
        send(b, bt, 1'b1);
        if (tb_random(0) % 3 == 0) #(TCLK * ($unsigned(tb_random(0)) % 50));
      end
      #(bt * 2);
      if (exp_rd != exp_wr) $fatal(1, "received %0d of %0d bytes", exp_rd, exp_wr);
    end
    // a glitch shorter than half a bit is not a start bit
    line = 1'b0;
    #(TCLK * (CPB / 2 - 3));
    line = 1'b1;
    #(CPB * TCLK * 12);
    if (exp_rd != exp_wr) $fatal(1, "a glitch produced a byte");
    // framing error: no byte, one frame_err strobe, then reception goes on
    n = ferrs;
    send(8'h3C, CPB * TCLK, 1'b0);
    #(CPB * TCLK * 2);
    if (ferrs != n + 1) $fatal(1, "framing error not reported (%0d)", ferrs - n);
    if (exp_rd != exp_wr) $fatal(1, "a byte with a bad stop bit was delivered");
    expq[exp_wr % 1024] = 8'hC3;
    exp_wr = exp_wr + 1;
    send(8'hC3, CPB * TCLK, 1'b1);
    #(CPB * TCLK * 2);
    if (exp_rd != exp_wr) $fatal(1, "no byte after a framing error");
    $display("tb_sgpu_uart_rx: PASS (%0d bytes)", exp_rd);
    $finish;
  end

  initial begin
    // in 1 ms steps: Verilator 5.006 wraps a single delay at 2^32 ps
    repeat (50) #1000000;
    $fatal(1, "tb_sgpu_uart_rx: timeout");
  end

endmodule
