// assert_on: proves the assertion build of the chip model really checks
// assertions (sim/sim.mk, SIM_ASSERT_VFLAGS).  Verilated with the same
// flags, an assertion written the way rtl/ writes them (an `ifdef FORMAL
// block, an initialised f_past register, $past) must fire in cycle 5 and
// abort the program (tests/rtl/assert_on.cpp); without FORMAL or --assert
// it runs to the end and the test fails.
module assert_on (
  input wire clk_i,
  input wire rst_ni
);
  reg [3:0] n_q = 4'd0;
  always @(posedge clk_i) if (rst_ni) n_q <= n_q + 4'd1;
`ifdef FORMAL
  reg f_past = 1'b0;
  always @(posedge clk_i) begin
    f_past <= 1'b1;
    if (f_past && rst_ni && $past(rst_ni)) assert(n_q == $past(n_q) + 4'd1);
  end
  always @(*) if (f_past && rst_ni) assert(n_q != 4'd5);
`endif
endmodule
