// sgpu_link_crc: the CRC-32/MPEG-2 register of the host link
// (docs/link-protocol.md, CRC: polynomial SGPU_LINK_CRC_POLY, initial value
// SGPU_LINK_CRC_INIT, MSB first, no reflection, no final XOR), CRC_STEP
// bits per clock cycle.  A byte loaded (load_i) is XORed into [31:24],
// then eight shift steps follow, CRC_STEP a cycle, 8 / CRC_STEP cycles in
// all (busy_o); a byte loaded while busy_o restarts the count (its user
// never does that).  The parser checks and the executor sends the four CRC
// bytes high first off crc_o[31:24]: running a byte equal to the top byte
// through the register zeroes the top byte, so the next byte moves up
// without the polynomial.
`include "sgpu_hw.vh"

module sgpu_link_crc #(
  // 1 (bit-serial: the fewest cells), 2, 4 or 8 (a byte in one cycle)
  parameter integer CRC_STEP = 1
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        init_i,     // set the register to SGPU_LINK_CRC_INIT (before load_i)
  input  wire        load_i,     // run byte_i through the register
  input  wire [7:0]  byte_i,
  output wire [31:0] crc_o,
  output wire        busy_o,     // steps of the last byte left
  output wire        ending_o    // idle or in the last step cycle: a byte may come next cycle
);

  localparam [3:0]  CSTEPS   = 4'd8 / CRC_STEP[3:0];   // cycles of steps a byte
  localparam [31:0] CRC_INIT = `SGPU_LINK_CRC_INIT;
  localparam [31:0] CRC_POLY = `SGPU_LINK_CRC_POLY;

  reg [31:0] crc_q;
  reg [3:0]  cstep_q;                 // step cycles left
  wire       busy = (cstep_q != 4'd0);

  // CRC_STEP shift steps of the register
  function [31:0] crc_steps(input [31:0] c);
    integer i;
    begin
      crc_steps = c;
      for (i = 0; i < CRC_STEP; i = i + 1)
        crc_steps = {crc_steps[30:0], 1'b0} ^ (CRC_POLY & {32{crc_steps[31]}});
    end
  endfunction

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cstep_q <= 4'd0;
    else         cstep_q <= load_i ? CSTEPS : (cstep_q - {3'd0, busy});
  end

  // no reset: the register is set to CRC_INIT before use
  always @(posedge clk_i) begin
    if (init_i)      crc_q <= CRC_INIT;
    else if (load_i) crc_q <= crc_q ^ {byte_i, 24'h000000};
    else if (busy)   crc_q <= crc_steps(crc_q);
  end

  assign crc_o    = crc_q;
  assign busy_o   = busy;
  assign ending_o = (cstep_q[3:1] == 3'd0);

endmodule
