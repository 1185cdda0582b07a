// sgpu_dvi_tx — DVI transmitter core: three TMDS encoders in the pixel
// domain and the 10:1 serialisers in a domain at five times the pixel
// clock, two bits per serial clock for DDR output cells (the board top
// owns the vendor cells: ODDRX1F on the ECP5).
//
// Lanes: 0 blue (its control bits carry {VSYNC, HSYNC}), 1 green, 2 red,
// 3 the TMDS clock (five ones then five zeros per pixel, in step with the
// data symbols' boundaries).
//
// The crossing: the 30 symbol bits of each pixel go through an asynchronous
// FIFO (sgpu_cdc_fifo), never sampled straight from the pixel domain, so it
// is safe whatever the phase between the two clocks (nextpnr does not time
// paths between PLL outputs).  The two clocks come from one PLL, so the
// FIFO is filled and emptied at exactly the same rate: once it has held
// data for PRIME serial cycles the serialiser takes one entry every five
// cycles and the level stays put, a few entries from either end.  Should it
// ever find the FIFO empty it sends blanking symbols instead and sets
// underflow_o (sticky until reset): a symptom of clocks that are not 5:1.
//
// Outputs: d0_o[l] is lane l's bit for the first half of the serial clock
// cycle, d1_o[l] for the second half, both from flip-flops.  The first bit
// on the wire is a symbol's bit 0.
module sgpu_dvi_tx (
  input  wire       pix_clk_i,
  input  wire       pix_rst_ni,
  input  wire       de_i,
  input  wire [7:0] r_i,
  input  wire [7:0] g_i,
  input  wire [7:0] b_i,
  input  wire       hsync_i,
  input  wire       vsync_i,
  input  wire       ser_clk_i,      // 5 x pix_clk_i, from the same PLL
  input  wire       ser_rst_ni,
  output wire [3:0] d0_o,
  output wire [3:0] d1_o,
  output wire       underflow_o     // ser_clk_i domain
);

  localparam [9:0] CLK_SYM   = 10'b0000011111;   // bits 0..4 first: high half
  localparam [9:0] BLANK_SYM = 10'b1101010100;   // control symbol, no syncs
  localparam integer PRIME   = 8;                // serial cycles of data before starting

  // ------------------------------------------------------------ pixel domain
  wire [9:0] sym_b, sym_g, sym_r;
  sgpu_tmds_enc u_enc_b (.clk_i(pix_clk_i), .rst_ni(pix_rst_ni), .de_i(de_i), .data_i(b_i),
                         .ctrl_i({vsync_i, hsync_i}), .sym_o(sym_b));
  sgpu_tmds_enc u_enc_g (.clk_i(pix_clk_i), .rst_ni(pix_rst_ni), .de_i(de_i), .data_i(g_i),
                         .ctrl_i(2'b00), .sym_o(sym_g));
  sgpu_tmds_enc u_enc_r (.clk_i(pix_clk_i), .rst_ni(pix_rst_ni), .de_i(de_i), .data_i(r_i),
                         .ctrl_i(2'b00), .sym_o(sym_r));

  wire        f_w_ready;
  wire        f_r_valid;
  wire        f_r_ready;
  wire [29:0] f_r_data;
  sgpu_cdc_fifo #(.WIDTH(30), .AW(3)) u_fifo (
    .w_clk_i(pix_clk_i), .w_rst_ni(pix_rst_ni),
    .w_valid_i(1'b1), .w_ready_o(f_w_ready), .w_data_i({sym_r, sym_g, sym_b}),
    .r_clk_i(ser_clk_i), .r_rst_ni(ser_rst_ni),
    .r_valid_o(f_r_valid), .r_ready_i(f_r_ready), .r_data_o(f_r_data));

  // ------------------------------------------------------------ serial domain
  reg [2:0] phase_q;               // 0: load a symbol, 1..4: shift
  reg [3:0] prime_q;               // cycles the FIFO has shown data before the start
  reg       run_q;
  reg       under_q;
  reg [39:0] sh_q;                // lane l's bits still to send in [l*10 +: 10], bit 0 next

  wire load = (phase_q == 3'd0);
  wire take = load && run_q && f_r_valid;
  assign f_r_ready = take;

  // per lane: the remaining bits shifted on by two (zeros in from the top)
  wire [39:0] sh_next = {2'b00, sh_q[39:32], 2'b00, sh_q[29:22], 2'b00, sh_q[19:12],
                         2'b00, sh_q[9:2]};

  always @(posedge ser_clk_i or negedge ser_rst_ni) begin
    if (!ser_rst_ni) begin
      phase_q <= 3'd0;
      prime_q <= 4'd0;
      run_q   <= 1'b0;
      under_q <= 1'b0;
      sh_q    <= {CLK_SYM, BLANK_SYM, BLANK_SYM, BLANK_SYM};
    end else begin
      phase_q <= (phase_q == 3'd4) ? 3'd0 : phase_q + 3'd1;
      if (!run_q && f_r_valid) begin
        prime_q <= prime_q + 4'd1;
        if (prime_q == PRIME[3:0] - 4'd1) run_q <= 1'b1;
      end
      if (load) begin
        sh_q <= {CLK_SYM, take ? f_r_data : {BLANK_SYM, BLANK_SYM, BLANK_SYM}};
        if (run_q && !f_r_valid) under_q <= 1'b1;
      end else begin
        sh_q <= sh_next;
      end
    end
  end

  assign d0_o = {sh_q[30], sh_q[20], sh_q[10], sh_q[0]};
  assign d1_o = {sh_q[31], sh_q[21], sh_q[11], sh_q[1]};
  assign underflow_o = under_q;

  // The writer never waits: the FIFO is drained at the rate it fills.
  wire unused_ok = &{1'b0, f_w_ready};

endmodule
