# bench fragment: `make bench` measures the chip, its driver and its
# simulator and writes $(BUILD)/bench/report.md, results.json and PNG plots
# (tools/bench.sh, tools/bench_report.py).  Not part of `make test`, except
# the reduced run `make bench QUICK=1` that tests/bench/bench_quick.sh checks
# (schema and PNGs, never a duration).
#
# Model speed is measured side by side in one run: the RTL verilated with
# the build options sim/sim.mk used before the speed work (model-old, private
# to the bench in $(BUILD)/bench, with the harness of that time,
# tests/bench/sim_old.cpp, frozen) and the model as built now, $(SIM_LIB)
# (sim/sgpu_sim.cpp and the options of sim/sim.mk: the "new options").

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

BENCH_CXXFLAGS = -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -I$(GEN) -Isim \
                 -isystem $(BENCH_VROOT)/include -isystem $(BENCH_VROOT)/include/vltstd $(BENCH_SIMDEF)

# Verilate into a private temporary folder, compile, move.
$(BENCH_DIR)/model-old.stamp: $(RTL_SRCS) $(HW_VH) tests/bench/bench.mk
	+@set -e; t=$(BENCH_DIR)/model-old.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_top (old options) -> $(BENCH_DIR)/model-old"; \
	$(VERILATOR) $(BENCH_OLD_VFLAGS) --Mdir $$t --prefix Vsgpu_top $(RTL_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(BENCH_OLD_VMAKE) $(BENCH_OLD_OBJS); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(BENCH_DIR)/model-old; mv $$t $(BENCH_DIR)/model-old; touch $@

$(BENCH_DIR)/sim_old.o: tests/bench/sim_old.cpp sim/sgpu_sim.h $(BENCH_DIR)/model-old.stamp
	$(CXX) $(BENCH_CXXFLAGS) $(BENCH_OLD_CXX) -I$(BENCH_DIR)/model-old -c -o $@ $<

$(BENCH_DIR)/libsim-old.a: $(BENCH_DIR)/sim_old.o $(BENCH_DIR)/model-old.stamp
	@rm -f $@ && ar rcs $@ $< $(addprefix $(BENCH_DIR)/model-old/,$(BENCH_OLD_OBJS))

# The model library each "old"/"new" program links.
BENCH_SIMLIB_old := $(BENCH_DIR)/libsim-old.a
BENCH_SIMLIB_new := $(SIM_LIB)

# Model-speed harness (C, sgpu_sim.h only), linked against each model; and
# the demo on each model (the same libsgpu objects, the old or the new sim).
# $(1) old|new.
define BENCH_PROG_RULES
$(BENCH_DIR)/bench_model-$(1): tests/bench/bench_model.c sim/sgpu_sim.h $(HW_H) $(BENCH_SIMLIB_$(1))
	@mkdir -p $$(dir $$@)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -o $$@ $$< $(BENCH_SIMLIB_$(1)) -lstdc++ -lz -lpthread -lm

$(BENCH_DIR)/sgpu-demo-$(1): host/examples/demo.c $(HOST_OBJS) $(BENCH_SIMLIB_$(1)) $(HOST_HDRS)
	@mkdir -p $$(dir $$@)
	$(CC) $(HOST_CFLAGS) -O2 -g -o $$@ $$< $(HOST_OBJS) $(BENCH_SIMLIB_$(1)) $(HOST_LDLIBS)
endef

.SECONDARY: $(BENCH_DIR)/libsim-old.a

# Chip figures (cycles): the chip-test helpers on the model as built now.
$(BENCH_DIR)/chip_util.o: tests/chip/chip_util.c tests/chip/chip_util.h sim/sgpu_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -Itests/chip -c -o $@ $<
$(BENCH_DIR)/bench_chip: tests/bench/bench_chip.c $(BENCH_DIR)/chip_util.o $(SIM_LIB) $(HW_H)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -Itests/chip -o $@ $< $(BENCH_DIR)/chip_util.o \
	  $(SIM_LIB) -lstdc++ -lz -lpthread -lm

# Icarus Verilog on the same RTL (model-speed comparison).
$(BENCH_DIR)/tb_speed.vvp: tests/bench/tb_speed.v $(RTL_SRCS) $(HW_VH)
	@mkdir -p $(dir $@)
	$(IVERILOG) -g2005 -Wno-timescale -Wno-implicit-dimensions $(RTL_INC) -s tb_speed -o $@ $< $(RTL_SRCS)

# Host cost: sgpu_cmd_* builders (callgrind), on the installed-style libsgpu.a.
$(BENCH_DIR)/bench_cmd: tests/bench/bench_cmd.c $(HOST_LIB_A) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O2 -g -o $@ $< $(HOST_LIB_A) $(HOST_LDLIBS)

# The demo and model-speed programs (above), once host/host.mk has set
# HOST_OBJS and friends.
$(eval $(call BENCH_PROG_RULES,old))
$(eval $(call BENCH_PROG_RULES,new))

BENCH_PROGS := $(BENCH_DIR)/bench_model-old $(BENCH_DIR)/bench_model-new $(BENCH_DIR)/bench_chip \
               $(BENCH_DIR)/bench_cmd $(BENCH_DIR)/sgpu-demo-old $(BENCH_DIR)/sgpu-demo-new \
               $(BENCH_DIR)/tb_speed.vvp $(BUILD)/tests/host/bench_submit

# `make bench [QUICK=1] [BENCH_OUT=DIR]`.
QUICK ?= 0
.PHONY: bench bench-progs
bench-progs: $(BENCH_PROGS)
# What the two model builds are, for the report.
BENCH_OLD_DESC := sgpu_top driven directly (2 evaluations per cycle), --trace-fst compiled in, C++ -O1
BENCH_NEW_DESC := sim/sgpu_sim_top.v (inputs registered: 1 evaluation per cycle), no tracing code, \
                  Verilator $(filter -O%,$(SIM_FAST_VFLAGS)), C++ $(SIM_FAST_OPT)$(if $(filter 1,$(SIM_PGO)), profile-guided)
bench: $(BENCH_PROGS)
	@BENCH_OLD_DESC='$(BENCH_OLD_DESC)' BENCH_NEW_DESC='$(strip $(BENCH_NEW_DESC))' \
	  bash tools/bench.sh $(BUILD) $(BENCH_OUT) $(QUICK)

# make test runs the reduced bench once and checks what it wrote (schema,
# PNGs), never how long it took.
tests/bench/bench_quick.sh: $(BENCH_PROGS)
TESTS += tests/bench/bench_quick.sh
