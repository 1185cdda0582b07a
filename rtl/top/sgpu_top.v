// sgpu chip top: host port decode, global registers and interrupts, one
// command processor per node, one display per source, the shared 2D engine
// and the memory arbiter (display scanout first, then round-robin).
//
// Priority (PRIORITY = 1): each node n also has a high-priority ring, a
// command processor of its own in register block NODES + n (RINGS = 2 *
// NODES blocks).  While node n's high ring is runnable, its normal ring
// holds at its next boundary (hold_i; the 2D engine working for it pauses
// after its chunk in flight), and the high ring starts only once the normal
// one is at rest, so the two never write at the same time.  The high rings
// share a 2D engine of their own, so a held FILL keeps its place in the
// normal rings' engine.
//
// Time slices (TIME_SLICE = 1, needs PRIORITY): node n also has a second
// normal ring, block 2 * NODES + n (RINGS = 3 * NODES).  The node's two
// normal rings take turns: after QUANTUM cycles with the other one waiting,
// the running one holds at its next boundary like for the high ring, and
// the other starts once it is at rest (sgpu_sched).  The second normal
// rings share a third 2D engine, paused like the first, so neither normal
// ring waits for an engine paused mid-FILL for the other.
//
// Virtual memory (VM = 1, CAPS.VM): every ring has MMUs on its IB fetch and
// writer ports (sgpu_cp), and each 2D engine one on its port, which takes
// the virtual flag and directory of the ring whose command it accepts.
`include "sgpu_hw.vh"
module sgpu_top #(
  parameter NODES     = 2,
  parameter SOURCES   = 1,
  parameter MEM_BYTES = 8388608,
  parameter PERF      = 1,         // 0: per-node PERF_* counters read 0 (saves ~450 LCs on iCE40)
  parameter IB_DEPTH  = `SGPU_MAX_IB_DEPTH,  // INDIRECT levels below the ring (CAPS.IB_DEPTH)
  parameter PREEMPTION = 1,        // preemption inside a buffer (CAPS.PREEMPTION)
  parameter PRIORITY  = 1,         // a high-priority ring per node (CAPS.PRIORITY)
  parameter TIME_SLICE = 1,        // a second, time-sliced normal ring per node (CAPS.TIME_SLICE; needs PRIORITY)
  parameter MEM_RDQ   = 8,         // reads the external memory may have outstanding (power of two >= 2)
  // GPU virtual memory (CAPS.VM): an MMU (sgpu_mmu, TLB_ENTRIES entries) on
  // each ring's IB fetch and writer ports and on each 2D engine's port;
  // 0: none is built.
  parameter VM          = 1,
  parameter TLB_ENTRIES = 4,
  parameter PIX_CDC   = 0,         // 1: the displays' pixel side runs on pix_clk_i (video outputs in that domain)
  parameter ARB_REG_GRANT = 0,     // 1: the memory arbiter's grant is registered (sgpu_mem_arb REG_GRANT; the ULX3S)
  parameter HOST_REG_STAGE = 0     // 1: host register accesses reach the register blocks a cycle later, from registers (the ULX3S)
) (
  input  wire                 clk_i,
  input  wire                 rst_ni,
  input  wire                 pix_en_i,    // PIX_CDC = 0: pixel enable on clk_i
  input  wire                 pix_clk_i,   // PIX_CDC = 1: pixel clock
  input  wire                 pix_rst_ni,  // PIX_CDC = 1: reset released in step with pix_clk_i
  // host port: reads answer with exactly one rsp; one read outstanding
  input  wire                 host_req_valid_i,
  output wire                 host_req_ready_o,
  input  wire                 host_req_write_i,
  input  wire [31:0]          host_req_addr_i,
  input  wire [31:0]          host_req_wdata_i,
  input  wire [3:0]           host_req_wstrb_i,
  output wire                 host_rsp_valid_o,
  output wire [31:0]          host_rsp_rdata_o,
  // external memory
  output wire                 mem_req_valid_o,
  input  wire                 mem_req_ready_i,
  output wire                 mem_req_write_o,
  output wire [31:0]          mem_req_addr_o,
  output wire [31:0]          mem_req_wdata_o,
  output wire [3:0]           mem_req_wstrb_o,
  input  wire                 mem_rsp_valid_i,
  input  wire [31:0]          mem_rsp_rdata_i,
  // video
  output wire [SOURCES*8-1:0] vid_r_o,
  output wire [SOURCES*8-1:0] vid_g_o,
  output wire [SOURCES*8-1:0] vid_b_o,
  output wire [SOURCES-1:0]   vid_hsync_o,
  output wire [SOURCES-1:0]   vid_vsync_o,
  output wire [SOURCES-1:0]   vid_de_o,
  output wire                 irq_o,
  output wire                 busy_o,      // some node is busy (for LEDs)
  output wire                 fault_o,     // some node is faulted (for LEDs)
  output wire [31:0]          cycle_o      // CYCLE_LO: a heartbeat for board LEDs without a counter of their own
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
  ,
  // Simulation only (sim/sgpu_sim_top.v): each command processor's own
  // clock and whether it must tick (sgpu_cp's sim_clk_i, sim_awake_o); bit
  // g is ring g, the bits past the chip's rings are unused.
  input  wire [3*NODES-1:0]   sim_cp_clk_i,
  output wire [3*NODES-1:0]   sim_cp_awake_o
`endif
`endif
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // NODES and SOURCES: the CAPS fields, register blocks and sgpu_cp's 2-bit source pads.
  generate if (!(NODES >= 1 && NODES <= `SGPU_MAX_NODES)) begin : g_bad_nodes
    sgpu_precondition_failed_NODES_1_to_MAX_NODES u_fail ();
  end endgenerate
  generate if (!(SOURCES >= 1 && SOURCES <= `SGPU_MAX_SOURCES)) begin : g_bad_sources
    sgpu_precondition_failed_SOURCES_1_to_MAX_SOURCES u_fail ();
  end endgenerate
  // RINGS (PRIORITY: two per node, TIME_SLICE: three): each has a register
  // block and interrupt bits.
  generate if (PRIORITY != 0 && !(RINGS <= `SGPU_MAX_NODES)) begin : g_bad_rings
    sgpu_precondition_failed_RINGS_at_most_MAX_NODES u_fail ();
  end endgenerate
  // TIME_SLICE's second normal ring shares the hold points of the priority rings.
  generate if (TIME_SLICE != 0 && PRIORITY == 0) begin : g_bad_time_slice
    sgpu_precondition_failed_TIME_SLICE_needs_PRIORITY u_fail ();
  end endgenerate
  // MEM_RDQ: the arbiter's read ID queue (sgpu_fifo) is MEM_RDQ deep.
  // VM: the TLB's round-robin needs two entries (the memory holds a
  // directory and a table: it has 64 KiB at least, see sgpu_cp).
  generate if (VM != 0 && !(TLB_ENTRIES >= 2)) begin : g_bad_vm
    sgpu_precondition_failed_VM_needs_TLB_ENTRIES_at_least_2 u_fail ();
  end endgenerate
  generate if (!(MEM_RDQ >= 2 && (MEM_RDQ & (MEM_RDQ - 1)) == 0)) begin : g_bad_mem_rdq
    sgpu_precondition_failed_MEM_RDQ_power_of_two_at_least_2 u_fail ();
  end endgenerate

  // Arbiter masters: sources (strict priority), host, per ring (normal
  // rings, then the high ones, then the second normal ones) ring fetch, IB
  // fetch, writer, then the second normal rings' 2D engine (TIME_SLICE), the
  // high rings' 2D engine (PRIORITY) and the 2D engine.  All but the
  // sources share round-robin, so every ring's ports rank alike.
  localparam SLICE  = (PRIORITY != 0 && TIME_SLICE != 0) ? 1 : 0;
  localparam RINGS  = (PRIORITY != 0) ? (2 + SLICE) * NODES : NODES;   // command processors
  localparam ENG1   = (PRIORITY != 0) ? 1 : 0;               // the high rings' 2D engine
  localparam ENG2   = SLICE;                                 // the second normal rings' 2D engine
  localparam AW     = $clog2(MEM_BYTES);   // GPU memory address bits
  localparam BLIT_AW = (AW < 17) ? 17 : AW;  // sgpu_blit takes 17..32 (the arbiter wraps)
  localparam M      = SOURCES + 2 + 3 * RINGS + ENG1 + ENG2;
  localparam LINE_W = 10;                    // display timing counters: lines < 1024
  localparam MH     = SOURCES;
  localparam MBLIT  = M - 1;
  localparam MBLIT1 = M - 2;                 // PRIORITY: the high rings' 2D engine
  localparam MBLIT2 = M - 3;                 // TIME_SLICE: the second normal rings' 2D engine
  // The masters that write: host, each node's writer (the third of its
  // three masters), the 2D engine.
  localparam [M-1:0] ONE_M   = {{(M-1){1'b0}}, 1'b1};
  localparam [M-1:0] NODE_WR = {{(SOURCES+2+ENG1+ENG2){1'b0}}, {RINGS{3'b100}}};
  localparam [M-1:0] WRITERS = (ONE_M << MH) | (NODE_WR << (SOURCES + 1)) | (ONE_M << MBLIT) |
                               ((PRIORITY != 0) ? (ONE_M << MBLIT1) : {M{1'b0}}) |
                               ((SLICE != 0) ? (ONE_M << MBLIT2) : {M{1'b0}});
  localparam [31:0] MEM32 = MEM_BYTES;
  localparam [31:0] HALF  = MEM32 >> 1;
  localparam [31:0] NODES32 = NODES;
  localparam [31:0] RINGS32 = RINGS;
  localparam [31:0] SRC32   = SOURCES;
  localparam [3:0]  NODES4  = NODES32[3:0];
  localparam [3:0]  SRC4    = SRC32[3:0];
  // CAPS, packed at the interface spec's field positions: 2D engine and
  // display present, no preemption, counters as built.
  localparam [31:0] PERF32 = (PERF != 0) ? 32'd1 : 32'd0;
  localparam [31:0] IBD32  = IB_DEPTH;
  localparam [31:0] PRE32  = (PREEMPTION != 0) ? 32'd1 : 32'd0;
  localparam [31:0] PRIO32 = (PRIORITY != 0) ? 32'd1 : 32'd0;
  localparam [31:0] SLICE32 = SLICE;
  localparam [31:0] VM32    = (VM != 0) ? 32'd1 : 32'd0;
  localparam [31:0] CAPS = ({28'd0, NODES4} << `SGPU_CAPS_NODES_LSB) |
                           ({28'd0, SRC4} << `SGPU_CAPS_SOURCES_LSB) |
                           (32'd1 << `SGPU_CAPS_BLIT_LSB) | (32'd1 << `SGPU_CAPS_DISPLAY_LSB) |
                           (PERF32 << `SGPU_CAPS_PERF_LSB) |
                           (PRE32 << `SGPU_CAPS_PREEMPTION_LSB) |
                           (PRIO32 << `SGPU_CAPS_PRIORITY_LSB) |
                           (SLICE32 << `SGPU_CAPS_TIME_SLICE_LSB) |
                           (VM32 << `SGPU_CAPS_VM_LSB) |
                           ({28'd0, IBD32[3:0]} << `SGPU_CAPS_IB_DEPTH_LSB);

  wire [M-1:0]    a_valid, a_ready, a_write, a_rsp;
  wire [M*32-1:0] a_addr, a_wdata;
  wire [M*4-1:0]  a_wstrb;
  wire [31:0]     a_rdata;

  sgpu_mem_arb #(.M(M), .PRIO(SOURCES), .IDQ(MEM_RDQ), .AW(AW), .WRITERS(WRITERS), .REG_GRANT(ARB_REG_GRANT)) u_arb (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .req_valid_i(a_valid), .req_ready_o(a_ready), .req_write_i(a_write),
    .req_addr_i(a_addr), .req_wdata_i(a_wdata), .req_wstrb_i(a_wstrb),
    .rsp_valid_o(a_rsp), .rsp_rdata_o(a_rdata),
    .mem_req_valid_o(mem_req_valid_o), .mem_req_ready_i(mem_req_ready_i),
    .mem_req_write_o(mem_req_write_o), .mem_req_addr_o(mem_req_addr_o),
    .mem_req_wdata_o(mem_req_wdata_o), .mem_req_wstrb_o(mem_req_wstrb_o),
    .mem_rsp_valid_i(mem_rsp_valid_i), .mem_rsp_rdata_i(mem_rsp_rdata_i)
  );

  // ------------------------------------------------------------ host port
  reg         rd_pend_q;        // a host read waits for its response
  reg         reg_rsp_q;
  reg  [31:0] reg_rdata_q;
  wire        h_reg   = host_req_addr_i[`SGPU_REG_SPACE_BIT];
  localparam OW  = `SGPU_REG_OFFSET_W;            // register offset bits
  localparam NLG = `SGPU_NODE_STRIDE_LG, SLG = `SGPU_SOURCE_STRIDE_LG;   // block sizes (log2)
  localparam NBW = OW - NLG, SBW = OW - SLG;      // block number bits
  wire        reg_gap;          // HOST_REG_STAGE: the cycle after a register write takes no access
  wire        h_ok    = host_req_valid_i && !rd_pend_q && !reg_gap;
  wire        reg_we_now = h_ok && h_reg && host_req_write_i;
  wire        reg_re_now = h_ok && h_reg && !host_req_write_i;
  // The register access the register blocks see: this cycle's, or with
  // HOST_REG_STAGE the last cycle's, from registers, so that no path runs
  // from the host port through the register decode into a command
  // processor's control logic (on the ECP5 with the priority rings, the host
  // side -> CONTROL.RESET -> the writer -> its MMU -> the fault logic).
  // Every register access goes through the stage, so they stay in order; a
  // read's response comes a cycle later (the host port waits for it), a
  // write takes effect a cycle later and the port takes nothing in that
  // cycle (reg_gap), so a command processor's CONTROL.RESET, which acts a
  // cycle later still (sgpu_cp REG_STAGE), is done before the next access.
  wire          reg_we, reg_re;
  wire [OW-1:0] roff;
  wire [31:0]   reg_wdata;
  generate if (HOST_REG_STAGE != 0) begin : g_reg_stage
    reg          we_q, re_q;
    reg [OW-1:0] off_q;
    reg [31:0]   wdata_q;
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        we_q <= 1'b0; re_q <= 1'b0;
      end else begin
        we_q <= reg_we_now; re_q <= reg_re_now;
      end
    end
    always @(posedge clk_i) begin
      off_q <= host_req_addr_i[OW-1:0]; wdata_q <= host_req_wdata_i;
    end
    assign reg_we = we_q; assign reg_re = re_q; assign roff = off_q; assign reg_wdata = wdata_q;
    assign reg_gap = we_q;
  end else begin : g_reg_now
    assign reg_we = reg_we_now; assign reg_re = reg_re_now;
    assign roff = host_req_addr_i[OW-1:0]; assign reg_wdata = host_req_wdata_i;
    assign reg_gap = 1'b0;
  end endgenerate

  assign a_valid[MH]          = h_ok && !h_reg;
  assign a_write[MH]          = host_req_write_i;
  assign a_addr[MH*32 +: 32]  = {1'b0, host_req_addr_i[30:2], 2'b00};
  assign a_wdata[MH*32 +: 32] = host_req_wdata_i;
  assign a_wstrb[MH*4 +: 4]   = host_req_wstrb_i;
  assign host_req_ready_o     = !rd_pend_q && !reg_gap && (h_reg || a_ready[MH]);
  wire   mem_rd_fire          = a_valid[MH] && a_ready[MH] && !host_req_write_i;

  assign host_rsp_valid_o = reg_rsp_q | a_rsp[MH];
  // A node's block-RAM registers answer in the response cycle (0 otherwise).
  reg [31:0] late_rdata;
  integer li;
  always @(*) begin
    late_rdata = 32'd0;
    for (li = 0; li < RINGS; li = li + 1) late_rdata = late_rdata | n_rdata_late[li*32 +: 32];
  end
  assign host_rsp_rdata_o = reg_rsp_q ? (reg_rdata_q | late_rdata | mirror_rdata) : a_rdata;

  // Register space decode.
  // The bases are multiples of the block sizes (0x80 per node, 0x40 per
  // source), so a block's number is the offset's high bits minus a constant:
  // no carry chain through the low bits (it was on the system clock's
  // critical path, host address -> decode -> arbiter -> memory).
  localparam [OW-1:0] NODE_BASE = `SGPU_NODE_BASE;
  localparam [OW-1:0] SRC_BASE  = `SGPU_SOURCE_BASE;
  // The range checks compare with constants in LUTs (sgpu_gt_const), and a
  // single node or source needs no block number at all.
  localparam [NBW-1:0] NB_ONE = 1, NB_LO = NODE_BASE[OW-1:NLG], NB_HI = NB_LO + RINGS32[NBW-1:0] - NB_ONE;
  localparam [SBW-1:0] SB_ONE = 1, SB_LO = SRC_BASE[OW-1:SLG],  SB_HI = SB_LO + SRC32[SBW-1:0] - SB_ONE;
  wire [NBW-1:0] nblk = roff[OW-1:NLG];
  wire [SBW-1:0] sblk = roff[OW-1:SLG];
  wire [NBW-1:0] nsel = (RINGS > 1) ? nblk - NB_LO : {NBW{1'b0}};
  wire [SBW-1:0] ssel = (SOURCES > 1) ? sblk - SB_LO : {SBW{1'b0}};
  wire        n_lo, n_hi, s_lo, s_hi;
  sgpu_gt_const #(.W(NBW), .C(NB_LO - NB_ONE)) u_n_lo (.x_i(nblk), .gt_o(n_lo));
  sgpu_gt_const #(.W(NBW), .C(NB_HI)) u_n_hi (.x_i(nblk), .gt_o(n_hi));
  sgpu_gt_const #(.W(SBW), .C(SB_LO - SB_ONE)) u_s_lo (.x_i(sblk), .gt_o(s_lo));
  sgpu_gt_const #(.W(SBW), .C(SB_HI)) u_s_hi (.x_i(sblk), .gt_o(s_hi));
  wire        is_node = n_lo && !n_hi;   // NODE_BASE and SOURCE_BASE are not 0
  wire        is_src  = s_lo && !s_hi;

  // Each ring's register strobes.  With HOST_REG_STAGE they are decoded
  // from the host port's address before the stage and registered one bit a
  // ring, so a ring's register block starts from its own flip-flops (the
  // block decode ran 7 ns on the ECP5 before CONTROL.RESET fanned out).
  wire [RINGS-1:0] n_we, n_re;
  generate if (HOST_REG_STAGE != 0) begin : g_ring_stage
    wire [NBW-1:0] nblk_now = host_req_addr_i[OW-1:NLG];
    wire [NBW-1:0] nsel_now = (RINGS > 1) ? nblk_now - NB_LO : {NBW{1'b0}};
    wire           lo_now, hi_now;
    sgpu_gt_const #(.W(NBW), .C(NB_LO - NB_ONE)) u_lo_now (.x_i(nblk_now), .gt_o(lo_now));
    sgpu_gt_const #(.W(NBW), .C(NB_HI)) u_hi_now (.x_i(nblk_now), .gt_o(hi_now));
    reg [RINGS-1:0] we_q, re_q;
    integer r;
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        we_q <= {RINGS{1'b0}}; re_q <= {RINGS{1'b0}};
      end else begin
        for (r = 0; r < RINGS; r = r + 1) begin
          we_q[r] <= reg_we_now && lo_now && !hi_now && {{(32-NBW){1'b0}}, nsel_now} == r;
          re_q[r] <= reg_re_now && lo_now && !hi_now && {{(32-NBW){1'b0}}, nsel_now} == r;
        end
      end
    end
    assign n_we = we_q; assign n_re = re_q;
  end else begin : g_ring_now
    genvar r;
    for (r = 0; r < RINGS; r = r + 1) begin : g_sel
      assign n_we[r] = reg_we && is_node && nsel == r;
      assign n_re[r] = reg_re && is_node && nsel == r;
    end
  end endgenerate

  // ------------------------------------------------------------ global state
  reg  [31:0] int_status_q, int_enable_q;
  localparam CEW = `SGPU_REG_CFG_ERROR_W;       // CFG_ERROR bits
  reg  [CEW-1:0] cfg_error_q;
  reg  [`SGPU_REG_CFG_ERROR_ADDR_W-1:0] cfg_error_addr_q;
  wire [63:0] cycle_q;

  // per-ring signals (normal rings, then the high ones, then the second normal ones)
  wire [RINGS*32-1:0] n_rdata, n_rdata_late;
  wire [RINGS-1:0]    n_cfg_err, n_done, n_fault, n_preempt, n_busy, n_faulted, n_kept;
  wire [RINGS-1:0]    n_hold, n_runnable, n_quiet;
  wire [RINGS*`SGPU_NREG_QUANTUM_W-1:0] n_quantum;   // each ring's QUANTUM (time slices)
  wire [RINGS*CEW-1:0] n_cfg_bits;
  // per-source signals
  wire [SOURCES*32-1:0] s_rdata;
  wire [SOURCES-1:0]    s_err, s_kept, s_vblank, s_pend, s_invbl, s_flip_ready;
  wire [SOURCES*16-1:0] s_scan;

  // ------------------------------------------------------------ nodes
  wire [RINGS-1:0]    b_valid, b_copy, f_valid, f_src;
  wire [RINGS*32-1:0] b_dst, b_src, b_pat, f_addr;
  wire [RINGS*16-1:0] b_dpitch, b_spitch, b_width, b_height;
  wire [RINGS*3-1:0]  f_int;
  wire [RINGS-1:0]    b_ready, f_ready;
  // VM: each ring's 2D command is virtual, in its tables; the engines'
  // MMU verdicts, to the ring whose command it is
  wire [RINGS-1:0]    b_virt;
  wire [RINGS*20-1:0] b_root;
  wire [RINGS-1:0]    n_bfault;
  wire [3-1:0]        e_acc_v, e_virt_v;       // per 2D engine: a command accepted, of a ring ...
  wire [3*20-1:0]     e_root_v;                // ... in its VM context
  wire [3-1:0]        e_fault_v, e_fprot_v, e_fwrite_v;
  wire [3*32-1:0]     e_fva_v;
  // the 2D engines' ports before their MMUs (engine 0, 1 high rings', 2 second normal rings')
  wire [2:0]          e_valid, e_ready, e_write, e_rsp;
  wire [3*32-1:0]     e_addr, e_wdata, e_rdata;
  wire [3*4-1:0]      e_wstrb;
  wire                blit_busy;
  wire                blit_chunk;  // the 2D engine has a chunk in flight
  wire [RINGS-1:0]    n_abort;     // node resets and may own the 2D engine
  wire [RINGS-1:0]    n_bstop;     // node is preempted while the 2D engine works for it
  wire                blit_cut;
  wire [15:0]         blit_cut_first, blit_cut_count, blit_cut_prow, blit_cut_lo, blit_cut_hi;
  wire                blit_cut_part;
  reg  [NODES-1:0]    b_own_q;     // node whose command the 2D engine runs (last accepted)
  wire                blit_fire = e_valid[0] && e_ready[0];
  // PRIORITY: the high rings' 2D engine (tied off without it)
  wire                blit1_busy, blit1_cut, blit1_cut_part, blit1_fire;
  wire [15:0]         blit1_cut_first, blit1_cut_count, blit1_cut_prow, blit1_cut_lo, blit1_cut_hi;
  wire [NODES-1:0]    b1_own;      // high ring whose command it runs
  // TIME_SLICE: the second normal rings' 2D engine (tied off without it)
  wire                blit2_busy, blit2_cut, blit2_cut_part, blit2_fire, blit2_chunk;
  wire [15:0]         blit2_cut_first, blit2_cut_count, blit2_cut_prow, blit2_cut_lo, blit2_cut_hi;
  wire [NODES-1:0]    b2_own;      // second normal ring whose command it runs

  genvar g;
  generate
    for (g = 0; g < RINGS; g = g + 1) begin : g_node
      localparam R = SOURCES + 1 + 3 * g;   // ring fetch; R+1 IB fetch; R+2 writer
      // The 2D engine this ring uses: the normal rings', the high rings' or
      // the second normal rings' one.
      wire       e_busy, e_cut, e_cut_part, e_fire;
      wire [15:0] e_cut_first, e_cut_count, e_cut_prow, e_cut_lo, e_cut_hi;
      if (g < NODES) begin : g_eng0
        assign e_busy = blit_busy; assign e_cut = blit_cut; assign e_cut_part = blit_cut_part;
        assign e_fire = blit_fire && b_own_q[g];
        assign e_cut_first = blit_cut_first; assign e_cut_count = blit_cut_count;
        assign e_cut_prow = blit_cut_prow; assign e_cut_lo = blit_cut_lo; assign e_cut_hi = blit_cut_hi;
      end else if (g < 2 * NODES) begin : g_eng1
        assign e_busy = blit1_busy; assign e_cut = blit1_cut; assign e_cut_part = blit1_cut_part;
        assign e_fire = blit1_fire && b1_own[g - NODES];
        assign e_cut_first = blit1_cut_first; assign e_cut_count = blit1_cut_count;
        assign e_cut_prow = blit1_cut_prow; assign e_cut_lo = blit1_cut_lo; assign e_cut_hi = blit1_cut_hi;
      end else begin : g_eng2
        assign e_busy = blit2_busy; assign e_cut = blit2_cut; assign e_cut_part = blit2_cut_part;
        assign e_fire = blit2_fire && b2_own[g - 2 * NODES];
        assign e_cut_first = blit2_cut_first; assign e_cut_count = blit2_cut_count;
        assign e_cut_prow = blit2_cut_prow; assign e_cut_lo = blit2_cut_lo; assign e_cut_hi = blit2_cut_hi;
      end
      // The engine's MMU verdict, if this ring's command runs there.
      wire [1:0] eng = (g < NODES) ? 2'd0 : (g < 2 * NODES) ? 2'd1 : 2'd2;
      wire own = (g < NODES) ? b_own_q[g % NODES] : (g < 2 * NODES) ? b1_own[g % NODES] : b2_own[g % NODES];
      assign n_bfault[g] = e_fault_v[eng] && own;
      sgpu_cp #(.SOURCES(SOURCES), .MEM_BYTES(MEM_BYTES), .AW(AW), .PERF(PERF), .MIRROR(1),
                .LINE_W(LINE_W), .IB_DEPTH(IB_DEPTH), .PREEMPTION(PREEMPTION),
                .VM(VM), .TLB_ENTRIES(TLB_ENTRIES), .REG_STAGE(HOST_REG_STAGE)) u_cp (
        .clk_i(clk_i), .rst_ni(rst_ni),
        .reg_we_i(n_we[g]), .reg_addr_i(roff[NLG-1:0]),
        .reg_wdata_i(reg_wdata), .reg_rdata_o(n_rdata[g*32 +: 32]),
        .reg_re_i(n_re[g]), .reg_rdata_late_o(n_rdata_late[g*32 +: 32]),
        .cfg_err_o(n_cfg_err[g]), .cfg_err_bits_o(n_cfg_bits[g*CEW +: CEW]), .reg_kept_o(n_kept[g]),
        .cycle_i(cycle_q), .done_irq_o(n_done[g]), .fault_irq_o(n_fault[g]),
        .preempt_irq_o(n_preempt[g]),
        .busy_o(n_busy[g]), .faulted_o(n_faulted[g]),
        .hold_i(n_hold[g]), .runnable_o(n_runnable[g]), .quiet_o(n_quiet[g]),
        .quantum_o(n_quantum[g*`SGPU_NREG_QUANTUM_W +: `SGPU_NREG_QUANTUM_W]),
        .ring_req_valid_o(a_valid[R]), .ring_req_ready_i(a_ready[R]),
        .ring_req_addr_o(a_addr[R*32 +: 32]),
        .ring_rsp_valid_i(a_rsp[R]), .ring_rsp_rdata_i(a_rdata),
        .ib_req_valid_o(a_valid[R+1]), .ib_req_ready_i(a_ready[R+1]),
        .ib_req_addr_o(a_addr[(R+1)*32 +: 32]),
        .ib_rsp_valid_i(a_rsp[R+1]), .ib_rsp_rdata_i(a_rdata),
        .wr_req_valid_o(a_valid[R+2]), .wr_req_ready_i(a_ready[R+2]),
        .wr_req_write_o(a_write[R+2]), .wr_req_addr_o(a_addr[(R+2)*32 +: 32]),
        .wr_req_wdata_o(a_wdata[(R+2)*32 +: 32]), .wr_req_wstrb_o(a_wstrb[(R+2)*4 +: 4]),
        .wr_rsp_valid_i(a_rsp[R+2]), .wr_rsp_rdata_i(a_rdata),
        .blit_valid_o(b_valid[g]), .blit_ready_i(b_ready[g]), .blit_copy_o(b_copy[g]),
        .blit_dst_o(b_dst[g*32 +: 32]), .blit_dst_pitch_o(b_dpitch[g*16 +: 16]),
        .blit_src_o(b_src[g*32 +: 32]), .blit_src_pitch_o(b_spitch[g*16 +: 16]),
        .blit_width_o(b_width[g*16 +: 16]), .blit_height_o(b_height[g*16 +: 16]),
        .blit_pattern_o(b_pat[g*32 +: 32]), .blit_busy_i(e_busy),
        .blit_progress_i(e_fire), .blit_abort_o(n_abort[g]),
        .blit_stop_o(n_bstop[g]), .blit_cut_i(e_cut), .blit_cut_first_i(e_cut_first),
        .blit_cut_count_i(e_cut_count), .blit_cut_part_i(e_cut_part),
        .blit_cut_prow_i(e_cut_prow), .blit_cut_lo_i(e_cut_lo), .blit_cut_hi_i(e_cut_hi),
        .blit_virt_o(b_virt[g]), .blit_root_o(b_root[g*20 +: 20]),
        .blit_fault_i(n_bfault[g]), .blit_fault_prot_i(e_fprot_v[eng]),
        .blit_fault_va_i(e_fva_v[eng*32 +: 32]), .blit_fault_write_i(e_fwrite_v[eng]),
        .flip_valid_o(f_valid[g]), .flip_ready_i(f_ready[g]), .flip_src_o(f_src[g]),
        .flip_addr_o(f_addr[g*32 +: 32]), .flip_interval_o(f_int[g*3 +: 3]),
        .flip_pending_i(s_pend), .vblank_i(s_vblank), .in_vblank_i(s_invbl),
        .scanline_i(s_scan)
`ifdef FORMAL
        /* verilator lint_off PINCONNECTEMPTY */
        , .f_wdata_live_o()
        /* verilator lint_on PINCONNECTEMPTY */
`endif
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
        , .sim_clk_i(sim_cp_clk_i[g]), .sim_awake_o(sim_cp_awake_o[g])
`endif
`endif
      );
      assign a_write[R] = 1'b0;     assign a_write[R+1] = 1'b0;
      assign a_wdata[R*32 +: 32] = 32'd0; assign a_wdata[(R+1)*32 +: 32] = 32'd0;
      assign a_wstrb[R*4 +: 4] = 4'd0;    assign a_wstrb[(R+1)*4 +: 4] = 4'd0;
    end
  endgenerate

  // ------------------------------------------------------------ blit mux
  // Lowest node wins; the winner is held until its command is accepted.
  reg  [NODES-1:0] b_sel_q, b_pick;
  reg              b_lock_q;
  integer i;
  always @(*) begin
    b_pick = {NODES{1'b0}};
    for (i = NODES - 1; i >= 0; i = i - 1)
      if (b_valid[i]) b_pick = {{(NODES-1){1'b0}}, 1'b1} << i;
  end
  wire [NODES-1:0] b_gnt = b_lock_q ? (b_sel_q & b_valid[NODES-1:0]) : b_pick;
  // The engine samples the command fields only when it accepts one, so with
  // a single node they need no gating.
  reg        c_copy;
  reg [31:0] c_dst, c_src, c_pat;
  reg [15:0] c_dpitch, c_spitch, c_width, c_height;
  always @(*) begin
    if (NODES == 1) begin
      c_copy = b_copy[0]; c_dst = b_dst[31:0]; c_src = b_src[31:0]; c_pat = b_pat[31:0];
      c_dpitch = b_dpitch[15:0]; c_spitch = b_spitch[15:0];
      c_width = b_width[15:0]; c_height = b_height[15:0];
    end else begin
      c_copy = 1'b0; c_dst = 32'd0; c_src = 32'd0; c_pat = 32'd0;
      c_dpitch = 16'd0; c_spitch = 16'd0; c_width = 16'd0; c_height = 16'd0;
      for (i = 0; i < NODES; i = i + 1) if (b_gnt[i]) begin
        c_copy = c_copy | b_copy[i];
        c_dst = c_dst | b_dst[i*32 +: 32]; c_src = c_src | b_src[i*32 +: 32];
        c_pat = c_pat | b_pat[i*32 +: 32];
        c_dpitch = c_dpitch | b_dpitch[i*16 +: 16]; c_spitch = c_spitch | b_spitch[i*16 +: 16];
        c_width = c_width | b_width[i*16 +: 16]; c_height = c_height | b_height[i*16 +: 16];
      end
    end
  end
  wire blit_cmd_ready;
  wire blit_cmd_valid = |b_gnt;
  assign b_ready[NODES-1:0] = b_gnt & {NODES{blit_cmd_ready}};
  assign e_acc_v[0] = blit_cmd_valid && blit_cmd_ready;
  reg        c_virt;
  reg [19:0] c_root;
  always @(*) begin
    c_virt = 1'b0; c_root = 20'd0;
    for (i = 0; i < NODES; i = i + 1) if (b_gnt[i]) begin
      c_virt = c_virt | b_virt[i]; c_root = c_root | b_root[i*20 +: 20];
    end
  end
  assign e_virt_v[0] = c_virt; assign e_root_v[19:0] = c_root;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      b_lock_q <= 1'b0; b_sel_q <= {NODES{1'b0}}; b_own_q <= {NODES{1'b0}};
    end else begin
      b_lock_q <= blit_cmd_valid && !blit_cmd_ready;
      if (!b_lock_q) b_sel_q <= b_pick;
      if (blit_cmd_valid && blit_cmd_ready) b_own_q <= b_gnt;
    end
  end

  // One node holds its command's fields until the engine is done with them.
  // Its owner's hold pauses it, unless a preemption is to cut it (a stop
  // is taken at the next chunk, as without priority).
  wire blit_stop = |(n_bstop[NODES-1:0] & b_own_q);
  wire blit_pause = (PRIORITY != 0) && |(n_hold[NODES-1:0] & b_own_q) && !blit_stop;
  sgpu_blit #(.ADDR_W(BLIT_AW), .CMD_HELD(NODES == 1 ? 1 : 0)) u_blit (
    .clk_i(clk_i), .rst_ni(rst_ni), .abort_i(|(n_abort[NODES-1:0] & b_own_q)), .stop_i(blit_stop),
    .pause_i(blit_pause), .chunk_o(blit_chunk),
    .cut_o(blit_cut), .cut_first_o(blit_cut_first), .cut_count_o(blit_cut_count),
    .cut_part_o(blit_cut_part), .cut_prow_o(blit_cut_prow), .cut_lo_o(blit_cut_lo), .cut_hi_o(blit_cut_hi),
    .cmd_valid_i(blit_cmd_valid), .cmd_ready_o(blit_cmd_ready), .cmd_copy_i(c_copy),
    .cmd_dst_i(c_dst), .cmd_dst_pitch_i(c_dpitch), .cmd_src_i(c_src), .cmd_src_pitch_i(c_spitch),
    .cmd_width_i(c_width), .cmd_height_i(c_height), .cmd_pattern_i(c_pat),
    .busy_o(blit_busy),
    .mem_req_valid_o(e_valid[0]), .mem_req_ready_i(e_ready[0]),
    .mem_req_write_o(e_write[0]), .mem_req_addr_o(e_addr[0 +: 32]),
    .mem_req_wdata_o(e_wdata[0 +: 32]), .mem_req_wstrb_o(e_wstrb[0 +: 4]),
    .mem_rsp_valid_i(e_rsp[0]), .mem_rsp_rdata_i(e_rdata[0 +: 32])
  );

  // ------------------------------------------------------------ priority
  // Node n's high ring (n + NODES) holds its normal ring(s) while it is
  // runnable; it starts once they are held and at rest, their 2D engines
  // included; with TIME_SLICE the two normal rings take turns (sgpu_sched,
  // one per node).  Every hold is registered: no path from one command
  // processor's state through another's to its fetcher and the memory
  // arbiter.
  generate if (PRIORITY != 0) begin : g_high
    wire [NODES-1:0] lo_rest = n_quiet[NODES-1:0] & ~(b_own_q & {NODES{blit_chunk}});
    wire [NODES-1:0] lo2_rest;
    if (SLICE != 0) begin : g_rest2
      assign lo2_rest = n_quiet[3*NODES-1:2*NODES] & ~(b2_own & {NODES{blit2_chunk}});
    end else begin : g_no_rest2
      assign lo2_rest = {NODES{1'b1}};
    end
    genvar n;
    for (n = 0; n < NODES; n = n + 1) begin : g_sched
      localparam B = (SLICE != 0) ? 2 * NODES + n : n;   // the second normal ring (none: ring A)
      localparam QW = `SGPU_NREG_QUANTUM_W;
      wire hold_b;
      sgpu_sched #(.TIME_SLICE(SLICE)) u_sched (
        .clk_i(clk_i), .rst_ni(rst_ni),
        // A normal ring has work while busy, enabled or not: one whose
        // ENABLE was cleared inside a packet must get its turn to finish it.
        .run_a_i(n_busy[n]), .rest_a_i(lo_rest[n]),
        .run_b_i(n_busy[B] && SLICE != 0), .rest_b_i(lo2_rest[n]),
        .run_h_i(n_runnable[NODES + n]), .rest_h_i(n_quiet[NODES + n]),
        .quantum_a_i(n_quantum[n*QW +: QW]), .quantum_b_i(n_quantum[B*QW +: QW]),
        .hold_a_o(n_hold[n]), .hold_b_o(hold_b), .hold_h_o(n_hold[NODES + n]),
        /* verilator lint_off PINCONNECTEMPTY */
        .switch_o()
        /* verilator lint_on PINCONNECTEMPTY */
      );
      if (SLICE != 0) begin : g_hold_b
        assign n_hold[2 * NODES + n] = hold_b;
      end else begin : g_no_b
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_b = hold_b;
        /* verilator lint_on UNUSEDSIGNAL */
      end
    end

    // The high rings' 2D engine: lowest ring wins, held until accepted.
    reg  [NODES-1:0] sel_q, pick, own_q;
    reg              lock_q;
    wire [NODES-1:0] req = b_valid[2*NODES-1:NODES];
    integer j;
    always @(*) begin
      pick = {NODES{1'b0}};
      for (j = NODES - 1; j >= 0; j = j - 1)
        if (req[j]) pick = {{(NODES-1){1'b0}}, 1'b1} << j;
    end
    wire [NODES-1:0] gnt = lock_q ? (sel_q & req) : pick;
    reg        c1_copy;
    reg [31:0] c1_dst, c1_src, c1_pat;
    reg [15:0] c1_dpitch, c1_spitch, c1_width, c1_height;
    always @(*) begin
      c1_copy = 1'b0; c1_dst = 32'd0; c1_src = 32'd0; c1_pat = 32'd0;
      c1_dpitch = 16'd0; c1_spitch = 16'd0; c1_width = 16'd0; c1_height = 16'd0;
      for (j = 0; j < NODES; j = j + 1) if (gnt[j] || NODES == 1) begin
        c1_copy = c1_copy | b_copy[NODES + j];
        c1_dst = c1_dst | b_dst[(NODES + j)*32 +: 32]; c1_src = c1_src | b_src[(NODES + j)*32 +: 32];
        c1_pat = c1_pat | b_pat[(NODES + j)*32 +: 32];
        c1_dpitch = c1_dpitch | b_dpitch[(NODES + j)*16 +: 16];
        c1_spitch = c1_spitch | b_spitch[(NODES + j)*16 +: 16];
        c1_width = c1_width | b_width[(NODES + j)*16 +: 16];
        c1_height = c1_height | b_height[(NODES + j)*16 +: 16];
      end
    end
    wire cmd1_ready;
    wire cmd1_valid = |gnt;
    assign b_ready[2*NODES-1:NODES] = gnt & {NODES{cmd1_ready}};
    reg        c1_virt;
    reg [19:0] c1_root;
    always @(*) begin
      c1_virt = 1'b0; c1_root = 20'd0;
      for (j = 0; j < NODES; j = j + 1) if (gnt[j]) begin
        c1_virt = c1_virt | b_virt[NODES + j]; c1_root = c1_root | b_root[(NODES + j)*20 +: 20];
      end
    end
    assign e_acc_v[1] = cmd1_valid && cmd1_ready;
    assign e_virt_v[1] = c1_virt; assign e_root_v[20 +: 20] = c1_root;
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        lock_q <= 1'b0; sel_q <= {NODES{1'b0}}; own_q <= {NODES{1'b0}};
      end else begin
        lock_q <= cmd1_valid && !cmd1_ready;
        if (!lock_q) sel_q <= pick;
        if (cmd1_valid && cmd1_ready) own_q <= gnt;
      end
    end
    assign b1_own = own_q;
    assign blit1_fire = e_valid[1] && e_ready[1];

    /* verilator lint_off PINCONNECTEMPTY */
    sgpu_blit #(.ADDR_W(BLIT_AW), .CMD_HELD(NODES == 1 ? 1 : 0)) u_blit1 (
      .clk_i(clk_i), .rst_ni(rst_ni), .abort_i(|(n_abort[2*NODES-1:NODES] & own_q)),
      .stop_i(|(n_bstop[2*NODES-1:NODES] & own_q)), .pause_i(1'b0), .chunk_o(),
      .cut_o(blit1_cut), .cut_first_o(blit1_cut_first), .cut_count_o(blit1_cut_count),
      .cut_part_o(blit1_cut_part), .cut_prow_o(blit1_cut_prow), .cut_lo_o(blit1_cut_lo),
      .cut_hi_o(blit1_cut_hi),
      .cmd_valid_i(cmd1_valid), .cmd_ready_o(cmd1_ready), .cmd_copy_i(c1_copy),
      .cmd_dst_i(c1_dst), .cmd_dst_pitch_i(c1_dpitch), .cmd_src_i(c1_src), .cmd_src_pitch_i(c1_spitch),
      .cmd_width_i(c1_width), .cmd_height_i(c1_height), .cmd_pattern_i(c1_pat),
      .busy_o(blit1_busy),
      .mem_req_valid_o(e_valid[1]), .mem_req_ready_i(e_ready[1]),
      .mem_req_write_o(e_write[1]), .mem_req_addr_o(e_addr[32 +: 32]),
      .mem_req_wdata_o(e_wdata[32 +: 32]), .mem_req_wstrb_o(e_wstrb[4 +: 4]),
      .mem_rsp_valid_i(e_rsp[1]), .mem_rsp_rdata_i(e_rdata[32 +: 32])
    );
    /* verilator lint_on PINCONNECTEMPTY */
  end else begin : g_no_high
    assign n_hold = {RINGS{1'b0}};
    assign blit1_busy = 1'b0; assign blit1_cut = 1'b0; assign blit1_cut_part = 1'b0;
    assign blit1_fire = 1'b0; assign b1_own = {NODES{1'b0}};
    assign blit1_cut_first = 16'd0; assign blit1_cut_count = 16'd0; assign blit1_cut_prow = 16'd0;
    assign blit1_cut_lo = 16'd0; assign blit1_cut_hi = 16'd0;
    assign e_acc_v[1] = 1'b0; assign e_virt_v[1] = 1'b0; assign e_root_v[20 +: 20] = 20'd0;
    assign e_valid[1] = 1'b0; assign e_write[1] = 1'b0; assign e_addr[32 +: 32] = 32'd0;
    assign e_wdata[32 +: 32] = 32'd0; assign e_wstrb[4 +: 4] = 4'd0;
  end endgenerate

  // ------------------------------------------------------------ time slices
  // The second normal rings' 2D engine: lowest ring wins, held until
  // accepted; like the first, its owner's hold pauses it after the chunk in
  // flight (unless a preemption is to cut it), so a held FILL continues
  // where it paused when the ring's turn comes back.
  generate if (SLICE != 0) begin : g_slice
    localparam BASE = 2 * NODES;     // ring of the first node's second normal ring
    reg  [NODES-1:0] sel_q, pick, own_q;
    reg              lock_q;
    wire [NODES-1:0] req = b_valid[RINGS-1:BASE];
    integer j;
    always @(*) begin
      pick = {NODES{1'b0}};
      for (j = NODES - 1; j >= 0; j = j - 1)
        if (req[j]) pick = {{(NODES-1){1'b0}}, 1'b1} << j;
    end
    wire [NODES-1:0] gnt = lock_q ? (sel_q & req) : pick;
    reg        c2_copy;
    reg [31:0] c2_dst, c2_src, c2_pat;
    reg [15:0] c2_dpitch, c2_spitch, c2_width, c2_height;
    always @(*) begin
      c2_copy = 1'b0; c2_dst = 32'd0; c2_src = 32'd0; c2_pat = 32'd0;
      c2_dpitch = 16'd0; c2_spitch = 16'd0; c2_width = 16'd0; c2_height = 16'd0;
      for (j = 0; j < NODES; j = j + 1) if (gnt[j] || NODES == 1) begin
        c2_copy = c2_copy | b_copy[BASE + j];
        c2_dst = c2_dst | b_dst[(BASE + j)*32 +: 32]; c2_src = c2_src | b_src[(BASE + j)*32 +: 32];
        c2_pat = c2_pat | b_pat[(BASE + j)*32 +: 32];
        c2_dpitch = c2_dpitch | b_dpitch[(BASE + j)*16 +: 16];
        c2_spitch = c2_spitch | b_spitch[(BASE + j)*16 +: 16];
        c2_width = c2_width | b_width[(BASE + j)*16 +: 16];
        c2_height = c2_height | b_height[(BASE + j)*16 +: 16];
      end
    end
    wire cmd2_ready;
    wire cmd2_valid = |gnt;
    assign b_ready[RINGS-1:BASE] = gnt & {NODES{cmd2_ready}};
    reg        c2_virt;
    reg [19:0] c2_root;
    always @(*) begin
      c2_virt = 1'b0; c2_root = 20'd0;
      for (j = 0; j < NODES; j = j + 1) if (gnt[j]) begin
        c2_virt = c2_virt | b_virt[BASE + j]; c2_root = c2_root | b_root[(BASE + j)*20 +: 20];
      end
    end
    assign e_acc_v[2] = cmd2_valid && cmd2_ready;
    assign e_virt_v[2] = c2_virt; assign e_root_v[40 +: 20] = c2_root;
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        lock_q <= 1'b0; sel_q <= {NODES{1'b0}}; own_q <= {NODES{1'b0}};
      end else begin
        lock_q <= cmd2_valid && !cmd2_ready;
        if (!lock_q) sel_q <= pick;
        if (cmd2_valid && cmd2_ready) own_q <= gnt;
      end
    end
    assign b2_own = own_q;
    assign blit2_fire = e_valid[2] && e_ready[2];
    wire stop2  = |(n_bstop[RINGS-1:BASE] & own_q);
    wire pause2 = |(n_hold[RINGS-1:BASE] & own_q) && !stop2;

    sgpu_blit #(.ADDR_W(BLIT_AW), .CMD_HELD(NODES == 1 ? 1 : 0)) u_blit2 (
      .clk_i(clk_i), .rst_ni(rst_ni), .abort_i(|(n_abort[RINGS-1:BASE] & own_q)),
      .stop_i(stop2), .pause_i(pause2), .chunk_o(blit2_chunk),
      .cut_o(blit2_cut), .cut_first_o(blit2_cut_first), .cut_count_o(blit2_cut_count),
      .cut_part_o(blit2_cut_part), .cut_prow_o(blit2_cut_prow), .cut_lo_o(blit2_cut_lo),
      .cut_hi_o(blit2_cut_hi),
      .cmd_valid_i(cmd2_valid), .cmd_ready_o(cmd2_ready), .cmd_copy_i(c2_copy),
      .cmd_dst_i(c2_dst), .cmd_dst_pitch_i(c2_dpitch), .cmd_src_i(c2_src), .cmd_src_pitch_i(c2_spitch),
      .cmd_width_i(c2_width), .cmd_height_i(c2_height), .cmd_pattern_i(c2_pat),
      .busy_o(blit2_busy),
      .mem_req_valid_o(e_valid[2]), .mem_req_ready_i(e_ready[2]),
      .mem_req_write_o(e_write[2]), .mem_req_addr_o(e_addr[64 +: 32]),
      .mem_req_wdata_o(e_wdata[64 +: 32]), .mem_req_wstrb_o(e_wstrb[8 +: 4]),
      .mem_rsp_valid_i(e_rsp[2]), .mem_rsp_rdata_i(e_rdata[64 +: 32])
    );
  end else begin : g_no_slice
    assign blit2_busy = 1'b0; assign blit2_cut = 1'b0; assign blit2_cut_part = 1'b0;
    assign blit2_fire = 1'b0; assign blit2_chunk = 1'b0; assign b2_own = {NODES{1'b0}};
    assign blit2_cut_first = 16'd0; assign blit2_cut_count = 16'd0; assign blit2_cut_prow = 16'd0;
    assign blit2_cut_lo = 16'd0; assign blit2_cut_hi = 16'd0;
    assign e_acc_v[2] = 1'b0; assign e_virt_v[2] = 1'b0; assign e_root_v[40 +: 20] = 20'd0;
    assign e_valid[2] = 1'b0; assign e_write[2] = 1'b0; assign e_addr[64 +: 32] = 32'd0;
    assign e_wdata[64 +: 32] = 32'd0; assign e_wstrb[8 +: 4] = 4'd0;
  end endgenerate

  // ------------------------------------------------------------ 2D engines' MMUs
  // Each engine's port goes through an MMU (VM) or straight to its arbiter
  // slot.  A command's virt and root are taken when the engine accepts it
  // (the ring may be reset while the engine drains), and its TLB is flushed
  // then: a ring's CONTEXT and TLB_INVALIDATE drain the engine first, so no
  // stale translation outlives them.  A refused access goes to the ring
  // whose command it is.
  genvar k;
  generate for (k = 0; k < 3; k = k + 1) begin : g_eng_mmu
    localparam SLOT = (k == 0) ? MBLIT : (k == 1) ? MBLIT1 : MBLIT2;
    localparam HAVE = (k == 0) || (k == 1 && ENG1 != 0) || (k == 2 && ENG2 != 0);
    if (HAVE && VM != 0) begin : g_mmu
      reg        virt_q;
      reg [19:0] root_q;
      always @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin virt_q <= 1'b0; root_q <= 20'd0; end
        else if (e_acc_v[k]) begin virt_q <= e_virt_v[k]; root_q <= e_root_v[k*20 +: 20]; end
      end
      wire done, fault, prot, dead;
      wire [31:0] pa;
      sgpu_mmu #(.TLB_ENTRIES(TLB_ENTRIES), .AW(AW)) u_mmu (
        .clk_i(clk_i), .rst_ni(rst_ni), .root_i(root_q), .flush_i(e_acc_v[k]),
        .up_valid_i(e_valid[k]), .up_ready_o(e_ready[k]), .up_write_i(e_write[k]), .up_virt_i(virt_q),
        .up_probe_i(1'b0), .up_addr_i(e_addr[k*32 +: 32]), .up_wdata_i(e_wdata[k*32 +: 32]),
        .up_wstrb_i(e_wstrb[k*4 +: 4]), .up_rsp_valid_o(e_rsp[k]), .up_rsp_rdata_o(e_rdata[k*32 +: 32]),
        .dn_valid_o(a_valid[SLOT]), .dn_ready_i(a_ready[SLOT]), .dn_write_o(a_write[SLOT]),
        .dn_addr_o(a_addr[SLOT*32 +: 32]), .dn_wdata_o(a_wdata[SLOT*32 +: 32]), .dn_wstrb_o(a_wstrb[SLOT*4 +: 4]),
        .dn_rsp_valid_i(a_rsp[SLOT]), .dn_rsp_rdata_i(a_rdata),
        .done_o(done), .fault_o(fault), .fault_prot_o(prot), .pa_o(pa), .dead_o(dead));
      // Only the first refusal of a command counts (the ring stops then).
      assign e_fault_v[k] = fault && !dead;
      assign e_fprot_v[k] = prot; assign e_fwrite_v[k] = e_write[k];
      assign e_fva_v[k*32 +: 32] = e_addr[k*32 +: 32];
      wire unused_mmu = &{1'b0, done, pa};
    end else if (HAVE) begin : g_pass
      assign a_valid[SLOT] = e_valid[k]; assign e_ready[k] = a_ready[SLOT]; assign a_write[SLOT] = e_write[k];
      assign a_addr[SLOT*32 +: 32] = e_addr[k*32 +: 32]; assign a_wdata[SLOT*32 +: 32] = e_wdata[k*32 +: 32];
      assign a_wstrb[SLOT*4 +: 4] = e_wstrb[k*4 +: 4];
      assign e_rsp[k] = a_rsp[SLOT]; assign e_rdata[k*32 +: 32] = a_rdata;
      assign e_fault_v[k] = 1'b0; assign e_fprot_v[k] = 1'b0; assign e_fwrite_v[k] = 1'b0;
      assign e_fva_v[k*32 +: 32] = 32'd0;
      wire unused_eng = &{1'b0, e_acc_v[k], e_virt_v[k], e_root_v[k*20 +: 20]};
    end else begin : g_none
      assign e_ready[k] = 1'b0; assign e_rsp[k] = 1'b0; assign e_rdata[k*32 +: 32] = 32'd0;
      assign e_fault_v[k] = 1'b0; assign e_fprot_v[k] = 1'b0; assign e_fwrite_v[k] = 1'b0;
      assign e_fva_v[k*32 +: 32] = 32'd0;
      wire unused_eng = &{1'b0, e_acc_v[k], e_virt_v[k], e_root_v[k*20 +: 20], e_valid[k], e_write[k],
                          e_addr[k*32 +: 32], e_wdata[k*32 +: 32], e_wstrb[k*4 +: 4]};
    end
  end endgenerate

  // ------------------------------------------------------------ displays
  wire [SOURCES*RINGS-1:0] s_rdy;   // per source: which ring's flip it accepts
  generate
    for (g = 0; g < SOURCES; g = g + 1) begin : g_src
      // Flip mux per source: lowest requesting ring, held until accepted.
      reg  [RINGS-1:0] pick, sel_q;
      reg              lock_q;
      reg  [31:0]      addr;
      reg  [2:0]       intv;
      wire [RINGS-1:0] req = f_valid & ((g == 0) ? ~f_src : f_src);
      integer j;
      always @(*) begin
        pick = {RINGS{1'b0}};
        for (j = RINGS - 1; j >= 0; j = j - 1)
          if (req[j]) pick = {{(RINGS-1){1'b0}}, 1'b1} << j;
      end
      wire [RINGS-1:0] gnt = lock_q ? (sel_q & req) : pick;
      // The display samples the flip fields only when it accepts one.
      always @(*) begin
        if (RINGS == 1) begin
          addr = f_addr[31:0]; intv = f_int[2:0];
        end else begin
          addr = 32'd0; intv = 3'd0;
          for (j = 0; j < RINGS; j = j + 1) if (gnt[j]) begin
            addr = addr | f_addr[j*32 +: 32]; intv = intv | f_int[j*3 +: 3];
          end
        end
      end
      always @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin lock_q <= 1'b0; sel_q <= {RINGS{1'b0}}; end
        else begin
          lock_q <= (|gnt) && !s_flip_ready[g];
          if (!lock_q) sel_q <= pick;
        end
      end
      assign s_rdy[g*RINGS +: RINGS] = gnt & {RINGS{s_flip_ready[g]}};

      sgpu_display_2c #(.AW(AW), .PIX_CDC(PIX_CDC), .MIRROR(1), .CW(LINE_W)) u_disp (
        .clk_i(clk_i), .rst_ni(rst_ni), .pix_en_i(pix_en_i),
        .pix_clk_i(pix_clk_i), .pix_rst_ni(pix_rst_ni),
        .reg_we_i(reg_we && is_src && ssel == g), .reg_addr_i(roff[SLG-1:0]),
        .reg_wdata_i(reg_wdata), .reg_rdata_o(s_rdata[g*32 +: 32]),
        .reg_error_o(s_err[g]), .reg_kept_o(s_kept[g]),
        .flip_valid_i(|gnt), .flip_ready_o(s_flip_ready[g]),
        .flip_addr_i(addr), .flip_interval_i(intv),
        .flip_pending_o(s_pend[g]), .vblank_o(s_vblank[g]),
        .scanline_o(s_scan[g*16 +: 16]), .in_vblank_o(s_invbl[g]),
        .mem_req_valid_o(a_valid[g]), .mem_req_ready_i(a_ready[g]),
        .mem_req_addr_o(a_addr[g*32 +: 32]),
        .mem_rsp_valid_i(a_rsp[g]), .mem_rsp_rdata_i(a_rdata),
        .vid_r_o(vid_r_o[g*8 +: 8]), .vid_g_o(vid_g_o[g*8 +: 8]), .vid_b_o(vid_b_o[g*8 +: 8]),
        .vid_hsync_o(vid_hsync_o[g]), .vid_vsync_o(vid_vsync_o[g]), .vid_de_o(vid_de_o[g])
      );
      assign a_write[g] = 1'b0;
      assign a_wdata[g*32 +: 32] = 32'd0;
      assign a_wstrb[g*4 +: 4] = 4'd0;
    end
  endgenerate

  reg [RINGS-1:0] f_ready_r;
  always @(*) begin
    f_ready_r = {RINGS{1'b0}};
    for (i = 0; i < SOURCES; i = i + 1) f_ready_r = f_ready_r | s_rdy[i*RINGS +: RINGS];
  end
  assign f_ready = f_ready_r;

  // ------------------------------------------------------------ cycle counter
  // 64 bits as two chained 32-bit counters: on the iCE40 each is a DSP
  // block's accumulator (sgpu_dsp_counter), not 64 logic cells.
  wire cyc_lo_wrap, cyc_hi_wrap;   // the high word's wrap: after 2^64 cycles, unused
  sgpu_dsp_counter #(.W(32)) u_cyc_lo (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(1'b1), .ld_i(1'b0), .d_i(32'd0),
    .q_o(cycle_q[31:0]), .co_o(cyc_lo_wrap));
  sgpu_dsp_counter #(.W(32)) u_cyc_hi (
    .clk_i(clk_i), .rst_ni(rst_ni), .en_i(cyc_lo_wrap), .ld_i(1'b0), .d_i(32'd0),
    .q_o(cycle_q[63:32]), .co_o(cyc_hi_wrap));
  assign cycle_o = cycle_q[31:0];
`ifdef VERILATOR
`ifdef SGPU_SIM_GATE
  generate if (RINGS < 3 * NODES) begin : g_sim_no_ring
    assign sim_cp_awake_o[3*NODES-1:RINGS] = {(3*NODES-RINGS){1'b0}};
    wire unused_sim_clk = &{1'b0, sim_cp_clk_i[3*NODES-1:RINGS]};
  end endgenerate
`endif
`endif

  // ------------------------------------------------------------ register mirror
  // Registers that read back exactly the word the host wrote -- SCRATCH, each
  // node's RING_BASE, RING_SIZE, RPTR_ADDR, CONTROL and WATCHDOG, each
  // source's DISP_CONTROL and DISP_PITCH -- are answered from a block-RAM
  // copy of the accepted words, not through the blocks' read muxes (the
  // blocks flag such writes on reg_kept_o and read 0 for them); on the
  // iCE40 that is about a hundred logic cells less.  A slot not written
  // since reset reads the register's reset value (RING_SIZE_MIN for
  // RING_SIZE, 0 for the others).  CYCLE_HI, latched when CYCLE_LO is read,
  // sits in a block RAM of its own.  Both answer in the response cycle, like
  // the nodes' shadow registers.  A host request is a read or a write, so no
  // RAM is read and written in the same cycle (no_rw_check).
  wire [NLG-1:0] mreg_node_addr = roff[NLG-1:0];
  wire [SLG-1:0] mreg_src_addr  = roff[SLG-1:0];
`include "sgpu_regs_mirror.vh"
  localparam SELW = (RINGS > 1 || SOURCES > 1) ? $clog2((RINGS > SOURCES) ? RINGS : SOURCES) : 1;
  localparam MAW  = 2 + SELW + NLG - 2;          // region, block, word offset
  // slots: the global ones, then per node, then per source
  localparam NV   = {24'd0, MREG_GLOBAL_SLOTS} + MREG_NODE_SLOTS * RINGS + MREG_SRC_SLOTS * SOURCES;
  localparam [7:0] M_NODE0 = MREG_GLOBAL_SLOTS, M_NODE_N = MREG_NODE_SLOTS, M_SRC_N = MREG_SRC_SLOTS;
  localparam [7:0] M_SRC0 = M_NODE0 + M_NODE_N * RINGS32[7:0];
  reg         m_hit;        // roff is a mirrored register
  reg  [7:0]  m_slot;       // its index in m_valid_q
  reg         m_size;       // it reads MREG_DFLT_VALUE until written
  always @(*) begin
    m_hit = 1'b0; m_slot = 8'd0; m_size = 1'b0;
    if (is_node) begin
      m_hit = mreg_node_hit; m_size = mreg_node_dflt;
      m_slot = mreg_node_slot + M_NODE0 + M_NODE_N * {{(8-NBW){1'b0}}, nsel};
    end else if (is_src) begin
      m_hit = mreg_src_hit; m_size = mreg_src_dflt;
      m_slot = mreg_src_slot + M_SRC0 + M_SRC_N * {{(8-SBW){1'b0}}, ssel};
    end else begin
      m_hit = at_scratch;
    end
  end
  wire [1:0]      m_region = is_node ? 2'd1 : (is_src ? 2'd2 : 2'd0);
  wire [SELW-1:0] m_blk    = is_node ? nsel[SELW-1:0] : ssel[SELW-1:0];
  wire [NLG-3:0]  m_word   = is_node ? roff[NLG-1:2] : {{(NLG-SLG){1'b0}}, roff[SLG-1:2]};
  wire [MAW-1:0]  m_addr   = {m_region, m_blk, m_word};
  wire            m_we     = (reg_we && at_scratch) || (|n_kept) || (|s_kept);
  reg  [NV-1:0]   m_valid_q;
  wire [NV-1:0]   m_1h = {{(NV-1){1'b0}}, m_hit} << m_slot;   // the slot, if mirrored
  wire            m_ok = |(m_valid_q & m_1h);                  // ... and written since reset
  reg             m_sel_q, m_dflt_q, cyc_sel_q, cyc_ok_q;
  reg  [31:0]     m_rdata_q, cyc_rdata_q;
  (* ram_style = "block", no_rw_check *) reg [31:0] mirror_mem [0:(1 << MAW) - 1];
  (* ram_style = "block", no_rw_check *) reg [31:0] cyc_hi_mem [0:1];
  wire            cyc_word = !(at_cycle_lo || at_cycle_hi);
  always @(posedge clk_i) begin
    if (m_we) mirror_mem[m_addr] <= reg_wdata;
    m_rdata_q <= mirror_mem[m_addr];
    // word 0 at CYCLE_LO and CYCLE_HI: an address that is not a constant
    // keeps yosys from turning the RAM into flip-flops
    if (reg_re && at_cycle_lo) cyc_hi_mem[cyc_word] <= cycle_q[63:32];
    cyc_rdata_q <= cyc_hi_mem[cyc_word];
  end
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_valid_q <= {NV{1'b0}}; m_sel_q <= 1'b0; m_dflt_q <= 1'b0; cyc_sel_q <= 1'b0; cyc_ok_q <= 1'b0;
    end else begin
      if (m_we) m_valid_q <= m_valid_q | m_1h;
      m_sel_q   <= reg_re && m_ok;
      m_dflt_q  <= reg_re && m_hit && !m_ok && m_size;
      // CYCLE_HI before any CYCLE_LO read: 0, as after reset
      if (reg_re && at_cycle_lo) cyc_ok_q <= 1'b1;
      cyc_sel_q <= reg_re && at_cycle_hi && cyc_ok_q;
    end
  end
  wire [31:0] mirror_rdata = ({32{m_sel_q}} & m_rdata_q) | ({32{cyc_sel_q}} & cyc_rdata_q) |
                             (m_dflt_q ? MREG_DFLT_VALUE : 32'd0);

  // ------------------------------------------------------------ global registers
  // node / source read data: only the existing blocks are muxed
  reg [31:0] n_rd, s_rd;
  always @(*) begin
    n_rd = n_rdata[31:0];
    for (i = 1; i < RINGS; i = i + 1) if ({27'd0, nsel} == i) n_rd = n_rdata[i*32 +: 32];
    s_rd = s_rdata[31:0];
    for (i = 1; i < SOURCES; i = i + 1) if ({26'd0, ssel} == i) s_rd = s_rdata[i*32 +: 32];
  end

  // The global block: offsets, decode and read mux generated
  // (sgpu_regs_global.vh); the values read:
  wire [OW-1:0] greg_addr   = roff;
  wire          greg_mirror = 1'b1;          // SCRATCH: the register mirror answers it
  wire [31:0] greg_v_id = `SGPU_REG_ID_RESET, greg_v_version = `SGPU_REG_VERSION_RESET;
  wire [31:0] greg_v_caps = CAPS, greg_v_mem_size = MEM32;
  wire [31:0] greg_v_int_status = int_status_q, greg_v_int_enable = int_enable_q;
  wire [31:0] greg_v_cfg_error = {{(32-CEW){1'b0}}, cfg_error_q};
  wire [31:0] greg_v_cfg_error_addr = {{(32-`SGPU_REG_CFG_ERROR_ADDR_W){1'b0}}, cfg_error_addr_q};
  wire [31:0] greg_v_cycle_lo = cycle_q[31:0];
  wire [31:0] greg_v_cycle_hi = 32'd0;       // from its own block RAM (above)
  wire [31:0] greg_v_seg1_base = `SGPU_REG_SEG1_BASE_RESET, greg_v_seg1_size = HALF;
  wire [31:0] greg_v_seg2_base = HALF, greg_v_seg2_size = MEM32 - HALF;
  wire [31:0] greg_v_scratch = 32'd0;
`include "sgpu_regs_global.vh"
  wire at_int_status = greg_r_int_status;
  wire at_int_enable = greg_r_int_enable;
  wire at_cfg_error  = greg_r_cfg_error;
  wire at_cycle_lo   = greg_r_cycle_lo;
  wire at_scratch    = greg_r_scratch;
  wire at_cycle_hi   = greg_r_cycle_hi;

  // Kept only in a read's cycle (reg_re): a don't-care otherwise, which
  // the simulator then skips.
  reg [31:0] g_rdata;
  always @(*) begin
    g_rdata = 32'hxxxx_xxxx;
    if (!reg_re) ;
    else if (is_node) g_rdata = n_rd;
    else if (is_src)  g_rdata = s_rd;
    else              g_rdata = greg_rdata;
  end
  // a write to a read-only or unmapped global offset
  wire g_err = reg_we && !is_node && !is_src && !greg_writable;

  reg [CEW-1:0] cfg_set;
  always @(*) begin
    cfg_set = {CEW{1'b0}};
    for (i = 0; i < RINGS; i = i + 1) if (n_cfg_err[i]) cfg_set = cfg_set | n_cfg_bits[i*CEW +: CEW];
    if (g_err) cfg_set[`SGPU_CFG_ERROR_UNKNOWN_BITS] = 1'b1;
    // The display reports a rejected write only as a strobe: a bad value.
    if (|s_err) cfg_set[`SGPU_CFG_ERROR_VALUE_RANGE] = 1'b1;
  end
  wire cfg_now = g_err || (|n_cfg_err) || (|s_err);

  reg [31:0] int_set;
  // constant: interrupt bits that exist in this build
  wire [31:0] INT_MASK;
  genvar b;
  generate
    for (b = 0; b < 32; b = b + 1) begin : g_int_mask
      assign INT_MASK[b] =
        (b >= `SGPU_INT_DMA_COMPLETED_BASE && b < `SGPU_INT_DMA_COMPLETED_BASE + RINGS) ||
        (b >= `SGPU_INT_DMA_FAULTED_BASE && b < `SGPU_INT_DMA_FAULTED_BASE + RINGS) ||
        (PREEMPTION != 0 && b >= `SGPU_INT_DMA_PREEMPTED_BASE && b < `SGPU_INT_DMA_PREEMPTED_BASE + RINGS) ||
        (b >= `SGPU_INT_CRTC_VSYNC_BASE && b < `SGPU_INT_CRTC_VSYNC_BASE + SOURCES) ||
        (b == `SGPU_INT_CFG_ERROR_BASE);
    end
  endgenerate
  always @(*) begin
    int_set = 32'd0;
    for (i = 0; i < RINGS; i = i + 1) begin
      int_set[`SGPU_INT_DMA_COMPLETED_BASE + i] = n_done[i];
      int_set[`SGPU_INT_DMA_FAULTED_BASE + i]   = n_fault[i];
      int_set[`SGPU_INT_DMA_PREEMPTED_BASE + i] = n_preempt[i];
    end
    for (i = 0; i < SOURCES; i = i + 1)
      int_set[`SGPU_INT_CRTC_VSYNC_BASE + i] = s_vblank[i];
    int_set[`SGPU_INT_CFG_ERROR_BASE] = (cfg_set != {CEW{1'b0}});
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_pend_q <= 1'b0; reg_rsp_q <= 1'b0; reg_rdata_q <= 32'd0;
      int_status_q <= 32'd0; int_enable_q <= 32'd0;
      cfg_error_q <= {CEW{1'b0}}; cfg_error_addr_q <= {`SGPU_REG_CFG_ERROR_ADDR_W{1'b0}};
    end else begin
      reg_rsp_q <= reg_re;
      if (reg_re) reg_rdata_q <= g_rdata;
      if (reg_re_now || mem_rd_fire) rd_pend_q <= 1'b1;
      else if (host_rsp_valid_o) rd_pend_q <= 1'b0;

      // Only bits of existing nodes/sources are kept (the others read 0).
      if (reg_we && at_int_enable) int_enable_q <= reg_wdata & INT_MASK;
      int_status_q <= ((int_status_q & ~((reg_we && at_int_status) ? reg_wdata : 32'd0))
                      | int_set) & INT_MASK;
      cfg_error_q <= (cfg_error_q & ~((reg_we && at_cfg_error) ? reg_wdata[CEW-1:0] : {CEW{1'b0}}))
                     | cfg_set;
      if (cfg_now) cfg_error_addr_q <= roff;
    end
  end

  assign irq_o   = |(int_status_q & int_enable_q);
  assign busy_o  = |n_busy;
  assign fault_o = |n_faulted;

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = &{1'b0, e_ready, e_rsp, e_rdata, cyc_hi_wrap, n_quantum, blit_chunk, n_runnable, n_quiet, blit1_busy, blit1_cut, blit1_cut_part,
                     blit1_fire, b1_own, blit1_cut_first, blit1_cut_count, blit1_cut_prow, blit1_cut_lo,
                     blit1_cut_hi, blit2_busy, blit2_cut, blit2_cut_part, blit2_fire, blit2_chunk, b2_own,
                     blit2_cut_first, blit2_cut_count, blit2_cut_prow, blit2_cut_lo, blit2_cut_hi,
                     host_req_addr_i[30:OW], ssel[SBW-1:1], nsel[NBW-1:1],
                     NODE_BASE[NLG-1:0], SRC_BASE[SLG-1:0]};
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
