// Writer of the command processor (part of sgpu_cp): drives the writer
// memory port for FENCE, WRITE_DATA, TIMESTAMP, the RPTR write-back and
// WAIT_MEM's poll reads, in the executor's states that own the port.
//
// Valid/ready: valid never depends on ready (no combinational loop
// through the arbiter), and once raised it stays, with its address and
// data, until accepted; only the watchdog or an engine reset (stop_i) cuts
// it short.  One exception the interface spec makes: TIMESTAMP's low word
// is the cycle count of the accepting cycle, so its data moves while it
// waits (f_wdata_live_o marks it for the formal harness).
`include "sgpu_hw.vh"
module sgpu_cp_writer #(
  parameter IW = 23               // internal address width (sgpu_cp)
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  // the executor's state
  input  wire          st_wdata_i,     // S_WDATA: WRITE_DATA's words
  input  wire          st_one_i,       // S_WR: one write (FENCE, TIMESTAMP low then high)
  input  wire          st_wb_i,        // S_WB: RPTR write-back
  input  wire          st_poll_i,      // S_POLL: WAIT_MEM's read
  input  wire          op_fence_i,
  input  wire          op_ts_i,        // TIMESTAMP
  input  wire          ts_start_i,     // a TIMESTAMP starts: its low word first
  input  wire          stop_i,         // watchdog or engine reset: withdraw
  input  wire          poll_pend_i,    // a poll read is in flight
  // data
  input  wire          word_valid_i,   // WRITE_DATA: the stream word ...
  input  wire [31:0]   word_i,         // ... written as it comes
  input  wire [IW-1:0] addr_i,         // the packet's address (advanced by the executor)
  input  wire [31:0]   data_i,         // FENCE value; TIMESTAMP's high word
  input  wire [IW-1:2] rptr_addr_i,
  input  wire [IW-1:0] rptr_i,
  input  wire [31:0]   cycle_lo_i,     // the cycle counter's low word
  // port
  output wire          wr_req_valid_o,
  input  wire          wr_req_ready_i,
  output wire          wr_req_write_o,
  output wire [31:0]   wr_req_addr_o,
  output wire [31:0]   wr_req_wdata_o,
  output wire [3:0]    wr_req_wstrb_o,
  // events
  output wire          ts_hi_o,        // TIMESTAMP: the high word is next
  output wire          wdata_step_o,   // a WRITE_DATA word was accepted
  output wire          ts_step_o,      // S_WR, TIMESTAMP: the port took a word (address steps)
  output wire          fence_done_o,   // the FENCE's write was accepted
  output wire          poll_sent_o,    // the poll read was accepted
  output wire          f_wdata_live_o  // the data is TIMESTAMP's live low word
);
  reg ts_hi_q;
  wire wr_valid = !stop_i &&
                  ((st_wdata_i && word_valid_i) || st_one_i || st_wb_i || (st_poll_i && !poll_pend_i));

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ts_hi_q <= 1'b0;
    else if (ts_start_i) ts_hi_q <= 1'b0;
    // TIMESTAMP: the low word goes out live from the cycle counter and
    // counts in the cycle it is accepted; the high word of that same cycle
    // is kept (by the executor, in data_i) for the second write.
    else if (ts_step_o) ts_hi_q <= 1'b1;
  end

  assign wr_req_valid_o = wr_valid;
  assign wr_req_write_o = !st_poll_i;
  assign wr_req_addr_o  = {{(32-IW){1'b0}}, st_wb_i ? {rptr_addr_i, 2'b00} : addr_i};
  assign wr_req_wdata_o = st_wdata_i ? word_i :
                          st_wb_i ? {{(32-IW){1'b0}}, rptr_i} :
                          (op_ts_i && !ts_hi_q) ? cycle_lo_i : data_i;
  assign wr_req_wstrb_o = 4'hF;

  assign ts_hi_o        = ts_hi_q;
  assign wdata_step_o   = st_wdata_i && wr_valid && wr_req_ready_i;
  assign ts_step_o      = st_one_i && wr_req_ready_i && op_ts_i;
  assign fence_done_o   = st_one_i && wr_req_ready_i && wr_valid && op_fence_i;
  assign poll_sent_o    = st_poll_i && wr_valid && wr_req_ready_i;
  assign f_wdata_live_o = st_one_i && op_ts_i && !ts_hi_q;

`ifdef FORMAL
  // At most one of the executor's writer states at a time.
  always @(*) if (rst_ni) assert({1'b0, st_wdata_i} + {1'b0, st_one_i} + {1'b0, st_wb_i} +
                                 {1'b0, st_poll_i} <= 3'd1);
  // Valid/ready: a request that waits is still there in the next cycle,
  // unchanged (TIMESTAMP's live low word aside), unless stop_i cuts it.
  reg        f_past = 1'b0, f_wait_q = 1'b0, f_live_q = 1'b0;
  /* verilator lint_off UNUSEDSIGNAL */
  reg [68:0] f_req_q;
  /* verilator lint_on UNUSEDSIGNAL */
  always @(posedge clk_i) begin
    f_past   <= 1'b1;
    f_wait_q <= rst_ni && wr_valid && !wr_req_ready_i;
    f_live_q <= f_wdata_live_o;
    f_req_q  <= {wr_req_write_o, wr_req_addr_o, wr_req_wdata_o, wr_req_wstrb_o};
  end
  always @(*) if (f_past && rst_ni && f_wait_q && !stop_i) begin
    assert(wr_valid);
    assert(wr_req_write_o == f_req_q[68] && wr_req_addr_o == f_req_q[67:36]);
    if (wr_req_write_o && !f_live_q) assert(wr_req_wdata_o == f_req_q[35:4]);
  end
`endif
endmodule
