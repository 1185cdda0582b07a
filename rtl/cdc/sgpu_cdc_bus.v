// sgpu_cdc_bus — multi-bit value crossing by request/acknowledge handshake.
//
// The source side samples src_data_i into a hold register and flips req; the
// destination sees req through a two-flop sgpu_cdc_sync, copies the hold
// register (stable since before req flipped) into dst_data_o and flips ack;
// once ack has crossed back the source samples again.  A round trip takes
// about 3 destination + 3 source cycles; a value that src_data_i holds
// shows at dst_data_o within two round trips (at most 8 + 8 cycles), and
// every value dst_data_o takes was a whole value of src_data_i (no torn
// words).
// A value held for less than a round trip may be skipped; the consumers
// (scanline, frame configuration, rows fetched) only need the latest one.
// dst_update_o is high for one cycle with each refresh of dst_data_o (the
// value may be the same as before).
module sgpu_cdc_bus #(
  parameter integer     WIDTH     = 8,
  parameter [WIDTH-1:0] RESET_VAL = {WIDTH{1'b0}}
) (
  input  wire             src_clk_i,
  input  wire             src_rst_ni,
  input  wire [WIDTH-1:0] src_data_i,
  input  wire             dst_clk_i,
  input  wire             dst_rst_ni,
  output wire [WIDTH-1:0] dst_data_o,
  output wire             dst_update_o
);

  // ------------------------------------------------------------ source
  reg  [WIDTH-1:0] hold_q;
  reg              req_q;
  wire             ack_s;        // ack in the source domain
  wire             src_idle = (req_q == ack_s);

  always @(posedge src_clk_i or negedge src_rst_ni) begin
    if (!src_rst_ni) begin
      hold_q <= RESET_VAL;
      req_q  <= 1'b0;
    end else if (src_idle) begin
      hold_q <= src_data_i;
      req_q  <= !req_q;
    end
  end

  // ------------------------------------------------------------ destination
  reg  [WIDTH-1:0] data_q;
  reg              ack_q, upd_q;
  wire             req_d;        // req in the destination domain

  sgpu_cdc_sync #(.WIDTH(1)) u_req_sync (
    .clk_i(dst_clk_i), .rst_ni(dst_rst_ni), .d_i(req_q), .q_o(req_d));

  always @(posedge dst_clk_i or negedge dst_rst_ni) begin
    if (!dst_rst_ni) begin
      data_q <= RESET_VAL;
      ack_q  <= 1'b0;
      upd_q  <= 1'b0;
    end else begin
      upd_q <= (req_d != ack_q);
      if (req_d != ack_q) begin
        data_q <= hold_q;        // stable: it changes only after ack returns
        ack_q  <= req_d;
      end
    end
  end

  sgpu_cdc_sync #(.WIDTH(1)) u_ack_sync (
    .clk_i(src_clk_i), .rst_ni(src_rst_ni), .d_i(ack_q), .q_o(ack_s));

  assign dst_data_o   = data_q;
  assign dst_update_o = upd_q;

endmodule
