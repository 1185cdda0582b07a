// sgpu_display — one display source: timing, scanout DMA, line buffer,
// pixel replication and formats, flip unit, source registers.
//
// Scanout: a framebuffer row (one row of source pixels, shown on 1/2/4/8
// lines with vertical replication) is fetched whole into one half of a
// double line buffer while the other half is on screen.  Row k may be
// fetched once row k-2 has left the screen (credit_q), so a row has more than
// a full line time to arrive.  At the start of vblank the frame restarts:
// configuration (enable, format, replication, pitch) and the scanout address
// are taken for the whole next frame, and rows 0 and 1 are fetched during
// vblank.  All reads of a row go straight into the line buffer, so every
// issued read has room for its response.
//
// Flips: one pending slot.  Interval 1..4 flips are taken at a vblank start
// when vblanks_since_flip + 1 >= N; IMMEDIATE and ALLOW_TEARING the cycle
// after they are queued and show from the next row whose fetch starts.
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
  input  wire [5:0]  reg_addr_i,
  input  wire [31:0] reg_wdata_i,
  output reg  [31:0] reg_rdata_o,
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
  output reg  [31:0] mem_req_addr_o,
  input  wire        mem_rsp_valid_i,
  input  wire [31:0] mem_rsp_rdata_i,
  output reg  [7:0]  vid_r_o,
  output reg  [7:0]  vid_g_o,
  output reg  [7:0]  vid_b_o,
  output reg         vid_hsync_o,
  output reg         vid_vsync_o,
  output reg         vid_de_o
);

  localparam integer CTRL_W = `SGPU_DISP_TINY + 1;

  // ------------------------------------------------------------ registers
  reg [CTRL_W-1:0] ctrl_q;
  reg [15:2]       pitch_q;
  reg [AW-1:2]     host_base_q;
  reg              host_base_set_q;
  reg [AW-1:2]     cur_addr_q;
  reg [AW-1:2]     pend_addr_q;
  reg [2:0]        pend_int_q;
  reg              pend_valid_q;
  reg [1:0]        vsf_q;          // vblanks since the last flip, saturating at 3 (enough for N <= 4)
  reg [31:0]       vblank_cnt_q;
  reg [15:0]       flip_cnt_q;     // 16 bits keep the iCE40 build small
  reg [7:0]        underflow_q;    // 8 bits: it must stay 0, saturates
  reg              err_q;

  // ------------------------------------------------------------ timing
  wire [CW-1:0] tx, ty, h_act, v_act;
  wire          t_de, t_hs, t_vs, t_vb, t_invb;

  sgpu_vtiming #(.CW(CW)) u_timing (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .pix_en_i    (pix_en_i),
    .tiny_i      (ctrl_q[`SGPU_DISP_TINY]),
    .x_o         (tx),
    .y_o         (ty),
    .de_o        (t_de),
    .hsync_o     (t_hs),
    .vsync_o     (t_vs),
    .vblank_o    (t_vb),
    .in_vblank_o (t_invb),
    .h_active_o  (h_act),
    .v_active_o  (v_act)
  );

  // ------------------------------------------------------------ host writes
  wire wr_ctrl  = reg_we_i && (reg_addr_i == `SGPU_SREG_DISP_CONTROL);
  wire wr_base  = reg_we_i && (reg_addr_i == `SGPU_SREG_DISP_BASE);
  wire wr_pitch = reg_we_i && (reg_addr_i == `SGPU_SREG_DISP_PITCH);
  wire bad_ctrl  = |reg_wdata_i[31:CTRL_W];
  wire bad_base  = (|reg_wdata_i[1:0]) || (|(reg_wdata_i >> AW));
  wire bad_pitch = (|reg_wdata_i[1:0]) || (|reg_wdata_i[31:16]);
  wire reject    = (wr_ctrl && bad_ctrl) || (wr_base && bad_base) || (wr_pitch && bad_pitch);

  // ------------------------------------------------------------ flip unit
  wire       pend_imm = (pend_int_q == `SGPU_FLIP_INTERVAL_IMMEDIATE) || (pend_int_q > 3'd4);
  wire [2:0] vsf_inc  = {1'b0, vsf_q} + 3'd1;
  wire       take_imm = pend_valid_q && pend_imm;
  wire       take_vs  = t_vb && pend_valid_q && !pend_imm && (vsf_inc >= pend_int_q);
  wire       take     = take_imm || take_vs;
  wire       accept   = flip_valid_i && !pend_valid_q;

  assign flip_ready_o   = !pend_valid_q;
  assign flip_pending_o = pend_valid_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctrl_q          <= {CTRL_W{1'b0}};
      pitch_q         <= 14'd0;
      host_base_q     <= {(AW-2){1'b0}};
      host_base_set_q <= 1'b0;
      cur_addr_q      <= {(AW-2){1'b0}};
      pend_addr_q     <= {(AW-2){1'b0}};
      pend_int_q      <= 3'd0;
      pend_valid_q    <= 1'b0;
      vsf_q           <= 2'd3;       // no flip yet: the first one waits for no one
      vblank_cnt_q    <= 32'd0;
      flip_cnt_q      <= 16'd0;
      err_q           <= 1'b0;
    end else begin
      err_q <= reject;
      if (wr_ctrl && !bad_ctrl) ctrl_q <= reg_wdata_i[CTRL_W-1:0];
      if (wr_pitch && !bad_pitch) pitch_q <= reg_wdata_i[15:2];

      if (accept) begin
        pend_addr_q  <= flip_addr_i[AW-1:2];
        pend_int_q   <= flip_interval_i;
        pend_valid_q <= 1'b1;
      end else if (take) begin
        pend_valid_q <= 1'b0;
      end

      // A flip wins over a host DISP_BASE write at the same vblank.
      if (take) cur_addr_q <= pend_addr_q;
      else if (t_vb && host_base_set_q) cur_addr_q <= host_base_q;

      if (wr_base && !bad_base) begin
        host_base_q     <= reg_wdata_i[AW-1:2];
        host_base_set_q <= 1'b1;
      end else if (t_vb) begin
        host_base_set_q <= 1'b0;
      end

      if (take) vsf_q <= 2'd0;
      else if (t_vb && vsf_q != 2'd3) vsf_q <= vsf_q + 2'd1;

      if (take) flip_cnt_q <= flip_cnt_q + 16'd1;
      if (t_vb) vblank_cnt_q <= vblank_cnt_q + 32'd1;
    end
  end

  assign reg_error_o = err_q;

  // ------------------------------------------------------------ scanout DMA
  reg              restart_pend_q;
  reg              f_en_q, f_fmt_q;
  reg [1:0]        f_hrep_q, f_vrep_q;
  reg [15:2]       f_pitch_q;
  reg              f_tiny_q;            // timing of the frame
  reg [CW-1:0]     rows_done_q;         // rows fetched completely; rows go in order,
                                        // one at a time, so it is also the next row
  reg [1:0]        credit_q;            // free line buffer halves: rows that may be fetched
  reg [AW-1:2]     row_off_q;
  reg              fetching_q;
  reg              fetch_bank_q;        // half of the line buffer being filled
  reg [CW-1:0]     req_left_q, rsp_cnt_q;
  reg [AW-1:2]     req_addr_q;

  wire [1:0]    c_hrep  = ctrl_q[`SGPU_DISP_HREP +: 2];
  wire [1:0]    c_vrep  = ctrl_q[`SGPU_DISP_VREP +: 2];
  wire          c_fmt   = ctrl_q[`SGPU_DISP_FORMAT];

  // Rows per frame and words per row - 1 of the frame: tables of constants
  // indexed by the frame's timing, format and replication (the timing
  // generator runs with its default parameters).
  function [CW-1:0] wpr_m1_of(input integer k);  // k = {tiny, fmt, hrep}
    integer px;
    begin
      px = (k >= 8) ? `SGPU_TIMING_TINY_H_ACTIVE : `SGPU_TIMING_VGA_H_ACTIVE;
      px = px >> (k % 4);
      /* verilator lint_off WIDTH */
      wpr_m1_of = (((k / 4) % 2) ? (px >> 2) : (px >> 1)) - 1;
      /* verilator lint_on WIDTH */
    end
  endfunction
  function [CW-1:0] rows_of(input integer k);  // k = {tiny, vrep}
    begin
      /* verilator lint_off WIDTH */
      rows_of = ((k >= 4) ? `SGPU_TIMING_TINY_V_ACTIVE : `SGPU_TIMING_VGA_V_ACTIVE) >> (k % 4);
      /* verilator lint_on WIDTH */
    end
  endfunction

  reg [CW-1:0] f_wpr_m1, f_rows;
  integer      k;
  always @(*) begin
    f_wpr_m1 = {CW{1'b0}};
    f_rows   = {CW{1'b0}};
    for (k = 0; k < 16; k = k + 1) begin
      if ({f_tiny_q, f_fmt_q, f_hrep_q} == k[3:0]) f_wpr_m1 = wpr_m1_of(k);
    end
    for (k = 0; k < 8; k = k + 1) begin
      if ({f_tiny_q, f_vrep_q} == k[2:0]) f_rows = rows_of(k);
    end
  end

  reg [31:0] pitch_ext;
  always @(*) begin
    pitch_ext = 32'd0;
    pitch_ext[15:2] = f_pitch_q;
  end

  wire do_restart = restart_pend_q && !fetching_q;
  wire start_row  = !fetching_q && !restart_pend_q && f_en_q &&
                    (rows_done_q != f_rows) && (credit_q != 2'd0);
  wire rsp_take   = mem_rsp_valid_i && fetching_q;
  wire row_done   = rsp_take && (rsp_cnt_q == f_wpr_m1);
  wire req_fire   = mem_req_valid_o && mem_req_ready_i;

  // The beam leaves the last line of a row: its half of the buffer is free.
  wire [2:0] vmask   = (f_vrep_q == 2'd0) ? 3'd0 : (f_vrep_q == 2'd1) ? 3'd1 :
                       (f_vrep_q == 2'd2) ? 3'd3 : 3'd7;
  wire       row_end = pix_en_i && t_de && (tx == h_act - 1'b1) && ((ty[2:0] & vmask) == vmask);

  assign mem_req_valid_o = fetching_q && (req_left_q != {CW{1'b0}});
  always @(*) begin
    mem_req_addr_o = 32'd0;
    mem_req_addr_o[AW-1:2] = req_addr_q;
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      restart_pend_q <= 1'b0;
      f_en_q         <= 1'b0;
      f_fmt_q        <= 1'b0;
      f_hrep_q       <= 2'd0;
      f_vrep_q       <= 2'd0;
      f_pitch_q      <= 14'd0;
      f_tiny_q       <= 1'b0;
      credit_q       <= 2'd0;
      rows_done_q    <= {CW{1'b0}};
      row_off_q      <= {(AW-2){1'b0}};
      fetching_q     <= 1'b0;
      fetch_bank_q   <= 1'b0;
      req_left_q     <= {CW{1'b0}};
      rsp_cnt_q      <= {CW{1'b0}};
      req_addr_q     <= {(AW-2){1'b0}};
    end else begin
      if (t_vb) restart_pend_q <= 1'b1;
      else if (do_restart) restart_pend_q <= 1'b0;

      if (do_restart) begin
        f_en_q      <= ctrl_q[`SGPU_DISP_ENABLE];
        f_fmt_q     <= c_fmt;
        f_hrep_q    <= c_hrep;
        f_vrep_q    <= c_vrep;
        f_pitch_q   <= pitch_q;
        f_tiny_q    <= ctrl_q[`SGPU_DISP_TINY];
        credit_q    <= 2'd2;
        rows_done_q <= {CW{1'b0}};
        row_off_q   <= {(AW-2){1'b0}};
      end else begin
        if (row_end && !start_row) credit_q <= credit_q + 2'd1;
        else if (start_row && !row_end) credit_q <= credit_q - 2'd1;
        if (start_row) begin
          row_off_q  <= row_off_q + pitch_ext[AW-1:2];
        end
        if (row_done) rows_done_q <= rows_done_q + 1'b1;
      end

      if (start_row) begin
        fetching_q  <= 1'b1;
        fetch_bank_q <= rows_done_q[0];
        req_addr_q  <= cur_addr_q + row_off_q;
        req_left_q  <= f_wpr_m1 + 1'b1;
        rsp_cnt_q   <= {CW{1'b0}};
      end else begin
        if (req_fire) begin
          req_addr_q <= req_addr_q + 1'b1;
          req_left_q <= req_left_q - 1'b1;
        end
        if (rsp_take) rsp_cnt_q <= rsp_cnt_q + 1'b1;
        if (row_done) fetching_q <= 1'b0;
      end
    end
  end

  // ------------------------------------------------------------ beam side
  wire [CW-1:0] b_px   = tx >> f_hrep_q;
  wire [CW-1:0] b_word = f_fmt_q ? (b_px >> 2) : (b_px >> 1);
  // Pixel in the word: the half (RGB565: pixel bit 0, RGB332: bit 1), then
  // for RGB332 the byte in the half (pixel bit 0).
  wire [1:0]    b_sub  = {f_fmt_q ? b_px[1] : b_px[0], b_px[0]};
  wire [CW-1:0] b_row  = ty >> f_vrep_q;
  wire          b_show = t_de && f_en_q;
  // Underflow is judged per row (cheaper than per word): a pixel counts when
  // its row has not been fetched completely.  With the display's memory
  // priority a row is complete a whole line before it is shown.
  wire          b_have = (b_row < rows_done_q);

  wire [31:0] lb_rdata;
  sgpu_ram_2p #(.AW(LB_AW + 1), .DW(32)) u_linebuf (
    .clk_i   (clk_i),
    .we_i    (rsp_take),
    .waddr_i ({fetch_bank_q, rsp_cnt_q[LB_AW-1:0]}),
    .wdata_i (mem_rsp_rdata_i),
    .re_i    (pix_en_i),
    .raddr_i ({b_row[0], b_word[LB_AW-1:0]}),
    .rdata_o (lb_rdata)
  );

  reg       s1_ok_q, s1_de_q, s1_hs_q, s1_vs_q;
  wire [8:0] uf_inc = {1'b0, underflow_q} + 9'd1;  // carry out: saturated
  reg [1:0] s1_sub_q;

  // Pixel select and expansion to 8 bits per channel by bit replication.
  wire [15:0] p16 = s1_sub_q[1] ? lb_rdata[31:16] : lb_rdata[15:0];
  wire [7:0]  p8  = s1_sub_q[0] ? p16[15:8] : p16[7:0];
  wire [7:0]  px_r = f_fmt_q ? {p8[7:5], p8[7:5], p8[7:6]} : {p16[15:11], p16[15:13]};
  wire [7:0]  px_g = f_fmt_q ? {p8[4:2], p8[4:2], p8[4:3]} : {p16[10:5], p16[10:9]};
  wire [7:0]  px_b = f_fmt_q ? {4{p8[1:0]}}               : {p16[4:0], p16[4:2]};

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
      underflow_q <= 8'd0;
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
      if (b_show && !b_have && !uf_inc[8]) underflow_q <= uf_inc[7:0];
    end
  end

  // ------------------------------------------------------------ status
  assign vblank_o    = t_vb;
  assign in_vblank_o = t_invb;
  assign scanline_o  = {{(16 - CW){1'b0}}, ty};

  reg [31:0] cur_full, pend_full;
  always @(*) begin
    cur_full  = 32'd0;
    pend_full = 32'd0;
    cur_full[AW-1:2]  = cur_addr_q;
    pend_full[AW-1:2] = pend_addr_q;
    case (reg_addr_i)
      `SGPU_SREG_DISP_CONTROL:      reg_rdata_o = {{(32 - CTRL_W){1'b0}}, ctrl_q};
      `SGPU_SREG_DISP_BASE:         reg_rdata_o = cur_full;
      `SGPU_SREG_DISP_PITCH:        reg_rdata_o = {16'd0, pitch_q, 2'b00};
      `SGPU_SREG_DISP_PENDING:      reg_rdata_o = {pend_full[31:2], 1'b0, pend_valid_q};
      `SGPU_SREG_DISP_VBLANK_COUNT: reg_rdata_o = vblank_cnt_q;
      `SGPU_SREG_DISP_SCANLINE:     reg_rdata_o = {15'd0, t_invb, scanline_o};
      `SGPU_SREG_DISP_UNDERFLOW:    reg_rdata_o = {24'd0, underflow_q};
      `SGPU_SREG_DISP_TIMING:       reg_rdata_o = {{(16 - CW){1'b0}}, v_act, {(16 - CW){1'b0}}, h_act};
      `SGPU_SREG_DISP_FLIP_COUNT:   reg_rdata_o = {16'd0, flip_cnt_q};
      default:                      reg_rdata_o = 32'd0;
    endcase
  end

  // Bits that carry no information: address bits [1:0] are checked by the
  // command processor, pitch bits [1:0] are rejected above.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = ^{flip_addr_i[1:0], flip_addr_i >> AW, pend_full[1:0], pitch_ext,
                     b_word >> LB_AW};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
