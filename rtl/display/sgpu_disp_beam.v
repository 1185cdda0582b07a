// sgpu_disp_beam — the pixel side of a display source: the timing
// generator, the read side of the scanout line buffer, pixel selection and
// expansion, the video output registers and the underflow counter.  All of
// it runs on clk_i, which is the pixel clock when the display crosses clock
// domains (sgpu_display_2c PIX_CDC = 1) and the system clock otherwise.
//
// The frame configuration (f_*_i) and the rows fetched so far (rows_done_i)
// come from the scanout DMA; they change only at the start of a frame and
// when a row has been fetched completely.  A pixel shows when its row has
// been fetched (rows_done_i > row); otherwise it is black and counts as an
// underflow (8 bits, saturating).
`include "sgpu_hw.vh"

module sgpu_disp_beam #(
  parameter integer LB_AW = 9,   // line buffer words per half (log2)
  parameter integer CW    = 10   // timing counter width
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire             pix_en_i,
  input  wire             tiny_i,       // TINY timing
  input  wire             f_en_i,       // frame configuration
  input  wire             f_fmt_i,
  input  wire [1:0]       f_hrep_i,
  input  wire [1:0]       f_vrep_i,
  input  wire [CW-1:0]    rows_done_i,
  output wire             lb_re_o,      // line buffer read port
  output wire [LB_AW:0]   lb_raddr_o,
  input  wire [31:0]      lb_rdata_i,
  output wire             vblank_o,     // strobe: first cycle of vertical blanking
  output wire             in_vblank_o,
  output wire [CW-1:0]    y_o,          // line, 0 = first active line
  output wire             row_end_o,    // strobe: the beam leaves the last line of a row
  output reg  [7:0]       underflow_o,
  output reg  [7:0]       vid_r_o,
  output reg  [7:0]       vid_g_o,
  output reg  [7:0]       vid_b_o,
  output reg              vid_hsync_o,
  output reg              vid_vsync_o,
  output reg              vid_de_o
);

  // ------------------------------------------------------------ timing
  wire [CW-1:0] tx, ty, h_act, v_act;
  wire          t_de, t_hs, t_vs;

  sgpu_vtiming #(.CW(CW)) u_timing (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .pix_en_i    (pix_en_i),
    .tiny_i      (tiny_i),
    .x_o         (tx),
    .y_o         (ty),
    .de_o        (t_de),
    .hsync_o     (t_hs),
    .vsync_o     (t_vs),
    .vblank_o    (vblank_o),
    .in_vblank_o (in_vblank_o),
    .h_active_o  (h_act),
    .v_active_o  (v_act)
  );

  assign y_o = ty;

  // The beam leaves the last line of a row: its half of the buffer is free.
  wire [2:0] vmask = (f_vrep_i == 2'd0) ? 3'd0 : (f_vrep_i == 2'd1) ? 3'd1 :
                     (f_vrep_i == 2'd2) ? 3'd3 : 3'd7;
  // h_act - 1 as a choice of two constants (not a subtractor after the choice)
  /* verilator lint_off WIDTH */
  localparam [CW-1:0] HA1   = `SGPU_TIMING_VGA_H_ACTIVE - 1;
  localparam [CW-1:0] T_HA1 = `SGPU_TIMING_TINY_H_ACTIVE - 1;
  /* verilator lint_on WIDTH */
  assign row_end_o = pix_en_i && t_de && (tx == (tiny_i ? T_HA1 : HA1)) && ((ty[2:0] & vmask) == vmask);

  // ------------------------------------------------------------ pixels
  wire [CW-1:0] b_px   = tx >> f_hrep_i;
  wire [CW-1:0] b_word = f_fmt_i ? (b_px >> 2) : (b_px >> 1);
  // Pixel in the word: the half (RGB565: pixel bit 0, RGB332: bit 1), then
  // for RGB332 the byte in the half (pixel bit 0).
  wire [1:0]    b_sub  = {f_fmt_i ? b_px[1] : b_px[0], b_px[0]};
  wire [CW-1:0] b_row  = ty >> f_vrep_i;
  wire          b_show = t_de && f_en_i;
  // Underflow is judged per row (cheaper than per word): a pixel counts when
  // its row has not been fetched completely.  With the display's memory
  // priority a row is complete a whole line before it is shown.
  wire          b_have = (b_row < rows_done_i);

  assign lb_re_o    = pix_en_i;
  assign lb_raddr_o = {b_row[0], b_word[LB_AW-1:0]};

  reg        s1_ok_q, s1_de_q, s1_hs_q, s1_vs_q;
  wire [8:0] uf_inc = {1'b0, underflow_o} + 9'd1;  // carry out: saturated
  reg  [1:0] s1_sub_q;

  // Pixel select and expansion to 8 bits per channel by bit replication.
  wire [15:0] p16  = s1_sub_q[1] ? lb_rdata_i[31:16] : lb_rdata_i[15:0];
  wire [7:0]  p8   = s1_sub_q[0] ? p16[15:8] : p16[7:0];
  wire [7:0]  px_r = f_fmt_i ? {p8[7:5], p8[7:5], p8[7:6]} : {p16[15:11], p16[15:13]};
  wire [7:0]  px_g = f_fmt_i ? {p8[4:2], p8[4:2], p8[4:3]} : {p16[10:5], p16[10:9]};
  wire [7:0]  px_b = f_fmt_i ? {4{p8[1:0]}}               : {p16[4:0], p16[4:2]};

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_ok_q     <= 1'b0;
      s1_de_q     <= 1'b0;
      s1_hs_q     <= 1'b1;
      s1_vs_q     <= 1'b1;
      s1_sub_q    <= 2'd0;
      vid_r_o     <= 8'd0;
      vid_g_o     <= 8'd0;
      vid_b_o     <= 8'd0;
      vid_hsync_o <= 1'b1;
      vid_vsync_o <= 1'b1;
      vid_de_o    <= 1'b0;
      underflow_o <= 8'd0;
    end else if (pix_en_i) begin
      s1_ok_q     <= b_show && b_have;
      s1_de_q     <= t_de;
      s1_hs_q     <= t_hs;
      s1_vs_q     <= t_vs;
      s1_sub_q    <= b_sub;
      vid_r_o     <= s1_ok_q ? px_r : 8'd0;
      vid_g_o     <= s1_ok_q ? px_g : 8'd0;
      vid_b_o     <= s1_ok_q ? px_b : 8'd0;
      vid_hsync_o <= s1_hs_q;
      vid_vsync_o <= s1_vs_q;
      vid_de_o    <= s1_de_q;
      if (b_show && !b_have && !uf_inc[8]) underflow_o <= uf_inc[7:0];
    end
  end

  // The display reads the active size from its own copy of the timing.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = ^{v_act, h_act, b_word >> LB_AW};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
