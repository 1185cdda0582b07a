// tb_sgpu_host_bridge: the framed host link end to end at bit level.
//
// The testbench plays the host: it sends frames bit by bit into
// sgpu_uart_rx -> sgpu_host_bridge, and decodes the answers the bridge sends
// through sgpu_uart_tx with its own bit-level receiver.  The host port is
// served by a model with random back-pressure and random read latency that
// checks the port protocol and counts every write it applies.
// Checks: PING, write and read bursts, NO_INCR and byte-disable flags, bad
// CRC -> nak and nothing written, addresses outside GPU memory (the bridge
// is built for 4 KiB, the model's) or the register block -> NAK BAD_ADDR
// with nothing on the host port (a write past the end, a burst straddling
// it, 0x800000, a read at 0xFFFFF000...: the verdict from a 64-bit oracle
// here, memory compared with a shadow, registers with a copy), retransmitted write acknowledged as a
// duplicate and applied once (memory and a doorbell register), bad length /
// bad command / misaligned / truncated frames, EVENT frames when irq rises,
// a randomized stop-and-wait run with corrupted and lost frames, then
// several frames in flight (link version 3): back-to-back WRITEs applied
// once in order, a corrupted one among them (BAD_CRC, then OUT_OF_ORDER
// NAKs carrying the last executed SEQ, nothing applied), the repeats, a
// DUPLICATE; and two more bridges (CRC_STEP 1 and 8) fed a byte every
// cycle, faster than their CRC takes them: the receive FIFO queues the
// bytes (and drops them once full, from which the bridge recovers).
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_sgpu_host_bridge;

  localparam integer CPB = 8;                 // clocks per bit
  localparam integer TIMEOUT = CPB * 10 * 6;  // gap timeout: 6 byte times
  localparam integer MAXW = `SGPU_LINK_MAX_WORDS;
  localparam [31:0] REGS = 32'h8000_0000;
  localparam [31:0] DOORBELL = REGS | 32'h108;
  localparam integer FIFO_UNITS = `SGPU_LINK_RX_FIFO_BYTES / `SGPU_LINK_RX_FIFO_UNIT;
  localparam [31:0] PING_WORD = {8'd0, FIFO_UNITS[7:0], 8'd`SGPU_LINK_MAX_WORDS, 8'd`SGPU_LINK_VERSION};
  // the fast bridges below have a 512-byte FIFO (the overflow test)
  localparam [31:0] FAST_PING_WORD = {8'd0, 8'd32, PING_WORD[15:0]};

  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;

  integer seed = 32'h5eed_0001;
  `include "tb_random.vh"

  // ------------------------------------------------------------ DUT
  reg         line_h2d = 1'b1;
  wire        line_d2h;
  wire        rx_valid;
  wire [7:0]  rx_data;
  wire        rx_ferr;
  wire        tx_valid, tx_ready;
  wire [7:0]  tx_data;
  wire        req_valid, req_write;
  reg         req_ready;
  wire [31:0] req_addr, req_wdata;
  wire [3:0]  req_wstrb;
  reg         rsp_valid;
  reg  [31:0] rsp_rdata;
  wire        irq;
  wire        frame_ok, frame_err;

  sgpu_uart_rx #(.CLKS_PER_BIT(CPB)) u_rx (
    .clk_i(clk), .rst_ni(rst_n), .rx_i(line_h2d),
    .valid_o(rx_valid), .data_o(rx_data), .frame_err_o(rx_ferr));

  localparam integer MEM_AW = 12;             // the bridge's memory: 4 KiB, as the model's
  sgpu_host_bridge #(.TIMEOUT_CYCLES(TIMEOUT), .AW(MEM_AW)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .rx_valid_i(rx_valid), .rx_data_i(rx_data),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data),
    .host_req_valid_o(req_valid), .host_req_ready_i(req_ready), .host_req_write_o(req_write),
    .host_req_addr_o(req_addr), .host_req_wdata_o(req_wdata), .host_req_wstrb_o(req_wstrb),
    .host_rsp_valid_i(rsp_valid), .host_rsp_rdata_i(rsp_rdata),
    .irq_i(irq), .frame_ok_o(frame_ok), .frame_err_o(frame_err));

  sgpu_uart_tx #(.CLKS_PER_BIT(CPB)) u_tx (
    .clk_i(clk), .rst_ni(rst_n), .valid_i(tx_valid), .ready_o(tx_ready),
    .data_i(tx_data), .tx_o(line_d2h), .busy_o());

  // ------------------------------------------------------------ host-port model
  reg [31:0] mem [0:1023];          // GPU memory, addr[11:2]
  reg [31:0] regs [0:1023];         // register space, addr[11:2]
  reg [31:0] int_status;
  integer    mem_writes = 0;        // words written to memory
  integer    reg_writes = 0;
  integer    doorbell_writes = 0;
  integer    host_reads = 0;        // reads taken on the host port
  reg        rd_pend;
  integer    rd_delay;
  reg [31:0] rd_addr;
  reg        prev_stall;
  reg [31:0] prev_addr, prev_wdata;
  reg        prev_write;
  reg        ready_bias;

  assign irq = |int_status;

  function [31:0] apply_strb(input [31:0] old, input [31:0] d, input [3:0] s);
    begin
      apply_strb = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
                    s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
    end
  endfunction

  always @(posedge clk) begin
    if (rst_n) begin
      rsp_valid <= 1'b0;
      // valid/ready: a stalled request must hold still
      if (prev_stall && (!req_valid || req_addr != prev_addr || req_write != prev_write ||
                         (req_write && req_wdata != prev_wdata)))
        $fatal(1, "host request changed while stalled");
      if (req_valid && rd_pend) $fatal(1, "second request while a read is outstanding");
      if (req_valid && req_addr[1:0] != 2'b00) $fatal(1, "misaligned host request %h", req_addr);
      prev_stall <= req_valid && !req_ready;
      prev_addr  <= req_addr;
      prev_write <= req_write;
      prev_wdata <= req_wdata;
      if (req_valid && req_ready) begin
        if (req_write) begin
          if (req_addr[31]) begin
            reg_writes = reg_writes + 1;
            if (req_addr == DOORBELL) doorbell_writes = doorbell_writes + 1;
            if (req_addr[11:0] == `SGPU_REG_INT_STATUS) int_status <= int_status & ~req_wdata;
            else regs[req_addr[11:2]] <= apply_strb(regs[req_addr[11:2]], req_wdata, req_wstrb);
          end else begin
            if (req_addr[30:12] != 0) $fatal(1, "write outside the model memory %h", req_addr);
            mem_writes = mem_writes + 1;
            mem[req_addr[11:2]] <= apply_strb(mem[req_addr[11:2]], req_wdata, req_wstrb);
          end
        end else begin
          host_reads = host_reads + 1;
          rd_pend  <= 1'b1;
          rd_addr  <= req_addr;
          rd_delay <= $unsigned(tb_random(0)) % 4;
        end
      end
      if (rd_pend) begin
        if (rd_delay == 0) begin
          rd_pend   <= 1'b0;
          rsp_valid <= 1'b1;
          if (rd_addr[31])
            rsp_rdata <= (rd_addr[11:0] == `SGPU_REG_INT_STATUS) ? int_status : regs[rd_addr[11:2]];
          else
            rsp_rdata <= mem[rd_addr[11:2]];
        end else begin
          rd_delay <= rd_delay - 1;
        end
      end
      req_ready <= ready_bias ? (tb_random(0) % 8 != 0) : (tb_random(0) % 3 == 0);
    end
  end

  // ------------------------------------------------------------ d2h byte receiver
  reg [7:0] rxq [0:4095];
  integer   rxq_wr = 0, rxq_rd = 0;
  integer   rk;
  reg [7:0] rb;

  initial begin : receiver
    forever begin
      @(negedge line_d2h);
      repeat (CPB / 2) @(posedge clk);
      if (line_d2h !== 1'b0) $fatal(1, "bad start bit from the device");
      for (rk = 0; rk < 8; rk = rk + 1) begin
        repeat (CPB) @(posedge clk);
        rb[rk] = line_d2h;
      end
      repeat (CPB) @(posedge clk);
      if (line_d2h !== 1'b1) $fatal(1, "bad stop bit from the device");
      rxq[rxq_wr % 4096] = rb;
      rxq_wr = rxq_wr + 1;
    end
  end

  // ------------------------------------------------------------ host side
  // CRC-32/MPEG-2 from its definition (polynomial 0x04C11DB7, MSB first,
  // no reflection, no final xor), written here independently of the RTL
  function [31:0] crc_byte(input [31:0] c, input [7:0] b);
    integer i;
    reg fb;
    begin
      crc_byte = c;
      for (i = 7; i >= 0; i = i - 1) begin
        fb = crc_byte[31] ^ b[i];
        crc_byte = {crc_byte[30:0], 1'b0};
        if (fb) crc_byte = crc_byte ^ 32'h04C11DB7;
      end
    end
  endfunction

  task send_byte(input [7:0] b);
    integer i;
    begin
      line_h2d = 1'b0;
      repeat (CPB) @(posedge clk);
      for (i = 0; i < 8; i = i + 1) begin
        line_h2d = b[i];
        repeat (CPB) @(posedge clk);
      end
      line_h2d = 1'b1;
      repeat (CPB) @(posedge clk);
    end
  endtask

  reg [31:0] txw [0:MAXW-1];        // data words of the next WRITE
  reg [7:0]  fb [0:MAXW*4+15];      // frame bytes
  integer    fn;

  // Build the frame in fb[0..fn-1].
  task build_frame(input [7:0] seq, input [7:0] cmd, input [7:0] flags,
                   input [15:0] count, input [31:0] addr, input integer ndata);
    integer i;
    reg [31:0] c;
    begin
      fb[0] = `SGPU_LINK_SYNC; fb[1] = seq; fb[2] = cmd; fb[3] = flags;
      fb[4] = count[7:0]; fb[5] = count[15:8];
      fb[6] = addr[7:0]; fb[7] = addr[15:8]; fb[8] = addr[23:16]; fb[9] = addr[31:24];
      fn = 10;
      for (i = 0; i < ndata; i = i + 1) begin
        fb[fn] = txw[i][7:0]; fb[fn+1] = txw[i][15:8];
        fb[fn+2] = txw[i][23:16]; fb[fn+3] = txw[i][31:24];
        fn = fn + 4;
      end
      c = `SGPU_LINK_CRC_INIT;
      for (i = 1; i < fn; i = i + 1) c = crc_byte(c, fb[i]);
      fb[fn] = c[31:24]; fb[fn+1] = c[23:16]; fb[fn+2] = c[15:8]; fb[fn+3] = c[7:0];
      fn = fn + 4;
    end
  endtask

  task send_built(input integer nbytes);
    integer i;
    begin
      for (i = 0; i < nbytes; i = i + 1) send_byte(fb[i]);
    end
  endtask

  // Next byte from the device, or timed_out after `limit` cycles of silence.
  reg timed_out;
  task get_byte(output [7:0] b, input integer limit);
    integer t;
    begin
      t = 0;
      timed_out = 1'b0;
      while (rxq_rd == rxq_wr && t < limit) begin
        @(posedge clk);
        t = t + 1;
      end
      if (rxq_rd == rxq_wr) begin
        timed_out = 1'b1;
        b = 8'h00;
      end else begin
        b = rxq[rxq_rd % 4096];
        rxq_rd = rxq_rd + 1;
      end
    end
  endtask

  reg [7:0]  r_seq, r_kind, r_info;
  integer    r_len;
  reg [31:0] rxw [0:MAXW-1];
  integer    events = 0;
  reg [31:0] last_event_word;
  reg [7:0]  last_event_seq;

  // Receive one answer frame (an EVENT is recorded and skipped unless
  // want_event); the device must always send well-formed frames.
  task recv_frame(input integer limit, input want_event);
    integer i;
    reg [7:0] b;
    reg [31:0] c;
    reg done;
    begin
      done = 1'b0;
      while (!done) begin
        get_byte(b, limit);
        if (timed_out) begin
          done = 1'b1;
        end else begin
          if (b !== `SGPU_LINK_SYNC) $fatal(1, "answer does not start with SYNC: %h", b);
          c = `SGPU_LINK_CRC_INIT;
          get_byte(r_seq, 4 * CPB * 10); c = crc_byte(c, r_seq);
          get_byte(r_kind, 4 * CPB * 10); c = crc_byte(c, r_kind);
          get_byte(r_info, 4 * CPB * 10); c = crc_byte(c, r_info);
          get_byte(b, 4 * CPB * 10); c = crc_byte(c, b); r_len = b;
          get_byte(b, 4 * CPB * 10); c = crc_byte(c, b); r_len = r_len + 256 * b;
          if (r_len > MAXW) $fatal(1, "answer too long: %0d", r_len);
          for (i = 0; i < 4 * r_len; i = i + 1) begin
            get_byte(b, 100 * CPB * 10);
            if (timed_out) $fatal(1, "answer data stopped");
            c = crc_byte(c, b);
            rxw[i / 4][(i % 4) * 8 +: 8] = b;
          end
          for (i = 0; i < 4; i = i + 1) begin
            get_byte(b, 4 * CPB * 10); c = crc_byte(c, b);
          end
          if (timed_out) $fatal(1, "answer truncated");
          if (c !== 32'h0000_0000) $fatal(1, "answer CRC wrong");
          if (r_kind == `SGPU_LINK_KIND_EVENT) begin
            if (r_len != 1) $fatal(1, "event without one data word");
            events = events + 1;
            last_event_word = rxw[0];
            last_event_seq = r_seq;
            if (want_event) done = 1'b1;
          end else begin
            if (r_kind != `SGPU_LINK_KIND_ACK && r_kind != `SGPU_LINK_KIND_NAK)
              $fatal(1, "unknown answer kind %h", r_kind);
            done = 1'b1;
          end
        end
      end
    end
  endtask

  localparam integer ANSWER_WAIT = TIMEOUT * 3 + 400 * CPB * 10;

  task expect_ack(input [7:0] seq, input [7:0] info, input integer len);
    begin
      recv_frame(ANSWER_WAIT, 1'b0);
      if (timed_out) $fatal(1, "no answer to seq %0d", seq);
      if (r_kind != `SGPU_LINK_KIND_ACK || r_seq != seq || r_info != info || r_len != len)
        $fatal(1, "expected ACK seq %0d info %0d len %0d, got kind %h seq %0d info %0d len %0d",
               seq, info, len, r_kind, r_seq, r_info, r_len);
    end
  endtask

  task expect_nak(input [7:0] reason);
    begin
      recv_frame(ANSWER_WAIT, 1'b0);
      if (timed_out) $fatal(1, "no nak");
      if (r_kind != `SGPU_LINK_KIND_NAK || r_info != reason || r_len != 0)
        $fatal(1, "expected NAK %0d, got kind %h info %0d len %0d", reason, r_kind, r_info, r_len);
    end
  endtask

  // NAK OUT_OF_ORDER for seq, its one data word carrying L
  task expect_ooo(input [7:0] seq, input [7:0] l);
    begin
      recv_frame(ANSWER_WAIT, 1'b0);
      if (timed_out) $fatal(1, "no nak for seq %0d", seq);
      if (r_kind != `SGPU_LINK_KIND_NAK || r_info != `SGPU_LINK_NAK_OUT_OF_ORDER || r_seq != seq ||
          r_len != 1 || rxw[0] !== {24'd0, l})
        $fatal(1, "expected NAK OUT_OF_ORDER seq %0d L %0d, got kind %h info %0d seq %0d len %0d word %h",
               seq, l, r_kind, r_info, r_seq, r_len, rxw[0]);
    end
  endtask

  task expect_silence;
    begin
      recv_frame(TIMEOUT * 3, 1'b0);
      if (!timed_out) $fatal(1, "unexpected answer kind %h info %0d", r_kind, r_info);
    end
  endtask

  task do_write(input [7:0] seq, input [31:0] addr, input integer n, input [7:0] flags);
    begin
      build_frame(seq, `SGPU_LINK_CMD_WRITE, flags, n[15:0], addr, n);
      send_built(fn);
    end
  endtask

  task do_read(input [7:0] seq, input [31:0] addr, input integer n, input [7:0] flags);
    begin
      build_frame(seq, `SGPU_LINK_CMD_READ, flags, n[15:0], addr, 0);
      send_built(fn);
    end
  endtask

  // the testbench changes the interrupt state away from the clock edge
  task set_int(input [31:0] v);
    begin
      @(negedge clk);
      int_status = v;
    end
  endtask

  // ------------------------------------------------------------ two bridges fed a byte a cycle
  // CRC_STEP 1 (g_fast[0]) and 8 (g_fast[1]), both fed the same stream,
  // one byte every cycle: faster than either CRC takes them (9 and 2
  // cycles a byte).  Host port always ready, a read answered the next
  // cycle; the answers are taken at once and queued in fq.
  localparam integer FTIMEOUT = 4000;
  reg         ff_valid = 1'b0;
  reg  [7:0]  ff_data = 8'h00;
  // (no toggle coverage for the bench's own arrays: only code to compile)
  /* verilator coverage_off */
  reg  [31:0] fmem [0:511];         // 256 words each
  reg  [7:0]  fq [0:2047];          // answer bytes, 1024 each
  /* verilator coverage_on */

  genvar gk;
  generate for (gk = 0; gk < 2; gk = gk + 1) begin : g_fast
    wire        tx_v, rq_v, rq_w, f_ok, f_err;
    wire [7:0]  tx_d;
    wire [31:0] rq_a, rq_d;
    wire [3:0]  rq_s;
    reg         rs_v = 1'b0;
    reg  [31:0] rs_d = 32'h0;
    integer     qwr = 0;              // answer bytes queued
    integer     writes = 0;           // words written

    sgpu_host_bridge #(.TIMEOUT_CYCLES(FTIMEOUT), .CRC_STEP(gk == 0 ? 1 : 8), .RX_FIFO_BYTES(512)) dut_f (
      .clk_i(clk), .rst_ni(rst_n),
      .rx_valid_i(ff_valid), .rx_data_i(ff_data),
      .tx_valid_o(tx_v), .tx_ready_i(1'b1), .tx_data_o(tx_d),
      .host_req_valid_o(rq_v), .host_req_ready_i(1'b1), .host_req_write_o(rq_w),
      .host_req_addr_o(rq_a), .host_req_wdata_o(rq_d), .host_req_wstrb_o(rq_s),
      .host_rsp_valid_i(rs_v), .host_rsp_rdata_i(rs_d),
      .irq_i(1'b0), .frame_ok_o(f_ok), .frame_err_o(f_err));

    always @(posedge clk) begin
      rs_v <= 1'b0;
      if (rst_n && rq_v) begin
        if (rq_a[31] || rq_a[30:10] != 0) $fatal(1, "fast bridge %0d: request outside the model %h", gk, rq_a);
        if (rq_w) begin
          fmem[gk * 256 + rq_a[9:2]] <= apply_strb(fmem[gk * 256 + rq_a[9:2]], rq_d, rq_s);
          writes = writes + 1;
        end else begin
          rs_v <= 1'b1;
          rs_d <= fmem[gk * 256 + rq_a[9:2]];
        end
      end
      if (rst_n && tx_v) begin
        fq[gk * 1024 + qwr % 1024] = tx_d;
        qwr = qwr + 1;
      end
      // the FIFO hands the parser a byte only once the CRC steps of the
      // one before are done
      if (rst_n && dut_f.u_parser.rx_valid_i && dut_f.u_parser.u_crc.busy_o)
        $fatal(1, "fast bridge %0d: a byte reached the parser during its CRC steps", gk);
    end
  end endgenerate

  /* verilator coverage_off */
  reg [7:0]  fs [0:1023];           // the stream fed to both
  /* verilator coverage_on */
  integer    fsn = 0;
  integer    frd0 = 0, frd1 = 0;    // answer bytes read

  task fs_add;                      // append the built frame
    integer i;
    begin
      for (i = 0; i < fn; i = i + 1) fs[fsn + i] = fb[i];
      fsn = fsn + fn;
    end
  endtask

  task fast_feed;                   // fs, a byte every cycle
    integer i;
    begin
      for (i = 0; i < fsn; i = i + 1) begin
        @(negedge clk);
        ff_valid = 1'b1;
        ff_data  = fs[i];
      end
      @(negedge clk);
      ff_valid = 1'b0;
      fsn = 0;
    end
  endtask

  // Next answer byte of fast bridge k, or timed_out after limit cycles.
  task fget(input integer k, output [7:0] b, input integer limit);
    integer t, wr, rd;
    begin
      t = 0;
      timed_out = 1'b0;
      wr = (k == 0) ? g_fast[0].qwr : g_fast[1].qwr;
      rd = (k == 0) ? frd0 : frd1;
      while (rd == wr && t < limit) begin
        @(posedge clk);
        t = t + 1;
        wr = (k == 0) ? g_fast[0].qwr : g_fast[1].qwr;
      end
      if (rd == wr) begin
        timed_out = 1'b1;
        b = 8'h00;
      end else begin
        b = fq[k * 1024 + rd % 1024];
        if (k == 0) frd0 = frd0 + 1; else frd1 = frd1 + 1;
      end
    end
  endtask

  // One answer of fast bridge k into r_* / rxw (timed_out: none came).
  task frecv(input integer k, input integer limit);
    integer i;
    reg [7:0] b;
    reg [31:0] c;
    begin
      fget(k, b, limit);
      if (!timed_out) begin
        if (b !== `SGPU_LINK_SYNC) $fatal(1, "fast bridge %0d: answer without SYNC: %h", k, b);
        c = `SGPU_LINK_CRC_INIT;
        fget(k, r_seq, 100); c = crc_byte(c, r_seq);
        fget(k, r_kind, 100); c = crc_byte(c, r_kind);
        fget(k, r_info, 100); c = crc_byte(c, r_info);
        fget(k, b, 100); c = crc_byte(c, b); r_len = b;
        fget(k, b, 100); c = crc_byte(c, b); r_len = r_len + 256 * b;
        if (r_len > MAXW) $fatal(1, "fast bridge %0d: answer too long", k);
        for (i = 0; i < 4 * r_len; i = i + 1) begin
          fget(k, b, 100); c = crc_byte(c, b);
          rxw[i / 4][(i % 4) * 8 +: 8] = b;
        end
        for (i = 0; i < 4; i = i + 1) begin
          fget(k, b, 100); c = crc_byte(c, b);
        end
        if (timed_out) $fatal(1, "fast bridge %0d: answer truncated", k);
        if (c !== 32'h0) $fatal(1, "fast bridge %0d: answer CRC wrong", k);
        timed_out = 1'b0;
      end
    end
  endtask

  task fexpect(input integer k, input [7:0] seq, input [7:0] kind, input [7:0] info, input integer len);
    begin
      frecv(k, 20000);
      if (timed_out) $fatal(1, "fast bridge %0d: no answer to seq %0d", k, seq);
      if (r_kind != kind || r_seq != seq || r_info != info || r_len != len)
        $fatal(1, "fast bridge %0d: expected kind %h seq %0d info %0d len %0d, got %h %0d %0d %0d",
               k, kind, seq, info, len, r_kind, r_seq, r_info, r_len);
    end
  endtask

  // ------------------------------------------------------------ shadow model for the random run
  reg [31:0] shadow [0:1023];
  integer i, j, n, w0, seqn, tries, n_before;
  reg [31:0] a;
  reg [7:0] fl;
  reg ok, corrupt, drop;
  integer k, s0, bad;
  // the address rule's oracle: a READ / WRITE's words (NO_INCR: one) must
  // all lie inside GPU memory (ADDR[31] clear, 2^MEM_AW bytes) or the
  // register block (ADDR[31] set, offsets below SGPU_REG_BLOCK_BYTES)
  function out_of_range(input [31:0] ad, input integer cnt, input [7:0] fls);
    reg [63:0] span, lim;
    begin
      span = fls[4] ? 64'd4 : 64'd4 * cnt;
      lim  = ad[31] ? `SGPU_REG_BLOCK_BYTES : (64'd1 << MEM_AW);
      out_of_range = {33'd0, ad[30:0]} + span > lim;
    end
  endfunction
  reg [31:0] oa [0:19];             // the address cases: ADDR, COUNT, FLAGS, WRITE
  integer    oc [0:19];
  reg [7:0]  of [0:19];
  reg        ow [0:19];
  integer    n_oob = 0, n_ib = 0, wr_before, rd_before;
  reg [31:0] regs_before [0:1023];
  task addr_case(input integer c, input [31:0] ad, input integer cnt, input [7:0] fls, input w);
    begin
      oa[c] = ad; oc[c] = cnt; of[c] = fls; ow[c] = w;
    end
  endtask
  /* verilator coverage_off */
  reg [31:0] fexp [0:255];          // the fast bridges' memory as expected
  reg [31:0] fre [0:127];           // their READ answers as expected (two)
  reg [31:0] fdat [0:191];          // the data of the three overflowing frames
  reg [7:0]  fans [0:2];            // their answers: 1 ACK, 2 NAK, 0 none
  /* verilator coverage_on */
  integer corrupted = 0, dropped = 0, dups = 0;

  initial begin
    if ($value$plusargs("seed=%d", seed)) $display("seed %0d", seed);
    for (i = 0; i < 1024; i = i + 1) begin
      mem[i] = 32'h0;
      regs[i] = 32'h0;
      shadow[i] = 32'h0;
    end
    for (i = 0; i < 512; i = i + 1) fmem[i] = 32'h0;
    for (i = 0; i < 256; i = i + 1) fexp[i] = 32'h0;
    int_status = 32'h0;
    rd_pend = 1'b0; rd_delay = 0; rsp_valid = 1'b0; rsp_rdata = 32'h0;
    req_ready = 1'b0; prev_stall = 1'b0; ready_bias = 1'b1;
    // the testbench's CRC against the standard check value
    a = 32'hFFFF_FFFF;
    for (i = 0; i < 9; i = i + 1) a = crc_byte(a, 8'h31 + i[7:0]);
    if (a !== 32'h0376_E6E7) $fatal(1, "CRC-32/MPEG-2 of \"123456789\" = %h, want 0376e6e7", a);
    repeat (5) @(posedge clk);
    rst_n = 1'b1;
    repeat (20) @(posedge clk);

    // --- PING: version and burst size
    build_frame(8'd1, `SGPU_LINK_CMD_PING, 8'h00, 16'd0, 32'h0, 0);
    send_built(fn);
    expect_ack(8'd1, 8'd0, 1);
    if (rxw[0] !== PING_WORD) $fatal(1, "ping info word %h, want %h", rxw[0], PING_WORD);
    if (`SGPU_LINK_VERSION != 3 || PING_WORD[23:16] != 8'd128) $fatal(1, "link constants changed");

    // --- write burst of 16 words
    for (i = 0; i < 16; i = i + 1) txw[i] = tb_random(0);
    do_write(8'd2, 32'h40, 16, 8'h00);
    expect_ack(8'd2, 8'd0, 0);
    if (mem_writes != 16) $fatal(1, "write burst applied %0d words", mem_writes);
    for (i = 0; i < 16; i = i + 1)
      if (mem[16 + i] !== txw[i]) $fatal(1, "mem[%0d] = %h, want %h", 16 + i, mem[16 + i], txw[i]);

    // --- read burst gives the same words back
    do_read(8'd3, 32'h40, 16, 8'h00);
    expect_ack(8'd3, 8'd0, 16);
    for (i = 0; i < 16; i = i + 1)
      if (rxw[i] !== txw[i]) $fatal(1, "read word %0d = %h, want %h", i, rxw[i], txw[i]);

    // --- full-size burst
    for (i = 0; i < MAXW; i = i + 1) txw[i] = tb_random(0);
    do_write(8'd4, 32'h400, MAXW, 8'h00);
    expect_ack(8'd4, 8'd0, 0);
    do_read(8'd5, 32'h400, MAXW, 8'h00);
    expect_ack(8'd5, 8'd0, MAXW);
    for (i = 0; i < MAXW; i = i + 1)
      if (rxw[i] !== txw[i]) $fatal(1, "long read word %0d = %h, want %h", i, rxw[i], txw[i]);

    // --- bad CRC: nak, nothing written
    n_before = mem_writes;
    for (i = 0; i < 4; i = i + 1) txw[i] = 32'hDEAD_0000 + i;
    build_frame(8'd6, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd4, 32'h40, 4);
    fb[fn - 1] = fb[fn - 1] ^ 8'h01;
    send_built(fn);
    expect_nak(`SGPU_LINK_NAK_BAD_CRC);
    if (mem_writes != n_before) $fatal(1, "a frame with a bad CRC was applied");
    if (mem[16] === 32'hDEAD_0000) $fatal(1, "bad-CRC data reached memory");
    // so is each of the other CRC bytes (the device checks them one at a time)
    for (j = 2; j <= 4; j = j + 1) begin
      build_frame(8'd6, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd4, 32'h40, 4);
      fb[fn - j] = fb[fn - j] ^ 8'h80;
      send_built(fn);
      expect_nak(`SGPU_LINK_NAK_BAD_CRC);
      if (mem_writes != n_before) $fatal(1, "a frame with CRC byte %0d wrong was applied", 4 - j);
    end
    // a flipped data bit is caught too
    build_frame(8'd6, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd4, 32'h40, 4);
    fb[12] = fb[12] ^ 8'h10;
    send_built(fn);
    expect_nak(`SGPU_LINK_NAK_BAD_CRC);
    if (mem_writes != n_before) $fatal(1, "a corrupted frame was applied");

    // --- the same sequence number, now intact: applied (it was never executed)
    do_write(8'd6, 32'h40, 4, 8'h00);
    expect_ack(8'd6, 8'd0, 0);
    if (mem_writes != n_before + 4 || mem[16] !== 32'hDEAD_0000) $fatal(1, "write after nak not applied");

    // --- retransmission (ack lost): acknowledged as a duplicate, applied once
    n_before = mem_writes;
    for (i = 0; i < 4; i = i + 1) txw[i] = 32'hBEEF_0000 + i;
    do_write(8'd7, 32'h80, 4, 8'h00);
    expect_ack(8'd7, 8'd0, 0);
    do_write(8'd7, 32'h80, 4, 8'h00);
    expect_ack(8'd7, `SGPU_LINK_ACK_DUPLICATE, 0);
    do_write(8'd7, 32'h80, 4, 8'h00);
    expect_ack(8'd7, `SGPU_LINK_ACK_DUPLICATE, 0);
    if (mem_writes != n_before + 4) $fatal(1, "retransmitted write applied %0d words", mem_writes - n_before);

    // the doorbell: a register write retransmitted must ring once
    txw[0] = 32'h40;
    do_write(8'd8, DOORBELL, 1, 8'h00);
    expect_ack(8'd8, 8'd0, 0);
    do_write(8'd8, DOORBELL, 1, 8'h00);
    expect_ack(8'd8, `SGPU_LINK_ACK_DUPLICATE, 0);
    if (doorbell_writes != 1) $fatal(1, "doorbell rang %0d times", doorbell_writes);
    // a new sequence number rings it again
    txw[0] = 32'h80;
    do_write(8'd9, DOORBELL, 1, 8'h00);
    expect_ack(8'd9, 8'd0, 0);
    if (doorbell_writes != 2 || regs[DOORBELL[11:2]] !== 32'h80) $fatal(1, "doorbell not written");

    // --- NO_INCR: four reads of one word; byte-disable mask
    mem[40] = 32'h1122_3344;
    do_read(8'd10, 32'd160, 4, 8'h10);
    expect_ack(8'd10, 8'd0, 4);
    for (i = 0; i < 4; i = i + 1)
      if (rxw[i] !== 32'h1122_3344) $fatal(1, "NO_INCR read %0d = %h", i, rxw[i]);
    txw[0] = 32'hAABB_CCDD; txw[1] = 32'h5566_7788;
    do_write(8'd11, 32'd160, 2, 8'h10 | 8'h05);   // NO_INCR, bytes 0 and 2 disabled
    expect_ack(8'd11, 8'd0, 0);
    if (mem[40] !== 32'h5522_7744 || mem[41] !== 32'h0) $fatal(1, "masked write gave %h %h", mem[40], mem[41]);

    // --- bad length, bad command, misaligned, truncated
    do_read(8'd12, 32'h0, 0, 8'h00);
    expect_nak(`SGPU_LINK_NAK_BAD_LENGTH);
    do_read(8'd12, 32'h0, MAXW + 1, 8'h00);
    expect_nak(`SGPU_LINK_NAK_BAD_LENGTH);
    n_before = mem_writes;
    for (i = 0; i < 4; i = i + 1) txw[i] = 32'hFFFF_FFFF;
    build_frame(8'd12, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd200, 32'h0, 4);  // says 200, sends 4
    send_built(fn);
    expect_nak(`SGPU_LINK_NAK_BAD_LENGTH);
    build_frame(8'd12, 8'h07, 8'h00, 16'd1, 32'h0, 0);
    send_built(fn);
    expect_nak(`SGPU_LINK_NAK_BAD_CMD);
    build_frame(8'd12, `SGPU_LINK_CMD_READ, 8'h80, 16'd1, 32'h0, 0);     // reserved flag
    send_built(fn);
    expect_nak(`SGPU_LINK_NAK_BAD_CMD);
    // a bad header is NAKed at once, not after the gap timeout ...
    build_frame(8'd12, 8'h07, 8'h00, 16'd1, 32'h0, 0);
    send_built(fn);
    recv_frame(TIMEOUT / 2, 1'b0);
    if (timed_out || r_kind != `SGPU_LINK_KIND_NAK || r_info != `SGPU_LINK_NAK_BAD_CMD)
      $fatal(1, "bad header not NAKed at once (timed out %0d, kind %h info %0d)", timed_out, r_kind, r_info);
    // ... and a frame right behind it, with no quiet line between, is taken
    build_frame(8'd12, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd300, 32'h0, 0);  // says 300: bad length
    send_built(10);
    do_read(8'd12, 32'h40, 1, 8'h00);
    expect_nak(`SGPU_LINK_NAK_BAD_LENGTH);
    expect_ack(8'd12, 8'd0, 1);
    do_write(8'd12, 32'h42, 4, 8'h00);
    expect_nak(`SGPU_LINK_NAK_BAD_ADDR);
    build_frame(8'd12, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd4, 32'h0, 4);
    send_built(7);                                                      // stops in the header
    expect_nak(`SGPU_LINK_NAK_TIMEOUT);
    send_built(20);                                                     // stops in the data
    expect_nak(`SGPU_LINK_NAK_TIMEOUT);
    if (mem_writes != n_before) $fatal(1, "a rejected frame was applied");
    // noise between frames is ignored
    send_byte(8'h00); send_byte(8'h5A); send_byte(8'hFF);
    do_read(8'd12, 32'h40, 1, 8'h00);
    expect_ack(8'd12, 8'd0, 1);
    if (rxw[0] !== 32'hDEAD_0000) $fatal(1, "read after noise %h", rxw[0]);

    // --- events: irq rising sends INT_STATUS, one event per rise
    set_int(32'h0000_0001);
    recv_frame(ANSWER_WAIT, 1'b1);
    if (timed_out || r_kind != `SGPU_LINK_KIND_EVENT) $fatal(1, "no event on irq (%0d %h %h %0d)", timed_out, r_kind, r_info, r_seq);
    if (last_event_word !== 32'h1 || last_event_seq !== 8'd0) $fatal(1, "event %h seq %0d", last_event_word, last_event_seq);
    expect_silence;                                 // irq stays high: no storm
    // the handler clears bit 0 while bit 8 has arrived: a new event follows
    set_int(32'h0000_0101);
    txw[0] = 32'h1;
    do_write(8'd13, REGS | `SGPU_REG_INT_STATUS, 1, 8'h00);
    recv_frame(ANSWER_WAIT, 1'b0);
    if (r_kind != `SGPU_LINK_KIND_ACK || r_seq != 8'd13) $fatal(1, "no ack for the INT_STATUS write");
    recv_frame(ANSWER_WAIT, 1'b1);
    if (timed_out || last_event_word !== 32'h100 || last_event_seq !== 8'd1)
      $fatal(1, "no second event (%h seq %0d)", last_event_word, last_event_seq);
    txw[0] = 32'h100;
    do_write(8'd14, REGS | `SGPU_REG_INT_STATUS, 1, 8'h00);
    expect_ack(8'd14, 8'd0, 0);
    if (irq) $fatal(1, "INT_STATUS not cleared");
    expect_silence;
    if (events != 2) $fatal(1, "%0d events", events);

    // --- randomized stop-and-wait run: corrupted and lost frames, lost
    // answers; the host retransmits until it gets its ACK, and memory must
    // match a shadow that applied each write exactly once.
    for (i = 0; i < 1024; i = i + 1) shadow[i] = mem[i];
    seqn = 15;
    for (j = 0; j < 60; j = j + 1) begin
      ready_bias = tb_random(0) % 2;
      n  = 1 + ($unsigned(tb_random(0)) % 12);
      if (tb_random(0) % 8 == 0) n = MAXW;
      w0 = $unsigned(tb_random(0)) % (1024 - n);
      a  = w0 * 4;
      fl = (tb_random(0) % 4 == 0) ? (tb_random(0) & 8'h0F) : 8'h00;
      if (fl == 8'h0F) fl = 8'h00;
      for (i = 0; i < n; i = i + 1) txw[i] = tb_random(0);
      if (tb_random(0) % 8 == 0 && int_status == 0) set_int(32'h1 << ($unsigned(tb_random(0)) % 8));
      ok = 1'b0;
      tries = 0;
      while (!ok) begin
        tries = tries + 1;
        if (tries > 20) $fatal(1, "frame %0d never acknowledged", j);
        if (j % 2 == 0) build_frame(seqn[7:0], `SGPU_LINK_CMD_WRITE, fl, n[15:0], a, n);
        else            build_frame(seqn[7:0], `SGPU_LINK_CMD_READ, 8'h00, n[15:0], a, 0);
        corrupt = (tb_random(0) % 4 == 0);
        drop = (tb_random(0) % 6 == 0);
        if (corrupt) begin
          i = 1 + ($unsigned(tb_random(0)) % (fn - 1));
          fb[i] = fb[i] ^ (8'h1 << ($unsigned(tb_random(0)) % 8));
          corrupted = corrupted + 1;
        end
        send_built(fn);
        recv_frame(ANSWER_WAIT, 1'b0);
        // the answer was "lost": ignore it and retransmit
        if (!timed_out && drop) begin
          dropped = dropped + 1;
        end else if (!timed_out && r_kind == `SGPU_LINK_KIND_ACK && r_seq == seqn[7:0]) begin
          if (corrupt && r_info != `SGPU_LINK_ACK_DUPLICATE)
            $fatal(1, "a corrupted frame was acknowledged");
          if (r_info == `SGPU_LINK_ACK_DUPLICATE) dups = dups + 1;
          ok = 1'b1;
        end
        // drain stale answers before a retransmission
        if (!ok) begin
          recv_frame(TIMEOUT * 2, 1'b0);
          while (!timed_out) recv_frame(TIMEOUT * 2, 1'b0);
        end
      end
      if (j % 2 == 0) begin
        for (i = 0; i < n; i = i + 1)
          shadow[w0 + i] = apply_strb(shadow[w0 + i], txw[i], ~fl[3:0]);
      end else begin
        if (r_len != n) $fatal(1, "read answered %0d words", r_len);
        for (i = 0; i < n; i = i + 1)
          if (rxw[i] !== shadow[w0 + i]) $fatal(1, "random read word %0d = %h, want %h", i, rxw[i], shadow[w0 + i]);
      end
      if (int_status != 0 && tb_random(0) % 2 == 0) set_int(32'h0);
      seqn = (seqn + 1) % 256;
    end
    for (i = 0; i < 1024; i = i + 1)
      if (mem[i] !== shadow[i]) $fatal(1, "memory word %0d = %h, want %h", i, mem[i], shadow[i]);

    // --- addresses: inside, at and past the end of memory (4 KiB) and of
    // the register block.  One refused is NAKed BAD_ADDR with nothing on
    // the host port (no write, no read: memory and registers as before) and
    // does not become L: the next frame, with the same SEQ, is executed
    // (not a DUPLICATE).  The verdict: out_of_range above.
    ready_bias = 1'b1;
    set_int(32'h0);
    addr_case(0,  32'h0000_1000, 1, 8'h00, 1);     // the word just past the end
    addr_case(1,  32'h0080_0000, 1, 8'h00, 1);     // 8 MiB: aliased to 0 before
    addr_case(2,  32'h0000_0FF8, 4, 8'h00, 1);     // a burst straddling the end
    addr_case(3,  32'h0000_0FF0, 4, 8'h00, 1);     // ... ending at it
    addr_case(4,  32'h0000_0FFC, 4, 8'h10, 1);     // NO_INCR: the last word four times
    addr_case(5,  32'h0000_1000, 4, 8'h10, 1);     // NO_INCR past the end
    addr_case(6,  32'hFFFF_F000, 1, 8'h00, 0);     // read ID before (offset 0x7FFFF000)
    addr_case(7,  32'h8000_0FFC, 1, 8'h00, 0);     // the block's last word
    addr_case(8,  32'h8000_0FF8, 3, 8'h00, 0);     // a read straddling the block's end
    addr_case(9,  32'h8000_1000, 1, 8'h00, 1);     // a register write past the block
    addr_case(10, 32'h7FFF_FFFC, 1, 8'h00, 0);     // the top of the memory space
    addr_case(11, 32'h0000_0F00, MAXW, 8'h00, 0);  // a full burst ending at the end
    addr_case(12, 32'h0000_0F04, MAXW, 8'h00, 0);  // ... one word further
    addr_case(13, 32'h8000_0F00, MAXW, 8'h00, 0);
    addr_case(14, 32'h8000_0F04, MAXW, 8'h00, 0);
    addr_case(15, 32'h8000_0FFC, MAXW, 8'h10, 0);  // NO_INCR at the block's last word
    addr_case(16, 32'h8000_0FFC, 1, 8'h00, 1);     // an (unmapped) offset in the block
    addr_case(17, 32'h0000_0FE0, 9, 8'h00, 1);     // one word over
    addr_case(18, 32'h0100_0000, 1, 8'h00, 0);     // a bit above AW
    addr_case(19, 32'hC000_0000, 1, 8'h00, 0);
    for (k = 0; k < 20; k = k + 1) begin
      for (i = 0; i < oc[k]; i = i + 1) txw[i] = 32'hAD00_0000 + k * 256 + i;
      for (i = 0; i < 1024; i = i + 1) regs_before[i] = regs[i];
      n_before = mem_writes; wr_before = reg_writes; rd_before = host_reads;
      build_frame(seqn[7:0], ow[k] ? `SGPU_LINK_CMD_WRITE : `SGPU_LINK_CMD_READ, of[k], oc[k][15:0],
                  oa[k], ow[k] ? oc[k] : 0);
      send_built(fn);
      if (out_of_range(oa[k], oc[k], of[k])) begin
        n_oob = n_oob + 1;
        expect_nak(`SGPU_LINK_NAK_BAD_ADDR);
        if (r_seq != seqn[7:0]) $fatal(1, "address case %0d: NAK for SEQ %0d", k, r_seq);
        if (mem_writes != n_before || reg_writes != wr_before || host_reads != rd_before)
          $fatal(1, "address case %0d (%h x %0d): %0d memory writes, %0d register writes, %0d reads",
                 k, oa[k], oc[k], mem_writes - n_before, reg_writes - wr_before, host_reads - rd_before);
        for (i = 0; i < 1024; i = i + 1)
          if (mem[i] !== shadow[i] || regs[i] !== regs_before[i])
            $fatal(1, "address case %0d: word %0d changed", k, i);
      end else begin
        n_ib = n_ib + 1;
        expect_ack(seqn[7:0], 8'd0, ow[k] ? 0 : oc[k]);
        if (ow[k] && !oa[k][31])
          for (i = 0; i < oc[k]; i = i + 1)
            shadow[(oa[k][11:2] + (of[k][4] ? 0 : i)) % 1024] = txw[i];
        if (!ow[k] && !oa[k][31])
          for (i = 0; i < oc[k]; i = i + 1)
            if (rxw[i] !== shadow[(oa[k][11:2] + (of[k][4] ? 0 : i)) % 1024])
              $fatal(1, "address case %0d: read word %0d %h", k, i, rxw[i]);
        if (mem_writes - n_before != (ow[k] && !oa[k][31] ? oc[k] : 0) ||
            reg_writes - wr_before != (ow[k] && oa[k][31] ? oc[k] : 0) ||
            host_reads - rd_before != (ow[k] ? 0 : oc[k]))
          $fatal(1, "address case %0d: host port %0d %0d %0d", k, mem_writes - n_before,
                 reg_writes - wr_before, host_reads - rd_before);
        for (i = 0; i < 1024; i = i + 1)
          if (mem[i] !== shadow[i]) $fatal(1, "address case %0d: memory word %0d = %h, want %h", k, i, mem[i], shadow[i]);
        seqn = (seqn + 1) % 256;
      end
    end
    if (n_oob != 13 || n_ib != 7) $fatal(1, "address cases: %0d refused, %0d taken", n_oob, n_ib);
    if (regs[1023] !== 32'hAD00_1000) $fatal(1, "the register write in the block: %h", regs[1023]);

    // --- several frames in flight (link version 3).  The last frame
    // executed was the random run's READ seqn - 1.  Five WRITEs back to
    // back, the answers read after the last was sent, with a slow host
    // port (the parser waits for the executor, bytes queue in the FIFO);
    // overlapping words: the later frame must win.
    ready_bias = 1'b0;
    set_int(32'h0);
    n_before = mem_writes;
    s0 = seqn;
    for (k = 0; k < 5; k = k + 1) begin
      n  = (k == 0) ? MAXW : (k == 1) ? 4 : (k == 2) ? 1 : (k == 3) ? 16 : 2;
      w0 = (k == 0) ? 256 : (k == 1) ? 256 : (k == 2) ? 600 : (k == 3) ? 700 : 258;
      for (i = 0; i < n; i = i + 1) begin
        txw[i] = tb_random(0);
        shadow[w0 + i] = txw[i];
      end
      do_write(s0[7:0] + k[7:0], w0 * 4, n, 8'h00);
    end
    for (k = 0; k < 5; k = k + 1) expect_ack(s0[7:0] + k[7:0], 8'd0, 0);
    if (mem_writes != n_before + MAXW + 4 + 1 + 16 + 2)
      $fatal(1, "pipelined writes applied %0d words", mem_writes - n_before);
    for (i = 0; i < 1024; i = i + 1)
      if (mem[i] !== shadow[i]) $fatal(1, "pipelined: word %0d = %h, want %h", i, mem[i], shadow[i]);

    // a corrupted frame in the middle: BAD_CRC, then OUT_OF_ORDER for the
    // ones behind it, each carrying L (the last one applied); none applied
    s0 = s0 + 5;
    n_before = mem_writes;
    for (k = 0; k < 5; k = k + 1) begin
      for (i = 0; i < 4; i = i + 1) txw[i] = 32'hC0DE_0000 + k * 16 + i;
      if (k < 2) for (i = 0; i < 4; i = i + 1) shadow[800 + 8 * k + i] = txw[i];
      build_frame(s0[7:0] + k[7:0], `SGPU_LINK_CMD_WRITE, 8'h00, 16'd4, (800 + 8 * k) * 4, 4);
      if (k == 2) fb[13] = fb[13] ^ 8'h04;
      send_built(fn);
    end
    expect_ack(s0[7:0], 8'd0, 0);
    expect_ack(s0[7:0] + 8'd1, 8'd0, 0);
    expect_nak(`SGPU_LINK_NAK_BAD_CRC);
    if (r_seq != s0[7:0] + 8'd2) $fatal(1, "BAD_CRC nak for seq %0d", r_seq);
    expect_ooo(s0[7:0] + 8'd3, s0[7:0] + 8'd1);
    expect_ooo(s0[7:0] + 8'd4, s0[7:0] + 8'd1);
    if (mem_writes != n_before + 8) $fatal(1, "frames after a refused one applied (%0d words)", mem_writes - n_before);
    for (i = 0; i < 1024; i = i + 1)
      if (mem[i] !== shadow[i]) $fatal(1, "after OUT_OF_ORDER: word %0d = %h, want %h", i, mem[i], shadow[i]);
    // the host resends from L + 1, again without waiting
    for (k = 2; k < 5; k = k + 1) begin
      for (i = 0; i < 4; i = i + 1) begin
        txw[i] = 32'hC0DE_0000 + k * 16 + i;
        shadow[800 + 8 * k + i] = txw[i];
      end
      do_write(s0[7:0] + k[7:0], (800 + 8 * k) * 4, 4, 8'h00);
    end
    for (k = 2; k < 5; k = k + 1) expect_ack(s0[7:0] + k[7:0], 8'd0, 0);
    // a repeat of the last: DUPLICATE; of an older one: OUT_OF_ORDER
    do_write(s0[7:0] + 8'd4, (800 + 8 * 4) * 4, 4, 8'h00);
    expect_ack(s0[7:0] + 8'd4, `SGPU_LINK_ACK_DUPLICATE, 0);
    do_write(s0[7:0] + 8'd2, (800 + 8 * 2) * 4, 4, 8'h00);
    expect_ooo(s0[7:0] + 8'd2, s0[7:0] + 8'd4);
    if (mem_writes != n_before + 20) $fatal(1, "resent frames applied %0d words", mem_writes - n_before);
    for (i = 0; i < 1024; i = i + 1)
      if (mem[i] !== shadow[i]) $fatal(1, "after the repeats: word %0d = %h, want %h", i, mem[i], shadow[i]);
    // a READ right behind a WRITE sees it
    txw[0] = 32'h600D_F00D;
    shadow[900] = txw[0];
    do_write(s0[7:0] + 8'd5, 900 * 4, 1, 8'h00);
    do_read(s0[7:0] + 8'd6, 900 * 4, 1, 8'h00);
    expect_ack(s0[7:0] + 8'd5, 8'd0, 0);
    expect_ack(s0[7:0] + 8'd6, 8'd0, 1);
    if (rxw[0] !== 32'h600D_F00D) $fatal(1, "pipelined read gave %h", rxw[0]);
    ready_bias = 1'b1;

    // --- the fast bridges: PING, WRITEs and READs, 486 bytes back to back
    // at a byte a cycle (the FIFO holds them while the parser catches up)
    build_frame(8'd1, `SGPU_LINK_CMD_PING, 8'h00, 16'd0, 32'h0, 0);
    fs_add;
    for (i = 0; i < MAXW; i = i + 1) begin txw[i] = tb_random(0); fexp[i] = txw[i]; end
    build_frame(8'd2, `SGPU_LINK_CMD_WRITE, 8'h00, MAXW, 32'h0, MAXW);
    fs_add;
    for (i = 0; i < 16; i = i + 1) begin txw[i] = tb_random(0); fexp[64 + i] = txw[i]; end
    build_frame(8'd3, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd16, 32'd256, 16);
    fs_add;
    for (i = 0; i < 16; i = i + 1) fre[i] = fexp[i];
    build_frame(8'd4, `SGPU_LINK_CMD_READ, 8'h00, 16'd16, 32'h0, 0);
    fs_add;
    txw[0] = 32'h1234_5678; fexp[100] = txw[0];
    build_frame(8'd5, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd1, 32'd400, 1);
    fs_add;
    for (i = 0; i < 16; i = i + 1) begin txw[i] = tb_random(0); fexp[i] = txw[i]; end
    build_frame(8'd6, `SGPU_LINK_CMD_WRITE, 8'h00, 16'd16, 32'h0, 16);
    fs_add;
    for (i = 0; i < 8; i = i + 1) fre[64 + i] = fexp[64 + i];
    build_frame(8'd7, `SGPU_LINK_CMD_READ, 8'h00, 16'd8, 32'd256, 0);
    fs_add;
    if (fsn != 486) $fatal(1, "fast stream of %0d bytes", fsn);
    fast_feed;
    for (k = 0; k < 2; k = k + 1) begin
      fexpect(k, 8'd1, `SGPU_LINK_KIND_ACK, 8'd0, 1);
      if (rxw[0] !== FAST_PING_WORD) $fatal(1, "fast bridge %0d: ping word %h", k, rxw[0]);
      fexpect(k, 8'd2, `SGPU_LINK_KIND_ACK, 8'd0, 0);
      fexpect(k, 8'd3, `SGPU_LINK_KIND_ACK, 8'd0, 0);
      fexpect(k, 8'd4, `SGPU_LINK_KIND_ACK, 8'd0, 16);
      for (i = 0; i < 16; i = i + 1)
        if (rxw[i] !== fre[i]) $fatal(1, "fast bridge %0d: read word %0d = %h, want %h", k, i, rxw[i], fre[i]);
      fexpect(k, 8'd5, `SGPU_LINK_KIND_ACK, 8'd0, 0);
      fexpect(k, 8'd6, `SGPU_LINK_KIND_ACK, 8'd0, 0);
      fexpect(k, 8'd7, `SGPU_LINK_KIND_ACK, 8'd0, 8);
      for (i = 0; i < 8; i = i + 1)
        if (rxw[i] !== fre[64 + i]) $fatal(1, "fast bridge %0d: read word %0d = %h, want %h", k, i, rxw[i], fre[64 + i]);
      for (i = 0; i < 256; i = i + 1)
        if (fmem[k * 256 + i] !== fexp[i]) $fatal(1, "fast bridge %0d: word %0d = %h, want %h", k, i, fmem[k * 256 + i], fexp[i]);
    end
    if (g_fast[0].writes != 64 + 16 + 1 + 16 || g_fast[1].writes != 64 + 16 + 1 + 16)
      $fatal(1, "fast bridges wrote %0d and %0d words", g_fast[0].writes, g_fast[1].writes);

    // --- overflow: three 64-word WRITEs (810 bytes) at a byte a cycle.  The
    // bit-serial bridge drops what finds its FIFO full; whatever each
    // bridge answers, a frame is applied whole if ACKed and not at all
    // otherwise, and after a quiet line a PING is answered again.
    for (k = 0; k < 3; k = k + 1) begin
      for (i = 0; i < MAXW; i = i + 1) begin txw[i] = tb_random(0); fdat[64 * k + i] = txw[i]; end
      build_frame(8'd8 + k[7:0], `SGPU_LINK_CMD_WRITE, 8'h00, MAXW, ((k == 2) ? 0 : 128 + 64 * k) * 4, MAXW);
      fs_add;
    end
    fast_feed;
    for (k = 0; k < 2; k = k + 1) begin
      fans[0] = 0; fans[1] = 0; fans[2] = 0;
      frecv(k, 3 * FTIMEOUT + 20000);
      while (!timed_out) begin
        if (r_seq >= 8 && r_seq <= 10 && fans[r_seq - 8] == 0)
          fans[r_seq - 8] = (r_kind == `SGPU_LINK_KIND_ACK) ? 8'd1 : 8'd2;
        frecv(k, 3 * FTIMEOUT);
      end
      bad = 0;
      for (j = 0; j < 3; j = j + 1) begin
        w0 = (j == 2) ? 0 : 128 + 64 * j;
        for (i = 0; i < MAXW; i = i + 1)
          if (fmem[k * 256 + w0 + i] !== ((fans[j] == 1) ? fdat[64 * j + i] : fexp[w0 + i]))
            $fatal(1, "fast bridge %0d: frame %0d (answer %0d) word %0d = %h", k, j, fans[j], i, fmem[k * 256 + w0 + i]);
        if (fans[j] != 1) bad = bad + 1;
      end
      if (k == 0 && bad == 0) $fatal(1, "the bit-serial bridge took 810 bytes at a byte a cycle");
      $display("fast bridge CRC_STEP %0d: overflow answers %0d %0d %0d (1 ACK, 2 NAK, 0 none)",
               (k == 0) ? 1 : 8, fans[0], fans[1], fans[2]);
    end
    build_frame(8'd11, `SGPU_LINK_CMD_PING, 8'h00, 16'd0, 32'h0, 0);
    fs_add;
    fast_feed;
    for (k = 0; k < 2; k = k + 1) begin
      fexpect(k, 8'd11, `SGPU_LINK_KIND_ACK, 8'd0, 1);
      if (rxw[0] !== FAST_PING_WORD) $fatal(1, "fast bridge %0d: ping word %h after the overflow", k, rxw[0]);
    end

    if (rx_ferr) $fatal(1, "framing error");
    $display("tb_sgpu_host_bridge: PASS (%0d corrupted, %0d answers lost, %0d duplicates, %0d events)",
             corrupted, dropped, dups, events);
    $finish;
  end

  initial begin
    // in 1 ms steps: Verilator 5.006 wraps a single delay at 2^32 ps
    repeat (400) #1000000;
    $fatal(1, "tb_sgpu_host_bridge: timeout");
  end

endmodule
