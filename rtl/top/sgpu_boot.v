// sgpu_boot: the boot ROM's feeder (docs/firmware.md).  After reset it plays
// the ROM's host-link request frames into the host bridge's receiver, as if
// a host sent them over the UART, then connects the UART.
//
// The ROM (block RAM, synchronous read, filled by $readmemh from ROM_FILE,
// built by tools/mkboot) holds each frame behind one length byte; a length
// of 0 ends the boot.  One byte leaves every GAP cycles (the bridge needs at
// least 9 between bytes for its CRC).  After a frame's last byte the feeder
// waits for the bridge's answer to start (its first tx byte): the bridge
// acknowledges a WRITE only after the last word reached the host port, and
// the next frame's data must not enter the bridge's write buffer before
// that (frame_ok_o comes earlier, when the executor takes the frame).  The
// answer's later bytes overlap the next frame; they are over long before
// that frame's last byte (an answer to a WRITE or PING is at most 14 bytes,
// about 9 cycles each; a request frame is at least 14 bytes, GAP cycles
// each), so the first answer byte after a frame's last byte is its own.
//
// While booting, bytes from the UART are ignored and the bridge's answers are
// taken (tx_ready_o = 1) and dropped instead of reaching the UART
// transmitter; afterwards both directions pass straight through.  The
// answer's data byte goes from the bridge to the transmitter directly.

module sgpu_boot #(
  parameter ROM_FILE = "build/firmware/boot_icebreaker.hex",  // "" = no boot
  parameter integer ROM_BYTES = 2048,   // the ROM's size (tools/mkboot --rom-bytes)
  parameter integer GAP = 16            // cycles from one byte to the next: a power of two, >= 10
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  // from the UART receiver
  input  wire       uart_valid_i,
  input  wire [7:0] uart_data_i,
  // to the bridge's receiver
  output wire       rx_valid_o,
  output wire [7:0] rx_data_o,
  // the bridge's transmitter
  input  wire       tx_valid_i,
  output wire       tx_ready_o,
  // to the UART transmitter
  output wire       utx_valid_o,
  input  wire       utx_ready_i,
  output wire       booting_o      // 1 until the ROM's end
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // GAP: a byte when the free-running $clog2(GAP)-bit timer is all ones; the bridge needs 9+ cycles a byte.
  generate if (!(GAP >= 10 && (GAP & (GAP - 1)) == 0)) begin : g_bad_gap
    sgpu_precondition_failed_GAP_power_of_two_at_least_10 u_fail ();
  end endgenerate

  localparam integer AW = $clog2(ROM_BYTES);
  localparam integer PW = $clog2(GAP);

  // ------------------------------------------------------------ ROM
  reg [7:0] rom [0:ROM_BYTES-1];
  initial begin
    if (ROM_FILE != "") $readmemh(ROM_FILE, rom);
  end

  reg [AW-1:0] addr_q;      // the byte rom_q shows once a cycle has passed
  reg [7:0]    rom_q;
  always @(posedge clk_i) rom_q <= rom[addr_q];

  // ------------------------------------------------------------ feeder
  reg          boot_q;      // booting
  reg          wait_q;      // a frame is out: waiting for its answer
  reg [7:0]    left_q;      // bytes of the frame still to send; 0: rom_q is a length
  reg [PW-1:0] pace_q;      // free-running: a byte slot when all ones

  wire slot   = &pace_q && boot_q && !wait_q;
  wire in_frm = (left_q != 8'd0);
  wire feed   = slot && in_frm;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      boot_q <= 1'b1;
      wait_q <= 1'b0;
      left_q <= 8'd0;
      pace_q <= {PW{1'b0}};
      addr_q <= {AW{1'b0}};
    end else begin
      pace_q <= pace_q + 1'b1;
      if (wait_q && tx_valid_i) wait_q <= 1'b0;
      if (slot) begin
        addr_q <= addr_q + 1'b1;
        if (in_frm) begin
          left_q <= left_q - 1'b1;
          if (left_q == 8'd1) wait_q <= 1'b1;
        end else begin
          left_q <= rom_q;
          if (rom_q == 8'd0) boot_q <= 1'b0;
        end
      end
    end
  end

  assign rx_valid_o  = boot_q ? feed : uart_valid_i;
  assign rx_data_o   = boot_q ? rom_q : uart_data_i;
  assign tx_ready_o  = boot_q || utx_ready_i;
  assign utx_valid_o = !boot_q && tx_valid_i;
  assign booting_o   = boot_q;

`ifdef FORMAL
  // The handshakes the feeder relies on, for a proof with the bridge or an
  // environment that answers frames.
  reg       f_past;
  reg [4:0] f_since;        // cycles since the last byte into the bridge (saturating)
  initial f_past = 1'b0;
  always @(posedge clk_i) begin
    f_past  <= 1'b1;
    f_since <= rx_valid_o ? 5'd0 : (f_since == 5'd31 ? f_since : f_since + 5'd1);
    if (f_past && rst_ni && $past(rst_ni)) begin
      // booting ends once and never restarts
      if (!$past(boot_q)) assert (!boot_q);
      // nothing from the bridge reaches the UART while booting; every answer
      // byte is taken
      if (boot_q) assert (!utx_valid_o && tx_ready_o);
      // no byte while a frame waits for its answer, and bytes GAP cycles apart
      if (boot_q && wait_q) assert (!rx_valid_o);
      if (boot_q && rx_valid_o && $past(boot_q)) assert ({27'd0, f_since} >= GAP - 1);
    end
  end
`endif

endmodule
