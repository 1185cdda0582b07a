// sgpu_cdc_pulse — pulse synchroniser: a one-cycle strobe in the source
// clock domain becomes a one-cycle strobe in the destination domain.
//
// The source flips a toggle flop on each strobe; the toggle crosses through a
// two-flop sgpu_cdc_sync and an edge detector gives the destination strobe,
// 3 to 4 destination cycles later.  Strobes must be at least
// 3 destination cycles + 1 source cycle apart (both clocks at their slowest),
// or two of them merge into one (the display's strobes are a line or a
// frame apart).
module sgpu_cdc_pulse (
  input  wire src_clk_i,
  input  wire src_rst_ni,
  input  wire src_pulse_i,
  input  wire dst_clk_i,
  input  wire dst_rst_ni,
  output wire dst_pulse_o
);

  reg  src_tgl_q;
  always @(posedge src_clk_i or negedge src_rst_ni) begin
    if (!src_rst_ni)      src_tgl_q <= 1'b0;
    else if (src_pulse_i) src_tgl_q <= !src_tgl_q;
  end

  wire dst_tgl;
  sgpu_cdc_sync #(.WIDTH(1)) u_sync (
    .clk_i(dst_clk_i), .rst_ni(dst_rst_ni), .d_i(src_tgl_q), .q_o(dst_tgl));

  reg  dst_tgl_q;
  always @(posedge dst_clk_i or negedge dst_rst_ni) begin
    if (!dst_rst_ni) dst_tgl_q <= 1'b0;
    else             dst_tgl_q <= dst_tgl;
  end

  assign dst_pulse_o = dst_tgl ^ dst_tgl_q;

endmodule
