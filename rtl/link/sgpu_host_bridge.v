// sgpu_host_bridge: the framed host link (docs/link-protocol.md) over a
// byte stream, driving the sgpu_top host port.
//
// Received bytes (rx_valid_i strobes; the bridge never back-pressures) go
// into a receive FIFO of LINK_RX_FIFO_BYTES (one block RAM), so a host may
// send several frames without waiting for their answers (link version 3).
// Behind it two halves share a write buffer of LINK_MAX_WORDS words:
//  - the parser takes bytes from the FIFO as fast as its CRC steps allow,
//    hunts for SYNC, collects the header and the WRITE data into the
//    buffer, checks the CRC-32 and hands one frame (or a nak reason) to the
//    executor; it waits while the executor holds a frame or reads the
//    buffer;
//  - the executor applies a WRITE from the buffer (only after its CRC was
//    good, only the one after the last executed SEQ, never twice), performs
//    a READ one word at a time (one read outstanding), and sends the
//    ACK / NAK answer, or an EVENT frame carrying INT_STATUS when irq_i
//    rises.
`include "sgpu_hw.vh"

module sgpu_host_bridge #(
  parameter integer TIMEOUT_CYCLES = 125000,  // gap that aborts a frame (LINK_GAP_TIMEOUT_US)
  // Host-port address bits kept besides bit 31 (register space): sgpu_top
  // decodes GPU memory addresses modulo 2^AW and register offsets [11:0],
  // so a board passes $clog2(MEM_BYTES); the other bits are driven 0 and an
  // ADDR that advances past them wraps, as it does in the chip.
  parameter integer AW = 32,
  // CRC bits computed per clock cycle: 1 (bit-serial, the fewest cells: the
  // boards; bytes must come at least 9 cycles apart) or 2, 4, 8 (8: a byte
  // in one cycle, bytes at least 2 cycles apart: sgpu-sim's chip, whose
  // simulated wire is as fast as the bridge takes it)
  parameter integer CRC_STEP = 1,
  // Receive FIFO bytes (a power of two, 16 to 2048: the PING info word's
  // field counts 1 to 255 units of 16), or 0: none, the parser takes the
  // bytes as they come and drops those that arrive while it waits, so a
  // host keeps one frame in flight (the iCEBreaker: the FIFO's logic does
  // not fit there).
  parameter integer RX_FIFO_BYTES = `SGPU_LINK_RX_FIFO_BYTES
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // byte stream in (from a UART receiver), at any rate: the FIFO hands the
  // parser a byte every 8 / CRC_STEP + 1 cycles at most (its CRC steps), so
  // bytes that come faster wait there (a full FIFO drops them).  On the way
  // out tx_valid_o waits for the CRC steps itself.
  input  wire        rx_valid_i,
  input  wire [7:0]  rx_data_i,
  // byte stream out (to a UART transmitter)
  output wire        tx_valid_o,
  input  wire        tx_ready_i,
  output wire [7:0]  tx_data_o,
  // sgpu_top host port
  output wire        host_req_valid_o,
  input  wire        host_req_ready_i,
  output wire        host_req_write_o,
  output wire [31:0] host_req_addr_o,
  output wire [31:0] host_req_wdata_o,
  output wire [3:0]  host_req_wstrb_o,
  input  wire        host_rsp_valid_i,
  input  wire [31:0] host_rsp_rdata_i,
  // interrupt from sgpu_top
  input  wire        irq_i,
  // status strobes (LEDs, counters)
  output wire        frame_ok_o,        // a frame was executed
  output wire        frame_err_o        // a nak was sent
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // CRC_STEP divides the 8 shift steps of a byte.
  generate if (!(CRC_STEP == 1 || CRC_STEP == 2 || CRC_STEP == 4 || CRC_STEP == 8)) begin : g_bad_crc_step
    sgpu_precondition_failed_CRC_STEP_1_2_4_or_8 u_fail ();
  end endgenerate
  // RX_FIFO_BYTES: 0 or a power of two of 1 to 255 units (the PING's 8-bit field, 0 = none).
  generate if (!(RX_FIFO_BYTES == 0 ||
                 ((RX_FIFO_BYTES & (RX_FIFO_BYTES - 1)) == 0 && RX_FIFO_BYTES >= `SGPU_LINK_RX_FIFO_UNIT &&
                  RX_FIFO_BYTES <= 255 * `SGPU_LINK_RX_FIFO_UNIT))) begin : g_bad_rx_fifo_bytes
    sgpu_precondition_failed_RX_FIFO_BYTES_0_or_power_of_two_16_to_2048 u_fail ();
  end endgenerate

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

  localparam [3:0] CSTEPS = 4'd8 / CRC_STEP[3:0];   // cycles of CRC steps a byte
  localparam [7:0] SYNC = `SGPU_LINK_SYNC;
  localparam [31:0] CRC_INIT = `SGPU_LINK_CRC_INIT;
  localparam [31:0] CRC_POLY = `SGPU_LINK_CRC_POLY;
  localparam [31:0] INT_STATUS_ADDR = (32'd1 << `SGPU_REG_SPACE_BIT) | {20'd0, `SGPU_REG_INT_STATUS};
  localparam [7:0] CMD_WRITE = `SGPU_LINK_CMD_WRITE;
  localparam [7:0] CMD_READ  = `SGPU_LINK_CMD_READ;
  localparam [7:0] CMD_PING  = `SGPU_LINK_CMD_PING;
  localparam [7:0] RSV_MASK  = `SGPU_LINK_FLAGS_RESERVED_MASK;
  // Answer KIND and INFO are kept narrow: the kinds differ only in [1:0],
  // INFO is 0, ACK_DUPLICATE or a NAK reason, all below 8.
  localparam [7:0] KIND_ACK   = `SGPU_LINK_KIND_ACK;
  localparam [7:0] KIND_NAK   = `SGPU_LINK_KIND_NAK;
  localparam [7:0] KIND_EVENT = `SGPU_LINK_KIND_EVENT;
  localparam [7:0] ACK_DUP    = `SGPU_LINK_ACK_DUPLICATE;
  localparam [7:0] NAK_CRC    = `SGPU_LINK_NAK_BAD_CRC;
  localparam [7:0] NAK_LEN    = `SGPU_LINK_NAK_BAD_LENGTH;
  localparam [7:0] NAK_CMD    = `SGPU_LINK_NAK_BAD_CMD;
  localparam [7:0] NAK_TMO    = `SGPU_LINK_NAK_TIMEOUT;
  localparam [7:0] NAK_ADDR   = `SGPU_LINK_NAK_BAD_ADDR;
  localparam [7:0] NAK_OOO    = `SGPU_LINK_NAK_OUT_OF_ORDER;
  localparam integer RXB  = RX_FIFO_BYTES;
  localparam integer RXW  = (RXB > 1) ? $clog2(RXB) : 1;   // FIFO address width
  localparam [31:0] RXB_UNITS = RXB / `SGPU_LINK_RX_FIFO_UNIT;
  // Without a FIFO a host keeps one frame in flight, which version 2's
  // rules serve (any new SEQ executes); they take fewer cells than version
  // 3's sequence rule, so such a bridge speaks version 2.
  localparam        V3 = (RXB > 0);
  localparam [7:0]  VERSION = V3 ? `SGPU_LINK_VERSION : `SGPU_LINK_VERSION_SINGLE;
  localparam [31:0] PING_WORD = {8'd0, RXB_UNITS[7:0], 8'd`SGPU_LINK_MAX_WORDS, VERSION};

  // ------------------------------------------------------------ receive FIFO
  // The parser's bytes: p_rx strobes p_rxd.  With a FIFO, pointers one bit
  // wider than the address: equal = empty, equal but for the top bit =
  // full.  A byte is read when the parser can take it (p_pop) and reaches
  // it a cycle later (p_rx, p_rxd).  no_rw_check: the read address equals
  // the write address only when the FIFO is empty (no read) or full (no
  // write).  Without one, a byte that comes while the parser waits is lost.
  wire        p_rx;
  wire [7:0]  p_rxd;
  wire        p_can_pop;              // the parser can take a byte now
  wire        p_wait;                 // the parser waits for the executor
  generate if (RXB > 0) begin : g_rxf
    (* no_rw_check *)
    reg [7:0]   rxf_q [0:RXB-1];
    reg [7:0]   rxf_data_q;
    reg [RXW:0] rxf_wptr_q, rxf_rptr_q;
    reg         p_rx_q;
    wire        rxf_lo_eq = (rxf_wptr_q[RXW-1:0] == rxf_rptr_q[RXW-1:0]);
    wire        rxf_empty = rxf_lo_eq && (rxf_wptr_q[RXW] == rxf_rptr_q[RXW]);
    wire        rxf_push  = rx_valid_i && !(rxf_lo_eq && !rxf_empty);
    wire        p_pop     = !rxf_empty && !p_rx_q && p_can_pop;
    always @(posedge clk_i) begin
      if (rxf_push) rxf_q[rxf_wptr_q[RXW-1:0]] <= rx_data_i;
      if (p_pop)    rxf_data_q <= rxf_q[rxf_rptr_q[RXW-1:0]];
    end
    always @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rxf_wptr_q <= {(RXW+1){1'b0}};
        rxf_rptr_q <= {(RXW+1){1'b0}};
        p_rx_q     <= 1'b0;
      end else begin
        rxf_wptr_q <= rxf_wptr_q + {{RXW{1'b0}}, rxf_push};
        rxf_rptr_q <= rxf_rptr_q + {{RXW{1'b0}}, p_pop};
        p_rx_q     <= p_pop;
      end
    end
    assign p_rx  = p_rx_q;
    assign p_rxd = rxf_data_q;
  end else begin : g_direct
    // the UART spaces bytes by more than the CRC steps (10 bit times)
    assign p_rx  = rx_valid_i;        // ignored while the parser holds a frame
    assign p_rxd = rx_data_i;
    wire unused_direct = &{1'b0, p_can_pop};
  end endgenerate

  // ------------------------------------------------------------ write buffer
  // written one byte lane at a time as the data arrives (block RAM with
  // a write mask), read a word at a time
  // no_rw_check: the word read is used only while the parser holds a frame
  // (E_WR_REQ), when nothing is written, so synthesis needs no
  // read-during-write bypass around the block RAM.
  (* no_rw_check *)
  reg [31:0]    buf_q [0:MAXW-1];
  reg [31:0]    buf_rdata_q;
  reg           buf_we;
  wire [BAW-1:0] buf_waddr;
  wire [1:0]    buf_lane;
  wire [BAW-1:0] buf_raddr;

  always @(posedge clk_i) begin
    if (buf_we) begin
      case (buf_lane)
        2'd0: buf_q[buf_waddr][7:0]   <= p_rxd;
        2'd1: buf_q[buf_waddr][15:8]  <= p_rxd;
        2'd2: buf_q[buf_waddr][23:16] <= p_rxd;
        default: buf_q[buf_waddr][31:24] <= p_rxd;
      endcase
    end
    buf_rdata_q <= buf_q[buf_raddr];
  end

  // ------------------------------------------------------------ parser
  localparam [2:0] P_HUNT  = 3'd0;
  localparam [2:0] P_HDR   = 3'd1;
  localparam [2:0] P_DATA  = 3'd2;
  localparam [2:0] P_CRC   = 3'd3;
  localparam [2:0] P_HOLD  = 3'd5;

  reg [2:0]    p_state_q, p_state_d;
  reg [7:0]    p_idx_q, p_idx_d;
  reg [7:0]    p_seq_q, p_seq_d;
  reg [2:0]    p_cmd_q, p_cmd_d;        // decoded CMD: {PING, READ, WRITE}, 0 = unknown
  reg [3:0]    p_bdis_q, p_bdis_d;      // FLAGS.BYTE_DISABLE
  reg          p_noinc_q, p_noinc_d;    // FLAGS.NO_INCR
  reg          p_rsv_q, p_rsv_d;        // a reserved FLAGS bit is set
  reg [6:0]    p_count_q, p_count_d;    // COUNT[6:0]
  reg          p_cbig_q, p_cbig_d;      // COUNT >= 128
  reg [KW-1:2] p_addr_q, p_addr_d;      // ADDR bits kept
  reg          p_areg_q, p_areg_d;      // ADDR[31]: register space
  reg          p_amis_q, p_amis_d;      // ADDR[1:0] != 0
  reg [2:0]    p_nak_q, p_nak_d;        // 0: frame good
  reg [GPW-1:0] g_pre_q;                // gap prescaler
  wire          g_tick = &g_pre_q;
  reg [GTW-1:0] p_gap_q, p_gap_d;       // prescaler ticks since the last byte

  // The CRCs run CRC_STEP bits per cycle: a byte is XORed into the top of
  // the register, then eight shift steps follow, CRC_STEP a cycle
  // (CRC-32/MPEG-2, MSB first, as docs/link-protocol.md specifies).  The
  // FIFO is read in the last step's cycle at the earliest (p_pop), so the
  // steps are done when the next byte comes, 8 / CRC_STEP + 1 cycles on.
  reg [31:0] p_crc_q;
  reg [3:0]  p_cstep_q;
  reg        p_crc_init, p_crc_load;
  wire       p_cbusy = (p_cstep_q != 4'd0);

  wire       p_frame_valid = (p_state_q == P_HOLD);
  wire       p_frame_ready;
  // the parser waits while it holds a frame and while the executor reads
  // the write buffer (the next frame's data would overwrite it)
  wire       e_wr;
  assign p_wait    = p_frame_valid || e_wr;
  assign p_can_pop = (p_cstep_q[3:1] == 3'd0) && !p_wait;

  // header checks, on the complete header (the last byte is ADDR[31:24],
  // which no check looks at)
  wire cmd_write = p_cmd_q[0];
  wire cmd_read  = p_cmd_q[1];
  wire cmd_ping  = p_cmd_q[2];
  wire hdr_bad_cmd = !(cmd_write || cmd_read || cmd_ping) || p_rsv_q;
  wire cnt_zero    = (p_count_q == 7'd0) && !p_cbig_q;
  // READ / WRITE need 1 <= COUNT <= MAXW; for MAXW = 64 that is "bit 6 set
  // and [5:0] zero, or bit 6 clear and [5:0] not zero" (fewer LUTs)
  wire cnt_lo0     = (p_count_q[5:0] == 6'd0);
  wire cnt_rw_ok   = (MAXW == 64) ? (p_count_q[6] ? cnt_lo0 : !cnt_lo0)
                                  : (!cnt_zero && p_count_q <= MAXW7);
  wire hdr_bad_len = cmd_ping ? !cnt_zero : (p_cbig_q || !cnt_rw_ok);
  assign buf_waddr = p_idx_q[BAW+1:2];
  assign buf_lane  = p_idx_q[1:0];
  wire [8:0] p_idx_inc = {1'b0, p_idx_q} + 9'd1;
  // the last data byte: index 4*COUNT-1
  wire       p_data_last = (p_idx_q[1:0] == 2'b11) && (p_idx_inc[8:2] == p_count_q);
  // the address as it arrives, a byte at a time
  reg  [31:0] p_addr32;

  always @(*) begin
    p_state_d = p_state_q;
    p_idx_d   = p_idx_q;
    p_crc_init = 1'b0;
    p_crc_load = 1'b0;
    p_seq_d   = p_seq_q;
    p_cmd_d   = p_cmd_q;
    p_bdis_d  = p_bdis_q;
    p_noinc_d = p_noinc_q;
    p_rsv_d   = p_rsv_q;
    p_count_d = p_count_q;
    p_cbig_d  = p_cbig_q;
    p_addr_d  = p_addr_q;
    p_areg_d  = p_areg_q;
    p_amis_d  = p_amis_q;
    p_nak_d   = p_nak_q;
    p_addr32  = 32'd0;
    p_addr32[31]     = p_areg_q;
    p_addr32[KW-1:2] = p_addr_q;
    p_gap_d   = p_gap_q;
    buf_we    = 1'b0;

    // the gap counts from the parser's last byte (a byte waiting in the
    // FIFO comes within 8 / CRC_STEP + 1 cycles), not while the executor
    // keeps it waiting in a frame; it only matters from a SYNC on, which
    // zeroes it (it may wrap in P_HUNT and P_HOLD)
    if (p_rx || (V3 ? e_wr : (p_state_q == P_HUNT || p_state_q == P_HOLD))) begin
      p_gap_d = {GTW{1'b0}};
    end else begin
      p_gap_d = p_gap_q + {{(GTW-1){1'b0}}, g_tick};
    end

    case (p_state_q)
      P_HUNT: begin
        if (p_rx && p_rxd == SYNC) begin
          p_state_d = P_HDR;
          p_idx_d   = 8'd0;
          p_crc_init = 1'b1;
          p_nak_d   = 3'd0;
          p_count_d = 7'd0;
          p_cbig_d  = 1'b0;
        end
      end
      P_HDR, P_DATA, P_CRC: begin
        if (p_rx) begin
          p_crc_load = 1'b1;
          p_idx_d = p_idx_inc[7:0];
          if (p_state_q == P_HDR) begin
            case (p_idx_q[3:0])
              4'd0: p_seq_d = p_rxd;
              4'd1: p_cmd_d = {p_rxd == CMD_PING, p_rxd == CMD_READ,
                               p_rxd == CMD_WRITE};
              4'd2: begin
                p_bdis_d  = p_rxd[`SGPU_LINK_FLAG_BYTE_DISABLE_LSB +: 4];
                p_noinc_d = p_rxd[`SGPU_LINK_FLAG_NO_INCR_LSB];
                p_rsv_d   = (p_rxd & RSV_MASK) != 8'd0;
              end
              4'd3: begin p_count_d = p_rxd[6:0]; p_cbig_d = p_rxd[7]; end
              4'd4: p_cbig_d = p_cbig_q || (p_rxd != 8'd0);
              4'd5: begin p_addr32[7:0] = p_rxd; p_amis_d = (p_rxd[1:0] != 2'b00); end
              4'd6: p_addr32[15:8] = p_rxd;
              4'd7: p_addr32[23:16] = p_rxd;
              default: p_addr32[31:24] = p_rxd;
            endcase
            p_addr_d = p_addr32[KW-1:2];
            p_areg_d = p_addr32[31];
            if (p_idx_q[3:0] == 4'd8) begin
              p_idx_d = 8'd0;
              // a bad CMD or COUNT is answered at once (the rest of the
              // frame is hunted through for the next SYNC, as noise)
              if (hdr_bad_cmd) begin
                p_state_d = P_HOLD;
                p_nak_d   = NAK_CMD[2:0];
              end else if (hdr_bad_len) begin
                p_state_d = P_HOLD;
                p_nak_d   = NAK_LEN[2:0];
              end else if (cmd_write) begin
                p_state_d = P_DATA;
              end else begin
                p_state_d = P_CRC;
              end
            end
          end else if (p_state_q == P_DATA) begin
            buf_we = 1'b1;
            if (p_data_last) begin
              p_state_d = P_CRC;
              p_idx_d   = 8'd0;
            end
          end else begin // P_CRC
            // The CRC's four bytes, high first, each compared with the top
            // byte of the register as it arrives (the register has done its
            // steps: bytes come at least 10 cycles apart).  Running a
            // matching byte through the CRC zeroes the top byte, so the
            // eight steps shift the next byte up without the polynomial:
            // the same as requiring a residue of 0, on eight bits at a time.
            if (p_rxd != p_crc_q[31:24]) p_nak_d = NAK_CRC[2:0];
            if (p_idx_q[1:0] == 2'b11) p_state_d = P_HOLD;
          end
        end else if (p_gap_q == GAP_LAST) begin
          // (a byte that reached the FIFO in the cycle before is read now
          // and lost in P_HOLD, like a byte dropped on the line; testing
          // rxf_empty here cost 5 cells)
          p_state_d = P_HOLD;
          p_nak_d   = NAK_TMO[2:0];
        end
      end
      default: begin // P_HOLD
        if (p_frame_ready) p_state_d = P_HUNT;
      end
    endcase
  end

  // ------------------------------------------------------------ executor
  localparam [2:0] E_IDLE    = 3'd0;
  localparam [2:0] E_WR_ADDR = 3'd1;
  localparam [2:0] E_WR_REQ  = 3'd2;
  localparam [2:0] E_HDR     = 3'd3;
  localparam [2:0] E_RD_REQ  = 3'd4;
  localparam [2:0] E_RD_WAIT = 3'd5;
  localparam [2:0] E_DATA    = 3'd6;
  localparam [2:0] E_CRC     = 3'd7;

  reg [2:0]   e_state_q, e_state_d;
  reg [7:0]   e_seq_q, e_seq_d;
  reg [1:0]   e_kind_q, e_kind_d;      // KIND[1:0]
  reg [2:0]   e_info_q, e_info_d;      // INFO[2:0]
  reg [6:0]   e_len_q, e_len_d;        // data words of the answer / words to write
  reg [6:0]   e_idx_q, e_idx_d;        // word index
  reg [2:0]   e_byte_q, e_byte_d;      // byte index in header / word / CRC
  reg [KW-1:2] e_addr_q, e_addr_d;     // host-port address bits kept
  reg         e_areg_q, e_areg_d;      // register space
  reg [3:0]   e_wstrb_q, e_wstrb_d;
  reg         e_incr_q, e_incr_d;
  reg         e_rd_q, e_rd_d;          // answer data comes from host-port reads
  reg [31:0]  e_word_q, e_word_d;      // answer data word, shifted out low byte first
  reg [31:0]  e_crc_q;
  reg [3:0]   e_cstep_q;
  reg         e_crc_load;
  wire        e_cbusy = (e_cstep_q != 4'd0);
  wire        e_go = tx_ready_i && !e_cbusy;   // a byte leaves
  reg [7:0]   last_seq_q, last_seq_d;   // L: the SEQ of the last executed frame
  reg         last_valid_q, last_valid_d;
  reg [7:0]   evt_seq_q, evt_seq_d;
  reg         evt_pend_q, evt_pend_d;
  reg         irq_q;
  reg         rearm_q, rearm_d;
  reg         ok_q, ok_d;
  reg         err_q, err_d;

  reg  [7:0]  tx_byte;

  wire e_tx = (e_state_q == E_HDR) || (e_state_q == E_DATA) || (e_state_q == E_CRC);
  // the address is a register (the host port decodes it combinationally)
  wire [KW-1:2] e_addr_next = e_addr_q + {{(KW-3){1'b0}}, e_incr_q};
  wire [6:0] e_idx_inc = e_idx_q + 7'd1;
  wire e_last_word = (e_idx_inc == e_len_q);

  assign p_frame_ready = (e_state_q == E_IDLE);
  assign e_wr = (e_state_q == E_WR_ADDR) || (e_state_q == E_WR_REQ);
  // SEQ - L is 0 (a retransmission) or 1 (the next frame); anything else
  // is out of order (one subtraction for both tests)
  wire [7:0] seq_diff = p_seq_q - last_seq_q;
  wire       seq_hi0  = (seq_diff[7:1] == 7'd0);
  wire       seq_dup  = last_valid_q && seq_hi0 && !seq_diff[0];
  wire       seq_ooo  = last_valid_q && !seq_hi0;
  wire       nak_addr = !cmd_ping && p_amis_q;
  assign buf_raddr = e_idx_q[BAW-1:0];

  always @(*) begin
    case (e_state_q)
      E_HDR: begin
        case (e_byte_q)
          3'd0: tx_byte = SYNC;
          3'd1: tx_byte = e_seq_q;
          3'd2: tx_byte = {KIND_ACK[7:2], e_kind_q};
          3'd3: tx_byte = {5'd0, e_info_q};
          3'd4: tx_byte = {1'b0, e_len_q};
          default: tx_byte = 8'd0;
        endcase
      end
      // READ / EVENT data from the word read, PING's info word: a byte
      // goes out of e_word_q[7:0] and the word shifts down (no byte mux)
      E_DATA: tx_byte = e_word_q[7:0];
      // E_CRC: the high byte first: sending a byte runs it through the CRC
      // as well, which shifts the next byte into [31:24] (the register's
      // top byte becomes 0, so the eight steps take no polynomial)
      default: tx_byte = e_crc_q[31:24];
    endcase
  end

  always @(*) begin
    e_state_d    = e_state_q;
    e_seq_d      = e_seq_q;
    e_kind_d     = e_kind_q;
    e_info_d     = e_info_q;
    e_len_d      = e_len_q;
    e_idx_d      = e_idx_q;
    e_byte_d     = e_byte_q;
    e_addr_d     = e_addr_q;
    e_areg_d     = e_areg_q;
    e_wstrb_d    = e_wstrb_q;
    e_incr_d     = e_incr_q;
    e_rd_d       = e_rd_q;
    e_word_d     = e_word_q;
    e_crc_load   = 1'b0;
    last_seq_d   = last_seq_q;
    last_valid_d = last_valid_q;
    evt_seq_d    = evt_seq_q;
    evt_pend_d   = evt_pend_q;
    rearm_d      = rearm_q;
    ok_d         = 1'b0;
    err_d        = 1'b0;

    case (e_state_q)
      E_IDLE: begin
        e_idx_d  = 7'd0;
        e_byte_d = 3'd0;
        e_info_d = 3'd0;
        e_len_d  = 7'd0;
        e_rd_d   = 1'b0;
        e_kind_d = KIND_ACK[1:0];
        if (p_frame_valid) begin
          e_seq_d   = p_seq_q;
          e_addr_d  = p_addr_q;
          e_areg_d  = p_areg_q;
          e_wstrb_d = ~p_bdis_q;
          e_incr_d  = !p_noinc_q;
          e_state_d = E_HDR;
          // the data word of a PING's ACK or an OUT_OF_ORDER NAK (L);
          // loaded for every frame (fewer LUTs than only for those two)
          if (V3) e_word_d = cmd_ping ? PING_WORD : {24'd0, last_seq_q};
          if (p_nak_q != 3'd0 || nak_addr || (V3 && cmd_write && seq_ooo)) begin
            // nothing applied; a WRITE out of order (one before it was lost
            // or refused) is answered with L
            e_kind_d = KIND_NAK[1:0];
            e_info_d = (p_nak_q != 3'd0) ? p_nak_q : (!V3 || nak_addr) ? NAK_ADDR[2:0] : NAK_OOO[2:0];
            e_len_d  = {6'd0, V3 && p_nak_q == 3'd0 && !nak_addr};
            err_d    = 1'b1;
          end else begin
            ok_d         = 1'b1;
            last_seq_d   = p_seq_q;
            last_valid_d = 1'b1;
            if (cmd_ping) begin
              e_len_d  = 7'd1;
              if (!V3) e_word_d = PING_WORD;
            end else if (cmd_read) begin
              e_len_d = p_count_q;
              e_rd_d  = 1'b1;
            end else if (V3 ? seq_dup : (last_valid_q && last_seq_q == p_seq_q)) begin
              e_info_d = ACK_DUP[2:0];   // retransmission: not applied again
            end else begin
              e_len_d   = p_count_q;
              e_state_d = E_WR_ADDR;
            end
          end
        end else if (evt_pend_q) begin
          evt_pend_d = 1'b0;
          evt_seq_d  = evt_seq_q + 1'b1;
          e_seq_d    = evt_seq_q;
          e_kind_d   = KIND_EVENT[1:0];
          e_len_d    = 7'd1;
          e_rd_d     = 1'b1;
          e_addr_d   = INT_STATUS_ADDR[KW-1:2];
          e_areg_d   = INT_STATUS_ADDR[31];
          e_incr_d   = 1'b0;
          e_state_d  = E_HDR;
        end
      end
      E_WR_ADDR: e_state_d = E_WR_REQ;        // buffer read in flight
      E_WR_REQ: begin
        if (host_req_ready_i) begin
          e_addr_d = e_addr_next;
          e_idx_d  = e_idx_inc;
          e_state_d = E_WR_ADDR;
          if (e_last_word) begin
            e_idx_d   = 7'd0;
            e_len_d   = 7'd0;
            e_state_d = E_HDR;
            // a register write (an interrupt handler clearing part of
            // INT_STATUS) re-arms the event if irq is still high once
            // the answer is out
            rearm_d = e_areg_q;
          end
        end
      end
      E_HDR: begin
        if (e_go) begin
          e_crc_load = (e_byte_q != 3'd0);
          e_byte_d = e_byte_q + 1'b1;
          if (e_byte_q == 3'd5) begin
            e_byte_d = 3'd0;
            if (e_len_q == 7'd0) e_state_d = E_CRC;
            else if (e_rd_q)     e_state_d = E_RD_REQ;
            else                 e_state_d = E_DATA;
          end
        end
      end
      E_RD_REQ: if (host_req_ready_i) e_state_d = E_RD_WAIT;
      E_RD_WAIT: begin
        if (host_rsp_valid_i) begin
          e_word_d  = host_rsp_rdata_i;
          e_state_d = E_DATA;
        end
      end
      E_DATA: begin
        if (e_go) begin
          e_crc_load = 1'b1;
          e_byte_d = e_byte_q + 1'b1;
          e_word_d = {8'd0, e_word_q[31:8]};
          if (e_byte_q == 3'd3) begin
            e_byte_d = 3'd0;
            e_idx_d  = e_idx_inc;
            e_addr_d = e_addr_next;
            if (e_last_word) e_state_d = E_CRC;
            else             e_state_d = E_RD_REQ;
          end
        end
      end
      default: begin // E_CRC
        if (e_go) begin
          e_byte_d   = e_byte_q + 1'b1;
          e_crc_load = (e_byte_q[1:0] != 2'b11);
          if (e_byte_q[1:0] == 2'b11) begin
            e_state_d = E_IDLE;
            rearm_d   = 1'b0;
            if (rearm_q && irq_i) evt_pend_d = 1'b1;
          end
        end
      end
    endcase

    if (irq_i && !irq_q) evt_pend_d = 1'b1;
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_state_q    <= P_HUNT;
      p_idx_q      <= 8'd0;
      p_cstep_q    <= 4'd0;
      p_seq_q      <= 8'd0;
      p_cmd_q      <= 3'd0;
      p_bdis_q     <= 4'd0;
      p_noinc_q    <= 1'b0;
      p_rsv_q      <= 1'b0;
      p_count_q    <= 7'd0;
      p_cbig_q     <= 1'b0;
      p_addr_q     <= {(KW-2){1'b0}};
      p_areg_q     <= 1'b0;
      p_amis_q     <= 1'b0;
      p_nak_q      <= 3'd0;
      g_pre_q      <= {GPW{1'b0}};
      p_gap_q      <= {GTW{1'b0}};
      e_state_q    <= E_IDLE;
      e_seq_q      <= 8'd0;
      e_kind_q     <= 2'd0;
      e_info_q     <= 3'd0;
      e_len_q      <= 7'd0;
      e_idx_q      <= 7'd0;
      e_byte_q     <= 3'd0;
      e_addr_q     <= {(KW-2){1'b0}};
      e_areg_q     <= 1'b0;
      e_wstrb_q    <= 4'hF;
      e_incr_q     <= 1'b1;
      e_rd_q       <= 1'b0;
      e_word_q     <= 32'd0;
      e_cstep_q    <= 4'd0;
      last_seq_q   <= 8'd0;
      last_valid_q <= 1'b0;
      evt_seq_q    <= 8'd0;
      evt_pend_q   <= 1'b0;
      irq_q        <= 1'b0;
      rearm_q      <= 1'b0;
      ok_q         <= 1'b0;
      err_q        <= 1'b0;
    end else begin
      p_state_q    <= p_state_d;
      p_idx_q      <= p_idx_d;
      p_cstep_q    <= p_crc_load ? CSTEPS : (p_cstep_q - {3'd0, p_cbusy});
      p_seq_q      <= p_seq_d;
      p_cmd_q      <= p_cmd_d;
      p_bdis_q     <= p_bdis_d;
      p_noinc_q    <= p_noinc_d;
      p_rsv_q      <= p_rsv_d;
      p_count_q    <= p_count_d;
      p_cbig_q     <= p_cbig_d;
      p_addr_q     <= p_addr_d;
      p_areg_q     <= p_areg_d;
      p_amis_q     <= p_amis_d;
      p_nak_q      <= p_nak_d;
      g_pre_q      <= g_pre_q + 1'b1;
      p_gap_q      <= p_gap_d;
      e_state_q    <= e_state_d;
      e_seq_q      <= e_seq_d;
      e_kind_q     <= e_kind_d;
      e_info_q     <= e_info_d;
      e_len_q      <= e_len_d;
      e_idx_q      <= e_idx_d;
      e_byte_q     <= e_byte_d;
      e_addr_q     <= e_addr_d;
      e_areg_q     <= e_areg_d;
      e_wstrb_q    <= e_wstrb_d;
      e_incr_q     <= e_incr_d;
      e_rd_q       <= e_rd_d;
      e_word_q     <= e_word_d;
      e_cstep_q    <= e_crc_load ? CSTEPS : (e_cstep_q - {3'd0, e_cbusy});
      last_seq_q   <= last_seq_d;
      last_valid_q <= last_valid_d;
      evt_seq_q    <= evt_seq_d;
      evt_pend_q   <= evt_pend_d;
      irq_q        <= irq_i;
      rearm_q      <= rearm_d;
      ok_q         <= ok_d;
      err_q        <= err_d;
    end
  end

  // CRC_STEP shift steps of a CRC register
  function [31:0] crc_steps(input [31:0] c);
    integer i;
    begin
      crc_steps = c;
      for (i = 0; i < CRC_STEP; i = i + 1)
        crc_steps = {crc_steps[30:0], 1'b0} ^ (CRC_POLY & {32{crc_steps[31]}});
    end
  endfunction

  // the CRC registers need no reset: they are set to CRC_INIT before use
  always @(posedge clk_i) begin
    if (p_crc_init)      p_crc_q <= CRC_INIT;
    else if (p_crc_load) p_crc_q <= p_crc_q ^ {p_rxd, 24'h000000};
    else if (p_cbusy)    p_crc_q <= crc_steps(p_crc_q);
    if (e_state_q == E_IDLE) e_crc_q <= CRC_INIT;
    else if (e_crc_load)     e_crc_q <= e_crc_q ^ {tx_byte, 24'h000000};
    else if (e_cbusy)        e_crc_q <= crc_steps(e_crc_q);
  end

  assign tx_valid_o       = e_tx && !e_cbusy;
  assign tx_data_o        = tx_byte;
  assign host_req_valid_o = (e_state_q == E_WR_REQ) || (e_state_q == E_RD_REQ);
  assign host_req_write_o = (e_state_q == E_WR_REQ);
  wire [31:0] e_addr32;
  assign e_addr32[31]       = e_areg_q;
  assign e_addr32[KW-1:2]   = e_addr_q;
  assign e_addr32[1:0]      = 2'b00;
  generate if (KW < 31) begin : g_addr_hi
    assign e_addr32[30:KW]  = {(31-KW){1'b0}};
  end endgenerate
  assign host_req_addr_o  = e_addr32;
  assign host_req_wdata_o = buf_rdata_q;
  assign host_req_wstrb_o = host_req_write_o ? e_wstrb_q : 4'h0;
  assign frame_ok_o       = ok_q;
  assign frame_err_o      = err_q;

  /* verilator lint_off UNUSEDPARAM */
  /* verilator lint_off UNUSEDSIGNAL */
  // The kinds share [7:2]; the other header constants are all below 8.
  wire unused_ok = &{1'b0, KIND_NAK[7:2], KIND_EVENT[7:2], ACK_DUP[7:3], NAK_CRC[7:3],
                     NAK_LEN[7:3], NAK_CMD[7:3], NAK_TMO[7:3], NAK_ADDR[7:3], NAK_OOO[7:3],
                     p_addr32[1:0]};
  generate if (KW < 31) begin : g_unused_hi
    wire unused_hi = &{1'b0, p_addr32[30:KW]};
  end endgenerate
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_on UNUSEDPARAM */

endmodule
