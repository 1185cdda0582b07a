// sgpu_link_parser: the host bridge's frame parser (docs/link-protocol.md,
// Request, NAK reasons, Device behaviour, Retransmission).
//
// Takes the received bytes (from sgpu_link_rx_fifo: it pulls them, as fast
// as its CRC steps allow), hunts for SYNC, collects the header, checks CMD,
// FLAGS and COUNT once the header is complete (a bad one is handed over at
// once, and the rest of the frame is hunted through as noise), writes the
// WRITE data into the write buffer (SGPU_LINK_MAX_WORDS words, written a
// byte lane at a time, read a word at a time by the executor), checks the
// CRC-32 (sgpu_link_crc) and the gap timeout, and applies the sequence rule
// against L, the SEQ of the last executed frame, which it keeps, and the
// address rule: a READ / WRITE must stay, all its words, inside GPU memory
// (2^KW bytes: ADDR[31] clear, ADDR + 4 * COUNT <= 2^KW) or the register
// block (ADDR[31] set, offset + 4 * COUNT <= SGPU_REG_BLOCK_BYTES); with
// NO_INCR its one word is ADDR.  Then it
// holds the frame (frame_valid_o) until the executor takes it
// (frame_ready_i); frame_nak_o says the NAK reason (BAD_CRC, BAD_LENGTH,
// BAD_CMD, TIMEOUT, BAD_ADDR, OUT_OF_ORDER), 0 for a frame to execute, and
// frame_dup_o a WRITE that repeats L (acknowledged, not applied again).
// A frame taken with frame_nak_o 0 becomes L.  It takes no byte while it
// holds a frame or while the executor reads the buffer (wbuf_busy_i).
`include "sgpu_hw.vh"

module sgpu_link_parser #(
  parameter integer TIMEOUT_CYCLES = 125000,  // gap that aborts a frame (LINK_GAP_TIMEOUT_US)
  // address bits kept besides bit 31 (as sgpu_host_bridge's AW): ADDR
  // bits [AW-1:2] (at least [11:2], at most [30:2]); the others read 0.
  // GPU memory is 2^KW bytes (KW: AW kept between 12 and 31): a burst
  // beyond it is refused (BAD_ADDR)
  parameter integer AW = 32,
  parameter integer CRC_STEP = 1,             // CRC bits a cycle (sgpu_link_crc)
  // 1: link version 3 (bytes from a receive FIFO): its WRITE sequence rule
  // (SEQ must be L or L + 1, else OUT_OF_ORDER), and the gap counts while
  // the executor reads the buffer.  0: version 2 (any new SEQ executes, the
  // gap counts only inside a frame: bytes come straight from the wire)
  parameter integer V3 = 1
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // received bytes
  input  wire        rx_valid_i,
  input  wire [7:0]  rx_data_i,
  output wire        rx_pull_o,         // can take a byte in the next cycle
  // the frame, for the executor
  output wire        frame_valid_o,
  input  wire        frame_ready_i,
  output wire [7:0]  frame_seq_o,
  output wire        frame_read_o,      // CMD: READ
  output wire        frame_ping_o,      // CMD: PING (neither, no NAK: WRITE)
  output wire [2:0]  frame_nak_o,       // NAK reason [2:0], 0: execute
  output wire        frame_dup_o,       // a WRITE with SEQ = L: a retransmission
  output wire [7:0]  frame_last_seq_o,  // L (OUT_OF_ORDER's data word)
  output wire [6:0]  frame_count_o,     // COUNT (1..SGPU_LINK_MAX_WORDS for READ / WRITE)
  output wire [31:0] frame_addr_o,      // ADDR: bit 31 and the kept bits [KW-1:2], others 0
  output wire [3:0]  frame_wstrb_o,     // ~FLAGS.BYTE_DISABLE
  output wire        frame_incr_o,      // !FLAGS.NO_INCR
  // the write buffer, read by the executor (data a cycle after the address)
  input  wire        wbuf_busy_i,       // the executor reads it: take no byte
  input  wire [$clog2(`SGPU_LINK_MAX_WORDS)-1:0] wbuf_raddr_i,
  output wire [31:0] wbuf_rdata_o
);

  localparam integer MAXW = `SGPU_LINK_MAX_WORDS;
  localparam integer BAW  = $clog2(MAXW);           // buffer address width
  // Gap timeout: a free-running prescaler ticks every 2^GPW cycles and the
  // gap counter counts ticks since the last byte; GTICKS ticks take at least
  // TIMEOUT_CYCLES and less than TIMEOUT_CYCLES + 2^(GPW+1) cycles (the
  // prescaler keeps about 1/16 of the timeout: 5.0..5.2 ms on the iCEBreaker).
  localparam integer GW     = $clog2(TIMEOUT_CYCLES + 1);
  localparam integer GPW    = (GW > 6) ? GW - 5 : 1;
  localparam integer GTICKS = (TIMEOUT_CYCLES + (1 << GPW) - 1) / (1 << GPW) + 1;
  localparam integer GTW    = $clog2(GTICKS + 1);
  localparam [31:0] GAP_LAST32 = GTICKS;
  localparam [GTW-1:0] GAP_LAST = GAP_LAST32[GTW-1:0];
  localparam [6:0]  MAXW7 = 7'd`SGPU_LINK_MAX_WORDS;    // COUNT limit (< 128)
  localparam integer KW = (AW < 12) ? 12 : ((AW > 31) ? 31 : AW);   // address bits [KW-1:2] kept
  // the register block: offsets [RBW-1:0] (at least a 128-word page: the
  // range check below works on pages of 128 words, more than a burst)
  localparam integer RBW = $clog2(`SGPU_REG_BLOCK_BYTES);
  // ADDR bits [30:KW], not kept: any set is outside memory and registers
  localparam [31:0] HI_MASK  = (32'h7FFFFFFF >> KW) << KW;
  // register offset bits [30:RBW]: any set is outside the register block
  localparam [31:0] RHI_MASK = (32'h7FFFFFFF >> RBW) << RBW;

  localparam [7:0] SYNC      = `SGPU_LINK_SYNC;
  localparam [7:0] CMD_WRITE = `SGPU_LINK_CMD_WRITE;
  localparam [7:0] CMD_READ  = `SGPU_LINK_CMD_READ;
  localparam [7:0] CMD_PING  = `SGPU_LINK_CMD_PING;
  localparam [7:0] RSV_MASK  = `SGPU_LINK_FLAGS_RESERVED_MASK;
  // the NAK reasons are all below 8: three bits are kept
  localparam [7:0] NAK_CRC   = `SGPU_LINK_NAK_BAD_CRC;
  localparam [7:0] NAK_LEN   = `SGPU_LINK_NAK_BAD_LENGTH;
  localparam [7:0] NAK_CMD   = `SGPU_LINK_NAK_BAD_CMD;
  localparam [7:0] NAK_TMO   = `SGPU_LINK_NAK_TIMEOUT;
  localparam [7:0] NAK_ADDR  = `SGPU_LINK_NAK_BAD_ADDR;
  localparam [7:0] NAK_OOO   = `SGPU_LINK_NAK_OUT_OF_ORDER;

  // ------------------------------------------------------------ write buffer
  // written one byte lane at a time as the data arrives (block RAM with
  // a write mask), read a word at a time
  // no_rw_check: the executor reads the buffer only while the parser takes
  // no byte (wbuf_busy_i), so synthesis needs no read-during-write bypass
  // around the block RAM.
  (* no_rw_check *)
  reg [31:0]     wbuf_q [0:MAXW-1];
  reg [31:0]     wbuf_rdata_q;
  reg            wbuf_we;
  wire [BAW-1:0] wbuf_waddr;
  wire [1:0]     wbuf_lane;

  always @(posedge clk_i) begin
    if (wbuf_we) begin
      case (wbuf_lane)
        2'd0: wbuf_q[wbuf_waddr][7:0]   <= rx_data_i;
        2'd1: wbuf_q[wbuf_waddr][15:8]  <= rx_data_i;
        2'd2: wbuf_q[wbuf_waddr][23:16] <= rx_data_i;
        default: wbuf_q[wbuf_waddr][31:24] <= rx_data_i;
      endcase
    end
    wbuf_rdata_q <= wbuf_q[wbuf_raddr_i];
  end

  // ------------------------------------------------------------ frame
  localparam [2:0] S_HUNT  = 3'd0;
  localparam [2:0] S_HDR   = 3'd1;
  localparam [2:0] S_DATA  = 3'd2;
  localparam [2:0] S_CRC   = 3'd3;
  localparam [2:0] S_HOLD  = 3'd5;

  reg [2:0]    state_q, state_d;
  reg [7:0]    idx_q, idx_d;            // byte of the header / data / CRC
  reg [7:0]    seq_q, seq_d;
  reg [2:0]    cmd_q, cmd_d;            // decoded CMD: {PING, READ, WRITE}, 0 = unknown
  reg [3:0]    bdis_q, bdis_d;          // FLAGS.BYTE_DISABLE
  reg          noinc_q, noinc_d;        // FLAGS.NO_INCR
  reg          rsv_q, rsv_d;            // a reserved FLAGS bit is set
  reg [6:0]    count_q, count_d;        // COUNT[6:0]
  reg          cbig_q, cbig_d;          // COUNT >= 128
  reg [KW-1:2] addr_q, addr_d;          // ADDR bits kept
  reg          areg_q, areg_d;          // ADDR[31]: register space
  reg          amis_q, amis_d;          // ADDR[1:0] != 0
  reg          ahi_q, ahi_d;            // an ADDR bit in [30:KW] is set
  reg          abad_q;                  // the burst leaves memory or the register block
  reg [2:0]    nak_q, nak_d;            // 0: frame good so far
  reg [GPW-1:0] gap_pre_q;              // gap prescaler
  wire          gap_tick = &gap_pre_q;
  reg [GTW-1:0] gap_q, gap_d;           // prescaler ticks since the last byte
  reg [7:0]    last_seq_q;              // L: the SEQ of the last executed frame
  reg          last_valid_q;            // a frame was executed since reset

  // The CRC: a byte is loaded as it arrives, the register does its steps
  // before the next one (a byte is pulled in the last step's cycle at the
  // earliest, so the steps are done when it comes, 8 / CRC_STEP + 1 cycles on)
  reg          crc_init, crc_load;
  wire [31:0]  crc;
  wire         crc_busy, crc_ending;
  sgpu_link_crc #(.CRC_STEP(CRC_STEP)) u_crc (
    .clk_i(clk_i), .rst_ni(rst_ni), .init_i(crc_init), .load_i(crc_load),
    .byte_i(rx_data_i), .crc_o(crc), .busy_o(crc_busy), .ending_o(crc_ending));

  wire hold = (state_q == S_HOLD);
  assign rx_pull_o = crc_ending && !hold && !wbuf_busy_i;

  // header checks, on the complete header (the last byte is ADDR[31:24],
  // which no check looks at)
  wire cmd_write = cmd_q[0];
  wire cmd_read  = cmd_q[1];
  wire cmd_ping  = cmd_q[2];
  wire hdr_bad_cmd = !(cmd_write || cmd_read || cmd_ping) || rsv_q;
  wire cnt_zero    = (count_q == 7'd0) && !cbig_q;
  // READ / WRITE need 1 <= COUNT <= MAXW; for MAXW = 64 that is "bit 6 set
  // and [5:0] zero, or bit 6 clear and [5:0] not zero" (fewer LUTs)
  wire cnt_lo0     = (count_q[5:0] == 6'd0);
  wire cnt_rw_ok   = (MAXW == 64) ? (count_q[6] ? cnt_lo0 : !cnt_lo0)
                                  : (!cnt_zero && count_q <= MAXW7);
  wire hdr_bad_len = cmd_ping ? !cnt_zero : (cbig_q || !cnt_rw_ok);
  assign wbuf_waddr = idx_q[BAW+1:2];
  assign wbuf_lane  = idx_q[1:0];
  wire [8:0] idx_inc = {1'b0, idx_q} + 9'd1;
  // the last data byte: index 4*COUNT-1
  wire       data_last = (idx_q[1:0] == 2'b11) && (idx_inc[8:2] == count_q);
  // the address kept (bit 31, [KW-1:2]; the others 0), and as it arrives,
  // a byte at a time
  wire [31:0] addr_kept;
  assign addr_kept[31]     = areg_q;
  assign addr_kept[KW-1:2] = addr_q;
  assign addr_kept[1:0]    = 2'b00;
  generate if (KW < 31) begin : g_addr_hi
    assign addr_kept[30:KW] = {(31-KW){1'b0}};
  end endgenerate
  reg  [31:0] addr32;

  always @(*) begin
    state_d  = state_q;
    idx_d    = idx_q;
    crc_init = 1'b0;
    crc_load = 1'b0;
    seq_d    = seq_q;
    cmd_d    = cmd_q;
    bdis_d   = bdis_q;
    noinc_d  = noinc_q;
    rsv_d    = rsv_q;
    count_d  = count_q;
    cbig_d   = cbig_q;
    addr_d   = addr_q;
    areg_d   = areg_q;
    amis_d   = amis_q;
    ahi_d    = ahi_q;
    nak_d    = nak_q;
    addr32   = addr_kept;
    wbuf_we  = 1'b0;

    // the gap counts from the parser's last byte (a byte waiting in the
    // FIFO comes within 8 / CRC_STEP + 1 cycles), not while the executor
    // keeps it waiting in a frame; it only matters from a SYNC on, which
    // zeroes it (it may wrap in S_HUNT and S_HOLD)
    if (rx_valid_i || ((V3 != 0) ? wbuf_busy_i : (state_q == S_HUNT || hold))) begin
      gap_d = {GTW{1'b0}};
    end else begin
      gap_d = gap_q + {{(GTW-1){1'b0}}, gap_tick};
    end

    case (state_q)
      S_HUNT: begin
        if (rx_valid_i && rx_data_i == SYNC) begin
          state_d  = S_HDR;
          idx_d    = 8'd0;
          crc_init = 1'b1;
          nak_d    = 3'd0;
          ahi_d    = 1'b0;
          count_d  = 7'd0;
          cbig_d   = 1'b0;
        end
      end
      S_HDR, S_DATA, S_CRC: begin
        if (rx_valid_i) begin
          crc_load = 1'b1;
          idx_d = idx_inc[7:0];
          if (state_q == S_HDR) begin
            case (idx_q[3:0])
              4'd0: seq_d = rx_data_i;
              4'd1: cmd_d = {rx_data_i == CMD_PING, rx_data_i == CMD_READ,
                             rx_data_i == CMD_WRITE};
              4'd2: begin
                bdis_d  = rx_data_i[`SGPU_LINK_FLAG_BYTE_DISABLE_LSB +: 4];
                noinc_d = rx_data_i[`SGPU_LINK_FLAG_NO_INCR_LSB];
                rsv_d   = (rx_data_i & RSV_MASK) != 8'd0;
              end
              4'd3: begin count_d = rx_data_i[6:0]; cbig_d = rx_data_i[7]; end
              4'd4: cbig_d = cbig_q || (rx_data_i != 8'd0);
              4'd5: begin addr32[7:0] = rx_data_i; amis_d = (rx_data_i[1:0] != 2'b00); end
              4'd6: addr32[15:8] = rx_data_i;
              4'd7: addr32[23:16] = rx_data_i;
              default: addr32[31:24] = rx_data_i;
            endcase
            addr_d = addr32[KW-1:2];
            areg_d = addr32[31];
            // the bits not kept come in here, a byte at a time (addr32
            // holds 0 there but for the byte arriving)
            ahi_d  = ahi_q || ((addr32 & HI_MASK) != 32'd0);
            if (idx_q[3:0] == 4'd8) begin
              idx_d = 8'd0;
              // a bad CMD or COUNT is answered at once (the rest of the
              // frame is hunted through for the next SYNC, as noise)
              if (hdr_bad_cmd) begin
                state_d = S_HOLD;
                nak_d   = NAK_CMD[2:0];
              end else if (hdr_bad_len) begin
                state_d = S_HOLD;
                nak_d   = NAK_LEN[2:0];
              end else if (cmd_write) begin
                state_d = S_DATA;
              end else begin
                state_d = S_CRC;
              end
            end
          end else if (state_q == S_DATA) begin
            wbuf_we = 1'b1;
            if (data_last) begin
              state_d = S_CRC;
              idx_d   = 8'd0;
            end
          end else begin // S_CRC
            // The CRC's four bytes, high first, each compared with the top
            // byte of the register as it arrives (the register has done its
            // steps).  Running a matching byte through the CRC zeroes the
            // top byte, so the eight steps shift the next byte up without
            // the polynomial: the same as requiring a residue of 0, on
            // eight bits at a time.
            if (rx_data_i != crc[31:24]) nak_d = NAK_CRC[2:0];
            if (idx_q[1:0] == 2'b11) state_d = S_HOLD;
          end
        end else if (gap_q == GAP_LAST) begin
          // (a byte that reached the FIFO in the cycle before is read now
          // and lost in S_HOLD, like a byte dropped on the line; testing
          // for an empty FIFO here cost 5 cells)
          state_d = S_HOLD;
          nak_d   = NAK_TMO[2:0];
        end
      end
      default: begin // S_HOLD
        if (frame_ready_i) state_d = S_HUNT;
      end
    endcase
  end

  // ------------------------------------------------------------ sequence rule
  // SEQ - L is 0 (a retransmission) or 1 (the next frame); anything else
  // is out of order (one subtraction for both tests)
  wire [7:0] seq_diff = seq_q - last_seq_q;
  wire       seq_hi0  = (seq_diff[7:1] == 7'd0);
  wire       seq_dup  = last_valid_q && seq_hi0 && !seq_diff[0];
  wire       seq_ooo  = last_valid_q && !seq_hi0;
  wire       nak_addr = !cmd_ping && (amis_q || abad_q);

  // ------------------------------------------------------------ address range
  // The burst's words: ADDR's word and COUNT - 1 more (NO_INCR: ADDR's
  // only).  With COUNT below 128 the burst leaves its region only when it
  // starts in the region's last page of 128 words and runs past the page's
  // end: page offset + COUNT > 128 (one 8-bit sum for both regions).  The
  // check is registered: the fields it reads are complete with the
  // header, the frame is held at least four CRC bytes later.
  wire [7:0] page_end  = {1'b0, addr_kept[8:2]} + {1'b0, count_q};
  wire       page_over = !noinc_q && page_end[7] && (page_end[6:0] != 7'd0);
  wire       mem_over  = (&addr_kept[KW-1:9]) && page_over;
  wire       reg_over  = ((addr_kept & RHI_MASK) != 32'd0) || ((&addr_kept[RBW-1:9]) && page_over);
  wire       abad_d    = ahi_q || (areg_q ? reg_over : mem_over);
  // the reason: the parser's own, else a misaligned READ / WRITE or one
  // outside memory / the register block, else
  // (version 3) a WRITE out of order: one before it was lost or refused
  wire [2:0] frame_nak = (nak_q != 3'd0) ? nak_q :
                         nak_addr ? NAK_ADDR[2:0] :
                         ((V3 != 0) && cmd_write && seq_ooo) ? NAK_OOO[2:0] : 3'd0;
  wire       frame_take = hold && frame_ready_i;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= S_HUNT;
      idx_q        <= 8'd0;
      seq_q        <= 8'd0;
      cmd_q        <= 3'd0;
      bdis_q       <= 4'd0;
      noinc_q      <= 1'b0;
      rsv_q        <= 1'b0;
      count_q      <= 7'd0;
      cbig_q       <= 1'b0;
      addr_q       <= {(KW-2){1'b0}};
      areg_q       <= 1'b0;
      amis_q       <= 1'b0;
      ahi_q        <= 1'b0;
      abad_q       <= 1'b0;
      nak_q        <= 3'd0;
      gap_pre_q    <= {GPW{1'b0}};
      gap_q        <= {GTW{1'b0}};
      last_seq_q   <= 8'd0;
      last_valid_q <= 1'b0;
    end else begin
      state_q      <= state_d;
      idx_q        <= idx_d;
      seq_q        <= seq_d;
      cmd_q        <= cmd_d;
      bdis_q       <= bdis_d;
      noinc_q      <= noinc_d;
      rsv_q        <= rsv_d;
      count_q      <= count_d;
      cbig_q       <= cbig_d;
      addr_q       <= addr_d;
      areg_q       <= areg_d;
      amis_q       <= amis_d;
      ahi_q        <= ahi_d;
      abad_q       <= abad_d;
      nak_q        <= nak_d;
      gap_pre_q    <= gap_pre_q + 1'b1;
      gap_q        <= gap_d;
      if (frame_take && frame_nak == 3'd0) begin
        last_seq_q   <= seq_q;
        last_valid_q <= 1'b1;
      end
    end
  end

  assign frame_valid_o    = hold;
  assign frame_seq_o      = seq_q;
  assign frame_read_o     = cmd_read;
  assign frame_ping_o     = cmd_ping;
  assign frame_nak_o      = frame_nak;
  assign frame_dup_o      = (V3 != 0) ? seq_dup : (last_valid_q && last_seq_q == seq_q);
  assign frame_last_seq_o = last_seq_q;
  assign frame_count_o    = count_q;
  assign frame_addr_o     = addr_kept;
  assign frame_wstrb_o    = ~bdis_q;
  assign frame_incr_o     = !noinc_q;
  assign wbuf_rdata_o     = wbuf_rdata_q;

`ifdef FORMAL
  // The handshakes, as invariants of the outputs (they hold for any values
  // of the parser's registers, which host_bridge.sby cuts free): no byte is
  // pulled or written into the buffer while a frame is held, and none is
  // pulled while the executor reads the buffer.
  always @(*) begin
    if (rst_ni && frame_valid_o) assert(!rx_pull_o && !wbuf_we && !crc_load);
    if (rst_ni && wbuf_busy_i) assert(!rx_pull_o);
    if (rst_ni && crc_init) assert(!crc_load);
  end
`endif

  /* verilator lint_off UNUSEDPARAM */
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_ok = &{1'b0, NAK_CRC[7:3], NAK_LEN[7:3], NAK_CMD[7:3], NAK_TMO[7:3],
                     NAK_ADDR[7:3], NAK_OOO[7:3], crc_busy, crc[23:0], addr32[1:0]};
  generate if (KW < 31) begin : g_unused_hi
    wire unused_hi = &{1'b0, addr32[30:KW]};
  end endgenerate
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_on UNUSEDPARAM */

endmodule
