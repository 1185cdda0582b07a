// sgpu_link_exec: the host bridge's executor (docs/link-protocol.md,
// Answer and event, Device behaviour, Events).
//
// Takes one frame at a time from sgpu_link_parser (frame_valid_i /
// frame_ready_o, ready while idle) and:
//  - a frame with a NAK reason: nothing applied, a NAK with that reason
//    (OUT_OF_ORDER with one data word, L);
//  - PING: an ACK with the info word (version, SGPU_LINK_MAX_WORDS, the
//    receive FIFO's size in units);
//  - READ: the words read from the host port one at a time (one read
//    outstanding), streamed in the ACK;
//  - WRITE: a retransmission (frame_dup_i) is acknowledged with
//    INFO.DUPLICATE and not applied again; otherwise the words are written
//    from the parser's write buffer (wbuf_busy_o while it reads it), then
//    the ACK;
//  - an EVENT frame with INT_STATUS when irq_i rises (and again after an
//    answered register write while irq_i stays high), between answers.
// The answers leave a byte at a time on tx (valid / ready), with their
// CRC-32 (sgpu_link_crc, CRC_STEP bits a cycle: a byte goes out once the
// steps of the one before are done).
`include "sgpu_hw.vh"

module sgpu_link_exec #(
  // host-port address bits kept besides bit 31 (as sgpu_host_bridge's AW)
  parameter integer AW = 32,
  parameter integer CRC_STEP = 1,             // CRC bits a cycle (sgpu_link_crc)
  // the receive FIFO in front of the parser: its size goes in the PING
  // info word, and with one (> 0) the bridge speaks link version 3
  parameter integer RX_FIFO_BYTES = `SGPU_LINK_RX_FIFO_BYTES
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // the frame from the parser
  input  wire        frame_valid_i,
  output wire        frame_ready_o,
  input  wire [7:0]  frame_seq_i,
  input  wire        frame_read_i,      // CMD: READ
  input  wire        frame_ping_i,      // CMD: PING (neither, no NAK: WRITE)
  input  wire [2:0]  frame_nak_i,       // NAK reason [2:0], 0: execute
  input  wire        frame_dup_i,       // a WRITE retransmission
  input  wire [7:0]  frame_last_seq_i,  // L
  input  wire [6:0]  frame_count_i,
  input  wire [31:0] frame_addr_i,      // bit 31 and [KW-1:2] are used
  input  wire [3:0]  frame_wstrb_i,
  input  wire        frame_incr_i,
  // the parser's write buffer (data a cycle after the address)
  output wire        wbuf_busy_o,       // reading it: the parser takes no byte
  output wire [$clog2(`SGPU_LINK_MAX_WORDS)-1:0] wbuf_raddr_o,
  input  wire [31:0] wbuf_rdata_i,
  // answer bytes out (to a UART transmitter)
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
  // status strobes
  output wire        frame_ok_o,        // a frame was executed
  output wire        frame_err_o        // a nak was sent
);

  localparam integer MAXW = `SGPU_LINK_MAX_WORDS;
  localparam integer BAW  = $clog2(MAXW);
  localparam integer KW = (AW < 12) ? 12 : ((AW > 31) ? 31 : AW);   // address bits [KW-1:2] kept
  localparam [7:0]  SYNC = `SGPU_LINK_SYNC;
  localparam [31:0] INT_STATUS_ADDR = (32'd1 << `SGPU_REG_SPACE_BIT) | {20'd0, `SGPU_REG_INT_STATUS};
  // Answer KIND and INFO are kept narrow: the kinds differ only in [1:0],
  // INFO is 0, ACK_DUPLICATE or a NAK reason, all below 8.
  localparam [7:0] KIND_ACK   = `SGPU_LINK_KIND_ACK;
  localparam [7:0] KIND_NAK   = `SGPU_LINK_KIND_NAK;
  localparam [7:0] KIND_EVENT = `SGPU_LINK_KIND_EVENT;
  localparam [7:0] ACK_DUP    = `SGPU_LINK_ACK_DUPLICATE;
  localparam [7:0] NAK_OOO    = `SGPU_LINK_NAK_OUT_OF_ORDER;
  localparam integer RXB = RX_FIFO_BYTES;
  localparam [31:0] RXB_UNITS = RXB / `SGPU_LINK_RX_FIFO_UNIT;
  // Without a FIFO a host keeps one frame in flight, which version 2's
  // rules serve (the parser's sequence rule): such a bridge says version 2.
  localparam        V3 = (RXB > 0);
  localparam [7:0]  VERSION = V3 ? `SGPU_LINK_VERSION : `SGPU_LINK_VERSION_SINGLE;
  localparam [31:0] PING_WORD = {8'd0, RXB_UNITS[7:0], 8'd`SGPU_LINK_MAX_WORDS, VERSION};

  localparam [2:0] E_IDLE    = 3'd0;
  localparam [2:0] E_WR_ADDR = 3'd1;   // write buffer read in flight
  localparam [2:0] E_WR_REQ  = 3'd2;   // a word on the host port
  localparam [2:0] E_HDR     = 3'd3;   // answer header
  localparam [2:0] E_RD_REQ  = 3'd4;   // a read on the host port
  localparam [2:0] E_RD_WAIT = 3'd5;   // its data
  localparam [2:0] E_DATA    = 3'd6;   // answer data word
  localparam [2:0] E_CRC     = 3'd7;   // answer CRC

  reg [2:0]    state_q, state_d;
  reg [7:0]    seq_q, seq_d;
  reg [1:0]    kind_q, kind_d;        // KIND[1:0]
  reg [2:0]    info_q, info_d;        // INFO[2:0]
  reg [6:0]    len_q, len_d;          // data words of the answer / words to write
  reg [6:0]    idx_q, idx_d;          // word index
  reg [2:0]    byte_q, byte_d;        // byte index in header / word / CRC
  reg [KW-1:2] addr_q, addr_d;        // host-port address bits kept
  reg          areg_q, areg_d;        // register space
  reg [3:0]    wstrb_q, wstrb_d;
  reg          incr_q, incr_d;
  reg          rd_q, rd_d;            // answer data comes from host-port reads
  reg [31:0]   word_q, word_d;        // answer data word, shifted out low byte first
  reg          crc_load;
  reg [7:0]    evt_seq_q, evt_seq_d;
  reg          evt_pend_q, evt_pend_d;
  reg          irq_q;
  reg          rearm_q, rearm_d;
  reg          ok_q, ok_d;
  reg          err_q, err_d;
  reg  [7:0]   tx_byte;

  // the answer's CRC: set while idle, each byte sent runs through it
  wire [31:0]  crc;
  wire         crc_busy, crc_ending;
  sgpu_link_crc #(.CRC_STEP(CRC_STEP)) u_crc (
    .clk_i(clk_i), .rst_ni(rst_ni), .init_i(state_q == E_IDLE), .load_i(crc_load),
    .byte_i(tx_byte), .crc_o(crc), .busy_o(crc_busy), .ending_o(crc_ending));

  wire go = tx_ready_i && !crc_busy;    // a byte leaves
  wire in_tx = (state_q == E_HDR) || (state_q == E_DATA) || (state_q == E_CRC);
  // the address is a register (the host port decodes it combinationally)
  wire [KW-1:2] addr_next = addr_q + {{(KW-3){1'b0}}, incr_q};
  wire [6:0] idx_inc = idx_q + 7'd1;
  wire last_word = (idx_inc == len_q);

  always @(*) begin
    case (state_q)
      E_HDR: begin
        case (byte_q)
          3'd0: tx_byte = SYNC;
          3'd1: tx_byte = seq_q;
          3'd2: tx_byte = {KIND_ACK[7:2], kind_q};
          3'd3: tx_byte = {5'd0, info_q};
          3'd4: tx_byte = {1'b0, len_q};
          default: tx_byte = 8'd0;
        endcase
      end
      // READ / EVENT data from the word read, PING's info word: a byte
      // goes out of word_q[7:0] and the word shifts down (no byte mux)
      E_DATA: tx_byte = word_q[7:0];
      // E_CRC: the high byte first: sending a byte runs it through the CRC
      // as well, which shifts the next byte into [31:24] (the register's
      // top byte becomes 0, so the eight steps take no polynomial)
      default: tx_byte = crc[31:24];
    endcase
  end

  always @(*) begin
    state_d    = state_q;
    seq_d      = seq_q;
    kind_d     = kind_q;
    info_d     = info_q;
    len_d      = len_q;
    idx_d      = idx_q;
    byte_d     = byte_q;
    addr_d     = addr_q;
    areg_d     = areg_q;
    wstrb_d    = wstrb_q;
    incr_d     = incr_q;
    rd_d       = rd_q;
    word_d     = word_q;
    crc_load   = 1'b0;
    evt_seq_d  = evt_seq_q;
    evt_pend_d = evt_pend_q;
    rearm_d    = rearm_q;
    ok_d       = 1'b0;
    err_d      = 1'b0;

    case (state_q)
      E_IDLE: begin
        idx_d  = 7'd0;
        byte_d = 3'd0;
        info_d = 3'd0;
        len_d  = 7'd0;
        rd_d   = 1'b0;
        kind_d = KIND_ACK[1:0];
        if (frame_valid_i) begin
          seq_d   = frame_seq_i;
          addr_d  = frame_addr_i[KW-1:2];
          areg_d  = frame_addr_i[31];
          wstrb_d = frame_wstrb_i;
          incr_d  = frame_incr_i;
          state_d = E_HDR;
          // the data word of a PING's ACK or an OUT_OF_ORDER NAK (L);
          // loaded for every frame (fewer LUTs than only for those two)
          if (V3) word_d = frame_ping_i ? PING_WORD : {24'd0, frame_last_seq_i};
          if (frame_nak_i != 3'd0) begin
            // nothing applied; OUT_OF_ORDER carries L
            kind_d = KIND_NAK[1:0];
            info_d = frame_nak_i;
            len_d  = {6'd0, V3 && frame_nak_i == NAK_OOO[2:0]};
            err_d  = 1'b1;
          end else begin
            ok_d = 1'b1;
            if (frame_ping_i) begin
              len_d = 7'd1;
              if (!V3) word_d = PING_WORD;
            end else if (frame_read_i) begin
              len_d = frame_count_i;
              rd_d  = 1'b1;
            end else if (frame_dup_i) begin
              info_d = ACK_DUP[2:0];   // retransmission: not applied again
            end else begin
              len_d   = frame_count_i;
              state_d = E_WR_ADDR;
            end
          end
        end else if (evt_pend_q) begin
          evt_pend_d = 1'b0;
          evt_seq_d  = evt_seq_q + 1'b1;
          seq_d      = evt_seq_q;
          kind_d     = KIND_EVENT[1:0];
          len_d      = 7'd1;
          rd_d       = 1'b1;
          addr_d     = INT_STATUS_ADDR[KW-1:2];
          areg_d     = INT_STATUS_ADDR[31];
          incr_d     = 1'b0;
          state_d    = E_HDR;
        end
      end
      E_WR_ADDR: state_d = E_WR_REQ;        // buffer read in flight
      E_WR_REQ: begin
        if (host_req_ready_i) begin
          addr_d  = addr_next;
          idx_d   = idx_inc;
          state_d = E_WR_ADDR;
          if (last_word) begin
            idx_d   = 7'd0;
            len_d   = 7'd0;
            state_d = E_HDR;
            // a register write (an interrupt handler clearing part of
            // INT_STATUS) re-arms the event if irq is still high once
            // the answer is out
            rearm_d = areg_q;
          end
        end
      end
      E_HDR: begin
        if (go) begin
          crc_load = (byte_q != 3'd0);
          byte_d = byte_q + 1'b1;
          if (byte_q == 3'd5) begin
            byte_d = 3'd0;
            if (len_q == 7'd0) state_d = E_CRC;
            else if (rd_q)     state_d = E_RD_REQ;
            else               state_d = E_DATA;
          end
        end
      end
      E_RD_REQ: if (host_req_ready_i) state_d = E_RD_WAIT;
      E_RD_WAIT: begin
        if (host_rsp_valid_i) begin
          word_d  = host_rsp_rdata_i;
          state_d = E_DATA;
        end
      end
      E_DATA: begin
        if (go) begin
          crc_load = 1'b1;
          byte_d = byte_q + 1'b1;
          word_d = {8'd0, word_q[31:8]};
          if (byte_q == 3'd3) begin
            byte_d = 3'd0;
            idx_d  = idx_inc;
            addr_d = addr_next;
            if (last_word) state_d = E_CRC;
            else           state_d = E_RD_REQ;
          end
        end
      end
      default: begin // E_CRC
        if (go) begin
          byte_d   = byte_q + 1'b1;
          crc_load = (byte_q[1:0] != 2'b11);
          if (byte_q[1:0] == 2'b11) begin
            state_d = E_IDLE;
            rearm_d = 1'b0;
            if (rearm_q && irq_i) evt_pend_d = 1'b1;
          end
        end
      end
    endcase

    if (irq_i && !irq_q) evt_pend_d = 1'b1;
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= E_IDLE;
      seq_q      <= 8'd0;
      kind_q     <= 2'd0;
      info_q     <= 3'd0;
      len_q      <= 7'd0;
      idx_q      <= 7'd0;
      byte_q     <= 3'd0;
      addr_q     <= {(KW-2){1'b0}};
      areg_q     <= 1'b0;
      wstrb_q    <= 4'hF;
      incr_q     <= 1'b1;
      rd_q       <= 1'b0;
      word_q     <= 32'd0;
      evt_seq_q  <= 8'd0;
      evt_pend_q <= 1'b0;
      irq_q      <= 1'b0;
      rearm_q    <= 1'b0;
      ok_q       <= 1'b0;
      err_q      <= 1'b0;
    end else begin
      state_q    <= state_d;
      seq_q      <= seq_d;
      kind_q     <= kind_d;
      info_q     <= info_d;
      len_q      <= len_d;
      idx_q      <= idx_d;
      byte_q     <= byte_d;
      addr_q     <= addr_d;
      areg_q     <= areg_d;
      wstrb_q    <= wstrb_d;
      incr_q     <= incr_d;
      rd_q       <= rd_d;
      word_q     <= word_d;
      evt_seq_q  <= evt_seq_d;
      evt_pend_q <= evt_pend_d;
      irq_q      <= irq_i;
      rearm_q    <= rearm_d;
      ok_q       <= ok_d;
      err_q      <= err_d;
    end
  end

  assign frame_ready_o    = (state_q == E_IDLE);
  assign wbuf_busy_o      = (state_q == E_WR_ADDR) || (state_q == E_WR_REQ);
  assign wbuf_raddr_o     = idx_q[BAW-1:0];
  assign tx_valid_o       = in_tx && !crc_busy;
  assign tx_data_o        = tx_byte;
  assign host_req_valid_o = (state_q == E_WR_REQ) || (state_q == E_RD_REQ);
  assign host_req_write_o = (state_q == E_WR_REQ);
  wire [31:0] addr32;
  assign addr32[31]     = areg_q;
  assign addr32[KW-1:2] = addr_q;
  assign addr32[1:0]    = 2'b00;
  generate if (KW < 31) begin : g_addr_hi
    assign addr32[30:KW] = {(31-KW){1'b0}};
  end endgenerate
  assign host_req_addr_o  = addr32;
  assign host_req_wdata_o = wbuf_rdata_i;
  assign host_req_wstrb_o = host_req_write_o ? wstrb_q : 4'h0;
  assign frame_ok_o       = ok_q;
  assign frame_err_o      = err_q;

`ifdef FORMAL
  // The handshakes: a host-port request stays, with its address, kind and
  // byte strobes, until it is taken; an answer byte offered and not taken
  // is offered again unchanged (the answer moves on only on a taken byte);
  // no request while a read's data is awaited (one read outstanding).
  // (A byte offered may be withdrawn only while the CRC steps, which
  // host_bridge.sby lets take any time: with the real counter it is not.)
  reg f_past = 1'b0;
  always @(posedge clk_i) begin
    f_past <= 1'b1;
    if (f_past && rst_ni && $past(rst_ni)) begin
      if ($past(host_req_valid_o && !host_req_ready_i))
        assert(host_req_valid_o && host_req_write_o == $past(host_req_write_o) &&
               host_req_addr_o == $past(host_req_addr_o) &&
               host_req_wstrb_o == $past(host_req_wstrb_o));
      if ($past(tx_valid_o && !tx_ready_i))
        assert(state_q == $past(state_q) && byte_q == $past(byte_q) &&
               tx_data_o == $past(tx_data_o));
    end
  end
  always @(*) if (rst_ni && state_q == E_RD_WAIT) assert(!host_req_valid_o);
`endif

  /* verilator lint_off UNUSEDPARAM */
  /* verilator lint_off UNUSEDSIGNAL */
  // The kinds share [7:2]; the other header constants are all below 8.
  wire unused_ok = &{1'b0, KIND_NAK[7:2], KIND_EVENT[7:2], ACK_DUP[7:3], NAK_OOO[7:3],
                     crc_ending, crc[23:0], frame_addr_i[1:0]};
  generate if (KW < 31) begin : g_unused_hi
    wire unused_hi = &{1'b0, frame_addr_i[30:KW]};
  end endgenerate
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_on UNUSEDPARAM */

endmodule
