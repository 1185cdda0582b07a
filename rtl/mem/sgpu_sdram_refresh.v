// sgpu_sdram_refresh: the auto-refresh timer of sgpu_sdram.
//
// One refresh falls due every REFI_CK cycles (the timer runs free, so the
// average interval is exact however late each refresh is served); req_o
// stays up while any are owed and ack_i (an AUTO REFRESH issued) pays one.
// The timer starts with en_i (the power-up sequence refreshes on its own).
// The owed count saturates: a sequencer that stops serving cannot wrap it
// back to "nothing owed".
`include "sgpu_hw.vh"
module sgpu_sdram_refresh #(
  parameter integer REFI_CK = 390     // cycles per refresh (floor of tREFI / tCK)
) (
  input  wire clk_i,
  input  wire rst_ni,
  input  wire en_i,
  input  wire ack_i,
  output wire req_o
);
  localparam integer CW = $clog2(REFI_CK + 1);
  localparam [31:0]   RELOAD_32 = REFI_CK - 1;
  localparam [CW-1:0] RELOAD = RELOAD_32[CW-1:0];

  reg [CW-1:0] cnt_q;
  reg [2:0]    owed_q;

  wire due = en_i && (cnt_q == {CW{1'b0}});

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q  <= RELOAD;
      owed_q <= 3'd0;
    end else begin
      if (en_i) cnt_q <= due ? RELOAD : cnt_q - 1'b1;
      case ({due, ack_i && (owed_q != 3'd0)})
        2'b10:   if (owed_q != 3'd7) owed_q <= owed_q + 1'b1;
        2'b01:   owed_q <= owed_q - 1'b1;
        default: ;
      endcase
    end
  end

  assign req_o = (owed_q != 3'd0);
endmodule
