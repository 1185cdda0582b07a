# bench fragment: `make bench` measures the chip, its driver and its
# simulator and writes $(BUILD)/bench/report.md, results.json and PNG plots
# (tools/bench.sh, tools/bench_report.py).  Not part of `make test`, except
# the reduced run `make bench QUICK=1` that tests/bench/bench_quick.sh checks
# (schema and PNGs, never a duration).
#
# Model speed is measured side by side in one run: the RTL verilated with
# the build options sim/sim.mk used before the speed work (model-old, with
# the harness of that time, tests/bench/sim_old.cpp) and with the new ones
# (model-new, with sim/sgpu_sim.cpp plus tests/bench/sim-speed.patch when
# that is not applied yet).  Both are private to the bench: $(BUILD)/bench.

BENCH_DIR   := $(BUILD)/bench
BENCH_OUT   ?= $(BENCH_DIR)
BENCH_VROOT := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
BENCH_PARAMS := -GNODES=2 -GSOURCES=2 -GMEM_BYTES=8388608
BENCH_SIMDEF := -DSGPU_SIM_NODES=2 -DSGPU_SIM_SOURCES=2 -DSGPU_SIM_MEM_BYTES=8388608u

# The options of sim/sim.mk before the speed work, verbatim: FST tracing
# compiled in (also used when not tracing), verilated C++ at -O1.
BENCH_OLD_VFLAGS := --cc -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial unique \
                    --top-module sgpu_top $(BENCH_PARAMS) $(RTL_INC) -CFLAGS -g0 -CFLAGS -fPIC \
                    --trace-fst
BENCH_OLD_VMAKE  := MAKEOVERRIDES= OPT_FAST=-O1 OPT_SLOW=-O1 OPT_GLOBAL=-O1
BENCH_OLD_OBJS   := Vsgpu_top__ALL.o verilated.o verilated_fst_c.o verilated_threads.o
BENCH_OLD_CXX    := -DVM_TRACE=1

# The new options (the ones tests/bench/sim-speed.patch gives sim/sim.mk for
# the model used when not tracing).
BENCH_NEW_VFLAGS := --cc -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial unique \
                    --top-module sgpu_top $(BENCH_PARAMS) $(RTL_INC) -CFLAGS -g0 -CFLAGS -fPIC \
                    -O3
BENCH_NEW_VMAKE  := MAKEOVERRIDES= VM_PARALLEL_BUILDS=0 OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2
BENCH_NEW_OBJS   := Vsgpu_top__ALL.o verilated.o verilated_threads.o
BENCH_NEW_CXX    := -DVM_TRACE=0 -DSGPU_SIM_TRACE=0

BENCH_CXXFLAGS = -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -I$(GEN) -Isim \
                 -isystem $(BENCH_VROOT)/include -isystem $(BENCH_VROOT)/include/vltstd $(BENCH_SIMDEF)

# $(1) old|new.  Verilate into a private temporary folder, compile, move.
define BENCH_MODEL_RULES
$(BENCH_DIR)/model-$(1).stamp: $(RTL_SRCS) $(HW_VH) tests/bench/bench.mk
	+@set -e; t=$(BENCH_DIR)/model-$(1).tmp.$$$$$$$$; rm -rf $$$$t; mkdir -p $$$$t; \
	echo "VERILATE sgpu_top ($(1) options) -> $(BENCH_DIR)/model-$(1)"; \
	$(VERILATOR) $(BENCH_$(call BENCH_UP,$(1))_VFLAGS) --Mdir $$$$t --prefix Vsgpu_top $(RTL_SRCS); \
	$(MAKE) --no-print-directory -s -C $$$$t -f Vsgpu_top.mk $(BENCH_$(call BENCH_UP,$(1))_VMAKE) \
	  $(BENCH_$(call BENCH_UP,$(1))_OBJS); \
	rm -rf $(BENCH_DIR)/model-$(1); mv $$$$t $(BENCH_DIR)/model-$(1); touch $$@
endef
BENCH_UP = $(if $(filter old,$(1)),OLD,NEW)
$(eval $(call BENCH_MODEL_RULES,old))
$(eval $(call BENCH_MODEL_RULES,new))

# The harnesses.  Old: the frozen copy.  New: sim/sgpu_sim.cpp with the
# speed patch applied unless it already is (then the patch reverses cleanly).
$(BENCH_DIR)/sim_new.cpp: sim/sgpu_sim.cpp tests/bench/sim-speed.patch
	@mkdir -p $(dir $@)
	@set -e; t=$@.tmp.$$$$; \
	awk '/^diff --git/{on = ($$3 == "a/sim/sgpu_sim.cpp")} on' tests/bench/sim-speed.patch >$$t.diff; \
	cp sim/sgpu_sim.cpp $$t; \
	if patch -s -f --dry-run $$t <$$t.diff >/dev/null 2>&1; then \
	  patch -s -f $$t <$$t.diff; echo "PATCH sim/sgpu_sim.cpp + tests/bench/sim-speed.patch -> $@"; \
	elif patch -s -f -R --dry-run $$t <$$t.diff >/dev/null 2>&1; then \
	  echo "sim/sgpu_sim.cpp already has tests/bench/sim-speed.patch"; \
	else echo "bench: tests/bench/sim-speed.patch applies neither way to sim/sgpu_sim.cpp" >&2; rm -f $$t $$t.diff; exit 1; fi; \
	rm -f $$t.diff $$t.orig; mv $$t $@

$(BENCH_DIR)/sim_old.o: tests/bench/sim_old.cpp sim/sgpu_sim.h $(BENCH_DIR)/model-old.stamp
	$(CXX) $(BENCH_CXXFLAGS) $(BENCH_OLD_CXX) -I$(BENCH_DIR)/model-old -c -o $@ $<
$(BENCH_DIR)/sim_new.o: $(BENCH_DIR)/sim_new.cpp sim/sgpu_sim.h $(BENCH_DIR)/model-new.stamp
	$(CXX) $(BENCH_CXXFLAGS) $(BENCH_NEW_CXX) -I$(BENCH_DIR)/model-new -c -o $@ $<

$(BENCH_DIR)/libsim-%.a: $(BENCH_DIR)/sim_%.o $(BENCH_DIR)/model-%.stamp
	@rm -f $@ && ar rcs $@ $< $(addprefix $(BENCH_DIR)/model-$*/,$(BENCH_$(call BENCH_UP,$*)_OBJS))

# Model-speed harness (C, sgpu_sim.h only), linked against each model.
$(BENCH_DIR)/bench_model-%: tests/bench/bench_model.c sim/sgpu_sim.h $(HW_H) $(BENCH_DIR)/libsim-%.a
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -o $@ $< $(BENCH_DIR)/libsim-$*.a -lstdc++ -lz -lpthread -lm

.SECONDARY: $(BENCH_DIR)/libsim-old.a $(BENCH_DIR)/libsim-new.a $(BENCH_DIR)/sim_new.cpp

# Chip figures (cycles): the chip-test helpers on the new model.
$(BENCH_DIR)/chip_util.o: tests/chip/chip_util.c tests/chip/chip_util.h sim/sgpu_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -Itests/chip -c -o $@ $<
$(BENCH_DIR)/bench_chip: tests/bench/bench_chip.c $(BENCH_DIR)/chip_util.o $(BENCH_DIR)/libsim-new.a $(HW_H)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -Itests/chip -o $@ $< $(BENCH_DIR)/chip_util.o \
	  $(BENCH_DIR)/libsim-new.a -lstdc++ -lz -lpthread -lm

# Icarus Verilog on the same RTL (model-speed comparison).
$(BENCH_DIR)/tb_speed.vvp: tests/bench/tb_speed.v $(RTL_SRCS) $(HW_VH)
	@mkdir -p $(dir $@)
	$(IVERILOG) -g2005 -Wno-timescale -Wno-implicit-dimensions $(RTL_INC) -s tb_speed -o $@ $< $(RTL_SRCS)

# Host cost: sgpu_cmd_* builders (callgrind), on the installed-style libsgpu.a.
$(BENCH_DIR)/bench_cmd: tests/bench/bench_cmd.c $(HOST_LIB_A) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O2 -g -o $@ $< $(HOST_LIB_A) $(HOST_LDLIBS)

# The demo on each model: the same libsgpu objects, the old or the new sim.
$(BENCH_DIR)/sgpu-demo-%: host/examples/demo.c $(HOST_OBJS) $(BENCH_DIR)/libsim-%.a $(HOST_HDRS)
	$(CC) $(HOST_CFLAGS) -O2 -g -o $@ $< $(HOST_OBJS) $(BENCH_DIR)/libsim-$*.a $(HOST_LDLIBS)

BENCH_PROGS := $(BENCH_DIR)/bench_model-old $(BENCH_DIR)/bench_model-new $(BENCH_DIR)/bench_chip \
               $(BENCH_DIR)/bench_cmd $(BENCH_DIR)/sgpu-demo-old $(BENCH_DIR)/sgpu-demo-new \
               $(BENCH_DIR)/tb_speed.vvp $(BUILD)/tests/host/bench_submit

# `make bench [QUICK=1] [BENCH_OUT=DIR]`.
QUICK ?= 0
.PHONY: bench bench-progs
bench-progs: $(BENCH_PROGS)
bench: $(BENCH_PROGS)
	@bash tools/bench.sh $(BUILD) $(BENCH_OUT) $(QUICK)

# make test runs the reduced bench once and checks what it wrote (schema,
# PNGs), never how long it took.
tests/bench/bench_quick.sh: $(BENCH_PROGS)
TESTS += tests/bench/bench_quick.sh
