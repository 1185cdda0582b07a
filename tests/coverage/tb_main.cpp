// main() of the Verilator builds of the RTL unit testbenches (tests/rtl/tb_*.v,
// verilated with --prefix Vtb --timing).  Passes (exit 0) only when the
// testbench reached $finish with no error; $fatal/$stop exit non-zero inside
// the Verilator runtime.  A bench that simply runs out of events has not
// proven anything, so that fails too.  With SGPU_COVERAGE_DIR set, the
// coverage counters go to <dir>/<program>.<pid>.dat (one file per run).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "Vtb.h"
#include "verilated.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

int main(int argc, char **argv) {
  // $display output must reach the log even when $fatal aborts the process.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
  ctx->commandArgs(argc, argv);
  const std::unique_ptr<Vtb> top{new Vtb{ctx.get(), "TOP"}};
  while (!ctx->gotFinish()) {
    top->eval();
    if (!top->eventsPending()) break;
    ctx->time(top->nextTimeSlot());
  }
  const bool ok = ctx->gotFinish() && !ctx->gotError();
  if (!ctx->gotFinish()) std::fprintf(stderr, "%s: FAIL: no events left before $finish\n", argv[0]);
  top->final();
#if VM_COVERAGE
  if (const char *dir = std::getenv("SGPU_COVERAGE_DIR")) {
    if (*dir) {
      std::string prog = argv[0];
      const size_t slash = prog.rfind('/');
      if (slash != std::string::npos) prog = prog.substr(slash + 1);
      mkdir(dir, 0777);  // may exist; Verilator aborts if the file cannot be opened
      const std::string path =
          std::string(dir) + "/" + prog + "." + std::to_string((long)getpid()) + ".dat";
      ctx->coveragep()->write(path.c_str());
    }
  }
#endif
  return ok ? 0 : 1;
}
