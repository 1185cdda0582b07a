# bench fragment: `make bench` measures the chip, its driver and its
# simulator and writes $(BUILD)/bench/report.md, results.json and PNG plots
# (tools/bench.sh, tools/bench_report.py).  Not part of `make test`, except
# the reduced run `make bench QUICK=1 BASE=` that tests/bench/bench_quick.sh
# checks (schema and PNGs, never a duration).
#
#   make bench [BASE=<commit>] [QUICK=1] [BENCH_OUT=DIR]
#
# Model speed is measured against a commit, side by side in one run: BASE
# (default HEAD~1, the commit before the last; BASE=HEAD compares the
# working tree's uncommitted changes with the last commit; BASE= measures
# the current model alone, and is the default with QUICK=1) is checked out
# as a git worktree, build/bench/base-<short sha> (tests/bench/bench_base.sh:
# reused while it stays at that commit), where that commit's own makefiles
# build its model and host library.  The same harness, tests/bench/
# bench_model.c (sgpu_sim.h only), is linked against each side's model, and
# each side's own host/examples/demo.c against its own libsgpu.a (with
# tests/bench/bench_demo_wrap.c, which reports the cycles the chip ran); the
# two sides run alternately on the same workloads: cycles per second, and
# host instructions per simulated cycle under callgrind (idle and demo).

BENCH_DIR   := $(BUILD)/bench
BENCH_OUT   ?= $(BENCH_DIR)
QUICK       ?= 0
BASE        ?= $(if $(filter 1,$(QUICK)),,HEAD~1)

# The model-speed programs of one side.  $(1) folder for the programs,
# $(2) root of the side's tree, $(3) its generated headers, $(4) its
# libsgpu_sim.a, $(5) its libsgpu.a (host library with the model),
# $(6) further prerequisites.
define BENCH_SIDE_RULES
$(1)/bench_model: tests/bench/bench_model.c $(4) $(6)
	@mkdir -p $$(dir $$@)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(3) -I$(2)/sim -o $$@ $$< $(4) $(SIM_LDLIBS)

$(1)/bench_demo: $(2)/host/examples/demo.c tests/bench/bench_demo_wrap.c $(5) $(6)
	@mkdir -p $$(dir $$@)
	$(CC) $(WARN) $(CSTD) -D_DEFAULT_SOURCE -O2 -g -I$(3) -I$(2)/host/include -I$(2)/sim -o $$@ \
	  $(2)/host/examples/demo.c tests/bench/bench_demo_wrap.c \
	  -Wl,--wrap=sgpu_sim_create,--wrap=sgpu_sim_destroy $(5) $(HOST_LDLIBS)
endef

# The current side: this tree as it is, with what make builds here.
$(eval $(call BENCH_SIDE_RULES,$(BENCH_DIR),.,$(GEN),$(SIM_LIB),$(HOST_LIB_A),sim/sgpu_sim.h $(HOST_HDRS)))

# The base side, only when `make bench` (or bench-progs, or bench-base-progs:
# the base's alone) is asked for with a BASE: its worktree is made (or
# reused) and its make run on every run (nothing to do once built), then its
# two programs linked.  The base needs the three targets bench_base.sh names
# and an sim/sgpu_sim.h with what bench_model.c calls.
BENCH_BASE_PROGS :=
ifneq ($(strip $(BASE)),)
ifneq ($(filter bench bench-progs bench-base-progs,$(MAKECMDGOALS)),)
BENCH_BASE_SHA := $(shell git rev-parse --verify --quiet '$(BASE)^{commit}' 2>/dev/null)
ifeq ($(BENCH_BASE_SHA),)
$(error make bench: BASE=$(BASE) names no commit of this repository (BASE= measures without a base))
endif
BENCH_BASE_TREE  := $(BENCH_DIR)/base-$(shell git rev-parse --short $(BENCH_BASE_SHA))
BENCH_BASE_BIN   := $(BENCH_BASE_TREE).bin
BENCH_BASE_BUILT := $(BENCH_BASE_TREE)/host/examples/demo.c $(BENCH_BASE_TREE)/build/gen/sgpu_hw.h \
                    $(BENCH_BASE_TREE)/build/sim/libsgpu_sim.a $(BENCH_BASE_TREE)/build/lib/libsgpu.a
.PHONY: bench-base
bench-base:
	@bash tests/bench/bench_base.sh $(BENCH_BASE_SHA) $(BENCH_BASE_TREE) $(JOBS)
$(BENCH_BASE_BUILT): bench-base ;
$(eval $(call BENCH_SIDE_RULES,$(BENCH_BASE_BIN),$(BENCH_BASE_TREE),$(BENCH_BASE_TREE)/build/gen,$(BENCH_BASE_TREE)/build/sim/libsgpu_sim.a,$(BENCH_BASE_TREE)/build/lib/libsgpu.a,$(BENCH_BASE_TREE)/build/gen/sgpu_hw.h))
BENCH_BASE_PROGS := $(BENCH_BASE_BIN)/bench_model $(BENCH_BASE_BIN)/bench_demo
endif
endif

# Chip figures (cycles): the chip-test helpers on the model as built now.
$(BENCH_DIR)/chip_util.o: tests/chip/chip_util.c tests/chip/chip_util.h sim/sgpu_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -Itests/chip -c -o $@ $<
$(BENCH_DIR)/bench_chip: tests/bench/bench_chip.c $(BENCH_DIR)/chip_util.o $(SIM_LIB) $(HW_H)
	$(CC) $(WARN) $(CSTD) -O2 -g -I$(GEN) -Isim -Itests/chip -o $@ $< $(BENCH_DIR)/chip_util.o \
	  $(SIM_LIB) $(SIM_LDLIBS)

# Icarus Verilog on the same RTL (model-speed comparison).
$(BENCH_DIR)/tb_speed.vvp: tests/bench/tb_speed.v $(RTL_SRCS) $(HW_VH)
	@mkdir -p $(dir $@)
	$(IVERILOG) -g2005 -Wno-timescale -Wno-implicit-dimensions $(RTL_INC) -s tb_speed -o $@ $< $(RTL_SRCS)

# Host cost: sgpu_cmd_* builders (callgrind), on the installed-style libsgpu.a.
$(BENCH_DIR)/bench_cmd: tests/bench/bench_cmd.c $(HOST_LIB_A) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O2 -g -o $@ $< $(HOST_LIB_A) $(HOST_LDLIBS)

BENCH_PROGS := $(BENCH_DIR)/bench_model $(BENCH_DIR)/bench_demo $(BENCH_DIR)/bench_chip \
               $(BENCH_DIR)/bench_cmd $(BENCH_DIR)/tb_speed.vvp $(BUILD)/tests/host/bench_submit

.PHONY: bench bench-progs bench-base-progs
bench-progs: $(BENCH_PROGS) $(BENCH_BASE_PROGS)
bench-base-progs: $(BENCH_BASE_PROGS)
bench: $(BENCH_PROGS) $(BENCH_BASE_PROGS)
	@BENCH_BASE='$(BASE)' BENCH_BASE_SHA='$(BENCH_BASE_SHA)' BENCH_BASE_BIN='$(BENCH_BASE_BIN)' \
	  bash tools/bench.sh $(BUILD) $(BENCH_OUT) $(QUICK)

# make test runs the reduced bench once, without a base, and checks what it
# wrote (schema, PNGs), never how long it took.
tests/bench/bench_quick.sh: $(BENCH_PROGS)
TESTS += tests/bench/bench_quick.sh
