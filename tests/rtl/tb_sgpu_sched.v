// sgpu_sched: one node's ring scheduler against three model rings.  A model
// ring has some cycles of work; it works while not held and, once held,
// reaches rest (its next boundary) after a random number of cycles.  Every
// cycle: at most one ring is granted and at most one ring is away from rest
// (the rings never write at the same time).  Checked: with QUANTUM Q and
// both normal rings loaded, each stint lasts exactly Q cycles and they
// alternate; QUANTUM 0 runs the owner dry first; a normal ring alone runs
// unheld (its work takes exactly its cycles); the high ring preempts both
// normal rings; random loads finish (no starvation).  The TIME_SLICE = 0
// instance must match the chip's pair scheduling without time slices.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
module tb_sgpu_sched;
  reg clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  localparam A = 0, B = 1, H = 2;
  integer work [0:2];        // cycles of work left per ring
  reg     busy [0:2];        // away from rest (mid-packet)
  integer settle [0:2];      // cycles to the next boundary once held
  reg [23:0] qa = 0, qb = 0;
  wire run_a = work[A] > 0, run_b = work[B] > 0, run_h = work[H] > 0;
  wire rest_a = !busy[A], rest_b = !busy[B], rest_h = !busy[H];
  wire hold_a, hold_b, hold_h, sw;
  wire hold0_a, hold0_b, hold0_h, sw0;

  sgpu_sched #(.TIME_SLICE(1)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .run_a_i(run_a), .rest_a_i(rest_a), .run_b_i(run_b), .rest_b_i(rest_b),
    .run_h_i(run_h), .rest_h_i(rest_h), .quantum_a_i(qa), .quantum_b_i(qb),
    .hold_a_o(hold_a), .hold_b_o(hold_b), .hold_h_o(hold_h), .switch_o(sw));
  sgpu_sched #(.TIME_SLICE(0)) dut0 (
    .clk_i(clk), .rst_ni(rst_n),
    .run_a_i(run_a), .rest_a_i(rest_a), .run_b_i(run_b), .rest_b_i(rest_b),
    .run_h_i(run_h), .rest_h_i(rest_h), .quantum_a_i(qa), .quantum_b_i(qb),
    .hold_a_o(hold0_a), .hold_b_o(hold0_b), .hold_h_o(hold0_h), .switch_o(sw0));

  // the chip's scheduling without time slices, as it was written in sgpu_top
  reg ref_run_q = 1'b0, ref_go_q = 1'b0;
  always @(posedge clk or negedge rst_n)
    if (!rst_n) begin ref_run_q <= 1'b0; ref_go_q <= 1'b0; end
    else begin ref_run_q <= run_h; ref_go_q <= ref_run_q & rest_a; end

  integer seed, seed0, cyc, r, max_settle;
  integer stint, stints;
  reg     prev_hold_a, prev_hold_b;
  reg     hold_v [0:2];
  `include "tb_random.vh"

  // one cycle of the model rings, in the middle of the clock cycle (the
  // holds are stable then, and the scheduler samples the new state at the
  // next edge: no race between the two)
  always @(negedge clk) if (rst_n) begin
    hold_v[A] = hold_a; hold_v[B] = hold_b; hold_v[H] = hold_h;
    for (r = 0; r < 3; r = r + 1) begin
      if (!hold_v[r] && work[r] > 0) begin
        work[r] = work[r] - 1; busy[r] = (work[r] > 0);   // dry: idle at a boundary
        settle[r] = (max_settle > 0) ? $unsigned(tb_random(0)) % (max_settle + 1) : 0;
      end else if (!hold_v[r] || settle[r] == 0 || work[r] == 0) busy[r] = 1'b0;   // dry: at a boundary
      else settle[r] = settle[r] - 1;
    end
    cyc = cyc + 1;
  end

  // the invariants, at every edge
  always @(posedge clk) if (rst_n) begin
    if ((!hold_a) + (!hold_b) + (!hold_h) > 1) $fatal(1, "cycle %0d: two rings granted", cyc);
    if (busy[A] + busy[B] + busy[H] > 1) $fatal(1, "cycle %0d: two rings away from rest: busy %b%b%b work %0d %0d %0d hold %b%b%b", cyc, busy[A], busy[B], busy[H], work[A], work[B], work[H], hold_a, hold_b, hold_h);
    if (hold0_b !== 1'b1 || sw0 !== 1'b0 || hold0_a !== ref_run_q || hold0_h !== !ref_go_q)
      $fatal(1, "cycle %0d: TIME_SLICE=0 differs from the pair scheduling", cyc);
  end

  task run_until_idle(input integer limit);
    integer t;
    begin
      t = 0;
      while ((work[A] > 0 || work[B] > 0 || work[H] > 0 || busy[A] || busy[B] || busy[H]) && t < limit) begin
        @(posedge clk); t = t + 1;
      end
      if (t >= limit) $fatal(1, "work not done in %0d cycles: %0d %0d %0d", limit, work[A], work[B], work[H]);
      repeat (4) @(posedge clk);
    end
  endtask

  integer k, q, start, t;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 7;
    seed0 = seed;
    cyc = 0; max_settle = 0;
    for (r = 0; r < 3; r = r + 1) begin work[r] = 0; busy[r] = 1'b0; settle[r] = 0; end
    repeat (2) @(posedge clk);
    #1 rst_n = 1'b1;
    repeat (3) @(posedge clk);

    // ---- a normal ring alone runs unheld: its work takes exactly its cycles
    @(negedge clk); work[A] = 500; start = cyc;
    while (work[A] > 0) @(posedge clk);
    if (cyc - start != 500) $fatal(1, "A alone: %0d cycles for 500", cyc - start);
    repeat (4) @(posedge clk);
    @(negedge clk); work[B] = 300; start = cyc;
    while (work[B] > 0) @(posedge clk);
    if (cyc - start > 300 + 4) $fatal(1, "B alone: %0d cycles for 300", cyc - start);
    repeat (4) @(posedge clk);

    // ---- QUANTUM Q, both loaded, no settle time: stints of exactly Q, alternating
    for (k = 0; k < 4; k = k + 1) begin
      q = 20 + $unsigned(tb_random(0)) % 200;
      @(negedge clk); qa = q; qb = q; work[A] = 10 * q; work[B] = 10 * q;
      stints = 0; stint = 0;
      prev_hold_a = hold_a; prev_hold_b = hold_b;
      while (work[A] > 0 && work[B] > 0) begin
        @(negedge clk);
        if (!hold_a || !hold_b) stint = stint + 1;
        if ((hold_a && !prev_hold_a) || (hold_b && !prev_hold_b)) begin
          // a stint ended while both still had work: it lasted QUANTUM (the
          // first began before the loop)
          if (stints > 0 && stint != q && work[A] > 0 && work[B] > 0)
            $fatal(1, "quantum %0d: a stint of %0d cycles", q, stint);
          stints = stints + 1; stint = 0;
        end
        prev_hold_a = hold_a; prev_hold_b = hold_b;
      end
      if (stints < 10) $fatal(1, "quantum %0d: %0d stints", q, stints);
      run_until_idle(100000);
    end

    // ---- QUANTUM 0: the owner runs dry before the other starts
    @(negedge clk); qa = 0; qb = 0; work[A] = 3000;
    repeat (50) @(negedge clk);
    work[B] = 100;
    while (work[A] > 0) begin
      @(negedge clk);
      if (busy[B] || work[B] != 100) $fatal(1, "QUANTUM 0: B ran while A had work");
    end
    run_until_idle(10000);

    // ---- the high ring preempts both normal rings, with settle times
    max_settle = 20;
    @(negedge clk); qa = 100; qb = 100; work[A] = 5000; work[B] = 5000;
    repeat (777) @(negedge clk);
    work[H] = 200; t = 0;
    while (hold_h) begin @(negedge clk); t = t + 1; end
    if (t > max_settle + 4) $fatal(1, "high ring waited %0d cycles", t);
    while (work[H] > 0) begin
      @(negedge clk);
      if (work[H] > 0 && (!hold_a || !hold_b)) $fatal(1, "a normal ring granted while the high ring runs: %0d %b %b %b %0d", cyc, hold_a, hold_b, hold_h, work[H]);
    end
    run_until_idle(100000);

    // ---- random loads: the invariants, and everything finishes
    for (k = 0; k < 300; k = k + 1) begin
      @(negedge clk);
      max_settle = $unsigned(tb_random(0)) % 30;
      case ($unsigned(tb_random(0)) % 4)
        0: q = 0; 1: q = 1 + $unsigned(tb_random(0)) % 8; 2: q = 50 + $unsigned(tb_random(0)) % 450;
        default: q = 100000;
      endcase
      qa = q; qb = ($unsigned(tb_random(0)) % 2) ? q : $unsigned(tb_random(0)) % 300;
      for (r = 0; r < 3; r = r + 1)
        if ($unsigned(tb_random(0)) % 3 == 0) work[r] = work[r] + $unsigned(tb_random(0)) % 400;
      repeat ($unsigned(tb_random(0)) % 300) @(negedge clk);
    end
    run_until_idle(2000000);

    $display("PASS tb_sgpu_sched (seed %0d, %0d cycles)", seed0, cyc);
    $finish;
  end
endmodule
