// sgpu_sim_top.v — simulation-only wrapper of sgpu_top for the fast model
// of the chip (sim/sgpu_sim.cpp, sim/sim.mk); never synthesised.
//
// The Verilator of Debian 12 (5.006) evaluates all combinational logic that depends on a
// top-level input on every eval() (its "ico" region), and again after each
// clock edge.  Driving sgpu_top's inputs straight from the C++ harness, with
// one evaluation at the falling edge (new inputs) and one at the rising edge,
// therefore computed most of the chip's combinational logic three times per
// cycle.  Here the inputs reach sgpu_top through registers loaded one cycle
// ahead:
//
//   * at the rising edge of clk_i that ends cycle N, the registers take the
//     inputs of cycle N+1 (the harness computes them before that edge), while
//     sgpu_top's flops sample the values of cycle N (non-blocking
//     assignments: both happen at the same edge);
//   * everything combinational is then evaluated once, after the edge, with
//     the state and the inputs of cycle N+1: exactly the values the old
//     harness saw after its falling-edge evaluation.
//
// The memory model's inputs change in most cycles and are loaded at every
// rising edge of clk_i.  Reset and the host port change rarely: they are
// loaded only by a rising edge of ld_i, which the harness raises when one of
// them differs from what the registers hold, at the clock edge (with clk_i,
// in the same evaluation) or, for the rare case where the harness learns a
// new host input of cycle N+1 only after the edge (a host access that starts
// between two cycles), without one.  Verilator then evaluates the logic
// that depends on those registers alone (host address decode, write data
// checks) only when they change, not every cycle.
//
// sgpu_top sees the same input values at every clock edge as before, so the
// chip behaves identically, cycle for cycle.  The pixel side is the one-clock
// chip's (PIX_CDC = 0): pix_en_i is tied to 1, which also lets Verilator fold
// it away.  busy_o and fault_o (LEDs) are not used by the harness.
/* verilator coverage_off */
module sgpu_sim_top #(
  parameter NODES     = 2,
  parameter SOURCES   = 1,
  parameter MEM_BYTES = 8388608
) (
  input  wire                 clk_i,
  input  wire                 ld_i,      // load the reset and host-port registers
  input  wire                 rst_ni,
  input  wire                 host_req_valid_i,
  output wire                 host_req_ready_o,
  input  wire                 host_req_write_i,
  input  wire [31:0]          host_req_addr_i,
  input  wire [31:0]          host_req_wdata_i,
  input  wire [3:0]           host_req_wstrb_i,
  output wire                 host_rsp_valid_o,
  output wire [31:0]          host_rsp_rdata_o,
  output wire                 mem_req_valid_o,
  input  wire                 mem_req_ready_i,
  output wire                 mem_req_write_o,
  output wire [31:0]          mem_req_addr_o,
  output wire [31:0]          mem_req_wdata_o,
  output wire [3:0]           mem_req_wstrb_o,
  input  wire                 mem_rsp_valid_i,
  input  wire [31:0]          mem_rsp_rdata_i,
  output wire [SOURCES*8-1:0] vid_r_o,
  output wire [SOURCES*8-1:0] vid_g_o,
  output wire [SOURCES*8-1:0] vid_b_o,
  output wire [SOURCES-1:0]   vid_hsync_o,
  output wire [SOURCES-1:0]   vid_vsync_o,
  output wire [SOURCES-1:0]   vid_de_o,
  output wire                 irq_o
`ifdef SGPU_SIM_GATE
  ,
  // Each command processor's clock (sgpu_top's sim_cp_clk_i): the harness
  // raises bit g with clk_i only if bit g of cp_awake_o was set before the
  // edge; a ring asleep keeps every flop still, so its clocked code is
  // skipped (sim/sim.mk defines SGPU_SIM_GATE for the fast model).
  input  wire [3*NODES-1:0]   cp_clk_i,
  output wire [3*NODES-1:0]   cp_awake_o
`endif
);
  reg        rst_nq, host_valid_q, host_write_q, mem_ready_q, rsp_valid_q;
  reg [31:0] host_addr_q, host_wdata_q, rsp_rdata_q;
  reg [3:0]  host_wstrb_q;
  // Reset and host port: loaded only when they change (ld_i), so that the
  // logic that depends on them alone is not evaluated again every cycle.
  always @(posedge ld_i) begin
    rst_nq       <= rst_ni;
    host_valid_q <= host_req_valid_i;
    host_write_q <= host_req_write_i;
    host_addr_q  <= host_req_addr_i;
    host_wdata_q <= host_req_wdata_i;
    host_wstrb_q <= host_req_wstrb_i;
  end
  // Memory model: every clock edge.
  always @(posedge clk_i) begin
    mem_ready_q  <= mem_req_ready_i;
    rsp_valid_q  <= mem_rsp_valid_i;
    rsp_rdata_q  <= mem_rsp_rdata_i;
  end

  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_top #(.NODES(NODES), .SOURCES(SOURCES), .MEM_BYTES(MEM_BYTES), .PIX_CDC(0)) u_top (
    .clk_i(clk_i), .rst_ni(rst_nq),
    .pix_en_i(1'b1), .pix_clk_i(1'b0), .pix_rst_ni(1'b1),
    .host_req_valid_i(host_valid_q), .host_req_ready_o(host_req_ready_o),
    .host_req_write_i(host_write_q), .host_req_addr_i(host_addr_q),
    .host_req_wdata_i(host_wdata_q), .host_req_wstrb_i(host_wstrb_q),
    .host_rsp_valid_o(host_rsp_valid_o), .host_rsp_rdata_o(host_rsp_rdata_o),
    .mem_req_valid_o(mem_req_valid_o), .mem_req_ready_i(mem_ready_q),
    .mem_req_write_o(mem_req_write_o), .mem_req_addr_o(mem_req_addr_o),
    .mem_req_wdata_o(mem_req_wdata_o), .mem_req_wstrb_o(mem_req_wstrb_o),
    .mem_rsp_valid_i(rsp_valid_q), .mem_rsp_rdata_i(rsp_rdata_q),
    .vid_r_o(vid_r_o), .vid_g_o(vid_g_o), .vid_b_o(vid_b_o),
    .vid_hsync_o(vid_hsync_o), .vid_vsync_o(vid_vsync_o), .vid_de_o(vid_de_o),
    .irq_o(irq_o), .busy_o(), .fault_o(),
    .cycle_o()
`ifdef SGPU_SIM_GATE
    , .sim_cp_clk_i(cp_clk_i), .sim_cp_awake_o(cp_awake_o)
`endif
    );
  /* verilator lint_on PINCONNECTEMPTY */
endmodule
/* verilator coverage_on */
