// sgpu_display_2c — one display source: timing, scanout DMA, line buffer,
// pixel replication and formats, flip unit, source registers; with
// PIX_CDC = 1 on two clocks.
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
//
// Clocks.  The registers, the flip unit and the scanout DMA (the line
// buffer's write port) run on clk_i; the pixel side (sgpu_disp_beam: timing
// generator, line buffer read port, output registers, underflow counter) on
// pix_clk_i when PIX_CDC = 1, else on clk_i with pix_en_i as its enable
// (pix_clk_i and pix_rst_ni unused, behaviour identical to the one-clock
// display).  With PIX_CDC = 1 pix_en_i is unused (a pixel every pix_clk_i
// cycle) and every signal between the two sides crosses by construction:
//  - vblank and row-end strobes (pixel -> system): sgpu_cdc_pulse, at most
//    one per line, far apart;
//  - scanline, in_vblank and the underflow count (pixel -> system) and the
//    frame configuration and rows fetched (system -> pixel): sgpu_cdc_bus
//    handshakes, whole values only, a few cycles late (the configuration
//    changes at the start of vblank, whole lines before it is used; a late
//    "rows fetched" can only count a near-underflow as one);
//  - the TINY bit (system -> pixel): sgpu_cdc_sync;
//  - pixel data: the line buffer (sgpu_ram_2c, write port on clk_i, read
//    port on pix_clk_i).  A half is refilled only after the system side has
//    seen the row-end strobe of the row in it, so the beam never reads a
//    word being written.
`include "sgpu_hw.vh"

module sgpu_display_2c #(
  parameter integer AW      = 32,  // GPU memory address bits (log2 of its size); a
                                   // DISP_BASE beyond them is rejected
  parameter integer LB_AW   = 9,   // line buffer words per half (log2)
  parameter integer CW      = 10,  // timing counter width
  parameter integer PIX_CDC = 0,   // 1: pixel side on pix_clk_i
  // 1: DISP_CONTROL and DISP_PITCH read 0 here; the chip answers them from
  // its register mirror (reg_kept_o)
  parameter integer MIRROR  = 0
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        pix_en_i,     // PIX_CDC = 0: pixel enable
  input  wire        pix_clk_i,    // PIX_CDC = 1: pixel clock
  input  wire        pix_rst_ni,   // PIX_CDC = 1: reset, released in step with pix_clk_i
  input  wire        reg_we_i,
  input  wire [`SGPU_SOURCE_STRIDE_LG-1:0] reg_addr_i,   // offset in the source block
  input  wire [31:0] reg_wdata_i,
  output reg  [31:0] reg_rdata_o,
  output wire        reg_error_o,
  output wire        reg_kept_o,     // strobe: this write was taken and reads back as written
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
  output wire [7:0]  vid_r_o,        // PIX_CDC = 1: pix_clk_i domain
  output wire [7:0]  vid_g_o,
  output wire [7:0]  vid_b_o,
  output wire        vid_hsync_o,
  output wire        vid_vsync_o,
  output wire        vid_de_o
);

  localparam integer CTRL_W = `SGPU_SREG_DISP_CONTROL_W;

  // ------------------------------------------------------------ registers
  reg [CTRL_W-1:0] ctrl_q;
  reg [`SGPU_SREG_DISP_PITCH_W-1:`SGPU_SREG_DISP_PITCH_ALIGN_LG] pitch_q;
  reg [AW-1:2]     host_base_q;
  reg              host_base_set_q;
  reg [AW-1:2]     cur_addr_q;
  reg [AW-1:2]     pend_addr_q;
  reg [2:0]        pend_int_q;
  reg              pend_valid_q;
  reg [1:0]        vsf_q;          // vblanks since the last flip, saturating at 3 (enough for N <= 4)
  wire [31:0]      vblank_cnt;     // sgpu_dsp_counter: a DSP block on the iCE40
  reg [15:0]       flip_cnt_q;     // 16 bits keep the iCE40 build small

  // ------------------------------------------------------------ pixel side
  // Signals of the pixel side as the system side sees them.
  wire          t_vb;        // vblank strobe
  wire          t_invb;      // in vertical blanking
  wire [CW-1:0] ty;          // line
  wire          row_end;     // the beam left the last line of a row
  wire [7:0]    underflow;   // underflow count
  // Active size of the selected timing, for the TIMING register: it follows
  // the TINY bit at once (the timing generator has the same constants).
  /* verilator lint_off WIDTH */
  localparam [CW-1:0] HA   = `SGPU_TIMING_VGA_H_ACTIVE;
  localparam [CW-1:0] VA   = `SGPU_TIMING_VGA_V_ACTIVE;
  localparam [CW-1:0] T_HA = `SGPU_TIMING_TINY_H_ACTIVE;
  localparam [CW-1:0] T_VA = `SGPU_TIMING_TINY_V_ACTIVE;
  /* verilator lint_on WIDTH */
  wire [CW-1:0] h_act = ctrl_q[`SGPU_DISP_TINY] ? T_HA : HA;
  wire [CW-1:0] v_act = ctrl_q[`SGPU_DISP_TINY] ? T_VA : VA;

  // ------------------------------------------------------------ host registers
  // The offsets, the decode, the write checks and the read mux are
  // generated (sgpu_regs_source.vh); this module gives them the write, the
  // memory-size condition and the values read.
  reg [31:0] cur_full, pend_full;
  always @(*) begin
    cur_full  = 32'd0;
    pend_full = 32'd0;
    cur_full[AW-1:2]  = cur_addr_q;
    pend_full[AW-1:2] = pend_addr_q;
  end
  wire [`SGPU_SOURCE_STRIDE_LG-1:0] sreg_addr = reg_addr_i;
  wire        sreg_we     = reg_we_i;
  wire [31:0] sreg_wdata  = reg_wdata_i;
  wire        sreg_mirror = (MIRROR != 0);   // the registers the mirror answers
  wire        sreg_c_past_mem = |(sreg_wdata >> AW);
  wire [31:0] sreg_v_disp_control = {{(32 - CTRL_W){1'b0}}, ctrl_q};
  wire [31:0] sreg_v_disp_base    = cur_full;
  wire [31:0] sreg_v_disp_pitch   = {{(32 - `SGPU_SREG_DISP_PITCH_W){1'b0}}, pitch_q,
                                     {`SGPU_SREG_DISP_PITCH_ALIGN_LG{1'b0}}};
  wire [31:0] sreg_v_disp_pending = pend_full |
                                    ({31'd0, pend_valid_q} << `SGPU_DISP_PENDING_VALID_LSB);
  wire [31:0] sreg_v_disp_vblank_count = vblank_cnt;
  wire [31:0] sreg_v_disp_scanline = ({31'd0, t_invb} << `SGPU_DISP_SCANLINE_IN_VBLANK_LSB) |
                                     ({16'd0, scanline_o} << `SGPU_DISP_SCANLINE_LINE_LSB);
  wire [31:0] sreg_v_disp_underflow = {{(32 - `SGPU_SREG_DISP_UNDERFLOW_W){1'b0}}, underflow};
  wire [31:0] sreg_v_disp_timing   = ({{(32 - CW){1'b0}}, v_act} << `SGPU_DISP_TIMING_HEIGHT_LSB) |
                                     ({{(32 - CW){1'b0}}, h_act} << `SGPU_DISP_TIMING_WIDTH_LSB);
  wire [31:0] sreg_v_disp_flip_count = {{(32 - `SGPU_SREG_DISP_FLIP_COUNT_W){1'b0}}, flip_cnt_q};
`include "sgpu_regs_source.vh"
  wire wr_ctrl_ok  = sreg_w_disp_control;
  wire wr_base_ok  = sreg_w_disp_base;
  wire wr_pitch_ok = sreg_w_disp_pitch;

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
      pitch_q         <= {(`SGPU_SREG_DISP_PITCH_W - `SGPU_SREG_DISP_PITCH_ALIGN_LG){1'b0}};
      host_base_q     <= {(AW-2){1'b0}};
      host_base_set_q <= 1'b0;
      cur_addr_q      <= {(AW-2){1'b0}};
      pend_addr_q     <= {(AW-2){1'b0}};
      pend_int_q      <= 3'd0;
      pend_valid_q    <= 1'b0;
      vsf_q           <= 2'd3;       // no flip yet: the first one waits for no one
      flip_cnt_q      <= 16'd0;
    end else begin
      if (wr_ctrl_ok) ctrl_q <= sreg_wdata[CTRL_W-1:0];
      if (wr_pitch_ok) pitch_q <= sreg_wdata[`SGPU_SREG_DISP_PITCH_W-1:`SGPU_SREG_DISP_PITCH_ALIGN_LG];

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

      if (wr_base_ok) begin
        host_base_q     <= sreg_wdata[AW-1:`SGPU_SREG_DISP_BASE_ALIGN_LG];
        host_base_set_q <= 1'b1;
      end else if (t_vb) begin
        host_base_set_q <= 1'b0;
      end

      if (take) vsf_q <= 2'd0;
      else if (t_vb && vsf_q != 2'd3) vsf_q <= vsf_q + 2'd1;

      if (take) flip_cnt_q <= flip_cnt_q + 16'd1;
    end
  end

  assign reg_error_o = sreg_err;   // in the write's cycle, like the nodes' cfg_err_o
  assign reg_kept_o  = sreg_kept;

  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_dsp_counter #(.W(32)) u_vblank_cnt (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(t_vb), .ld_i(1'b0), .d_i(32'd0),
    .q_o(vblank_cnt), .co_o());
  /* verilator lint_on PINCONNECTEMPTY */

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

  // The words per row come from a table too (not f_wpr_m1 + 1: a constant
  // table costs a LUT per bit, an adder a LUT and a carry).
  reg [CW-1:0] f_wpr_m1, f_wpr, f_rows;
  integer      k;
  always @(*) begin
    f_wpr_m1 = {CW{1'b0}};
    f_wpr    = {CW{1'b0}};
    f_rows   = {CW{1'b0}};
    for (k = 0; k < 16; k = k + 1) begin
      if ({f_tiny_q, f_fmt_q, f_hrep_q} == k[3:0]) begin
        f_wpr_m1 = wpr_m1_of(k);
        f_wpr    = wpr_m1_of(k) + 1'b1;
      end
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
        req_left_q  <= f_wpr;
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
  wire          p_tiny, p_en, p_fmt;
  wire [1:0]    p_hrep, p_vrep;
  wire [CW-1:0] p_rows;
  wire          p_lb_re;
  wire [LB_AW:0] p_lb_raddr;
  wire [31:0]   lb_rdata;
  wire          p_vb, p_invb, p_row_end;
  wire [CW-1:0] p_y;
  wire [7:0]    p_underflow;
  wire          b_clk, b_rst_n, b_pix_en;

  sgpu_disp_beam #(.LB_AW(LB_AW), .CW(CW)) u_beam (
    .clk_i(b_clk), .rst_ni(b_rst_n), .pix_en_i(b_pix_en), .tiny_i(p_tiny),
    .f_en_i(p_en), .f_fmt_i(p_fmt), .f_hrep_i(p_hrep), .f_vrep_i(p_vrep), .rows_done_i(p_rows),
    .lb_re_o(p_lb_re), .lb_raddr_o(p_lb_raddr), .lb_rdata_i(lb_rdata),
    .vblank_o(p_vb), .in_vblank_o(p_invb), .y_o(p_y), .row_end_o(p_row_end),
    .underflow_o(p_underflow),
    .vid_r_o(vid_r_o), .vid_g_o(vid_g_o), .vid_b_o(vid_b_o),
    .vid_hsync_o(vid_hsync_o), .vid_vsync_o(vid_vsync_o), .vid_de_o(vid_de_o));

  sgpu_ram_2c #(.AW(LB_AW + 1), .DW(32)) u_linebuf (
    .wclk_i  (clk_i),
    .we_i    (rsp_take),
    .waddr_i ({fetch_bank_q, rsp_cnt_q[LB_AW-1:0]}),
    .wdata_i (mem_rsp_rdata_i),
    .rclk_i  (b_clk),
    .re_i    (p_lb_re),
    .raddr_i (p_lb_raddr),
    .rdata_o (lb_rdata)
  );

  generate
    if (PIX_CDC != 0) begin : g_cdc
      assign b_clk    = pix_clk_i;
      assign b_rst_n  = pix_rst_ni;
      assign b_pix_en = 1'b1;

      sgpu_cdc_sync #(.WIDTH(1)) u_tiny (
        .clk_i(pix_clk_i), .rst_ni(pix_rst_ni), .d_i(ctrl_q[`SGPU_DISP_TINY]), .q_o(p_tiny));

      // system -> pixel: frame configuration and rows fetched
      wire cfg_upd;
      sgpu_cdc_bus #(.WIDTH(6 + CW)) u_cfg (
        .src_clk_i(clk_i), .src_rst_ni(rst_ni),
        .src_data_i({f_en_q, f_fmt_q, f_hrep_q, f_vrep_q, rows_done_q}),
        .dst_clk_i(pix_clk_i), .dst_rst_ni(pix_rst_ni),
        .dst_data_o({p_en, p_fmt, p_hrep, p_vrep, p_rows}), .dst_update_o(cfg_upd));

      // pixel -> system: strobes and status
      sgpu_cdc_pulse u_vb (
        .src_clk_i(pix_clk_i), .src_rst_ni(pix_rst_ni), .src_pulse_i(p_vb),
        .dst_clk_i(clk_i), .dst_rst_ni(rst_ni), .dst_pulse_o(t_vb));
      sgpu_cdc_pulse u_row_end (
        .src_clk_i(pix_clk_i), .src_rst_ni(pix_rst_ni), .src_pulse_i(p_row_end),
        .dst_clk_i(clk_i), .dst_rst_ni(rst_ni), .dst_pulse_o(row_end));
      wire st_upd;
      sgpu_cdc_bus #(.WIDTH(9 + CW)) u_status (
        .src_clk_i(pix_clk_i), .src_rst_ni(pix_rst_ni),
        .src_data_i({p_invb, p_y, p_underflow}),
        .dst_clk_i(clk_i), .dst_rst_ni(rst_ni),
        .dst_data_o({t_invb, ty, underflow}), .dst_update_o(st_upd));

      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_cdc = ^{pix_en_i, cfg_upd, st_upd};
      /* verilator lint_on UNUSEDSIGNAL */
    end else begin : g_one
      assign b_clk     = clk_i;
      assign b_rst_n   = rst_ni;
      assign b_pix_en  = pix_en_i;
      assign p_tiny    = ctrl_q[`SGPU_DISP_TINY];
      assign p_en      = f_en_q;
      assign p_fmt     = f_fmt_q;
      assign p_hrep    = f_hrep_q;
      assign p_vrep    = f_vrep_q;
      assign p_rows    = rows_done_q;
      assign t_vb      = p_vb;
      assign row_end   = p_row_end;
      assign t_invb    = p_invb;
      assign ty        = p_y;
      assign underflow = p_underflow;

      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_one = ^{pix_clk_i, pix_rst_ni};
      /* verilator lint_on UNUSEDSIGNAL */
    end
  endgenerate

  // ------------------------------------------------------------ status
  assign vblank_o    = t_vb;
  assign in_vblank_o = t_invb;
  assign scanline_o  = {{(16 - CW){1'b0}}, ty};

  always @(*) reg_rdata_o = sreg_rdata;

  // Bits that carry no information: address bits [1:0] are checked by the
  // command processor, pitch bits [1:0] are rejected above.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = ^{flip_addr_i[1:0], flip_addr_i >> AW, pend_full[1:0], pitch_ext};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
