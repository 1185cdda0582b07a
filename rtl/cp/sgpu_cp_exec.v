// Executor of the command processor (part of sgpu_cp): the ring and
// INDIRECT fetchers, the state machine that takes headers and payload
// words, dispatches each packet and waits for it, the packet's payload
// registers, the range checker (memory and context window) with the
// FILL/COPY rectangle multiply, the 2D engine and flip hand-off, faults,
// the watchdog and the engine reset.
//
// Every check of a packet happens after its payload is collected and before
// its first write, so a faulting packet never writes anything.  Which fault
// wins is sgpu_cp_decode's (the interface spec's order); this module feeds
// it and acts on its verdict.  The ring has its own fetcher and keeps its
// next words prefetched while an IB runs, so the FENCE after an IB starts
// without a refetch.  Both IB levels share the second fetcher; returning
// from level 2 restarts it at level 1's position.
//
// Preemption (PREEMPTION = 1): a PREEMPT request stops the engine at its
// next boundary: at a header (between packets, in any buffer), while a
// WAIT_MEM is between polls or WAIT_VSYNC / WAIT_SCANLINE waits, or when
// the 2D engine ends a FILL or COPY early (blit_stop_o, after a chunk).  It
// then writes the resume state (SAVE_WORDS) through the writer's
// WRITE_DATA path to SAVE_ADDR, the preemption fence id last, and stops
// (S_PREEMPTED) until an engine reset.  A cut WAIT, FILL or COPY is saved
// as its header's address (a FILL or COPY with what it left), so a resumed
// buffer runs it again (a WAIT only polls again).
//
// Hold (priority scheduling): while hold_i is set the engine starts nothing
// new: no header is taken at any level (nor an IB left), a WAIT_MEM does not
// poll again after its gap, and at a header the ring fetcher issues no new
// read (one it presented is held until accepted).  A packet already past its header runs
// on to one of these points; the 2D engine's pause is the chip's (sgpu_top).
// A PREEMPT or engine reset acts as usual, and the watchdog does not count.
// runnable_o and quiet_o tell the chip whether this ring has work and
// whether it is at rest (no memory traffic of its own to come while held).
//
// Virtual memory (VM = 1): a CONTEXT with the VM flag (and an id) makes a
// VM context, its directory at the base (root_o); in it the IB fetch is
// virtual, and so are the writer's requests of a buffer's packets
// (wr_virt_o) and a buffer's FILL / COPY (the 2D engine's MMU).  In place
// of each window check the packet gets a page check (S_PCHK): one probe per
// page of the range, through the writer's MMU, in the checks' precedence;
// a FLIP keeps the probe's translation for the display.  CONTEXT,
// TLB_INVALIDATE and an engine reset flush the ring's MMUs (mmu_flush_o).
// An access an MMU refuses at execution time (the tables changed under a
// TLB) stops the node too, once the writer does not wait.
`include "sgpu_hw.vh"
module sgpu_cp_exec #(
  parameter IW        = 23,        // internal address width (sgpu_cp)
  parameter MEM_BYTES = 8388608,
  parameter IB_DEPTH  = `SGPU_MAX_IB_DEPTH,
  parameter PREEMPTION = 1,        // 0: preempt_req_i is ignored (CAPS.PREEMPTION)
  parameter VM        = 0          // 1: CONTEXT's VM flag, page checks, translated ports (CAPS.VM)
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  // ---- configuration (sgpu_cp_regs)
  input  wire [IW-1:0] ring_base_i,
  input  wire [IW-1:0] ring_mask_i,
  input  wire [IW-1:0] wptr_i,
  input  wire          rptr_wb_i,
  input  wire          enable_i,
  input  wire          ring_cfg_we_i,    // ring base / size written: pointers to 0, ring refetched
  input  wire          reset_i,          // engine reset (CONTROL.RESET)
  input  wire          wdog_we_i,        // WATCHDOG written with ...
  input  wire [23:0]   wdog_limit_i,     // ... this value
  input  wire          wdog_on_i,        // WATCHDOG != 0
  input  wire          wdog_new_i,       // WATCHDOG written in the last cycle
  input  wire          preempt_req_i,    // PREEMPT written
  input  wire [31:0]   preempt_fence_i,  // its preemption fence id (with the strobe)
  input  wire [IW-1:2] save_addr_i,      // SAVE_ADDR
  input  wire          hold_i,           // start nothing new (priority: a higher ring runs)
  output wire          runnable_o,       // enabled, not stopped, and a packet or ring words to run
  output wire          quiet_o,          // at a point where it starts no memory traffic while held
  // ---- state, to the register block
  output wire          busy_o,
  output wire          faulted_o,
  output wire          preempted_o,      // STATUS.PREEMPTED
  output wire          preempt_irq_o,    // strobe: the save area is written (DMA_PREEMPTED)
  output wire          waiting_o,
  output wire [1:0]    level_o,
  output wire [IW-1:0] rptr_o,
  output wire [IW-1:0] hdr_addr_o,
  output wire [3:0]    fault_reason_o,
  output wire          ctx_null_o,
  output wire          stall_o,
  output wire          ring_word_o,
  output wire          ib_word_o,
  output wire          pkt_done_o,
  output wire          fault_irq_o,
  output wire          done_irq_o,
  output wire [4:0]    state_o,          // for testbenches' messages
  // shadow RAM writes (sgpu_cp_regs)
  output wire [31:0]   sh_word_o,
  output wire          sh_hdr_we_o,
  output wire          sh_ffence_we_o,
  output wire          sh_lf_we_o,
  output wire          sh_cx_we_o,
  output wire [1:0]    sh_cx_idx_o,
  output wire          cx_commit_o,
  // ---- header decoder and packet checker (sgpu_cp_decode)
  output wire          hdr_look_o,
  output wire [31:0]   hdr_o,
  output wire [IW-1:2] words_left_o,
  input  wire [3:0]    hdr_fault_i,
  output wire [7:0]    op_o,
  output wire [2:0]    pay_idx_o,
  input  wire          u16_word_i,
  output wire          ib_full_o,
  output wire          in_ib_o,
  output wire [IW-1:0] addr_o,           // also the writer's address
  output wire          addr_hi_o,
  output wire [1:0]    arg_lo_o,         // word 1's low bits (see arg_q)
  output wire [31:0]   arg2_o,           // word 2 (see arg2_q)
  output wire [15:0]   pitch_o,
  output wire [15:0]   width_o,
  output wire [15:0]   height_o,
  output wire          u16_bad_o,
  output wire          ctx_id_nz_o,
  output wire          src_phase_o,
  output wire          oor_o,
  output wire          win_o,
  input  wire [3:0]    pkt_fault_i,
  input  wire [3:0]    rect_fault_i,
  input  wire          empty_i,
  // ---- writer (sgpu_cp_writer)
  output wire          st_wdata_o,
  output wire          st_one_o,
  output wire          st_wb_o,
  output wire          st_poll_o,
  output wire          ts_start_o,
  output wire          wr_stop_o,
  output wire          word_valid_o,
  input  wire          wr_valid_i,       // wr_req_valid_o
  input  wire          wr_ready_i,       // wr_req_ready_i
  input  wire          rsp_valid_i,      // wr_rsp_valid_i (WAIT_MEM's poll response)
  input  wire          ts_hi_i,
  input  wire          wdata_step_i,
  input  wire          ts_step_i,
  output wire [31:0]   wr_data_o,        // FENCE's value; TIMESTAMP's high word
  input  wire [31:0]   cycle_hi_i,       // the cycle counter's high word
  // ---- WAIT unit (sgpu_cp_wait)
  output wire          wait_cmp_o,
  output wire          src_o,
  output wire [2:0]    wait_func_o,
  output wire [31:0]   wait_mask_o,
  output wire [31:0]   wait_ref_o,
  output wire [31:0]   scan_lines_o,
  input  wire          poll_pend_i,
  input  wire          poll_ok_i,
  input  wire          gap_done_i,
  input  wire          vblank_i,
  input  wire          in_scan_i,
  input  wire          flip_pending_i,
  // ---- ring fetch
  output wire          ring_req_valid_o,
  input  wire          ring_req_ready_i,
  output wire [31:0]   ring_req_addr_o,
  input  wire          ring_rsp_valid_i,
  input  wire [31:0]   ring_rsp_rdata_i,
  // ---- indirect buffer fetch
  output wire          ib_req_valid_o,
  input  wire          ib_req_ready_i,
  output wire [31:0]   ib_req_addr_o,
  input  wire          ib_rsp_valid_i,
  input  wire [31:0]   ib_rsp_rdata_i,
  // ---- 2D engine
  output wire          blit_valid_o,
  input  wire          blit_ready_i,
  output wire          blit_copy_o,
  output wire [31:0]   blit_dst_o,
  output wire [15:0]   blit_dst_pitch_o,
  output wire [31:0]   blit_src_o,
  output wire [15:0]   blit_src_pitch_o,
  output wire [15:0]   blit_width_o,
  output wire [15:0]   blit_height_o,
  output wire [31:0]   blit_pattern_o,
  input  wire          blit_busy_i,
  input  wire          blit_progress_i,
  output wire          blit_abort_o,
  output wire          blit_stop_o,      // preemption: end the command after a chunk
  input  wire          blit_cut_i,       // it ended early, leaving rows ...
  input  wire [15:0]   blit_cut_first_i, // ... from this one (counted from the top row) ...
  input  wire [15:0]   blit_cut_count_i, // ... this many, after ...
  input  wire          blit_cut_part_i,  // ... part of a row: ...
  input  wire [15:0]   blit_cut_prow_i,  // ... this one's ...
  input  wire [15:0]   blit_cut_lo_i,    // ... bytes from here ...
  input  wire [15:0]   blit_cut_hi_i,    // ... to here
  // ---- flip
  output wire          flip_valid_o,
  input  wire          flip_ready_i,
  output wire          flip_src_o,
  output wire [31:0]   flip_addr_o,
  output wire [2:0]    flip_interval_o,
  // ---- virtual memory (VM = 1; all 0 otherwise)
  output wire          vm_o,             // a VM context is current: the IB fetch is virtual
  output wire [31:12]  root_o,           // its page directory
  output wire          mmu_flush_o,      // forget the ring's translations
  output wire          wr_virt_o,        // the writer's request is virtual
  output wire          probe_valid_o,    // page check: probe this page ...
  output wire [31:0]   probe_addr_o,
  output wire          probe_write_o,    // ... for a write
  input  wire          probe_done_i,     // the probe was accepted ...
  input  wire          probe_fault_i,    // ... and faults ...
  input  wire          probe_prot_i,     // ... with PAGE_PROTECTION (else PAGE_NOT_PRESENT)
  input  wire [31:0]   probe_pa_i,       // ... else this is its translation
  input  wire          xlat_fault_i,     // an access of ours was refused by its MMU (tables changed) ...
  input  wire          xlat_now_i,       // ... one to take in this cycle (else the next, from xl_pend_q)
  input  wire          xlat_ib_now_i,    // ... of those, by the IB fetch's MMU
  input  wire          xlat_prot_i,      // ... PAGE_PROTECTION (else PAGE_NOT_PRESENT)
  input  wire [31:0]   xlat_va_i,        // ... at this address
  input  wire [3:0]    xlat_access_i,    // ... this access and unit (FAULT_ACCESS)
  output wire [31:0]   fault_va_o,       // FAULT_VA
  output wire [3:0]    fault_access_o,   // FAULT_ACCESS
  output wire          blit_wait_o       // our 2D command was accepted and may run (its MMU's faults are ours)
);
  localparam MAW = $clog2(MEM_BYTES);
  localparam [31:0] MEM32   = MEM_BYTES;
  localparam [32:0] MEM_END = (IW < MAW) ? (33'd1 << IW) : (33'd0 + MEM32);

  // ------------------------------------------------------------ states
  localparam [4:0] S_HDR    = 5'd0,   // wait for / decode a header
                   S_PAY    = 5'd1,   // collect (or skip, NOP) payload words
                   S_EXEC   = 5'd2,   // check the packet, dispatch
                   S_WDATA  = 5'd3,   // WRITE_DATA words
                   S_WR     = 5'd4,   // one write (FENCE, TIMESTAMP lo/hi)
                   S_WB     = 5'd5,   // RPTR write-back
                   S_POLL   = 5'd6,   // WAIT_MEM read
                   S_PRSP   = 5'd7,   // WAIT_MEM response
                   S_PGAP   = 5'd8,   // WAIT_MEM gap between polls
                   S_VSYNC  = 5'd9,
                   S_SCAN   = 5'd10,
                   S_MUL    = 5'd11,  // FILL/COPY: pitch * (height-1)
                   S_RCHK   = 5'd12,  // FILL/COPY: rectangle range check
                   S_BLIT   = 5'd13,
                   S_BLITW1 = 5'd14,
                   S_BLITW  = 5'd15,
                   S_FLIP   = 5'd16,
                   S_FLIPW1 = 5'd17,
                   S_FLIPW  = 5'd18,
                   S_FAULT  = 5'd19,
                   S_RSTW1  = 5'd20,  // engine reset: abort our blit, then
                   S_RSTW   = 5'd21,  // wait for the 2D engine to drain
                   S_CHK    = 5'd22,  // range checks of the collected packet (registered)
                   S_PCMP   = 5'd23,  // WAIT_MEM: act on the registered compare
                   S_SAVE   = 5'd24,  // preemption: write the resume state
                   S_PREEMPTED = 5'd25,  // preempted: stopped until an engine reset
                   S_PCHK   = 5'd26;  // VM: page check, one probe per page
  localparam [13:0] SAVE_N = `SGPU_SAVE_WORDS;

  // ------------------------------------------------------------ registers
  reg [IW-1:0] rptr_q, rcur_q;  // ring: RPTR (last packet done), next word to take
  reg [3:0]    fault_reason_q;
  // The context window: ctx_null_q marks the null context (whole memory,
  // id 0), so an engine reset only sets that flag; the stored id and window
  // are then not looked at.
  // (the window's base and end are held in the compare blocks, u_win_*)
  reg          ctx_null_q;
  // VM context (VM = 1): its flag and page directory; the page check's state.
  reg          ctx_vm_q;
  reg [IW-1:12] root_q;
  reg [IW-1:0] pc_lo_q;         // the checked range (registered with the range verdicts)
  reg [IW-1:12] pc_last_q;      // ... its last byte's page
  reg          pc_empty_q;      // ... no bytes
  reg [IW-1:0] pc_va_q;         // S_PCHK: the address probed (the range's first byte, then page bases)
  reg [1:0]    pc_acc_q;        // ... access kind
  reg          pc_2d_q;         // ... unit: the 2D engine's (a FILL/COPY rectangle, back to S_RCHK)
  reg          pchk_done_q;     // the packet's (rectangle's) page check passed
  reg [31:0]   fault_va_q;
  reg [3:0]    fault_acc_q;
  // An access refused by an MMU is taken as a fault once the writer does not
  // wait (a waiting write is never withdrawn but by a reset or the
  // watchdog): kept here until then.
  reg          xl_pend_q, xl_prot_q;
  reg [31:0]   xl_va_q;
  reg [3:0]    xl_acc_q;
  reg          preempt_pend_q;   // a preemption was requested and waits for a boundary
  reg  [31:0]  preempt_fence_q;  // its preemption fence id (kept: a later PREEMPT write is ignored)
  reg          save_in_wait_q;   // the preemption cut a WAIT, FILL or COPY (resume at its header)
  reg          save_cut_q;       // ... a FILL or COPY: the 2D engine's rows left are saved

  reg [4:0]    state_q;
  reg [1:0]    level_q;
  reg [IW-1:0] ibcur_q, ibend1_q, ibend2_q, ib1_save_q;
  reg [15:0]   hdr_q;          // opcode and flags (the whole word is in the shadow)
  reg [IW-1:0] hdr_addr_q;
  reg          pkt_ring_q;
  reg [13:0]   words_left_q;   // payload words still to take (WRITE_DATA: to write)
  reg [2:0]    pay_idx_q;      // index of the next payload word
  // Payload registers, in their real widths; each opcode's fields are named
  // by the wires below.  Each word goes where its users expect it, so no
  // user needs a mux:
  //  addr_q      word 0: the address (INDIRECT, FENCE, WRITE_DATA, WAIT_MEM,
  //              TIMESTAMP; the writer steps it), FILL/COPY's destination,
  //              the display source (WAIT_VSYNC, WAIT_SCANLINE, FLIP);
  //              CONTEXT: word 1, the window base.  addr_hi_q: bits at or
  //              above IW were set.
  //  arg_q       word 1: INDIRECT's length, FENCE's value, WAIT_MEM's mask,
  //              WAIT_SCANLINE's lines, FLIP's address, FILL/COPY's
  //              (destination) pitch; CONTEXT: word 2, the window size;
  //              TIMESTAMP: the high word, once the low one is written.
  //  arg2_q      word 2: WAIT_MEM's reference, FLIP's interval, COPY's
  //              source; FILL: word 4, the pattern.
  //  src_pitch_q COPY's word 3.
  //  width_q     COPY's word 4, FILL's word 2.
  //  height_q    COPY's word 5, FILL's word 3.
  // u16_bad_q: a FILL/COPY 16-bit field had high bits set.  Of CONTEXT's id
  // (word 0) only "not 0" is kept (ctx_id_nz_q; the id itself is in the
  // shadow RAM).
  reg [IW-1:0] addr_q;
  reg          addr_hi_q, u16_bad_q;
  reg [31:0]   arg_q, arg2_q;
  reg [15:0]   width_q;
  reg          ctx_id_nz_q;
  reg [15:0]   src_pitch_q, height_q;
  reg          src_phase_q;     // FILL/COPY: 0 destination, 1 source rectangle
  reg          blit_own_q;      // the 2D engine accepted our command and may still work

  wire [7:0]  op   = hdr_q[7:0];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [7:0]  fl   = hdr_q[15:8];     // checked against the opcode's flag mask at decode
  /* verilator lint_on UNUSEDSIGNAL */
  wire        in_ib = (level_q != 2'd0);
  wire        in_ib2 = (IB_DEPTH > 1) && (level_q == 2'd2);
  localparam [1:0] IB_LEVELS = IB_DEPTH;

  // Each opcode's payload fields (and flags), by name.
  wire [IW-1:0] ib_addr      = addr_q;
  wire [31:0]   ib_len       = arg_q;
  wire          ib_skip      = fl[`SGPU_INDIRECT_FLAG_SKIP];
  wire          fence_irq    = fl[`SGPU_FENCE_FLAG_IRQ];
  wire [31:0]   wait_mask    = arg_q;
  wire [31:0]   wait_ref     = arg2_q;
  wire [2:0]    wait_func    = fl[2:0];
  wire [31:0]   scan_lines   = arg_q;
  wire          source       = addr_q[0];     // WAIT_VSYNC, WAIT_SCANLINE, FLIP (checked < SOURCES)
  wire [31:0]   flip_addr    = arg_q;
  wire [2:0]    flip_interval = arg2_q[2:0];
  wire          flip_no_wait = fl[`SGPU_FLIP_FLAG_NO_WAIT];
  wire [IW-1:0] blit_dst     = addr_q;
  wire [15:0]   dst_pitch    = arg_q[15:0];
  wire [31:0]   copy_src     = arg2_q;
  wire [31:0]   fill_pattern = arg2_q;
  wire [IW-1:0] ctx_base     = addr_q;       // its size is in arg_q (the range checker's length)

  wire [IW-1:0] ring_mask = ring_mask_i;
  wire [IW-1:0] ibend = in_ib2 ? ibend2_q : ibend1_q;

  // ------------------------------------------------------------ fetchers
  reg           ring_start, ib_start, ib_flush;
  reg  [IW-1:0] ib_start_off;
  wire          ring_valid, ib_valid, ring_word, ib_word;
  wire [31:0]   ring_data, ib_data;
  reg           pop;

  wire rst_wait = (state_q == S_RSTW1) || (state_q == S_RSTW);
  // Preemption's states; constant 0 in a build without it.  The fetchers
  // stay enabled in them: a read they present is held until accepted
  // (valid/ready), and they stop by themselves with their FIFOs full.
  wire saving    = (PREEMPTION != 0) && (state_q == S_SAVE);
  wire preempted = (PREEMPTION != 0) && (state_q == S_PREEMPTED);
  wire stopped   = saving || preempted;
  // Held at a header: no new ring read (a packet past its header still
  // gets its payload words), but a presented one stays until accepted.
  reg  ring_pres_q;
  wire ring_hold = hold_i && (state_q == S_HDR) && !ring_pres_q;
  sgpu_fetch #(.AW(IW), .DEPTH(4), .START_ACTIVE(1), .BYPASS(0)) u_ring (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .start_i(ring_start), .start_off_i({IW{1'b0}}), .flush_i(1'b0),
    .en_i(enable_i && state_q != S_FAULT && !rst_wait && !ring_hold),
    .base_i(ring_base_i), .mask_i(ring_mask), .end_i(wptr_i),
    .out_valid_o(ring_valid), .out_ready_i(pop && !in_ib), .out_data_o(ring_data),
    .mem_req_valid_o(ring_req_valid_o), .mem_req_ready_i(ring_req_ready_i),
    .mem_req_addr_o(ring_req_addr_o),
    .mem_rsp_valid_i(ring_rsp_valid_i), .mem_rsp_rdata_i(ring_rsp_rdata_i),
    .word_o(ring_word)
  );

  sgpu_fetch #(.AW(IW), .DEPTH(4), .START_ACTIVE(0), .BYPASS(0)) u_ib (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .start_i(ib_start), .start_off_i(ib_start_off), .flush_i(ib_flush),
    .en_i(state_q != S_FAULT),
    .base_i({IW{1'b0}}), .mask_i({IW{1'b1}}), .end_i(ibend),
    .out_valid_o(ib_valid), .out_ready_i(pop && in_ib), .out_data_o(ib_data),
    .mem_req_valid_o(ib_req_valid_o), .mem_req_ready_i(ib_req_ready_i),
    .mem_req_addr_o(ib_req_addr_o),
    .mem_rsp_valid_i(ib_rsp_valid_i), .mem_rsp_rdata_i(ib_rsp_rdata_i),
    .word_o(ib_word)
  );

  // The stream: the current buffer's next word.
  wire        st_valid = in_ib ? ib_valid : ring_valid;
  wire [31:0] st_data  = in_ib ? ib_data : ring_data;

  // ------------------------------------------------------------ header
  // Work to do at the header: more words in this buffer, or an IB to leave.
  wire ib_end     = in_ib && (ibcur_q == ibend);
  // An IB left at its end: not while held (the level and the fetcher stay
  // until the hold drops), but on the way to a preemption's save.
  wire ib_leave   = (state_q == S_HDR) && ib_end && (preempt_pend_q || !hold_i);
  wire have_words = in_ib ? !ib_end : (enable_i && rcur_q != wptr_i);
  // A header waits to be taken (sgpu_cp_decode checks it then).
  wire hdr_look   = (state_q == S_HDR) && have_words && st_valid;
  wire [31:0] h      = st_data;
  wire [13:0] h_cnt  = h[29:16];
  // Words left in the current buffer from the header on (ring: up to WPTR).
  // One subtractor per buffer kind, the level chooses the difference: a
  // level mux in front of a single subtractor put the level register, the
  // mux and both carry chains (this and the decoder's overrun compare) in
  // series on the iCE40's critical path.  A don't-care ('x) unless a
  // header waits.
  wire [IW-1:0] cur_addr   = in_ib ? ibcur_q : (ring_base_i | rcur_q);
  wire [IW-1:2] ring_avail = (wptr_i[IW-1:2] - rcur_q[IW-1:2]) & ring_mask[IW-1:2];
  wire [IW-1:2] ib_avail   = ibend[IW-1:2] - ibcur_q[IW-1:2];
  reg  [IW-1:2] avail_w;
  always @(*) begin
    avail_w = {(IW-2){1'bx}};
    if (hdr_look) avail_w = in_ib ? ib_avail : ring_avail;
  end
  wire [3:0] h_fault = hdr_fault_i;

  // ------------------------------------------------------------ multiplier
  reg         mul_start;
  wire        mul_busy;
  wire [IW:0] mul_p;              // IW+1 product bits; mul_ovf: more needed
  wire        mul_ovf;
  wire        is_copy = (op == `SGPU_OP_COPY);
  wire        is_fill = (op == `SGPU_OP_FILL);
  // FILL's width, height and pattern are stored where COPY keeps its width,
  // height and source (width_q, height_q, arg2_q), so neither needs a mux.
  wire [15:0] r_width  = width_q;
  wire [15:0] r_height = height_q;
  // The source rectangle's multiply starts from S_RCHK.
  wire [15:0] r_pitch  = (state_q == S_RCHK) ? src_pitch_q : dst_pitch;
  sgpu_mul16 #(.PW(IW+1)) u_mul (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(mul_start), .a_i(r_pitch), .b_i(r_height - 16'd1),
    .busy_o(mul_busy), .p_o(mul_p), .ovf_o(mul_ovf)
  );

  // ------------------------------------------------------------ range check
  // One shared checker: [lo, lo+len) inside memory, and inside the context
  // window when the packet comes from an IB.  Its verdicts are registered
  // (chk_oor_q, chk_win_q): computed in S_CHK for the packet's own range
  // and in S_MUL for a FILL/COPY rectangle (the product is ready there),
  // used one cycle later in S_EXEC and S_RCHK, so the adder and compares
  // are off the path from the packet registers to the state machine.
  // Narrow arithmetic (IW+2 bits): any operand bit at or above the memory
  // size already means out of range.  Needs MEM_BYTES >= 64 KiB (sgpu_cp checks it).
  reg  [IW-1:0] chk_lo;
  reg         chk_lo_hi;       // chk_lo has bits at or above IW set
  reg  [IW:0] chk_len;
  reg         chk_big;
  wire [IW:0] rect_len = {1'b0, mul_p[IW-1:0]} + {{(IW-15){1'b0}}, r_width};
  // Used only in these states (the verdicts in the next one); a don't-care
  // otherwise, which the simulator then skips.
  wire chk_look = (state_q == S_CHK) || (state_q == S_MUL) || (state_q == S_EXEC);
  always @(*) begin
    chk_lo  = {IW{1'bx}};
    chk_lo_hi = 1'bx;
    chk_len = {(IW+1){1'bx}};
    chk_big = 1'bx;
    if (!chk_look) ;
    else if (state_q == S_MUL) begin
      chk_lo  = src_phase_q ? copy_src[IW-1:0] : blit_dst;
      chk_lo_hi = src_phase_q ? (copy_src[31:IW] != 0) : addr_hi_q;
      chk_len = rect_len;
      chk_big = mul_ovf || mul_p[IW];
    end else begin
      chk_lo  = addr_q;
      chk_lo_hi = addr_hi_q;
      chk_len = 4;
      chk_big = 1'b0;
      case (op)
        `SGPU_OP_INDIRECT, `SGPU_OP_CONTEXT: begin chk_len = arg_q[IW:0]; chk_big = (arg_q[31:IW+1] != 0); end
        `SGPU_OP_FLIP:       begin chk_lo = flip_addr[IW-1:0]; chk_lo_hi = (flip_addr[31:IW] != 0); end
        `SGPU_OP_WRITE_DATA: chk_len = {{(IW-15){1'b0}}, words_left_q, 2'b00};   // count - 1 words
        `SGPU_OP_TIMESTAMP:  chk_len = 8;
        default: ;
      endcase
    end
  end
  wire [IW+1:0] chk_hi  = {2'b00, chk_lo} + {1'b0, chk_len};
  wire          chk_past_end;
  sgpu_gt_const #(.W(IW+2), .C(MEM_END[IW+1:0])) u_past_end (.x_i(chk_hi), .gt_o(chk_past_end));
  wire          chk_oor = chk_lo_hi || chk_big || chk_past_end;
  // Only meaningful when !chk_oor, so IW+1 bits hold both ends.
  // The null context's window is all of memory: nothing beyond chk_oor.
  // The window's two compares run in DSP blocks on the iCE40, which also
  // hold the window's base and end (sgpu_dsp_ge_held: u_win_lo, u_win_hi).
  wire          lo_ge_base, wend_ge_hi;
  // A VM context has page checks instead (S_PCHK).
  wire          chk_win = in_ib && !ctx_null_q && !ctx_vm_q && (!lo_ge_base || !wend_ge_hi);
  reg           chk_oor_q, chk_win_q;

  // ------------------------------------------------------------ page checks
  // In a VM context a page check takes the window check's place, last of
  // the packet's (or rectangle's) checks: S_EXEC or S_RCHK goes to S_PCHK
  // once the decoder's checks pass, S_PCHK probes every page of the range
  // through the writer port's MMU and comes back with pchk_done_q set.
  wire op_paged = (op == `SGPU_OP_INDIRECT) || (op == `SGPU_OP_FENCE) || (op == `SGPU_OP_WRITE_DATA) ||
                  (op == `SGPU_OP_WAIT_MEM) || (op == `SGPU_OP_TIMESTAMP) || (op == `SGPU_OP_FLIP);
  wire pchk_exec = (VM != 0) && ctx_vm_q && op_paged && (in_ib || op == `SGPU_OP_INDIRECT) &&
                   !pc_empty_q && !pchk_done_q;
  wire pchk_rect = (VM != 0) && ctx_vm_q && in_ib && !pchk_done_q;
  wire pc_last   = (pc_va_q[IW-1:12] == pc_last_q);
  wire [1:0] pc_acc_exec = (op == `SGPU_OP_INDIRECT) ? `SGPU_ACCESS_FETCH :
                           (op == `SGPU_OP_WAIT_MEM || op == `SGPU_OP_FLIP) ? `SGPU_ACCESS_READ :
                           `SGPU_ACCESS_WRITE;
  // the range's last byte (not empty, in range: IW bits); its page is kept
  /* verilator lint_off UNUSEDSIGNAL */
  wire [IW:0] chk_last_b = chk_hi[IW:0] - {{IW{1'b0}}, 1'b1};
  /* verilator lint_on UNUSEDSIGNAL */

  wire        xl_any  = (VM != 0) && (xl_pend_q || xlat_now_i);
  wire        xl_prot = xl_pend_q ? xl_prot_q : xlat_prot_i;
  wire [31:0] xl_va   = xl_pend_q ? xl_va_q : xlat_va_i;
  wire [3:0]  xl_acc  = xl_pend_q ? xl_acc_q : xlat_access_i;
  wire        xl_take = xl_any && state_q != S_FAULT && !stopped && !(wr_valid_i && !wr_ready_i);

  // ------------------------------------------------------------ main FSM
  reg [4:0]   state_d;
  reg [3:0]   fault_d;          // != NONE: fault this cycle
  reg         fault_at_hdr;     // header-time fault: address/opcode from the stream
  reg         pkt_done;         // packet finished (go to RPTR write-back or next header)
  reg         done_irq;
  wire blit_acc = blit_valid_o && blit_ready_i;

  // ---- watchdog
  // Counts cycles without progress up to WATCHDOG; cleared on progress or
  // when idle.  The counter restarts from WATCHDOG (held in the counter's
  // own load register: a DSP block's input register on the iCE40, no
  // flip-flops) and counts down to 0, WATCHDOG cycles later: a NOR, not a
  // 24-bit equality with a register.  A WATCHDOG write restarts it in the
  // next cycle (wdog_new_i, when the load register holds the new value);
  // until then it cannot fire.
  wire [23:0] wdog_cnt;
  wire wdog_hit  = ~|wdog_cnt;
  wire wdog_fire = (state_q != S_FAULT) && !preempted && !rst_wait && wdog_on_i && !wdog_new_i && wdog_hit;
  // The writer's valid never depends on its ready; only the watchdog or a
  // reset can cut it short.
  wire wr_stop = wdog_fire || reset_i;

  always @(*) begin
    state_d      = state_q;
    fault_d      = `SGPU_FAULT_NONE;
    fault_at_hdr = 1'b0;
    pkt_done     = 1'b0;
    pop          = 1'b0;
    done_irq     = 1'b0;
    mul_start    = 1'b0;
    ib_start     = 1'b0;
    ib_start_off = ib1_save_q;
    case (state_q)
      S_HDR: begin
        if (preempt_pend_q) state_d = S_SAVE;
        else if (hold_i) ;   // no header, no IB left
        else if (ib_end) begin
          // Leave the IB; back in level 1 the fetcher restarts where it was.
          if (in_ib2) ib_start = 1'b1;
        end else if (have_words && st_valid) begin
          if (h_fault != `SGPU_FAULT_NONE) begin
            fault_d = h_fault; fault_at_hdr = 1'b1;
          end else begin
            pop = 1'b1;
            // TLB_INVALIDATE (no payload) is checked and drains in S_EXEC.
            if (h_cnt == 14'd0 && h[7:0] == `SGPU_OP_TLB_INVALIDATE) state_d = S_CHK;
            else begin
              state_d = (h_cnt == 14'd0) ? S_HDR : S_PAY;
              if (h_cnt == 14'd0) pkt_done = 1'b1;
            end
          end
        end
      end
      S_PAY: if (st_valid) begin
        pop = 1'b1;
        if (words_left_q == 14'd1 || (op == `SGPU_OP_WRITE_DATA)) begin
          if (op == `SGPU_OP_NOP) pkt_done = 1'b1;
          else state_d = S_CHK;
        end
      end
      S_CHK: state_d = S_EXEC;
      S_EXEC:
        // The packet's checks (sgpu_cp_decode), then its action.
        // (Back from a passed page check, the verdicts are not looked at again.)
        if (!pchk_done_q && pkt_fault_i != `SGPU_FAULT_NONE) fault_d = pkt_fault_i;
        else if (pchk_exec) state_d = S_PCHK;
        else case (op)
          `SGPU_OP_INDIRECT:
            // Entering a level-2 buffer restarts the IB fetcher: first let
            // a level-1 prefetch read that is waiting be accepted, so the
            // port never withdraws a request (its word is dropped).
            if (!ib_skip && ib_len != 32'd0 && ib_req_valid_o && !ib_req_ready_i) ;
            else begin
              pkt_done = 1'b1;
              if (!ib_skip && ib_len != 32'd0) begin
                ib_start = 1'b1; ib_start_off = {ib_addr[IW-1:2], 2'b00};  // checked aligned
              end
            end
          `SGPU_OP_FENCE, `SGPU_OP_WRITE_DATA, `SGPU_OP_WAIT_MEM, `SGPU_OP_TIMESTAMP:
            state_d = (op == `SGPU_OP_WRITE_DATA) ? S_WDATA :
                      (op == `SGPU_OP_WAIT_MEM) ? S_POLL : S_WR;
          `SGPU_OP_WAIT_VSYNC, `SGPU_OP_WAIT_SCANLINE:
            state_d = (op == `SGPU_OP_WAIT_VSYNC) ? S_VSYNC : S_SCAN;
          `SGPU_OP_FILL, `SGPU_OP_COPY:
            if (empty_i) pkt_done = 1'b1;
            else begin mul_start = 1'b1; state_d = S_MUL; end
          `SGPU_OP_FLIP:
            state_d = S_FLIP;
          `SGPU_OP_CONTEXT, `SGPU_OP_TLB_INVALIDATE:
            if (!blit_busy_i) pkt_done = 1'b1;   // drained
          default: ;
        endcase
      S_WDATA: if (st_valid) begin
        if (wr_ready_i) begin
          pop = 1'b1;
          if (words_left_q == 14'd1) pkt_done = 1'b1;
        end
      end
      S_WR: begin
        if (wr_ready_i) begin
          if (op == `SGPU_OP_TIMESTAMP && !ts_hi_i) state_d = S_WR;
          else begin
            pkt_done = 1'b1;
            done_irq = (op == `SGPU_OP_FENCE) && fence_irq;
          end
        end
      end
      S_WB: if (wr_ready_i) state_d = S_HDR;
      S_POLL: if (!poll_pend_i && wr_ready_i) state_d = S_PRSP;
      S_PRSP: if (rsp_valid_i) state_d = S_PCMP;
      S_PCMP: if (poll_ok_i) pkt_done = 1'b1;
              else state_d = S_PGAP;
      S_PGAP: if (preempt_pend_q) state_d = S_SAVE;
              else if (gap_done_i && !hold_i) state_d = S_POLL;
      S_VSYNC: if (vblank_i) pkt_done = 1'b1;
               else if (preempt_pend_q) state_d = S_SAVE;
      S_SCAN: if (!in_scan_i) pkt_done = 1'b1;
              else if (preempt_pend_q) state_d = S_SAVE;
      // The resume state, one word a cycle through the writer (WRITE_DATA's path).
      S_SAVE: if (wr_ready_i && words_left_q == 14'd1) state_d = S_PREEMPTED;
      S_MUL: if (!mul_busy) state_d = S_RCHK;
      S_RCHK:
        // COPY's source pitch, then the rectangle's range (sgpu_cp_decode)
        if (!pchk_done_q && rect_fault_i != `SGPU_FAULT_NONE) fault_d = rect_fault_i;
        else if (pchk_rect) state_d = S_PCHK;
        else if (is_copy && !src_phase_q) begin mul_start = 1'b1; state_d = S_MUL; end
        else state_d = S_BLIT;
      S_BLIT: if (blit_ready_i) state_d = S_BLITW1;
      S_BLITW1: state_d = S_BLITW;
      // A preempted FILL or COPY may end early (blit_cut_i): the rows left
      // go to the save area, the packet resumes from its header.
      S_BLITW: if (!blit_busy_i) begin
        if (PREEMPTION != 0 && blit_cut_i) state_d = S_SAVE;
        else pkt_done = 1'b1;
      end
      S_FLIP: if (flip_ready_i) begin
        if (flip_no_wait) pkt_done = 1'b1;
        else state_d = S_FLIPW1;
      end
      S_FLIPW1: state_d = S_FLIPW;
      S_FLIPW: if (!flip_pending_i) pkt_done = 1'b1;
      // A probe per page, in order; the first that faults stops the node.
      S_PCHK: if (probe_done_i) begin
        if (probe_fault_i) fault_d = probe_prot_i ? `SGPU_FAULT_PAGE_PROTECTION : `SGPU_FAULT_PAGE_NOT_PRESENT;
        else if (pc_last) state_d = pc_2d_q ? S_RCHK : S_EXEC;
      end
      S_RSTW1: state_d = S_RSTW;
      S_RSTW: if (!blit_busy_i) state_d = S_HDR;
      default: ;  // S_FAULT, S_PREEMPTED: stay until CONTROL.RESET
    endcase
    // A finished ring packet writes RPTR back (zero-payload packets finish in S_HDR).
    if (pkt_done) state_d = ((state_q == S_HDR ? !in_ib : pkt_ring_q) && rptr_wb_i) ? S_WB : S_HDR;
    // An access refused by its MMU (the tables changed under a TLB): stop
    // (what was written before stays written).
    if (fault_d == `SGPU_FAULT_NONE && xl_take)
      fault_d = xl_prot ? `SGPU_FAULT_PAGE_PROTECTION : `SGPU_FAULT_PAGE_NOT_PRESENT;
    // Watchdog: no progress for WATCHDOG cycles while busy.
    if (fault_d == `SGPU_FAULT_NONE && wdog_fire) fault_d = `SGPU_FAULT_TIMEOUT;
    if (fault_d != `SGPU_FAULT_NONE) begin
      state_d = S_FAULT; pop = 1'b0; pkt_done = 1'b0; done_irq = 1'b0;
      mul_start = 1'b0; ib_start = 1'b0;
    end
    if (reset_i) begin
      // The 2D engine may still work for us: abort it and wait until it drains.
      state_d = (blit_own_q || blit_acc) ? S_RSTW1 : S_HDR; pop = 1'b0; pkt_done = 1'b0; done_irq = 1'b0;
      ib_start = 1'b0;
    end
  end

  // Progress is registered: the watchdog clears one cycle after it (it may
  // count one cycle more), which keeps the state machine's decision off the
  // counter's enable path.
  wire progress = pkt_done | pop | ring_word | ib_word | blit_progress_i | ((VM != 0) && probe_done_i);
  reg  progress_q;
  wire ring_pkt_done  = pkt_done && (state_q == S_HDR ? !in_ib : pkt_ring_q);

  always @(*) begin
    ring_start = ring_cfg_we_i | reset_i;
    ib_flush   = reset_i | (fault_d != `SGPU_FAULT_NONE);
  end

  // Busy: a packet in progress or work queued.
  wire busy = !preempted && ((state_q != S_HDR && state_q != S_FAULT) || in_ib ||
              (state_q == S_HDR && enable_i && rcur_q != wptr_i));
  wire wdog_clear = !busy || progress_q || state_q == S_FAULT || wdog_we_i || wdog_new_i || reset_i || hold_i;
  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_dsp_counter_held #(.W(24)) u_wdog_cnt (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(!wdog_hit), .ld_i(wdog_clear), .dld_i(wdog_we_i),
    .d_i(wdog_limit_i), .q_o(wdog_cnt), .co_o());
  /* verilator lint_on PINCONNECTEMPTY */
  wire waiting = (state_q == S_PRSP) || (state_q == S_PCMP) || (state_q == S_POLL) || (state_q == S_PGAP) ||
                 (state_q == S_VSYNC) || (state_q == S_SCAN) || (state_q == S_FLIPW) ||
                 (state_q == S_FLIPW1);
  wire stall = ((state_q == S_HDR && have_words) || state_q == S_PAY || state_q == S_WDATA) && !st_valid ||
               (wr_valid_i && !wr_ready_i);

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rptr_q <= {IW{1'b0}}; rcur_q <= {IW{1'b0}};
      fault_reason_q <= `SGPU_FAULT_NONE;
      ctx_null_q <= 1'b1;
      ctx_vm_q <= 1'b0; root_q <= {(IW-12){1'b0}};
      pc_lo_q <= {IW{1'b0}}; pc_last_q <= {(IW-12){1'b0}}; pc_empty_q <= 1'b0; pc_va_q <= {IW{1'b0}};
      pc_acc_q <= 2'd0; pc_2d_q <= 1'b0; pchk_done_q <= 1'b0; fault_va_q <= 32'd0; fault_acc_q <= 4'd0;
      xl_pend_q <= 1'b0; xl_prot_q <= 1'b0; xl_va_q <= 32'd0; xl_acc_q <= 4'd0;
      state_q <= S_HDR; level_q <= 2'd0;
      ibcur_q <= {IW{1'b0}}; ibend1_q <= {IW{1'b0}}; ibend2_q <= {IW{1'b0}}; ib1_save_q <= {IW{1'b0}};
      hdr_q <= 16'd0; hdr_addr_q <= {IW{1'b0}}; pkt_ring_q <= 1'b0;
      words_left_q <= 14'd0; pay_idx_q <= 3'd0;
      addr_q <= {IW{1'b0}}; arg_q <= 32'd0; arg2_q <= 32'd0; src_pitch_q <= 16'd0; width_q <= 16'd0;
      height_q <= 16'd0; ctx_id_nz_q <= 1'b0;
      addr_hi_q <= 1'b0; u16_bad_q <= 1'b0;
      src_phase_q <= 1'b0;
      blit_own_q <= 1'b0;
      progress_q <= 1'b0; chk_oor_q <= 1'b0; chk_win_q <= 1'b0; ring_pres_q <= 1'b0;
      preempt_pend_q <= 1'b0; save_in_wait_q <= 1'b0; save_cut_q <= 1'b0; preempt_fence_q <= 32'd0;
    end else begin
      // Preemption: requested, taken at a boundary (S_SAVE), dropped by a
      // fault or a reset.  A node already stopped ignores a request.
      // One request at a time: a PREEMPT write while one is pending, being
      // saved or taken changes nothing (the save's id stays put while the
      // writer presents it).
      if (PREEMPTION != 0 && preempt_req_i && state_q != S_FAULT && !stopped && !preempt_pend_q) begin
        preempt_pend_q <= 1'b1;
        preempt_fence_q <= preempt_fence_i;
      end
      if (state_d == S_SAVE && state_q != S_SAVE) begin
        preempt_pend_q <= 1'b0;
        save_in_wait_q <= (state_q != S_HDR);   // a WAIT, or a cut FILL / COPY: resume at its header
        save_cut_q <= (state_q == S_BLITW);
        addr_q <= {save_addr_i, 2'b00};
        words_left_q <= SAVE_N;
      end
      if (fault_d != `SGPU_FAULT_NONE || reset_i) preempt_pend_q <= 1'b0;
      if (blit_acc) blit_own_q <= 1'b1;
      else if ((state_q == S_BLITW || state_q == S_RSTW) && !blit_busy_i) blit_own_q <= 1'b0;
      state_q <= state_d;

      // ring configuration written: the ring restarts at 0
      if (ring_cfg_we_i) begin rptr_q <= {IW{1'b0}}; rcur_q <= {IW{1'b0}}; end

      progress_q <= progress;
      ring_pres_q <= ring_req_valid_o && !ring_req_ready_i;
      chk_oor_q <= chk_oor;
      chk_win_q <= chk_win;

      // stream consumption
      if (pop) begin
        if (in_ib) ibcur_q <= ibcur_q + 4;
        else rcur_q <= (rcur_q + 4) & ring_mask;
        if (state_q == S_PAY) begin
          words_left_q <= words_left_q - 14'd1;
          pay_idx_q <= pay_idx_q + 3'd1;
          case (pay_idx_q)
            3'd0: begin
              addr_q <= st_data[IW-1:0]; addr_hi_q <= (st_data[31:IW] != 0);
              width_q <= st_data[15:0]; ctx_id_nz_q <= (st_data != 32'd0);
            end
            3'd1: begin
              arg_q <= st_data;
              if (op == `SGPU_OP_CONTEXT) begin
                addr_q <= st_data[IW-1:0]; addr_hi_q <= (st_data[31:IW] != 0);
              end
            end
            3'd2: if (is_fill) width_q <= st_data[15:0];
                  else if (op == `SGPU_OP_CONTEXT) arg_q <= st_data;
                  else arg2_q <= st_data;
            3'd3: if (is_fill) height_q <= st_data[15:0]; else src_pitch_q <= st_data[15:0];
            3'd4: if (is_fill) arg2_q <= st_data; else width_q <= st_data[15:0];
            3'd5: height_q <= st_data[15:0];
            default: ;
          endcase
          if (u16_word_i && st_data[31:16] != 16'd0) u16_bad_q <= 1'b1;
        end
      end
      // The header registers also hold a header-time fault's packet: a
      // stopped engine keeps them, so they double as FAULT_ADDR/OPCODE.
      if (state_q == S_HDR && (pop || fault_at_hdr)) begin
        hdr_q <= h[15:0]; hdr_addr_q <= cur_addr; pkt_ring_q <= !in_ib;
        words_left_q <= h_cnt; pay_idx_q <= 3'd0; u16_bad_q <= 1'b0;
      end
      if (ib_leave) begin
        level_q <= (IB_DEPTH > 1) ? level_q - 2'd1 : 2'd0;
        if (in_ib2) ibcur_q <= ib1_save_q;
      end

      // execution side effects
      if (state_q == S_EXEC && state_d != S_FAULT) begin
        case (op)
          `SGPU_OP_INDIRECT: begin
            if (ib_start) begin
              level_q <= (IB_DEPTH > 1) ? level_q + 2'd1 : 2'd1;
              ibcur_q <= ib_addr;
              // end = address + length from the range checker (it passed: no carry out)
              if (in_ib) begin ibend2_q <= chk_hi[IW-1:0]; ib1_save_q <= ibcur_q; end
              else ibend1_q <= chk_hi[IW-1:0];
            end
          end
          `SGPU_OP_CONTEXT: if (pkt_done) begin
            ctx_null_q <= !ctx_id_nz_q;
            if (VM != 0) begin
              ctx_vm_q <= ctx_id_nz_q && fl[`SGPU_CONTEXT_FLAG_VM];
              root_q <= ctx_base[IW-1:12];
            end
          end
          default: ;
        endcase
        src_phase_q <= 1'b0;
      end
      if (wdata_step_i) begin
        addr_q[IW-1:0] <= addr_q[IW-1:0] + 4; words_left_q <= words_left_q - 14'd1;
      end
      // TIMESTAMP: the low word went out live from the cycle counter; the
      // high word of that same cycle is kept in arg_q for the second write
      // (no 32 flops to hold a sample: the iCE40 build has no room for them).
      if (ts_step_i) begin addr_q[IW-1:0] <= addr_q[IW-1:0] + 4; arg_q <= cycle_hi_i; end
      if (state_q == S_RCHK && state_d == S_MUL) src_phase_q <= 1'b1;
      // The packet's last word may be popped in the cycle it completes.
      if (ring_pkt_done) rptr_q <= pop ? ((rcur_q + 4) & ring_mask) : rcur_q;

      // faults
      if (fault_d != `SGPU_FAULT_NONE) begin
        fault_reason_q <= fault_d;
      end

      // Page checks (VM): the range comes with the range verdicts; S_PCHK
      // walks it a page at a time.
      if (VM != 0) begin
        if (state_q == S_CHK || state_q == S_MUL) begin
          pc_lo_q <= chk_lo; pc_last_q <= chk_last_b[IW-1:12]; pc_empty_q <= (chk_len == {(IW+1){1'b0}});
        end
        if (state_d == S_PCHK && state_q != S_PCHK) begin
          pc_va_q <= pc_lo_q;
          pc_2d_q <= (state_q == S_RCHK);
          pc_acc_q <= (state_q == S_RCHK) ? (src_phase_q ? `SGPU_ACCESS_READ : `SGPU_ACCESS_WRITE) : pc_acc_exec;
        end
        if (state_q == S_PCHK && probe_done_i && !probe_fault_i) begin
          pc_va_q <= {pc_va_q[IW-1:12] + 1'b1, 12'd0};
          // FLIP: the display takes the translation
          if (op == `SGPU_OP_FLIP) arg_q <= probe_pa_i;
        end
        if (state_q == S_PCHK && (state_d == S_EXEC || state_d == S_RCHK)) pchk_done_q <= 1'b1;
        else if (state_q != S_PCHK && state_d != state_q) pchk_done_q <= 1'b0;
        // the first refused access waits here until it is taken
        if (xlat_fault_i && !xl_pend_q) begin
          xl_pend_q <= 1'b1; xl_prot_q <= xlat_prot_i; xl_va_q <= xlat_va_i; xl_acc_q <= xlat_access_i;
        end
        if (fault_d != `SGPU_FAULT_NONE || state_q == S_FAULT) xl_pend_q <= 1'b0;
        // FAULT_VA / FAULT_ACCESS: a page fault's, else 0
        if (fault_d != `SGPU_FAULT_NONE) begin
          if (state_q == S_PCHK && probe_done_i && probe_fault_i) begin
            fault_va_q <= {{(32-IW){1'b0}}, pc_va_q};
            fault_acc_q <= {pc_2d_q ? `SGPU_UNIT_2D : `SGPU_UNIT_CP, pc_acc_q};
          end else if (fault_d == `SGPU_FAULT_PAGE_NOT_PRESENT || fault_d == `SGPU_FAULT_PAGE_PROTECTION) begin
            fault_va_q <= xl_va; fault_acc_q <= xl_acc;
          end else begin
            fault_va_q <= 32'd0; fault_acc_q <= 4'd0;
          end
        end
      end

      // engine reset: stop, drop all state, pointers to 0, null context
      if (reset_i) begin
        level_q <= 2'd0;
        rptr_q <= {IW{1'b0}}; rcur_q <= {IW{1'b0}};
        fault_reason_q <= `SGPU_FAULT_NONE;
        ctx_null_q <= 1'b1;
        ctx_vm_q <= 1'b0; fault_va_q <= 32'd0; fault_acc_q <= 4'd0; xl_pend_q <= 1'b0;
      end

      // Alignment every writer above guarantees (checked at the register
      // write or the packet's checks): the constant low bits need no flops.
      rptr_q[1:0] <= 2'd0; rcur_q[1:0] <= 2'd0;
      ibcur_q[1:0] <= 2'd0; ibend1_q[1:0] <= 2'd0; ibend2_q[1:0] <= 2'd0; ib1_save_q[1:0] <= 2'd0;
      hdr_addr_q[1:0] <= 2'd0;
    end
  end

  // ------------------------------------------------------------ context window
  // A CONTEXT loads its window into the compares in S_EXEC: its base (word
  // 1, in addr_q) and its end (base + size, from the checker).  The window is
  // used only once the packet completes (ctx_null_q): one that faults
  // instead stops the engine, and the reset that restarts it selects the
  // null context.  So no need to wait for completion here.
  wire win_ld = (state_q == S_EXEC) && (op == `SGPU_OP_CONTEXT);
  sgpu_dsp_ge_held #(.W(IW+1), .HOLD_B(1)) u_win_lo (
    .clk_i(clk_i), .ld_i(win_ld), .a_i({1'b0, chk_lo}), .b_i({1'b0, ctx_base}), .ge_o(lo_ge_base));
  sgpu_dsp_ge_held #(.W(IW+1), .HOLD_B(0)) u_win_hi (
    .clk_i(clk_i), .ld_i(win_ld), .a_i(chk_hi[IW:0]), .b_i(chk_hi[IW:0]), .ge_o(wend_ge_hi));
  assign cx_commit_o = win_ld && pkt_done;

  // ------------------------------------------------------------ preemption's save words
  // SAVE_WORDS in order; nothing moves while they are written.  A level's
  // next packet: the cut WAIT's header, or the next word to take.
  wire [IW-1:0] save_next = save_in_wait_q ? hdr_addr_q : ibcur_q;
  wire [3:0]    save_idx  = SAVE_N[3:0] - words_left_q[3:0];   // SAVE_WORDS <= 16
  reg  [31:0]   save_word;
  always @(*) begin
    save_word = 32'hxxxx_xxxx;   // a don't-care outside S_SAVE
    if (saving)
      case (save_idx)
        `SGPU_SAVE_RING_NEXT: save_word = {{(32-IW){1'b0}}, rptr_q};
        `SGPU_SAVE_LEVEL:     save_word = {22'd0, save_cut_q, save_in_wait_q && !save_cut_q, 6'd0, level_q};
        `SGPU_SAVE_RECT:      save_word = save_cut_q ? {blit_cut_count_i, blit_cut_first_i} : 32'd0;
        `SGPU_SAVE_RECT_PART: save_word = save_cut_q ? {blit_cut_hi_i, blit_cut_lo_i} : 32'd0;
        `SGPU_SAVE_RECT_ROW:  save_word = save_cut_q ? {15'd0, blit_cut_part_i, blit_cut_prow_i} : 32'd0;
        `SGPU_SAVE_IB1_NEXT:  save_word = {{(32-IW){1'b0}}, in_ib2 ? ib1_save_q : save_next};
        `SGPU_SAVE_IB1_END:   save_word = {{(32-IW){1'b0}}, ibend1_q};
        `SGPU_SAVE_IB2_NEXT:  save_word = {{(32-IW){1'b0}}, save_next};
        `SGPU_SAVE_IB2_END:   save_word = {{(32-IW){1'b0}}, ibend2_q};
        default:              save_word = preempt_fence_q;   // SAVE_PREEMPT_FENCE, last
      endcase
  end

  // ------------------------------------------------------------ shadow RAM writes
  // Headers as they are taken (or fault); a ring INDIRECT's fence id; a
  // FENCE's value; CONTEXT's three words.
  assign sh_word_o      = saving ? save_word : st_data;   // S_SAVE: to the writer only
  assign sh_hdr_we_o    = (state_q == S_HDR) && (pop || fault_at_hdr);
  assign sh_ffence_we_o = (state_q == S_PAY) && pop && (op == `SGPU_OP_INDIRECT) && pay_idx_q == 3'd2 && !in_ib;
  assign sh_lf_we_o     = (state_q == S_PAY) && pop && (op == `SGPU_OP_FENCE) && pay_idx_q == 3'd1;
  assign sh_cx_we_o     = (state_q == S_PAY) && pop && (op == `SGPU_OP_CONTEXT) && (pay_idx_q <= 3'd2);
  assign sh_cx_idx_o    = pay_idx_q[1:0];

  // ------------------------------------------------------------ outputs
  assign busy_o         = busy;
  assign runnable_o     = busy && enable_i;
  // At rest: at a header, between polls, waiting for the display, a 2D
  // command waiting or handed over (the chip pauses the 2D engine), stopped,
  // or an engine reset draining (reads only).
  assign quiet_o        = (state_q == S_HDR) || (state_q == S_PGAP) || (state_q == S_VSYNC) ||
                          (state_q == S_SCAN) || (state_q == S_FLIP) || (state_q == S_FLIPW1) ||
                          (state_q == S_FLIPW) || (state_q == S_BLIT) || (state_q == S_BLITW1) ||
                          (state_q == S_BLITW) || (state_q == S_FAULT) || preempted || rst_wait;
  assign faulted_o      = (state_q == S_FAULT);
  assign preempted_o    = preempted;
  assign preempt_irq_o  = saving && (state_d == S_PREEMPTED);
  assign waiting_o      = waiting;
  assign level_o        = level_q;
  assign rptr_o         = rptr_q;
  assign hdr_addr_o     = hdr_addr_q;
  assign fault_reason_o = fault_reason_q;
  assign ctx_null_o     = ctx_null_q;
  assign stall_o        = stall;
  assign ring_word_o    = ring_word;
  assign ib_word_o      = ib_word;
  assign pkt_done_o     = pkt_done;
  assign fault_irq_o    = (state_q != S_FAULT) && (state_d == S_FAULT);
  assign done_irq_o     = done_irq;
  assign state_o        = state_q;

  assign hdr_look_o   = hdr_look;
  assign hdr_o        = h;
  assign words_left_o = avail_w;
  assign op_o         = op;
  assign pay_idx_o    = pay_idx_q;
  assign ib_full_o    = (level_q == IB_LEVELS);
  assign in_ib_o      = in_ib;
  assign addr_o       = addr_q;
  assign addr_hi_o    = addr_hi_q;
  assign arg_lo_o     = arg_q[1:0];
  assign arg2_o       = arg2_q;
  assign pitch_o      = r_pitch;
  assign width_o      = r_width;
  assign height_o     = r_height;
  assign u16_bad_o    = u16_bad_q;
  assign ctx_id_nz_o  = ctx_id_nz_q;
  assign src_phase_o  = src_phase_q;
  assign oor_o        = chk_oor_q;
  assign win_o        = chk_win_q;

  assign st_wdata_o   = (state_q == S_WDATA) || saving;
  assign st_one_o     = (state_q == S_WR);
  assign st_wb_o      = (state_q == S_WB);
  assign st_poll_o    = (state_q == S_POLL);
  assign ts_start_o   = (state_q == S_EXEC) && (state_d != S_FAULT) && (op == `SGPU_OP_TIMESTAMP);
  assign wr_stop_o    = wr_stop;
  assign word_valid_o = st_valid || saving;

  assign wait_cmp_o   = (state_q == S_PCMP);
  assign src_o        = source;

  assign blit_valid_o = (state_q == S_BLIT);
  assign blit_copy_o  = is_copy;
  assign blit_abort_o = rst_wait;
  assign blit_stop_o  = (PREEMPTION != 0) && preempt_pend_q &&
                        (state_q == S_BLITW1 || state_q == S_BLITW) && (is_fill || is_copy);
  assign blit_dst_o       = {{(32-IW){1'b0}}, blit_dst};
  assign blit_dst_pitch_o = dst_pitch;
  assign blit_src_o       = copy_src;
  assign blit_src_pitch_o = src_pitch_q;
  assign blit_width_o     = r_width;
  assign blit_height_o    = r_height;
  assign blit_pattern_o   = fill_pattern;   // FILL's pattern (see r_width)
  assign flip_valid_o     = (state_q == S_FLIP);
  assign flip_src_o       = source;
  assign flip_addr_o      = flip_addr;
  assign flip_interval_o  = flip_interval;

  assign vm_o          = (VM != 0) && ctx_vm_q;
  assign root_o        = {{(32-IW){1'b0}}, root_q};
  // CONTEXT and TLB_INVALIDATE flush the TLBs when they complete: in S_EXEC
  // once the 2D engine has drained, unless a check, an MMU refusal or the
  // watchdog faults the packet (the main FSM's pkt_done, written out here so
  // that the writer's MMU verdict, which feeds pkt_done in the writer's
  // states, is not on this path: in S_EXEC the writer and the page checks
  // present nothing and the 2D engine's verdicts do not count, so only the
  // IB fetch's MMU can refuse; the formal block below holds it equal).
  wire ctx_op      = (op == `SGPU_OP_CONTEXT) || (op == `SGPU_OP_TLB_INVALIDATE);
  wire ctx_refused = (VM != 0) && (xl_pend_q || xlat_ib_now_i);
  wire ctx_flush   = state_q == S_EXEC && ctx_op && (pchk_done_q || pkt_fault_i == `SGPU_FAULT_NONE) &&
                     !blit_busy_i && !ctx_refused && !wdog_fire;
  assign mmu_flush_o   = (VM != 0) && (reset_i || ctx_flush);
`ifdef FORMAL
  always @(*) if (rst_ni && state_q == S_EXEC) begin
    assert(!wr_valid_i);
    assert(mmu_flush_o == ((VM != 0) && (reset_i || (pkt_done && ctx_op))));
  end
`endif
  // A buffer's FENCE, WRITE_DATA, TIMESTAMP and WAIT_MEM polls; not the
  // ring's packets, RPTR write-back or the save area.
  assign wr_virt_o     = (VM != 0) && ctx_vm_q && !pkt_ring_q &&
                         (state_q == S_WDATA || state_q == S_WR || state_q == S_POLL);
  assign probe_valid_o = (VM != 0) && (state_q == S_PCHK);
  assign probe_addr_o  = {{(32-IW){1'b0}}, pc_va_q};
  assign probe_write_o = (pc_acc_q == `SGPU_ACCESS_WRITE);
  assign blit_wait_o   = (state_q == S_BLITW1) || (state_q == S_BLITW);
  assign fault_va_o    = fault_va_q;
  assign fault_access_o = fault_acc_q;

  assign wait_func_o  = wait_func;
  assign wait_mask_o  = wait_mask;
  assign wait_ref_o   = wait_ref;
  assign scan_lines_o = scan_lines;
  assign wr_data_o    = arg_q;   // FENCE's value; TIMESTAMP's high word once the low one is written

`ifdef FORMAL
  // Valid/ready of the 2D command and the flip request: raised only in
  // their own state, which is left on ready, an engine reset or a fault
  // (the watchdog).  The payload (addr_q, arg_q, arg2_q, src_pitch_q,
  // width_q, height_q) does not change in these states.
  reg f_past = 1'b0;
  /* verilator lint_off UNUSEDSIGNAL */
  reg [4:0] f_state_q;
  /* verilator lint_on UNUSEDSIGNAL */
  reg f_blit_wait_q = 1'b0, f_flip_wait_q = 1'b0;
  always @(posedge clk_i) begin
    f_past <= 1'b1;
    f_state_q <= state_q;
    f_blit_wait_q <= rst_ni && blit_valid_o && !blit_ready_i && !reset_i && !wdog_fire;
    f_flip_wait_q <= rst_ni && flip_valid_o && !flip_ready_i && !reset_i && !wdog_fire;
  end
  always @(*) if (f_past && rst_ni) begin
    if (f_blit_wait_q) assert(blit_valid_o);
    if (f_flip_wait_q) assert(flip_valid_o);
    // The writer states hold until the port takes the request.
    if (state_q == S_WB || state_q == S_POLL) assert(!pop);
  end
  // Held: no header is taken and no poll starts; the ring fetcher's waiting
  // read stays presented until it is accepted.
  reg f_ring_wait_q = 1'b0;
  reg [IW-1:0] f_wptr_q;
  always @(posedge clk_i) begin
    f_ring_wait_q <= rst_ni && ring_req_valid_o && !ring_req_ready_i && !reset_i && !ring_cfg_we_i &&
                     enable_i && state_q != S_FAULT && state_d != S_FAULT && !rst_wait;
    f_wptr_q <= wptr_i;
  end
  always @(*) if (f_past && rst_ni && hold_i) begin
    if (state_q == S_HDR) assert(!pop && !fault_at_hdr);
    // nor is an IB left: its level and the fetcher's place stay together
    if (state_q == S_HDR && !preempt_pend_q) assert(!ib_leave && !ib_start);
    if (state_q == S_PGAP) assert(state_d != S_POLL);
    if (f_ring_wait_q && enable_i && state_q != S_FAULT && !rst_wait && wptr_i == f_wptr_q)
      assert(ring_req_valid_o);
  end
  // Only S_HDR, S_PAY and S_WDATA take stream words, and only valid ones.
  always @(*) if (rst_ni && pop) assert(st_valid && (state_q == S_HDR || state_q == S_PAY || state_q == S_WDATA));
`endif
endmodule
