// Harness for sgpu_fetch.  The memory answers every read exactly once, in
// order (a response only when a read is outstanding); the consumer and the
// controls (start, flush, en, end) are free.  base and mask change only
// in the cycle after a start or while stopped; start offsets lie inside
// the mask.
// Checked, from the ports:
//  - the requests walk the buffer: each address is base | off with off the
//    start offset plus 4 per accepted request, wrapped by the mask (inside
//    the buffer, nothing skipped or repeated), and never off == end;
//  - reads in flight never exceed DEPTH (and, in sgpu_fetch's own block,
//    in flight + words held never exceed DEPTH: no response is lost);
//  - a response is passed on (word_o) exactly when it is not stale: reads
//    issued before a start / flush are dropped;
//  - valid/ready on the request port.  The fetcher legitimately withdraws
//    a waiting request: after start_i / flush_i, when en_i is low, and when
//    end_i or base_i change under it (the consumer moved the window).
module formal_fetch #(
  parameter integer AW           = 6,
  parameter integer DEPTH        = 4,
  parameter integer START_ACTIVE = 0,
  parameter integer BYPASS       = 0
) (
  input wire          clk_i,
  input wire          rst_ni,
  input wire          start_i,
  input wire [AW-1:0] start_off_i,
  input wire          flush_i,
  input wire          en_i,
  input wire [AW-1:0] base_i,
  input wire [AW-1:0] mask_i,
  input wire [AW-1:0] end_i,
  input wire          out_ready_i,
  input wire          mem_req_ready_i,
  input wire          mem_rsp_valid_i,
  input wire [31:0]   mem_rsp_rdata_i
);
  localparam integer CW = $clog2(DEPTH) + 1;

  // The data path is checked by the FIFO's own properties; one data bit
  // keeps the proof small (two values tell words apart).
  wire        out_valid, req_valid, word;
  wire [31:0] out_data, req_addr;

  sgpu_fetch #(.AW(AW), .DEPTH(DEPTH), .START_ACTIVE(START_ACTIVE), .BYPASS(BYPASS)) dut (
    .clk_i(clk_i), .rst_ni(rst_ni), .start_i(start_i), .start_off_i(start_off_i),
    .flush_i(flush_i), .en_i(en_i), .base_i(base_i), .mask_i(mask_i), .end_i(end_i),
    .out_valid_o(out_valid), .out_ready_i(out_ready_i), .out_data_o(out_data),
    .mem_req_valid_o(req_valid), .mem_req_ready_i(mem_req_ready_i),
    .mem_req_addr_o(req_addr), .mem_rsp_valid_i(mem_rsp_valid_i),
    .mem_rsp_rdata_i({31'd0, mem_rsp_rdata_i[0]}), .word_o(word));

  reg f_init = 1'b1;
  always @(posedge clk_i) f_init <= 1'b0;
  always @(*) if (f_init) assume(!rst_ni);

  wire fire = req_valid && mem_req_ready_i;

  // ---- environment model
  reg [CW:0]   f_out_q;      // reads outstanding
  reg [CW:0]   f_stale_q;    // of those, issued before the last start / flush
  reg          f_active_q;   // started and not flushed
  reg [AW-1:0] f_off_q;      // the offset the next request must have
  reg [AW-1:0] f_base_q, f_mask_q, f_end_q;
  reg          f_start_q, f_flush_q;
  wire [CW:0]  f_out_d = f_out_q + {{CW{1'b0}}, fire} - {{CW{1'b0}}, mem_rsp_valid_i};

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_out_q    <= {(CW+1){1'b0}};
      f_stale_q  <= {(CW+1){1'b0}};
      f_active_q <= (START_ACTIVE != 0);
      f_off_q    <= {AW{1'b0}};
    end else begin
      f_out_q <= f_out_d;
      if (start_i || flush_i) f_stale_q <= f_out_d;
      else if (mem_rsp_valid_i && f_stale_q != 0) f_stale_q <= f_stale_q - 1'b1;
      if (start_i) begin f_active_q <= 1'b1; f_off_q <= start_off_i; end
      else if (flush_i) f_active_q <= 1'b0;
      else if (fire) f_off_q <= (f_off_q + 4) & mask_i;
    end
  end
  always @(posedge clk_i) begin
    f_base_q  <= base_i;
    f_mask_q  <= mask_i;
    f_end_q   <= end_i;
    f_start_q <= start_i;
    f_flush_q <= flush_i;
  end

  always @(*) begin
    if (rst_ni) begin
      assume(!mem_rsp_valid_i || f_out_q != 0);
      assume((base_i & mask_i) == {AW{1'b0}} && base_i[1:0] == 2'b00);
      assume(mask_i[1:0] == 2'b11);
      if (start_i) assume(start_off_i[1:0] == 2'b00);
      // sgpu_cp loads a new base / size in the cycle after the start; the
      // start offset lies inside the new mask
      if (!f_init && f_start_q) assume((f_off_q & ~mask_i) == {AW{1'b0}});
      if (!f_init && f_active_q && !f_start_q) assume(base_i == f_base_q && mask_i == f_mask_q);
    end
  end

  // ---- properties
  always @(*) begin
    if (rst_ni && !f_init) begin
      if (req_valid) begin
        assert(f_active_q);
        assert((f_off_q & ~mask_i) == {AW{1'b0}} && f_off_q[1:0] == 2'b00);
        assert(req_addr == {{(32-AW){1'b0}}, base_i | f_off_q});
        assert(f_off_q != end_i);
      end
      assert(f_out_q <= DEPTH);
      assert(word == (mem_rsp_valid_i && f_stale_q == 0 && !start_i && !flush_i));
    end
  end

  sgpu_vr_check #(.W(32)) u_req_vr (
    .clk_i(clk_i), .rst_ni(rst_ni), .valid_i(req_valid), .ready_i(mem_req_ready_i),
    .payload_i(req_addr),
    .excuse_i(f_start_q || f_flush_q || !en_i || end_i != f_end_q || base_i != f_base_q));

  always @(posedge clk_i) begin
    cover(rst_ni && f_out_q == DEPTH);
    cover(rst_ni && f_stale_q == 2 && f_out_q == 3 && req_valid);
    cover(rst_ni && word && out_valid && out_ready_i);
  end
endmodule
