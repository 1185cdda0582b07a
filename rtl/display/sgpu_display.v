// sgpu_display — one display source on one clock: sgpu_display_2c with
// PIX_CDC = 0, i.e. the timing generator and the pixel pipeline advance with
// pix_en_i on clk_i.  Scanout, flip rule, registers: see sgpu_display_2c.
// sgpu_top instantiates sgpu_display_2c itself (its PIX_CDC parameter picks
// one or two clocks); this wrapper keeps the one-clock port list for
// tb_sgpu_display, which runs it beside the two-clock form.
`include "sgpu_hw.vh"

module sgpu_display #(
  parameter integer AW    = 32,  // GPU memory address bits (log2 of its size); a
                                 // DISP_BASE beyond them is rejected
  parameter integer LB_AW = 9,   // line buffer words per half (log2)
  parameter integer CW    = 10   // timing counter width
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        pix_en_i,
  input  wire        reg_we_i,
  input  wire [`SGPU_SOURCE_STRIDE_LG-1:0] reg_addr_i,   // offset in the source block
  input  wire [31:0] reg_wdata_i,
  output wire [31:0] reg_rdata_o,
  output wire        reg_error_o,
  input  wire        flip_valid_i,
  output wire        flip_ready_o,
  input  wire [31:0] flip_addr_i,
  input  wire [2:0]  flip_interval_i,
  output wire        flip_pending_o,
  output wire        vblank_o,
  output wire [15:0] scanline_o,
  output wire        in_vblank_o,
  output wire        mem_req_valid_o,
  input  wire        mem_req_ready_i,
  output wire [31:0] mem_req_addr_o,
  input  wire        mem_rsp_valid_i,
  input  wire [31:0] mem_rsp_rdata_i,
  output wire [7:0]  vid_r_o,
  output wire [7:0]  vid_g_o,
  output wire [7:0]  vid_b_o,
  output wire        vid_hsync_o,
  output wire        vid_vsync_o,
  output wire        vid_de_o
);

  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_display_2c #(.AW(AW), .LB_AW(LB_AW), .CW(CW), .PIX_CDC(0)) u_disp (
    .clk_i(clk_i), .rst_ni(rst_ni), .pix_en_i(pix_en_i),
    .pix_clk_i(1'b0), .pix_rst_ni(1'b1),
    .reg_we_i(reg_we_i), .reg_addr_i(reg_addr_i), .reg_wdata_i(reg_wdata_i),
    .reg_rdata_o(reg_rdata_o), .reg_error_o(reg_error_o), .reg_kept_o(),
    .flip_valid_i(flip_valid_i), .flip_ready_o(flip_ready_o),
    .flip_addr_i(flip_addr_i), .flip_interval_i(flip_interval_i),
    .flip_pending_o(flip_pending_o), .vblank_o(vblank_o),
    .scanline_o(scanline_o), .in_vblank_o(in_vblank_o),
    .mem_req_valid_o(mem_req_valid_o), .mem_req_ready_i(mem_req_ready_i),
    .mem_req_addr_o(mem_req_addr_o),
    .mem_rsp_valid_i(mem_rsp_valid_i), .mem_rsp_rdata_i(mem_rsp_rdata_i),
    .vid_r_o(vid_r_o), .vid_g_o(vid_g_o), .vid_b_o(vid_b_o),
    .vid_hsync_o(vid_hsync_o), .vid_vsync_o(vid_vsync_o), .vid_de_o(vid_de_o));
  /* verilator lint_on PINCONNECTEMPTY */

endmodule
