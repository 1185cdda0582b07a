// tb_sgpu_display — scanout, formats, replication and the flip unit.
//
// Behavioural memory with random back-pressure and in-order random latency.
// TINY timing.  The video outputs are captured like a monitor would (pixels
// while de, lines counted between vblank strobes) and every line is
// compared pixel-exact with a reference computed here from the memory
// contents, the format and the replication factors.  Four buffers of random
// data: a line identifies its buffer.
//
// Flips with random intervals 0..5 are queued at random times.  A reference
// model of the flip rule (vblanks_since_flip, one pending slot) says which
// buffer each frame must show: a frame without an IMMEDIATE/ALLOW_TEARING
// flip must come entirely from that buffer; with one, lines may change
// buffer only in flip order, and the new buffer must show within three rows.
//
// Compiled with TB_DISPLAY_2C defined (tests/rtl/tb_sgpu_display_2c.v) it
// checks sgpu_display_2c with PIX_CDC = 1 instead: the system side at
// 12 MHz, the pixel side at 25.125 MHz, the video captured on the pixel
// clock, memory without stalls as on the iCEBreaker's SPRAM (the scanout
// has memory priority there), then the same starvation test.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

`ifdef TB_DISPLAY_2C
module tb_sgpu_display_2c;
`else
module tb_sgpu_display;
`endif
  localparam integer HA = `SGPU_TIMING_TINY_H_ACTIVE;
  localparam integer VA = `SGPU_TIMING_TINY_V_ACTIVE;
  localparam integer HT = `SGPU_TIMING_TINY_H_TOTAL;
  localparam integer HFP = `SGPU_TIMING_TINY_H_FP;
  localparam integer MEM_WORDS = 16384;
  localparam integer NB = 4;

  reg clk = 1'b0, rst_n = 1'b0;
`ifdef TB_DISPLAY_2C
  localparam integer STALL_PCT = 0, LAT_MAX = 2;
  reg pclk = 1'b0, prst_n = 1'b0;
  always #41.667 clk = ~clk;
  always #19.900 pclk = ~pclk;
  always @(negedge pclk) prst_n <= rst_n;
`else
  localparam integer STALL_PCT = 25, LAT_MAX = 6;
  always #5 clk = ~clk;
`endif

  reg         pix_en = 1'b1;
  reg         reg_we = 1'b0;
  reg  [5:0]  reg_addr = 6'd0;
  reg  [31:0] reg_wdata = 32'd0;
  wire [31:0] reg_rdata;
  wire        reg_error;
  reg         flip_valid = 1'b0;
  wire        flip_ready;
  reg  [31:0] flip_addr = 32'd0;
  reg  [2:0]  flip_int = 3'd0;
  wire        flip_pending, vblank, in_vblank;
  wire [15:0] scanline;
  wire        mem_req_valid;
  reg         mem_req_ready = 1'b0;
  wire [31:0] mem_req_addr;
  reg         mem_rsp_valid = 1'b0;
  reg  [31:0] mem_rsp_rdata = 32'd0;
  wire [7:0]  vr, vg, vbl;
  wire        vhs, vvs, vde;

  // AW = 17 as on the iCEBreaker (128 KiB): addresses above it are rejected.
`ifdef TB_DISPLAY_2C
  sgpu_display_2c #(.AW(17), .PIX_CDC(1)) dut (
    .clk_i(clk), .rst_ni(rst_n), .pix_en_i(1'b0), .pix_clk_i(pclk), .pix_rst_ni(prst_n),
`else
  sgpu_display #(.AW(17)) dut (
    .clk_i(clk), .rst_ni(rst_n), .pix_en_i(pix_en),
`endif
    .reg_we_i(reg_we), .reg_addr_i(reg_addr), .reg_wdata_i(reg_wdata), .reg_rdata_o(reg_rdata),
    .reg_error_o(reg_error),
    .flip_valid_i(flip_valid), .flip_ready_o(flip_ready), .flip_addr_i(flip_addr),
    .flip_interval_i(flip_int), .flip_pending_o(flip_pending),
    .vblank_o(vblank), .scanline_o(scanline), .in_vblank_o(in_vblank),
    .mem_req_valid_o(mem_req_valid), .mem_req_ready_i(mem_req_ready), .mem_req_addr_o(mem_req_addr),
    .mem_rsp_valid_i(mem_rsp_valid), .mem_rsp_rdata_i(mem_rsp_rdata),
    .vid_r_o(vr), .vid_g_o(vg), .vid_b_o(vbl), .vid_hsync_o(vhs), .vid_vsync_o(vvs), .vid_de_o(vde));

  integer seed;
  `include "tb_random.vh"
  function integer urand(input integer n);   // 0 .. n-1
    begin urand = $unsigned(tb_random(0)) % n; end
  endfunction

  // ------------------------------------------------------------ memory
  reg [31:0] mem [0:MEM_WORDS-1];
  integer stall_pct = STALL_PCT, lat_max = LAT_MAX, pix_pct = 100;
  reg [31:0] q_data [0:1023];
  integer    q_time [0:1023];
  integer    q_head = 0, q_tail = 0, q_last = 0, q_max = 0;
  integer    cycle = 0;
  integer    reads = 0;

  // ------------------------------------------------------------ configuration
  // c_*: what the host wrote; f_*: what the frame in progress uses (taken at vblank).
  integer c_en = 0, c_fmt = 0, c_hrep = 0, c_vrep = 0, c_pitch = 0, c_tiny = 0;
  integer f_en = 0, f_fmt = 0, f_hrep = 0, f_vrep = 0, f_pitch = 0;
  integer bufaddr [0:NB-1];

  function [23:0] ref_pix(input integer base, input integer y, input integer x);
    integer a, px;
    reg [31:0] w;
    reg [15:0] p16;
    reg [7:0]  p8;
    begin
      px = x >> f_hrep;
      a = base + (y >> f_vrep) * f_pitch + (f_fmt ? px : px * 2);
      w = mem[(a >> 2) % MEM_WORDS];
      if (f_fmt) begin
        p8 = w >> (8 * (a % 4));
        ref_pix = {p8[7:5], p8[7:5], p8[7:6], p8[4:2], p8[4:2], p8[4:3], p8[1:0], p8[1:0], p8[1:0], p8[1:0]};
      end else begin
        p16 = w >> (8 * (a % 4));
        ref_pix = {p16[15:11], p16[15:13], p16[10:5], p16[10:9], p16[4:0], p16[4:2]};
      end
    end
  endfunction

  // ------------------------------------------------------------ flip model
  integer m_pend = 0, m_int = 0, m_addr = 0, m_vsf = 4, m_cur = 0, m_flips = 0;
  integer m_host_set = 0, m_host_base = 0;
  integer m_vblanks = 0;
  integer flips_on = 0, flip_gap = 0, last_queued = 0;
  integer n_imm = 0, n_vs = 0, n_queued = 0;
  integer lat_max_lines = 0;
  integer check_en = 0, frames_checked = 0, frames_torn = 0;
  integer underflow_seen = 0;

  // window of the frame being shown: buffers allowed in order
  integer allowed [0:255];
  integer allowed_bound [0:255];
  integer n_allowed = 0;

  // capture
  reg [23:0] line_pix [0:HA-1];
  integer line_id [0:VA-1];
  integer cx = 0, cy = 0, prev_de = 0, since_de = 0, prev_hs = 1;

  function integer buf_index(input integer addr);
    integer b;
    begin
      buf_index = -1;
      for (b = 0; b < NB; b = b + 1) if (bufaddr[b] == addr) buf_index = b;
    end
  endfunction

  task fail(input [8*80-1:0] what);
    begin
      $display("FAIL at cycle %0d: %0s", cycle, what);
      $fatal(1, "tb_sgpu_display failed");
    end
  endtask

  // Which buffer a captured line came from: -1 none, -2 black (display off).
  function integer classify(input integer y);
    integer b, x, ok;
    begin
      classify = -1;
      if (!f_en) begin
        ok = 1;
        for (x = 0; x < HA; x = x + 1) if (line_pix[x] !== 24'd0) ok = 0;
        if (ok) classify = -2;
      end else begin
        for (b = 0; b < NB && classify == -1; b = b + 1) begin
          ok = 1;
          for (x = 0; x < HA && ok; x = x + 1)
            if (line_pix[x] !== ref_pix(bufaddr[b], y, x)) ok = 0;
          if (ok) classify = b;
        end
      end
    end
  endfunction

  task check_frame;
    integer y, p, k, j, q, first_at, repeats;
    begin
      if (cy != VA) begin
        $display("captured %0d lines", cy);
        fail("frame does not have the active line count");
      end
      p = 0;
      for (y = 0; y < VA; y = y + 1) begin
        if (!f_en) begin
          if (line_id[y] != -2) fail("display disabled but line not black");
        end else begin
          if (line_id[y] < 0) begin
            $display("line %0d matches no buffer (expected buffer %0d)", y, buf_index(allowed[p]));
            fail("line from no buffer");
          end
          // lines may only move forward through the flips of this window
          while (p < n_allowed && buf_index(allowed[p]) != line_id[y]) p = p + 1;
          if (p == n_allowed) begin
            $display("line %0d shows buffer %0d, window starts with buffer %0d (%0d flips in window)",
                     y, line_id[y], buf_index(allowed[0]), n_allowed - 1);
            fail("frame shows the wrong buffer");
          end
        end
      end
      if (f_en) begin
        // every IMMEDIATE flip shows within three rows of being taken
        for (k = 1; k < n_allowed; k = k + 1) begin
          first_at = VA;
          p = 0;
          for (y = 0; y < VA; y = y + 1) begin
            while (p < n_allowed && buf_index(allowed[p]) != line_id[y]) p = p + 1;
            if (p >= k && first_at == VA) first_at = y;
          end
          // a buffer that comes back later in the window makes the line
          // ambiguous; skip the bound then
          repeats = 0;
          for (j = k; j < n_allowed; j = j + 1)
            for (q = 0; q < k; q = q + 1)
              if (allowed[j] == allowed[q]) repeats = 1;
          if (!repeats && allowed_bound[k] < VA && first_at > allowed_bound[k]) begin
            $display("immediate flip %0d shows at line %0d, bound %0d", k, first_at, allowed_bound[k]);
            fail("immediate flip late");
          end
        end
        if (n_allowed > 1) frames_torn = frames_torn + 1;
      end
      frames_checked = frames_checked + 1;
    end
  endtask

  // One pixel of the video outputs, like a monitor: pixels while de, lines
  // counted between vblank strobes.
  task capture;
    begin
      if (vde) begin
        if (cx >= HA && check_en) fail("too many pixels in a line");
        if (cx < HA) line_pix[cx] = {vr, vg, vbl};
        cx = cx + 1;
      end
      if (!vde && prev_de) begin
        if (cx != HA && check_en) fail("short line");
        if (cy < VA) line_id[cy] = classify(cy);
        cy = cy + 1;
        cx = 0;
        since_de = 0;
      end
      if (!vde) since_de = since_de + 1;
      if (!vhs && prev_hs && cy > 0 && since_de <= HT && since_de != HFP + 1 && check_en)
        fail("hsync not aligned with the delayed pixel data");
      prev_de = vde;
      prev_hs = vhs;
    end
  endtask

`ifdef TB_DISPLAY_2C
  // the pixel side: a pixel every pixel clock
  always @(posedge pclk) if (prst_n) capture;
`endif

  // ------------------------------------------------------------ per-cycle process
  integer take_imm, take_vs, accept, imm, rowb, r;
  always @(posedge clk) if (rst_n) begin
    cycle = cycle + 1;

    // memory: accept, queue with in-order random latency, return
    if (mem_req_valid && mem_req_ready) begin
      if (mem_req_addr[1:0] != 2'b00) fail("misaligned scanout read");
      q_data[q_tail % 1024] = mem[(mem_req_addr >> 2) % MEM_WORDS];
      r = cycle + 1 + urand(lat_max);
      if (r > q_last) q_last = r;
      q_time[q_tail % 1024] = q_last;
      q_tail = q_tail + 1;
      reads = reads + 1;
      if (q_tail - q_head > q_max) q_max = q_tail - q_head;
    end
    mem_req_ready <= (urand(100) >= stall_pct);
    if (q_head != q_tail && q_time[q_head % 1024] <= cycle) begin
      mem_rsp_valid <= 1'b1;
      mem_rsp_rdata <= q_data[q_head % 1024];
      q_head = q_head + 1;
    end else begin
      mem_rsp_valid <= 1'b0;
      mem_rsp_rdata <= 32'hxxxxxxxx;
    end

    // flip model (the rule of docs/architecture.md), evaluated on pre-edge state
    if (flip_pending !== (m_pend != 0)) fail("flip_pending differs from the model");
    if (flip_ready !== (m_pend == 0)) fail("flip_ready differs from the model");
    imm = (m_int == 0) || (m_int == 5);
    take_imm = m_pend && imm;
    take_vs = vblank && m_pend && !imm && (m_vsf + 1 >= m_int);
    accept = flip_valid && !m_pend;
    if (take_vs) begin
      n_vs = n_vs + 1;
      if (!in_vblank || scanline - VA > lat_max_lines) lat_max_lines = in_vblank ? scanline - VA : 999;
    end
    if (take_imm) n_imm = n_imm + 1;
    if (take_imm || take_vs) begin
      m_cur = m_addr; m_pend = 0; m_vsf = 0; m_flips = m_flips + 1;
    end else if (vblank) begin
      if (m_host_set) m_cur = m_host_base;
      if (m_vsf < 4) m_vsf = m_vsf + 1;
    end
    if (vblank) m_host_set = 0;
    if (accept) begin
      m_pend = 1; m_int = flip_int; m_addr = flip_addr; n_queued = n_queued + 1;
    end
    if (take_imm && !vblank) begin
      // an IMMEDIATE flip within the window: the frame may tear to it
      rowb = in_vblank ? -1 : (scanline >> f_vrep);
      allowed[n_allowed] = m_cur;
      allowed_bound[n_allowed] = (rowb + 3) << f_vrep;
      if (n_allowed < 255) n_allowed = n_allowed + 1;
    end

`ifndef TB_DISPLAY_2C
    // capture the video outputs on enabled pixel clocks
    if (pix_en) capture;
`endif

    // vblank: close the window of the frame just shown, open the next
    if (vblank) begin
      m_vblanks = m_vblanks + 1;
      if (check_en) check_frame;
      cy = 0;
      f_en = c_en; f_fmt = c_fmt; f_hrep = c_hrep; f_vrep = c_vrep; f_pitch = c_pitch;
      allowed[0] = m_cur;
      n_allowed = 1;
    end

    // random flip driver
    if (flip_valid && flip_ready) flip_valid <= 1'b0;
    if (flips_on && !(flip_valid && !flip_ready)) begin
      if (flip_gap > 0) flip_gap = flip_gap - 1;
      else begin
        flip_valid <= 1'b1;
        last_queued = (last_queued + 1 + urand(NB - 1)) % NB;   // always a different buffer
        flip_addr <= bufaddr[last_queued];
        flip_int <= urand(6);
        flip_gap = urand(4) == 0 ? urand(50) : urand(3 * HT * 56);
      end
    end

    pix_en <= (urand(100) < pix_pct);
  end

  // ------------------------------------------------------------ register access
  // Writes land well inside the active area, so the vblank that takes them
  // over is unambiguous for the model.
  task wait_active;
    begin
      @(posedge clk);
      while (in_vblank || scanline < 2 || scanline > VA - 6) @(posedge clk);
    end
  endtask

  task reg_wr(input [5:0] a, input [31:0] d, input expect_err);
    begin
      wait_active;
      // Driven and sampled between clock edges: no race with the DUT's
      // flops (Icarus and Verilator order a task resumed by a clock edge and
      // the DUT's updates differently).
      @(negedge clk);
      reg_we <= 1'b1; reg_addr <= a; reg_wdata <= d;
      // the rejection strobe comes in the write's own cycle
      #1 if (reg_error !== expect_err) fail(expect_err ? "bad write not rejected" : "good write rejected");
      @(negedge clk);
      reg_we <= 1'b0;
      #1 if (reg_error !== 1'b0) fail("rejection strobe outlives its write");
      @(posedge clk);
    end
  endtask

  task reg_rd(input [5:0] a, output [31:0] d);
    begin
      @(posedge clk);
      reg_addr <= a;
      @(negedge clk);            // between edges, see reg_wr
      d = reg_rdata;
      @(posedge clk);
    end
  endtask

  task wait_vblanks(input integer n);
    integer target;
    begin
      target = m_vblanks + n;
      while (m_vblanks < target) @(posedge clk);
    end
  endtask

  task set_mode(input integer fmt, input integer hrep, input integer vrep, input integer extra);
    begin
      wait_active;
      c_fmt = fmt; c_hrep = hrep; c_vrep = vrep; c_en = 1;
      c_pitch = ((HA >> hrep) * (fmt ? 1 : 2)) + 4 * extra;
      reg_wr(`SGPU_SREG_DISP_PITCH, c_pitch, 0);
      reg_wr(`SGPU_SREG_DISP_CONTROL, (1 << `SGPU_DISP_ENABLE) | (fmt << `SGPU_DISP_FORMAT) |
             (hrep << `SGPU_DISP_HREP) | (vrep << `SGPU_DISP_VREP) | (1 << `SGPU_DISP_TINY), 0);
    end
  endtask

  // ------------------------------------------------------------ sequence
  integer i, b, mode, uf, fc;
  reg [31:0] v;
  initial begin
    seed = 32'h0d15_0001;
    if ($value$plusargs("seed=%d", seed)) ;
    for (i = 0; i < MEM_WORDS; i = i + 1) mem[i] = tb_random(0);
    for (b = 0; b < NB; b = b + 1) bufaddr[b] = 32'h1000 + b * 32'h3000;
    repeat (4) @(posedge clk);
    rst_n <= 1'b1;

    // register checks: rejected writes change nothing
    reg_wr(`SGPU_SREG_DISP_BASE, bufaddr[0] + 2, 1);
    reg_wr(`SGPU_SREG_DISP_BASE, 32'h0002_0000, 1);
    reg_wr(`SGPU_SREG_DISP_PITCH, 32'h10000, 1);
    reg_wr(`SGPU_SREG_DISP_PITCH, 32'd130, 1);
    reg_wr(`SGPU_SREG_DISP_CONTROL, 32'h80, 1);
    reg_rd(`SGPU_SREG_DISP_CONTROL, v); if (v !== 0) fail("rejected CONTROL write landed");
    reg_rd(`SGPU_SREG_DISP_PITCH, v);   if (v !== 0) fail("rejected PITCH write landed");
    reg_rd(`SGPU_SREG_DISP_TIMING, v);
    if (v !== {16'd480, 16'd640}) fail("DISP_TIMING after reset is not 640x480");

    // host base write: takes effect at the next vblank
    reg_wr(`SGPU_SREG_DISP_BASE, bufaddr[0], 0);
    m_host_set = 1; m_host_base = bufaddr[0];
    set_mode(0, 0, 0, 0);
    reg_rd(`SGPU_SREG_DISP_TIMING, v);
    if (v !== {16'd48, 16'd64}) fail("DISP_TIMING is not the tiny timing");
    wait_vblanks(2);
    reg_rd(`SGPU_SREG_DISP_BASE, v); if (v !== bufaddr[0]) fail("DISP_BASE not applied at vblank");
    check_en = 1;
    wait_vblanks(2);
    reg_wr(`SGPU_SREG_DISP_BASE, bufaddr[2], 0);
    m_host_set = 1; m_host_base = bufaddr[2];
    reg_rd(`SGPU_SREG_DISP_BASE, v);
    if (m_host_set && v !== bufaddr[0]) fail("DISP_BASE write applied before vblank");
    wait_vblanks(3);
    if (frames_checked < 4) fail("frames not checked");
    reg_rd(`SGPU_SREG_DISP_BASE, v); if (v !== bufaddr[2]) fail("second DISP_BASE write not applied");
    last_queued = 2;

    // formats and replication, each with random flips and realistic stalls
    flips_on = 1;
    for (mode = 0; mode < 7; mode = mode + 1) begin
      case (mode)
        0: set_mode(0, 0, 0, 0);
        1: set_mode(0, 1, 1, 3);
        2: set_mode(1, 2, 2, 1);
        3: set_mode(1, 0, 3, 5);
        4: set_mode(0, 3, 0, 2);
        5: set_mode(1, 1, 0, 0);
        default: set_mode(0, 2, 1, 7);
      endcase
      pix_pct = (mode == 3) ? 60 : 100;
      wait_vblanks(18);
    end
    pix_pct = 100;
    flips_on = 0;
    wait_vblanks(8);

    reg_rd(`SGPU_SREG_DISP_UNDERFLOW, v); uf = v;
    $display("FIGURE display_underflow_pixels %0d", uf);
    if (uf != 0) fail("underflow with realistic memory stalls");
    reg_rd(`SGPU_SREG_DISP_FLIP_COUNT, v); fc = v;
    if (fc != m_flips) fail("DISP_FLIP_COUNT differs from the model");
    reg_rd(`SGPU_SREG_DISP_VBLANK_COUNT, v);
    if (v != m_vblanks) fail("DISP_VBLANK_COUNT differs");

    // the underflow counter counts: starve the scanout
    check_en = 0;
    stall_pct = 97; lat_max = 30;
    wait_vblanks(2);
    stall_pct = STALL_PCT; lat_max = LAT_MAX;
    wait_vblanks(2);
    reg_rd(`SGPU_SREG_DISP_UNDERFLOW, v);
    if (v == 0) fail("starved scanout but the underflow counter stayed 0");
    $display("starved scanout: %0d underflow pixels counted", v);
    uf = v;
    check_en = 1;
    wait_vblanks(3);
    reg_rd(`SGPU_SREG_DISP_UNDERFLOW, v);
    if (v != uf) fail("underflow after the stalls ended");

    // disabled: black, timing and vblank go on
    wait_active;
    c_en = 0;
    reg_wr(`SGPU_SREG_DISP_CONTROL, (1 << `SGPU_DISP_TINY), 0);
    wait_vblanks(3);
    reg_rd(`SGPU_SREG_DISP_PITCH, v);
    wait_active;
    c_pitch = v;
    c_en = 1; c_fmt = 0; c_hrep = 0; c_vrep = 0;
    reg_wr(`SGPU_SREG_DISP_CONTROL, (1 << `SGPU_DISP_ENABLE) | (1 << `SGPU_DISP_TINY), 0);
    wait_vblanks(3);

    reg_rd(`SGPU_SREG_DISP_SCANLINE, v);
    if (v[16] !== (v[15:0] >= VA)) fail("DISP_SCANLINE vblank bit");

    if (n_imm < 10 || n_vs < 20) fail("too few flips of each kind");
    $display("flips queued %0d, taken %0d (%0d at vblank, %0d immediate); frames checked %0d (%0d torn by immediate flips)",
             n_queued, m_flips, n_vs, n_imm, frames_checked, frames_torn);
    $display("memory reads %0d, most in flight %0d", reads, q_max);
`ifndef TB_DISPLAY_2C
    // (with two clocks the scanline the model sees lags the strobe)
    $display("FIGURE flip_latency_lines %0d", lat_max_lines);
`endif
    $display("FIGURE display_frames_checked %0d", frames_checked);
    $display("FIGURE display_flips_taken %0d", m_flips);
`ifdef TB_DISPLAY_2C
    $display("PASS tb_sgpu_display_2c");
`else
    $display("PASS tb_sgpu_display");
`endif
    $finish;
  end

  initial begin
    // in 1 ms steps: Verilator 5.006 wraps a single delay at 2^32 ps
    repeat (200) #1000000;
    $fatal(1, "tb_sgpu_display: timeout");
  end
endmodule
