# RTL sources: every rtl/<subsystem>/*.v is part of the chip (tools/rtl_srcs.sh
# lists them); board tops live in rtl/boards/.
RTL_SRCS   := $(shell bash tools/rtl_srcs.sh)
RTL_TOP    := sgpu_top
RTL_INC    := -I$(GEN) -Irtl

# Each tests/rtl/tb_<module>.v is one module testbench, compiled with Icarus
# against all RTL sources; it passes by finishing, fails with $fatal.
RTL_TBS    := $(sort $(wildcard tests/rtl/tb_*.v))
RTL_TB_BINS := $(patsubst tests/rtl/%.v,$(BUILD)/tests/rtl/%,$(RTL_TBS))
TESTS += $(RTL_TB_BINS)

$(BUILD)/tests/rtl/%: tests/rtl/%.v $(RTL_SRCS) $(HW_VH)
	@mkdir -p $(dir $@)
	$(IVERILOG) -g2005 -Wall -Wno-timescale -Wno-implicit-dimensions $(RTL_INC) -Itests/rtl -s $* -o $@ $< $(RTL_SRCS)

# The same testbenches under Verilator (--timing), each its own TESTS entry
# <tb>-verilator, so a bench failing under either simulator fails the suite.
# They are built with line and toggle coverage and, when SGPU_COVERAGE_DIR is
# set, write it there for tests/coverage.  C++ at -O1, no tracing.  The
# Verilator runtime is compiled once, from a stub verilated with the same
# options (the delay makes it a --timing model like the benches).
# Two Verilator 5.006 optimisations are wrong for timed testbench code and
# are turned off: -fno-life (verilator#6593: assignments across timing
# controls are dropped, so a counter incremented in a loop with @(...) reads
# back its value from before the loop) and -fno-localize (a variable written
# by an always block and read by an initial block across a wait becomes a
# local of each, so the initial block never sees the write).
RTL_VL_DIR    := $(BUILD)/tests/rtl-vl
RTL_VL_BINS   := $(patsubst tests/rtl/%.v,$(RTL_VL_DIR)/%-verilator,$(RTL_TBS))
RTL_VL_MAIN   := tests/coverage/tb_main.cpp
RTL_VL_FLAGS  := --cc --exe --timing -fno-life -fno-localize -Wno-fatal -Wno-lint -Wno-style \
                 --coverage-line --coverage-toggle --prefix Vtb -CFLAGS -g0
RTL_VL_VMAKE  := MAKEOVERRIDES= OPT_FAST=-O1 OPT_SLOW=-O1 OPT_GLOBAL=-O1
RTL_VL_RT     := verilated.o verilated_cov.o verilated_timing.o verilated_threads.o
RTL_VL_LIBS   := -pthread -latomic
TESTS += $(RTL_VL_BINS)

# Each build happens in a private folder that is moved into place at the end:
# a concurrent make in the same tree must not see (or delete) a half-built one.
$(RTL_VL_DIR)/rt.stamp: $(RTL_VL_MAIN) rtl/rtl.mk
	+@set -e; d=$(RTL_VL_DIR)/rt; t=$$d.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE runtime of the testbenches -> $$d"; \
	echo 'module tb; initial #1 $$finish; endmodule' >$$t/tb.v; \
	$(VERILATOR) $(RTL_VL_FLAGS) --top-module tb --Mdir $$t $$t/tb.v $(abspath $(RTL_VL_MAIN)); \
	$(MAKE) --no-print-directory -s -C $$t -f Vtb.mk $(RTL_VL_VMAKE) $(RTL_VL_RT); \
	rm -rf $$d; mv $$t $$d; touch $@

$(RTL_VL_DIR)/%-verilator: tests/rtl/%.v $(RTL_SRCS) $(HW_VH) $(wildcard tests/rtl/*.vh) \
    $(RTL_VL_MAIN) $(RTL_VL_DIR)/rt.stamp
	+@set -e; t=$(RTL_VL_DIR)/$*.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE $* -> $@"; \
	$(VERILATOR) $(RTL_VL_FLAGS) $(RTL_INC) -Itests/rtl --top-module $* --Mdir $$t \
	  $< $(RTL_SRCS) $(abspath $(RTL_VL_MAIN)); \
	$(MAKE) --no-print-directory -s -C $$t -f Vtb.mk $(RTL_VL_VMAKE) Vtb__ALL.a tb_main.o; \
	$(CXX) -o $@.tmp.$$$$ $$t/tb_main.o $$t/Vtb__ALL.a $(addprefix $(RTL_VL_DIR)/rt/,$(RTL_VL_RT)) \
	  $(RTL_VL_LIBS); \
	rm -rf $$t; mv $@.tmp.$$$$ $@

.PHONY: rtl-verilator
rtl-verilator: $(RTL_VL_BINS)
