// sgpu_cdc_fifo — asynchronous (dual-clock) FIFO, first-word fall-through.
//
// 2^AW entries of WIDTH bits in flip-flops.  Each side keeps its pointer
// (AW+1 bits: the extra bit tells full from empty) in binary and in Gray
// code, both registered; only the Gray pointer crosses, through a two-flop
// sgpu_cdc_sync, so the other side sees either the old or the new value of
// a pointer that moved by one, never a mix.  The writer judges full against
// a delayed read pointer and the reader judges empty against a delayed write
// pointer, so both are conservative: an entry is read only after its write
// pointer update has crossed, i.e. long after the entry itself settled.
//
// Write: w_valid_i && w_ready_o stores w_data_i.  Read: r_valid_o says
// r_data_o holds the oldest entry; r_ready_i && r_valid_o drops it.
module sgpu_cdc_fifo #(
  parameter integer WIDTH = 8,
  parameter integer AW    = 2              // log2 of the depth, >= 1
) (
  input  wire             w_clk_i,
  input  wire             w_rst_ni,
  input  wire             w_valid_i,
  output wire             w_ready_o,       // not full
  input  wire [WIDTH-1:0] w_data_i,
  input  wire             r_clk_i,
  input  wire             r_rst_ni,
  output wire             r_valid_o,       // not empty
  input  wire             r_ready_i,
  output wire [WIDTH-1:0] r_data_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // AW: log2 of the depth; Gray pointers of AW + 1 bits.
  generate if (!(AW >= 1)) begin : g_bad_aw
    sgpu_precondition_failed_AW_at_least_1 u_fail ();
  end endgenerate

  localparam integer DEPTH = 1 << AW;
  // Full: the write pointer is a whole lap ahead, in Gray code the two top
  // bits differ and the others are equal.
  /* verilator lint_off WIDTH */
  localparam [AW:0] FULL_MASK = 3 << (AW - 1);
  /* verilator lint_on WIDTH */

  reg [WIDTH-1:0] mem_q [0:DEPTH-1];
  reg [AW:0]      rbin_q, rgray_q;         // read pointer (read side)
  reg [AW:0]      wbin_q, wgray_q;         // write pointer (write side)

  // ------------------------------------------------------------ write side
  wire [AW:0] rgray_w;                     // read pointer, write domain
  wire        w_full = (wgray_q == (rgray_w ^ FULL_MASK));
  wire        w_fire = w_valid_i && !w_full;
  wire [AW:0] wbin_d = wbin_q + 1'b1;

  always @(posedge w_clk_i or negedge w_rst_ni) begin
    if (!w_rst_ni) begin
      wbin_q  <= {(AW+1){1'b0}};
      wgray_q <= {(AW+1){1'b0}};
    end else if (w_fire) begin
      wbin_q  <= wbin_d;
      wgray_q <= wbin_d ^ (wbin_d >> 1);
    end
  end

  // Storage has no reset (only written entries are ever read).
  always @(posedge w_clk_i) begin
    if (w_fire) mem_q[wbin_q[AW-1:0]] <= w_data_i;
  end

  sgpu_cdc_sync #(.WIDTH(AW + 1)) u_rptr_sync (
    .clk_i(w_clk_i), .rst_ni(w_rst_ni), .d_i(rgray_q), .q_o(rgray_w));

  assign w_ready_o = !w_full;

  // ------------------------------------------------------------ read side
  wire [AW:0] wgray_r;                     // write pointer, read domain
  wire        r_empty = (rgray_q == wgray_r);
  wire        r_fire  = r_ready_i && !r_empty;
  wire [AW:0] rbin_d  = rbin_q + 1'b1;

  always @(posedge r_clk_i or negedge r_rst_ni) begin
    if (!r_rst_ni) begin
      rbin_q  <= {(AW+1){1'b0}};
      rgray_q <= {(AW+1){1'b0}};
    end else if (r_fire) begin
      rbin_q  <= rbin_d;
      rgray_q <= rbin_d ^ (rbin_d >> 1);
    end
  end

  sgpu_cdc_sync #(.WIDTH(AW + 1)) u_wptr_sync (
    .clk_i(r_clk_i), .rst_ni(r_rst_ni), .d_i(wgray_q), .q_o(wgray_r));

  assign r_valid_o = !r_empty;
  assign r_data_o  = mem_q[rbin_q[AW-1:0]];

endmodule
