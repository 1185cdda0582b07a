// tb_random(0): the next random number of the including module's `integer
// seed` (xorshift32 state, output scrambled by an odd multiplier), signed
// like $random.  The testbenches use it instead of $random(seed): Verilator
// 5.006's seeded $random collapses to a near-constant sequence within a few
// calls, and both simulators must see the same varied stimulus.  The argument
// is unused (a Verilog-2005 function needs an input).
function integer tb_random;
  input integer unused;
  reg [31:0] s;
  begin
    s = seed;
    if (s == 32'd0) s = 32'h9E3779B9;
    s = s ^ (s << 13);
    s = s ^ (s >> 17);
    s = s ^ (s << 5);
    seed = s;
    tb_random = s * 32'h2545F491;
  end
endfunction
