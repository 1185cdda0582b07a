// sgpu_link_top: the chip as a link device sees it — the framed host bridge
// (sgpu_host_bridge, docs/link-protocol.md) in front of sgpu_top, with the
// chip's memory (sgpu_sram) behind it.  The byte stream is a plain
// valid/ready byte port instead of UART pins: sgpu-sim's link server
// (sim/sgpu_link_sim.cpp) paces the bytes at the wire rate it simulates, so
// every byte a tcp: or serial: client sends enters the bridge as on a board.
`include "sgpu_hw.vh"

module sgpu_link_top #(
  parameter integer NODES     = 2,
  parameter integer SOURCES   = 2,
  parameter integer MEM_BYTES = 8388608,
  // gap timeout of the bridge in clock cycles (LINK_GAP_TIMEOUT_US at the
  // nominal clock of 25.175 MHz)
  parameter integer TIMEOUT_CYCLES = 25175 * (`SGPU_LINK_GAP_TIMEOUT_US / 1000),
  // the bridge's CRC bits per cycle: 8, a byte a cycle, so the simulated
  // wire can run at a byte every 2 cycles unpaced (the boards keep the
  // bit-serial CRC, 9 cycles a byte, for its fewer cells)
  parameter integer CRC_STEP = 8
) (
  input  wire                 clk_i,
  input  wire                 rst_ni,
  // bytes from the host; at least 8 / CRC_STEP + 1 cycles apart (2 with the
  // byte-wide CRC, 9 with a bit-serial one)
  input  wire                 rx_valid_i,
  input  wire [7:0]           rx_data_i,
  // bytes to the host
  output wire                 tx_valid_o,
  input  wire                 tx_ready_i,
  output wire [7:0]           tx_data_o,
  // the chip's video outputs and interrupt, for observation
  output wire [SOURCES*8-1:0] vid_r_o,
  output wire [SOURCES*8-1:0] vid_g_o,
  output wire [SOURCES*8-1:0] vid_b_o,
  output wire [SOURCES-1:0]   vid_hsync_o,
  output wire [SOURCES-1:0]   vid_vsync_o,
  output wire [SOURCES-1:0]   vid_de_o,
  output wire                 irq_o,
  // a frame was executed / a NAK was sent (one-cycle strobes)
  output wire                 frame_ok_o,
  output wire                 frame_err_o,
  output wire                 busy_o,      // the board's LEDs
  output wire                 fault_o
);

  wire        h_req_valid, h_req_ready, h_req_write, h_rsp_valid;
  wire [31:0] h_req_addr, h_req_wdata, h_rsp_rdata;
  wire [3:0]  h_req_wstrb;
  wire        m_req_valid, m_req_ready, m_req_write, m_rsp_valid;
  wire [31:0] m_req_addr, m_req_wdata, m_rsp_rdata;
  wire [3:0]  m_req_wstrb;

  sgpu_host_bridge #(.TIMEOUT_CYCLES(TIMEOUT_CYCLES), .AW($clog2(MEM_BYTES)), .CRC_STEP(CRC_STEP))
    u_bridge (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .rx_valid_i(rx_valid_i), .rx_data_i(rx_data_i),
    .tx_valid_o(tx_valid_o), .tx_ready_i(tx_ready_i), .tx_data_o(tx_data_o),
    .host_req_valid_o(h_req_valid), .host_req_ready_i(h_req_ready),
    .host_req_write_o(h_req_write), .host_req_addr_o(h_req_addr),
    .host_req_wdata_o(h_req_wdata), .host_req_wstrb_o(h_req_wstrb),
    .host_rsp_valid_i(h_rsp_valid), .host_rsp_rdata_i(h_rsp_rdata),
    .irq_i(irq_o), .frame_ok_o(frame_ok_o), .frame_err_o(frame_err_o));

  sgpu_top #(.NODES(NODES), .SOURCES(SOURCES), .MEM_BYTES(MEM_BYTES)) u_gpu (
    .clk_i(clk_i), .rst_ni(rst_ni), .pix_en_i(1'b1), .pix_clk_i(1'b0), .pix_rst_ni(1'b1),
    .host_req_valid_i(h_req_valid), .host_req_ready_o(h_req_ready),
    .host_req_write_i(h_req_write), .host_req_addr_i(h_req_addr),
    .host_req_wdata_i(h_req_wdata), .host_req_wstrb_i(h_req_wstrb),
    .host_rsp_valid_o(h_rsp_valid), .host_rsp_rdata_o(h_rsp_rdata),
    .mem_req_valid_o(m_req_valid), .mem_req_ready_i(m_req_ready),
    .mem_req_write_o(m_req_write), .mem_req_addr_o(m_req_addr),
    .mem_req_wdata_o(m_req_wdata), .mem_req_wstrb_o(m_req_wstrb),
    .mem_rsp_valid_i(m_rsp_valid), .mem_rsp_rdata_i(m_rsp_rdata),
    .vid_r_o(vid_r_o), .vid_g_o(vid_g_o), .vid_b_o(vid_b_o),
    .vid_hsync_o(vid_hsync_o), .vid_vsync_o(vid_vsync_o), .vid_de_o(vid_de_o),
    .irq_o(irq_o), .busy_o(busy_o), .fault_o(fault_o),
    /* verilator lint_off PINCONNECTEMPTY */ .cycle_o() /* verilator lint_on PINCONNECTEMPTY */);

  sgpu_sram #(.BYTES(MEM_BYTES)) u_mem (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .req_valid_i(m_req_valid), .req_ready_o(m_req_ready), .req_write_i(m_req_write),
    .req_addr_i(m_req_addr), .req_wdata_i(m_req_wdata), .req_wstrb_i(m_req_wstrb),
    .rsp_valid_o(m_rsp_valid), .rsp_rdata_o(m_rsp_rdata));

endmodule
