// tb_sgpu_link_exec: the host bridge's executor, driven directly.
// The bench plays the parser (frames with random SEQ, CMD, COUNT, ADDR,
// write strobes, NO_INCR, NAK reason, DUPLICATE, L, and the write buffer
// with a registered read), the host port (random back-pressure, random
// read latency, a memory) and the UART (random tx_ready), and raises irq
// now and then.  For every frame taken it predicts, per
// docs/link-protocol.md (Answer and event, NAK reasons, Retransmission,
// Events): the answer (KIND, INFO, COUNT, the data: words read, the PING
// info word, L for OUT_OF_ORDER) and the host-port accesses (addresses
// advancing or not and wrapping in the kept bits, data from the buffer,
// byte strobes; none for a NAK or a DUPLICATE).  The answers are decoded
// from the byte stream and their CRC-32 checked with a bit-serial CRC of
// the bench (the residue over the whole answer is 0).  EVENT frames:
// numbered from 0, INT_STATUS read at its address, one per irq rise and one
// more after a register write's answer while irq stays high.  Also: the
// port handshakes hold still while stalled, one read outstanding, bytes
// CRC-loaded at least 8 / CRC_STEP + 1 cycles apart, frame_ok_o /
// frame_err_o once per executed / NAKed frame.  Two executors: link
// version 3 (RX_FIFO_BYTES 2048, CRC_STEP 1, AW 12) and version 2
// (RX_FIFO_BYTES 0, CRC_STEP 8, AW 32).
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_link_exec_run #(
  parameter integer RXB = 2048,
  parameter integer STEP = 1,
  parameter integer AWP = 12,
  parameter integer SEED = 1
) (
  input  wire clk,
  input  wire rst_n,
  output reg  done
);
  localparam integer NSTEPS = 8 / STEP;
  localparam integer KW = (AWP < 12) ? 12 : ((AWP > 31) ? 31 : AWP);
  localparam integer V3 = (RXB > 0) ? 1 : 0;
  localparam [31:0] INT_STATUS = 32'h8000_0010;
  localparam [7:0]  FIFO_UNITS = RXB / 16;
  localparam [31:0] PING_WORD = {8'd0, FIFO_UNITS, 8'd64, V3 ? 8'd3 : 8'd2};
  localparam integer NFRAMES = 600;

  integer seed = SEED;
  `include "tb_random.vh"

  // ------------------------------------------------------------ DUT
  reg         f_valid = 1'b0;
  wire        f_ready;
  reg  [7:0]  f_seq = 8'd0, f_last = 8'd0;
  reg         f_read = 1'b0, f_ping = 1'b0, f_dup = 1'b0, f_incr = 1'b1;
  reg  [2:0]  f_nak = 3'd0;
  reg  [6:0]  f_count = 7'd0;
  reg  [31:0] f_addr = 32'd0;
  reg  [3:0]  f_wstrb = 4'hF;
  wire        wb_busy;
  wire [5:0]  wb_raddr;
  reg  [31:0] wb_rdata;
  wire        tx_valid;
  reg         tx_ready = 1'b0;
  wire [7:0]  tx_data;
  wire        rq_valid, rq_write;
  reg         rq_ready = 1'b0;
  wire [31:0] rq_addr, rq_wdata;
  wire [3:0]  rq_wstrb;
  reg         rs_valid = 1'b0;
  reg  [31:0] rs_rdata = 32'd0;
  reg         irq = 1'b0;
  wire        ok, err;

  sgpu_link_exec #(.AW(AWP), .CRC_STEP(STEP), .RX_FIFO_BYTES(RXB)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .frame_valid_i(f_valid), .frame_ready_o(f_ready), .frame_seq_i(f_seq),
    .frame_read_i(f_read), .frame_ping_i(f_ping), .frame_nak_i(f_nak), .frame_dup_i(f_dup),
    .frame_last_seq_i(f_last), .frame_count_i(f_count), .frame_addr_i(f_addr),
    .frame_wstrb_i(f_wstrb), .frame_incr_i(f_incr),
    .wbuf_busy_o(wb_busy), .wbuf_raddr_o(wb_raddr), .wbuf_rdata_i(wb_rdata),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data),
    .host_req_valid_o(rq_valid), .host_req_ready_i(rq_ready), .host_req_write_o(rq_write),
    .host_req_addr_o(rq_addr), .host_req_wdata_o(rq_wdata), .host_req_wstrb_o(rq_wstrb),
    .host_rsp_valid_i(rs_valid), .host_rsp_rdata_i(rs_rdata),
    .irq_i(irq), .frame_ok_o(ok), .frame_err_o(err));

  function [31:0] crc_byte(input [31:0] c, input [7:0] b);
    integer k;
    begin
      crc_byte = c ^ {b, 24'd0};
      for (k = 0; k < 8; k = k + 1)
        crc_byte = crc_byte[31] ? ((crc_byte << 1) ^ 32'h04C11DB7) : (crc_byte << 1);
    end
  endfunction

  // the address of word i of a frame: bit 31 and [KW-1:2] kept, wrapping
  function [31:0] word_addr(input [31:0] a, input integer i, input incr);
    reg [31:0] w;
    begin
      w = a + (incr ? 4 * i : 0);
      word_addr = 32'd0;
      word_addr[31] = a[31];
      word_addr[KW-1:2] = w[KW-1:2];
    end
  endfunction

  // ------------------------------------------------------------ memory, host port
  reg [31:0] mem [0:2047];           // {addr[31], addr[11:2]}
  reg [31:0] int_status = 32'h0000_0001;
  reg [31:0] wb [0:63];              // the write buffer
  integer    i0;
  initial for (i0 = 0; i0 < 2048; i0 = i0 + 1) mem[i0] = i0 * 32'h9E3779B1;
  function [31:0] rd_value(input [31:0] a);
    rd_value = (a == INT_STATUS) ? int_status : mem[{a[31], a[11:2]}];
  endfunction
  function [31:0] strobed(input [31:0] old, input [31:0] d, input [3:0] s);
    strobed = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
               s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
  endfunction

  // expected host-port accesses of the frame being executed
  reg [31:0] x_acc_addr [0:63];
  reg [31:0] x_acc_data [0:63];
  reg        x_acc_write;
  integer    x_acc_n = 0, acc_n = 0;
  reg [3:0]  x_wstrb;
  // the read in flight
  reg        rd_pend = 1'b0;
  integer    rd_wait = 0;
  reg [31:0] rd_addr;
  reg [31:0] last_int_status_read;
  reg        stall = 1'b0;
  reg [31:0] stall_addr;
  reg [3:0]  stall_strb;
  reg        stall_write;
  reg        stall_tx = 1'b0;
  reg [7:0]  stall_tx_data;
  integer    event_reads = 0;

  always @(posedge clk) begin
    wb_rdata <= wb[wb_raddr];
    if (rst_n) begin
      if (stall && !(rq_valid && rq_addr == stall_addr && rq_write == stall_write && rq_wstrb == stall_strb))
        $fatal(1, "V%0d: a stalled host request changed", V3 ? 3 : 2);
      stall = rq_valid && !rq_ready;
      stall_addr = rq_addr; stall_write = rq_write; stall_strb = rq_wstrb;
      if (stall_tx && !(tx_valid && tx_data == stall_tx_data))
        $fatal(1, "V%0d: an answer byte offered and not taken changed or went", V3 ? 3 : 2);
      stall_tx = tx_valid && !tx_ready;
      stall_tx_data = tx_data;
      if (rq_valid && rd_pend) $fatal(1, "V%0d: a request while a read is outstanding", V3 ? 3 : 2);
      rs_valid <= 1'b0;
      if (rq_valid && rq_ready) begin
        if (!rq_write && rq_addr == INT_STATUS) begin
          // an EVENT's read (no frame covers INT_STATUS)
          event_reads = event_reads + 1;
        end else begin
          if (acc_n >= x_acc_n) $fatal(1, "V%0d: a host access not expected (addr %h write %b)", V3 ? 3 : 2, rq_addr, rq_write);
          if (rq_write !== x_acc_write || rq_addr !== x_acc_addr[acc_n])
            $fatal(1, "V%0d: access %0d: addr %h write %b, expected %h %b", V3 ? 3 : 2, acc_n, rq_addr, rq_write,
                   x_acc_addr[acc_n], x_acc_write);
          if (rq_write && (rq_wdata !== x_acc_data[acc_n] || rq_wstrb !== x_wstrb))
            $fatal(1, "V%0d: write %0d: data %h strobes %h, expected %h %h", V3 ? 3 : 2, acc_n, rq_wdata, rq_wstrb,
                   x_acc_data[acc_n], x_wstrb);
          if (!rq_write && rq_wstrb !== 4'h0) $fatal(1, "V%0d: a read with byte strobes", V3 ? 3 : 2);
          acc_n = acc_n + 1;
        end
        if (rq_write) mem[{rq_addr[31], rq_addr[11:2]}] <= strobed(mem[{rq_addr[31], rq_addr[11:2]}], rq_wdata, rq_wstrb);
        else begin
          rd_pend = 1'b1; rd_addr = rq_addr; rd_wait = $unsigned(tb_random(0)) % 4;
        end
      end else if (rd_pend) begin
        if (rd_wait == 0) begin
          rs_valid <= 1'b1;
          rs_rdata <= rd_value(rd_addr);
          if (rd_addr == INT_STATUS) last_int_status_read = int_status;
          rd_pend = 1'b0;
        end else rd_wait = rd_wait - 1;
      end
      rq_ready <= (tb_random(0) & 3) != 0;
      tx_ready <= (tb_random(0) & 3) != 0;
    end
  end

  // ------------------------------------------------------------ answers
  // expected answers of the frames, in order
  reg [7:0]  x_seq [0:1023], x_kind [0:1023], x_info [0:1023], x_cnt [0:1023];
  reg [31:0] x_data [0:1023][0:63];
  reg        x_regwr [0:1023];         // a register write: re-arms the event
  integer    x_wr = 0, x_rd = 0;
  integer    events_exp = 0, events_got = 0, evt_seq = 0;
  integer    n_ok = 0, n_err = 0, x_ok = 0, x_err = 0;
  reg [7:0]  ab [0:299];               // the answer being received
  integer    an = 0, alen = 6;
  integer    cyc = 0, last_load = -100;
  reg        last_loaded = 1'b0;
  integer    j, fk;
  reg [31:0] c, w;

  always @(posedge clk) begin
    cyc = cyc + 1;
    if (rst_n) begin
      if (ok) n_ok = n_ok + 1;
      if (err) n_err = n_err + 1;
      if (tx_valid && tx_ready) begin
        // a byte loaded into the CRC (all but SYNC and the last) makes the
        // next wait for the steps
        if (last_loaded && cyc - last_load < NSTEPS + 1)
          $fatal(1, "V%0d: answer bytes %0d cycles apart", V3 ? 3 : 2, cyc - last_load);
        ab[an] = tx_data;
        if (an == 0 && tx_data != 8'hA5) $fatal(1, "V%0d: answer without SYNC (%h)", V3 ? 3 : 2, tx_data);
        if (an == 5) alen = 10 + 4 * {ab[5], ab[4]};
        last_loaded = (an != 0) && (an != alen - 1);
        last_load = cyc;
        an = an + 1;
        if (an == alen) begin
          c = 32'hFFFFFFFF;
          for (j = 1; j < alen; j = j + 1) c = crc_byte(c, ab[j]);
          if (c != 32'd0) $fatal(1, "V%0d: answer CRC residue %h", V3 ? 3 : 2, c);
          if (ab[2] == 8'h83) begin
            // EVENT: its number, INT_STATUS
            w = {ab[9], ab[8], ab[7], ab[6]};
            if (ab[1] != evt_seq[7:0] || ab[3] != 8'd0 || alen != 14 || w != last_int_status_read)
              $fatal(1, "V%0d: EVENT seq %h info %h len %0d data %h, expected seq %h data %h", V3 ? 3 : 2,
                     ab[1], ab[3], alen, w, evt_seq[7:0], last_int_status_read);
            evt_seq = evt_seq + 1;
            events_got = events_got + 1;
          end else begin
            if (x_rd == x_wr) $fatal(1, "V%0d: an answer to no frame", V3 ? 3 : 2);
            fk = x_rd % 1024;
            if (ab[1] != x_seq[fk] || ab[2] != x_kind[fk] || ab[3] != x_info[fk] || {ab[5], ab[4]} != x_cnt[fk])
              $fatal(1, "V%0d: answer %0d: seq %h kind %h info %h count %0d, expected %h %h %h %0d", V3 ? 3 : 2,
                     x_rd, ab[1], ab[2], ab[3], {ab[5], ab[4]}, x_seq[fk], x_kind[fk], x_info[fk], x_cnt[fk]);
            for (j = 0; j < x_cnt[fk]; j = j + 1) begin
              w = {ab[9 + 4 * j], ab[8 + 4 * j], ab[7 + 4 * j], ab[6 + 4 * j]};
              if (w != x_data[fk][j])
                $fatal(1, "V%0d: answer %0d word %0d: %h, expected %h", V3 ? 3 : 2, x_rd, j, w, x_data[fk][j]);
            end
            if (acc_n != x_acc_n) $fatal(1, "V%0d: answer %0d after %0d of %0d host accesses", V3 ? 3 : 2, x_rd, acc_n, x_acc_n);
            // a register write's answer re-arms the event while irq is high
            // (unless one is pending already)
            if (x_regwr[fk] && irq && events_exp == events_got) events_exp = events_exp + 1;
            x_rd = x_rd + 1;
          end
          an = 0; alen = 6;
        end
      end
    end
  end

  // watchdog: a frame presented at least every 100,000 cycles
  integer wd_mark = 0, wd_cyc = 0;
  always @(posedge clk) begin
    wd_cyc = wd_cyc + 1;
    if (x_wr != wd_mark || done) begin wd_mark = x_wr; wd_cyc = 0; end
    if (wd_cyc > 100000)
      $fatal(1, "V%0d: stuck: %0d of %0d answers, %0d of %0d events", V3 ? 3 : 2, x_rd, x_wr, events_got, events_exp);
  end

  // ------------------------------------------------------------ irq
  reg irq_prev = 1'b0;
  always @(posedge clk) begin
    if (rst_n && irq && !irq_prev) events_exp = events_exp + 1;
    irq_prev = irq;
  end
  initial begin
    @(posedge rst_n);
    forever begin
      repeat (6000 + ($unsigned(tb_random(0)) % 6000)) @(negedge clk);
      int_status <= {tb_random(0), 1'b1};
      irq <= 1'b1;
      repeat (200 + ($unsigned(tb_random(0)) % 8000)) @(negedge clk);
      irq <= 1'b0;
    end
  end

  // ------------------------------------------------------------ frames
  integer    n, r, i, kw;
  reg [31:0] a;
  reg [7:0]  seq;
  initial begin
    done = 1'b0;
    @(posedge rst_n);
    repeat (5) @(negedge clk);
    for (n = 0; n < NFRAMES; n = n + 1) begin
      // one frame at a time, the events served
      while (x_rd != x_wr || events_got != events_exp || !f_ready) @(negedge clk);
      repeat ($unsigned(tb_random(0)) % 4) @(negedge clk);
      seq = tb_random(0);
      r = $unsigned(tb_random(0)) % 10;
      f_ping  <= (r >= 8);
      f_read  <= (r >= 4 && r < 8);
      f_seq   <= seq;
      f_last  <= tb_random(0);
      f_dup   <= (r < 4) && ((tb_random(0) & 3) == 0);
      f_count <= (r >= 8) ? 7'd0 : 7'd1 + ($unsigned(tb_random(0)) % 64);
      if (r < 4 && (tb_random(0) & 1)) f_count <= 7'd1 + ($unsigned(tb_random(0)) % 4);
      f_incr  <= (tb_random(0) & 3) != 0;
      f_wstrb <= ((tb_random(0) & 3) == 0) ? tb_random(0) : 4'hF;
      // NAK reasons 1..5 (and OUT_OF_ORDER, 6, of WRITEs from a version-3
      // parser)
      f_nak   <= ((tb_random(0) & 3) == 0) ? 3'd1 + ($unsigned(tb_random(0)) % ((V3 && r < 4) ? 6 : 5)) : 3'd0;
      a = tb_random(0);
      a[1:0] = 2'b00;
      if (tb_random(0) & 1) a[30:12] = 19'd0;
      if ((tb_random(0) & 3) == 0) begin a[31] = 1'b1; a[30:12] = 19'd0; end
      // the kept bits only, as the parser hands them over
      f_addr  <= word_addr(a, 0, 1'b0);
      for (i = 0; i < 64; i = i + 1) wb[i] = tb_random(0);
      @(negedge clk);
      // INT_STATUS is the EVENT's: no frame covers it
      for (i = 0; i < f_count; i = i + 1)
        if (word_addr(f_addr, i, f_incr) == INT_STATUS) f_addr <= 32'd0;
      @(negedge clk);
      // the expectation
      kw = x_wr % 1024;
      x_seq[kw] = f_seq; x_info[kw] = 8'd0; x_cnt[kw] = 8'd0; x_kind[kw] = 8'h81; x_regwr[kw] = 1'b0;
      x_acc_n = 0; acc_n = 0; x_wstrb = f_wstrb;
      if (f_nak != 3'd0) begin
        x_kind[kw] = 8'h82; x_info[kw] = f_nak;
        if (V3 && f_nak == 3'd6) begin x_cnt[kw] = 8'd1; x_data[kw][0] = {24'd0, f_last}; end
        x_err = x_err + 1;
      end else begin
        x_ok = x_ok + 1;
        if (f_ping) begin
          x_cnt[kw] = 8'd1; x_data[kw][0] = PING_WORD;
        end else if (f_read) begin
          x_cnt[kw] = f_count;
          x_acc_write = 1'b0;
          x_acc_n = f_count;
          for (i = 0; i < f_count; i = i + 1) begin
            x_acc_addr[i] = word_addr(f_addr, i, f_incr);
            x_data[kw][i] = rd_value(x_acc_addr[i]);
          end
        end else if (f_dup) begin
          x_info[kw] = 8'd1;
        end else begin
          x_acc_write = 1'b1;
          x_acc_n = f_count;
          x_regwr[kw] = f_addr[31];
          for (i = 0; i < f_count; i = i + 1) begin
            x_acc_addr[i] = word_addr(f_addr, i, f_incr);
            x_acc_data[i] = wb[i];
          end
        end
      end
      x_wr = x_wr + 1;
      // present it until taken
      f_valid <= 1'b1;
      @(posedge clk);
      while (!f_ready) @(posedge clk);
      @(negedge clk);
      f_valid <= 1'b0;
      f_read <= tb_random(0); f_ping <= tb_random(0); f_nak <= tb_random(0);
    end
    while (x_rd != x_wr || events_got != events_exp || !f_ready || an != 0) @(negedge clk);
    repeat (20) @(negedge clk);
    if (n_ok != x_ok || n_err != x_err)
      $fatal(1, "V%0d: frame_ok %0d frame_err %0d, expected %0d %0d", V3 ? 3 : 2, n_ok, n_err, x_ok, x_err);
    if (events_got < 5) $fatal(1, "V%0d: stimulus too weak: %0d events", V3 ? 3 : 2, events_got);
    $display("tb_sgpu_link_exec: V%0d CRC_STEP %0d AW %0d: %0d frames (%0d executed, %0d NAKed), %0d events",
             V3 ? 3 : 2, STEP, AWP, x_wr, x_ok, x_err, events_got);
    done = 1'b1;
  end
endmodule

module tb_sgpu_link_exec;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;
  wire [1:0] done;

  tb_link_exec_run #(.RXB(2048), .STEP(1), .AWP(12), .SEED(31)) r3 (.clk(clk), .rst_n(rst_n), .done(done[0]));
  tb_link_exec_run #(.RXB(0), .STEP(8), .AWP(32), .SEED(32)) r2 (.clk(clk), .rst_n(rst_n), .done(done[1]));

  initial begin
    repeat (3) @(posedge clk);
    rst_n <= 1'b1;
    wait (&done);
    $display("tb_sgpu_link_exec: PASS");
    $finish;
  end
endmodule
