// tb_sgpu_blit — randomized test of the 2D engine against a byte-exact
// reference (FILL per byte, COPY through a temporary).
//
// Two engines share one behavioural memory (only the selected one talks to
// it): the default build (64-word chunks) and a 4-word-chunk build that
// crosses chunk boundaries all the time.  The memory has configurable read
// latency and random back-pressure, checks the request protocol (a request
// is held until accepted, reads only with room for the response) and
// returns responses in order.  Figures come from zero-wait runs.
// Plusargs: +seed=N +n=COMMANDS_PER_CONFIG
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_blit;

  localparam integer MEMW = 16384;        // 64 KiB region
  localparam integer MEMB = MEMW * 4;
  localparam integer SMALL_AW = 2;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  // ---------------------------------------------------------------- DUTs
  reg        sel;            // 0: default build, 1: small-buffer build with CMD_HELD
  reg        abort;          // abort_i of the selected engine
  reg        stop;           // stop_i of the selected engine
  reg        pause;          // pause_i of both engines: random pulses (pause_pct)
  integer    pause_pct;      // chance per cycle that pause_i is high
  integer    n_pause_hold;   // cycles paused with a command between chunks
  wire [1:0] d_chunk;
  wire [1:0]  d_cut;
  wire [15:0] d_cut_first [0:1];
  wire [15:0] d_cut_count [0:1];
  wire [1:0]  d_cut_part;
  wire [15:0] d_cut_prow [0:1];
  wire [15:0] d_cut_lo [0:1];
  wire [15:0] d_cut_hi [0:1];
  reg        cmd_valid;
  reg        cmd_copy;
  reg [31:0] cmd_dst, cmd_src, cmd_pattern;
  reg [15:0] cmd_dpitch, cmd_spitch, cmd_width, cmd_height;

  wire [1:0]  d_cmd_ready, d_busy, d_req_valid, d_req_write;
  wire [31:0] d_req_addr [0:1];
  wire [31:0] d_req_wdata [0:1];
  wire [3:0]  d_req_wstrb [0:1];
  reg         mem_ready;
  reg         rsp_valid;
  reg  [31:0] rsp_rdata;

  sgpu_blit u_dut0 (
    .clk_i(clk), .rst_ni(rst_n), .abort_i(abort & ~sel), .stop_i(stop & ~sel),
    .pause_i(pause), .chunk_o(d_chunk[0]),
    .cut_o(d_cut[0]), .cut_first_o(d_cut_first[0]), .cut_count_o(d_cut_count[0]),
    .cut_part_o(d_cut_part[0]), .cut_prow_o(d_cut_prow[0]), .cut_lo_o(d_cut_lo[0]), .cut_hi_o(d_cut_hi[0]),
    .cmd_valid_i(cmd_valid & ~sel), .cmd_ready_o(d_cmd_ready[0]), .cmd_copy_i(cmd_copy),
    .cmd_dst_i(cmd_dst), .cmd_dst_pitch_i(cmd_dpitch), .cmd_src_i(cmd_src),
    .cmd_src_pitch_i(cmd_spitch), .cmd_width_i(cmd_width), .cmd_height_i(cmd_height),
    .cmd_pattern_i(cmd_pattern), .busy_o(d_busy[0]),
    .mem_req_valid_o(d_req_valid[0]), .mem_req_ready_i(mem_ready & ~sel),
    .mem_req_write_o(d_req_write[0]), .mem_req_addr_o(d_req_addr[0]),
    .mem_req_wdata_o(d_req_wdata[0]), .mem_req_wstrb_o(d_req_wstrb[0]),
    .mem_rsp_valid_i(rsp_valid & ~sel), .mem_rsp_rdata_i(rsp_rdata));

  // The small-buffer build also reads its command fields from the inputs
  // (CMD_HELD, as with one node): this bench holds them until busy falls.
  sgpu_blit #(.BUF_AW(SMALL_AW), .CMD_HELD(1)) u_dut1 (
    .clk_i(clk), .rst_ni(rst_n), .abort_i(abort & sel), .stop_i(stop & sel),
    .pause_i(pause), .chunk_o(d_chunk[1]),
    .cut_o(d_cut[1]), .cut_first_o(d_cut_first[1]), .cut_count_o(d_cut_count[1]),
    .cut_part_o(d_cut_part[1]), .cut_prow_o(d_cut_prow[1]), .cut_lo_o(d_cut_lo[1]), .cut_hi_o(d_cut_hi[1]),
    .cmd_valid_i(cmd_valid & sel), .cmd_ready_o(d_cmd_ready[1]), .cmd_copy_i(cmd_copy),
    .cmd_dst_i(cmd_dst), .cmd_dst_pitch_i(cmd_dpitch), .cmd_src_i(cmd_src),
    .cmd_src_pitch_i(cmd_spitch), .cmd_width_i(cmd_width), .cmd_height_i(cmd_height),
    .cmd_pattern_i(cmd_pattern), .busy_o(d_busy[1]),
    .mem_req_valid_o(d_req_valid[1]), .mem_req_ready_i(mem_ready & sel),
    .mem_req_write_o(d_req_write[1]), .mem_req_addr_o(d_req_addr[1]),
    .mem_req_wdata_o(d_req_wdata[1]), .mem_req_wstrb_o(d_req_wstrb[1]),
    .mem_rsp_valid_i(rsp_valid & sel), .mem_rsp_rdata_i(rsp_rdata));

  wire        cmd_ready = d_cmd_ready[sel];
  wire        busy      = d_busy[sel];
  wire        req_valid = d_req_valid[sel];
  wire        req_write = d_req_write[sel];
  wire [31:0] req_addr  = d_req_addr[sel];
  wire [31:0] req_wdata = d_req_wdata[sel];
  wire [3:0]  req_wstrb = d_req_wstrb[sel];
  wire        req_acc   = req_valid & mem_ready;

  // ---------------------------------------------------------------- memory
  reg [31:0] mem [0:MEMW-1];
  reg [7:0]  refm [0:MEMB-1];
  reg [7:0]  tmp [0:65535];

  integer seed;
  `include "tb_random.vh"
  integer stall_pct;     // chance per cycle that memory refuses a request
  integer lat_min, lat_max;
  integer cyc;

  // Response queue: data and the cycle it is due.
  localparam integer QN = 1024;
  reg [31:0] q_data [0:QN-1];
  integer    q_due [0:QN-1];
  integer    q_head, q_tail, q_last_due;

  // Counters for figures and checks.
  integer n_wr, n_rd, outstanding;
  reg     aborting;        // abort seen since the command started: only a held request may go
  integer n_abort_wr;      // requests accepted after the abort (at most the held one)
  reg        hold_valid;
  reg        hold_write;
  reg [31:0] hold_addr, hold_wdata;
  reg [3:0]  hold_wstrb;

  // Is byte a inside the rectangle (base, pitch, w, h)?  (pitch >= w when h > 1)
  function in_rect(input integer a, input integer base, input integer p, input integer w,
                   input integer h);
    integer o;
    begin
      o = a - base;
      if (o < 0 || w == 0 || h == 0) in_rect = 1'b0;
      else if (h == 1 || p == 0) in_rect = (o < w);
      else in_rect = (o / p < h) && (o % p < w);
    end
  endfunction

  // The rectangle of the command in flight, for the access checks.
  integer ck_dst, ck_src, ck_dp, ck_sp, ck_w, ck_h;
  reg     ck_copy;

  integer k, lat;
  reg     any;
  integer cov_walk_mid, cov_ret;   // delta >= 0 run starting below row 0; walk back after one
  initial begin cov_walk_mid = 0; cov_ret = 0; end
  always @(posedge clk) begin
    if (u_dut0.st_q == 3'd2 && u_dut0.row_q == u_dut0.base_q && u_dut0.base_q != 0 && u_dut0.dge)
      cov_walk_mid = cov_walk_mid + 1;
    if (u_dut1.st_q == 3'd2 && u_dut1.row_q == u_dut1.base_q && u_dut1.base_q != 0 && u_dut1.dge)
      cov_walk_mid = cov_walk_mid + 1;
    if (u_dut0.st_q == 3'd4 && u_dut0.row_q == u_dut0.top_q) cov_ret = cov_ret + 1;
    if (u_dut1.st_q == 3'd4 && u_dut1.row_q == u_dut1.top_q) cov_ret = cov_ret + 1;
  end
  always @(posedge clk) begin
    cyc = cyc + 1;
    if (!rst_n) begin
      q_head = 0; q_tail = 0; q_last_due = 0;
      rsp_valid <= 1'b0;
      mem_ready <= 1'b0;
      hold_valid = 1'b0;
      outstanding = 0;
    end else begin
      if (abort === 1'b1) aborting = 1'b1;
      if (aborting && req_valid) begin
        if (!hold_valid) $fatal(1, "FAIL new request after abort at cycle %0d", cyc);
        if (req_acc) n_abort_wr = n_abort_wr + 1;
        if (n_abort_wr > 1) $fatal(1, "FAIL more than one request after abort");
      end
      // A request not accepted must be offered unchanged next cycle.
      if (hold_valid) begin
        if (!req_valid || req_write !== hold_write || req_addr !== hold_addr ||
            (hold_write && (req_wdata !== hold_wdata || req_wstrb !== hold_wstrb)))
          $fatal(1, "FAIL request changed or withdrawn before acceptance at cycle %0d", cyc);
      end
      hold_valid = req_valid & ~mem_ready;
      hold_write = req_write; hold_addr = req_addr; hold_wdata = req_wdata; hold_wstrb = req_wstrb;
      if (req_valid && req_addr[1:0] != 2'b00)
        $fatal(1, "FAIL misaligned request address %h", req_addr);
      if (req_acc) begin
        if (req_addr >= MEMB) $fatal(1, "FAIL request outside memory: %h", req_addr);
        if (req_write) begin
          n_wr = n_wr + 1;
          if (req_wstrb == 4'h0) $fatal(1, "FAIL write with no byte enabled at %h", req_addr);
          for (k = 0; k < 4; k = k + 1)
            if (req_wstrb[k]) begin
              if (!in_rect(req_addr + k, ck_dst, ck_dp, ck_w, ck_h))
                $fatal(1, "FAIL write to byte %h outside the destination", req_addr + k);
              mem[req_addr[31:2]][8*k +: 8] = req_wdata[8*k +: 8];
            end
        end else begin
          n_rd = n_rd + 1;
          // Only words holding at least one source byte are read.
          any = 1'b0;
          for (k = 0; k < 4; k = k + 1)
            if (in_rect(req_addr + k, ck_src, ck_sp, ck_w, ck_h)) any = 1'b1;
          if (!ck_copy || !any) $fatal(1, "FAIL read of word %h outside the source (src %0d pitch %0d %0dx%0d copy %0d aborting %0d)", req_addr, ck_src, ck_sp, ck_w, ck_h, ck_copy, aborting);
          outstanding = outstanding + 1;
          // The engine may only ask for what its buffer (plus one held word) can take.
          if (outstanding > (sel ? (1 << SMALL_AW) : (1 << u_dut0.BUF_AW)) + 1)
            $fatal(1, "FAIL %0d reads outstanding", outstanding);
          lat = lat_min + (lat_max > lat_min ? ($unsigned(tb_random(0)) % (lat_max - lat_min + 1)) : 0);
          if (cyc + lat > q_last_due) q_last_due = cyc + lat; else q_last_due = q_last_due + 1;
          q_data[q_tail % QN] = mem[req_addr[31:2]];
          q_due[q_tail % QN] = q_last_due;
          q_tail = q_tail + 1;
        end
      end
      // Deliver: due in the cycle that starts now.
      if (q_head != q_tail && q_due[q_head % QN] <= cyc + 1) begin
        rsp_valid <= 1'b1;
        rsp_rdata <= q_data[q_head % QN];
        q_head = q_head + 1;
        outstanding = outstanding - 1;
      end else begin
        rsp_valid <= 1'b0;
        rsp_rdata <= tb_random(0);
      end
      mem_ready <= (stall_pct == 0) ? 1'b1 : (($unsigned(tb_random(0)) % 100) >= stall_pct);
    end
  end

  // ---------------------------------------------------------------- helpers
  integer i, r, b;

  task fill_random;
    begin
      for (i = 0; i < MEMW; i = i + 1) begin
        mem[i] = tb_random(0);
        for (b = 0; b < 4; b = b + 1) refm[4*i+b] = mem[i][8*b +: 8];
      end
    end
  endtask

  task compare_range(input integer lo, input integer hi, input [8*40-1:0] what);
    integer a;
    begin
      if (lo < 0) lo = 0;
      if (hi > MEMB) hi = MEMB;
      for (a = lo; a < hi; a = a + 1)
        if (mem[a/4][8*(a%4) +: 8] !== refm[a])
          $fatal(1, "FAIL %0s: byte %h is %h, expected %h (sel %0d)", what, a,
                 mem[a/4][8*(a%4) +: 8], refm[a], sel);
    end
  endtask

  // Run one command; returns the cycles from accept to busy low.
  integer run_cycles;
  integer wr_before;
  task run_cmd;
    integer t0, guard;
    begin
      @(negedge clk);
      cmd_valid = 1'b1;
      ck_copy = cmd_copy; ck_dst = cmd_dst; ck_src = cmd_src; ck_dp = cmd_dpitch;
      ck_sp = cmd_spitch; ck_w = cmd_width; ck_h = cmd_height;
      guard = 0;
      while (!cmd_ready) begin
        @(negedge clk);
        guard = guard + 1;
        if (guard > 1000) $fatal(1, "FAIL engine never ready");
      end
      t0 = cyc;
      wr_before = n_wr;
      @(posedge clk);
      #1 cmd_valid = 1'b0;
      guard = 0;
      while (busy) begin
        @(posedge clk); #1;
        guard = guard + 1;
        if (guard > 2000000) $fatal(1, "FAIL engine hung");
      end
      run_cycles = cyc - t0;
      if (outstanding != 0) $fatal(1, "FAIL busy low with %0d reads outstanding", outstanding);
      if (req_valid) $fatal(1, "FAIL request while idle");
    end
  endtask

  task ref_fill(input integer dst, input integer dp, input integer w, input integer h,
                input [31:0] pat);
    integer a;
    begin
      for (r = 0; r < h; r = r + 1)
        for (i = 0; i < w; i = i + 1) begin
          a = dst + r * dp + i;
          refm[a] = pat[8*(a%4) +: 8];
        end
    end
  endtask

  task ref_copy(input integer dst, input integer dp, input integer src, input integer sp,
                input integer w, input integer h);
    begin
      for (r = 0; r < h; r = r + 1)
        for (i = 0; i < w; i = i + 1) tmp[r * w + i] = refm[src + r * sp + i];
      for (r = 0; r < h; r = r + 1)
        for (i = 0; i < w; i = i + 1) refm[dst + r * dp + i] = tmp[r * w + i];
    end
  endtask

  function integer rnd(input integer n);  // 0..n-1
    begin
      rnd = (n <= 1) ? 0 : ($unsigned(tb_random(0)) % n);
    end
  endfunction

  // Random rectangle sizes with a bias toward small and edge cases.
  integer w, h, dp, sp, dst, src, ext_d, ext_s, kind;
  task pick_dims;
    begin
      kind = rnd(10);
      if (kind < 5) w = 1 + rnd(16);
      else if (kind < 8) w = 1 + rnd(100);
      else w = 1 + rnd(700);
      kind = rnd(10);
      if (kind < 4) h = 1 + rnd(3);
      else if (kind < 9) h = 1 + rnd(24);
      else h = rnd(40);
      if (rnd(40) == 0) w = 0;
      if (w * h > 12000) h = 12000 / w;
      if (h <= 1 && rnd(3) == 0) dp = rnd(w + 8); else dp = w + (rnd(2) ? rnd(8) : rnd(300));
      if (h <= 1 && rnd(3) == 0) sp = rnd(w + 8);
      else if (rnd(3) == 0) sp = dp;
      else sp = w + (rnd(2) ? rnd(8) : rnd(300));
      ext_d = (h == 0) ? 0 : (h - 1) * dp + w;
      ext_s = (h == 0) ? 0 : (h - 1) * sp + w;
    end
  endtask

  integer n_cmds, c, n_fill, n_copy, n_overlap;
  integer lo, hi;
  reg [31:0] pat;
  task random_cmds(input integer n);
    begin
      for (c = 0; c < n; c = c + 1) begin
        gen_cmd;
        if (cmd_copy) begin
          n_copy = n_copy + 1;
          if (src < dst + ext_d && dst < src + ext_s) n_overlap = n_overlap + 1;
          ref_copy(dst, dp, src, sp, w, h);
        end else begin
          n_fill = n_fill + 1;
          ref_fill(dst, dp, w, h, pat);
        end
        run_cmd;
        lo = (cmd_copy && src < dst) ? src : dst;
        hi = (cmd_copy && src + ext_s > dst + ext_d) ? src + ext_s : dst + ext_d;
        compare_range(lo - 64, hi + 64, cmd_copy ? "copy" : "fill");
      end
      compare_range(0, MEMB, "whole memory");
    end
  endtask

  task gen_cmd;
    begin
        pick_dims;
        cmd_copy = rnd(3) != 0;
        dst = rnd(MEMB - ext_d + 1);
        src = rnd(MEMB - ext_s + 1);
        if (cmd_copy && h >= 3 && dp != sp && rnd(3) == 0) begin
          // Different pitches, delta = dst_row - src_row changing sign inside
          // the rectangle: one run of rows each way.
          i = 1 + rnd(h - 1);
          src = dst + i * (dp - sp) + rnd(9) - 4;
          if (src < 0 || src > MEMB - ext_s) src = rnd(MEMB - ext_s + 1);
        end else if (cmd_copy && rnd(3) != 0) begin
          // Overlapping: src near dst, by a random number of rows and bytes.
          src = dst + (rnd(2) ? 1 : -1) * (rnd(h + 1) * (rnd(2) ? sp : dp) + rnd(w + 8) - 4);
          if (src < 0) src = 0;
          if (src > MEMB - ext_s) src = MEMB - ext_s;
        end
        pat = tb_random(0);
        cmd_dst = dst; cmd_src = src; cmd_dpitch = dp; cmd_spitch = sp;
        cmd_width = w; cmd_height = h; cmd_pattern = pat;
    end
  endtask

  // Abort a command in the middle: start it, raise abort_i after a random
  // delay (a one-cycle pulse, or held until busy drops and one cycle beyond
  // as the command processor does), check that no request but an already
  // presented one goes out, that busy drops only with no read in flight and
  // the engine refuses commands while abort_i is high; then the memory is
  // taken as the new reference and a normal command must work.
  integer n_ab_hit, n_ab_fill, n_ab_copy, ab_wait, ab_i, a;
  reg     ab_pulse;
  task abort_cmds(input integer s, input integer st, input integer l0, input integer l1,
                  input integer n);
    integer guard;
    begin
      sel = s; stall_pct = st; lat_min = l0; lat_max = l1;
      n_fill = 0; n_copy = 0; n_overlap = 0;
      n_ab_hit = 0; n_ab_fill = 0; n_ab_copy = 0;
      for (ab_i = 0; ab_i < n; ab_i = ab_i + 1) begin
        gen_cmd;
        if (w < 40) begin w = 40 + rnd(400); cmd_width = w; end
        if (h < 2) begin h = 2; cmd_height = h; end
        if (dp < w) begin dp = w + rnd(8); cmd_dpitch = dp; end
        if (sp < w) begin sp = w + rnd(8); cmd_spitch = sp; end
        if (cmd_dst + (h - 1) * dp + w > MEMB || cmd_src + (h - 1) * sp + w > MEMB) begin
          dp = w; sp = w; cmd_dpitch = dp; cmd_spitch = sp;
          cmd_dst = rnd(MEMB - (h - 1) * dp - w + 1); cmd_src = rnd(MEMB - (h - 1) * sp - w + 1);
        end
        @(negedge clk);
        cmd_valid = 1'b1;
        ck_copy = cmd_copy; ck_dst = cmd_dst; ck_src = cmd_src; ck_dp = cmd_dpitch;
        ck_sp = cmd_spitch; ck_w = cmd_width; ck_h = cmd_height;
        while (!cmd_ready) @(negedge clk);
        @(negedge clk);
        cmd_valid = 1'b0;
        ab_wait = rnd(3 * (w / 4 + 2) * h);
        ab_pulse = rnd(2);
        repeat (ab_wait) @(negedge clk);
        if (busy) begin
          n_ab_hit = n_ab_hit + 1;
          if (cmd_copy) n_ab_copy = n_ab_copy + 1; else n_ab_fill = n_ab_fill + 1;
        end
        n_abort_wr = 0;
        abort = 1'b1;
        #1;
        if (ab_pulse) begin
          @(negedge clk);
          abort = 1'b0;
        end
        guard = 0;
        while (busy) begin
          if (cmd_ready) $fatal(1, "FAIL ready while busy");
          @(negedge clk);
          guard = guard + 1;
          if (guard > 200) $fatal(1, "FAIL engine did not drain after abort");
        end
        if (outstanding != 0) $fatal(1, "FAIL busy low after abort with %0d reads outstanding", outstanding);
        if (req_valid) $fatal(1, "FAIL request after the abort drained");
        if (abort && cmd_ready) $fatal(1, "FAIL ready while abort_i is high");
        @(negedge clk);
        abort = 1'b0;
        aborting = 1'b0;
        // What the aborted command wrote (only inside its destination) is the new reference.
        for (a = cmd_dst; a < cmd_dst + (h - 1) * dp + w; a = a + 1) refm[a] = mem[a/4][8*(a%4) +: 8];
        // The engine is idle and correct for the next command.
        random_cmds(1);
      end
      $display("PASS abort buf_aw=%0d stall=%0d%% latency=%0d..%0d: %0d aborted mid-command (%0d fills, %0d copies)",
               s ? SMALL_AW : u_dut0.BUF_AW, st, l0, l1, n_ab_hit, n_ab_fill, n_ab_copy);
      if (n_ab_fill < n / 10 || n_ab_copy < n / 10) $fatal(1, "FAIL too few aborts mid-command");
    end
  endtask

  // Pause: random pulses of pause_i; a paused engine between chunks
  // presents no request (and the result must still equal the byte model).
  always @(negedge clk) begin
    // (no random draw when off: the other runs keep their sequences)
    if (pause_pct != 0) pause <= ($unsigned(tb_random(0)) % 100) < pause_pct;
    else pause <= 1'b0;
    if (pause && busy && !d_chunk[sel]) begin
      n_pause_hold = n_pause_hold + 1;
      if (req_valid && !aborting) $fatal(1, "FAIL request while paused between chunks");
    end
  end

  task config_run(input integer s, input integer st, input integer l0, input integer l1,
                  input integer n);
    begin
      sel = s; stall_pct = st; lat_min = l0; lat_max = l1;
      n_fill = 0; n_copy = 0; n_overlap = 0;
      random_cmds(n);
      $display("PASS config buf_aw=%0d stall=%0d%% latency=%0d..%0d: %0d fills, %0d copies (%0d overlapping)",
               s ? SMALL_AW : u_dut0.BUF_AW, st, l0, l1, n_fill, n_copy, n_overlap);
    end
  endtask

  // Stop a command in the middle (stop_i raised after a random delay and
  // held until busy drops, as the command processor does): when it ends
  // early (cut_o) what it left — part of a row, then whole rows — is sent
  // as new commands of the same kind, in that order, each maybe cut again,
  // until none is left; the memory must be what the whole command writes
  // (an overlapping COPY too: what is left reads sources the work done did
  // not touch).  Counts cuts of each kind.
  integer n_cut_fill, n_cut_up, n_cut_down, n_cut_part, n_cut_cmds, st_wait, st_guard, q_n, q_i;
  // pending commands, last in first out: dst, src, width, height
  reg [31:0] q_dst [0:63];
  reg [31:0] q_src [0:63];
  reg [15:0] q_w [0:63];
  reg [15:0] q_h [0:63];
  integer c_dst, c_src, c_w, c_h, p_row, p_lo, p_hi, f_first, f_count;
  task stop_cmds(input integer s, input integer st, input integer l0, input integer l1,
                 input integer n);
    begin
      sel = s; stall_pct = st; lat_min = l0; lat_max = l1;
      for (c = 0; c < n; c = c + 1) begin
        gen_cmd;
        if (cmd_copy) ref_copy(dst, dp, src, sp, w, h);
        else ref_fill(dst, dp, w, h, pat);
        st_guard = 0;
        q_n = 1; q_dst[0] = cmd_dst; q_src[0] = cmd_src; q_w[0] = cmd_width; q_h[0] = cmd_height;
        while (q_n > 0) begin
          q_n = q_n - 1;
          cmd_dst = q_dst[q_n]; cmd_src = q_src[q_n]; cmd_width = q_w[q_n]; cmd_height = q_h[q_n];
          c_dst = cmd_dst; c_src = cmd_src; c_w = cmd_width; c_h = cmd_height;
          // Start it; raise stop after st_wait cycles, hold it until busy drops.
          st_wait = rnd(3 * w + 40);
          @(negedge clk);
          cmd_valid = 1'b1;
          ck_copy = cmd_copy; ck_dst = cmd_dst; ck_src = cmd_src; ck_dp = cmd_dpitch;
          ck_sp = cmd_spitch; ck_w = cmd_width; ck_h = cmd_height;
          while (!cmd_ready) @(negedge clk);
          @(posedge clk);
          #1 cmd_valid = 1'b0;
          while (busy && st_wait > 0) begin @(posedge clk); #1; st_wait = st_wait - 1; end
          stop = 1'b1;
          while (busy) begin @(posedge clk); #1; end
          @(negedge clk) stop = 1'b0;
          if (outstanding != 0) $fatal(1, "FAIL busy low with %0d reads outstanding", outstanding);
          if (d_cut[sel]) begin
            f_first = d_cut_first[sel]; f_count = d_cut_count[sel];
            p_row = d_cut_prow[sel]; p_lo = d_cut_lo[sel]; p_hi = d_cut_hi[sel];
            if (f_first + f_count > c_h || (!d_cut_part[sel] && (f_count < 1 || f_count == c_h)) ||
                (d_cut_part[sel] && (p_row >= c_h || p_lo >= p_hi || p_hi > c_w || (p_lo == 0 && p_hi == c_w))))
              $fatal(1, "FAIL cut of %0dx%0d leaves part %b row %0d bytes %0d..%0d, rows %0d+%0d", c_w, c_h,
                     d_cut_part[sel], p_row, p_lo, p_hi, f_first, f_count);
            n_cut_cmds = n_cut_cmds + 1;
            if (d_cut_part[sel]) n_cut_part = n_cut_part + 1;
            if (!cmd_copy) n_cut_fill = n_cut_fill + 1;
            else if (!d_cut_part[sel] ? f_first + f_count == c_h : p_lo != 0) n_cut_up = n_cut_up + 1;
            else n_cut_down = n_cut_down + 1;
            // pushed so that the part of a row runs first
            if (f_count > 0) begin
              q_dst[q_n] = c_dst + f_first * cmd_dpitch; q_src[q_n] = c_src + f_first * cmd_spitch;
              q_w[q_n] = c_w; q_h[q_n] = f_count; q_n = q_n + 1;
            end
            if (d_cut_part[sel]) begin
              q_dst[q_n] = c_dst + p_row * cmd_dpitch + p_lo; q_src[q_n] = c_src + p_row * cmd_spitch + p_lo;
              q_w[q_n] = p_hi - p_lo; q_h[q_n] = 1; q_n = q_n + 1;
            end
            st_guard = st_guard + 1;
            if (st_guard > 5000 || q_n > 60) $fatal(1, "FAIL a command cut too often");
          end
        end
        compare_range(0, MEMB, cmd_copy ? "copy cut by stop" : "fill cut by stop");
      end
    end
  endtask

  // A figure run: one big command on zero-wait memory.
  real fw;
  task figure_fill(input integer dst0, input integer w0, input integer h0, input integer dp0,
                   input [8*40-1:0] name);
    begin
      cmd_copy = 1'b0; cmd_dst = dst0; cmd_dpitch = dp0; cmd_width = w0; cmd_height = h0;
      cmd_pattern = 32'hA5C3_0F1E;
      ref_fill(dst0, dp0, w0, h0, 32'hA5C3_0F1E);
      run_cmd;
      compare_range(0, MEMB, name);
      fw = (n_wr - wr_before) * 1.0 / run_cycles;
      $display("FIGURE %0s %0.3f", name, fw);
      if (fw < 0.95) $fatal(1, "FAIL %0s below 0.95 words per cycle", name);
    end
  endtask

  integer rd_before;
  task figure_copy(input integer dst0, input integer dp0, input integer src0, input integer sp0,
                   input integer w0, input integer h0, input [8*40-1:0] name, output real wpc);
    begin
      cmd_copy = 1'b1; cmd_dst = dst0; cmd_dpitch = dp0; cmd_src = src0; cmd_spitch = sp0;
      cmd_width = w0; cmd_height = h0;
      ref_copy(dst0, dp0, src0, sp0, w0, h0);
      rd_before = n_rd;
      run_cmd;
      compare_range(0, MEMB, name);
      wpc = (n_wr - wr_before) * 1.0 / run_cycles;
      $display("FIGURE %0s %0.3f", name, wpc);
      $display("INFO %0s: %0d writes, %0d reads, %0d cycles, port busy %0.3f", name,
               n_wr - wr_before, n_rd - rd_before, run_cycles,
               (n_wr - wr_before + n_rd - rd_before) * 1.0 / run_cycles);
    end
  endtask

  real cw, cw2;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("n=%d", n_cmds)) n_cmds = 80;
    $display("tb_sgpu_blit seed %0d", seed);
    cyc = 0; n_wr = 0; n_rd = 0;
    sel = 0; cmd_valid = 0; abort = 0; stop = 0; pause = 0; pause_pct = 0; n_pause_hold = 0; n_cut_fill = 0; n_cut_up = 0; n_cut_down = 0;
    n_cut_cmds = 0; n_cut_part = 0; aborting = 0; n_abort_wr = 0; cmd_copy = 0; stall_pct = 0; lat_min = 1; lat_max = 1;
    cmd_dst = 0; cmd_src = 0; cmd_pattern = 0; cmd_dpitch = 0; cmd_spitch = 0;
    cmd_width = 0; cmd_height = 0;
    fill_random;
    repeat (3) @(posedge clk);
    #1 rst_n = 1'b1;
    repeat (2) @(posedge clk);

    // Figures first, on zero-wait memory, default build.
    figure_fill(4096, 4096, 8, 4096, "fill_words_per_cycle");
    figure_fill(1, 1001, 20, 1100, "fill_unaligned_words_per_cycle");
    figure_copy(1, 2050, 32768 + 2, 2000, 1999, 12, "copy_words_per_cycle", cw);
    figure_copy(4096 + 3000 + 1, 3000, 4096 + 2, 3000, 2048, 8, "copy_overlap_down_words_per_cycle", cw2);
    if (cw < 0.45) $fatal(1, "FAIL copy below 0.45 words per cycle");

    // Randomized: zero-wait, back-pressure, latency, both buffer sizes.
    config_run(0, 0, 1, 1, n_cmds);
    config_run(1, 0, 1, 1, n_cmds);
    config_run(0, 30, 1, 6, n_cmds);
    config_run(1, 50, 1, 9, n_cmds);
    config_run(0, 10, 4, 4, n_cmds / 2);
    config_run(1, 80, 2, 20, n_cmds / 3);
    abort_cmds(0, 30, 1, 6, n_cmds / 4);
    abort_cmds(1, 50, 2, 12, n_cmds / 4);
    abort_cmds(0, 0, 1, 1, n_cmds / 8);
    stop_cmds(0, 30, 1, 6, n_cmds);
    stop_cmds(1, 50, 2, 12, n_cmds);
    stop_cmds(0, 0, 1, 1, n_cmds / 2);
    $display("INFO stop: %0d cuts (%0d inside a row): %0d FILL, %0d COPY top-down, %0d COPY bottom-up",
             n_cut_cmds, n_cut_part, n_cut_fill, n_cut_up, n_cut_down);
    if (n_cut_fill < 10 || n_cut_up < 5 || n_cut_down < 5 || n_cut_part < 10)
      $fatal(1, "FAIL stop not exercised");
    $display("INFO coverage: %0d copies with an up run then a down run, %0d with a down run then an up run",
             cov_walk_mid, cov_ret);
    if (cov_walk_mid < 5 || cov_ret < 5) $fatal(1, "FAIL mixed-direction copies not exercised");
    // Random pause_i pulses (short and long runs of them).
    pause_pct = 30;
    config_run(0, 20, 1, 6, n_cmds / 2);
    config_run(1, 40, 1, 9, n_cmds / 2);
    pause_pct = 85;
    config_run(0, 0, 1, 1, n_cmds / 4);
    config_run(1, 0, 1, 1, n_cmds / 4);
    pause_pct = 0;
    $display("INFO pause: %0d cycles paused between chunks", n_pause_hold);
    if (n_pause_hold < 100) $fatal(1, "FAIL pause not exercised");
    $display("PASS tb_sgpu_blit");
    $finish;
  end

endmodule
