// DMA stream fetcher: reads words at base|off (off wraps with mask) while
// off != end, into a FIFO, keeping as many reads in flight as the FIFO has
// free slots.  start/flush drop the FIFO and count the reads still in flight
// as "to drop", so stale responses never reach the consumer.  The FIFO is
// block RAM (sgpu_fifo_ram).
`include "sgpu_hw.vh"
module sgpu_fetch #(
  parameter AW           = 23,
  parameter DEPTH        = 4,
  parameter START_ACTIVE = 0,
  parameter BYPASS       = 1   // sgpu_fifo_ram: 0 saves a register, +1 cycle into an empty FIFO
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  input  wire          start_i,      // flush and restart at start_off_i
  input  wire [AW-1:0] start_off_i,
  input  wire          flush_i,      // flush and stop
  input  wire          en_i,         // may issue new reads
  input  wire [AW-1:0] base_i,
  input  wire [AW-1:0] mask_i,
  input  wire [AW-1:0] end_i,
  output wire          out_valid_o,
  input  wire          out_ready_i,
  output wire [31:0]   out_data_o,
  output wire          mem_req_valid_o,
  input  wire          mem_req_ready_i,
  output wire [31:0]   mem_req_addr_o,
  input  wire          mem_rsp_valid_i,
  input  wire [31:0]   mem_rsp_rdata_i,
  output wire          word_o        // a word entered the FIFO
);
  localparam CW = $clog2(DEPTH) + 1;

  reg          active_q;
  reg [AW-1:0] off_q;
  reg [CW-1:0] infl_q, drop_q;
  wire [CW-1:0] fcount;

  wire flush = start_i | flush_i;
  // infl + fifo count never exceeds DEPTH: every read has a slot waiting.
  wire room  = ({1'b0, infl_q} + {1'b0, fcount}) < DEPTH[CW:0];
  assign mem_req_valid_o = active_q & en_i & (off_q != end_i) & room;
  assign mem_req_addr_o  = {{(32-AW){1'b0}}, base_i | off_q};

  wire req_fire = mem_req_valid_o & mem_req_ready_i;
  wire dropping = (drop_q != {CW{1'b0}});
  wire push     = mem_rsp_valid_i & ~dropping;
  wire [CW-1:0] infl_d = infl_q + {{(CW-1){1'b0}}, req_fire} - {{(CW-1){1'b0}}, mem_rsp_valid_i};

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= (START_ACTIVE != 0);
      off_q    <= {AW{1'b0}};
      infl_q   <= {CW{1'b0}};
      drop_q   <= {CW{1'b0}};
    end else begin
      infl_q <= infl_d;
      if (flush)                          drop_q <= infl_d;
      else if (mem_rsp_valid_i && dropping) drop_q <= drop_q - 1'b1;
      if (start_i)      begin active_q <= 1'b1; off_q <= start_off_i; end
      else if (flush_i) active_q <= 1'b0;
      else if (req_fire) off_q <= (off_q + 4) & mask_i;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  wire fifo_ready; // never full: reads are only issued with a free slot
  /* verilator lint_on UNUSEDSIGNAL */
  sgpu_fifo_ram #(.WIDTH(32), .DEPTH(DEPTH), .BYPASS(BYPASS)) u_fifo (
    .clk_i(clk_i), .rst_ni(rst_ni), .clr_i(flush),
    .in_valid_i(push), .in_ready_o(fifo_ready), .in_data_i(mem_rsp_rdata_i),
    .out_valid_o(out_valid_o), .out_ready_i(out_ready_i), .out_data_o(out_data_o),
    .count_o(fcount)
  );

  assign word_o = push & ~flush;

`ifdef FORMAL
  // Formal (tests/formal/fetch.sby, harness formal_fetch): every read in
  // flight has a FIFO slot waiting, so a response is never lost, and the
  // responses to drop are a part of those in flight.
  always @(*) begin
    if (rst_ni) begin
      assert({1'b0, infl_q} + {1'b0, fcount} <= DEPTH[CW:0]);
      assert(drop_q <= infl_q);
      if (push) assert(fifo_ready);
    end
  end
`endif
endmodule
