// tb_sgpu_sram: the memory-port slave against a shadow array.
// Random reads and writes with random byte strobes, back to back and with
// idle cycles: req_ready is always 1, each read returns the shadow's word
// exactly one cycle later, writes return nothing and are visible to the
// very next read.  Two sizes: 1 KiB (heavy traffic, address wrap) and the
// iCEBreaker's 128 KiB (whole address range).
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_sram;

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer seed = 32'h05A4_0001;
  `include "tb_random.vh"

  reg         valid [0:1];
  reg         write [0:1];
  reg  [31:0] addr [0:1];
  reg  [31:0] wdata [0:1];
  reg  [3:0]  wstrb [0:1];
  wire        ready0, ready1, rv0, rv1;
  // The ports are driven from plain copies of the arrays (apply, after each
  // change): Verilator 5.006 did not propagate writes to the array elements
  // into ports connected to them, and the responses went missing.
  reg         p_valid0, p_valid1, p_write0, p_write1;
  reg  [31:0] p_addr0, p_addr1, p_wdata0, p_wdata1;
  reg  [3:0]  p_wstrb0, p_wstrb1;
  task apply;
    begin
      p_valid0 = valid[0]; p_write0 = write[0]; p_addr0 = addr[0]; p_wdata0 = wdata[0];
      p_wstrb0 = wstrb[0];
      p_valid1 = valid[1]; p_write1 = write[1]; p_addr1 = addr[1]; p_wdata1 = wdata[1];
      p_wstrb1 = wstrb[1];
    end
  endtask
  wire [31:0] rd0, rd1;

  sgpu_sram #(.BYTES(1024)) u_small (
    .clk_i(clk), .rst_ni(rst_n), .req_valid_i(p_valid0), .req_ready_o(ready0),
    .req_write_i(p_write0), .req_addr_i(p_addr0), .req_wdata_i(p_wdata0), .req_wstrb_i(p_wstrb0),
    .rsp_valid_o(rv0), .rsp_rdata_o(rd0));

  sgpu_sram #(.BYTES(131072)) u_big (
    .clk_i(clk), .rst_ni(rst_n), .req_valid_i(p_valid1), .req_ready_o(ready1),
    .req_write_i(p_write1), .req_addr_i(p_addr1), .req_wdata_i(p_wdata1), .req_wstrb_i(p_wstrb1),
    .rsp_valid_o(rv1), .rsp_rdata_o(rd1));

  reg [31:0] shadow0 [0:255];
  reg [31:0] shadow1 [0:32767];
  reg        exp_v [0:1];
  reg [31:0] exp_d [0:1];            // checked at the next rising edge
  reg [31:0] pend_d [0:1];           // of the request being driven
  integer    reads [0:1];
  integer    i, u, w;

  function [31:0] merge(input [31:0] old, input [31:0] d, input [3:0] s);
    begin
      merge = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
               s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
    end
  endfunction

  // responses are checked at each rising edge, against what was predicted
  // when the read was issued one cycle earlier
  always @(posedge clk) begin
    if (rst_n) begin
      if (!ready0 || !ready1) $fatal(1, "req_ready must always be 1");
      if (rv0 !== exp_v[0]) $fatal(1, "small: rsp_valid %b, want %b", rv0, exp_v[0]);
      if (rv1 !== exp_v[1]) $fatal(1, "big: rsp_valid %b, want %b", rv1, exp_v[1]);
      if (exp_v[0] && rd0 !== exp_d[0]) $fatal(1, "small: read %h, want %h", rd0, exp_d[0]);
      if (exp_v[1] && rd1 !== exp_d[1]) $fatal(1, "big: read %h, want %h", rd1, exp_d[1]);
    end
  end

  task drive(input integer un, input v, input wr, input [31:0] a, input [31:0] d, input [3:0] s);
    begin
      valid[un] = v; write[un] = wr; addr[un] = a; wdata[un] = d; wstrb[un] = s;
      apply;
    end
  endtask

  integer wa;
  initial begin
    if ($value$plusargs("seed=%d", seed)) $display("seed %0d", seed);
    for (u = 0; u < 2; u = u + 1) begin
      valid[u] = 1'b0; write[u] = 1'b0; addr[u] = 0; wdata[u] = 0; wstrb[u] = 0;
      exp_v[u] = 1'b0; exp_d[u] = 0; reads[u] = 0;
    end
    apply;
    repeat (3) @(posedge clk);
    #1 rst_n = 1'b1;
    // fill both memories (whole words) so the shadows are defined
    for (i = 0; i < 32768; i = i + 1) begin
      w = tb_random(0);
      shadow1[i] = w;
      if (i < 256) shadow0[i] = ~w;
      drive(1, 1'b1, 1'b1, i * 4, w, 4'hF);
      drive(0, i < 256, 1'b1, i * 4, ~w, 4'hF);
      @(posedge clk); #1;
    end
    drive(0, 1'b0, 1'b0, 0, 0, 0);
    drive(1, 1'b0, 1'b0, 0, 0, 0);
    @(posedge clk); #1;
    // random traffic
    for (i = 0; i < 40000; i = i + 1) begin
      for (u = 0; u < 2; u = u + 1) begin
        valid[u] = (tb_random(0) % 4 != 0);
        write[u] = tb_random(0) % 2;
        wdata[u] = tb_random(0);
        wstrb[u] = tb_random(0);
        if (u == 0) begin
          // addresses beyond 1 KiB wrap; bits [1:0] stay 0
          addr[0] = {tb_random(0)} & 32'h0000_0FFC;
          wa = addr[0][9:2];
          if (valid[0] && write[0]) shadow0[wa] = merge(shadow0[wa], wdata[0], wstrb[0]);
          pend_d[0] = shadow0[wa];
        end else begin
          addr[1] = {tb_random(0)} & 32'h0001_FFFC;
          wa = addr[1][16:2];
          if (valid[1] && write[1]) shadow1[wa] = merge(shadow1[wa], wdata[1], wstrb[1]);
          pend_d[1] = shadow1[wa];
        end
        if (valid[u] && !write[u]) reads[u] = reads[u] + 1;
      end
      apply;
      @(posedge clk);
      // the expectation for this edge's response was the previous cycle's
      // request; set up the next one
      #1;
      exp_v[0] = valid[0] && !write[0];
      exp_v[1] = valid[1] && !write[1];
      exp_d[0] = pend_d[0];
      exp_d[1] = pend_d[1];
    end
    valid[0] = 1'b0; valid[1] = 1'b0;
    apply;
    @(posedge clk); #1;
    exp_v[0] = 1'b0; exp_v[1] = 1'b0;
    @(posedge clk); #1;
    $display("tb_sgpu_sram: PASS (%0d + %0d reads checked)", reads[0], reads[1]);
    $finish;
  end

endmodule
