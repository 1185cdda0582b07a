// sgpu_uart_rx: 8N1 UART receiver.
//
// rx_i passes a two-flop synchroniser; a falling edge starts a byte, the
// start bit is checked again half a bit later (glitches are ignored), and
// each data bit and the stop bit are sampled in the middle of the bit.
// A byte with a good stop bit is output as a one-cycle valid_o strobe (it
// cannot be back-pressured); a byte whose stop bit is 0 is dropped and
// frame_err_o strobes instead.  The receiver is ready for the next start
// bit from the middle of the stop bit on.
`include "sgpu_hw.vh"

module sgpu_uart_rx #(
  parameter integer CLKS_PER_BIT = 25    // >= 4
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       rx_i,
  output wire       valid_o,
  output wire [7:0] data_o,
  output wire       frame_err_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // CLKS_PER_BIT: the start bit is checked half a bit in (CLKS_PER_BIT / 2 - 1 cycles).
  generate if (!(CLKS_PER_BIT >= 4)) begin : g_bad_clks_per_bit
    sgpu_precondition_failed_CLKS_PER_BIT_at_least_4 u_fail ();
  end endgenerate

  localparam integer CW = $clog2(CLKS_PER_BIT + 1);
  localparam [31:0] FULL32 = CLKS_PER_BIT - 1;
  localparam [31:0] HALF32 = CLKS_PER_BIT / 2 - 1;
  localparam [CW-1:0] FULL = FULL32[CW-1:0];
  localparam [CW-1:0] HALF = HALF32[CW-1:0];

  localparam [1:0] S_IDLE  = 2'd0;
  localparam [1:0] S_START = 2'd1;
  localparam [1:0] S_DATA  = 2'd2;
  localparam [1:0] S_STOP  = 2'd3;

  reg [1:0]    sync_q;
  reg [1:0]    state_q, state_d;
  reg [CW-1:0] cnt_q, cnt_d;
  reg [2:0]    bit_q, bit_d;
  reg [7:0]    shift_q, shift_d;
  reg          valid_q, valid_d;
  reg          err_q, err_d;

  wire rx = sync_q[1];

  always @(*) begin
    state_d = state_q;
    cnt_d   = cnt_q;
    bit_d   = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    err_d   = 1'b0;
    case (state_q)
      S_IDLE: begin
        if (!rx) begin
          state_d = S_START;
          cnt_d   = HALF;
        end
      end
      S_START: begin
        if (cnt_q != 0) begin
          cnt_d = cnt_q - 1'b1;
        end else if (rx) begin
          state_d = S_IDLE;            // glitch, not a start bit
        end else begin
          state_d = S_DATA;
          cnt_d   = FULL;
          bit_d   = 3'd0;
        end
      end
      S_DATA: begin
        if (cnt_q != 0) begin
          cnt_d = cnt_q - 1'b1;
        end else begin
          shift_d = {rx, shift_q[7:1]};
          cnt_d   = FULL;
          bit_d   = bit_q + 1'b1;
          if (bit_q == 3'd7) state_d = S_STOP;
        end
      end
      default: begin // S_STOP
        if (cnt_q != 0) begin
          cnt_d = cnt_q - 1'b1;
        end else begin
          state_d = S_IDLE;
          valid_d = rx;
          err_d   = !rx;
        end
      end
    endcase
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sync_q  <= 2'b11;
      state_q <= S_IDLE;
      cnt_q   <= {CW{1'b0}};
      bit_q   <= 3'd0;
      shift_q <= 8'd0;
      valid_q <= 1'b0;
      err_q   <= 1'b0;
    end else begin
      sync_q  <= {sync_q[0], rx_i};
      state_q <= state_d;
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      valid_q <= valid_d;
      err_q   <= err_d;
    end
  end

  assign valid_o     = valid_q;
  assign data_o      = shift_q;
  assign frame_err_o = err_q;

endmodule
