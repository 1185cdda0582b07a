// sgpu_tmds_enc — DVI 1.0 TMDS encoder for one lane: 8 data bits to a
// 10-bit symbol per pixel clock.
//
// Active video (de_i = 1): stage 1 minimises transitions (an XOR or XNOR
// chain over the byte, whichever gives fewer; q_m[8] says which), stage 2
// keeps the line DC balanced: it inverts q_m[7:0] (and sets bit 9) when
// sending it as is would move the running disparity further from zero.
// The running disparity is the count of ones minus zeros of every symbol
// sent since blanking; with this rule it never leaves -8..+8.
// Blanking (de_i = 0): one of the four control symbols for ctrl_i
// ({C1, C0}; on the blue lane C0 = HSYNC, C1 = VSYNC), and the disparity
// restarts at zero (control symbols are balanced).
//
// sym_o[0] is the bit sent first.  Two register stages: a pixel's symbol is
// on sym_o two clocks after its inputs (LATENCY); one stage would do at the
// pixel clock, the second keeps the popcount off the disparity path.
module sgpu_tmds_enc (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       de_i,          // 1: data_i is a pixel, 0: blanking
  input  wire [7:0] data_i,
  input  wire [1:0] ctrl_i,        // {C1, C0}, sent while de_i = 0
  output wire [9:0] sym_o
);

  // ------------------------------------------------------------ stage 1
  function [3:0] ones8(input [7:0] v);
    integer i;
    begin
      ones8 = 4'd0;
      for (i = 0; i < 8; i = i + 1) ones8 = ones8 + {3'd0, v[i]};
    end
  endfunction

  wire [3:0] n1_data = ones8(data_i);
  // XNOR when the byte has more ones than zeros (or a tie with bit 0 clear):
  // the chain then has at most 3 transitions in its 8 bits either way.
  wire       use_xnor = (n1_data > 4'd4) || (n1_data == 4'd4 && !data_i[0]);

  reg [7:0] qm;
  integer   k;
  always @(*) begin
    qm[0] = data_i[0];
    for (k = 1; k < 8; k = k + 1) qm[k] = use_xnor ? (qm[k-1] ~^ data_i[k]) : (qm[k-1] ^ data_i[k]);
  end

  reg [8:0] qm_q;                  // q_m[8:0]; q_m[8] = 1: XOR chain
  reg [4:0] bal_q;                 // ones - zeros of q_m[7:0]: -8..8, two's complement
  reg       de_q;
  reg [1:0] ctrl_q;
  wire [3:0] n1_qm = ones8(qm);

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      qm_q   <= 9'd0;
      bal_q  <= 5'd0;
      de_q   <= 1'b0;
      ctrl_q <= 2'd0;
    end else begin
      qm_q   <= {!use_xnor, qm};
      bal_q  <= {n1_qm, 1'b0} - 5'd8;          // 2 * ones - 8
      de_q   <= de_i;
      ctrl_q <= ctrl_i;
    end
  end

  // ------------------------------------------------------------ stage 2
  // The disparity is even and within -8..8; six bits leave room for the
  // intermediate sums.
  reg  [5:0] cnt_q;
  reg  [5:0] cnt_d;
  reg  [9:0] sym_d;
  reg  [9:0] sym_q;

  wire [5:0] bal6    = {bal_q[4], bal_q};
  wire       cnt_0   = (cnt_q == 6'd0);
  wire       bal_0   = (bal_q == 5'd0);
  wire       cnt_neg = cnt_q[5];
  wire       bal_neg = bal_q[4];
  wire       q8      = qm_q[8];
  wire [5:0] two_q8  = {4'd0, q8, 1'b0};       // 2 * q_m[8]
  wire [5:0] two_nq8 = {4'd0, !q8, 1'b0};      // 2 * !q_m[8]

  always @(*) begin
    cnt_d = cnt_q;
    sym_d = 10'd0;
    if (!de_q) begin
      cnt_d = 6'd0;
      case (ctrl_q)
        2'b00:   sym_d = 10'b1101010100;
        2'b01:   sym_d = 10'b0010101011;
        2'b10:   sym_d = 10'b0101010100;
        default: sym_d = 10'b1010101011;
      endcase
    end else if (cnt_0 || bal_0) begin
      // no bias either way: bit 9 marks an inversion exactly when the
      // XNOR chain was used, which keeps the symbol's own balance at bal
      sym_d = {!q8, q8, q8 ? qm_q[7:0] : ~qm_q[7:0]};
      cnt_d = q8 ? cnt_q + bal6 : cnt_q - bal6;
    end else if (cnt_neg == bal_neg) begin
      // the byte leans the way the line already leans: invert it
      sym_d = {1'b1, q8, ~qm_q[7:0]};
      cnt_d = cnt_q + two_q8 - bal6;
    end else begin
      sym_d = {1'b0, q8, qm_q[7:0]};
      cnt_d = cnt_q - two_nq8 + bal6;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= 6'd0;
      sym_q <= 10'b1101010100;                 // blanking, no syncs
    end else begin
      cnt_q <= cnt_d;
      sym_q <= sym_d;
    end
  end

  assign sym_o = sym_q;

endmodule
