// tb_sgpu_vtiming — the timing generator against the VESA 640x480@60 numbers
// and the TINY timing, every pixel clock of several whole frames.
//
// An independent reference beam (written from the VESA numbers, not from
// hwspec) runs next to the DUT; de/hsync/vsync/x/y/vblank/in_vblank are
// compared on every enabled clock.  Besides, the pulses are measured from
// the outputs alone (hsync low width and its distance from the end of
// active video, vsync low lines, line and frame totals).
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_vtiming;
  reg clk = 1'b0, rst_n = 1'b0, pix_en = 1'b1, tiny = 1'b0;
  always #5 clk = ~clk;

  wire [9:0] x, y, ha, va;
  wire de, hs, vs, vb, invb;

  sgpu_vtiming dut (
    .clk_i(clk), .rst_ni(rst_n), .pix_en_i(pix_en), .tiny_i(tiny),
    .x_o(x), .y_o(y), .de_o(de), .hsync_o(hs), .vsync_o(vs),
    .vblank_o(vb), .in_vblank_o(invb), .h_active_o(ha), .v_active_o(va));

  // Reference timing (VESA DMT 640x480@60 and the tiny mode of hwspec).
  integer HA, HFP, HS, HB, VA, VFP, VS, VB, HT, VT;
  task set_mode(input integer t);
    begin
      if (t) begin HA = 64;  HFP = 4;  HS = 8;  HB = 4;  VA = 48;  VFP = 2;  VS = 2; VB = 4;  end
      else   begin HA = 640; HFP = 16; HS = 96; HB = 48; VA = 480; VFP = 10; VS = 2; VB = 33; end
      HT = HA + HFP + HS + HB; VT = VA + VFP + VS + VB;
    end
  endtask

  integer px, ln;            // reference beam
  integer checked;           // enabled clocks compared
  integer vb_strobes;
  integer seed;
  `include "tb_random.vh"
  // measurements from the outputs alone
  integer hs_low, de_run, since_de_end, line_len, hs_period_ok, lines_in_frame, vs_low_lines;
  integer prev_hs, prev_vs, prev_de, frames_measured;

  task fail(input [8*64-1:0] what);
    begin
      $display("FAIL %0s at ref (%0d,%0d) dut (%0d,%0d) de=%b hs=%b vs=%b", what, px, ln, x, y, de, hs, vs);
      $fatal(1, "tb_sgpu_vtiming failed");
    end
  endtask

  // Compare with the reference before the clock edge, then advance it.
  task check_and_step;
    reg e_de, e_hs, e_vs;
    begin
      e_de = (px < HA) && (ln < VA);
      e_hs = !((px >= HA + HFP) && (px < HA + HFP + HS));   // negative polarity
      e_vs = !((ln >= VA + VFP) && (ln < VA + VFP + VS));
      if (x !== px || y !== ln) fail("position");
      if (de !== e_de) fail("de");
      if (hs !== e_hs) fail("hsync");
      if (vs !== e_vs) fail("vsync");
      if (invb !== (ln >= VA)) fail("in_vblank");
      if (ha !== HA || va !== VA) fail("active size");
      if (pix_en) begin
        checked = checked + 1;
        // pulse measurements, only from outputs
        if (de) de_run = de_run + 1;
        if (!de && prev_de) begin
          if (de_run != HA) fail("de run length");
          de_run = 0; since_de_end = 0;
        end
        if (!de) since_de_end = since_de_end + 1;
        if (!hs) hs_low = hs_low + 1;
        if (!hs && prev_hs && ln < VA && since_de_end != HFP + 1) fail("hsync front porch");
        if (hs && !prev_hs) begin
          if (hs_low != HS) fail("hsync width");
          hs_low = 0;
          if (line_len > 0 && line_len != HT) fail("line total");
          line_len = 0;
        end
        if (line_len >= 0) line_len = line_len + 1;
        prev_hs = hs; prev_de = de;
        px = px + 1;
        if (px == HT) begin
          px = 0;
          // a line ends: count vsync lines
          if (!vs) vs_low_lines = vs_low_lines + 1;
          lines_in_frame = lines_in_frame + 1;
          if (vs && !prev_vs) begin
            if (vs_low_lines != VS) fail("vsync lines");
            if (frames_measured > 0 && lines_in_frame != VT) fail("frame total");
            frames_measured = frames_measured + 1;
            vs_low_lines = 0; lines_in_frame = 0;
          end
          prev_vs = vs;
          ln = ln + 1;
          if (ln == VT) ln = 0;
        end
      end
    end
  endtask

  task reset_measure;
    begin
      hs_low = 0; de_run = 0; since_de_end = 0; line_len = -1000000; lines_in_frame = 0;
      vs_low_lines = 0; prev_hs = 1; prev_vs = 1; prev_de = 0; frames_measured = 0;
    end
  endtask

  // Run n clocks; the vblank strobe must come exactly when the reference
  // enters line VA.
  task run(input integer n, input integer pct_en);
    integer i;
    reg exp_vb;
    begin
      for (i = 0; i < n; i = i + 1) begin
        pix_en = ($unsigned(tb_random(0)) % 100) < pct_en;
        #1;
        check_and_step;
        @(posedge clk); #1;
        exp_vb = (px == 0 && ln == VA && pix_en);
        if (vb !== exp_vb) fail("vblank strobe");
        if (vb) vb_strobes = vb_strobes + 1;
        #3;
      end
    end
  endtask

  integer frames0, t_strobes;
  initial begin
    seed = 32'h5eed0001;
    if ($test$plusargs("seed")) if ($value$plusargs("seed=%d", seed)) ;
    checked = 0; vb_strobes = 0;
    // hwspec must carry the VESA numbers
    if (`SGPU_TIMING_VGA_H_TOTAL != 800 || `SGPU_TIMING_VGA_V_TOTAL != 525 ||
        `SGPU_TIMING_VGA_H_SYNC != 96 || `SGPU_TIMING_VGA_V_SYNC != 2 ||
        `SGPU_TIMING_VGA_H_FP != 16 || `SGPU_TIMING_VGA_V_FP != 10 ||
        `SGPU_TIMING_TINY_H_ACTIVE != 64 || `SGPU_TIMING_TINY_V_ACTIVE != 48)
      $fatal(1, "hwspec timing numbers differ from the test's reference");
    set_mode(0); px = 0; ln = 0; reset_measure;
    repeat (3) @(posedge clk);
    #2 rst_n = 1'b1;
    #2;
    // VESA mode, pixel clock every cycle: 2 frames and a bit.
    run(2 * 800 * 525 + 1000, 100);
    if (frames_measured < 2) $fatal(1, "too few frames measured in VGA mode");
    if (vb_strobes != 2) $fatal(1, "expected 2 vblank strobes, got %0d", vb_strobes);
    $display("VGA: %0d clocks checked, %0d frames measured", checked, frames_measured);
    frames0 = frames_measured;

    // Switch to TINY: restart at the start of vblank with one strobe.
    @(negedge clk);
    tiny = 1'b1; pix_en = 1'b0;
    @(posedge clk); #1;
    if (vb !== 1'b1) $fatal(1, "no vblank strobe on mode change");
    set_mode(1); px = 0; ln = VA; reset_measure;
    t_strobes = vb_strobes;
    #3;
    // TINY with a random pixel enable, 5 frames.
    run(5 * 80 * 56 * 2, 50);
    if (frames_measured < 3) $fatal(1, "too few frames measured in TINY mode");
    $display("TINY: %0d frames measured, %0d vblank strobes", frames_measured, vb_strobes - t_strobes);

    // Back to VGA, one more frame with the pixel enable always on.
    @(negedge clk);
    tiny = 1'b0; pix_en = 1'b0;
    @(posedge clk); #1;
    if (vb !== 1'b1) $fatal(1, "no vblank strobe on mode change back");
    set_mode(0); px = 0; ln = VA; reset_measure;
    #3;
    run(2 * 800 * 525, 100);
    if (frames_measured < 2) $fatal(1, "too few frames after switching back");
    $display("FIGURE vtiming_clocks_checked %0d", checked);
    $display("PASS tb_sgpu_vtiming");
    $finish;
  end
endmodule
