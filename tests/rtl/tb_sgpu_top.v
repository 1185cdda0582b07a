// sgpu_top: host port (registers and memory), global registers, CFG_ERROR
// cases, interrupts, node/source routing, and a submission end to end on
// two nodes with the real display and 2D engine, under random back-pressure.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_top_mem #(parameter WORDS = 16384) (
  input  wire        clk,
  input  wire        req_valid,
  output reg         req_ready,
  input  wire        req_write,
  input  wire [31:0] req_addr,
  input  wire [31:0] req_wdata,
  input  wire [3:0]  req_wstrb,
  output wire        rsp_valid,
  output wire [31:0] rsp_rdata
);
  reg [31:0] mem [0:WORDS-1];
  integer bp = 0, lat = 1, i;
  reg pv [0:7]; reg [31:0] pd [0:7];
  initial begin
    for (i = 0; i < 8; i = i + 1) pv[i] = 0;
    for (i = 0; i < WORDS; i = i + 1) mem[i] = 0;
    req_ready = 1;
  end
  always @(negedge clk) req_ready <= (bp == 0) || (($unsigned($random) % 100) >= bp);
  always @(posedge clk) begin
    for (i = 7; i > 0; i = i - 1) begin pv[i] <= pv[i-1]; pd[i] <= pd[i-1]; end
    pv[0] <= 0;
    if (req_valid && req_ready) begin
      if (req_addr >= WORDS * 4) $fatal(1, "memory access past the model: %h", req_addr);
      if (req_write) begin
        if (req_wstrb[0]) mem[req_addr[31:2]][7:0]   <= req_wdata[7:0];
        if (req_wstrb[1]) mem[req_addr[31:2]][15:8]  <= req_wdata[15:8];
        if (req_wstrb[2]) mem[req_addr[31:2]][23:16] <= req_wdata[23:16];
        if (req_wstrb[3]) mem[req_addr[31:2]][31:24] <= req_wdata[31:24];
      end else begin pv[0] <= 1; pd[0] <= mem[req_addr[31:2]]; end
    end
  end
  assign rsp_valid = pv[lat-1];
  assign rsp_rdata = pd[lat-1];
endmodule

module tb_sgpu_top;
  localparam MEMB = 65536, NODES = 2, SOURCES = 1;
  reg clk = 0, rst_n = 0;
  always #5 clk = ~clk;
  integer cyc = 0;
  always @(posedge clk) cyc <= cyc + 1;

  reg         h_valid = 0, h_write = 0;
  reg  [31:0] h_addr = 0, h_wdata = 0;
  wire        h_ready, h_rsp;
  wire [31:0] h_rdata;
  wire m_valid, m_ready, m_write, m_rsp, irq;
  wire [31:0] m_addr, m_wdata, m_rdata;
  wire [3:0] m_wstrb;
  wire [7:0] vr, vg, vb; wire hs, vs, de;

  sgpu_top #(.NODES(NODES), .SOURCES(SOURCES), .MEM_BYTES(MEMB)) dut (
    .clk_i(clk), .rst_ni(rst_n), .pix_en_i(1'b1), .pix_clk_i(1'b0), .pix_rst_ni(1'b1),
    .host_req_valid_i(h_valid), .host_req_ready_o(h_ready), .host_req_write_i(h_write),
    .host_req_addr_i(h_addr), .host_req_wdata_i(h_wdata), .host_req_wstrb_i(4'hF),
    .host_rsp_valid_o(h_rsp), .host_rsp_rdata_o(h_rdata),
    .mem_req_valid_o(m_valid), .mem_req_ready_i(m_ready), .mem_req_write_o(m_write),
    .mem_req_addr_o(m_addr), .mem_req_wdata_o(m_wdata), .mem_req_wstrb_o(m_wstrb),
    .mem_rsp_valid_i(m_rsp), .mem_rsp_rdata_i(m_rdata),
    .vid_r_o(vr), .vid_g_o(vg), .vid_b_o(vb), .vid_hsync_o(hs), .vid_vsync_o(vs), .vid_de_o(de),
    .irq_o(irq), .busy_o(), .fault_o(), .cycle_o());
  tb_sgpu_top_mem #(.WORDS(MEMB/4)) mem (
    .clk(clk), .req_valid(m_valid), .req_ready(m_ready), .req_write(m_write), .req_addr(m_addr),
    .req_wdata(m_wdata), .req_wstrb(m_wstrb), .rsp_valid(m_rsp), .rsp_rdata(m_rdata));

  // host port: one request at a time, reads wait for their response
  integer acc_cyc;
  reg [31:0] rd;
  task hw(input [31:0] a, input [31:0] d);
    begin
      @(negedge clk); h_valid = 1; h_write = 1; h_addr = a; h_wdata = d;
      @(posedge clk); while (!h_ready) @(posedge clk);
      acc_cyc = cyc;
      @(negedge clk); h_valid = 0;
    end
  endtask
  task hr(input [31:0] a, output [31:0] d);
    integer n;
    begin
      @(negedge clk); h_valid = 1; h_write = 0; h_addr = a;
      @(posedge clk); while (!h_ready) @(posedge clk);
      @(negedge clk); h_valid = 0; n = 0;
      while (!h_rsp) begin @(negedge clk); n = n + 1; if (n > 1000) $fatal(1, "no read response"); end
      d = h_rdata;
      // let the port see its response before the TB changes anything; #1 so
      // that nothing changes in the edge's own time step (a race Verilator
      // resolves the other way: the memory model's latency changed first)
      @(posedge clk); #1;
    end
  endtask
  function [31:0] R(input [11:0] off); R = 32'h8000_0000 | off; endfunction
  function [31:0] N(input integer n, input [6:0] r); N = 32'h8000_0000 | (`SGPU_NODE_BASE + n * `SGPU_NODE_STRIDE + r); endfunction
  task expect_r(input [31:0] a, input [31:0] v, input [255:0] what);
    begin hr(a, rd); if (rd !== v) begin $display("%0s: %h = %h want %h", what, a, rd, v); $fatal(1, "mismatch"); end end
  endtask
  function [31:0] hdr(input [7:0] op, input [7:0] fl, input [13:0] cnt); hdr = {2'b11, cnt, fl, op}; endfunction

  // one ring per node
  integer wp [0:NODES-1];
  function [31:0] rbase(input integer n); rbase = 32'h1000 + n * 32'h400; endfunction
  task emit(input integer n, input [31:0] w);
    begin hw(rbase(n) + wp[n], w); wp[n] = (wp[n] + 4) % 1024; end
  endtask
  task kick(input integer n); hw(N(n, `SGPU_NREG_RING_WPTR), wp[n]); endtask
  task wait_idle(input integer n);
    integer k;
    begin
      k = 0; rd = 1;
      while (rd[`SGPU_STATUS_BUSY] && !rd[`SGPU_STATUS_FAULTED]) begin
        hr(N(n, `SGPU_NREG_STATUS), rd); k = k + 1; if (k > 20000) $fatal(1, "node %0d stuck", n);
      end
    end
  endtask

  // doorbell-to-first-ring-read monitor
  integer db = -1, first = -1;
  always @(posedge clk) if (db >= 0 && first < 0 && m_valid && m_ready && !m_write &&
                            m_addr >= rbase(0) && m_addr < rbase(0) + 1024) first = cyc;

  integer k, n, seed, pass, t0;
  reg [31:0] v;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 9;
    repeat (3) @(negedge clk); rst_n = 1;
    // identity and global registers
    expect_r(R(`SGPU_REG_ID), `SGPU_HW_MAGIC, "ID");
    expect_r(R(`SGPU_REG_VERSION), `SGPU_HW_VERSION, "VERSION");
    hr(R(`SGPU_REG_CAPS), rd);
    if (rd[3:0] != NODES || rd[7:4] != SOURCES || !rd[8] || !rd[9]) $fatal(1, "CAPS %h", rd);
    expect_r(R(`SGPU_REG_MEM_SIZE), MEMB, "MEM_SIZE");
    expect_r(R(`SGPU_REG_SEG1_BASE), 0, "SEG1_BASE");
    expect_r(R(`SGPU_REG_SEG1_SIZE), MEMB / 2, "SEG1_SIZE");
    expect_r(R(`SGPU_REG_SEG2_BASE), MEMB / 2, "SEG2_BASE");
    expect_r(R(`SGPU_REG_SEG2_SIZE), MEMB / 2, "SEG2_SIZE");
    hw(R(`SGPU_REG_SCRATCH), 32'h1234_5678);
    expect_r(R(`SGPU_REG_SCRATCH), 32'h1234_5678, "SCRATCH");
    // Registers answered from the block-RAM mirror read their reset values
    // after a reset, though the RAM keeps the words written before it.
    hw(N(0, `SGPU_NREG_RING_SIZE), 4096);
    hw(N(1, `SGPU_NREG_WATCHDOG), 777);
    expect_r(N(0, `SGPU_NREG_RING_SIZE), 4096, "RING_SIZE before reset");
    expect_r(N(1, `SGPU_NREG_WATCHDOG), 777, "WATCHDOG before reset");
    @(negedge clk); rst_n = 0; repeat (2) @(negedge clk); rst_n = 1;
    expect_r(R(`SGPU_REG_SCRATCH), 0, "SCRATCH after reset");
    expect_r(N(0, `SGPU_NREG_RING_SIZE), `SGPU_RING_SIZE_MIN, "RING_SIZE after reset");
    expect_r(N(1, `SGPU_NREG_WATCHDOG), 0, "WATCHDOG after reset");
    // cycle counter: LO then HI; LO advances
    hr(R(`SGPU_REG_CYCLE_LO), v); hr(R(`SGPU_REG_CYCLE_LO), rd);
    if (rd - v < 2 || rd - v > 20) $fatal(1, "cycle counter step %0d", rd - v);
    expect_r(R(`SGPU_REG_CYCLE_HI), 0, "CYCLE_HI");
    // host memory path, with back-pressure
    mem.bp = 40; mem.lat = 4;
    for (k = 0; k < 64; k = k + 1) hw(32'h8000 + 4 * k, 32'hC0DE_0000 + k);
    for (k = 0; k < 64; k = k + 1) expect_r(32'h8000 + 4 * k, 32'hC0DE_0000 + k, "host memory");
    mem.bp = 0; mem.lat = 1;
    // unmapped register offsets read 0
    expect_r(R(12'h3FC), 0, "unmapped");
    $display("ok: registers and host memory");

    // CFG_ERROR: bad ring size on node 1, write to a read-only register
    hw(N(1, `SGPU_NREG_RING_SIZE), 100);
    hr(R(`SGPU_REG_CFG_ERROR), rd);
    if (rd != (1 << `SGPU_CFG_ERROR_RING_SIZE)) $fatal(1, "CFG_ERROR %h", rd);
    expect_r(R(`SGPU_REG_CFG_ERROR_ADDR), `SGPU_NODE_BASE + `SGPU_NODE_STRIDE + `SGPU_NREG_RING_SIZE, "CFG_ERROR_ADDR");
    hr(R(`SGPU_REG_INT_STATUS), rd);
    if (!rd[`SGPU_INT_CFG_ERROR_BASE]) $fatal(1, "no CFG_ERROR interrupt");
    hw(R(`SGPU_REG_CFG_ERROR), 32'hFFFF_FFFF); hw(R(`SGPU_REG_INT_STATUS), 32'h8000_0000);
    expect_r(R(`SGPU_REG_CFG_ERROR), 0, "CFG_ERROR W1C");
    hr(R(`SGPU_REG_INT_STATUS), rd);
    if (rd[31]) $fatal(1, "INT_STATUS W1C");
    hw(R(`SGPU_REG_ID), 5);
    expect_r(R(`SGPU_REG_CFG_ERROR), 1 << `SGPU_CFG_ERROR_UNKNOWN_BITS, "write to ID");
    expect_r(R(`SGPU_REG_CFG_ERROR_ADDR), `SGPU_REG_ID, "CFG_ERROR_ADDR ID");
    expect_r(R(`SGPU_REG_ID), `SGPU_HW_MAGIC, "ID unchanged");
    hw(N(0, `SGPU_NREG_RING_BASE), 32'h1004);
    hr(R(`SGPU_REG_CFG_ERROR), rd);
    if (!rd[`SGPU_CFG_ERROR_MISALIGNED]) $fatal(1, "misaligned base not reported");
    hw(R(`SGPU_REG_CFG_ERROR), 32'hFFFF_FFFF); hw(R(`SGPU_REG_INT_STATUS), 32'hFFFF_FFFF);
    $display("ok: CFG_ERROR");

    // rings on both nodes
    for (n = 0; n < NODES; n = n + 1) begin
      hw(N(n, `SGPU_NREG_RING_BASE), rbase(n));
      hw(N(n, `SGPU_NREG_RING_SIZE), 1024);
      hw(N(n, `SGPU_NREG_RPTR_ADDR), (32'h0F00 + 4 * n) | 1);
      hw(N(n, `SGPU_NREG_CONTROL), 1);
      wp[n] = 0;
      expect_r(N(n, `SGPU_NREG_RING_BASE), rbase(n), "ring base");
    end
    expect_r(R(`SGPU_REG_CFG_ERROR), 0, "no error on good setup");
    hw(R(`SGPU_REG_INT_ENABLE), 32'hFFFF_FFFF);

    // doorbell to first ring read, node 0, zero-wait memory
    emit(0, hdr(`SGPU_OP_FENCE, 1, 2)); emit(0, 32'h9000); emit(0, 32'h1);
    @(negedge clk); h_valid = 1; h_write = 1; h_addr = N(0, `SGPU_NREG_RING_WPTR); h_wdata = wp[0];
    @(posedge clk); while (!h_ready) @(posedge clk);
    db = cyc; @(negedge clk); h_valid = 0;
    wait_idle(0);
    $display("FIGURE chip_doorbell_to_first_read_cycles %0d", first - db);
    if (first - db > 4 || first < 0) $fatal(1, "doorbell to first read %0d cycles", first - db);
    if (mem.mem[32'h9000 >> 2] != 1) $fatal(1, "fence 1");
    hr(R(`SGPU_REG_INT_STATUS), rd);
    if (!rd[0] || !irq) $fatal(1, "DMA_COMPLETED node 0 / irq");
    hw(R(`SGPU_REG_INT_STATUS), 1);
    $display("ok: submission node 0");

    // both nodes at once, FILL through the real 2D engine, under back-pressure
    for (pass = 0; pass < 2; pass = pass + 1) begin
      mem.bp = pass ? 35 : 0; mem.lat = pass ? 3 : 1;
      for (k = 0; k < 64; k = k + 1) mem.mem[(32'hA000 >> 2) + k] = 0;
      emit(0, hdr(`SGPU_OP_FILL, 0, 5)); emit(0, 32'hA000); emit(0, 64); emit(0, 32); emit(0, 4); emit(0, 32'h5A5A5A5A);
      emit(0, hdr(`SGPU_OP_FENCE, 1, 2)); emit(0, 32'h9000); emit(0, 32'h10 + pass);
      emit(1, hdr(`SGPU_OP_WRITE_DATA, 0, 4)); emit(1, 32'hB000); emit(1, 1); emit(1, 2); emit(1, 3);
      emit(1, hdr(`SGPU_OP_FENCE, 1, 2)); emit(1, 32'h9004); emit(1, 32'h20 + pass);
      kick(0); kick(1);
      wait_idle(0); wait_idle(1);
      if (mem.mem[32'h9000 >> 2] != 32'h10 + pass || mem.mem[32'h9004 >> 2] != 32'h20 + pass) $fatal(1, "fences");
      for (k = 0; k < 4; k = k + 1) begin
        if (mem.mem[(32'hA000 >> 2) + k * 16] != 32'h5A5A5A5A) $fatal(1, "fill row %0d", k);
        if (mem.mem[(32'hA000 >> 2) + k * 16 + 8] != 0) $fatal(1, "fill past width, row %0d", k);
      end
      if (mem.mem[32'hB004 >> 2] != 2) $fatal(1, "write_data node 1");
      hr(R(`SGPU_REG_INT_STATUS), rd);
      if (rd[1:0] != 2'b11) $fatal(1, "DMA_COMPLETED bits %b", rd[1:0]);
      hw(R(`SGPU_REG_INT_STATUS), 3);
      expect_r(N(0, `SGPU_NREG_RING_RPTR), wp[0], "rptr 0");
      expect_r(N(1, `SGPU_NREG_RING_RPTR), wp[1], "rptr 1");
      if (mem.mem[32'h0F04 >> 2] != wp[1]) $fatal(1, "rptr write-back node 1");
    end
    mem.bp = 0; mem.lat = 1;
    $display("ok: two nodes, fill, fences");

    // fault on node 1 raises DMA_FAULTED bit 9; node 0 keeps working
    emit(1, hdr(8'h77, 0, 0)); kick(1); wait_idle(1);
    hr(R(`SGPU_REG_INT_STATUS), rd);
    if (!rd[`SGPU_INT_DMA_FAULTED_BASE + 1]) $fatal(1, "DMA_FAULTED node 1");
    expect_r(N(1, `SGPU_NREG_FAULT_REASON), `SGPU_FAULT_ILLEGAL_OPCODE, "fault reason");
    emit(0, hdr(`SGPU_OP_FENCE, 0, 2)); emit(0, 32'h9000); emit(0, 32'h30); kick(0); wait_idle(0);
    if (mem.mem[32'h9000 >> 2] != 32'h30) $fatal(1, "node 0 after node 1 fault");
    hw(N(1, `SGPU_NREG_CONTROL), 2); wp[1] = 0;
    emit(1, hdr(`SGPU_OP_FENCE, 0, 2)); emit(1, 32'h9004); emit(1, 32'h31); kick(1); wait_idle(1);
    if (mem.mem[32'h9004 >> 2] != 32'h31) $fatal(1, "node 1 after reset");
    hw(R(`SGPU_REG_INT_STATUS), 32'hFFFF_FFFF);
    hr(R(`SGPU_REG_INT_STATUS), rd);
    hw(R(`SGPU_REG_INT_ENABLE), 0);
    if (irq) $fatal(1, "irq with nothing enabled");
    $display("ok: fault and reset on node 1");

    // CRTC_VSYNC: tiny timing on source 0
    hw(32'h8000_0000 | (`SGPU_SOURCE_BASE + `SGPU_SREG_DISP_PITCH), 128);
    hw(32'h8000_0000 | (`SGPU_SOURCE_BASE + `SGPU_SREG_DISP_BASE), 32'h4000);
    hw(32'h8000_0000 | (`SGPU_SOURCE_BASE + `SGPU_SREG_DISP_CONTROL), (1 << `SGPU_DISP_ENABLE) | (1 << `SGPU_DISP_TINY));
    hw(R(`SGPU_REG_INT_STATUS), 32'hFFFF_FFFF);
    t0 = cyc; rd = 0;
    while (!rd[`SGPU_INT_CRTC_VSYNC_BASE]) begin
      hr(R(`SGPU_REG_INT_STATUS), rd);
      if (cyc - t0 > 3 * 80 * 56 + 100) $fatal(1, "no CRTC_VSYNC interrupt");
    end
    $display("ok: CRTC_VSYNC");
    $display("PASS tb_sgpu_top");
    $finish;
  end
  // in 1 ms steps: Verilator 5.006 wraps a single delay at 2^32 ps
  initial begin repeat (100) #1000000; $fatal(1, "global timeout"); end
endmodule
