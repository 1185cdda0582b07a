// Harness for sgpu_mem_arb: M masters with free requests that keep the
// valid/ready rules (assumed: checked on each master by its own harness);
// a memory that answers every read once, in order.  Checked:
//  - at most one master is told ready, only a valid one, and only when the
//    memory takes a request; the memory port carries that master's request;
//  - every read response goes to the master that issued the read (one read,
//    picked at a free moment, tracked through the reads ahead of it);
//  - no more than IDQ reads outstanding;
//  - valid/ready on the memory port: while the memory stalls a request the
//    arbiter keeps presenting it (the winner's grant is held) -- except
//    that a request arriving meanwhile (a master's valid rising, or a read
//    made eligible by a response freeing the read-id queue) may win over it
//    when it comes first by priority / round-robin order.  The arbiter has
//    no grant lock: the memory port is not stable under back-pressure.
//    (the memories in use sample a request only when they accept it);
//  - the display (master 0, fixed priority) is served in every cycle it
//    requests unless the read-id queue is full (a read), and, when the
//    memory stalls at most STALL cycles in a row and answers a read within
//    LAT cycles, it never waits more than WAIT_MAX cycles.
module formal_mem_arb #(
  parameter integer M        = 4,
  parameter integer PRIO     = 1,
  parameter integer IDQ      = 2,
  parameter integer AW       = 6,
  parameter integer STALL    = 2,
  parameter integer LAT      = 3,
  parameter integer WAIT_MAX = 5
) (
  input wire          clk_i,
  input wire          rst_ni,
  input wire [M-1:0]  req_valid_i,
  input wire [M-1:0]  req_write_i,
  input wire [M*AW-1:0] req_addr_i,     // byte address bits [AW-1:0] (the rest are 0)
  input wire [M-1:0]  req_wdata_i,      // one data bit: the mux is checked per master
  input wire [M*4-1:0] req_wstrb_i,
  input wire          mem_req_ready_i,
  input wire          mem_rsp_valid_i
);
  localparam integer IW = (M > 1) ? $clog2(M) : 1;
  localparam integer QW = $clog2(IDQ) + 1;

  reg [M*32-1:0] addr32, wdata32;
  integer i;
  always @(*) begin
    addr32 = {(M*32){1'b0}};
    wdata32 = {(M*32){1'b0}};
    for (i = 0; i < M; i = i + 1) begin
      addr32[i*32 +: AW] = {req_addr_i[i*AW+2 +: AW-2], 2'b00};
      wdata32[i*32]      = req_wdata_i[i];
    end
  end

  wire [M-1:0]  req_ready, rsp_valid;
  wire [31:0]   rsp_rdata, m_addr, m_wdata;
  wire [3:0]    m_wstrb;
  wire          m_valid, m_write;

  sgpu_mem_arb #(.M(M), .PRIO(PRIO), .IDQ(IDQ), .AW(AW)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .req_valid_i(req_valid_i), .req_ready_o(req_ready),
    .req_write_i(req_write_i), .req_addr_i(addr32), .req_wdata_i(wdata32),
    .req_wstrb_i(req_wstrb_i), .rsp_valid_o(rsp_valid), .rsp_rdata_o(rsp_rdata),
    .mem_req_valid_o(m_valid), .mem_req_ready_i(mem_req_ready_i), .mem_req_write_o(m_write),
    .mem_req_addr_o(m_addr), .mem_req_wdata_o(m_wdata), .mem_req_wstrb_o(m_wstrb),
    .mem_rsp_valid_i(mem_rsp_valid_i), .mem_rsp_rdata_i(32'd0));

  reg f_init = 1'b1;
  always @(posedge clk_i) f_init <= 1'b0;
  always @(*) if (f_init) assume(!rst_ni);

  // masters keep the valid/ready rules
  genvar g;
  generate for (g = 0; g < M; g = g + 1) begin : g_m
    sgpu_vr_check #(.W(AW + 6), .ASSUME(1)) u_vr (
      .clk_i(clk_i), .rst_ni(rst_ni), .valid_i(req_valid_i[g]), .ready_i(req_ready[g]),
      .payload_i({req_write_i[g], req_addr_i[g*AW +: AW], req_wdata_i[g], req_wstrb_i[g*4 +: 4]}),
      .excuse_i(1'b0));
  end endgenerate
  sgpu_vr_check #(.W(38)) u_mem_vr (
    .clk_i(clk_i), .rst_ni(rst_ni), .valid_i(m_valid), .ready_i(mem_req_ready_i),
    .payload_i({m_write, m_addr, m_wdata[0], m_wstrb}), .excuse_i(f_arrival));

  reg [M-1:0] f_valid_q;
  reg         f_rsp_q;
  always @(posedge clk_i) begin
    f_valid_q <= req_valid_i;
    f_rsp_q   <= mem_rsp_valid_i;
  end
  wire f_arrival = ((req_valid_i & ~f_valid_q) != {M{1'b0}}) || f_rsp_q;

  // ---- memory model: reads outstanding, stall and latency bounds
  wire         fire    = m_valid && mem_req_ready_i;
  wire         rd_fire = fire && !m_write;
  reg [QW:0]   f_out_q;
  reg [7:0]    f_stall_q, f_age_q;    // cycles stalled in a row; age of the oldest read
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_out_q <= 0; f_stall_q <= 0; f_age_q <= 0;
    end else begin
      f_out_q   <= f_out_q + rd_fire - mem_rsp_valid_i;
      f_stall_q <= mem_req_ready_i ? 8'd0 : f_stall_q + 1'b1;
      // the oldest outstanding read's age (approximately: restarts on an
      // answer, which then makes the next read the oldest)
      f_age_q   <= (mem_rsp_valid_i || f_out_q == 0) ? 8'd0 : f_age_q + 1'b1;
    end
  end
  always @(*) if (rst_ni) begin
    assume(!mem_rsp_valid_i || f_out_q != 0);
    assume(mem_req_ready_i || f_stall_q < STALL);   // at most STALL stalls in a row
    // the oldest read is answered at most LAT cycles after the previous
    // answer or its acceptance
    assume(f_out_q == 0 || f_age_q + 1 < LAT || mem_rsp_valid_i);
  end

  // ---- one tracked read
  (* anyseq *) wire f_pick;
  reg          f_trk_q = 1'b0;
  reg [QW:0]   f_ahead_q;
  reg [M-1:0]  f_who_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_trk_q <= 1'b0;
    else if (f_trk_q) begin
      if (mem_rsp_valid_i) begin
        if (f_ahead_q == 0) f_trk_q <= 1'b0;
        else f_ahead_q <= f_ahead_q - 1'b1;
      end
    end else if (rd_fire && f_pick) begin
      f_trk_q   <= 1'b1;
      f_who_q   <= req_ready;
      f_ahead_q <= f_out_q - mem_rsp_valid_i;
    end
  end

  // ---- display wait
  reg [7:0] f_wait_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_wait_q <= 0;
    else f_wait_q <= (req_valid_i[0] && !req_ready[0]) ? f_wait_q + 1'b1 : 8'd0;
  end

  reg [M-1:0] f_sel;
  always @(*) begin
    if (rst_ni && !f_init) begin
      assert((req_ready & (req_ready - 1'b1)) == {M{1'b0}});        // one-hot or none
      assert((req_ready & ~req_valid_i) == {M{1'b0}});
      assert((req_ready != 0) == fire);
      for (i = 0; i < M; i = i + 1) if (req_ready[i]) begin
        assert(m_write == req_write_i[i]);
        assert(m_addr == addr32[i*32 +: 32]);
        assert(m_wstrb == req_wstrb_i[i*4 +: 4]);
        if (m_write) assert(m_wdata == wdata32[i*32 +: 32]);
      end
      assert(f_out_q <= IDQ);
      if (rd_fire) assert(f_out_q < IDQ || mem_rsp_valid_i);
      assert(rsp_valid == (mem_rsp_valid_i ? rsp_valid : {M{1'b0}}));
      assert((rsp_valid & (rsp_valid - 1'b1)) == {M{1'b0}});
      if (mem_rsp_valid_i) assert(rsp_valid != 0);
      if (f_trk_q && mem_rsp_valid_i && f_ahead_q == 0) assert(rsp_valid == f_who_q);
      if (f_trk_q) assert(f_ahead_q < f_out_q);
      // display: served whenever it requests and the id queue has room
      if (req_valid_i[0] && (req_write_i[0] || f_out_q < IDQ)) assert(m_valid && req_ready[0] == mem_req_ready_i);
      assert(f_wait_q <= WAIT_MAX);
    end
  end
  always @(posedge clk_i) begin
    cover(rst_ni && f_wait_q == WAIT_MAX);
    cover(rst_ni && f_trk_q && f_ahead_q == IDQ - 1);
  end
endmodule
