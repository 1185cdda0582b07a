// tb_sgpu_sdram_refresh: the refresh timer.  Nothing is owed while en_i is
// low; the first refresh falls due REFI_CK cycles after en_i rises and then
// every REFI_CK cycles however late each is paid (the timer runs free); the
// owed count saturates at 7 and exactly that many acks clear it; an ack in
// the cycle a refresh falls due leaves the count as it was.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_sdram_refresh;
  localparam integer REFI = 13;

  reg  clk = 1'b0;
  reg  rst_n = 1'b0;
  reg  en = 1'b0, ack = 1'b0;
  wire req;
  always #5 clk = ~clk;

  sgpu_sdram_refresh #(.REFI_CK(REFI)) dut (
    .clk_i(clk), .rst_ni(rst_n), .en_i(en), .ack_i(ack), .req_o(req));

  integer cyc = 0, t_en, t_rise, n, i;
  always @(posedge clk) cyc = cyc + 1;

  // next cycle (checks happen at the falling edge, after the flops moved)
  task tick;
    begin
      @(negedge clk);
    end
  endtask

  initial begin
    repeat (2) @(posedge clk);
    @(negedge clk) rst_n = 1'b1;
    repeat (30) begin
      tick;
      if (req) $fatal(1, "refresh owed while en_i is low");
    end
    en = 1'b1; t_en = cyc;
    // first refresh: REFI cycles of en_i
    while (!req) begin
      tick;
      if (cyc - t_en > REFI) $fatal(1, "no refresh %0d cycles after en_i", cyc - t_en);
    end
    if (cyc - t_en != REFI) $fatal(1, "first refresh after %0d cycles, want %0d", cyc - t_en, REFI);
    // paid at once, then at random delays below a period: due every REFI
    for (i = 0; i < 20; i = i + 1) begin
      t_rise = cyc;
      repeat (i % (REFI - 2)) tick;
      ack = 1'b1; tick; ack = 1'b0;
      if (req) $fatal(1, "still owed after the ack");
      while (!req) tick;
      if (cyc - t_rise != REFI) $fatal(1, "refresh %0d cycles after the last, want %0d", cyc - t_rise, REFI);
    end
    // unpaid for ten periods: saturates at 7
    repeat (10 * REFI) tick;
    n = 0;
    ack = 1'b1;
    while (req) begin tick; n = n + 1; end
    ack = 1'b0;
    if (n != 7) $fatal(1, "%0d acks cleared the owed count, want 7 (saturated)", n);
    // an ack in the cycle the next refresh falls due: the count stays
    while (!req) tick;              // one owed; the next is due REFI - 1 cycles on
    repeat (REFI - 1) tick;
    ack = 1'b1; tick; ack = 1'b0;
    if (!req) $fatal(1, "the ack in the due cycle was not matched by the new refresh");
    ack = 1'b1; tick; ack = 1'b0;
    if (req) $fatal(1, "one ack left a refresh owed");
    // en_i low again: the timer stops
    en = 1'b0;
    repeat (3 * REFI) begin
      tick;
      if (req) $fatal(1, "refresh owed with en_i low");
    end
    $display("tb_sgpu_sdram_refresh: PASS");
    $finish;
  end
endmodule
