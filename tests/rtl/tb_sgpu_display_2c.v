// tb_sgpu_display_2c — tb_sgpu_display on sgpu_display_2c with PIX_CDC = 1:
// system side at 12 MHz, pixel side at 25.125 MHz (see tb_sgpu_display.v).
`define TB_DISPLAY_2C
`include "tb_sgpu_display.v"
