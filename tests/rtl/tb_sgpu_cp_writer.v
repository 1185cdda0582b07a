// sgpu_cp_writer: the writer port for each of the executor's states, with
// a memory that refuses at random.  Directed: a FENCE writes its value
// once (fence_done on acceptance), a TIMESTAMP writes the cycle count of
// the accepting cycle and then the high word it is given, WRITE_DATA
// writes the stream words as they come, the RPTR write-back its pointer to
// RPTR_ADDR, WAIT_MEM's poll reads one at a time; stop_i withdraws.  Then
// random inputs every cycle against a model of the port kept here (its own
// "high word next" flag), and the valid/ready rule: a request that waits
// is there, unchanged, in the next cycle (TIMESTAMP's live low word aside).
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_sgpu_cp_writer;
  localparam IW = 20;
  reg clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  reg           s_wdata, s_one, s_wb, s_poll, fence, ts, ts_start, stop, ppend, wvalid, ready;
  reg  [31:0]   word, data, cyc_lo;
  reg  [IW-1:0] addr, rptr;
  reg  [IW-1:2] rpa;
  wire          v, w, ts_hi, wstep, tstep, fdone, psent, live;
  wire [31:0]   a, d;
  wire [3:0]    s;

  sgpu_cp_writer #(.IW(IW)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .st_wdata_i(s_wdata), .st_one_i(s_one), .st_wb_i(s_wb), .st_poll_i(s_poll),
    .op_fence_i(fence), .op_ts_i(ts), .ts_start_i(ts_start), .stop_i(stop), .poll_pend_i(ppend),
    .word_valid_i(wvalid), .word_i(word), .addr_i(addr), .data_i(data), .rptr_addr_i(rpa),
    .rptr_i(rptr), .cycle_lo_i(cyc_lo),
    .wr_req_valid_o(v), .wr_req_ready_i(ready), .wr_req_write_o(w), .wr_req_addr_o(a),
    .wr_req_wdata_o(d), .wr_req_wstrb_o(s),
    .ts_hi_o(ts_hi), .wdata_step_o(wstep), .ts_step_o(tstep), .fence_done_o(fdone),
    .poll_sent_o(psent), .f_wdata_live_o(live));

  always @(posedge clk) cyc_lo <= cyc_lo + 32'd1;

  task idle; begin
    s_wdata = 0; s_one = 0; s_wb = 0; s_poll = 0; fence = 0; ts = 0; ts_start = 0; stop = 0;
    ppend = 0; wvalid = 0; ready = 0;
  end endtask

  integer seed, k, n, acc;
  reg [31:0] got_lo;
  reg        m_hi;                     // model: TIMESTAMP's high word next
  reg        e_v, e_w;
  reg [31:0] e_a, e_d;
  reg        f_wait_q, f_live_q;
  reg [68:0] f_req_q;
  `include "tb_random.vh"

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 7;
    idle; word = 0; data = 0; cyc_lo = 32'h100; addr = 0; rptr = 0; rpa = 0;
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    if (v !== 1'b0 || ts_hi !== 1'b0 || s !== 4'hF) $fatal(1, "reset state");

    // ---- FENCE: the value to the address, once
    s_one = 1; fence = 1; addr = 20'h01230; data = 32'hFEED_0001; ready = 0;
    #1 if (!v || !w || a !== 32'h01230 || d !== 32'hFEED_0001 || fdone) $fatal(1, "FENCE request");
    @(posedge clk); #1 ready = 1;
    #1 if (!fdone || !v) $fatal(1, "FENCE not done on acceptance");
    @(posedge clk); #1 idle;

    // ---- TIMESTAMP: low word = count of the accepting cycle, then the high word
    ts_start = 1; ts = 1; @(posedge clk); #1 ts_start = 0;
    s_one = 1; ts = 1; addr = 20'h00400; data = 32'hDEAD_BEEF;
    #1 if (!live || ts_hi) $fatal(1, "TIMESTAMP low word not live");
    repeat (3) begin @(posedge clk); #1 if (d !== cyc_lo) $fatal(1, "low word %h, count %h", d, cyc_lo); end
    ready = 1; #1 got_lo = d;
    if (!tstep || got_lo !== cyc_lo) $fatal(1, "TIMESTAMP low word at acceptance");
    @(posedge clk); #1;
    if (!ts_hi || live || d !== 32'hDEAD_BEEF) $fatal(1, "TIMESTAMP high word");
    @(posedge clk); #1 idle;
    if (!ts_hi) $fatal(1, "high flag held until the next TIMESTAMP");
    ts_start = 1; #1; @(posedge clk); #1 ts_start = 0;
    if (ts_hi) $fatal(1, "a TIMESTAMP's start clears the high flag");

    // ---- WRITE_DATA: the stream word, while it is valid
    s_wdata = 1; addr = 20'h00800; word = 32'h1111_2222; wvalid = 0; ready = 1;
    #1 if (v || wstep) $fatal(1, "WRITE_DATA without a word");
    wvalid = 1; #1 if (!v || !w || d !== 32'h1111_2222 || a !== 32'h800 || !wstep) $fatal(1, "WRITE_DATA word");
    ready = 0; #1 if (wstep) $fatal(1, "WRITE_DATA step without acceptance");
    @(posedge clk); #1 idle;

    // ---- RPTR write-back
    s_wb = 1; rpa = 18'h0ABCD; rptr = 20'h00FF0; addr = 20'h12344;
    #1 if (!v || !w || a !== {12'd0, 18'h0ABCD, 2'b00} || d !== 32'h00FF0) $fatal(1, "RPTR write-back");
    @(posedge clk); #1 idle;

    // ---- WAIT_MEM poll: a read, one at a time
    s_poll = 1; addr = 20'h02000; ppend = 0; ready = 1;
    #1 if (!v || w || a !== 32'h2000 || !psent) $fatal(1, "poll read");
    ppend = 1; #1 if (v || psent) $fatal(1, "second poll while one is in flight");
    @(posedge clk); #1 idle;

    // ---- stop withdraws every request
    s_one = 1; fence = 1; stop = 1; ready = 1;
    #1 if (v || fdone) $fatal(1, "FENCE under stop");
    idle; s_wb = 1; stop = 1; #1 if (v) $fatal(1, "write-back under stop");
    @(posedge clk); #1 idle;

    // ---- random, against the model, with the valid/ready rule
    ts_start = 1; @(posedge clk); #1 idle;
    m_hi = 0; f_wait_q = 0; f_live_q = 0; acc = 0;
    for (k = 0; k < 20000; k = k + 1) begin
      // the state changes only after an acceptance (or at random with no request waiting)
      if (!f_wait_q || stop) begin
        n = $unsigned(tb_random(0)) % 5;
        s_wdata = (n == 0); s_one = (n == 1); s_wb = (n == 2); s_poll = (n == 3);
        fence = tb_random(0); ts = !fence && tb_random(0);
        addr = tb_random(0) & ~32'h3; rpa = tb_random(0); rptr = tb_random(0) & ~32'h3;
        data = tb_random(0); word = tb_random(0); wvalid = tb_random(0);
        ppend = (tb_random(0) % 3 == 0);
      end
      ts_start = (n == 4) && tb_random(0);
      stop = ($unsigned(tb_random(0)) % 50 == 0);
      ready = tb_random(0);
      #1;
      e_v = !stop && ((s_wdata && wvalid) || s_one || s_wb || (s_poll && !ppend));
      e_w = !s_poll;
      e_a = s_wb ? {12'd0, rpa, 2'b00} : {12'd0, addr};
      e_d = s_wdata ? word : s_wb ? {12'd0, rptr} : (ts && !m_hi) ? cyc_lo : data;
      if (v !== e_v || w !== e_w || a !== e_a || (e_w && d !== e_d) || ts_hi !== m_hi)
        $fatal(1, "cycle %0d: valid %b write %b addr %h data %h hi %b; expected %b %b %h %h %b",
               k, v, w, a, d, ts_hi, e_v, e_w, e_a, e_d, m_hi);
      if (wstep !== (s_wdata && e_v && ready) || tstep !== (s_one && ts && ready) ||
          fdone !== (s_one && fence && e_v && ready) || psent !== (s_poll && e_v && ready) ||
          live !== (s_one && ts && !m_hi))
        $fatal(1, "cycle %0d: events", k);
      if (f_wait_q && !stop) begin
        if (!v || {w, a} !== f_req_q[68:36] || (w && !f_live_q && d !== f_req_q[35:4]))
          $fatal(1, "cycle %0d: a waiting request changed", k);
      end
      if (v && ready) acc = acc + 1;
      @(posedge clk);
      if (ts_start) m_hi = 0; else if (s_one && ts && ready) m_hi = 1;
      f_wait_q = v && !ready; f_live_q = live; f_req_q = {w, a, d, s};
      #1;
      // a write that waits keeps its data: only the stream word could move, and it is held
    end
    if (acc < 1000) $fatal(1, "only %0d requests accepted", acc);
    $display("PASS tb_sgpu_cp_writer");
    $finish;
  end
endmodule
