// sgpu_link_rx_fifo: the host bridge's receive FIFO (docs/link-protocol.md,
// Device behaviour), in front of the frame parser.
//
// Bytes come in strobes (in_valid_i; no back-pressure: a byte that finds
// the FIFO full is dropped).  The parser pulls: while pull_i is high and a
// byte waits, the FIFO reads it from its RAM and strobes it a cycle later
// (out_valid_o, out_data_o); at most every other cycle, so pull_i is the
// parser's "I can take a byte in the next cycle".  Pointers are one bit
// wider than the address: equal = empty, equal but for the top bit = full.
// sgpu_fifo_ram is not used: its first-word fall-through output and bypass
// register show a byte a cycle earlier and cost cells the iCE40 image needs.
//
// RX_FIFO_BYTES 0: no FIFO, the bytes go straight through (out_valid_o =
// in_valid_i) and pull_i is ignored: the parser drops those that come
// while it cannot take them.
`include "sgpu_hw.vh"

module sgpu_link_rx_fifo #(
  parameter integer RX_FIFO_BYTES = `SGPU_LINK_RX_FIFO_BYTES   // a power of two >= 2, or 0
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       in_valid_i,
  input  wire [7:0] in_data_i,
  input  wire       pull_i,       // the consumer can take a byte in the next cycle
  output wire       out_valid_o,  // a byte for the consumer (a strobe)
  output wire [7:0] out_data_o
);

  localparam integer RXB = RX_FIFO_BYTES;
  localparam integer RXW = (RXB > 1) ? $clog2(RXB) : 1;   // address width

  generate if (RXB > 0) begin : g_fifo
    // no_rw_check: the read address equals the write address only when
    // the FIFO is empty (no read) or full (no write)
    (* no_rw_check *)
    reg [7:0]   mem_q [0:RXB-1];
    reg [7:0]   data_q;
    reg [RXW:0] wptr_q, rptr_q;
    reg         valid_q;
    wire        lo_eq = (wptr_q[RXW-1:0] == rptr_q[RXW-1:0]);
    wire        empty = lo_eq && (wptr_q[RXW] == rptr_q[RXW]);
    wire        push  = in_valid_i && !(lo_eq && !empty);
    wire        pop   = !empty && !valid_q && pull_i;
    always @(posedge clk_i) begin
      if (push) mem_q[wptr_q[RXW-1:0]] <= in_data_i;
      if (pop)  data_q <= mem_q[rptr_q[RXW-1:0]];
    end
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wptr_q  <= {(RXW+1){1'b0}};
        rptr_q  <= {(RXW+1){1'b0}};
        valid_q <= 1'b0;
      end else begin
        wptr_q  <= wptr_q + {{RXW{1'b0}}, push};
        rptr_q  <= rptr_q + {{RXW{1'b0}}, pop};
        valid_q <= pop;
      end
    end
    assign out_valid_o = valid_q;
    assign out_data_o  = data_q;

`ifdef FORMAL
    // The pull handshake: a byte is strobed only in the cycle after a
    // pull, never in two cycles running; the FIFO holds at most RXB bytes
    // (a byte that finds it full is dropped, not written over the oldest).
    reg        f_past = 1'b0;
    wire [RXW:0] f_count = wptr_q - rptr_q;
    always @(posedge clk_i) begin
      f_past <= 1'b1;
      if (f_past && rst_ni && $past(rst_ni)) begin
        if (out_valid_o) assert($past(pull_i) && !$past(out_valid_o));
        if ($past(f_count) == RXB[RXW:0]) assert(wptr_q == $past(wptr_q));
      end
    end
    always @(*) if (rst_ni) assert(f_count <= RXB[RXW:0]);
`endif
  end else begin : g_direct
    assign out_valid_o = in_valid_i;
    assign out_data_o  = in_data_i;
    wire unused_direct = &{1'b0, clk_i, rst_ni, pull_i};
  end endgenerate

endmodule
