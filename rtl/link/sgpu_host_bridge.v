// sgpu_host_bridge: the framed host link (docs/link-protocol.md) over a
// byte stream, driving the sgpu_top host port.
//
// A thin top wiring three parts, each in its own file:
//  - sgpu_link_rx_fifo: the receive FIFO of RX_FIFO_BYTES (one block RAM):
//    received bytes (rx_valid_i strobes; the bridge never back-pressures)
//    wait there, so a host may send several frames without waiting for
//    their answers (link version 3);
//  - sgpu_link_parser: pulls the bytes as fast as its CRC steps allow,
//    hunts for SYNC, collects the header and the WRITE data into its write
//    buffer of SGPU_LINK_MAX_WORDS words, checks the CRC-32 (sgpu_link_crc),
//    the gap timeout and the sequence rule, and holds one frame (or a NAK
//    reason) for the executor; it waits while it holds a frame and while
//    the executor reads the buffer;
//  - sgpu_link_exec: applies a WRITE from the buffer (only after its CRC
//    was good, only the one after the last executed SEQ, never twice),
//    performs a READ one word at a time (one read outstanding), and sends
//    the ACK / NAK answer with its CRC-32 (sgpu_link_crc), or an EVENT
//    frame carrying INT_STATUS when irq_i rises.
`include "sgpu_hw.vh"

module sgpu_host_bridge #(
  parameter integer TIMEOUT_CYCLES = 125000,  // gap that aborts a frame (LINK_GAP_TIMEOUT_US)
  // Host-port address bits kept besides bit 31 (register space): GPU
  // memory is 2^AW bytes (AW kept within 12..31), so a board passes
  // $clog2(MEM_BYTES).  A READ / WRITE with a word outside memory or the
  // register block (offsets below SGPU_REG_BLOCK_BYTES, what sgpu_top
  // decodes) is NAKed BAD_ADDR by the parser, so the host port never sees
  // an address that sgpu_top would alias; the other bits are driven 0.
  parameter integer AW = 32,
  // CRC bits computed per clock cycle: 1 (bit-serial, the fewest cells: the
  // boards; bytes must come at least 9 cycles apart) or 2, 4, 8 (8: a byte
  // in one cycle, bytes at least 2 cycles apart: sgpu-sim's chip, whose
  // simulated wire is as fast as the bridge takes it)
  parameter integer CRC_STEP = 1,
  // Receive FIFO bytes (a power of two, 16 to 2048: the PING info word's
  // field counts 1 to 255 units of 16), or 0: none, the parser takes the
  // bytes as they come and drops those that arrive while it waits, so a
  // host keeps one frame in flight (link version 2).
  parameter integer RX_FIFO_BYTES = `SGPU_LINK_RX_FIFO_BYTES
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // byte stream in (from a UART receiver), at any rate: the FIFO hands the
  // parser a byte every 8 / CRC_STEP + 1 cycles at most (its CRC steps), so
  // bytes that come faster wait there (a full FIFO drops them).  On the way
  // out tx_valid_o waits for the CRC steps itself.
  input  wire        rx_valid_i,
  input  wire [7:0]  rx_data_i,
  // byte stream out (to a UART transmitter)
  output wire        tx_valid_o,
  input  wire        tx_ready_i,
  output wire [7:0]  tx_data_o,
  // sgpu_top host port
  output wire        host_req_valid_o,
  input  wire        host_req_ready_i,
  output wire        host_req_write_o,
  output wire [31:0] host_req_addr_o,
  output wire [31:0] host_req_wdata_o,
  output wire [3:0]  host_req_wstrb_o,
  input  wire        host_rsp_valid_i,
  input  wire [31:0] host_rsp_rdata_i,
  // interrupt from sgpu_top
  input  wire        irq_i,
  // status strobes (LEDs, counters)
  output wire        frame_ok_o,        // a frame was executed
  output wire        frame_err_o        // a nak was sent
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // CRC_STEP divides the 8 shift steps of a byte.
  generate if (!(CRC_STEP == 1 || CRC_STEP == 2 || CRC_STEP == 4 || CRC_STEP == 8)) begin : g_bad_crc_step
    sgpu_precondition_failed_CRC_STEP_1_2_4_or_8 u_fail ();
  end endgenerate
  // RX_FIFO_BYTES: 0 or a power of two of 1 to 255 units (the PING's 8-bit field, 0 = none).
  generate if (!(RX_FIFO_BYTES == 0 ||
                 ((RX_FIFO_BYTES & (RX_FIFO_BYTES - 1)) == 0 && RX_FIFO_BYTES >= `SGPU_LINK_RX_FIFO_UNIT &&
                  RX_FIFO_BYTES <= 255 * `SGPU_LINK_RX_FIFO_UNIT))) begin : g_bad_rx_fifo_bytes
    sgpu_precondition_failed_RX_FIFO_BYTES_0_or_power_of_two_16_to_2048 u_fail ();
  end endgenerate

  localparam integer V3 = (RX_FIFO_BYTES > 0) ? 1 : 0;

  // receive FIFO -> parser
  wire       rx_valid, rx_pull;
  wire [7:0] rx_data;
  // parser -> executor: the frame, the write buffer
  wire        frame_valid, frame_ready, frame_read, frame_ping;
  wire        frame_dup, frame_incr;
  wire [7:0]  frame_seq, frame_last_seq;
  wire [2:0]  frame_nak;
  wire [6:0]  frame_count;
  wire [31:0] frame_addr;
  wire [3:0]  frame_wstrb;
  wire        wbuf_busy;
  wire [$clog2(`SGPU_LINK_MAX_WORDS)-1:0] wbuf_raddr;
  wire [31:0] wbuf_rdata;

  sgpu_link_rx_fifo #(.RX_FIFO_BYTES(RX_FIFO_BYTES)) u_rx_fifo (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .in_valid_i(rx_valid_i), .in_data_i(rx_data_i),
    .pull_i(rx_pull), .out_valid_o(rx_valid), .out_data_o(rx_data));

  sgpu_link_parser #(.TIMEOUT_CYCLES(TIMEOUT_CYCLES), .AW(AW), .CRC_STEP(CRC_STEP), .V3(V3)) u_parser (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .rx_valid_i(rx_valid), .rx_data_i(rx_data), .rx_pull_o(rx_pull),
    .frame_valid_o(frame_valid), .frame_ready_i(frame_ready),
    .frame_seq_o(frame_seq), .frame_read_o(frame_read),
    .frame_ping_o(frame_ping), .frame_nak_o(frame_nak), .frame_dup_o(frame_dup),
    .frame_last_seq_o(frame_last_seq), .frame_count_o(frame_count),
    .frame_addr_o(frame_addr), .frame_wstrb_o(frame_wstrb), .frame_incr_o(frame_incr),
    .wbuf_busy_i(wbuf_busy), .wbuf_raddr_i(wbuf_raddr), .wbuf_rdata_o(wbuf_rdata));

  sgpu_link_exec #(.AW(AW), .CRC_STEP(CRC_STEP), .RX_FIFO_BYTES(RX_FIFO_BYTES)) u_exec (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .frame_valid_i(frame_valid), .frame_ready_o(frame_ready),
    .frame_seq_i(frame_seq), .frame_read_i(frame_read),
    .frame_ping_i(frame_ping), .frame_nak_i(frame_nak), .frame_dup_i(frame_dup),
    .frame_last_seq_i(frame_last_seq), .frame_count_i(frame_count),
    .frame_addr_i(frame_addr), .frame_wstrb_i(frame_wstrb), .frame_incr_i(frame_incr),
    .wbuf_busy_o(wbuf_busy), .wbuf_raddr_o(wbuf_raddr), .wbuf_rdata_i(wbuf_rdata),
    .tx_valid_o(tx_valid_o), .tx_ready_i(tx_ready_i), .tx_data_o(tx_data_o),
    .host_req_valid_o(host_req_valid_o), .host_req_ready_i(host_req_ready_i),
    .host_req_write_o(host_req_write_o), .host_req_addr_o(host_req_addr_o),
    .host_req_wdata_o(host_req_wdata_o), .host_req_wstrb_o(host_req_wstrb_o),
    .host_rsp_valid_i(host_rsp_valid_i), .host_rsp_rdata_i(host_rsp_rdata_i),
    .irq_i(irq_i), .frame_ok_o(frame_ok_o), .frame_err_o(frame_err_o));

endmodule
