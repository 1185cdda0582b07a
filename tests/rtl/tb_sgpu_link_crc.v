// tb_sgpu_link_crc: the link's CRC-32 register at CRC_STEP 1, 2, 4 and 8,
// against a bit-serial CRC-32/MPEG-2 written here from the polynomial
// (docs/link-protocol.md, CRC).
// Each instance's register is predicted every cycle: a load XORs the byte
// into the top, then STEP bit steps a cycle for 8 / STEP cycles (busy_o
// exactly then, ending_o in the last of them and while idle); init wins
// over a load and stops the steps' effect on the register, not their
// count; a load during the steps restarts them.  Checks the check
// value of "123456789" (0x0376E6E7), random streams with random gaps, and
// that running the CRC's four bytes (high first) through it leaves 0 (what
// the parser checks a byte at a time).
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_link_crc_run #(parameter integer STEP = 1, parameter integer SEED = 1) (
  input  wire clk,
  input  wire rst_n,
  output reg  done
);
  localparam [31:0] POLY = 32'h04C11DB7;   // docs/link-protocol.md
  localparam integer NSTEPS = 8 / STEP;    // cycles of steps a byte

  integer seed = SEED;
  `include "tb_random.vh"

  reg        init = 1'b0, load = 1'b0;
  reg  [7:0] byte_in = 8'h00;
  wire [31:0] crc;
  wire       busy, ending;

  sgpu_link_crc #(.CRC_STEP(STEP)) dut (
    .clk_i(clk), .rst_ni(rst_n), .init_i(init), .load_i(load), .byte_i(byte_in),
    .crc_o(crc), .busy_o(busy), .ending_o(ending));

  // the model: the register and the bits of the last byte not yet shifted
  reg [31:0] m_crc;
  integer    m_bits;
  reg        m_known;                 // m_crc is defined (after the first init)
  initial begin m_known = 1'b0; m_bits = 0; m_crc = 32'd0; done = 1'b0; end

  function [31:0] bit_step(input [31:0] c);
    bit_step = c[31] ? ((c << 1) ^ POLY) : (c << 1);
  endfunction

  integer k;
  always @(posedge clk) begin
    if (rst_n) begin
      if (busy !== (m_bits != 0)) $fatal(1, "STEP %0d: busy_o %b, %0d bits left", STEP, busy, m_bits);
      if (ending !== (m_bits <= STEP)) $fatal(1, "STEP %0d: ending_o %b, %0d bits left", STEP, ending, m_bits);
      if (m_known && crc !== m_crc) $fatal(1, "STEP %0d: crc %h, expected %h", STEP, crc, m_crc);
      if (init) begin
        // the register is set; the step count runs on
        m_crc = 32'hFFFFFFFF;
        m_known = 1'b1;
        m_bits = (m_bits > STEP) ? m_bits - STEP : 0;
      end else if (load) begin
        m_crc = m_crc ^ {byte_in, 24'd0};
      end else begin
        for (k = 0; k < STEP && m_bits > 0; k = k + 1) begin
          m_crc = bit_step(m_crc);
          m_bits = m_bits - 1;
        end
      end
      if (load) m_bits = 8;
    end
  end

  // a byte, then `gap` idle cycles
  task put(input [7:0] b, input integer gap);
    begin
      load <= 1'b1; byte_in <= b;
      @(negedge clk);
      load <= 1'b0; byte_in <= tb_random(0);
      repeat (gap) @(negedge clk);
    end
  endtask

  task start;
    begin
      init <= 1'b1; @(negedge clk); init <= 1'b0;
    end
  endtask

  // the full CRC of the bytes fed so far, from the model's register
  reg [31:0] whole;
  reg [8*9:1] check_str;
  integer i, n, gap;
  initial begin
    @(posedge rst_n);
    @(negedge clk);
    // the check value
    check_str = "123456789";
    start;
    for (i = 9; i >= 1; i = i - 1) put(check_str[i*8 -: 8], NSTEPS);
    if (crc !== 32'h0376E6E7) $fatal(1, "STEP %0d: CRC of \"123456789\" %h, expected 0376E6E7", STEP, crc);
    // residue: the CRC's bytes, high first, bring the register to 0 (and
    // each matches the top byte as it goes in)
    whole = crc;
    for (i = 3; i >= 0; i = i - 1) begin
      if (crc[31:24] !== whole[i*8 +: 8]) $fatal(1, "STEP %0d: top byte %h, CRC byte %h", STEP, crc[31:24], whole[i*8 +: 8]);
      put(whole[i*8 +: 8], NSTEPS);
    end
    if (crc !== 32'd0) $fatal(1, "STEP %0d: residue %h, expected 0", STEP, crc);
    // random streams: gaps of 0 (a load during the steps) to 12 cycles,
    // init now and then, init with a load in the same cycle
    for (n = 0; n < 3000; n = n + 1) begin
      gap = $unsigned(tb_random(0)) % 13;
      if ((tb_random(0) & 31) == 0) start;
      if ((tb_random(0) & 63) == 0) begin
        init <= 1'b1; load <= 1'b1; byte_in <= tb_random(0);
        @(negedge clk);
        init <= 1'b0; load <= 1'b0;
      end
      put(tb_random(0), gap);
    end
    repeat (10) @(negedge clk);
    $display("tb_sgpu_link_crc: CRC_STEP %0d ok", STEP);
    done = 1'b1;
  end
endmodule

module tb_sgpu_link_crc;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;
  wire [3:0] done;

  tb_link_crc_run #(.STEP(1), .SEED(11)) r1 (.clk(clk), .rst_n(rst_n), .done(done[0]));
  tb_link_crc_run #(.STEP(2), .SEED(12)) r2 (.clk(clk), .rst_n(rst_n), .done(done[1]));
  tb_link_crc_run #(.STEP(4), .SEED(13)) r4 (.clk(clk), .rst_n(rst_n), .done(done[2]));
  tb_link_crc_run #(.STEP(8), .SEED(14)) r8 (.clk(clk), .rst_n(rst_n), .done(done[3]));

  initial begin
    repeat (3) @(posedge clk);
    rst_n <= 1'b1;
    wait (&done);
    $display("tb_sgpu_link_crc: PASS");
    $finish;
  end
  initial begin
    #50000000;
    $fatal(1, "tb_sgpu_link_crc: timeout");
  end
endmodule
