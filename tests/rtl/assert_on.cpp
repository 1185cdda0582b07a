// The driver of tests/rtl/assert_on.v: out of reset, 16 cycles.  With the
// assertion build's flags the model aborts in cycle 5 ("Assertion failed");
// reaching the end means assertions are off: exit 1.
#include "Vassert_on.h"
#include "verilated.h"
#include <cstdio>

int main(int argc, char **argv) {
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  Vassert_on m{&ctx};
  m.clk_i = 0;
  m.rst_ni = 1;
  m.eval();
  for (int c = 0; c < 16; c++) {
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
    m.eval();
    std::printf("cycle %d\n", c);
  }
  m.final();
  std::printf("assert_on: 16 cycles and no assertion fired: assertions are off\n");
  return 1;
}
