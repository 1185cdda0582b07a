// sgpu_vtiming — video timing generator of one display source.
//
// Two timings, chosen at run time by tiny_i: the parameterised main timing
// (default VESA 640x480@60, 800x525 total) and the TINY timing of hwspec for
// fast tests.  Position (x, y) counts from the first active pixel; the line
// after the last active line is the first line of vertical blanking.  The
// counters advance one pixel per cycle with pix_en_i.  de/hsync/vsync are
// functions of the current position (the display delays them to match its
// pixel pipeline).  A change of tiny_i restarts the counters at the start of
// vertical blanking of the new timing, so the display gets a whole vblank to
// set up the next frame.
//
// Cost: no magnitude comparators.  de/hsync/vsync/in_vblank are flags that
// change when the counter reaches a segment boundary (equality against the
// last position before the change in the selected timing), so each boundary
// costs one equality compare.  Every segment is assumed non-empty (hwspec
// timings).
`include "sgpu_hw.vh"

module sgpu_vtiming #(
  parameter integer CW       = 10,  // counter width
  parameter integer H_ACTIVE = `SGPU_TIMING_VGA_H_ACTIVE,
  parameter integer H_FP     = `SGPU_TIMING_VGA_H_FP,
  parameter integer H_SYNC   = `SGPU_TIMING_VGA_H_SYNC,
  parameter integer H_BP     = `SGPU_TIMING_VGA_H_BP,
  parameter integer V_ACTIVE = `SGPU_TIMING_VGA_V_ACTIVE,
  parameter integer V_FP     = `SGPU_TIMING_VGA_V_FP,
  parameter integer V_SYNC   = `SGPU_TIMING_VGA_V_SYNC,
  parameter integer V_BP     = `SGPU_TIMING_VGA_V_BP,
  parameter integer SYNC_POS = `SGPU_TIMING_VGA_SYNC_POSITIVE,
  parameter integer T_H_ACTIVE = `SGPU_TIMING_TINY_H_ACTIVE,
  parameter integer T_H_FP     = `SGPU_TIMING_TINY_H_FP,
  parameter integer T_H_SYNC   = `SGPU_TIMING_TINY_H_SYNC,
  parameter integer T_H_BP     = `SGPU_TIMING_TINY_H_BP,
  parameter integer T_V_ACTIVE = `SGPU_TIMING_TINY_V_ACTIVE,
  parameter integer T_V_FP     = `SGPU_TIMING_TINY_V_FP,
  parameter integer T_V_SYNC   = `SGPU_TIMING_TINY_V_SYNC,
  parameter integer T_V_BP     = `SGPU_TIMING_TINY_V_BP,
  parameter integer T_SYNC_POS = `SGPU_TIMING_TINY_SYNC_POSITIVE
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  input  wire          pix_en_i,
  input  wire          tiny_i,      // select the TINY timing
  output wire [CW-1:0] x_o,         // pixel in the line, 0 = first active pixel
  output wire [CW-1:0] y_o,         // line, 0 = first active line
  output wire          de_o,
  output wire          hsync_o,     // polarity applied
  output wire          vsync_o,     // polarity applied
  output wire          vblank_o,    // one-cycle strobe: the first cycle of vertical blanking
  output wire          in_vblank_o,
  output wire [CW-1:0] h_active_o,  // active size of the selected timing (follows tiny_i
                                    // at once, so a register read right after the write sees it)
  output wire [CW-1:0] v_active_o
);

  // Truncation to CW bits is intended (CW covers the totals).  Boundaries are
  // the last position before each change.
  /* verilator lint_off WIDTH */
  localparam [CW-1:0] HA  = H_ACTIVE;
  localparam [CW-1:0] HA1 = H_ACTIVE - 1;
  localparam [CW-1:0] HS1 = H_ACTIVE + H_FP - 1;
  localparam [CW-1:0] HE1 = H_ACTIVE + H_FP + H_SYNC - 1;
  localparam [CW-1:0] HT1 = H_ACTIVE + H_FP + H_SYNC + H_BP - 1;
  localparam [CW-1:0] VA  = V_ACTIVE;
  localparam [CW-1:0] VA1 = V_ACTIVE - 1;
  localparam [CW-1:0] VS1 = V_ACTIVE + V_FP - 1;
  localparam [CW-1:0] VE1 = V_ACTIVE + V_FP + V_SYNC - 1;
  localparam [CW-1:0] VT1 = V_ACTIVE + V_FP + V_SYNC + V_BP - 1;
  localparam [CW-1:0] T_HA  = T_H_ACTIVE;
  localparam [CW-1:0] T_HA1 = T_H_ACTIVE - 1;
  localparam [CW-1:0] T_HS1 = T_H_ACTIVE + T_H_FP - 1;
  localparam [CW-1:0] T_HE1 = T_H_ACTIVE + T_H_FP + T_H_SYNC - 1;
  localparam [CW-1:0] T_HT1 = T_H_ACTIVE + T_H_FP + T_H_SYNC + T_H_BP - 1;
  localparam [CW-1:0] T_VA  = T_V_ACTIVE;
  localparam [CW-1:0] T_VA1 = T_V_ACTIVE - 1;
  localparam [CW-1:0] T_VS1 = T_V_ACTIVE + T_V_FP - 1;
  localparam [CW-1:0] T_VE1 = T_V_ACTIVE + T_V_FP + T_V_SYNC - 1;
  localparam [CW-1:0] T_VT1 = T_V_ACTIVE + T_V_FP + T_V_SYNC + T_V_BP - 1;
  /* verilator lint_on WIDTH */
  localparam          POS   = (SYNC_POS != 0);
  localparam          T_POS = (T_SYNC_POS != 0);

  reg          tiny_q;
  reg [CW-1:0] x_q, x_d, y_q, y_d;
  reg          vblank_q, vblank_d;
  reg          hde_q, hde_d, hs_q, hs_d;   // x inside the active / sync segment
  reg          vde_q, vde_d, vs_q, vs_d;   // y inside the active / sync segment

  // Boundary hits of the selected timing.
  wire x_ha1 = (x_q == (tiny_q ? T_HA1 : HA1));
  wire x_hs1 = (x_q == (tiny_q ? T_HS1 : HS1));
  wire x_he1 = (x_q == (tiny_q ? T_HE1 : HE1));
  wire x_ht1 = (x_q == (tiny_q ? T_HT1 : HT1));
  wire y_va1 = (y_q == (tiny_q ? T_VA1 : VA1));
  wire y_vs1 = (y_q == (tiny_q ? T_VS1 : VS1));
  wire y_ve1 = (y_q == (tiny_q ? T_VE1 : VE1));
  wire y_vt1 = (y_q == (tiny_q ? T_VT1 : VT1));
  wire pos   = tiny_q ? T_POS : POS;

  always @(*) begin
    x_d      = x_q;
    y_d      = y_q;
    hde_d    = hde_q;
    hs_d     = hs_q;
    vde_d    = vde_q;
    vs_d     = vs_q;
    vblank_d = 1'b0;
    if (tiny_i != tiny_q) begin
      // Mode change: restart at the start of vblank of the new timing.
      x_d      = {CW{1'b0}};
      y_d      = tiny_i ? T_VA : VA;
      hde_d    = 1'b1;
      hs_d     = 1'b0;
      vde_d    = 1'b0;
      vs_d     = 1'b0;
      vblank_d = 1'b1;
    end else if (pix_en_i) begin
      if (x_ht1) begin
        x_d   = {CW{1'b0}};
        hde_d = 1'b1;
        hs_d  = 1'b0;
        if (y_vt1) begin
          y_d   = {CW{1'b0}};
          vde_d = 1'b1;
          vs_d  = 1'b0;
        end else begin
          y_d = y_q + 1'b1;
          if (y_va1) vde_d = 1'b0;
          if (y_vs1) vs_d = 1'b1;
          if (y_ve1) vs_d = 1'b0;
        end
        vblank_d = y_va1;
      end else begin
        x_d = x_q + 1'b1;
        if (x_ha1) hde_d = 1'b0;
        if (x_hs1) hs_d = 1'b1;
        if (x_he1) hs_d = 1'b0;
      end
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tiny_q   <= 1'b0;
      x_q      <= {CW{1'b0}};
      y_q      <= {CW{1'b0}};
      vblank_q <= 1'b0;
      hde_q    <= 1'b1;
      hs_q     <= 1'b0;
      vde_q    <= 1'b1;
      vs_q     <= 1'b0;
    end else begin
      tiny_q   <= tiny_i;
      x_q      <= x_d;
      y_q      <= y_d;
      vblank_q <= vblank_d;
      hde_q    <= hde_d;
      hs_q     <= hs_d;
      vde_q    <= vde_d;
      vs_q     <= vs_d;
    end
  end

  assign x_o         = x_q;
  assign y_o         = y_q;
  assign de_o        = hde_q && vde_q;
  assign hsync_o     = hs_q ~^ pos;
  assign vsync_o     = vs_q ~^ pos;
  assign vblank_o    = vblank_q;
  assign in_vblank_o = !vde_q;
  assign h_active_o  = tiny_i ? T_HA : HA;
  assign v_active_o  = tiny_i ? T_VA : VA;

endmodule
