// ulx3s_board: the ULX3S as the board-level simulation sees it: the image
// (rtl/boards/ulx3s_top.v) and, on its SDRAM pins, the SDRAM model of the
// controller's benches (tests/rtl/sgpu_sdram_model.vh), which checks every
// command against the AS4C32M16SB's timing rules and stops the simulation
// ($fatal, naming the rule) on a violation.  The model is clocked by the
// board's sdram_clk pin (the inverse of the system clock) and set up as
// the board's part: 30 MHz, 512 columns, 8192 rows, 8 power-up refreshes.
// It stores every row of every bank (SLOT_BITS 13: all 32 MB, as the
// board has; sgpu-sim --board ulx3s serves the whole memory, whose upper
// half is the library's aperture segment).
// The SDRAM pins and the model's command counters are outputs, for the
// harness's bandwidth figures (tests/ulx3s/ulx3s_sim.cpp).
`include "sgpu_sdram_model.vh"
module ulx3s_board (
  input  wire        clk_25m_i,
  input  wire        btn_fire1_i,
  input  wire        uart_rx_i,
  output wire        uart_tx_o,
  output wire [7:0]  led_o,
  output wire [3:0]  gpdi_dp_o,
  output wire        wifi_gpio0_o,
  input  wire        clk_sys_sim_i,
  input  wire        clk_pix_sim_i,
  input  wire        clk_ser_sim_i,
  // the SDRAM pins as the harness sees them
  output wire        sd_clk_o,
  output wire [3:0]  sd_cmd_o,       // {csn, rasn, casn, wen}
  output wire [1:0]  sd_ba_o,
  output wire [12:0] sd_a_o
);
  wire        s_clk, s_cke, s_csn, s_rasn, s_casn, s_wen, s_oe;
  wire [1:0]  s_ba, s_dqm;
  wire [12:0] s_a;
  wire [15:0] s_dq_c, s_dq_m;

  ulx3s_top u_top (
    .clk_25m_i(clk_25m_i), .btn_fire1_i(btn_fire1_i), .uart_rx_i(uart_rx_i), .uart_tx_o(uart_tx_o),
    .led_o(led_o), .gpdi_dp_o(gpdi_dp_o), .wifi_gpio0_o(wifi_gpio0_o),
    .sdram_clk_o(s_clk), .sdram_cke_o(s_cke), .sdram_csn_o(s_csn), .sdram_rasn_o(s_rasn),
    .sdram_casn_o(s_casn), .sdram_wen_o(s_wen), .sdram_ba_o(s_ba), .sdram_a_o(s_a),
    .sdram_dqm_o(s_dqm), .sdram_d_sim_o(s_dq_c), .sdram_d_oe_sim_o(s_oe), .sdram_d_sim_i(s_dq_m),
    .clk_sys_sim_i(clk_sys_sim_i), .clk_pix_sim_i(clk_pix_sim_i), .clk_ser_sim_i(clk_ser_sim_i));

  sgpu_sdram_model #(.CLK_MHZ(30), .COL_BITS(9), .ROW_BITS(13), .SLOT_BITS(13), .INIT_REFS(8)) u_sdram (
    .clk_i(s_clk), .cke_i(s_cke), .csn_i(s_csn), .rasn_i(s_rasn), .casn_i(s_casn), .wen_i(s_wen),
    .ba_i(s_ba), .a_i(s_a), .dqm_i(s_dqm), .dq_i(s_dq_c), .dq_oe_i(s_oe), .dq_o(s_dq_m));

  assign sd_clk_o = s_clk;
  assign sd_cmd_o = {s_csn, s_rasn, s_casn, s_wen};
  assign sd_ba_o  = s_ba;
  assign sd_a_o   = s_a;
endmodule
