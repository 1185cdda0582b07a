// Register block of one command-processor node (part of sgpu_cp): the
// decode of the node register offsets, the write checks that reject a
// write with CFG_ERROR bits, the configuration registers (ring base and
// size, WPTR, RPTR_ADDR, CONTROL, WATCHDOG, QUANTUM), the perf counters, the shadow
// RAM of the values the engine only writes and the host only reads, and
// the read mux.  The executor (sgpu_cp_exec) owns the engine's state and
// reports it here for the reads (status, RPTR, the header address, the
// fault reason, the context).
`include "sgpu_hw.vh"
module sgpu_cp_regs #(
  parameter IW        = 23,        // internal address width (sgpu_cp)
  parameter MEM_BYTES = 8388608,
  parameter PERF      = 1,         // 0: no PERF_* counters (they read 0)
  // 1: RING_BASE, RING_SIZE, RPTR_ADDR, CONTROL, WATCHDOG and QUANTUM read 0 here
  // (the chip's register mirror answers them)
  parameter MIRROR    = 0,
  parameter PREEMPTION = 1,        // 0: PREEMPT and SAVE_ADDR drive nothing (CAPS.PREEMPTION)
  // 1: CONTROL.RESET acts, and the perf counters count, a cycle later, from
  // flip-flops (the ULX3S: sgpu_top HOST_REG_STAGE, which takes no register
  // access in the cycle after a write, so no access sees the node between)
  parameter REG_STAGE = 0
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  // register port (sgpu_cp's)
  input  wire          reg_we_i,
  input  wire [`SGPU_NODE_STRIDE_LG-1:0] reg_addr_i,   // offset in the node block
  input  wire [31:0]   reg_wdata_i,
  input  wire          reg_re_i,
  output reg  [31:0]   reg_rdata_o,
  output wire [31:0]   reg_rdata_late_o,
  output wire          cfg_err_o,
  output wire          reg_kept_o,
  output wire [`SGPU_REG_CFG_ERROR_W-1:0] cfg_err_bits_o,
  // configuration, to the executor
  output wire [IW-1:0] ring_base_o,
  output wire [IW-1:0] ring_mask_o,     // RING_SIZE - 1
  output wire [IW-1:0] wptr_o,
  output wire [IW-1:2] rptr_addr_o,
  output wire          rptr_wb_o,       // RPTR_ADDR.ENABLE
  output wire          enable_o,        // CONTROL.ENABLE
  output wire          ring_cfg_we_o,   // RING_BASE or RING_SIZE written: the ring restarts at 0
  output wire          reset_o,         // CONTROL.RESET written: engine reset
  output wire          wdog_we_o,       // WATCHDOG written (reg_wdata_i[23:0])
  output wire          wdog_on_o,       // WATCHDOG != 0
  output wire          wdog_new_o,      // WATCHDOG written in the last cycle
  output wire          preempt_req_o,   // PREEMPT written: preemption requested (the id: reg_wdata_i)
  output wire [IW-1:2] save_addr_o,     // SAVE_ADDR, word address
  output wire [`SGPU_NREG_QUANTUM_W-1:0] quantum_o,  // QUANTUM: the chip's time slice for this ring
  // the executor's state, for reads and the write lock
  input  wire          busy_i,
  input  wire          faulted_i,
  input  wire          preempted_i,
  input  wire          waiting_i,
  input  wire [1:0]    level_i,
  input  wire [IW-1:0] rptr_i,
  input  wire [IW-1:0] hdr_addr_i,      // FAULT_ADDR / CUR_ADDR
  input  wire [3:0]    fault_reason_i,
  input  wire          ctx_null_i,
  input  wire [31:0]   fault_va_i,      // FAULT_VA (VM; 0 without)
  input  wire [3:0]    fault_access_i,  // FAULT_ACCESS
  input  wire [31:0]   vm_root_i,       // VM_ROOT
  // perf events
  input  wire          stall_i,
  input  wire          ring_word_i,
  input  wire          ib_word_i,
  input  wire          pkt_done_i,
  // shadow RAM writes: the stream word taken in that cycle goes to the slot
  // of the strobe (at most one at a time)
  input  wire [31:0]   sh_word_i,
  input  wire          sh_hdr_we_i,     // a header (FAULT_OPCODE)
  input  wire          sh_ffence_we_i,  // a ring INDIRECT's fence id (FAULT_FENCE)
  input  wire          sh_lf_we_i,      // a FENCE's value (LAST_FENCE, spare slot)
  input  wire          sh_cx_we_i,      // a CONTEXT word (spare slot) ...
  input  wire [1:0]    sh_cx_idx_i,     // ... 0 id, 1 window base, 2 window size
  input  wire          lf_commit_i,     // the FENCE was written: its value is LAST_FENCE
  input  wire          cx_commit_i      // the CONTEXT completed: its words are the context's
);
  localparam MAW = $clog2(MEM_BYTES);
  localparam [31:0] MEM32   = MEM_BYTES;
  localparam [32:0] MEM_END = (IW < MAW) ? (33'd1 << IW) : (33'd0 + MEM32);
  localparam [31:0] IW32  = IW;
  localparam [4:0]  IW_LG = IW32[4:0];   // log2 of the largest ring that fits

  reg [IW-1:0] ring_base_q;
  reg [4:0]    ring_lg_q;       // log2 of RING_SIZE
  reg [IW-1:0] wptr_q;
  reg [IW-1:`SGPU_RPTR_ADDR_ADDR_LSB] rptr_addr_q;  // bits at or above IW are rejected at write
  reg          rptr_wb_q;
  reg          enable_q;
  reg [`SGPU_NREG_WATCHDOG_W-1:0] wdog_limit_q;  // WATCHDOG: larger values are rejected
                                                 // (read here only without the mirror)
  reg          wdog_on_q, wdog_new_q;
  reg [`SGPU_NREG_QUANTUM_W-1:0] quantum_q;      // QUANTUM: larger values are rejected
                                                 // (read here only without the mirror)
  reg [31:0]   perf_busy_q, perf_stall_q, perf_words_q, perf_packets_q;
  reg [IW-1:2] save_addr_q;       // SAVE_ADDR, word address (4-byte aligned; bits at or above IW are rejected)
  reg [31:0]   preempt_fence_q;   // PREEMPT: the last id written (read here only without the mirror)

  // Thermometer mask and one-hot size: no adder.  (A shift of a constant:
  // each bit is a function of ring_lg_q alone for synthesis, and one shift
  // for the simulator, where a loop of 32 compares ran every cycle.)
  wire [31:0] ring_mask32 = ~(32'hFFFF_FFFF << ring_lg_q);
  wire [31:0] ring_size = {ring_mask32[30:0], 1'b1} & ~ring_mask32;
  wire [IW-1:0] ring_mask = ring_mask32[IW-1:0];

  // ------------------------------------------------------------ write checks
  // The offsets, the decode, the checks in the spec's order and the read mux
  // are generated (sgpu_regs_node.vh); this module gives them the write, the
  // conditions that depend on its state and the values read.
  wire [`SGPU_NODE_STRIDE_LG-1:0] nreg_addr = reg_addr_i;
  wire        nreg_we     = reg_we_i;
  wire [31:0] nreg_wdata  = reg_wdata_i;
  wire        nreg_mirror = (MIRROR != 0);   // the registers the mirror answers
  // Ring base, size and RPTR_ADDR change only on a disabled, idle node: a
  // packet still running (after ENABLE was cleared) keeps its ring words,
  // RPTR write-back address and data (valid/ready).
  wire        nreg_c_locked    = enable_q || busy_i;
  wire        nreg_c_past_mem  = (nreg_wdata[31:IW] != 0);   // at or past the end of memory
  wire        nreg_c_past_ring = ((nreg_wdata & ~ring_mask32) != 0);
  wire        enabling = nreg_wdata[`SGPU_CONTROL_ENABLE] && !enable_q;
  wire        nreg_c_enable_misaligned = enabling && ((ring_base_q & ring_mask) != {IW{1'b0}});
  // base is aligned to the size and inside memory: it fits if the size does
  wire        nreg_c_enable_past_mem = enabling && ring_lg_q > IW_LG;
  // values read (FAULT_OPCODE, FAULT_FENCE, LAST_FENCE, CONTEXT_ID and
  // WINDOW_BASE come from the shadow RAM, reg_rdata_late_o)
  wire [31:0] nreg_v_ring_base   = {{(32-IW){1'b0}}, ring_base_q};
  wire [31:0] nreg_v_ring_size   = ring_size;
  wire [31:0] nreg_v_ring_wptr   = {{(32-IW){1'b0}}, wptr_q};
  wire [31:0] nreg_v_ring_rptr   = {{(32-IW){1'b0}}, rptr_i};
  wire [31:0] nreg_v_rptr_addr   = {{(32-IW){1'b0}}, rptr_addr_q, {`SGPU_RPTR_ADDR_ADDR_LSB{1'b0}}} |
                                   ({31'd0, rptr_wb_q} << `SGPU_RPTR_ADDR_ENABLE_LSB);
  wire [31:0] nreg_v_control     = {31'd0, enable_q} << `SGPU_CONTROL_ENABLE_LSB;
  wire [31:0] nreg_v_status      = ({31'd0, busy_i} << `SGPU_STATUS_BUSY_LSB) |
                                   ({31'd0, faulted_i} << `SGPU_STATUS_FAULTED_LSB) |
                                   ({31'd0, waiting_i} << `SGPU_STATUS_WAITING_LSB) |
                                   ({31'd0, enable_q} << `SGPU_STATUS_ENABLED_LSB) |
                                   ({30'd0, level_i} << `SGPU_STATUS_IB_DEPTH_LSB) |
                                   ({31'd0, preempted_i} << `SGPU_STATUS_PREEMPTED_LSB);
  wire [31:0] nreg_v_fault_reason = {28'd0, fault_reason_i};
  wire [31:0] haddr32            = {{(32-IW){1'b0}}, hdr_addr_i};
  wire [31:0] nreg_v_fault_addr  = {32{faulted_i}} & haddr32;
  wire [31:0] nreg_v_cur_addr    = haddr32;
  wire [31:0] nreg_v_fault_opcode = 32'd0, nreg_v_fault_fence = 32'd0, nreg_v_last_fence = 32'd0,
              nreg_v_context_id = 32'd0, nreg_v_window_base = 32'd0;
  wire [31:0] nreg_v_watchdog    = {{(32-`SGPU_NREG_WATCHDOG_W){1'b0}}, wdog_limit_q};
  wire [31:0] nreg_v_perf_busy = perf_busy_q, nreg_v_perf_stall = perf_stall_q,
              nreg_v_perf_words = perf_words_q, nreg_v_perf_packets = perf_packets_q;
  wire [31:0] nreg_v_window_size = {32{ctx_null_i}} & {{(31-IW){1'b0}}, MEM_END[IW:0]};
  wire [31:0] nreg_v_save_addr   = {{(32-IW){1'b0}}, save_addr_q, 2'b00};
  wire [31:0] nreg_v_preempt     = preempt_fence_q;
  wire [31:0] nreg_v_quantum     = {{(32-`SGPU_NREG_QUANTUM_W){1'b0}}, quantum_q};
  // Virtual memory (CAPS.VM): the executor's registers (constant 0 without it).
  wire [31:0] nreg_v_fault_va = fault_va_i, nreg_v_fault_access = {28'd0, fault_access_i},
              nreg_v_vm_root = vm_root_i;
`include "sgpu_regs_node.vh"

  wire w_base  = nreg_w_ring_base, w_size = nreg_w_ring_size, w_wptr = nreg_w_ring_wptr,
       w_rptra = nreg_w_rptr_addr, w_ctrl = nreg_w_control, w_wdog = nreg_w_watchdog;
  // The reset fans out over the whole command processor (executor, writer,
  // fetchers, their MMUs); on the ECP5 the register decode in front of it
  // began the slowest paths, so with REG_STAGE it starts from a flip-flop.
  // So do the perf counters' events, which end paths through the executor.
  wire do_reset, busy_ev, stall_ev, ring_word_ev, ib_word_ev, pkt_done_ev;
  /* verilator lint_off UNUSEDSIGNAL */
  wire stage_quiet;   // nothing staged (sgpu_cp's simulator clock gate reads it)
  /* verilator lint_on UNUSEDSIGNAL */
  generate if (REG_STAGE != 0) begin : g_stage
    reg reset_q, busy_q, stall_q, ring_word_q, ib_word_q, pkt_done_q;
    always @(posedge clk_i or negedge rst_ni)
      if (!rst_ni) begin
        reset_q <= 1'b0; busy_q <= 1'b0; stall_q <= 1'b0;
        ring_word_q <= 1'b0; ib_word_q <= 1'b0; pkt_done_q <= 1'b0;
      end else begin
        reset_q <= nreg_s_control_reset; busy_q <= busy_i; stall_q <= stall_i;
        ring_word_q <= ring_word_i; ib_word_q <= ib_word_i; pkt_done_q <= pkt_done_i;
      end
    assign do_reset = reset_q; assign busy_ev = busy_q; assign stall_ev = stall_q;
    assign ring_word_ev = ring_word_q; assign ib_word_ev = ib_word_q; assign pkt_done_ev = pkt_done_q;
    assign stage_quiet = !(reset_q | busy_q | stall_q | ring_word_q | ib_word_q | pkt_done_q);
  end else begin : g_now
    assign do_reset = nreg_s_control_reset; assign busy_ev = busy_i; assign stall_ev = stall_i;
    assign ring_word_ev = ring_word_i; assign ib_word_ev = ib_word_i; assign pkt_done_ev = pkt_done_i;
    assign stage_quiet = 1'b1;
  end endgenerate
  assign cfg_err_o      = |nreg_cfg_bits;
  // Each of these stores the written word as is (the checks reject every
  // word that would read back differently).
  assign reg_kept_o     = nreg_kept;
  assign cfg_err_bits_o = nreg_cfg_bits;

  assign ring_base_o   = ring_base_q;
  assign ring_mask_o   = ring_mask;
  assign wptr_o        = wptr_q;
  assign rptr_addr_o   = rptr_addr_q;
  assign rptr_wb_o     = rptr_wb_q;
  assign enable_o      = enable_q;
  assign ring_cfg_we_o = w_base | w_size;
  assign reset_o       = do_reset;
  assign wdog_we_o     = w_wdog;
  assign wdog_on_o     = wdog_on_q;
  assign wdog_new_o    = wdog_new_q;
  assign preempt_req_o   = (PREEMPTION != 0) && nreg_w_preempt;
  assign save_addr_o     = save_addr_q;
  assign quantum_o       = quantum_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ring_base_q <= {IW{1'b0}};
      ring_lg_q   <= NREG_RING_SIZE_RESET_LG;
      wptr_q      <= {IW{1'b0}};
      rptr_addr_q <= {(IW-2){1'b0}}; rptr_wb_q <= 1'b0;
      enable_q    <= 1'b0;
      wdog_limit_q <= {`SGPU_NREG_WATCHDOG_W{1'b0}}; wdog_on_q <= 1'b0; wdog_new_q <= 1'b0;
      perf_busy_q <= 32'd0; perf_stall_q <= 32'd0; perf_words_q <= 32'd0; perf_packets_q <= 32'd0;
      save_addr_q <= {(IW-2){1'b0}}; preempt_fence_q <= 32'd0;
      quantum_q <= {`SGPU_NREG_QUANTUM_W{1'b0}};
    end else begin
      if (nreg_w_quantum) quantum_q <= nreg_wdata[NREG_QUANTUM_W-1:0];
      if (nreg_w_save_addr) save_addr_q <= nreg_wdata[IW-1:NREG_SAVE_ADDR_ALIGN_LG];
      if (nreg_w_preempt) preempt_fence_q <= nreg_wdata;
      if (w_base) ring_base_q <= nreg_wdata[IW-1:0];
      if (w_size) ring_lg_q <= nreg_ring_size_lg;
      if (w_base || w_size) wptr_q <= {IW{1'b0}};
      if (w_wptr) wptr_q <= nreg_wdata[IW-1:0];
      if (w_rptra) begin
        rptr_addr_q <= nreg_wdata[IW-1:`SGPU_RPTR_ADDR_ADDR_LSB];
        rptr_wb_q <= nreg_wdata[`SGPU_RPTR_ADDR_ENABLE_LSB];
      end
      if (w_ctrl) enable_q <= nreg_wdata[`SGPU_CONTROL_ENABLE];
      if (w_wdog) begin
        wdog_limit_q <= nreg_wdata[NREG_WATCHDOG_W-1:0];
        wdog_on_q <= (nreg_wdata[NREG_WATCHDOG_W-1:0] != {NREG_WATCHDOG_W{1'b0}});
      end
      wdog_new_q <= w_wdog;
      if (do_reset) wptr_q <= {IW{1'b0}};

      if (PERF != 0 && busy_ev) perf_busy_q <= perf_busy_q + 32'd1;
      if (PERF != 0 && stall_ev) perf_stall_q <= perf_stall_q + 32'd1;
      if (PERF != 0 && (ring_word_ev | ib_word_ev))
        perf_words_q <= perf_words_q + {30'd0, ring_word_ev & ib_word_ev, ring_word_ev ^ ib_word_ev};
      if (PERF != 0 && pkt_done_ev) perf_packets_q <= perf_packets_q + 32'd1;

      // Alignment the checks above guarantee: the constant low bits need no flops.
      ring_base_q[NREG_RING_BASE_ALIGN_LG-1:0] <= {NREG_RING_BASE_ALIGN_LG{1'b0}};
      wptr_q[NREG_RING_WPTR_ALIGN_LG-1:0] <= {NREG_RING_WPTR_ALIGN_LG{1'b0}};
    end
  end

  // ------------------------------------------------------------ shadow registers
  // Values the command processor only writes and the host only reads sit in
  // a small block RAM instead of flip-flops and the read mux: the header of
  // the last packet taken (FAULT_OPCODE), the fence id in flight
  // (FAULT_FENCE, a ring INDIRECT's), the last FENCE value written
  // (LAST_FENCE) and the context's id, window base and size (CONTEXT_ID,
  // WINDOW_BASE, WINDOW_SIZE: CONTEXT's three words, which read back as
  // written once the packet's checks passed).  Every one is written
  // straight from the stream word as it is taken, so the RAM needs no data
  // mux.  LAST_FENCE and the context change only when their packet
  // completes: each has two slots, the word goes to the spare one, and
  // completion flips which slot is current (lf_cur_q, cx_cur_q).  FAULT_FENCE is the
  // INDIRECT's last payload word, taken right before its checks, where the
  // id counts as in flight.  Slots not written since reset read 0.  A read
  // never shows a slot written in the same cycle (LAST_FENCE and the context
  // read the current slot, written ones are the spare; the opcode and fence
  // slots show only while faulted, when nothing is taken): no_rw_check spares
  // yosys's read-during-write bypass (32 flip-flops and a 32-bit mux).
  localparam [3:0] SH_OPCODE = 4'd0, SH_FFENCE = 4'd1, SH_LF0 = 4'd2, SH_CX0 = 4'd4,
                   SH_WB0 = 4'd6, SH_WS0 = 4'd8;
  (* ram_style = "block", no_rw_check *) reg [31:0] sh_mem [0:15];
  reg  [31:0] sh_rdata_q;
  reg         op_ok_q, ff_ok_q, lf_ok_q;   // written since reset
  reg         lf_cur_q, cx_cur_q;
  reg         sh_sel_q;                    // the last cycle's read showed a slot
  wire        sh_we = sh_hdr_we_i | sh_ffence_we_i | sh_lf_we_i | sh_cx_we_i;
  wire [3:0]  sh_cx_slot = (sh_cx_idx_i == 2'd0) ? SH_CX0 : (sh_cx_idx_i == 2'd1) ? SH_WB0 : SH_WS0;
  wire [3:0]  sh_wa = sh_ffence_we_i ? SH_FFENCE :
                      sh_lf_we_i     ? (SH_LF0 | {3'b000, !lf_cur_q}) :
                      sh_cx_we_i     ? (sh_cx_slot | {3'b000, !cx_cur_q}) : SH_OPCODE;
  // the slot a read asks for, and whether it shows it now
  reg  [3:0]  sh_ra;
  reg         sh_rd;
  always @(*) begin
    sh_ra = SH_OPCODE; sh_rd = 1'b0;
    case (reg_addr_i)
      NREG_FAULT_OPCODE: begin sh_ra = SH_OPCODE; sh_rd = faulted_i && op_ok_q; end
      NREG_FAULT_FENCE:  begin sh_ra = SH_FFENCE; sh_rd = faulted_i && ff_ok_q; end
      NREG_LAST_FENCE:   begin sh_ra = SH_LF0 | {3'b000, lf_cur_q}; sh_rd = lf_ok_q; end
      NREG_CONTEXT_ID:   begin sh_ra = SH_CX0 | {3'b000, cx_cur_q}; sh_rd = !ctx_null_i; end
      NREG_WINDOW_BASE:  begin sh_ra = SH_WB0 | {3'b000, cx_cur_q}; sh_rd = !ctx_null_i; end
      NREG_WINDOW_SIZE:  begin sh_ra = SH_WS0 | {3'b000, cx_cur_q}; sh_rd = !ctx_null_i; end
      default: ;
    endcase
  end
  always @(posedge clk_i) begin
    if (sh_we) sh_mem[sh_wa] <= sh_word_i;
    sh_rdata_q <= sh_mem[sh_ra];
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      op_ok_q <= 1'b0; ff_ok_q <= 1'b0; lf_ok_q <= 1'b0;
      lf_cur_q <= 1'b0; cx_cur_q <= 1'b0; sh_sel_q <= 1'b0;
    end else begin
      if (sh_hdr_we_i) op_ok_q <= 1'b1;
      if (sh_ffence_we_i) ff_ok_q <= 1'b1;
      if (lf_commit_i) begin lf_cur_q <= !lf_cur_q; lf_ok_q <= 1'b1; end
      if (cx_commit_i) cx_cur_q <= !cx_cur_q;
      sh_sel_q <= reg_re_i && sh_rd;
    end
  end
  assign reg_rdata_late_o = {32{sh_sel_q}} & sh_rdata_q;

`ifdef FORMAL
  // The shadow RAM's write port takes one slot a cycle: the executor never
  // raises two of its strobes together.
  always @(*) if (rst_ni) assert({1'b0, sh_hdr_we_i} + {1'b0, sh_ffence_we_i} +
                                 {1'b0, sh_lf_we_i} + {1'b0, sh_cx_we_i} <= 2'd1);
`endif

  // ------------------------------------------------------------ register reads
  // sgpu_top takes it only in a read's cycle (reg_re_i); a don't-care
  // otherwise, which the simulator then skips.
  always @(*) begin
    reg_rdata_o = 32'hxxxx_xxxx;
    if (reg_re_i) reg_rdata_o = nreg_rdata;
  end
endmodule
