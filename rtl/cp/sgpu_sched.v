// Ring scheduler of one node (sgpu_top, PRIORITY = 1): which of the node's
// rings may start new work.  A ring that is not granted holds at its next
// boundary (sgpu_cp_exec's hold_i; the chip pauses its 2D engine after the
// chunk in flight).
//
// High ring H: while it is runnable the normal rings hold at once, and H
// goes only once they are held and at rest (its own grant, go_hi_q, is a
// register set from the rest inputs of the cycle before).
//
// Time slices (TIME_SLICE = 1): the node has two normal rings, A and B.
// One of them owns the grant (owner_q) and runs (norm_go_q) while H is not
// runnable.  While it runs and the other has work, slice_q counts cycles;
// when the count reaches the owner's QUANTUM (not 0), or when the owner has
// no work left and the other has, the owner holds (norm_go_q drops) and,
// once both normal rings are held and at rest, the grant goes to the other
// (or back to the owner if the other has no work any more), with the count
// restarted.  QUANTUM 0: the owner keeps the grant while it has work.
//
// TIME_SLICE = 0: A and H only, exactly the chip's scheduling without time
// slices (B holds; its inputs are unused).
//
// Every output is a register or an OR of registers: no path from one
// command processor's state through another's fetcher into the arbiter.
`include "sgpu_hw.vh"
module sgpu_sched #(
  parameter TIME_SLICE = 1,
  parameter QW         = `SGPU_NREG_QUANTUM_W
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  // per ring: has work (normal rings: busy, enabled or not, so a ring disabled inside a
  // packet finishes it; H: runnable), at rest (quiet, its 2D engine not mid-chunk for it)
  input  wire          run_a_i,
  input  wire          rest_a_i,
  input  wire          run_b_i,
  input  wire          rest_b_i,
  input  wire          run_h_i,
  input  wire          rest_h_i,
  input  wire [QW-1:0] quantum_a_i,   // the normal rings' QUANTUM registers
  input  wire [QW-1:0] quantum_b_i,
  output wire          hold_a_o,
  output wire          hold_b_o,
  output wire          hold_h_o,
  output wire          switch_o       // strobe: a slice expired (the owner starts to hold)
);
  reg run_hi_q;    // H is runnable (registered): the normal rings hold
  reg go_hi_q;     // H may run
`ifdef FORMAL
  reg f_past = 1'b0;   // a cycle out of reset has passed
`endif

  generate if (TIME_SLICE == 0) begin : g_pair
    // Today's pair: A holds while H is runnable; H goes once A is at rest.
    always @(posedge clk_i or negedge rst_ni)
      if (!rst_ni) begin
        run_hi_q <= 1'b0; go_hi_q <= 1'b0;
      end else begin
        run_hi_q <= run_h_i;
        go_hi_q  <= run_hi_q & rest_a_i;
      end
    assign hold_a_o = run_hi_q;
    assign hold_b_o = 1'b1;
    assign hold_h_o = !go_hi_q;
    assign switch_o = 1'b0;
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, run_a_i, run_b_i, rest_b_i, rest_h_i, quantum_a_i, quantum_b_i};
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : g_slice
    reg          owner_q;     // 0: A owns the grant, 1: B
    reg          norm_go_q;   // the owner may run (0: handing over, or after reset)
    reg          expired_q;   // handing over because the owner's slice expired
    reg [QW-1:0] slice_q;     // cycles the owner ran while the other had work
    wire run_own   = owner_q ? run_b_i : run_a_i;
    wire run_other = owner_q ? run_a_i : run_b_i;
    wire [QW-1:0] quantum = owner_q ? quantum_b_i : quantum_a_i;
    wire counting  = norm_go_q && !run_hi_q && run_other;   // the owner has the grant, the other waits
    wire expired   = counting && quantum != {QW{1'b0}} && slice_q >= quantum - 1'b1;
    wire give_up   = norm_go_q && !run_own && run_other;     // owner dry, the other has work
    wire both_rest = rest_a_i && rest_b_i;
    always @(posedge clk_i or negedge rst_ni)
      if (!rst_ni) begin
        run_hi_q <= 1'b0; go_hi_q <= 1'b0;
        owner_q <= 1'b0; norm_go_q <= 1'b0; expired_q <= 1'b0; slice_q <= {QW{1'b0}};
      end else begin
        run_hi_q <= run_h_i;
        go_hi_q  <= run_hi_q & both_rest;
        if (norm_go_q) begin
          if (expired || give_up) begin
            norm_go_q <= 1'b0; expired_q <= expired;
          end else if (counting) slice_q <= slice_q + 1'b1;
        end else if (both_rest) begin
          // Both normal rings were held last cycle (norm_go_q was 0) and are at rest.
          if (run_other && (expired_q || !run_own)) owner_q <= !owner_q;
          norm_go_q <= 1'b1; expired_q <= 1'b0; slice_q <= {QW{1'b0}};
        end
      end
    // H's grant ends with its registered runnable: no cycle with H and a
    // normal ring both granted after H runs dry.
    assign hold_h_o = !(go_hi_q && run_hi_q);
    assign hold_a_o = run_hi_q || !norm_go_q || owner_q;
    assign hold_b_o = run_hi_q || !norm_go_q || !owner_q;
    assign switch_o = expired;
`ifdef FORMAL
    reg f_owner_q = 1'b0, f_go_q = 1'b0, f_rest_q = 1'b0;
    always @(posedge clk_i) begin
      f_owner_q <= owner_q; f_go_q <= norm_go_q; f_rest_q <= both_rest;
    end
    always @(*) if (rst_ni && f_past) begin
      if (owner_q != f_owner_q) assert(!f_go_q && f_rest_q && norm_go_q);
      if (norm_go_q && !f_go_q) assert(f_rest_q);
    end
`endif
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, rest_h_i};
    /* verilator lint_on UNUSEDSIGNAL */
  end endgenerate

`ifdef FORMAL
  // Never two rings of the node granted at once.  H is granted only when
  // both normal rings were held and at rest in the cycle before, and a
  // normal ring never straight after the other, and the owner changes only
  // after a cycle with both normal rings held and at rest.
  reg f_hold_a_q, f_hold_b_q, f_hold_h_q, f_rest_a_q, f_rest_b_q;
  always @(posedge clk_i) begin
    f_past <= rst_ni;
    f_hold_a_q <= hold_a_o; f_hold_b_q <= hold_b_o; f_hold_h_q <= hold_h_o;
    f_rest_a_q <= rest_a_i; f_rest_b_q <= rest_b_i;
  end
  always @(*) if (rst_ni) begin
    // (without time slices H's grant outlives its runnable by a cycle, as it always did)
    if (TIME_SLICE != 0 || run_hi_q) assert({1'b0, !hold_a_o} + {1'b0, !hold_b_o} + {1'b0, !hold_h_o} <= 2'd1);
    if (TIME_SLICE == 0) assert(hold_b_o);
  end
  always @(*) if (rst_ni && f_past) begin
    if (!hold_h_o && f_hold_h_q)
      assert(f_hold_a_q && f_rest_a_q && (TIME_SLICE == 0 || (f_hold_b_q && f_rest_b_q)));
    // a hand-over between the normal rings
    if (!hold_a_o && !f_hold_b_q) assert(f_hold_a_q && f_rest_b_q);
    if (!hold_b_o && !f_hold_a_q) assert(f_hold_b_q && f_rest_a_q);
  end
`endif
endmodule
