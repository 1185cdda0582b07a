// Command processor of one node: ring + INDIRECT fetch, packet decode and
// checks, FENCE / WRITE_DATA / TIMESTAMP writer, WAIT_*, FILL/COPY hand-off,
// FLIP, CONTEXT, faults, watchdog and perf counters.  A thin top that wires
// its parts:
//   sgpu_cp_regs    the node's registers: offsets, write checks (CFG_ERROR),
//                   configuration, perf counters, shadow RAM, read mux
//   sgpu_cp_decode  header decode and the packet checks, in the spec's order
//   sgpu_cp_exec    fetchers, state machine, payload registers, range check,
//                   2D / flip hand-off, faults, watchdog, engine reset
//   sgpu_cp_writer  the writer port: FENCE, WRITE_DATA, TIMESTAMP, RPTR
//                   write-back, WAIT_MEM's polls
//   sgpu_cp_wait    WAIT_MEM's compare and poll pacing, the display
//                   conditions of WAIT_VSYNC, WAIT_SCANLINE and FLIP
//   sgpu_mmu        (VM = 1) the TLBs and page walks of the IB fetch and
//                   writer ports; the writer's also answers the page checks
// The checks and their order (which fault wins) are the interface spec's
// (docs/interface.md, "Checks and their precedence"); the library's packet
// checker reads the same table, and the differential test holds this RTL to it.
`include "sgpu_hw.vh"
module sgpu_cp #(
  parameter SOURCES   = 1,
  parameter MEM_BYTES = 8388608,
  parameter PERF      = 1,         // 0: no PERF_* counters (they read 0)
  parameter AW        = 32,        // meaningful GPU address bits (memory is 2^AW bytes)
  // 1: RING_BASE, RING_SIZE, RPTR_ADDR, CONTROL and WATCHDOG read 0 here;
  // the chip answers them from its register mirror (reg_kept_o), which
  // keeps them out of this read mux.
  parameter MIRROR    = 0,
  // Bits a display's scanline can have (its timing counter width); the
  // higher bits of scanline_i are 0, so WAIT_SCANLINE compares only these.
  parameter LINE_W    = 16,
  // INDIRECT levels below the ring (1..MAX_IB_DEPTH; CAPS.IB_DEPTH): with 1,
  // an INDIRECT inside a buffer faults NESTING and level 2's end and return
  // address need no registers.
  parameter IB_DEPTH  = `SGPU_MAX_IB_DEPTH,
  // 1: PREEMPT stops the node at its next boundary and saves its resume
  // state at SAVE_ADDR (CAPS.PREEMPTION); 0: PREEMPT is ignored.
  parameter PREEMPTION = 1,
  // 1: GPU virtual memory (CAPS.VM): CONTEXT's VM flag, page checks, an MMU
  // (sgpu_mmu, TLB_ENTRIES entries) on the IB fetch and writer ports;
  // 0: none of it is built.
  parameter VM          = 0,
  parameter TLB_ENTRIES = 4,
  // 1: CONTROL.RESET and the perf events act a cycle late, from flip-flops
  // (sgpu_cp_regs REG_STAGE; the ULX3S)
  parameter REG_STAGE   = 0
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // register port: offset inside the node block, reads are combinational
  input  wire        reg_we_i,
  input  wire [`SGPU_NODE_STRIDE_LG-1:0] reg_addr_i,   // offset in the node block
  input  wire [31:0] reg_wdata_i,
  output wire [31:0] reg_rdata_o,
  // FAULT_OPCODE, FAULT_FENCE, LAST_FENCE and CONTEXT_ID live in block RAM:
  // their value comes on reg_rdata_late_o in the cycle after a read
  // (reg_re_i), and reg_rdata_o is 0 for them; reg_rdata_late_o is 0 for
  // every other register.
  input  wire        reg_re_i,
  output wire [31:0] reg_rdata_late_o,
  output wire        cfg_err_o,        // strobe: this write was rejected
  output wire        reg_kept_o,       // strobe: this write was taken and reads back as written
  output wire [`SGPU_REG_CFG_ERROR_W-1:0] cfg_err_bits_o,  // SGPU_CFG_ERROR_* bits of the rejection
  input  wire [63:0] cycle_i,
  output wire        done_irq_o,       // strobe: FENCE with IRQ written
  output wire        fault_irq_o,      // strobe: engine faulted
  output wire        preempt_irq_o,    // strobe: preempted, the resume state saved
  output wire        busy_o,           // STATUS.BUSY
  output wire        faulted_o,        // STATUS.FAULTED
  // priority scheduling (sgpu_top): hold at the next boundary; this ring's state
  input  wire        hold_i,           // start nothing new (a higher-priority ring runs)
  output wire        runnable_o,       // enabled, not stopped, work in progress or queued
  output wire        quiet_o,          // at rest: no memory traffic of its own to come while held
  output wire [`SGPU_NREG_QUANTUM_W-1:0] quantum_o,  // QUANTUM (time slices between normal rings)
  // ring fetch (read only)
  output wire        ring_req_valid_o,
  input  wire        ring_req_ready_i,
  output wire [31:0] ring_req_addr_o,
  input  wire        ring_rsp_valid_i,
  input  wire [31:0] ring_rsp_rdata_i,
  // indirect buffer fetch (read only)
  output wire        ib_req_valid_o,
  input  wire        ib_req_ready_i,
  output wire [31:0] ib_req_addr_o,
  input  wire        ib_rsp_valid_i,
  input  wire [31:0] ib_rsp_rdata_i,
  // writes (FENCE, WRITE_DATA, TIMESTAMP, RPTR) and WAIT_MEM polls
  output wire        wr_req_valid_o,
  input  wire        wr_req_ready_i,
  output wire        wr_req_write_o,
  output wire [31:0] wr_req_addr_o,
  output wire [31:0] wr_req_wdata_o,
  output wire [3:0]  wr_req_wstrb_o,
  input  wire        wr_rsp_valid_i,
  input  wire [31:0] wr_rsp_rdata_i,
  // 2D engine command
  output wire        blit_valid_o,
  input  wire        blit_ready_i,
  output wire        blit_copy_o,
  output wire [31:0] blit_dst_o,
  output wire [15:0] blit_dst_pitch_o,
  output wire [31:0] blit_src_o,
  output wire [15:0] blit_src_pitch_o,
  output wire [15:0] blit_width_o,
  output wire [15:0] blit_height_o,
  output wire [31:0] blit_pattern_o,
  input  wire        blit_busy_i,
  input  wire        blit_progress_i,  // the 2D engine, working for us, had a request accepted
  output wire        blit_abort_o,     // engine reset while the 2D engine may work for us
  output wire        blit_stop_o,      // preempted while the 2D engine works for us: stop at a row
  input  wire        blit_cut_i,       // the 2D engine's last command ended early ...
  input  wire [15:0] blit_cut_first_i, // ... leaving these rows (first, counted from the top)
  input  wire [15:0] blit_cut_count_i,
  input  wire        blit_cut_part_i,  // ... after part of a row: ...
  input  wire [15:0] blit_cut_prow_i,  // ... this row's ...
  input  wire [15:0] blit_cut_lo_i,    // ... bytes from here ...
  input  wire [15:0] blit_cut_hi_i,    // ... to here
  // VM: the 2D command is virtual (in this context's tables); its MMU's verdicts
  output wire        blit_virt_o,
  output wire [31:12] blit_root_o,
  input  wire        blit_fault_i,     // strobe: the 2D engine's MMU refused an access of our command ...
  input  wire        blit_fault_prot_i, // ... PAGE_PROTECTION (else PAGE_NOT_PRESENT)
  input  wire [31:0] blit_fault_va_i,  // ... at this address
  input  wire        blit_fault_write_i, // ... a write (else a read)
  // display: flip request (source selected by flip_src_o) and status
  output wire        flip_valid_o,
  input  wire        flip_ready_i,
  output wire        flip_src_o,
  output wire [31:0] flip_addr_o,
  output wire [2:0]  flip_interval_o,
  input  wire [SOURCES-1:0]    flip_pending_i,
  input  wire [SOURCES-1:0]    vblank_i,
  input  wire [SOURCES-1:0]    in_vblank_i,
  input  wire [SOURCES*16-1:0] scanline_i
`ifdef FORMAL
  ,
  // The writer presents TIMESTAMP's live low word (for the harness's
  // valid/ready check: its data is the count of the accepting cycle).
  output wire                  f_wdata_live_o
`endif
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
  ,
  // Simulation only (the fast model, sim/sgpu_sim_top.v): this ring's own
  // clock, which the harness raises with clk_i only when sim_awake_o was
  // set in that cycle.
  input  wire                  sim_clk_i,
  output wire                  sim_awake_o
`endif
`endif
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // The range checker's narrow arithmetic (IW - 15 bits) needs 64 KiB of memory.
  generate if (!(MEM_BYTES >= 65536 && AW >= 16)) begin : g_bad_mem_bytes
    sgpu_precondition_failed_MEM_BYTES_at_least_64KiB_and_AW_at_least_16 u_fail ();
  end endgenerate
  // INDIRECT levels: level_q is 2 bits, CAPS.IB_DEPTH 1..MAX_IB_DEPTH.
  generate if (!(IB_DEPTH >= 1 && IB_DEPTH <= `SGPU_MAX_IB_DEPTH)) begin : g_bad_ib_depth
    sgpu_precondition_failed_IB_DEPTH_1_to_MAX_IB_DEPTH u_fail ();
  end endgenerate
  // The vblank, flip and scanline inputs are padded to MAX_SOURCES (2) sources.
  generate if (!(SOURCES >= 1 && SOURCES <= `SGPU_MAX_SOURCES)) begin : g_bad_sources
    sgpu_precondition_failed_SOURCES_1_to_MAX_SOURCES u_fail ();
  end endgenerate
  // The save area's word index is 4 bits.
  generate if (!(`SGPU_SAVE_WORDS <= 16)) begin : g_bad_save_words
    sgpu_precondition_failed_SAVE_WORDS_at_most_16 u_fail ();
  end endgenerate
  // VM: TLB_ENTRIES (the MMU's round-robin needs two).
  generate if (VM != 0 && !(TLB_ENTRIES >= 2)) begin : g_bad_tlb_entries
    sgpu_precondition_failed_TLB_ENTRIES_at_least_2 u_fail ();
  end endgenerate
  // Internal address width: AW, or fewer bits if the memory is smaller.
  localparam MAW = $clog2(MEM_BYTES);
  localparam IW  = (AW < MAW) ? AW : MAW;

  // The clock of every flop of the ring: clk_i, or in the fast simulation
  // model the ring's own clock (see sim_awake_o below).
  wire clk;
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
  assign clk = sim_clk_i;
  wire unused_clk = clk_i;
`else
  assign clk = clk_i;
`endif
`else
  assign clk = clk_i;
`endif

  // ------------------------------------------------------------ wiring
  // register block <-> executor
  wire [IW-1:0] ring_base, ring_mask, wptr, rptr, hdr_addr;
  wire [IW-1:2] rptr_addr;
  wire          rptr_wb, enable, ring_cfg_we, eng_reset;
  wire          wdog_we, wdog_on, wdog_new;
  wire          preempt_req, preempted;
  wire [IW-1:2] save_addr;
  wire          busy, faulted, waiting, ctx_null, stall, ring_word, ib_word, pkt_done;
  wire [1:0]    level;
  wire [3:0]    fault_reason;
  wire [31:0]   sh_word;
  wire          sh_hdr_we, sh_ffence_we, sh_lf_we, sh_cx_we, cx_commit;
  wire [1:0]    sh_cx_idx;
  // decoder <-> executor
  wire          hdr_look, u16_word, ib_full, in_ib, addr_hi, u16_bad, ctx_id_nz, src_phase;
  wire          chk_oor, chk_win, empty;
  wire [31:0]   hdr, arg2;
  wire [1:0]    arg_lo;
  wire [IW-1:2] words_left;
  wire [3:0]    hdr_fault, pkt_fault, rect_fault;
  wire [7:0]    op;
  wire [2:0]    pay_idx;
  wire [IW-1:0] addr;
  wire [15:0]   pitch, width, height;
  // writer <-> executor
  wire          st_wdata, st_one, st_wb, st_poll, ts_start, wr_stop, word_valid;
  wire          ts_hi, wdata_step, ts_step, fence_done, poll_sent;
  wire [31:0]   wr_data;
  // WAIT unit <-> executor
  wire          wait_cmp, src, poll_pend, poll_ok, gap_done, src_vblank, in_scan, src_flip_pending;
  wire [2:0]    wait_func;
  wire [31:0]   wait_mask, wait_ref, scan_lines;
  // virtual memory (tied off without VM)
  wire          vm, mmu_flush, wr_virt, probe_valid, probe_write, probe_done, probe_fault, probe_prot;
  wire [31:12]  root;
  wire [31:0]   probe_addr, probe_pa, fault_va, xlat_va;
  wire [3:0]    fault_access, xlat_access;
  wire          xlat_fault, xlat_now, xlat_ib_now, xlat_prot, blit_wait;
  // the executor's IB fetch and the writer, before their MMUs
  wire          x_ib_valid, x_ib_ready, x_ib_rsp_valid;
  wire [31:0]   x_ib_addr, x_ib_rsp_rdata;
  wire          x_wr_valid, x_wr_ready, x_wr_write, x_wr_rsp_valid;
  wire [31:0]   x_wr_addr, x_wr_wdata, x_wr_rsp_rdata;
  wire [3:0]    x_wr_wstrb;
  // The executor's state, by the name the testbenches' messages use.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [4:0]    state_q;
  /* verilator lint_on UNUSEDSIGNAL */

  sgpu_cp_regs #(.IW(IW), .MEM_BYTES(MEM_BYTES), .PERF(PERF), .MIRROR(MIRROR), .PREEMPTION(PREEMPTION),
                 .REG_STAGE(REG_STAGE)) u_regs (
    .clk_i(clk), .rst_ni(rst_ni),
    .reg_we_i(reg_we_i), .reg_addr_i(reg_addr_i), .reg_wdata_i(reg_wdata_i), .reg_re_i(reg_re_i),
    .reg_rdata_o(reg_rdata_o), .reg_rdata_late_o(reg_rdata_late_o),
    .cfg_err_o(cfg_err_o), .reg_kept_o(reg_kept_o), .cfg_err_bits_o(cfg_err_bits_o),
    .ring_base_o(ring_base), .ring_mask_o(ring_mask), .wptr_o(wptr), .rptr_addr_o(rptr_addr),
    .rptr_wb_o(rptr_wb), .enable_o(enable), .ring_cfg_we_o(ring_cfg_we), .reset_o(eng_reset),
    .wdog_we_o(wdog_we), .wdog_on_o(wdog_on), .wdog_new_o(wdog_new),
    .preempt_req_o(preempt_req), .save_addr_o(save_addr),
    .quantum_o(quantum_o),
    .busy_i(busy), .faulted_i(faulted), .preempted_i(preempted), .waiting_i(waiting), .level_i(level), .rptr_i(rptr),
    .hdr_addr_i(hdr_addr), .fault_reason_i(fault_reason), .ctx_null_i(ctx_null),
    .fault_va_i(fault_va), .fault_access_i(fault_access), .vm_root_i(vm ? {root, 12'd0} : 32'd0),
    .stall_i(stall), .ring_word_i(ring_word), .ib_word_i(ib_word), .pkt_done_i(pkt_done),
    .sh_word_i(sh_word), .sh_hdr_we_i(sh_hdr_we), .sh_ffence_we_i(sh_ffence_we), .sh_lf_we_i(sh_lf_we),
    .sh_cx_we_i(sh_cx_we), .sh_cx_idx_i(sh_cx_idx), .lf_commit_i(fence_done), .cx_commit_i(cx_commit)
  );

  sgpu_cp_decode #(.IW(IW), .SOURCES(SOURCES)) u_decode (
    .hdr_look_i(hdr_look), .hdr_i(hdr), .words_left_i(words_left), .hdr_fault_o(hdr_fault),
    .op_i(op), .pay_idx_i(pay_idx), .u16_word_o(u16_word),
    .func_i(wait_func), .ib_full_i(ib_full), .in_ib_i(in_ib), .addr_i(addr), .addr_hi_i(addr_hi),
    .arg_lo_i(arg_lo), .arg2_i(arg2), .pitch_i(pitch), .width_i(width), .height_i(height),
    .u16_bad_i(u16_bad), .ctx_id_nz_i(ctx_id_nz), .src_phase_i(src_phase),
    .oor_i(chk_oor), .win_i(chk_win),
    .pkt_fault_o(pkt_fault), .rect_fault_o(rect_fault), .empty_o(empty)
  );

  sgpu_cp_exec #(.IW(IW), .MEM_BYTES(MEM_BYTES), .IB_DEPTH(IB_DEPTH), .PREEMPTION(PREEMPTION), .VM(VM)) u_exec (
    .clk_i(clk), .rst_ni(rst_ni),
    .ring_base_i(ring_base), .ring_mask_i(ring_mask), .wptr_i(wptr), .rptr_wb_i(rptr_wb),
    .enable_i(enable), .ring_cfg_we_i(ring_cfg_we), .reset_i(eng_reset),
    .wdog_we_i(wdog_we), .wdog_limit_i(reg_wdata_i[`SGPU_NREG_WATCHDOG_W-1:0]), .wdog_on_i(wdog_on), .wdog_new_i(wdog_new),
    .preempt_req_i(preempt_req), .preempt_fence_i(reg_wdata_i), .save_addr_i(save_addr),
    .hold_i(hold_i), .runnable_o(runnable_o), .quiet_o(quiet_o),
    .busy_o(busy), .faulted_o(faulted), .preempted_o(preempted), .preempt_irq_o(preempt_irq_o), .waiting_o(waiting), .level_o(level), .rptr_o(rptr),
    .hdr_addr_o(hdr_addr), .fault_reason_o(fault_reason), .ctx_null_o(ctx_null),
    .stall_o(stall), .ring_word_o(ring_word), .ib_word_o(ib_word), .pkt_done_o(pkt_done),
    .fault_irq_o(fault_irq_o), .done_irq_o(done_irq_o), .state_o(state_q),
    .sh_word_o(sh_word), .sh_hdr_we_o(sh_hdr_we), .sh_ffence_we_o(sh_ffence_we), .sh_lf_we_o(sh_lf_we),
    .sh_cx_we_o(sh_cx_we), .sh_cx_idx_o(sh_cx_idx), .cx_commit_o(cx_commit),
    .hdr_look_o(hdr_look), .hdr_o(hdr), .words_left_o(words_left), .hdr_fault_i(hdr_fault),
    .op_o(op), .pay_idx_o(pay_idx), .u16_word_i(u16_word),
    .ib_full_o(ib_full), .in_ib_o(in_ib), .addr_o(addr), .addr_hi_o(addr_hi), .arg_lo_o(arg_lo), .arg2_o(arg2),
    .pitch_o(pitch), .width_o(width), .height_o(height), .u16_bad_o(u16_bad), .ctx_id_nz_o(ctx_id_nz),
    .src_phase_o(src_phase), .oor_o(chk_oor), .win_o(chk_win),
    .pkt_fault_i(pkt_fault), .rect_fault_i(rect_fault), .empty_i(empty),
    .st_wdata_o(st_wdata), .st_one_o(st_one), .st_wb_o(st_wb), .st_poll_o(st_poll),
    .ts_start_o(ts_start), .wr_stop_o(wr_stop), .word_valid_o(word_valid),
    .wr_valid_i(x_wr_valid), .wr_ready_i(x_wr_ready), .rsp_valid_i(x_wr_rsp_valid),
    .ts_hi_i(ts_hi), .wdata_step_i(wdata_step), .ts_step_i(ts_step), .wr_data_o(wr_data),
    .cycle_hi_i(cycle_i[63:32]),
    .wait_cmp_o(wait_cmp), .src_o(src), .wait_func_o(wait_func), .wait_mask_o(wait_mask),
    .wait_ref_o(wait_ref), .scan_lines_o(scan_lines),
    .poll_pend_i(poll_pend), .poll_ok_i(poll_ok), .gap_done_i(gap_done),
    .vblank_i(src_vblank), .in_scan_i(in_scan), .flip_pending_i(src_flip_pending),
    .ring_req_valid_o(ring_req_valid_o), .ring_req_ready_i(ring_req_ready_i),
    .ring_req_addr_o(ring_req_addr_o), .ring_rsp_valid_i(ring_rsp_valid_i),
    .ring_rsp_rdata_i(ring_rsp_rdata_i),
    .ib_req_valid_o(x_ib_valid), .ib_req_ready_i(x_ib_ready), .ib_req_addr_o(x_ib_addr),
    .ib_rsp_valid_i(x_ib_rsp_valid), .ib_rsp_rdata_i(x_ib_rsp_rdata),
    .blit_valid_o(blit_valid_o), .blit_ready_i(blit_ready_i), .blit_copy_o(blit_copy_o),
    .blit_dst_o(blit_dst_o), .blit_dst_pitch_o(blit_dst_pitch_o), .blit_src_o(blit_src_o),
    .blit_src_pitch_o(blit_src_pitch_o), .blit_width_o(blit_width_o), .blit_height_o(blit_height_o),
    .blit_pattern_o(blit_pattern_o), .blit_busy_i(blit_busy_i), .blit_progress_i(blit_progress_i),
    .blit_abort_o(blit_abort_o), .blit_stop_o(blit_stop_o), .blit_cut_i(blit_cut_i),
    .blit_cut_first_i(blit_cut_first_i), .blit_cut_count_i(blit_cut_count_i),
    .blit_cut_part_i(blit_cut_part_i), .blit_cut_prow_i(blit_cut_prow_i), .blit_cut_lo_i(blit_cut_lo_i),
    .blit_cut_hi_i(blit_cut_hi_i),
    .flip_valid_o(flip_valid_o), .flip_ready_i(flip_ready_i), .flip_src_o(flip_src_o),
    .flip_addr_o(flip_addr_o), .flip_interval_o(flip_interval_o),
    .vm_o(vm), .root_o(root), .mmu_flush_o(mmu_flush), .wr_virt_o(wr_virt),
    .probe_valid_o(probe_valid), .probe_addr_o(probe_addr), .probe_write_o(probe_write),
    .probe_done_i(probe_done), .probe_fault_i(probe_fault), .probe_prot_i(probe_prot), .probe_pa_i(probe_pa),
    .xlat_fault_i(xlat_fault), .xlat_now_i(xlat_now), .xlat_ib_now_i(xlat_ib_now), .xlat_prot_i(xlat_prot), .xlat_va_i(xlat_va), .xlat_access_i(xlat_access),
    .fault_va_o(fault_va), .fault_access_o(fault_access), .blit_wait_o(blit_wait)
  );

  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_cp_writer #(.IW(IW)) u_writer (
    .clk_i(clk), .rst_ni(rst_ni),
    .st_wdata_i(st_wdata), .st_one_i(st_one), .st_wb_i(st_wb), .st_poll_i(st_poll),
    .op_fence_i(op == `SGPU_OP_FENCE), .op_ts_i(op == `SGPU_OP_TIMESTAMP), .ts_start_i(ts_start),
    .stop_i(wr_stop), .poll_pend_i(poll_pend),
    .word_valid_i(word_valid), .word_i(sh_word), .addr_i(addr), .data_i(wr_data),
    .rptr_addr_i(rptr_addr), .rptr_i(rptr), .cycle_lo_i(cycle_i[31:0]),
    .wr_req_valid_o(x_wr_valid), .wr_req_ready_i(x_wr_ready), .wr_req_write_o(x_wr_write),
    .wr_req_addr_o(x_wr_addr), .wr_req_wdata_o(x_wr_wdata), .wr_req_wstrb_o(x_wr_wstrb),
    .ts_hi_o(ts_hi), .wdata_step_o(wdata_step), .ts_step_o(ts_step), .fence_done_o(fence_done),
    .poll_sent_o(poll_sent),
`ifdef FORMAL
    .f_wdata_live_o(f_wdata_live_o)
`else
    .f_wdata_live_o()
`endif
  );
  /* verilator lint_on PINCONNECTEMPTY */

  sgpu_cp_wait #(.SOURCES(SOURCES), .LINE_W(LINE_W)) u_wait (
    .clk_i(clk), .rst_ni(rst_ni),
    .func_i(wait_func), .mask_i(wait_mask), .ref_i(wait_ref),
    .poll_sent_i(poll_sent), .rsp_valid_i(x_wr_rsp_valid), .rsp_rdata_i(x_wr_rsp_rdata),
    .cmp_i(wait_cmp), .poll_pend_o(poll_pend), .poll_ok_o(poll_ok), .gap_done_o(gap_done),
    .src_i(src), .lines_i(scan_lines),
    .vblank_i(vblank_i), .in_vblank_i(in_vblank_i), .flip_pending_i(flip_pending_i),
    .scanline_i(scanline_i),
    .vblank_o(src_vblank), .in_scan_o(in_scan), .flip_pending_o(src_flip_pending)
  );

`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
  wire sim_mmu_idle;
`endif
`endif

  // ------------------------------------------------------------ MMUs (VM)
  // The IB fetch is virtual in a VM context (every buffer is the
  // context's); the writer's requests as the executor says (a buffer's
  // packets), and the page checks' probes go through the writer's MMU while
  // the writer is idle (S_PCHK).
  generate if (VM != 0) begin : g_vm
    wire ib_done, ib_fault, ib_prot, wr_done, wr_fault, wr_prot;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] ib_pa;
    wire ib_dead, wr_dead;
    /* verilator lint_on UNUSEDSIGNAL */
    wire wr_ready;
    /* verilator lint_off PINCONNECTEMPTY */
    sgpu_mmu #(.TLB_ENTRIES(TLB_ENTRIES), .AW(IW)) u_mmu_ib (
      .clk_i(clk), .rst_ni(rst_ni), .root_i(root), .flush_i(mmu_flush),
      .up_valid_i(x_ib_valid), .up_ready_o(x_ib_ready), .up_write_i(1'b0), .up_virt_i(vm),
      .up_probe_i(1'b0), .up_addr_i(x_ib_addr), .up_wdata_i(32'd0), .up_wstrb_i(4'd0),
      .up_rsp_valid_o(x_ib_rsp_valid), .up_rsp_rdata_o(x_ib_rsp_rdata),
      .dn_valid_o(ib_req_valid_o), .dn_ready_i(ib_req_ready_i), .dn_write_o(),
      .dn_addr_o(ib_req_addr_o), .dn_wdata_o(), .dn_wstrb_o(),
      .dn_rsp_valid_i(ib_rsp_valid_i), .dn_rsp_rdata_i(ib_rsp_rdata_i),
      .done_o(ib_done), .fault_o(ib_fault), .fault_prot_o(ib_prot), .pa_o(ib_pa), .dead_o(ib_dead));
    /* verilator lint_on PINCONNECTEMPTY */
    // REG_STAGE: its verdicts from flip-flops, a cycle after each virtual
    // write, poll or page check is presented (sgpu_mmu REG_LOOKUP)
    sgpu_mmu #(.TLB_ENTRIES(TLB_ENTRIES), .AW(IW), .REG_LOOKUP(REG_STAGE)) u_mmu_wr (
      .clk_i(clk), .rst_ni(rst_ni), .root_i(root), .flush_i(mmu_flush),
      .up_valid_i(x_wr_valid || probe_valid), .up_ready_o(wr_ready),
      .up_write_i(probe_valid ? probe_write : x_wr_write),
      .up_virt_i(probe_valid || wr_virt), .up_probe_i(probe_valid),
      .up_addr_i(probe_valid ? probe_addr : x_wr_addr), .up_wdata_i(x_wr_wdata), .up_wstrb_i(x_wr_wstrb),
      .up_rsp_valid_o(x_wr_rsp_valid), .up_rsp_rdata_o(x_wr_rsp_rdata),
      .dn_valid_o(wr_req_valid_o), .dn_ready_i(wr_req_ready_i), .dn_write_o(wr_req_write_o),
      .dn_addr_o(wr_req_addr_o), .dn_wdata_o(wr_req_wdata_o), .dn_wstrb_o(wr_req_wstrb_o),
      .dn_rsp_valid_i(wr_rsp_valid_i), .dn_rsp_rdata_i(wr_rsp_rdata_i),
      .done_o(wr_done), .fault_o(wr_fault), .fault_prot_o(wr_prot), .pa_o(probe_pa), .dead_o(wr_dead));
    assign x_wr_ready  = wr_ready && !probe_valid;
    assign probe_done  = probe_valid && wr_done;
    assign probe_fault = probe_valid && wr_fault;
    assign probe_prot  = wr_prot;
    // An access refused at execution time: the IB fetch's, the writer's or
    // our 2D command's (one at a time in practice; this order if not).
    wire w_x = !probe_valid && wr_fault;
    // The 2D engine's verdicts count while it runs our command.
    wire b_x = blit_fault_i && blit_wait;
    assign xlat_fault  = ib_fault || w_x || b_x;
    // Taken in their cycle: the writer's and the 2D engine's refusals (the
    // master was told its access was done), and the IB fetch's without
    // REG_STAGE.  With it an IB fetch refusal is taken a cycle later, from
    // the executor's xl_pend_q: the refused read's dummy word reaches the
    // IB FIFO no earlier, and this keeps the IB MMU's TLB compare off the
    // executor's next state (the ECP5).
    assign xlat_ib_now = (REG_STAGE == 0) && ib_fault;
    assign xlat_now    = xlat_ib_now || w_x || b_x;
    assign xlat_prot   = ib_fault ? ib_prot : w_x ? wr_prot : blit_fault_prot_i;
    assign xlat_va     = ib_fault ? x_ib_addr : w_x ? x_wr_addr : blit_fault_va_i;
    assign xlat_access = ib_fault ? {`SGPU_UNIT_CP, `SGPU_ACCESS_FETCH} :
                         w_x ? {`SGPU_UNIT_CP, x_wr_write ? `SGPU_ACCESS_WRITE : `SGPU_ACCESS_READ} :
                         {`SGPU_UNIT_2D, blit_fault_write_i ? `SGPU_ACCESS_WRITE : `SGPU_ACCESS_READ};
    wire unused_vm = &{1'b0, ib_done};
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
    // Both MMUs idle: no walk, no read of theirs to come.
    assign sim_mmu_idle = u_mmu_ib.st_q == 3'd0 && u_mmu_ib.quiet && u_mmu_wr.st_q == 3'd0 && u_mmu_wr.quiet;
`endif
`endif
  end else begin : g_no_vm
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
    assign sim_mmu_idle = 1'b1;
`endif
`endif
    assign ib_req_valid_o = x_ib_valid; assign x_ib_ready = ib_req_ready_i; assign ib_req_addr_o = x_ib_addr;
    assign x_ib_rsp_valid = ib_rsp_valid_i; assign x_ib_rsp_rdata = ib_rsp_rdata_i;
    assign wr_req_valid_o = x_wr_valid; assign x_wr_ready = wr_req_ready_i; assign wr_req_write_o = x_wr_write;
    assign wr_req_addr_o = x_wr_addr; assign wr_req_wdata_o = x_wr_wdata; assign wr_req_wstrb_o = x_wr_wstrb;
    assign x_wr_rsp_valid = wr_rsp_valid_i; assign x_wr_rsp_rdata = wr_rsp_rdata_i;
    assign probe_done = 1'b0; assign probe_fault = 1'b0; assign probe_prot = 1'b0; assign probe_pa = 32'd0;
    assign xlat_fault = 1'b0; assign xlat_now = 1'b0; assign xlat_ib_now = 1'b0; assign xlat_prot = 1'b0; assign xlat_va = 32'd0; assign xlat_access = 4'd0;
    wire unused_vm = &{1'b0, blit_wait, mmu_flush, probe_valid, wr_virt, probe_write, probe_addr, blit_fault_i, blit_fault_prot_i,
                       blit_fault_va_i, blit_fault_write_i};
  end endgenerate
  // FILL and COPY inside a VM context's buffers are virtual.
  assign blit_virt_o = vm && level != 2'd0;
  assign blit_root_o = root;

  assign busy_o    = busy;
  assign faulted_o = faulted;

`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
  // Simulation only.  Asleep: the ring waits at a header of the ring with
  // nothing queued, no access of its own in flight and nothing addressed to
  // it, so that no flop of the ring can change at this clock edge (each
  // term below stands for the flops it keeps still).  The harness then
  // leaves sim_clk_i low and the model skips the ring's clocked code.  A
  // few flops load every cycle a value nothing reads until they load again
  // (the range verdicts, WAIT_MEM's compare, the shadow RAM's read data,
  // a FIFO's read data): they may keep an older value, unseen.
  wire sim_asleep =
      // out of reset (in reset the ring ticks: its reset branch runs at each edge)
      rst_ni &&
      // registers: no access, no watchdog write to pass on, no late read data due
      !reg_we_i && !reg_re_i && !u_regs.sh_sel_q && !u_regs.wdog_new_q && u_regs.stage_quiet &&
      // executor: at a ring header, nothing queued, nothing pending
      state_q == 5'd0 && !busy && level == 2'd0 && !u_exec.preempt_pend_q && !u_exec.xl_pend_q &&
      !u_exec.progress_q && !u_exec.ring_pres_q && !u_exec.wdog_fire && !blit_progress_i &&
      u_exec.u_wdog_cnt.q == u_exec.u_wdog_cnt.held_q &&
      // fetchers: no read presented or in flight, FIFOs empty
      !ring_req_valid_o && !ring_rsp_valid_i && !x_ib_valid && !ib_req_valid_o && !ib_rsp_valid_i &&
      u_exec.u_ring.infl_q == 3'd0 && u_exec.u_ring.drop_q == 3'd0 && u_exec.u_ring.fcount == 3'd0 &&
      !u_exec.u_ring.u_fifo.use_byp_q &&
      u_exec.u_ib.infl_q == 3'd0 && u_exec.u_ib.drop_q == 3'd0 && u_exec.u_ib.fcount == 3'd0 &&
      !u_exec.u_ib.u_fifo.use_byp_q &&
      // writer and WAIT unit
      !x_wr_valid && !wr_req_valid_o && !wr_rsp_valid_i && u_wait.gap_q == 4'd0 && !u_wait.poll_pend_q &&
      sim_mmu_idle;
  assign sim_awake_o = !sim_asleep;
`endif
`endif
endmodule
