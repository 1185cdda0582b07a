// sgpu_mem_arb: 6 masters (2 strict priority) on a memory with random
// latency and back-pressure; checks routing of every read response, strict
// priority, round-robin fairness, one master alone keeping a grant every
// cycle, and the read-id FIFO limit.  tb_sgpu_mem_arb_reg.v runs it on the
// registered grant (REG_GRANT = 1), where priority is judged against the
// requests of the cycle before.
`timescale 1ns/1ps
`ifdef TB_ARB_REG_GRANT
module tb_sgpu_mem_arb_reg;
  localparam REG_GRANT = 1;
`else
module tb_sgpu_mem_arb;
  localparam REG_GRANT = 0;
`endif
  localparam M = 6, PRIO = 2, IDQ = 8;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  reg  [M-1:0]    valid = 0, write = 0;
  reg  [M*32-1:0] addr = 0, wdata = 0;
  wire [M*4-1:0]  wstrb = {M{4'hF}};
  wire [M-1:0]    ready, rsp;
  wire [31:0]     rdata;
  wire m_valid, m_write; reg m_ready = 1;
  wire [31:0] m_addr, m_wdata; wire [3:0] m_wstrb;
  reg  m_rsp = 0; reg [31:0] m_rdata = 0;
  sgpu_mem_arb #(.M(M), .PRIO(PRIO), .IDQ(IDQ), .REG_GRANT(REG_GRANT)) dut (
    .clk_i(clk), .rst_ni(rst_n), .req_valid_i(valid), .req_ready_o(ready), .req_write_i(write),
    .req_addr_i(addr), .req_wdata_i(wdata), .req_wstrb_i(wstrb), .rsp_valid_o(rsp), .rsp_rdata_o(rdata),
    .mem_req_valid_o(m_valid), .mem_req_ready_i(m_ready), .mem_req_write_o(m_write),
    .mem_req_addr_o(m_addr), .mem_req_wdata_o(m_wdata), .mem_req_wstrb_o(m_wstrb),
    .mem_rsp_valid_i(m_rsp), .mem_rsp_rdata_i(m_rdata));

  // memory: reads return ~addr after a random latency, in order
  reg [31:0] mq [0:255]; integer mdue [0:255];
  integer mh = 0, mt = 0, cyc = 0, seed, bp = 0;
  `include "tb_random.vh"
  integer outstanding = 0, max_out = 0;
  always @(posedge clk) cyc <= cyc + 1;
  always @(posedge clk) begin
    m_rsp <= 0;
    if (mh != mt && mdue[mh % 256] <= cyc) begin m_rsp <= 1; m_rdata <= mq[mh % 256]; mh = mh + 1; end
    if (m_valid && m_ready && !m_write) begin
      mq[mt % 256] = ~m_addr;
      mdue[mt % 256] = ((mt == mh) ? cyc : mdue[(mt - 1) % 256]) + 1 + ($unsigned(tb_random(0)) % 4);
      mt = mt + 1;
    end
  end
  always @(negedge clk) m_ready <= ($unsigned(tb_random(0)) % 100) >= bp;

  // per master expected response queue
  reg [31:0] eq [0:M-1][0:63];
  integer eh [0:M-1]; integer et [0:M-1]; integer grants [0:M-1];
  integer k, g, rate, phase, nrsp = 0;
  reg [PRIO-1:0] pelig = 0;   // the priority masters eligible at the last edge
  always @(posedge clk) if (rst_n) begin
    // strict priority: a granted non-priority master means no priority master was valid
    if (m_valid && m_ready) begin
      g = -1;
      for (k = 0; k < M; k = k + 1) if (ready[k]) begin
        if (g >= 0) $fatal(1, "two grants");
        g = k;
      end
      if (g < 0) $fatal(1, "fire without grant");
      if (!valid[g]) $fatal(1, "fire for master %0d, which does not request", g);
      for (k = 0; k < PRIO; k = k + 1)
        if (k < g && (REG_GRANT ? pelig[k] : (valid[k] && (write[k] || outstanding < IDQ))))
          $fatal(1, "priority master %0d passed over by %0d", k, g);
      if (m_addr !== addr[g*32 +: 32] || m_write !== write[g] || (write[g] && m_wdata !== wdata[g*32 +: 32]))
        $fatal(1, "request mux");
      grants[g] = grants[g] + 1;
      if (!write[g]) begin eq[g][et[g] % 64] = ~addr[g*32 +: 32]; et[g] = et[g] + 1; end
    end
    // a master's request is taken exactly when the port takes one
    for (k = 0; k < M; k = k + 1)
      if (valid[k] && ready[k] && !(m_valid && m_ready)) $fatal(1, "master %0d fired, the port did not", k);
    for (k = 0; k < M; k = k + 1) if (rsp[k]) begin
      if (eh[k] == et[k]) $fatal(1, "unexpected response to %0d", k);
      if (rdata !== eq[k][eh[k] % 64]) $fatal(1, "master %0d got %h want %h", k, rdata, eq[k][eh[k] % 64]);
      eh[k] = eh[k] + 1; nrsp = nrsp + 1;
    end
    for (k = 0; k < PRIO; k = k + 1) pelig[k] = valid[k] && (write[k] || outstanding < IDQ);
    outstanding = outstanding + ((m_valid && m_ready && !m_write) ? 1 : 0) - (m_rsp ? 1 : 0);
    if (outstanding > max_out) max_out = outstanding;
    if (outstanding > IDQ) $fatal(1, "more than IDQ reads in flight");
  end
  // masters: hold a request until accepted, then maybe issue another
  always @(negedge clk) if (rst_n) begin
    for (k = 0; k < M; k = k + 1) begin
      if (!valid[k] || ready[k]) begin
        valid[k] = (k < PRIO) ? (($unsigned(tb_random(0)) % 100) < rate / 4) : (($unsigned(tb_random(0)) % 100) < rate);
        write[k] = tb_random(0) & 1;
        addr[k*32 +: 32] = {k[7:0], 14'd0, tb_random(0)} & 32'hFF00_FFFC;
        wdata[k*32 +: 32] = tb_random(0);
      end
    end
  end
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 3;
    $display("seed %0d", seed);
    for (k = 0; k < M; k = k + 1) begin eh[k] = 0; et[k] = 0; grants[k] = 0; end
    rate = 60;
    repeat (2) @(negedge clk); rst_n = 1;
    for (phase = 0; phase < 3; phase = phase + 1) begin
      bp = (phase == 0) ? 0 : (phase == 1) ? 30 : 70;
      repeat (5000) @(negedge clk);
    end
    // fairness: all round-robin masters always request, no priority masters
    rate = 100;
    for (k = 0; k < M; k = k + 1) grants[k] = 0;
    bp = 0;
    // writes only, so the read-id FIFO never throttles a master
    force valid[0] = 0; force valid[1] = 0; force write = {M{1'b1}};
    repeat (3000) @(negedge clk);
    release valid[0]; release valid[1]; release write;
    for (k = PRIO; k < M; k = k + 1) $display("master %0d: %0d grants", k, grants[k]);
    for (k = PRIO + 1; k < M; k = k + 1)
      if (grants[k] - grants[PRIO] > 2 || grants[PRIO] - grants[k] > 2) $fatal(1, "round robin unfair");
    // one round-robin master alone, always writing: a grant every cycle
    for (k = 0; k < M; k = k + 1) grants[k] = 0;
    force valid = {{(M-PRIO-1){1'b0}}, 1'b1, {PRIO{1'b0}}}; force write = {M{1'b1}};
    repeat (1000) @(negedge clk);
    release valid; release write;
    $display("master %0d alone: %0d grants in 1000 cycles", PRIO, grants[PRIO]);
    if (grants[PRIO] < 998) $fatal(1, "a master alone lost its grant");
    rate = 0; repeat (50) @(negedge clk);
    for (k = 0; k < M; k = k + 1) if (eh[k] != et[k]) $fatal(1, "master %0d missing responses", k);
    if (max_out < 4) $fatal(1, "never had several reads in flight");
    $display("FIGURE arb_max_reads_in_flight %0d", max_out);
    $display("PASS tb_sgpu_mem_arb: %0d responses routed", nrsp);
    $finish;
  end
endmodule
