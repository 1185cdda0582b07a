// tb_sgpu_link_parser: the host bridge's frame parser, driven directly with
// frames built here per docs/link-protocol.md (Request, CRC, NAK reasons,
// Retransmission), its CRC from a bit-serial CRC-32/MPEG-2 of the bench.
// The bench plays the receive FIFO (a byte strobed in the cycle after a
// pull) or, for the version-2 parser, the wire; and the executor: it takes
// each held frame after a random delay, compares the frame with what it
// sent (SEQ, CMD, COUNT, ADDR's kept bits, write strobes, NO_INCR) and its
// own verdict: BAD_CMD, BAD_LENGTH, BAD_CRC, TIMEOUT (within the gap time
// and an eighth more), BAD_ADDR (misaligned, or a word of the burst outside
// memory, 2^KW bytes, or the register block: computed here in 64-bit
// arithmetic from the frame sent), OUT_OF_ORDER and DUPLICATE from its own L;
// reads the buffer of each executed WRITE back and compares it with the
// data sent.  Between frames: noise bytes (not SYNC), zero pads.
// Two parsers: version 3 (CRC_STEP 1, AW 17) fed through the FIFO model
// with frames in flight, and version 2 (CRC_STEP 8, AW 32), stop-and-wait
// on the wire.  Also checked: no byte is pulled while a frame is held or
// the buffer is read, none reaches the parser during its CRC steps, and
// waiting bytes are taken every 8 / CRC_STEP + 1 cycles.
`timescale 1ns/1ps
`include "sgpu_hw.vh"

module tb_link_parser_run #(
  parameter integer V3 = 1,
  parameter integer STEP = 1,
  parameter integer AWP = 17,
  parameter integer SEED = 1
) (
  input  wire clk,
  input  wire rst_n,
  output reg  done
);
  localparam integer TMO = 300;               // gap timeout (cycles)
  localparam integer NSTEPS = 8 / STEP;
  localparam integer KW = (AWP < 12) ? 12 : ((AWP > 31) ? 31 : AWP);
  localparam integer NFRAMES = 700;
  localparam [7:0] SYNC = 8'hA5;
  localparam [7:0] R_CRC = 1, R_LEN = 2, R_CMD = 3, R_TMO = 4, R_ADDR = 5, R_OOO = 6;
  localparam [63:0] MEM_BYTES = 64'd1 << KW;
  localparam [63:0] REG_BYTES = `SGPU_REG_BLOCK_BYTES;

  // the oracle of the address rule: the burst's words (NO_INCR: one) all
  // inside GPU memory (ADDR[31] clear) or the register block (set)
  function out_of_range(input [31:0] a, input [15:0] cnt, input [7:0] fl);
    reg [63:0] span, base, lim;
    begin
      span = fl[4] ? 64'd4 : 64'd4 * cnt;
      base = {33'd0, a[30:0]};
      lim  = a[31] ? REG_BYTES : MEM_BYTES;
      out_of_range = base + span > lim;
    end
  endfunction

  integer seed = SEED;
  `include "tb_random.vh"

  // ------------------------------------------------------------ DUT
  reg        rx_valid = 1'b0;
  reg  [7:0] rx_data = 8'h00;
  wire       rx_pull;
  wire       f_valid, f_read, f_ping, f_dup, f_incr;
  reg        f_ready = 1'b0;
  wire [7:0] f_seq, f_last;
  wire [2:0] f_nak;
  wire [6:0] f_count;
  wire [31:0] f_addr;
  wire [3:0] f_wstrb;
  reg        busy = 1'b0;
  reg  [5:0] raddr = 6'd0;
  wire [31:0] rdata;

  sgpu_link_parser #(.TIMEOUT_CYCLES(TMO), .AW(AWP), .CRC_STEP(STEP), .V3(V3)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .rx_valid_i(rx_valid), .rx_data_i(rx_data), .rx_pull_o(rx_pull),
    .frame_valid_o(f_valid), .frame_ready_i(f_ready),
    .frame_seq_o(f_seq), .frame_read_o(f_read), .frame_ping_o(f_ping),
    .frame_nak_o(f_nak), .frame_dup_o(f_dup), .frame_last_seq_o(f_last),
    .frame_count_o(f_count), .frame_addr_o(f_addr), .frame_wstrb_o(f_wstrb),
    .frame_incr_o(f_incr),
    .wbuf_busy_i(busy), .wbuf_raddr_i(raddr), .wbuf_rdata_o(rdata));

  // ------------------------------------------------------------ CRC-32/MPEG-2
  function [31:0] crc_byte(input [31:0] c, input [7:0] b);
    integer k;
    begin
      crc_byte = c ^ {b, 24'd0};
      for (k = 0; k < 8; k = k + 1)
        crc_byte = crc_byte[31] ? ((crc_byte << 1) ^ 32'h04C11DB7) : (crc_byte << 1);
    end
  endfunction

  // ------------------------------------------------------------ byte source
  // bytes to deliver, in order; V3: strobed in the cycle after a pull
  // (the FIFO); V2: strobed as they are sent (the wire)
  reg [7:0] src [0:65535];
  integer   src_wr = 0, src_rd = 0;
  integer   since = 0;           // cycles since the last strobe, while one waits
  integer   last_strobe = 0, cyc = 0;
  always @(posedge clk) begin
    cyc = cyc + 1;
    if (rst_n) begin
      if (rx_pull && (f_valid || busy)) $fatal(1, "V%0d: pull while a frame is held or the buffer read", V3 ? 3 : 2);
      if (rx_valid && dut.u_crc.busy_o) $fatal(1, "V%0d: a byte during the CRC steps", V3 ? 3 : 2);
      if (rx_valid) last_strobe = cyc;
      if (V3 != 0) begin
        if (rx_valid || f_valid || busy || src_rd == src_wr) since = 0;
        else since = since + 1;
        if (since > NSTEPS + 1) $fatal(1, "V3: a byte waits, the parser takes none for %0d cycles", since);
        if (rx_pull && !rx_valid && src_rd != src_wr) begin
          rx_valid <= 1'b1;
          rx_data  <= src[src_rd % 65536];
          src_rd = src_rd + 1;
        end else begin
          rx_valid <= 1'b0;
        end
      end
    end
  end

  // V2: a byte on the wire, NSTEPS + 1 cycles or more after the one before
  task wire_byte(input [7:0] b, input integer gap);
    begin
      rx_valid <= 1'b1; rx_data <= b;
      @(negedge clk);
      rx_valid <= 1'b0;
      repeat (NSTEPS + gap) @(negedge clk);
    end
  endtask

  // ------------------------------------------------------------ expectations
  // per frame sent: the parser's own verdict (0, BAD_CMD, BAD_LENGTH,
  // BAD_CRC, TIMEOUT) and the fields; WRITE data in e_data
  reg [7:0]  e_reason [0:1023];
  reg [7:0]  e_seq [0:1023], e_cmd [0:1023], e_flags [0:1023];
  reg [15:0] e_count [0:1023];
  reg [31:0] e_addr [0:1023];
  reg        e_seqok [0:1023];       // the SEQ byte arrived (TIMEOUT)
  reg [31:0] e_data [0:1023][0:63];
  integer    e_wr = 0, e_rd = 0;
  integer    tmo_from;               // TIMEOUT: the cycle of the last byte

  // frame bytes under construction
  reg [7:0] fb [0:299];
  integer   fn;

  task build(input [7:0] seq, input [7:0] cmd, input [7:0] flags, input [15:0] count,
             input [31:0] addr);
    integer i;
    reg [31:0] c, w;
    begin
      fb[0] = SYNC; fb[1] = seq; fb[2] = cmd; fb[3] = flags;
      fb[4] = count[7:0]; fb[5] = count[15:8];
      fb[6] = addr[7:0]; fb[7] = addr[15:8]; fb[8] = addr[23:16]; fb[9] = addr[31:24];
      fn = 10;
      e_seq[e_wr % 1024] = seq; e_cmd[e_wr % 1024] = cmd; e_flags[e_wr % 1024] = flags;
      e_count[e_wr % 1024] = count; e_addr[e_wr % 1024] = addr; e_seqok[e_wr % 1024] = 1'b1;
      if (cmd == 8'h01 && count >= 1 && count <= 64) begin
        for (i = 0; i < count; i = i + 1) begin
          w = tb_random(0);
          if ((tb_random(0) & 7) == 0) w[15:8] = SYNC;     // SYNC inside data
          e_data[e_wr % 1024][i] = w;
          fb[fn] = w[7:0]; fb[fn + 1] = w[15:8]; fb[fn + 2] = w[23:16]; fb[fn + 3] = w[31:24];
          fn = fn + 4;
        end
      end
      c = 32'hFFFFFFFF;
      for (i = 1; i < fn; i = i + 1) c = crc_byte(c, fb[i]);
      fb[fn] = c[31:24]; fb[fn + 1] = c[23:16]; fb[fn + 2] = c[15:8]; fb[fn + 3] = c[7:0];
      fn = fn + 4;
    end
  endtask

  // send fb[0 .. n-1]; gaps: 0 (as fast as taken), or up to `maxgap`
  task send(input integer n, input integer maxgap);
    integer i, g;
    begin
      for (i = 0; i < n; i = i + 1) begin
        g = (maxgap > 0) ? $unsigned(tb_random(0)) % maxgap : 0;
        if (V3 != 0) begin
          repeat (g) @(negedge clk);
          src[src_wr % 65536] = fb[i];
          src_wr = src_wr + 1;
        end else begin
          wire_byte(fb[i], g);
        end
      end
    end
  endtask

  task noise(input integer n);
    integer i;
    begin
      for (i = 0; i < n; i = i + 1) begin
        fb[i] = tb_random(0);
        if (fb[i] == SYNC) fb[i] = 8'h00;
      end
      send(n, 3);
    end
  endtask

  // wait until the executor side has taken every frame sent
  task drain;
    begin
      while (e_rd != e_wr || busy || f_valid) @(negedge clk);
    end
  endtask

  // ------------------------------------------------------------ executor side
  reg [7:0] L = 8'd0;
  reg       L_valid = 1'b0;
  integer   n_exec = 0, n_nak = 0, n_dup = 0, n_tmo = 0, n_ooo = 0, n_addr = 0, n_range = 0;
  integer   nak_count [0:7];
  integer   k, i2, wait_c;
  reg [7:0] x_nak;
  reg       x_dup;
  reg [31:0] x_addr;
  initial for (k = 0; k < 8; k = k + 1) nak_count[k] = 0;

  always @(posedge clk) begin : exec_side
    if (rst_n && f_valid && !f_ready && !busy && e_rd == e_wr)
      $fatal(1, "V%0d: a frame held that was not sent (SEQ %h, NAK %0d)", V3 ? 3 : 2, f_seq, f_nak);
  end

  // watchdog: a frame taken at least every 50,000 cycles while one is due
  integer wd_mark = 0, wd_cyc = 0;
  always @(posedge clk) begin
    wd_cyc = wd_cyc + 1;
    if (e_rd != wd_mark || e_rd == e_wr) begin wd_mark = e_rd; wd_cyc = 0; end
    if (wd_cyc > 50000) $fatal(1, "V%0d: stuck: %0d of %0d frames taken", V3 ? 3 : 2, e_rd, e_wr);
  end

  initial begin
    done = 1'b0;
    @(posedge rst_n);
    forever begin
      @(negedge clk);
      if (f_valid && e_rd != e_wr) begin
        // the verdict expected: the parser's own, else BAD_ADDR, else
        // (version 3) OUT_OF_ORDER; a WRITE with SEQ = L: a duplicate
        k = e_rd % 1024;
        x_nak = e_reason[k];
        if (x_nak == 0 && e_cmd[k] != 8'h03 &&
            (e_addr[k][1:0] != 2'b00 || out_of_range(e_addr[k], e_count[k], e_flags[k]))) begin
          x_nak = R_ADDR;
          if (e_addr[k][1:0] == 2'b00) n_range = n_range + 1;
        end
        if (x_nak == 0 && V3 != 0 && e_cmd[k] == 8'h01 && L_valid &&
            e_seq[k] != L && e_seq[k] != L + 8'd1) x_nak = R_OOO;
        x_dup = L_valid && e_seq[k] == L;
        if (x_nak == R_TMO) begin
          if (cyc - tmo_from < TMO || cyc - tmo_from > TMO + TMO / 8)
            $fatal(1, "V%0d: TIMEOUT after %0d cycles (gap %0d)", V3 ? 3 : 2, cyc - tmo_from, TMO);
          n_tmo = n_tmo + 1;
        end
        if (f_nak !== x_nak[2:0])
          $fatal(1, "V%0d frame %0d (SEQ %h CMD %h COUNT %0d ADDR %h, L %h/%b): NAK %0d, expected %0d",
                 V3 ? 3 : 2, e_rd, e_seq[k], e_cmd[k], e_count[k], e_addr[k], L, L_valid, f_nak, x_nak);
        if (L_valid && f_last !== L) $fatal(1, "V%0d: L %h, expected %h", V3 ? 3 : 2, f_last, L);
        if (x_nak != R_TMO || e_seqok[k]) begin
          if (f_seq !== e_seq[k]) $fatal(1, "V%0d frame %0d: SEQ %h, expected %h", V3 ? 3 : 2, e_rd, f_seq, e_seq[k]);
        end
        if (x_nak != R_TMO) begin
          x_addr = 32'd0;
          x_addr[31] = e_addr[k][31];
          x_addr[KW-1:2] = e_addr[k][KW-1:2];
          if (f_read !== (e_cmd[k] == 8'h02) || f_ping !== (e_cmd[k] == 8'h03) ||
              f_count !== e_count[k][6:0] || f_addr !== x_addr ||
              f_wstrb !== ~e_flags[k][3:0] || f_incr !== !e_flags[k][4])
            $fatal(1, "V%0d frame %0d: fields read %b ping %b count %0d addr %h wstrb %h incr %b, sent CMD %h COUNT %0d ADDR %h FLAGS %h",
                   V3 ? 3 : 2, e_rd, f_read, f_ping, f_count, f_addr, f_wstrb, f_incr,
                   e_cmd[k], e_count[k], e_addr[k], e_flags[k]);
        end
        if (x_nak == 0 && e_cmd[k] == 8'h01 && f_dup !== x_dup)
          $fatal(1, "V%0d frame %0d: DUPLICATE %b, expected %b (SEQ %h, L %h)", V3 ? 3 : 2, e_rd, f_dup, x_dup, e_seq[k], L);
        nak_count[x_nak[2:0]] = nak_count[x_nak[2:0]] + 1;
        // hold it a while (the next frame's bytes wait), then take it
        wait_c = $unsigned(tb_random(0)) % ((tb_random(0) & 7) == 0 ? 400 : 12);
        repeat (wait_c) @(negedge clk);
        f_ready <= 1'b1;
        e_rd = e_rd + 1;
        if (x_nak == 0) begin
          L = e_seq[k]; L_valid = 1'b1;
          n_exec = n_exec + 1;
        end else n_nak = n_nak + 1;
        if (x_nak == 0 && e_cmd[k] == 8'h01 && x_dup) n_dup = n_dup + 1;
        if (x_nak == 0 && e_cmd[k] == 8'h01 && !x_dup) begin
          // read the buffer back, as the executor applies it
          busy <= 1'b1;
          @(negedge clk);
          f_ready <= 1'b0;
          for (i2 = 0; i2 < e_count[k]; i2 = i2 + 1) begin
            raddr <= i2;
            @(negedge clk);
            if (rdata !== e_data[k][i2])
              $fatal(1, "V%0d frame %0d: buffer word %0d %h, expected %h", V3 ? 3 : 2, e_rd - 1, i2, rdata, e_data[k][i2]);
            if ((tb_random(0) & 3) == 0) @(negedge clk);
          end
          busy <= 1'b0;
        end else begin
          @(negedge clk);
          f_ready <= 1'b0;
        end
      end
    end
  end

  // ------------------------------------------------------------ frames
  reg [7:0]  seq_next = 8'd1, s, cmd, flags;
  reg [15:0] count;
  reg [31:0] addr;
  integer    n, r, kind, cut, pos, maxgap;
  initial begin
    @(posedge rst_n);
    repeat (5) @(negedge clk);
    for (n = 0; n < NFRAMES; n = n + 1) begin
      // SEQ: the next mostly, a repeat, or any
      r = $unsigned(tb_random(0)) % 20;
      if (r < 15) begin s = seq_next; seq_next = seq_next + 8'd1; end
      else if (r < 18) s = seq_next - 8'd1;
      else s = tb_random(0);
      r = $unsigned(tb_random(0)) % 10;
      cmd = (r < 4) ? 8'h01 : (r < 7) ? 8'h02 : 8'h03;
      flags = tb_random(0) & 8'h1F;
      count = (cmd == 8'h03) ? 16'd0 : 16'd1 + ($unsigned(tb_random(0)) % 64);
      if (cmd == 8'h01 && (tb_random(0) & 1)) count = 1 + (count & 7);
      // ADDR: anywhere; inside memory or the register block; or a burst
      // ending near the end of either (in, at, or just past it)
      addr = tb_random(0);
      r = $unsigned(tb_random(0)) % 8;
      if (r == 1) addr = tb_random(0) & (MEM_BYTES[31:0] - 32'd1) & 32'h7FFFFFFF;
      else if (r == 2) addr = 32'h80000000 | (tb_random(0) & (REG_BYTES[31:0] - 32'd1));
      else if (r >= 3) begin
        addr = ((r & 1) ? REG_BYTES[31:0] : MEM_BYTES[31:0]) - 32'd4 * ((cmd == 8'h03) ? 32'd0 : {16'd0, count})
               + 32'd4 * ($unsigned(tb_random(0)) % 5) - 32'd8;
        if (r & 1) addr = addr | 32'h80000000;
        else addr[31] = 1'b0;
        if (r == 7) addr = 32'hFFFFF000 + 32'd4 * ($unsigned(tb_random(0)) % 1024);
      end
      addr[1:0] = ((tb_random(0) & 15) == 0) ? (tb_random(0) & 3) : 2'b00;
      maxgap = ((tb_random(0) & 7) == 0) ? TMO * 3 / 4 : (V3 != 0 ? 2 : 4);
      kind = $unsigned(tb_random(0)) % 16;
      e_reason[e_wr % 1024] = 8'd0;
      case (kind)
        0: begin // a bad CMD or a reserved FLAGS bit: NAKed on the header
          if (tb_random(0) & 1) begin
            cmd = tb_random(0);
            if (cmd == 8'h01 || cmd == 8'h02 || cmd == 8'h03) cmd = 8'h00;
          end else flags = flags | (8'h20 << ($unsigned(tb_random(0)) % 3));
          build(s, cmd, flags, count, addr);
          e_reason[e_wr % 1024] = R_CMD;
          fn = 10;
        end
        1: begin // a bad COUNT: NAKed on the header
          if (cmd == 8'h03) count = 16'd1 + (tb_random(0) & 16'h1FF);
          else case (tb_random(0) & 3)
            0: count = 16'd0;
            1: count = 16'd65 + (tb_random(0) & 16'hFF);
            2: count = {8'd1 + (tb_random(0) & 8'h7F), 8'd1};
            default: count = 16'd128;
          endcase
          build(s, cmd, flags, count, addr);
          e_reason[e_wr % 1024] = R_LEN;
          fn = 10;
        end
        2, 3: begin // damaged after the header's checks: SEQ, ADDR, data or CRC
          build(s, cmd, flags, count, addr);
          e_reason[e_wr % 1024] = R_CRC;
          r = $unsigned(tb_random(0)) % 3;
          pos = (r == 0) ? 1 : (r == 1) ? 6 + ($unsigned(tb_random(0)) % 4) : 10 + ($unsigned(tb_random(0)) % (fn - 10));
          fb[pos] = fb[pos] ^ (8'd1 << ($unsigned(tb_random(0)) % 8));
          if (pos == 1) e_seq[e_wr % 1024] = fb[1];
          if (pos >= 6 && pos <= 9) e_addr[e_wr % 1024] = {fb[9], fb[8], fb[7], fb[6]};
        end
        4: begin // stops: TIMEOUT
          build(s, cmd, flags, count, addr);
          e_reason[e_wr % 1024] = R_TMO;
          cut = 1 + ($unsigned(tb_random(0)) % (fn - 1));
          e_seqok[e_wr % 1024] = (cut >= 2);
          fn = cut;
        end
        default: build(s, cmd, flags, count, addr);
      endcase
      e_wr = e_wr + 1;
      send(fn, maxgap);
      if (kind == 4) begin
        // the timeout runs from the parser's last byte
        while (src_rd != src_wr) @(negedge clk);
        @(negedge clk);
        tmo_from = last_strobe;
        drain;
      end
      if (kind <= 1) drain;       // the rest of the header-NAKed frame is not sent
      if ((tb_random(0) & 3) == 0) noise($unsigned(tb_random(0)) % 6);
      // version 2: one frame in flight (bytes that come while one is held
      // are dropped)
      if (V3 == 0 || (tb_random(0) & 15) == 0) drain;
    end
    drain;
    repeat (20) @(negedge clk);
    if (nak_count[R_CRC] < 20 || nak_count[R_LEN] < 10 || nak_count[R_CMD] < 10 || n_tmo < 10 ||
        nak_count[R_ADDR] < 5 || n_range < 20 || n_dup < 5 || (V3 != 0 && nak_count[R_OOO] < 5))
      $fatal(1, "V%0d: stimulus too weak", V3 ? 3 : 2);
    $display("tb_sgpu_link_parser: V%0d CRC_STEP %0d: %0d frames, %0d executed (%0d duplicates), NAKs: %0d CRC %0d LEN %0d CMD %0d TIMEOUT %0d ADDR (%0d out of range) %0d OUT_OF_ORDER",
             V3 ? 3 : 2, STEP, e_wr, n_exec, n_dup, nak_count[R_CRC], nak_count[R_LEN], nak_count[R_CMD],
             n_tmo, nak_count[R_ADDR], n_range, nak_count[R_OOO]);
    done = 1'b1;
  end
endmodule

module tb_sgpu_link_parser;
  reg clk = 1'b0;
  reg rst_n = 1'b0;
  always #5 clk = ~clk;
  wire [1:0] done;

  tb_link_parser_run #(.V3(1), .STEP(1), .AWP(17), .SEED(21)) r3 (.clk(clk), .rst_n(rst_n), .done(done[0]));
  tb_link_parser_run #(.V3(0), .STEP(8), .AWP(32), .SEED(22)) r2 (.clk(clk), .rst_n(rst_n), .done(done[1]));

  initial begin
    repeat (3) @(posedge clk);
    rst_n <= 1'b1;
    wait (&done);
    $display("tb_sgpu_link_parser: PASS");
    $finish;
  end
endmodule
