// Wide adder/subtractor, counter and compare that live in an iCE40 DSP block.
//
// sgpu_dsp_add: purely combinational W-bit (1..32) add/subtract with carry,
// in the usual "carry = not borrow" convention:
//   sub_i = 0:  {co_o, s_o} = a_i + b_i + ci_i
//   sub_i = 1:  {co_o, s_o} = a_i + ~b_i + ci_i
// so with sub_i = 1, ci_i = 1: s_o = a_i - b_i and co_o = (a_i >= b_i)
// (unsigned); with ci_i = 0 it is a_i - b_i - 1 and co_o = (a_i > b_i).
//
// sgpu_dsp_counter: W-bit (1..32) up counter, q_o += en_i each clk_i,
// asynchronous active-low reset to 0, synchronous load of d_i with ld_i
// (before en_i; tie ld_i and d_i to 0 when not needed: they then cost
// nothing).  co_o = en_i && q_o == all ones (the increment of this cycle
// wraps; ld_i does not mask it), combinational, so that a second counter
// with en_i = co_o of the first makes a 2W-bit counter.
//
// With `SYNTHESIS and `SGPU_ICE40_DSP both defined each module is one
// SB_MAC16 with the multiplier bypassed (the two 16-bit adders of the
// accumulator stage chained through their internal carry into one 32-bit
// adder); the fabric cost is at most the inverter of rst_ni (counter;
// shared with any other user) and, for W = 32, one LUT for CI = ci_i ^ sub_i
// unless that folds to a constant or to ci_i (sub_i tied 0).
// Otherwise it is plain Verilog with the same behaviour.
//
// How the SB_MAC16 adders work (yosys ice40/cells_sim.v, Lattice "DSP
// Function Usage Guide for iCE40 Devices"): each 16-bit half computes
//   ADDSUB = 0:  P = U + L + cin,   carry out = carry
//   ADDSUB = 1:  P = U - L - cin,   carry out (ACCUMCO) = borrow
// where U is the "upper" input (ADDSUB_UPPERINPUT = 1: C for the top half,
// D for the bottom; 0: the half's own accumulator register), L the "lower"
// input (ADDSUB_LOWERINPUT = 0: A for the top, B for the bottom; the other
// choices are multiplier products).  The bottom's carry in is 0, 1, ACCUMCI
// or CI (BOTADDSUB_CARRYSELECT = 0..3), the top's 0, 1 or the bottom's
// carry/borrow (TOPADDSUB_CARRYSELECT = 2).  CO = ACCUMCO ^ ADDSUBTOP is
// the top's carry, or not-borrow when subtracting: our co_o in both cases.
// CI and CO reach the fabric (nextpnr routes them; not tried on silicon
// yet, like everything here beyond the yosys model); ACCUMCI/ACCUMCO and
// SIGNEXTIN/OUT are DSP-to-DSP cascade wires only (nextpnr fails to route
// ACCUMCO to a flip-flop).  In subtract mode the carry in is a borrow, so
// for W <= 31 the module feeds ci_i through an extra operand bit below the
// operands (a side ci_i, b side 1: ci_i + 1 carries when ci_i = 1, ci_i - 1
// borrows when ci_i = 0), which costs no LUT; only W = 32 has no room and
// uses CI = ci_i ^ sub_i.  For W <= 30 the carry out is an extra result bit
// above the operands (a side sub_i, b side 0: 0 + carry, or 1 - borrow)
// rather than the CO pin.
//
// The counter uses the output (accumulator) registers: UPPERINPUT = 0
// feeds them back, the increment en_i comes in on the A/B inputs, the
// counter is placed in the top W bits so that CO is its carry out.  The
// SB_MAC16 output registers have an asynchronous reset (ORSTTOP/ORSTBOT,
// active high; the yosys model resets them on posedge ORST*), so rst_ni
// keeps its asynchronous meaning; it costs the one inverter to active high.
// Timing: nextpnr-ice40 models every SB_MAC16 port as a register port, so
// it does not time the combinational path through the adder.

// ---------------------------------------------------------------------------
module sgpu_dsp_add #(
  parameter W = 32                // 1..32
) (
  input  wire [W-1:0] a_i,
  input  wire [W-1:0] b_i,
  input  wire         ci_i,
  input  wire         sub_i,
  output wire [W-1:0] s_o,
  output wire         co_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // W: one SB_MAC16's 32-bit adder.
  generate if (!(W >= 1 && W <= 32)) begin : g_bad_w
    sgpu_precondition_failed_W_1_to_32 u_fail ();
  end endgenerate

`ifdef SYNTHESIS
`ifdef SGPU_ICE40_DSP
  `define SGPU_DSP_ADD_MAC16
`endif
`endif

`ifdef SGPU_DSP_ADD_MAC16
  // Upper (C:D) input = a side, lower (A:B) input = b side: subtracting,
  // the DSP computes upper - lower.
  wire [31:0] up, lo, o;
  wire        ci, co;
  generate
    if (W <= 30) begin : g_pad2
      // bit 0: carry in; bits W..1: operands; bit W+1: carry out.
      wire [63:0] up64 = {{(62 - W){1'b0}}, sub_i, a_i, ci_i};
      wire [63:0] lo64 = {{(62 - W){1'b0}}, 1'b0, b_i, 1'b1};
      assign up = up64[31:0];
      assign lo = lo64[31:0];
      assign ci = 1'b0;
      assign s_o = o[W:1];
      assign co_o = o[W + 1];
    end else if (W == 31) begin : g_pad1
      assign up = {a_i, ci_i};
      assign lo = {b_i, 1'b1};
      assign ci = 1'b0;
      assign s_o = o[31:1];
      assign co_o = co;
    end else begin : g_full
      assign up = a_i;
      assign lo = b_i;
      assign ci = ci_i ^ sub_i;     // the DSP's carry in is a borrow when subtracting
      assign s_o = o;
      assign co_o = co;
    end
  endgenerate

  /* verilator lint_off PINCONNECTEMPTY */
  SB_MAC16 #(
    .NEG_TRIGGER(1'b0),
    .C_REG(1'b0), .A_REG(1'b0), .B_REG(1'b0), .D_REG(1'b0),
    .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0),
    .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
    .TOPOUTPUT_SELECT(2'd0),        // adder output, unregistered
    .TOPADDSUB_LOWERINPUT(2'd0),    // A
    .TOPADDSUB_UPPERINPUT(1'b1),    // C
    .TOPADDSUB_CARRYSELECT(2'd2),   // carry/borrow of the bottom half
    .BOTOUTPUT_SELECT(2'd0),        // adder output, unregistered
    .BOTADDSUB_LOWERINPUT(2'd0),    // B
    .BOTADDSUB_UPPERINPUT(1'b1),    // D
    .BOTADDSUB_CARRYSELECT((W == 32) ? 2'd3 : 2'd0),  // CI, or constant 0
    .MODE_8x8(1'b0), .A_SIGNED(1'b0), .B_SIGNED(1'b0)
  ) u_mac (
    .CLK(1'b0), .CE(1'b0),
    .C(up[31:16]), .A(lo[31:16]), .B(lo[15:0]), .D(up[15:0]),
    .AHOLD(1'b1), .BHOLD(1'b1), .CHOLD(1'b1), .DHOLD(1'b1),
    .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(1'b0), .ORSTBOT(1'b0),
    .OLOADTOP(1'b0), .OLOADBOT(1'b0),
    .ADDSUBTOP(sub_i), .ADDSUBBOT(sub_i),
    .OHOLDTOP(1'b1), .OHOLDBOT(1'b1),
    .CI(ci), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
    .O(o), .CO(co), .ACCUMCO(), .SIGNEXTOUT()
  );
  /* verilator lint_on PINCONNECTEMPTY */
`else
  wire [W:0] r = {1'b0, a_i} + {1'b0, b_i ^ {W{sub_i}}} + {{W{1'b0}}, ci_i};
  assign s_o  = r[W-1:0];
  assign co_o = r[W];
`endif
endmodule

// ---------------------------------------------------------------------------
/* verilator lint_off DECLFILENAME */
module sgpu_dsp_counter #(
  parameter W = 32                // 1..32
) (
  input  wire         clk_i,
  input  wire         rst_ni,     // asynchronous, active low: q_o = 0
  input  wire         en_i,
  input  wire         ld_i,       // q_o <= d_i (over en_i)
  input  wire [W-1:0] d_i,
  output wire [W-1:0] q_o,
  output wire         co_o        // en_i && q_o == all ones
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // W: one SB_MAC16's 32-bit accumulator.
  generate if (!(W >= 1 && W <= 32)) begin : g_bad_w
    sgpu_precondition_failed_W_1_to_32 u_fail ();
  end endgenerate

/* verilator lint_on DECLFILENAME */
`ifdef SGPU_DSP_ADD_MAC16
  // The counter is the top W bits of the 32-bit accumulator; the bits below
  // stay 0.  inc = en_i at bit 32-W.
  wire [32:0] inc33 = {en_i, 32'b0} >> W;
  wire [31:0] inc = inc33[31:0];
  wire [63:0] d64 = {d_i, 32'b0} >> W;   // d_i at bits 31..32-W
  wire [31:0] d = d64[31:0];
  wire [31:0] o;
  wire        rst = ~rst_ni;

  /* verilator lint_off PINCONNECTEMPTY */
  SB_MAC16 #(
    .NEG_TRIGGER(1'b0),
    .C_REG(1'b0), .A_REG(1'b0), .B_REG(1'b0), .D_REG(1'b0),
    .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0),
    .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
    .TOPOUTPUT_SELECT(2'd1),        // accumulator register
    .TOPADDSUB_LOWERINPUT(2'd0),    // A
    .TOPADDSUB_UPPERINPUT(1'b0),    // accumulator register (feedback)
    .TOPADDSUB_CARRYSELECT(2'd2),   // carry of the bottom half
    .BOTOUTPUT_SELECT(2'd1),        // accumulator register
    .BOTADDSUB_LOWERINPUT(2'd0),    // B
    .BOTADDSUB_UPPERINPUT(1'b0),    // accumulator register (feedback)
    .BOTADDSUB_CARRYSELECT(2'd0),   // constant 0
    .MODE_8x8(1'b0), .A_SIGNED(1'b0), .B_SIGNED(1'b0)
  ) u_mac (
    .CLK(clk_i), .CE(1'b1),
    .C(d[31:16]), .A(inc[31:16]), .B(inc[15:0]), .D(d[15:0]),
    .AHOLD(1'b0), .BHOLD(1'b0), .CHOLD(1'b0), .DHOLD(1'b0),
    .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(rst), .ORSTBOT(rst),
    .OLOADTOP(ld_i), .OLOADBOT(ld_i),  // register <= C:D instead of the sum
    .ADDSUBTOP(1'b0), .ADDSUBBOT(1'b0),
    .OHOLDTOP(1'b0), .OHOLDBOT(1'b0),
    .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
    .O(o), .CO(co_o), .ACCUMCO(), .SIGNEXTOUT()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign q_o = o[31:32 - W];
`else
  localparam [W-1:0] ONE = 1;
  reg [W-1:0] q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) q <= {W{1'b0}};
    else if (ld_i) q <= d_i;
    else if (en_i) q <= q + ONE;
  end
  assign q_o  = q;
  assign co_o = en_i & (&q);
`endif
endmodule
`ifdef SGPU_DSP_ADD_MAC16
  `undef SGPU_DSP_ADD_MAC16
`endif

// ---------------------------------------------------------------------------
// sgpu_dsp_ge_held: ge_o = (a >= b), unsigned, W bits (1..30), where one
// operand (HOLD_B = 0: a, HOLD_B = 1: b) is a register loaded from its input
// in a cycle with ld_i; the other operand is combinational.  On the iCE40
// DSP path the held operand sits in the SB_MAC16's own input registers
// (C:D or A:B, held while ld_i is low), so it needs no fabric flip-flops;
// it is undefined until the first load.  The compare is sgpu_dsp_add's
// W <= 30 layout with sub_i = ci_i = 1.
/* verilator lint_off DECLFILENAME */
module sgpu_dsp_ge_held #(
  parameter W      = 18,          // 1..30
  parameter HOLD_B = 0
) (
  input  wire         clk_i,
  input  wire         ld_i,       // held operand <= its input
  input  wire [W-1:0] a_i,
  input  wire [W-1:0] b_i,
  output wire         ge_o
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // W: sgpu_dsp_add's W <= 30 layout (extra carry-in and carry-out bits in 32).
  generate if (!(W >= 1 && W <= 30)) begin : g_bad_w
    sgpu_precondition_failed_W_1_to_30 u_fail ();
  end endgenerate

/* verilator lint_on DECLFILENAME */
`ifdef SYNTHESIS
`ifdef SGPU_ICE40_DSP
  `define SGPU_DSP_GE_MAC16
`endif
`endif
`ifdef SGPU_DSP_GE_MAC16
  // bit 0: carry in (1 - 1 borrows nothing); bits W..1: operands; bit W+1:
  // 1 - borrow, the carry out.  Upper (C:D) = a side, lower (A:B) = b side.
  wire [63:0] up64 = {{(62 - W){1'b0}}, 1'b1, a_i, 1'b1};
  wire [63:0] lo64 = {{(62 - W){1'b0}}, 1'b0, b_i, 1'b1};
  wire [31:0] up = up64[31:0];
  wire [31:0] lo = lo64[31:0];
  wire [31:0] o;
  localparam HA = (HOLD_B != 0) ? 1'b0 : 1'b1;   // a side registered
  localparam HB = (HOLD_B != 0) ? 1'b1 : 1'b0;   // b side registered

  /* verilator lint_off PINCONNECTEMPTY */
  SB_MAC16 #(
    .NEG_TRIGGER(1'b0),
    .C_REG(HA), .A_REG(HB), .B_REG(HB), .D_REG(HA),
    .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0),
    .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
    .TOPOUTPUT_SELECT(2'd0),        // adder output, unregistered
    .TOPADDSUB_LOWERINPUT(2'd0),    // A
    .TOPADDSUB_UPPERINPUT(1'b1),    // C
    .TOPADDSUB_CARRYSELECT(2'd2),   // borrow of the bottom half
    .BOTOUTPUT_SELECT(2'd0),        // adder output, unregistered
    .BOTADDSUB_LOWERINPUT(2'd0),    // B
    .BOTADDSUB_UPPERINPUT(1'b1),    // D
    .BOTADDSUB_CARRYSELECT(2'd0),   // constant 0
    .MODE_8x8(1'b0), .A_SIGNED(1'b0), .B_SIGNED(1'b0)
  ) u_mac (
    .CLK(clk_i), .CE(1'b1),
    .C(up[31:16]), .A(lo[31:16]), .B(lo[15:0]), .D(up[15:0]),
    .AHOLD(!ld_i), .BHOLD(!ld_i), .CHOLD(!ld_i), .DHOLD(!ld_i),
    .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(1'b0), .ORSTBOT(1'b0),
    .OLOADTOP(1'b0), .OLOADBOT(1'b0),
    .ADDSUBTOP(1'b1), .ADDSUBBOT(1'b1),
    .OHOLDTOP(1'b1), .OHOLDBOT(1'b1),
    .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
    .O(o), .CO(), .ACCUMCO(), .SIGNEXTOUT()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign ge_o = o[W + 1];
  wire unused_ok = ^{o[31:W + 2], o[W:0]};
  `undef SGPU_DSP_GE_MAC16
`else
  reg  [W-1:0] held_q;
  always @(posedge clk_i) if (ld_i) held_q <= (HOLD_B != 0) ? b_i : a_i;
  wire [W-1:0] a = (HOLD_B != 0) ? a_i : held_q;
  wire [W-1:0] b = (HOLD_B != 0) ? held_q : b_i;
  assign ge_o = (a >= b);
`endif
endmodule

// ---------------------------------------------------------------------------
// sgpu_dsp_counter_held: W-bit (1..32) down counter, q_o -= en_i each clk_i,
// whose load value is a register, loaded from d_i in a cycle with dld_i
// (reset to 0 with rst_ni); ld_i loads the counter from that register (its
// value before this cycle's dld_i), over en_i.  On the iCE40 DSP path the
// register is the SB_MAC16's C:D input register, so a value the counter
// restarts from needs no fabric flip-flops.  It counts down so that the
// value is loaded as written (an inverted one would cost a LUT a bit).
/* verilator lint_off DECLFILENAME */
module sgpu_dsp_counter_held #(
  parameter W = 24                // 1..32
) (
  input  wire         clk_i,
  input  wire         rst_ni,     // asynchronous, active low: q_o = 0, held value 0
  input  wire         en_i,
  input  wire         ld_i,       // q_o <= held value (over en_i)
  input  wire         dld_i,      // held value <= d_i
  input  wire [W-1:0] d_i,
  output wire [W-1:0] q_o,
  output wire         co_o        // en_i && q_o == 0 (the decrement of this cycle wraps)
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // W: one SB_MAC16's 32-bit accumulator.
  generate if (!(W >= 1 && W <= 32)) begin : g_bad_w
    sgpu_precondition_failed_W_1_to_32 u_fail ();
  end endgenerate

/* verilator lint_on DECLFILENAME */
`ifdef SYNTHESIS
`ifdef SGPU_ICE40_DSP
  `define SGPU_DSP_CNTH_MAC16
`endif
`endif
`ifdef SGPU_DSP_CNTH_MAC16
  // sgpu_dsp_counter's layout, subtracting (ADDSUB*: accumulator - A:B, the
  // bottom's borrow into the top; CO is then not-borrow), with C:D
  // registered (C_REG, D_REG) and held while dld_i is low; the input
  // registers reset with IRST*.
  wire [32:0] inc33 = {en_i, 32'b0} >> W;
  wire [31:0] inc = inc33[31:0];
  wire [63:0] d64 = {d_i, 32'b0} >> W;   // d_i at bits 31..32-W
  wire [31:0] d = d64[31:0];
  wire [31:0] o;
  wire        co;
  wire        rst = ~rst_ni;

  /* verilator lint_off PINCONNECTEMPTY */
  SB_MAC16 #(
    .NEG_TRIGGER(1'b0),
    .C_REG(1'b1), .A_REG(1'b0), .B_REG(1'b0), .D_REG(1'b1),
    .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0),
    .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
    .TOPOUTPUT_SELECT(2'd1),        // accumulator register
    .TOPADDSUB_LOWERINPUT(2'd0),    // A
    .TOPADDSUB_UPPERINPUT(1'b0),    // accumulator register (feedback)
    .TOPADDSUB_CARRYSELECT(2'd2),   // borrow of the bottom half
    .BOTOUTPUT_SELECT(2'd1),        // accumulator register
    .BOTADDSUB_LOWERINPUT(2'd0),    // B
    .BOTADDSUB_UPPERINPUT(1'b0),    // accumulator register (feedback)
    .BOTADDSUB_CARRYSELECT(2'd0),   // constant 0
    .MODE_8x8(1'b0), .A_SIGNED(1'b0), .B_SIGNED(1'b0)
  ) u_mac (
    .CLK(clk_i), .CE(1'b1),
    .C(d[31:16]), .A(inc[31:16]), .B(inc[15:0]), .D(d[15:0]),
    .AHOLD(1'b0), .BHOLD(1'b0), .CHOLD(!dld_i), .DHOLD(!dld_i),
    .IRSTTOP(rst), .IRSTBOT(rst), .ORSTTOP(rst), .ORSTBOT(rst),
    .OLOADTOP(ld_i), .OLOADBOT(ld_i),  // register <= held C:D instead of the difference
    .ADDSUBTOP(1'b1), .ADDSUBBOT(1'b1),
    .OHOLDTOP(1'b0), .OHOLDBOT(1'b0),
    .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
    .O(o), .CO(co), .ACCUMCO(), .SIGNEXTOUT()
  );
  /* verilator lint_on PINCONNECTEMPTY */
  assign q_o = o[31:32 - W];
  assign co_o = !co;
  `undef SGPU_DSP_CNTH_MAC16
`else
  localparam [W-1:0] ONE = 1;
  reg [W-1:0] q, held_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q <= {W{1'b0}}; held_q <= {W{1'b0}};
    end else begin
      if (dld_i) held_q <= d_i;
      if (ld_i) q <= held_q;
      else if (en_i) q <= q - ONE;
    end
  end
  assign q_o  = q;
  assign co_o = en_i & ~(|q);
`endif
endmodule
