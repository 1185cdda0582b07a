// Harness for sgpu_host_bridge: "never apply twice" (docs/link-protocol.md,
// Retransmission), observed at the ports.  host_bridge.sby cuts the parser
// (its frame registers become free values each cycle: any sequence of
// received frames, good or bad, with any SEQ / CMD / COUNT) and the CRC
// step counter of the answer (bytes leave with any timing), so a bounded
// run covers several whole frames.  This over-approximates the bridge:
// what holds here holds for every byte stream.
// The answer stream (tx bytes) is decoded; host-port writes are counted
// from one answer's SYNC to the next.  At the COUNT of each answer:
//  - NAK or EVENT: no write was made for it (a NAKed frame has no effect);
//  - ACK with INFO.DUPLICATE: no write, and its SEQ is that of the previous
//    ACK;
//  - ACK with the previous ACK's SEQ: no write was made for it.
// So a WRITE whose SEQ was just executed is never applied a second time.
// (That such an ACK says DUPLICATE is not checked here: with the parser cut,
// a READ of COUNT 0, which the real parser refuses, also gets an empty ACK.)
module formal_host_bridge (
  input wire        clk_i,
  input wire        rst_ni,
  input wire        rx_valid_i,
  input wire [7:0]  rx_data_i,
  input wire        tx_ready_i,
  input wire        host_req_ready_i,
  input wire        host_rsp_valid_i,
  input wire [31:0] host_rsp_rdata_i,
  input wire        irq_i
);
  wire        tx_valid, req_valid, req_write, ok, err;
  wire [7:0]  tx_data;
  wire [31:0] req_addr, req_wdata;
  wire [3:0]  req_wstrb;

  sgpu_host_bridge #(.TIMEOUT_CYCLES(16), .AW(12)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .rx_valid_i(rx_valid_i), .rx_data_i(rx_data_i),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready_i), .tx_data_o(tx_data),
    .host_req_valid_o(req_valid), .host_req_ready_i(host_req_ready_i),
    .host_req_write_o(req_write), .host_req_addr_o(req_addr), .host_req_wdata_o(req_wdata),
    .host_req_wstrb_o(req_wstrb), .host_rsp_valid_i(host_rsp_valid_i),
    .host_rsp_rdata_i(host_rsp_rdata_i), .irq_i(irq_i), .frame_ok_o(ok), .frame_err_o(err));

  reg f_init = 1'b1;
  always @(posedge clk_i) f_init <= 1'b0;
  always @(*) if (f_init) assume(!rst_ni);
  always @(*) if (!f_init) assume(rst_ni);

  // one host-port read outstanding at most; answered once
  reg f_rd_q;
  always @(posedge clk_i or negedge rst_ni)
    if (!rst_ni) f_rd_q <= 1'b0;
    else f_rd_q <= (f_rd_q && !host_rsp_valid_i) || (req_valid && host_req_ready_i && !req_write);
  always @(*) if (rst_ni) assume(!host_rsp_valid_i || f_rd_q);

  // ---- answer decoder and write counter
  wire       tx_fire = tx_valid && tx_ready_i;
  wire       wr_fire = req_valid && host_req_ready_i && req_write;
  // header and CRC bytes of an answer
  localparam [9:0] F_FIXED = `SGPU_LINK_RSP_HDR_BYTES + `SGPU_LINK_CRC_BYTES;
  reg [9:0]  f_idx_q;          // byte of the answer being sent
  reg [9:0]  f_len_q;          // bytes of this answer (known from byte 5)
  reg [7:0]  f_seq_q, f_kind_q, f_info_q, f_cnt_q;
  reg [7:0]  f_wr_q;           // writes since this answer's SYNC
  reg [7:0]  f_ack_seq_q;
  reg        f_ack_v_q;
  wire [15:0] f_cnt = {tx_data, f_cnt_q};
  wire       f_hdr_done = tx_fire && f_idx_q == 10'd5;
  wire       f_ack = (f_kind_q == `SGPU_LINK_KIND_ACK);
  wire       f_dup = (f_info_q == `SGPU_LINK_ACK_DUPLICATE);
  wire       f_same = f_ack_v_q && f_seq_q == f_ack_seq_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_idx_q <= 10'd0; f_len_q <= F_FIXED; f_wr_q <= 8'd0; f_ack_v_q <= 1'b0;
    end else begin
      if (tx_fire && f_idx_q == 10'd0) f_wr_q <= {7'd0, wr_fire};
      else if (wr_fire && f_wr_q != 8'hff) f_wr_q <= f_wr_q + 1'b1;
      if (tx_fire) begin
        f_idx_q <= (f_idx_q + 1'b1 == f_len_q && f_idx_q > 10'd5) ? 10'd0 : f_idx_q + 1'b1;
        case (f_idx_q)
          10'd1: f_seq_q  <= tx_data;
          10'd2: f_kind_q <= tx_data;
          10'd3: f_info_q <= tx_data;
          10'd4: f_cnt_q  <= tx_data;
          10'd5: begin
            f_len_q <= F_FIXED + {f_cnt[7:0], 2'b00};
            if (f_ack) begin f_ack_v_q <= 1'b1; f_ack_seq_q <= f_seq_q; end
          end
          default: ;
        endcase
      end
    end
  end

  always @(*) begin
    if (rst_ni && tx_fire && f_idx_q == 10'd0) assert(tx_data == `SGPU_LINK_SYNC);
    if (rst_ni && f_hdr_done) begin
      if (!f_ack) assert(f_wr_q == 8'd0);
      if (f_ack && f_dup) assert(f_wr_q == 8'd0 && f_same);
      if (f_ack && f_same) assert(f_wr_q == 8'd0);
      // a write answer carries no data
      if (f_ack && f_wr_q != 8'd0) assert(f_cnt == 16'd0 && !f_dup);
    end
  end
endmodule
