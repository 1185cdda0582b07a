// Memory arbiter: M masters onto one memory port.  Masters [0, PRIO) win by
// fixed priority (display scanout), the rest share round-robin.  The grant
// is combinational (no added latency), or with REG_GRANT = 1 registered: the
// master granted for a cycle is chosen from the requests of the cycle before,
// and a master's ready depends on no request, another master's or its own
// (on the ECP5 those paths ran from a command processor through the arbiter
// into the fault logic of another, or back into its own MMU).  A master alone keeps its grant every cycle, masters
// that all keep requesting take turns cycle by cycle (the mask moves past
// the master firing now), and a grant whose master has stopped requesting
// costs one cycle.  Read responses come back in order, so an in-order FIFO
// of master ids routes them; reads stall when it is full.
// Only the address bits [AW-1:2] are routed (memory is 2^AW bytes; higher
// bits wrap; requests are word aligned), which keeps the request mux small.
`include "sgpu_hw.vh"
module sgpu_mem_arb #(
  parameter M    = 4,
  parameter PRIO = 1,
  parameter IDQ  = 8,
  parameter AW   = 32,
  parameter REG_GRANT = 0,
  // Masters that write (bit i: master i may raise req_write).  Write data
  // and strobes are muxed among these only: for a read they are unused.
  parameter [M-1:0] WRITERS = {M{1'b1}}
) (
  input  wire            clk_i,
  input  wire            rst_ni,
  input  wire [M-1:0]    req_valid_i,
  output wire [M-1:0]    req_ready_o,
  input  wire [M-1:0]    req_write_i,
  input  wire [M*32-1:0] req_addr_i,
  input  wire [M*32-1:0] req_wdata_i,
  input  wire [M*4-1:0]  req_wstrb_i,
  output wire [M-1:0]    rsp_valid_o,
  output wire [31:0]     rsp_rdata_o,
  output wire            mem_req_valid_o,
  input  wire            mem_req_ready_i,
  output wire            mem_req_write_o,
  output reg  [31:0]     mem_req_addr_o,
  output reg  [31:0]     mem_req_wdata_o,
  output reg  [3:0]      mem_req_wstrb_o,
  input  wire            mem_rsp_valid_i,
  input  wire [31:0]     mem_rsp_rdata_i
);
  localparam IW = (M > 1) ? $clog2(M) : 1;

  wire          idq_ready;
  wire          idq_valid;
  wire [IW-1:0] idq_head;
  wire [M-1:0]  elig = req_valid_i & (req_write_i | {M{idq_ready}});

  // Round-robin state: rr_q[i] is set for the masters after the last
  // round-robin winner (a thermometer mask), which are asked first.
  reg [M-1:0]  rr_q;
  reg [M-1:0]  gnt, cand, rr_d;
  reg [IW-1:0] gid;
  reg          seen;
  integer i;

  wire [M-1:0] prio_m;   // constant: the fixed-priority masters
  genvar g;
  generate for (g = 0; g < M; g = g + 1) begin : g_prio
    assign prio_m[g] = (g < PRIO);
  end endgenerate
  wire [M-1:0] elig_p = elig & prio_m;
  wire [M-1:0] elig_r = elig & ~prio_m;
  wire [M-1:0] rr_now;           // the mask in force (below)
  wire [M-1:0] elig_h = elig_r & rr_now;
  wire         found  = |elig;

  always @(*) begin
    cand = (|elig_p) ? elig_p : ((|elig_h) ? elig_h : elig_r);
    // lowest candidate wins
    gnt  = {M{1'b0}};
    seen = 1'b0;
    for (i = 0; i < M; i = i + 1) begin
      gnt[i] = cand[i] & ~seen;
      seen   = seen | cand[i];
    end
    // mask after the winner
    rr_d = {M{1'b0}};
    seen = 1'b0;
    for (i = 0; i < M; i = i + 1) begin
      rr_d[i] = seen;
      seen    = seen | gnt[i];
    end
  end

  // Only the word-address bits [AW-1:2] are routed (the port's [1:0] are 0).
  // The address is picked by the winner's index: a binary mux is smaller
  // than an AND-OR over the one-hot grant.  With no winner master 0's
  // request shows (mem_req_valid_o is low then).  Write data and strobes
  // come from the granted writer, else from the lowest writer: a chain of
  // 2:1 muxes over the writers alone (three on the iCEBreaker: two LUTs a
  // bit, where the 6-way mux by index took about four).
  reg wfirst;
  // The grant in force: this cycle's (combinational), or the one chosen
  // last cycle (REG_GRANT), which holds only while its master still asks.
  reg  [M-1:0]  gnt_q;
  reg  [IW-1:0] gid_q;
  wire [M-1:0]  gnt_use = (REG_GRANT != 0) ? (gnt_q & req_valid_i & {M{idq_ready}}) : gnt;
  // The master whose write bit, data and strobes the port shows: with the
  // registered grant, the granted one whether it requests or not (the port's
  // valid says whether they count), so they depend on no master's request.
  wire [M-1:0]  gnt_pick = (REG_GRANT != 0) ? gnt_q : gnt;
  reg  [IW-1:0] gid_use;
  always @(*) begin
    gid = {IW{1'b0}};
    for (i = 0; i < M; i = i + 1) if (gnt[i]) gid = gid | i[IW-1:0];
    gid_use = (REG_GRANT != 0) ? gid_q : gid;
    mem_req_addr_o  = 32'd0;
    mem_req_addr_o[AW-1:2] = req_addr_i[gid_use*32+2 +: AW-2];
    mem_req_wdata_o = 32'd0;
    mem_req_wstrb_o = 4'd0;
    wfirst = 1'b1;
    for (i = 0; i < M; i = i + 1)
      if (WRITERS[i]) begin
        if (wfirst || gnt_pick[i]) begin
          mem_req_wdata_o = req_wdata_i[i*32 +: 32];
          mem_req_wstrb_o = req_wstrb_i[i*4 +: 4];
        end
        wfirst = 1'b0;
      end
  end

  wire   req_any         = (REG_GRANT != 0) ? |gnt_use : found;
  assign mem_req_valid_o = req_any;
  assign mem_req_write_o = |(gnt_pick & req_write_i);
  // Registered grant: a master's ready is its grant, the read-id FIFO's room
  // and the port's ready, all registered, never its own request (a master's
  // request then has no path through the arbiter back into itself).  A
  // write waits for room in the FIFO too, so that the port fires exactly
  // when the granted master does.
  assign req_ready_o     = (REG_GRANT != 0) ? (gnt_q & {M{idq_ready && mem_req_ready_i}})
                                            : (gnt_use & {M{mem_req_ready_i}});

  wire fire    = req_any & mem_req_ready_i;
  wire rd_fire = fire & ~mem_req_write_o;

  // The round-robin mask moves past each round-robin winner.  Combinational
  // grant: the winner is this cycle's choice.  Registered: the master that
  // fires now is the winner, and the next grant is chosen from the requests
  // of this cycle with the mask already past it.
  reg [M-1:0] rr_fired;
  reg         past_fired;
  integer     f;
  always @(*) begin
    rr_fired   = {M{1'b0}};
    past_fired = 1'b0;
    for (f = 0; f < M; f = f + 1) begin
      rr_fired[f] = past_fired;
      past_fired  = past_fired | gnt_q[f];
    end
  end
  wire rr_move = (REG_GRANT != 0) ? (fire && !(|(gnt_q & prio_m))) : (fire && !(|elig_p));
  assign rr_now = (REG_GRANT != 0 && rr_move) ? rr_fired : rr_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rr_q  <= {M{1'b0}};
      gnt_q <= {M{1'b0}};
      gid_q <= {IW{1'b0}};
    end else begin
      if (rr_move) rr_q <= (REG_GRANT != 0) ? rr_fired : rr_d;
      gnt_q <= gnt;
      gid_q <= gid;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire [$clog2(IDQ):0] idq_count;
  /* verilator lint_on UNUSEDSIGNAL */
  sgpu_fifo #(.WIDTH(IW), .DEPTH(IDQ)) u_idq (
    .clk_i(clk_i), .rst_ni(rst_ni), .clr_i(1'b0),
    .in_valid_i(rd_fire), .in_ready_o(idq_ready), .in_data_i(gid_use),
    .out_valid_o(idq_valid), .out_ready_i(mem_rsp_valid_i), .out_data_o(idq_head),
    .count_o(idq_count)
  );

  assign rsp_valid_o = (mem_rsp_valid_i & idq_valid) ? ({{(M-1){1'b0}}, 1'b1} << idq_head) : {M{1'b0}};
  assign rsp_rdata_o = mem_rsp_rdata_i;

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = &{1'b0, req_addr_i};   // only [AW-1:2] of each address is routed
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
