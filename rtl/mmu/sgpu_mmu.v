// MMU of one memory master port (GPU virtual memory, CAPS.VM): a small
// fully associative TLB in front of the port and a hardware walk of the two
// levels of page tables (docs/vm.md).
//
// Requests carry a `virt` sideband: physical ones pass straight through;
// virtual ones are translated by a TLB hit combinationally (no added cycle,
// so a hitting stream keeps its rate).  A miss stalls the port, waits until
// the port's outstanding reads have returned (so responses stay in order
// and the walk's own responses are told apart), reads the directory entry
// then the table entry on the downstream port, fills an entry (round-robin)
// when the table entry is valid, and looks the request up again.
//
// A `probe` request (a page check) is translated and checked only: it is
// accepted with the verdict (done_o, fault_o, pa_o) and never reaches memory.
//
// Faults: a write to a read-only page, or a walk that finds an invalid
// entry, accepts the request without sending it (a read gets a dummy
// response, 0, so the master's count of reads in flight stays right) and
// pulses fault_o.  From then on (dead_o) every virtual request is swallowed
// that way until flush_i: an untranslated or forbidden access never reaches
// memory, and a master that must hold its request until accepted never
// hangs.  flush_i forgets every entry; a walk under way finishes its reads
// (their responses must be taken) but fills nothing.
//
// The TLB holds only valid translations: a page mapped later is found by the
// next walk; one unmapped needs a flush.  The last valid directory entry is
// kept too (flushed with the TLB), so a walk in the same 4 MiB reads only
// the table entry: a page check of a large rectangle walks every page.
`include "sgpu_hw.vh"
module sgpu_mmu #(
  parameter TLB_ENTRIES = 4,   // >= 2
  parameter AW          = 23,  // physical address bits (memory is 2^AW bytes), 13..32
  parameter CW          = 6,   // bits of the count of reads in flight on the port
  // 1: a virtual request's verdict (ready, fault, translation) comes from
  // flip-flops, a cycle after the request is presented: the TLB compare is
  // then on no path from the master's address into its own next state (the
  // ECP5's writer port, sgpu_cp REG_STAGE; it costs a cycle per virtual
  // write, poll and page check).  It relies on valid/ready: a request still
  // presented is the one looked up the cycle before.
  parameter REG_LOOKUP  = 0
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire [31:12] root_i,    // page directory of the context (stable while virtual requests run)
  input  wire        flush_i,    // forget every translation, leave the fault state
  // upstream (the master)
  input  wire        up_valid_i,
  output reg         up_ready_o,
  input  wire        up_write_i,
  input  wire        up_virt_i,  // translate this request
  input  wire        up_probe_i, // page check only (with up_virt_i): no memory access
  input  wire [31:0] up_addr_i,
  input  wire [31:0] up_wdata_i,
  input  wire [3:0]  up_wstrb_i,
  output wire        up_rsp_valid_o,
  output wire [31:0] up_rsp_rdata_o,
  // downstream (the arbiter)
  output reg         dn_valid_o,
  input  wire        dn_ready_i,
  output reg         dn_write_o,
  output reg  [31:0] dn_addr_o,
  output wire [31:0] dn_wdata_o,
  output wire [3:0]  dn_wstrb_o,
  input  wire        dn_rsp_valid_i,
  input  wire [31:0] dn_rsp_rdata_i,
  // verdicts, with the accepting cycle of a virtual request
  output wire        done_o,     // a virtual request was accepted (probe: its verdict is below)
  output wire        fault_o,    // ... and faults: not sent
  output wire        fault_prot_o, // ... PAGE_PROTECTION (else PAGE_NOT_PRESENT)
  output wire [31:0] pa_o,       // the translation of up_addr_i (a hit)
  output wire        dead_o      // a fault since the last flush: virtual requests are swallowed
);
  generate if (!(TLB_ENTRIES >= 2 && AW >= 13 && AW <= 32)) begin : g_bad_params
    sgpu_precondition_failed_TLB_ENTRIES_at_least_2_and_AW_13_to_32 u_fail ();
  end endgenerate
  localparam N  = TLB_ENTRIES;
  localparam NW = (N > 1) ? $clog2(N) : 1;
  localparam [31:0] MASK = (AW >= 32) ? 32'hFFFF_FFFF : ((32'd1 << AW) - 32'd1);

  localparam [2:0] S_IDLE = 3'd0, S_DRAIN = 3'd1, S_PDE = 3'd2, S_PDE_RSP = 3'd3,
                   S_PTE = 3'd4, S_PTE_RSP = 3'd5, S_FAIL = 3'd6;
  reg [2:0] st_q;

  // ---------------------------------------------------------------- TLB
  reg [N-1:0]  tv_q;               // entry valid
  reg [N-1:0]  tw_q;               // entry writable
  reg [N*20-1:0] tvpn_q;           // entry i: bits [20*i +: 20], the virtual page
  reg [N*20-1:0] tppn_q;           // ... its physical page
  reg [NW-1:0] rr_q;               // next entry to replace

  wire [31:12] vpn = up_addr_i[31:12];
  reg          hit, hit_w;
  reg  [31:12] hit_ppn;
  integer i;
  always @(*) begin
    hit = 1'b0; hit_w = 1'b0; hit_ppn = 20'd0;
    for (i = 0; i < N; i = i + 1)
      if (tv_q[i] && tvpn_q[20*i +: 20] == vpn) begin
        hit = 1'b1; hit_w = hit_w | tw_q[i]; hit_ppn = hit_ppn | tppn_q[20*i +: 20];
      end
  end
  wire [31:0] pa_now = {hit_ppn, up_addr_i[11:0]} & MASK;

  // REG_LOOKUP: the lookup of the request presented in the last cycle, in
  // S_IDLE, not taken then and not flushed since (lk_q).
  wire         lk_q, lk_hit_q, lk_w_q;
  wire [31:12] lk_ppn_q;
  wire         lk_use = (REG_LOOKUP != 0);
  wire         hit_v  = lk_use ? (lk_q && lk_hit_q) : hit;   // the verdict's hit ...
  wire         hit_wv = lk_use ? lk_w_q : hit_w;              // ... writable ...
  wire [31:0]  pa     = lk_use ? ({lk_ppn_q, up_addr_i[11:0]} & MASK) : pa_now;   // ... translation

  // ---------------------------------------------------------------- reads in flight
  reg  [CW-1:0] infl_q;            // downstream reads not yet answered (data and walk)
  reg           dummy_q;           // a swallowed read's response is due
  reg           dead_q, flushed_q; // fault state; flush seen during the walk
  reg  [31:12]  wvpn_q;            // the page being walked
  reg  [31:12]  wtab_q;            // the directory entry's table
  reg           pv_q;              // the last valid directory entry: ...
  reg  [31:22]  pidx_q;            // ... its index ...
  reg  [31:12]  ptab_q;            // ... and its table
  wire          walk_rsp = (st_q == S_PDE_RSP) || (st_q == S_PTE_RSP);
  wire          quiet    = (infl_q == {CW{1'b0}}) && !dummy_q;   // no response to come

  // ---------------------------------------------------------------- request path
  wire v     = up_valid_i && up_virt_i;
  wire perm  = !up_write_i || hit_wv;
  // Accepting a virtual request without sending it: a read needs the port
  // quiet so its dummy response comes in order.
  wire swallow_ok = up_write_i || up_probe_i || (infl_q == {CW{1'b0}} && !dummy_q);
  reg  acc_fault, acc_ok;          // a virtual request accepted: faulting / with its verdict
  always @(*) begin
    up_ready_o = 1'b0;
    dn_valid_o = 1'b0;
    dn_write_o = up_write_i;
    dn_addr_o  = up_addr_i;
    acc_fault  = 1'b0;
    acc_ok     = 1'b0;
    case (st_q)
      S_IDLE:
        if (!up_valid_i) ;
        else if (!up_virt_i) begin
          dn_valid_o = 1'b1; up_ready_o = dn_ready_i;
        end else if (dead_q || (hit_v && !perm)) begin
          up_ready_o = swallow_ok; acc_fault = swallow_ok;
        end else if (hit_v) begin
          dn_addr_o = pa;
          if (up_probe_i) begin up_ready_o = 1'b1; acc_ok = 1'b1; end
          else begin dn_valid_o = 1'b1; up_ready_o = dn_ready_i; acc_ok = dn_ready_i; end
        end
      S_PDE: begin
        dn_valid_o = 1'b1; dn_write_o = 1'b0;
        dn_addr_o  = {root_i, wvpn_q[31:22], 2'b00} & MASK;
      end
      S_PTE: begin
        dn_valid_o = 1'b1; dn_write_o = 1'b0;
        dn_addr_o  = {wtab_q, wvpn_q[21:12], 2'b00} & MASK;
      end
      S_FAIL:
        // the walked request, if still presented (else it was withdrawn)
        if (v && vpn == wvpn_q) begin up_ready_o = swallow_ok; acc_fault = swallow_ok; end
      default: ;
    endcase
  end
  assign dn_wdata_o = up_wdata_i;
  assign dn_wstrb_o = up_wstrb_i;

  wire dn_rd_acc = dn_valid_o && dn_ready_i && !dn_write_o;

  generate if (REG_LOOKUP != 0) begin : g_lookup
    reg         q, hit_q, w_q;
    reg [31:12] ppn_q;
    always @(posedge clk_i or negedge rst_ni)
      if (!rst_ni) begin
        q <= 1'b0; hit_q <= 1'b0; w_q <= 1'b0; ppn_q <= 20'd0;
      end else begin
        // a fill leaves S_IDLE, a flush forgets: either way look up again
        q     <= v && st_q == S_IDLE && !up_ready_o && !flush_i;
        hit_q <= hit; w_q <= hit_w; ppn_q <= hit_ppn;
      end
    assign lk_q = q; assign lk_hit_q = hit_q; assign lk_w_q = w_q; assign lk_ppn_q = ppn_q;
  end else begin : g_no_lookup
    assign lk_q = 1'b0; assign lk_hit_q = 1'b0; assign lk_w_q = 1'b0; assign lk_ppn_q = 20'd0;
  end endgenerate
  integer j;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= S_IDLE; tv_q <= {N{1'b0}}; tw_q <= {N{1'b0}}; rr_q <= {NW{1'b0}};
      infl_q <= {CW{1'b0}}; dummy_q <= 1'b0; dead_q <= 1'b0; flushed_q <= 1'b0;
      wvpn_q <= 20'd0; wtab_q <= 20'd0; pv_q <= 1'b0; pidx_q <= 10'd0; ptab_q <= 20'd0;
      tvpn_q <= {(N*20){1'b0}}; tppn_q <= {(N*20){1'b0}};
    end else begin
      infl_q  <= infl_q + {{(CW-1){1'b0}}, dn_rd_acc} - {{(CW-1){1'b0}}, dn_rsp_valid_i};
      dummy_q <= acc_fault && !up_write_i && !up_probe_i;
      // A probe's fault is a page check's verdict: the port goes on.
      if (acc_fault && !up_probe_i) dead_q <= 1'b1;
      case (st_q)
        // A miss: once no read is in flight, read the directory entry, or
        // straight the table entry under the directory entry kept.
        S_IDLE: if (v && !dead_q && !hit) begin
          wvpn_q <= vpn; flushed_q <= 1'b0; wtab_q <= ptab_q;
          st_q <= !quiet ? S_DRAIN : (pv_q && pidx_q == vpn[31:22]) ? S_PTE : S_PDE;
        end
        S_DRAIN: if (quiet) st_q <= (pv_q && pidx_q == wvpn_q[31:22]) ? S_PTE : S_PDE;
        S_PDE: if (dn_ready_i) st_q <= S_PDE_RSP;
        S_PDE_RSP: if (dn_rsp_valid_i) begin
          wtab_q <= dn_rsp_rdata_i[31:12];
          st_q <= !dn_rsp_rdata_i[`SGPU_PDE_VALID_LSB] ? (flushed_q || flush_i ? S_IDLE : S_FAIL) : S_PTE;
          if (dn_rsp_rdata_i[`SGPU_PDE_VALID_LSB] && !flushed_q && !flush_i) begin
            pv_q <= 1'b1; pidx_q <= wvpn_q[31:22]; ptab_q <= dn_rsp_rdata_i[31:12];
          end
        end
        S_PTE: if (dn_ready_i) st_q <= S_PTE_RSP;
        S_PTE_RSP: if (dn_rsp_valid_i) begin
          if (!dn_rsp_rdata_i[`SGPU_PTE_VALID_LSB]) st_q <= (flushed_q || flush_i) ? S_IDLE : S_FAIL;
          else begin
            st_q <= S_IDLE;
            if (!flushed_q && !flush_i) begin
              // Each entry loads on its own enable (rr_q decoded): the
              // indexed part-select tvpn_q[20*rr_q +: 20] synthesized to a
              // multiplier and shifters, 848 LUT4 and a DSP per MMU on the
              // ECP5 against about 300 this way.
              for (j = 0; j < N; j = j + 1)
                if (rr_q == j[NW-1:0]) begin
                  tv_q[j] <= 1'b1;
                  tw_q[j] <= dn_rsp_rdata_i[`SGPU_PTE_WRITABLE_LSB];
                  tvpn_q[20*j +: 20] <= wvpn_q;
                  tppn_q[20*j +: 20] <= dn_rsp_rdata_i[31:12];
                end
              rr_q <= (rr_q == N[NW-1:0] - 1'b1) ? {NW{1'b0}} : rr_q + 1'b1;
            end
          end
        end
        S_FAIL: st_q <= S_IDLE;   // one cycle to take the walked request
        default: st_q <= S_IDLE;
      endcase
      if (flush_i) begin
        tv_q <= {N{1'b0}}; pv_q <= 1'b0; dead_q <= 1'b0; flushed_q <= 1'b1;
        if (st_q == S_FAIL) st_q <= S_IDLE;
      end
    end
  end

  assign up_rsp_valid_o = (dn_rsp_valid_i && !walk_rsp) || dummy_q;
  assign up_rsp_rdata_o = dummy_q ? 32'd0 : dn_rsp_rdata_i;
  assign done_o       = acc_fault || acc_ok;
  assign fault_o      = acc_fault;
  assign fault_prot_o = acc_fault && !dead_q && st_q == S_IDLE;   // a hit refused for its write
  assign pa_o         = pa;
  assign dead_o       = dead_q;

`ifdef FORMAL
  // A swallowed read's response never meets a memory response, and every
  // response answers a read in flight.
  always @(*) if (rst_ni) begin
    if (dummy_q) assert(!dn_rsp_valid_i);
    if (dn_rsp_valid_i) assert(infl_q != {CW{1'b0}});
    // a walk's read is presented until accepted (its state changes only then)
    if (st_q == S_PDE || st_q == S_PTE) assert(dn_valid_o && !dn_write_o);
    // a virtual request reaches memory only translated, by a hit that allows it
    if (st_q == S_IDLE && dn_valid_o && up_virt_i)
      assert(hit_v && perm && !dead_q && !up_probe_i && dn_addr_o == pa);
    if (st_q != S_IDLE && st_q != S_PDE && st_q != S_PTE) assert(!dn_valid_o);
    // a registered lookup is that of the page still presented
    if (lk_q && v && st_q == S_IDLE) assert(lk_hit_q == hit && (!hit || lk_ppn_q == hit_ppn));
  end
`endif
endmodule
