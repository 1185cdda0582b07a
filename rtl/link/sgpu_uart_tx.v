// sgpu_uart_tx: 8N1 UART transmitter with a valid/ready byte input.
//
// A byte is accepted (valid_i & ready_o) only when the transmitter is idle;
// it then sends the start bit, eight data bits LSB first and one stop bit,
// each CLKS_PER_BIT cycles long.  tx_o idles high.
`include "sgpu_hw.vh"

module sgpu_uart_tx #(
  parameter integer CLKS_PER_BIT = 25    // >= 2
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       valid_i,
  output wire       ready_o,
  input  wire [7:0] data_i,
  output wire       tx_o,
  output wire       busy_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // CLKS_PER_BIT: the bit timer counts CLKS_PER_BIT - 1 down to 0.
  generate if (!(CLKS_PER_BIT >= 2)) begin : g_bad_clks_per_bit
    sgpu_precondition_failed_CLKS_PER_BIT_at_least_2 u_fail ();
  end endgenerate

  localparam integer CW = $clog2(CLKS_PER_BIT + 1);
  localparam [31:0] FULL32 = CLKS_PER_BIT - 1;
  localparam [CW-1:0] FULL = FULL32[CW-1:0];

  reg [CW-1:0] cnt_q, cnt_d;
  reg [3:0]    bits_q, bits_d;     // bits still to send, 0 = idle
  reg [8:0]    shift_q, shift_d;   // {data, start}; LSB is on the line
  reg          tx_q, tx_d;

  wire idle = (bits_q == 4'd0);

  always @(*) begin
    cnt_d   = cnt_q;
    bits_d  = bits_q;
    shift_d = shift_q;
    tx_d    = tx_q;
    if (idle) begin
      tx_d = 1'b1;
      if (valid_i) begin
        shift_d = {data_i, 1'b0};
        tx_d    = 1'b0;
        bits_d  = 4'd10;
        cnt_d   = FULL;
      end
    end else if (cnt_q != 0) begin
      cnt_d = cnt_q - 1'b1;
    end else begin
      // next bit: data bits, then the stop bit (shifted-in ones)
      shift_d = {1'b1, shift_q[8:1]};
      bits_d  = bits_q - 1'b1;
      cnt_d   = FULL;
      tx_d    = (bits_q == 4'd1) ? 1'b1 : shift_q[1];
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q   <= {CW{1'b0}};
      bits_q  <= 4'd0;
      shift_q <= 9'h1FF;
      tx_q    <= 1'b1;
    end else begin
      cnt_q   <= cnt_d;
      bits_q  <= bits_d;
      shift_q <= shift_d;
      tx_q    <= tx_d;
    end
  end

  assign ready_o = idle;
  assign tx_o    = tx_q;
  assign busy_o  = !idle;

endmodule
