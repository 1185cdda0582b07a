// sgpu_sdram_model: a behavioural x16 SDR SDRAM (4 banks) for the benches of
// sgpu_sdram, with a checker on every command.  Included by
// tests/rtl/tb_sgpu_sdram.v and tests/rtl/tb_sgpu_sdram_checker.v.
//
// Commands are sampled on the rising edge (the controller's pin flops change
// after it).  READ data of beat i is driven for the edge CL + i after the
// command; DQM masks a read beat two edges ahead and a write beat on its own
// edge.  Bursts are sequential within their BL-aligned block; writes are BL
// beats (A9 = 0) or single (A9 = 1); a READ, WRITE or PRECHARGE cuts a burst
// short as the datasheets describe.
//
// Timing rules are checked in nanoseconds against the clock period (cycles x
// 1000 / CLK_MHZ), so the controller's rounding to cycles is checked too.
// Defaults are the -7 grade of the AS4C32M16SB datasheet (Alliance Memory,
// Rev 1.0 June 2016, Table 16): tRCD 21, tRP 21, tRAS 42..120000, tRC 63,
// tWR 14, tRRD 14, tMRD 14, tRFC 63 ns; tCK >= 10 ns at CL 2, 7 ns at CL 3;
// 8192 refreshes per 64 ms.  Each violation names its rule:
//   init-wait     a command before T_INIT_US of stable clock with CKE high
//   init-order    REF or MRS before PRECHARGE ALL, ACT/READ/WRITE before the
//                 INIT_REFS refreshes and the MRS
//   CKE           CKE low after it rose (power-down is not modelled)
//   cmd-x         X/Z on a control pin
//   bank-state    ACT to an open bank, READ/WRITE to a closed one, REF/MRS
//                 with a row open
//   tRCD tRP tRAS tRAS-max tRC tWR tRRD tMRD tRFC   (tMRD also >= T_MRD_CK)
//   CL-tCK        the CAS latency set is too short for the clock
//   refresh-gap   more than T_REF_GAP_NS between two refreshes
//   refresh-window  a refresh row (REF_ROWS of them, round robin) not
//                 refreshed within T_REF_WINDOW_US: fewer than REF_ROWS
//                 refreshes in a window of 64 ms
//   DQ-contention the controller drives DQ within one cycle of the SDRAM
//   write-data    a write beat the controller does not drive, or X data
//   unsupported   a mode or command this model does not implement (auto
//                 precharge, interleaved or full-page bursts, BURST STOP)
//   model-capacity  more rows per bank than the model stores (a bench bug)
// EXPECT = "": every violation is fatal.  EXPECT = a rule: that rule firing
// sets fired and stops the checks (the bench wanted it); any other is fatal.
//
// Storage: 2^SLOT_BITS rows per bank, found by the low row bits; the row
// that first used a slot owns it (another row there is model-capacity).
// No coverage counters in the model: they would only slow the bench down.
/* verilator coverage_off */
module sgpu_sdram_model #(
  parameter integer CLK_MHZ         = 50,
  parameter integer COL_BITS        = 10,
  parameter integer ROW_BITS        = 13,
  parameter integer SLOT_BITS       = 6,
  parameter integer T_RCD_NS        = 21,
  parameter integer T_RP_NS         = 21,
  parameter integer T_RAS_NS        = 42,
  parameter integer T_RAS_MAX_NS    = 120000,
  parameter integer T_RC_NS         = 63,
  parameter integer T_WR_NS         = 14,
  parameter integer T_RRD_NS        = 14,
  parameter integer T_MRD_NS        = 14,
  parameter integer T_MRD_CK        = 2,
  parameter integer T_RFC_NS        = 63,
  parameter integer T_INIT_US       = 200,
  parameter integer INIT_REFS       = 2,
  parameter integer T_CK_CL2_PS     = 10000,
  parameter integer T_CK_CL3_PS     = 7000,
  parameter integer REF_ROWS        = 8192,
  parameter integer T_REF_WINDOW_US = 64000,
  parameter integer T_REF_GAP_NS    = 9 * 7800,
  parameter EXPECT                  = ""
) (
  input  wire        clk_i,
  input  wire        cke_i,
  input  wire        csn_i,
  input  wire        rasn_i,
  input  wire        casn_i,
  input  wire        wen_i,
  input  wire [1:0]  ba_i,
  input  wire [12:0] a_i,
  input  wire [1:0]  dqm_i,
  input  wire [15:0] dq_i,
  input  wire        dq_oe_i,
  output wire [15:0] dq_o
);
  localparam integer SLOTS = 1 << SLOT_BITS;
  localparam integer NCOL  = 1 << COL_BITS;
  localparam integer NW    = 4 * SLOTS * NCOL;
  localparam [63:0]  CYC0  = 64'd10000000;     // "never" (0) lies far in the past

  reg [15:0]         mem [0:NW-1];
  reg [ROW_BITS-1:0] tag [0:4*SLOTS-1];
  reg                tag_v [0:4*SLOTS-1];

  // bank state
  reg                act [0:3];
  reg [ROW_BITS-1:0] arow [0:3];
  reg [63:0]         t_act [0:3], t_pre [0:3], t_wl [0:3];

  // read beats to drive: entry for edge e at e % 32, valid when o_edge matches
  reg [63:0] o_edge [0:31];
  reg [15:0] o_data [0:31];
  reg [1:0]  o_bank [0:31];

  // write burst under way (A9 = 0)
  integer            wb_left;
  reg [1:0]          wb_bank;
  reg [COL_BITS-1:0] wb_col, wb_base;

  // mode and init
  integer cl, bl;
  reg     wsingle, mode_set, pre_all_seen, ready, cke_seen, dead;
  integer init_refs;
  reg [63:0] t_cke, t_mrs, t_ref, t_ready;
  reg        ref_seen, mrs_seen;

  // refresh rows
  reg [63:0] ref_ts [0:REF_ROWS-1];
  integer    ref_row;

  // statistics (read by the benches)
  reg [63:0] cyc;
  integer    n_ref, n_act, n_pre, n_rd, n_wr;
  reg        fired;

  // DQ: drive for this edge's interval, plus history for the contention rule
  reg        drv_q, sd_prev;
  reg [15:0] drv_data_q;
  reg [1:0]  drv_mask_q;
  assign dq_o = {(drv_q && !drv_mask_q[1]) ? drv_data_q[15:8] : 8'hzz,
                 (drv_q && !drv_mask_q[0]) ? drv_data_q[7:0]  : 8'hzz};

  reg [1:0] dqm_d1;         // DQM sampled one edge ago
  reg [63:0] lim_window, lim_gap, lim_rasmax;

  integer i, k;

  initial begin
    for (i = 0; i < NW; i = i + 1) mem[i] = 16'd0;
    for (i = 0; i < 4 * SLOTS; i = i + 1) begin tag_v[i] = 1'b0; tag[i] = {ROW_BITS{1'b0}}; end
    for (i = 0; i < 4; i = i + 1) begin
      act[i] = 1'b0; arow[i] = {ROW_BITS{1'b0}}; t_act[i] = 64'd0; t_pre[i] = 64'd0; t_wl[i] = 64'd0;
    end
    for (i = 0; i < 32; i = i + 1) begin o_edge[i] = 64'd0; o_data[i] = 16'd0; o_bank[i] = 2'd0; end
    for (i = 0; i < REF_ROWS; i = i + 1) ref_ts[i] = 64'd0;
    wb_left = 0; wb_bank = 2'd0; wb_col = {COL_BITS{1'b0}}; wb_base = {COL_BITS{1'b0}};
    cl = 2; bl = 1; wsingle = 1'b0; mode_set = 1'b0; pre_all_seen = 1'b0; ready = 1'b0;
    cke_seen = 1'b0; dead = 1'b0; init_refs = 0; ref_seen = 1'b0; mrs_seen = 1'b0;
    t_cke = 64'd0; t_mrs = 64'd0; t_ref = 64'd0; t_ready = 64'd0; ref_row = 0;
    cyc = CYC0; n_ref = 0; n_act = 0; n_pre = 0; n_rd = 0; n_wr = 0; fired = 1'b0;
    drv_q = 1'b0; sd_prev = 1'b0; drv_data_q = 16'd0; drv_mask_q = 2'b00; dqm_d1 = 2'b11;
    // limits in whole cycles (exceeded when more cycles than this elapsed)
    lim_window = T_REF_WINDOW_US; lim_window = lim_window * CLK_MHZ;
    lim_gap = T_REF_GAP_NS;       lim_gap = lim_gap * CLK_MHZ / 1000;
    lim_rasmax = T_RAS_MAX_NS;    lim_rasmax = lim_rasmax * CLK_MHZ / 1000;
  end

  // ------------------------------------------------------------ helpers
  task fail(input [8*16-1:0] rule);
    begin
      if (dead) begin
        // the expected rule fired already: checks are off
      end else if (EXPECT != 0 && rule == EXPECT) begin
        $display("sdram model %m: %0s fired (expected) at cycle %0d", rule, cyc - CYC0);
        fired = 1'b1;
        dead = 1'b1;
      end else begin
        $fatal(1, "sdram model %m: %0s violated at cycle %0d", rule, cyc - CYC0);
      end
    end
  endtask

  // at least ns since cycle t?
  function ok_ns(input [63:0] t, input integer ns);
    reg [63:0] need;
    begin
      need = ns;
      ok_ns = ((cyc - t) * 1000 >= need * CLK_MHZ);
    end
  endfunction

  task need_ns(input [8*16-1:0] rule, input [63:0] t, input integer ns, input integer bank);
    begin
      if (!dead && !ok_ns(t, ns)) begin
        $display("sdram model %m: bank %0d: %0d cycles at %0d MHz = %0d ns, %0s needs %0d ns",
                 bank, cyc - t, CLK_MHZ, (cyc - t) * 1000 / CLK_MHZ, rule, ns);
        fail(rule);
      end
    end
  endtask

  function integer idx(input [1:0] b, input [ROW_BITS-1:0] row, input [COL_BITS-1:0] col);
    idx = ((b * SLOTS) + (row % SLOTS)) * NCOL + col;
  endfunction

  task write_beat(input [1:0] b, input [COL_BITS-1:0] col);
    integer j;
    begin
      j = idx(b, arow[b], col);
      if (!dq_oe_i) begin
        $display("sdram model %m: write beat to bank %0d column %0d with DQ not driven", b, col);
        fail("write-data");
      end else if (^(dq_i & {{8{!dqm_i[1]}}, {8{!dqm_i[0]}}}) === 1'bx || ^dqm_i === 1'bx) begin
        $display("sdram model %m: write beat to bank %0d column %0d carries X", b, col);
        fail("write-data");
      end
      if (!dqm_i[0]) mem[j][7:0]  = dq_i[7:0];
      if (!dqm_i[1]) mem[j][15:8] = dq_i[15:8];
      t_wl[b] = cyc;
    end
  endtask

  // drop read beats at edges >= from (of one bank, or any when anyb)
  task cut_reads(input [63:0] from, input anyb, input [1:0] b);
    begin
      for (k = 0; k < 32; k = k + 1)
        if (o_edge[k] >= from && (anyb || o_bank[k] == b)) o_edge[k] = 64'd0;
    end
  endtask

  // ------------------------------------------------------------ per edge
  reg [3:0]  cmd;
  reg [1:0]  b;
  reg        nop, intr, nxt_drv;
  reg [COL_BITS-1:0] col, c;
  integer    n;

  always @(posedge clk_i) begin
    cyc = cyc + 1;
    cmd = {csn_i, rasn_i, casn_i, wen_i};
    b   = ba_i;
    col = a_i[COL_BITS-1:0];
    if (!cke_seen && cke_i === 1'b1) begin
      cke_seen = 1'b1;
      t_cke = cyc;
    end
    if (cke_seen && !dead) begin
      if (^{cke_i, csn_i, rasn_i, casn_i, wen_i, dq_oe_i} === 1'bx) begin
        $display("sdram model %m: control pins %b", {cke_i, csn_i, rasn_i, casn_i, wen_i, dq_oe_i});
        fail("cmd-x");
      end
      if (!cke_i) fail("CKE");
      nop  = csn_i || (cmd == 4'b0111);
      // a READ, WRITE or BURST STOP ends a write burst, and so does a
      // PRECHARGE of its bank (another bank's goes on beside it)
      intr = !nop && (cmd == 4'b0101 || cmd == 4'b0100 || cmd == 4'b0110 ||
                      (cmd == 4'b0010 && (a_i[10] || b == wb_bank)));
      if (wb_left > 0) begin
        if (intr) wb_left = 0;
        else begin
          write_beat(wb_bank, wb_col);
          wb_left = wb_left - 1;
          wb_col = (wb_base & ~(bl - 1)) | ((wb_col + 1) & (bl - 1));
        end
      end
      if (!nop && !dead) begin
        if (!mode_set || init_refs < INIT_REFS) begin
          if (!ok_ns(t_cke, T_INIT_US * 1000)) begin
            $display("sdram model %m: first command %b after %0d cycles of clock with CKE high",
                     cmd, cyc - t_cke);
            fail("init-wait");
          end
        end
        if (ref_seen) need_ns("tRFC", t_ref, T_RFC_NS, -1);
        if (mrs_seen) begin
          need_ns("tMRD", t_mrs, T_MRD_NS, -1);
          if (!dead && cyc - t_mrs < T_MRD_CK) begin
            $display("sdram model %m: command %0d cycles after MRS", cyc - t_mrs);
            fail("tMRD");
          end
        end
        case (cmd)
          4'b0011: begin   // ACTIVE
            if (!ready) begin $display("sdram model %m: ACT before the initialisation"); fail("init-order"); end
            if (act[b]) begin $display("sdram model %m: ACT to bank %0d with a row open", b); fail("bank-state"); end
            need_ns("tRP", t_pre[b], T_RP_NS, b);
            need_ns("tRC", t_act[b], T_RC_NS, b);
            for (i = 0; i < 4; i = i + 1) if (i != b) need_ns("tRRD", t_act[i], T_RRD_NS, i);
            n = b * SLOTS + (a_i[ROW_BITS-1:0] % SLOTS);
            if (tag_v[n] && tag[n] != a_i[ROW_BITS-1:0]) begin
              $display("sdram model %m: bank %0d row %0d shares a slot with row %0d", b, a_i[ROW_BITS-1:0], tag[n]);
              fail("model-capacity");
            end
            tag_v[n] = 1'b1; tag[n] = a_i[ROW_BITS-1:0];
            act[b] = 1'b1; arow[b] = a_i[ROW_BITS-1:0]; t_act[b] = cyc;
            n_act = n_act + 1;
          end
          4'b0101, 4'b0100: begin   // READ, WRITE
            if (!ready) begin $display("sdram model %m: READ/WRITE before the initialisation"); fail("init-order"); end
            if (!act[b]) begin $display("sdram model %m: READ/WRITE to bank %0d with no row open", b); fail("bank-state"); end
            need_ns("tRCD", t_act[b], T_RCD_NS, b);
            if (a_i[10]) begin $display("sdram model %m: auto precharge"); fail("unsupported"); end
            if (cmd == 4'b0101) begin
              cut_reads(cyc + cl, 1'b1, 2'd0);
              for (i = 0; i < bl; i = i + 1) begin
                c = (col & ~(bl - 1)) | ((col + i) & (bl - 1));
                n = (cyc + cl + i) % 32;
                o_edge[n] = cyc + cl + i;
                o_data[n] = mem[idx(b, arow[b], c)];
                o_bank[n] = b;
              end
              n_rd = n_rd + 1;
            end else begin
              cut_reads(cyc, 1'b1, 2'd0);
              write_beat(b, col);
              wb_left = wsingle ? 0 : bl - 1;
              wb_bank = b; wb_base = col;
              wb_col  = (col & ~(bl - 1)) | ((col + 1) & (bl - 1));
              n_wr = n_wr + 1;
            end
          end
          4'b0010: begin   // PRECHARGE (A10: all banks)
            if (a_i[10]) pre_all_seen = 1'b1;
            // tRP runs from every precharge, also of an idle bank (at
            // power-up the banks' state is unknown)
            for (i = 0; i < 4; i = i + 1) begin
              if (a_i[10] || i == b) begin
                if (act[i]) begin
                  need_ns("tRAS", t_act[i], T_RAS_NS, i);
                  need_ns("tWR", t_wl[i], T_WR_NS, i);
                  cut_reads(cyc + cl, 1'b0, i);
                end
                act[i] = 1'b0; t_pre[i] = cyc;
              end
            end
            n_pre = n_pre + 1;
          end
          4'b0001: begin   // AUTO REFRESH
            if (!pre_all_seen) begin $display("sdram model %m: REF before PRECHARGE ALL"); fail("init-order"); end
            for (i = 0; i < 4; i = i + 1) begin
              if (act[i]) begin $display("sdram model %m: REF with bank %0d open", i); fail("bank-state"); end
              need_ns("tRP", t_pre[i], T_RP_NS, i);
              need_ns("tRC", t_act[i], T_RC_NS, i);
            end
            if (!ref_seen) for (i = 0; i < REF_ROWS; i = i + 1) ref_ts[i] = cyc;
            ref_ts[ref_row] = cyc;
            ref_row = (ref_row + 1) % REF_ROWS;
            ref_seen = 1'b1; t_ref = cyc;
            if (!ready) init_refs = init_refs + 1;
            else n_ref = n_ref + 1;
          end
          4'b0000: begin   // MODE REGISTER SET
            if (!pre_all_seen) begin $display("sdram model %m: MRS before PRECHARGE ALL"); fail("init-order"); end
            for (i = 0; i < 4; i = i + 1) begin
              if (act[i]) begin $display("sdram model %m: MRS with bank %0d open", i); fail("bank-state"); end
              need_ns("tRP", t_pre[i], T_RP_NS, i);
            end
            if (a_i[2:0] > 3'd3 || a_i[3] || a_i[8:7] != 2'b00 || a_i[12:10] != 3'b000 || b != 2'b00 ||
                (a_i[6:4] != 3'd2 && a_i[6:4] != 3'd3)) begin
              $display("sdram model %m: mode %b %b", b, a_i);
              fail("unsupported");
            end
            cl = a_i[6:4]; bl = 1 << a_i[2:0]; wsingle = a_i[9];
            if (1000000 / CLK_MHZ < ((cl == 2) ? T_CK_CL2_PS : T_CK_CL3_PS)) begin
              $display("sdram model %m: CL %0d at %0d MHz (tCK %0d ps, needs %0d)", cl, CLK_MHZ,
                       1000000 / CLK_MHZ, (cl == 2) ? T_CK_CL2_PS : T_CK_CL3_PS);
              fail("CL-tCK");
            end
            mode_set = 1'b1; mrs_seen = 1'b1; t_mrs = cyc;
          end
          default: begin
            $display("sdram model %m: command %b", cmd);
            fail("unsupported");
          end
        endcase
        if (!ready && mode_set && init_refs >= INIT_REFS) begin
          ready = 1'b1;
          t_ready = cyc;
        end
      end
    end

    // DQ for the next edge, and the bus rule: nobody may drive within one
    // cycle of the other
    n = (cyc + 1) % 32;
    nxt_drv = (o_edge[n] == cyc + 1) && (dqm_d1 != 2'b11);
    if (cke_seen && !dead) begin
      if (dq_oe_i === 1'b1 && (drv_q || sd_prev || nxt_drv)) begin
        $display("sdram model %m: controller drives DQ while the SDRAM drives (prev %b now %b next %b)",
                 sd_prev, drv_q, nxt_drv);
        fail("DQ-contention");
      end
      for (i = 0; i < 4; i = i + 1) begin
        if (!dead && act[i] && cyc - t_act[i] > lim_rasmax) begin
          $display("sdram model %m: bank %0d open for %0d cycles", i, cyc - t_act[i]);
          fail("tRAS-max");
        end
      end
      if (!dead && ready && ref_seen && cyc - t_ref > lim_gap) begin
        $display("sdram model %m: %0d cycles since the last refresh", cyc - t_ref);
        fail("refresh-gap");
      end
      if (!dead && ready && ref_seen && cyc - ref_ts[ref_row] > lim_window) begin
        $display("sdram model %m: refresh row %0d last refreshed %0d cycles ago", ref_row,
                 cyc - ref_ts[ref_row]);
        fail("refresh-window");
      end
    end
    sd_prev = drv_q;
    drv_q      <= nxt_drv && !dead;
    drv_data_q <= o_data[n];
    drv_mask_q <= dqm_d1;
    dqm_d1 = dqm_i;
  end
endmodule
/* verilator coverage_on */
