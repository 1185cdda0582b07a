// tb_sgpu_sdram: the SDRAM controller against the SDRAM model
// (sgpu_sdram_model.vh checks every command's timing, the bank states and
// the data bus), with random traffic checked word for word against a
// reference memory.
//
// Three controllers run side by side, each with its own model, traffic and
// reference:
//   u0  30 MHz, CL 3 with the SDRAM (the model) clocked by the inverted
//       clock (CLK_INV), BURST 2, 256 Mbit geometry: the ULX3S build (its
//       system clock; most timings round to 1 or 2 cycles)
//   u1 133 MHz, CL 3, BURST 8, 256 Mbit geometry, one extra capture stage
//   u2  50 MHz, CL 2, BURST 2 (timings of 2 to 4 cycles)
// Traffic, in segments: sequential read runs (scanout), random reads (now
// and then the same word again), random writes with random byte strobes
// (none, some, all), mixed reads and writes, sequential writes (fill),
// copy-like read/write pairs, a walking read-modify-write; random bank, row
// and column, from a few words or rows to all of them.  Requests change at
// the falling edge and are taken at the rising one; a request the
// controller does not take at once may be withdrawn or replaced, as the
// chip's arbiter does when the display preempts: only accepted requests
// count.  Refresh runs throughout.  At the end the whole reference is also
// compared with the model's storage (a lost write shows even if nothing
// read it back).  Under Verilator the three do 1,000,000 accesses between
// them, plus the figure runs; under Icarus fewer and no figures
// (+accesses=N, +figures=0/1).
//
// Figures (u0, after its random traffic): words per cycle for a sequential
// read run of 8192 words across rows (scanout; also with at most 4 or 8
// reads outstanding, like the arbiter's MEM_RDQ), random reads, sequential
// and random writes, each also as a share of the 0.5 words (32-bit) per
// cycle a 16-bit SDR bus carries; the read latency on a row hit and a row
// miss; the share of cycles the SDRAM spends refreshing.  u1 adds its
// sequential read run (BURST 8, CL 3).
`timescale 1ns/1ps
`include "sgpu_hw.vh"
`include "sgpu_sdram_model.vh"

// The bench itself carries no coverage counters (only rtl/ is measured).
/* verilator coverage_off */

module sdram_tb_unit #(
  parameter integer CLK_MHZ  = 50,
  parameter integer CL       = 2,
  parameter integer BURST    = 2,
  parameter integer COL_BITS = 10,
  parameter integer RDX      = 0,
  parameter integer CLK_INV  = 0,     // the model runs on the inverted clock
  parameter integer SEED     = 1,
  parameter integer FIGS     = 0,
  parameter NAME              = "u"
) (
  input  wire clk,
  input  wire rst_n,
  input  wire [31:0] n_acc,
  input  wire        figs_on,
  output reg  done
);
  localparam integer ROW_BITS = 13;
  localparam integer CW    = COL_BITS - 1;
  localparam integer WPR   = 1 << CW;          // words per row of one bank
  localparam integer RG    = 4 * WPR;          // words per row of all four banks
  localparam integer GROUP = 16 * RG;          // 16 consecutive rows
  localparam integer NREF  = 4 * GROUP;        // 4 groups: 64 rows per bank
  localparam integer RFC_CK = (63 * CLK_MHZ + 999) / 1000;

  integer seed = SEED;
  `include "tb_random.vh"

  reg         valid, write;
  reg  [31:0] addr, wdata;
  reg  [3:0]  wstrb;
  wire        ready, rsp_valid;
  wire [31:0] rsp_rdata;
  wire        s_cke, s_csn, s_rasn, s_casn, s_wen, s_oe;
  wire [1:0]  s_ba, s_dqm;
  wire [12:0] s_a;
  wire [15:0] s_dq_o, s_dq_i;
  /* verilator lint_off UNUSEDSIGNAL */
  wire        s_clk;
  /* verilator lint_on UNUSEDSIGNAL */

  sgpu_sdram #(.CLK_MHZ(CLK_MHZ), .CL(CL), .CLK_INV(CLK_INV), .BURST(BURST), .COL_BITS(COL_BITS),
               .RDX(RDX)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .req_valid_i(valid), .req_ready_o(ready), .req_write_i(write), .req_addr_i(addr),
    .req_wdata_i(wdata), .req_wstrb_i(wstrb), .rsp_valid_o(rsp_valid), .rsp_rdata_o(rsp_rdata),
    .sdram_clk_o(s_clk), .sdram_cke_o(s_cke), .sdram_csn_o(s_csn), .sdram_rasn_o(s_rasn),
    .sdram_casn_o(s_casn), .sdram_wen_o(s_wen), .sdram_ba_o(s_ba), .sdram_a_o(s_a),
    .sdram_dqm_o(s_dqm), .sdram_dq_o(s_dq_o), .sdram_dq_oe_o(s_oe), .sdram_dq_i(s_dq_i));

  wire m_clk = (CLK_INV != 0) ? ~clk : clk;
  sgpu_sdram_model #(.CLK_MHZ(CLK_MHZ), .COL_BITS(COL_BITS), .ROW_BITS(ROW_BITS)) model (
    .clk_i(m_clk), .cke_i(s_cke), .csn_i(s_csn), .rasn_i(s_rasn), .casn_i(s_casn), .wen_i(s_wen),
    .ba_i(s_ba), .a_i(s_a), .dqm_i(s_dqm), .dq_i(s_dq_o), .dq_oe_i(s_oe), .dq_o(s_dq_i));

  // ------------------------------------------------------------ reference
  reg [31:0]         refm [0:NREF-1];
  reg [ROW_BITS-7:0] hi [0:3];                 // upper row bits of each group
  reg [31:0]         exp_d [0:255];
  reg [31:0]         exp_a [0:255];
  integer            wp, rp, cyc, t_rsp, n_rd, n_wr, acc, i;

  function [31:0] merge(input [31:0] old, input [31:0] d, input [3:0] s);
    merge = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
             s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
  endfunction

  // group g, word lin within it -> byte address ({row, bank, column} words)
  function [31:0] mkaddr(input integer g, input integer lin);
    reg [5:0]          slot;
    reg [ROW_BITS-1:0] row;
    begin
      slot   = g * 16 + lin / RG;
      row    = {hi[g], slot};
      mkaddr = ((row << (CW + 2)) | (lin % RG)) << 2;
    end
  endfunction

  always @(posedge clk) begin
    cyc = cyc + 1;
    if (rsp_valid) begin
      if (rp == wp) $fatal(1, "%0s: a response with no read outstanding (cycle %0d)", NAME, cyc);
      if (rsp_rdata !== exp_d[rp % 256])
        $fatal(1, "%0s: read of %h returned %h, want %h (cycle %0d)", NAME, exp_a[rp % 256],
               rsp_rdata, exp_d[rp % 256], cyc);
      rp = rp + 1;
      t_rsp = cyc;
    end
  end

  // ------------------------------------------------------------ traffic
  reg         have, h_write, rdy_s;
  reg  [31:0] h_wdata;
  reg  [3:0]  h_wstrb;
  integer     h_g, h_lin;

  task commit;
    integer ix;
    begin
      ix = h_g * GROUP + h_lin;
      if (h_write) begin
        refm[ix] = merge(refm[ix], h_wdata, h_wstrb);
        n_wr = n_wr + 1;
      end else begin
        if (wp - rp > 250) $fatal(1, "%0s: more reads outstanding than the bench tracks", NAME);
        exp_d[wp % 256] = refm[ix];
        exp_a[wp % 256] = mkaddr(h_g, h_lin);
        wp = wp + 1;
        n_rd = n_rd + 1;
      end
      acc = acc + 1;
    end
  endtask

  // a random word: in group g, from nsl consecutive rows starting at row sl0,
  // and within those from a window of cwin words at cw0 (a small window
  // makes reads find the words written shortly before)
  integer cw0, cwin;
  task pick(input integer g, input integer sl0, input integer nsl);
    begin
      h_g   = g;
      h_lin = ((sl0 + {tb_random(0)} % nsl) % 16) * RG + (cw0 + {tb_random(0)} % cwin) % RG;
    end
  endtask

  task pick_data;
    begin
      h_wdata = tb_random(0);
      h_wstrb = ((tb_random(0) & 1) != 0) ? 4'hF : tb_random(0);
    end
  endtask

  // One segment.  kind: 0 sequential reads, 1 random reads, 2 random writes,
  // 3 random reads and writes, 4 sequential writes, 5 copy (read src[i],
  // write dst[i]), 6 walking read-modify-write.  Sequential runs start at word lin0 of group g.
  // t_first: the cycle the first request was presented.
  integer t_first, t_acc;
  // Random kinds pick rows near each other (1, 2, 4 or 16 rows of group g)
  // or, with spread, anywhere (any group, any row).
  integer rdq;                     // > 0: at most rdq reads outstanding (the arbiter's MEM_RDQ)
  task run_seg(input integer kind, input integer g, input integer lin0, input integer len,
               input integer bubbles, input integer g2, input integer lin2, input spread);
    integer n, sl0, nsl, r;
    begin
      n = 0; have = 1'b0;
      sl0 = {tb_random(0)} % 16;
      r = {tb_random(0)} % 4;
      nsl = (r == 0) ? 1 : ((r == 1) ? 2 : ((r == 2) ? 4 : 16));
      r = {tb_random(0)} % 4;
      cwin = (r == 0) ? 8 : ((r == 1) ? 64 : RG);
      cw0 = {tb_random(0)} % RG;
      if (spread) begin nsl = 16; cwin = RG; end
      t_first = -1;
      while (n < len) begin
        if (!have || (kind >= 1 && kind <= 3 && ({tb_random(0)} % 8) == 0)) begin
          // a new request, or (random kinds) the stalled one replaced
          have = 1'b1;
          if (spread) g = {tb_random(0)} % 4;
          case (kind)
            0: begin h_write = 1'b0; h_g = g; h_lin = lin0 + n; end
            // random reads; now and then the same word again (polling)
            1: begin h_write = 1'b0; if (n == 0 || ({tb_random(0)} % 8) != 0) pick(g, sl0, nsl); end
            2: begin h_write = 1'b1; pick(g, sl0, nsl); pick_data; end
            3: begin h_write = tb_random(0) & 1; pick(g, sl0, nsl); pick_data; end
            4: begin h_write = 1'b1; h_g = g; h_lin = lin0 + n; pick_data; h_wstrb = 4'hF; end
            // walking read-modify-write: each word about twice, reads and
            // writes mixed, so a read follows a write of its word or of the
            // word before it
            6: begin h_write = tb_random(0) & 1; h_g = g; h_lin = lin0 + n / 2; pick_data; end
            default: begin
              h_write = n & 1;
              h_g = (n & 1) ? g2 : g;
              h_lin = ((n & 1) ? lin2 : lin0) + n / 2;
              pick_data;
            end
          endcase
        end
        valid = have && !(bubbles != 0 && ({tb_random(0)} % 4) == 0) &&
                (rdq == 0 || h_write || wp - rp < rdq);
        write = h_write; addr = mkaddr(h_g, h_lin); wdata = h_wdata; wstrb = h_wstrb;
        if (valid && t_first < 0) t_first = cyc;
        rdy_s = ready;               // ready depends on the controller's state only
        @(negedge clk);
        if (valid && rdy_s) begin
          commit;
          have = 1'b0;
          n = n + 1;
          t_acc = cyc;
        end
      end
      valid = 1'b0;
    end
  endtask

  task drain;
    integer w;
    begin
      w = 0;
      while (rp != wp) begin
        @(negedge clk);
        w = w + 1;
        if (w > 10000) $fatal(1, "%0s: %0d reads never answered", NAME, wp - rp);
      end
    end
  endtask

  // a sequential run length that stays inside group g
  function integer seq_len(input integer lin0, input integer want);
    seq_len = (lin0 + want > GROUP) ? GROUP - lin0 : want;
  endfunction

  // Every word of the reference against the model's storage (a write
  // that never reached the SDRAM shows here even if nothing read it back).
  task backdoor_check;
    integer ix, slot, bank, cw, m;
    reg [31:0] got;
    begin
      for (ix = 0; ix < NREF; ix = ix + 1) begin
        slot = ix / RG;                        // group * 16 + row in the group
        bank = (ix % RG) / WPR;
        cw   = ix % WPR;
        m    = (bank * 64 + slot) * (2 * WPR) + 2 * cw;
        got  = {model.mem[m + 1], model.mem[m]};
        if (got !== refm[ix])
          $fatal(1, "%0s: SDRAM word %h holds %h, want %h", NAME, mkaddr(ix / GROUP, ix % GROUP), got, refm[ix]);
      end
    end
  endtask

  task random_traffic;
    integer kind, g, lin0, len, r;
    begin
      while (acc < n_acc) begin
        r = {tb_random(0)} % 100;
        kind = (r < 25) ? 0 : (r < 38) ? 1 : (r < 50) ? 2 : (r < 68) ? 3 : (r < 78) ? 4 : (r < 90) ? 5 : 6;
        g = {tb_random(0)} % 4;
        lin0 = {tb_random(0)} % GROUP;
        case (kind)
          0, 4: len = seq_len(lin0, 8 + {tb_random(0)} % 505);
          6:    len = 2 * seq_len(lin0, 4 + {tb_random(0)} % 61);
          1, 2: len = 16 + {tb_random(0)} % 49;
          3:    len = 32 + {tb_random(0)} % 97;
          default: begin
            len  = 8 + {tb_random(0)} % 121;
            lin0 = {tb_random(0)} % (GROUP - len);
            r    = {tb_random(0)} % (GROUP - len);
          end
        endcase
        if (kind == 5) run_seg(5, g, lin0, 2 * len, {tb_random(0)} % 2, {tb_random(0)} % 4, r, 1'b0);
        else run_seg(kind, g, lin0, len, (kind == 0 || kind == 4) ? 0 : {tb_random(0)} % 2, 0, 0,
                     ({tb_random(0)} % 4) == 0);
        // sometimes let it go idle (rows stay open, refresh goes on)
        if (({tb_random(0)} % 8) == 0) repeat ({tb_random(0)} % 64) @(negedge clk);
      end
      // a last read: answered only after every write before it went out
      run_seg(0, 0, 0, 1, 0, 0, 0, 1'b0);
      drain;
      backdoor_check;
    end
  endtask

  // ------------------------------------------------------------ figures
  integer t0, lat_hit, lat_miss;
  real    wpc;
  task figure(input [8*40-1:0] name, input integer words, input integer cycles);
    begin
      wpc = words * 1.0 / cycles;
      $display("FIGURE sdram_%0s_words_per_cycle %0.3f", name, wpc);
      $display("FIGURE sdram_%0s_pct_of_bus %0.1f %% (of the 0.5 words per cycle a 16-bit bus carries)",
               name, wpc * 200.0);
    end
  endtask

  task figures;
    integer g;
    begin
      g = {tb_random(0)} % 4;
      // scanout: 8192 words from the start of a group (4 rows of all banks)
      run_seg(0, g, 0, 8192, 0, 0, 0, 1'b0);
      t0 = t_first;
      drain;
      if (FIGS == 2) figure("seq_read_bl8_cl3", 8192, t_rsp - t0);
      else figure("seq_read", 8192, t_rsp - t0);
      if (FIGS == 1) begin
        // the same behind an arbiter that lets 4 or 8 reads be outstanding
        // (sgpu_top's MEM_RDQ; every cycle of latency outside this
        // controller, such as register slices, lowers these further)
        rdq = 4;
        run_seg(0, g, 0, 8192, 0, 0, 0, 1'b0);
        t0 = t_first;
        drain;
        figure("seq_read_rdq4", 8192, t_rsp - t0);
        rdq = 8;
        run_seg(0, g, 0, 8192, 0, 0, 0, 1'b0);
        t0 = t_first;
        drain;
        figure("seq_read_rdq8", 8192, t_rsp - t0);
        rdq = 0;
        run_seg(1, g, 0, 4096, 0, 0, 0, 1'b1);
        t0 = t_first;
        drain;
        figure("random_read", 4096, t_rsp - t0);
        run_seg(4, g, 0, 8192, 0, 0, 0, 1'b0);
        figure("seq_write", 8192, t_acc - t_first);
        run_seg(2, g, 0, 4096, 0, 0, 0, 1'b1);
        figure("random_write", 4096, t_acc - t_first);
        // one read on an idle controller: its row open (the least of 8
        // tries: a refresh between two closes it), then another row of the
        // same bank open (the most of 8: precharge + activate first)
        lat_hit = 1000; lat_miss = 0;
        for (i = 0; i < 8; i = i + 1) begin
          run_seg(0, g, 5 + i, 1, 0, 0, 0, 1'b0);
          drain;
          if (i > 0 && t_rsp - t_acc < lat_hit) lat_hit = t_rsp - t_acc;
          repeat (10) @(negedge clk);
        end
        for (i = 0; i < 8; i = i + 1) begin
          run_seg(0, g, 5 + RG * (1 + i % 2), 1, 0, 0, 0, 1'b0);
          drain;
          if (t_rsp - t_acc > lat_miss) lat_miss = t_rsp - t_acc;
          repeat (10) @(negedge clk);
        end
        $display("FIGURE sdram_read_latency_row_hit_cycles %0d (request accepted to data)", lat_hit);
        $display("FIGURE sdram_read_latency_row_miss_cycles %0d (request accepted to data)", lat_miss);
        $display("FIGURE sdram_refresh_share %0.2f %% (of cycles: %0d refreshes x %0d cycles tRFC in %0d cycles)",
                 100.0 * model.n_ref * RFC_CK / (model.cyc - model.t_ready), model.n_ref, RFC_CK,
                 model.cyc - model.t_ready);
      end
    end
  endtask

  initial begin
    done = 1'b0; valid = 1'b0; write = 1'b0; addr = 32'd0; wdata = 32'd0; wstrb = 4'd0;
    wp = 0; rp = 0; cyc = 0; t_rsp = 0; rdq = 0; n_rd = 0; n_wr = 0; acc = 0; t_acc = 0;
    h_g = 0; h_lin = 0; h_write = 1'b0; h_wdata = 32'd0; h_wstrb = 4'd0;
    for (i = 0; i < NREF; i = i + 1) refm[i] = 32'd0;
    for (i = 0; i < 4; i = i + 1) hi[i] = tb_random(0);
    @(posedge rst_n);
    @(negedge clk);
    random_traffic;
    if (FIGS != 0 && figs_on) figures;
    $display("%0s: %0d reads and %0d writes checked, %0d refreshes, %0d activates, %0d cycles",
             NAME, n_rd, n_wr, model.n_ref, model.n_act, cyc);
    done = 1'b1;
  end
endmodule

module tb_sgpu_sdram;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer n_acc;
  reg     figs_on;
  wire    d0, d1, d2;

  // Each unit's clock stops once it is done (done rises while clk is low),
  // so a finished unit costs no simulation time.  The shares of the
  // accesses make the three finish at about the same cycle.
  wire clk0 = clk & !d0, clk1 = clk & !d1, clk2 = clk & !d2;

  sdram_tb_unit #(.CLK_MHZ(30), .CL(3), .CLK_INV(1), .BURST(2), .COL_BITS(9), .RDX(0), .SEED(11), .FIGS(1),
                  .NAME("u0")) u0 (.clk(clk0), .rst_n(rst_n), .n_acc(n_acc * 45 / 100),
                                   .figs_on(figs_on), .done(d0));
  sdram_tb_unit #(.CLK_MHZ(133), .CL(3), .BURST(8), .COL_BITS(9), .RDX(1), .SEED(22), .FIGS(2),
                  .NAME("u1")) u1 (.clk(clk1), .rst_n(rst_n), .n_acc(n_acc * 18 / 100),
                                   .figs_on(figs_on), .done(d1));
  sdram_tb_unit #(.CLK_MHZ(50), .CL(2), .BURST(2), .COL_BITS(10), .RDX(0), .SEED(33), .FIGS(0),
                  .NAME("u2")) u2 (.clk(clk2), .rst_n(rst_n), .n_acc(n_acc * 37 / 100),
                                   .figs_on(figs_on), .done(d2));

  // A million accesses and the figure runs under Verilator; under Icarus (ten
  // times slower here): fewer, no figures.
  initial begin
`ifdef VERILATOR
    n_acc = 1000000;
    figs_on = 1'b1;
`else
    n_acc = 24000;
    figs_on = 1'b0;
`endif
    if ($value$plusargs("figures=%d", figs_on)) $display("figures %0d", figs_on);
    if ($value$plusargs("accesses=%d", n_acc)) $display("accesses %0d", n_acc);
    repeat (3) @(posedge clk);
    #1 rst_n = 1'b1;
    wait (d0 && d1 && d2);
    $display("tb_sgpu_sdram: PASS (%0d accesses with refresh running, every command checked)",
             u0.acc + u1.acc + u2.acc);
    $finish;
  end
endmodule
/* verilator coverage_on */
