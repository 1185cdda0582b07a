# sim fragment: the Verilator model of the whole chip (libsgpu_sim.a), the
# sgpu-sim program and the chip-level tests (tests/chip/test_*.c).
#
# The RTL is verilated three times (sim/sgpu_sim.cpp explains how each is
# driven):
#   $(SIM_DIR)/fast  prefix Vsgpu_top: the model used unless a trace is asked
#                    for.  sgpu_top inside sim/sgpu_sim_top.v (its inputs
#                    registered, loaded one cycle ahead: one evaluation of
#                    the chip per cycle), no tracing code, Verilator -O3
#                    (every module inlined), C++ at -O2, profile-guided
#                    (SIM_PGO below).
#   $(SIM_DIR)/fst   prefix Vsgpu_fst: sgpu_top with FST tracing, and
#   $(SIM_DIR)/vcd   prefix Vsgpu_vcd: with VCD tracing (Verilator builds one
#                    trace format per model); C++ at -O1, used only to trace.
# No sanitizers.  `make bench BASE=<commit>` measures this build beside that
# commit's, built in a git worktree (tests/bench/bench.mk): see docs/figures.md.

SIM_DIR      := $(BUILD)/sim
SIM_LIB      := $(SIM_DIR)/libsgpu_sim.a
SIM_LDLIBS   := -lstdc++ -lz -lpthread -lm
SIM_BIN      := $(BUILD)/bin/sgpu-sim
# Every object in SIM_LIB is position-independent (libsgpu.so embeds it).
SIM_PIC      := 1

SIM_NODES    := 2
SIM_SOURCES  := 2
SIM_MEM      := 8388608
SIM_PARAMS   := -GNODES=$(SIM_NODES) -GSOURCES=$(SIM_SOURCES) -GMEM_BYTES=$(SIM_MEM)
SIM_VROOT    := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
# --output-split large: one __ALL.cpp per model (the rules link Vsgpu_*__ALL.o),
# however large the chip gets (four command processors split it otherwise).
SIM_VCOMMON  := --cc -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial unique --output-split 1000000 \
                $(SIM_PARAMS) $(RTL_INC) -CFLAGS -g0 -CFLAGS -fPIC
SIM_VFLAGS   := $(SIM_VCOMMON) --top-module sgpu_top
SIM_VMAKE    := MAKEOVERRIDES= OPT_FAST=-O1 OPT_SLOW=-O1 OPT_GLOBAL=-O1
# The fast model.  Measured on the 2-core development machine (docs/figures.md):
# verilating and compiling it takes ~30 s of CPU (the -O1 FST model ~25 s),
# the profile-guided build below ~30 s more.
SIM_TOP_V       := sim/sgpu_sim_top.v
# The MMUs' walk state and acceptances readable by the harness (its MMU
# counters, sgpu_sim_mmu_stats in sim/sgpu_sim.h): the fast model of the
# plain library only (sgpu_sim.o there is built with SGPU_SIM_MMU_STATS=1).
SIM_MMU_VLT     := sim/sgpu_sim_mmu.vlt
# SGPU_SIM_GATE: each command processor on a clock of its own, which the
# harness raises only when the ring can change (sgpu_cp.v's sim_awake_o,
# sgpu_sim.cpp): an idle ring's clocked code is skipped (docs/figures.md).
SIM_FAST_VFLAGS := $(SIM_VCOMMON) -O3 --top-module sgpu_sim_top +define+SGPU_SIM_GATE
SIM_FAST_VMAKE  := MAKEOVERRIDES= OPT_SLOW=-O1 OPT_GLOBAL=-O2
SIM_FAST_OPT    := -O2
# Profile-guided: the model's code is compiled with profiling counters
# (-fprofile-generate), sim/sgpu_sim_train.c runs it (scanout, FILL/COPY,
# INDIRECT, flips, waits, host traffic: ~2.9 M cycles, ~3 s), and it is
# compiled again with the counts, so the code a cycle runs is laid out
# together and what it rarely runs (reset, faults, rare states) moves away
# (the model's hot code no longer overflows the 32 KiB instruction cache).
# Deterministic (the same run, the same counts).  Code the run never reaches
# stays optimised as usual (-fprofile-partial-training).  GCC only (its
# options); SIM_PGO=0 builds without it.
SIM_PGO         ?= $(if $(shell $(CXX) --version 2>/dev/null | grep -qi 'free software foundation' && echo y),1,0)
SIM_PGO_GEN      = -fprofile-generate=$(1) -fprofile-update=single
SIM_PGO_USE      = -fprofile-use=$(1) -fprofile-partial-training -Wno-missing-profile
SIM_TRAIN_SRC   := sim/sgpu_sim_train.c
SIM_CXXFLAGS := -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -I$(GEN) -Isim \
                -I$(SIM_DIR)/fast -I$(SIM_DIR)/fst -I$(SIM_DIR)/vcd -isystem $(SIM_VROOT)/include \
                -isystem $(SIM_VROOT)/include/vltstd -DVM_TRACE=1 \
                -DSGPU_SIM_NODES=$(SIM_NODES) -DSGPU_SIM_SOURCES=$(SIM_SOURCES) \
                -DSGPU_SIM_MEM_BYTES=$(SIM_MEM)u

# The fast model's objects: Verilator -O3 splits the code into several files,
# compiled separately into Vsgpu_top__ALL.a, whose members the stamp rule
# unpacks into fast/objs/ (an archive inside an archive is not searched by
# the linker).
SIM_FAST_OBJS = $(wildcard $(SIM_DIR)/fast/objs/*.o) $(SIM_DIR)/fast/verilated.o \
                $(SIM_DIR)/fast/verilated_threads.o
SIM_FST_OBJS := $(SIM_DIR)/fst/Vsgpu_fst__ALL.o $(SIM_DIR)/fst/verilated_fst_c.o
SIM_VCD_OBJS := $(SIM_DIR)/vcd/Vsgpu_vcd__ALL.o $(SIM_DIR)/vcd/verilated_vcd_c.o

# One stamp per variant: verilate into a fresh private directory (stale
# objects of renamed classes must not end up in the library; a concurrent
# make in the same tree must not see a half-built one), compile, then move
# it into place.  Under `make -n` these recipes still run (they call
# $(MAKE)) but the sub-make compiles nothing: SIM_STAMP_CHECK refuses to
# stamp a folder without objects (stamped empty folders broke later builds).
SIM_STAMP_CHECK = ls $(1)/*.o >/dev/null 2>&1 || { echo "$(1): nothing compiled (make -n?)" >&2; \
                  rm -rf $(1); exit 1; }

$(SIM_DIR)/fast.stamp: $(RTL_SRCS) $(SIM_TOP_V) $(SIM_MMU_VLT) $(HW_VH) $(HW_H) sim/sim.mk $(SIM_TRAIN_SRC) sim/sgpu_sim.cpp \
                       sim/sgpu_sim.h
	+@set -e; t=$(SIM_DIR)/fast.tmp.$$$$; rm -rf $$t; mkdir -p $$t/objs $$t/pgo; T=$$(cd $$t && pwd); \
	echo "VERILATE sgpu_sim_top (fast, no tracing) -> $(SIM_DIR)/fast"; \
	$(VERILATOR) $(SIM_FAST_VFLAGS) --Mdir $$t --prefix Vsgpu_top $(SIM_MMU_VLT) $(RTL_SRCS) $(SIM_TOP_V); \
	if [ "$(SIM_PGO)" = 1 ]; then \
	  echo "PGO sgpu_sim_top: instrumented build, training run ($(SIM_TRAIN_SRC))"; \
	  $(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(SIM_FAST_VMAKE) \
	    OPT_FAST="$(SIM_FAST_OPT) $(call SIM_PGO_GEN,$$T/pgo)" Vsgpu_top__ALL.a verilated.o verilated_threads.o; \
	  $(call SIM_STAMP_CHECK,$$t); \
	  $(CXX) -I$$t $(filter-out -g -Werror -DVM_TRACE=1,$(SIM_CXXFLAGS)) -DSGPU_SIM_FAST_ONLY=1 \
	    -c -o $$t/train_sim.o sim/sgpu_sim.cpp; \
	  $(CC) $(CSTD) -O2 -I$(GEN) -Isim -o $$t/train $(SIM_TRAIN_SRC) $$t/train_sim.o $$t/Vsgpu_top__ALL.a \
	    $$t/verilated.o $$t/verilated_threads.o -fprofile-generate $(SIM_LDLIBS); \
	  (cd $$t && ./train); \
	  rm -f $$t/Vsgpu_top__ALL.a $$t/Vsgpu_top*.o $$t/train $$t/train_sim.o; \
	  $(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(SIM_FAST_VMAKE) \
	    OPT_FAST="$(SIM_FAST_OPT) $(call SIM_PGO_USE,$$T/pgo)" Vsgpu_top__ALL.a; \
	else \
	  $(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(SIM_FAST_VMAKE) OPT_FAST=$(SIM_FAST_OPT) \
	    Vsgpu_top__ALL.a verilated.o verilated_threads.o; \
	fi; \
	(cd $$t/objs && ar x ../Vsgpu_top__ALL.a); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(SIM_DIR)/fast; mv $$t $(SIM_DIR)/fast; touch $@

$(SIM_DIR)/fst.stamp: $(RTL_SRCS) $(HW_VH) sim/sim.mk
	+@set -e; t=$(SIM_DIR)/fst.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_top (FST) -> $(SIM_DIR)/fst"; \
	$(VERILATOR) $(SIM_VFLAGS) --trace-fst --Mdir $$t --prefix Vsgpu_fst $(RTL_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_fst.mk $(SIM_VMAKE) $(notdir $(SIM_FST_OBJS)); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(SIM_DIR)/fst; mv $$t $(SIM_DIR)/fst; touch $@

$(SIM_DIR)/vcd.stamp: $(RTL_SRCS) $(HW_VH) sim/sim.mk
	+@set -e; t=$(SIM_DIR)/vcd.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_top (VCD) -> $(SIM_DIR)/vcd"; \
	$(VERILATOR) $(SIM_VFLAGS) --trace --Mdir $$t --prefix Vsgpu_vcd $(RTL_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_vcd.mk $(SIM_VMAKE) $(notdir $(SIM_VCD_OBJS)); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(SIM_DIR)/vcd; mv $$t $(SIM_DIR)/vcd; touch $@

SIM_STAMPS := $(SIM_DIR)/fast.stamp $(SIM_DIR)/fst.stamp $(SIM_DIR)/vcd.stamp

$(SIM_DIR)/sgpu_sim.o: sim/sgpu_sim.cpp sim/sgpu_sim.h $(HW_H) $(SIM_STAMPS)
	$(CXX) $(SIM_CXXFLAGS) -DSGPU_SIM_MMU_STATS=1 -c -o $@ $<

$(SIM_LIB): $(SIM_DIR)/sgpu_sim.o $(SIM_STAMPS)
	@rm -f $@.tmp.$$$$ && ar rcs $@.tmp.$$$$ $(SIM_DIR)/sgpu_sim.o $(SIM_FAST_OBJS) $(SIM_FST_OBJS) \
	  $(SIM_VCD_OBJS) && mv $@.tmp.$$$$ $@
	@echo "AR $@"

# ---------------------------------------------------------------- coverage variant
# $(SIM_COV_LIB): the fast model (sgpu_sim_top, registered inputs) with
# Verilator line coverage counters; sgpu_sim.cpp built with
# SGPU_SIM_COVERAGE=1 writes them per chip into $SGPU_COVERAGE_DIR
# (tests/coverage merges them).  sgpu_sim_top.v itself is not counted
# (coverage_off).  The traced models are the plain ones of $(SIM_LIB) (a
# traced chip adds no coverage).  Measured slowdown of the model (with the
# harness of the time, before the fast model): toggle + line counters ~9x
# (test_blit 2.8 -> 26 s), line counters alone 2-4x (test_blit 3.9 -> 8.3 s,
# test_flip 28 -> 75 s).  So the chip model counts lines only, and the two
# long chip tests (SIM_COV_PLAIN) keep the plain model: their modules' lines
# are counted by their unit testbenches, and the others run ~1 s longer in
# all.
SIM_COV_DIR    := $(BUILD)/sim-cov
SIM_COV_LIB    := $(SIM_COV_DIR)/libsgpu_sim_cov.a
SIM_COV_VFLAGS := --coverage-line
SIM_COV_PLAIN  := test_blit test_flip
SIM_COV_OBJS   := $(SIM_COV_DIR)/fast/Vsgpu_top__ALL.a $(SIM_COV_DIR)/fast/verilated.o \
                  $(SIM_COV_DIR)/fast/verilated_threads.o $(SIM_COV_DIR)/fast/verilated_cov.o

# Coverage makes the verilated code big enough to be split into several
# files, so the objects are collected in the model's own archive (__ALL.a).
$(SIM_COV_DIR)/fast.stamp: $(RTL_SRCS) $(SIM_TOP_V) $(HW_VH) sim/sim.mk
	+@set -e; t=$(SIM_COV_DIR)/fast.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_sim_top (coverage) -> $(SIM_COV_DIR)/fast"; \
	$(VERILATOR) $(SIM_VCOMMON) --top-module sgpu_sim_top $(SIM_COV_VFLAGS) --Mdir $$t --prefix Vsgpu_top \
	  $(RTL_SRCS) $(SIM_TOP_V); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(SIM_VMAKE) $(notdir $(SIM_COV_OBJS)); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(SIM_COV_DIR)/fast; mv $$t $(SIM_COV_DIR)/fast; touch $@

$(SIM_COV_DIR)/sgpu_sim.o: sim/sgpu_sim.cpp sim/sgpu_sim.h $(HW_H) $(SIM_COV_DIR)/fast.stamp $(SIM_STAMPS)
	$(CXX) -I$(SIM_COV_DIR)/fast $(SIM_CXXFLAGS) -DSGPU_SIM_COVERAGE=1 -c -o $@ $<

# The model archive is unpacked into the library (an archive inside an
# archive is not searched by the linker).
$(SIM_COV_LIB): $(SIM_COV_DIR)/sgpu_sim.o $(SIM_COV_DIR)/fast.stamp $(SIM_STAMPS)
	@set -e; t=$(SIM_COV_DIR)/ar.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	cd $$t && ar x $(abspath $(SIM_COV_DIR)/fast/Vsgpu_top__ALL.a) && cd - >/dev/null; \
	rm -f $@.tmp; ar rcs $@.tmp $(SIM_COV_DIR)/sgpu_sim.o $$t/*.o $(filter %.o,$(SIM_COV_OBJS)) \
	  $(SIM_FST_OBJS) $(SIM_VCD_OBJS); \
	rm -rf $$t; mv $@.tmp $@
	@echo "AR $@"

# ---------------------------------------------------------------- two-clock variant
# $(SIM_2C_LIB): sgpu_top with PIX_CDC = 1, the display's pixel side on
# pix_clk_i, which sgpu_sim.cpp (SGPU_SIM_PIX_CDC=1) toggles at the
# iCEBreaker's real ratio to clk_i (25.125 : 12), driven directly (no
# sgpu_sim_top).  FST tracing only (a .vcd trace is refused).  The
# chip tests built against it are in tests/board/board.mk (<test>_2c).
SIM_2C_DIR  := $(BUILD)/sim-2c
SIM_2C_LIB  := $(SIM_2C_DIR)/libsgpu_sim_2c.a
SIM_2C_OBJS := $(SIM_2C_DIR)/fst/Vsgpu_top__ALL.o $(SIM_2C_DIR)/fst/verilated.o \
               $(SIM_2C_DIR)/fst/verilated_fst_c.o $(SIM_2C_DIR)/fst/verilated_threads.o

$(SIM_2C_DIR)/fst.stamp: $(RTL_SRCS) $(HW_VH) sim/sim.mk
	+@set -e; t=$(SIM_2C_DIR)/fst.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_top PIX_CDC=1 (FST) -> $(SIM_2C_DIR)/fst"; \
	$(VERILATOR) $(SIM_VFLAGS) -GPIX_CDC=1 --trace-fst --Mdir $$t --prefix Vsgpu_top $(RTL_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(SIM_VMAKE) $(notdir $(SIM_2C_OBJS)); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(SIM_2C_DIR)/fst; mv $$t $(SIM_2C_DIR)/fst; touch $@

# Vsgpu_vcd.h (declarations only) comes from the one-clock VCD model.
$(SIM_2C_DIR)/sgpu_sim.o: sim/sgpu_sim.cpp sim/sgpu_sim.h $(HW_H) $(SIM_2C_DIR)/fst.stamp $(SIM_DIR)/vcd.stamp
	$(CXX) -I$(SIM_2C_DIR)/fst $(SIM_CXXFLAGS) -DSGPU_SIM_PIX_CDC=1 -c -o $@ $<

$(SIM_2C_LIB): $(SIM_2C_DIR)/sgpu_sim.o $(SIM_2C_DIR)/fst.stamp
	@rm -f $@.tmp.$$$$ && ar rcs $@.tmp.$$$$ $(SIM_2C_DIR)/sgpu_sim.o $(SIM_2C_OBJS) && mv $@.tmp.$$$$ $@
	@echo "AR $@"

# ---------------------------------------------------------------- assertion variant
# $(SIM_ASSERT_LIB): the fast model (sgpu_sim_top, registered inputs)
# verilated with --assert and FORMAL defined, so the assertions that stand
# next to the handshakes in rtl/ (the `ifdef FORMAL blocks the proofs of
# tests/formal check) are checked in every cycle of a simulation too.  A
# failing one prints "Assertion failed in <instance>" with its file and line
# and aborts the process.  Verilator runs immediate assertions (assume as
# assert, cover ignored; $past and initialised f_past registers work), and
# the FIFOs' tracked word (anyseq in a proof) is the next one pushed.
# sgpu_sim.cpp (SGPU_SIM_ASSERT=1) evaluates each clock edge with eval(),
# which samples the values $past reads, not its direct shortcut.  The
# traced models are the plain ones (a traced run checks nothing).  The
# assertion code samples rst_ni synchronously (-Wno-SYNCASYNCNET; lint of
# this configuration: tests/lint_rtl.sh).  tests/diff runs seeds on it
# (diff_assert_seeds.sh); $(SIM_ASSERT_DIR)/assert_on.sh shows a failing
# assertion aborts under these flags and that the library carries the
# chip's assertions.
SIM_ASSERT_DIR    := $(BUILD)/sim-assert
SIM_ASSERT_LIB    := $(SIM_ASSERT_DIR)/libsgpu_sim_assert.a
SIM_ASSERT_VFLAGS := --assert +define+FORMAL -Wno-SYNCASYNCNET
SIM_ASSERT_OBJS   := $(SIM_ASSERT_DIR)/fast/Vsgpu_top__ALL.a $(SIM_ASSERT_DIR)/fast/verilated.o \
                     $(SIM_ASSERT_DIR)/fast/verilated_threads.o

$(SIM_ASSERT_DIR)/fast.stamp: $(RTL_SRCS) $(SIM_TOP_V) $(HW_VH) sim/sim.mk
	+@set -e; t=$(SIM_ASSERT_DIR)/fast.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_sim_top (assertions) -> $(SIM_ASSERT_DIR)/fast"; \
	$(VERILATOR) $(SIM_VCOMMON) --top-module sgpu_sim_top $(SIM_ASSERT_VFLAGS) --Mdir $$t --prefix Vsgpu_top \
	  $(RTL_SRCS) $(SIM_TOP_V); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_top.mk $(SIM_VMAKE) $(notdir $(SIM_ASSERT_OBJS)); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(SIM_ASSERT_DIR)/fast; mv $$t $(SIM_ASSERT_DIR)/fast; touch $@

$(SIM_ASSERT_DIR)/sgpu_sim.o: sim/sgpu_sim.cpp sim/sgpu_sim.h $(HW_H) $(SIM_ASSERT_DIR)/fast.stamp $(SIM_STAMPS)
	$(CXX) -I$(SIM_ASSERT_DIR)/fast $(SIM_CXXFLAGS) -DSGPU_SIM_ASSERT=1 -c -o $@ $<

$(SIM_ASSERT_LIB): $(SIM_ASSERT_DIR)/sgpu_sim.o $(SIM_ASSERT_DIR)/fast.stamp $(SIM_STAMPS)
	@set -e; t=$(SIM_ASSERT_DIR)/ar.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	cd $$t && ar x $(abspath $(SIM_ASSERT_DIR)/fast/Vsgpu_top__ALL.a) && cd - >/dev/null; \
	rm -f $@.tmp; ar rcs $@.tmp $(SIM_ASSERT_DIR)/sgpu_sim.o $$t/*.o $(filter %.o,$(SIM_ASSERT_OBJS)) \
	  $(SIM_FST_OBJS) $(SIM_VCD_OBJS); \
	rm -rf $$t; mv $@.tmp $@
	@echo "AR $@"

# The self-test: tests/rtl/assert_on.v verilated with these flags (the
# chip's parameters aside) must abort with its assertion's message, and the
# library must hold the assertions of each module of the chip that has them
# (SIM_ASSERT_MODS; the library's messages name file and line).
SIM_ASSERT_ON   := $(SIM_ASSERT_DIR)/assert_on
SIM_ASSERT_MODS := sgpu_cp_exec sgpu_cp_regs sgpu_cp_wait sgpu_cp_writer sgpu_fetch sgpu_fifo sgpu_fifo_ram
$(SIM_ASSERT_ON): tests/rtl/assert_on.v tests/rtl/assert_on.cpp sim/sim.mk
	+@set -e; t=$@.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE assert_on (assertion flags) -> $@"; \
	$(VERILATOR) $(filter-out -G%,$(SIM_VCOMMON)) $(SIM_ASSERT_VFLAGS) --top-module assert_on --exe \
	  --Mdir $$t tests/rtl/assert_on.v $(abspath tests/rtl/assert_on.cpp); \
	$(MAKE) --no-print-directory -s -C $$t -f Vassert_on.mk $(SIM_VMAKE) Vassert_on; \
	mv $$t/Vassert_on $@; rm -rf $$t
$(SIM_ASSERT_ON).sh: $(SIM_ASSERT_ON) $(SIM_ASSERT_LIB)
	@{ echo '#!/bin/sh'; echo '# assertions are on: the model must abort in its fifth cycle with the message'; \
	  echo 'out=$$($(abspath $(SIM_ASSERT_ON)) 2>&1); rc=$$?; echo "$$out"'; \
	  echo '[ $$rc -ne 0 ] && echo "$$out" | grep -q "assert_on.v:.*Assertion failed" && \'; \
	  echo '  echo "$$out" | grep -q "^cycle 3$$" && ! echo "$$out" | grep -q "^cycle 4$$" || \'; \
	  echo '  { echo "FAIL: the assertion did not abort the model in its fifth cycle"; exit 1; }'; \
	  echo 'echo "ok: a failing assertion aborts (exit status $$rc)"'; \
	  echo 'lib=$(abspath $(SIM_ASSERT_LIB))'; \
	  echo 'for m in $(SIM_ASSERT_MODS); do'; \
	  echo '  grep -aq "$$m\.v:[0-9]*: Assertion failed" "$$lib" || { echo "FAIL: no assertion of $$m.v in $$lib"; exit 1; }'; \
	  echo 'done'; \
	  echo 'n=$$(grep -ao "sgpu_[a-z0-9_]*\.v:[0-9]*: Assertion failed" "$$lib" | sort -u | wc -l)'; \
	  echo 'echo "ok: $$lib checks $$n assertions of $(SIM_ASSERT_MODS)"'; } >$@
	@chmod +x $@

TESTS += $(SIM_ASSERT_ON).sh

# sgpu-sim: the chip standalone (window, PNG frames; later the TCP server).
SIM_SDL_CFLAGS := $(shell pkg-config --cflags sdl2 2>/dev/null)
SIM_SDL_LIBS   := $(shell pkg-config --libs sdl2 2>/dev/null)
$(SIM_BIN): sim/sgpu_sim_main.c sim/sgpu_sim.h sim/sgpu_link_sim.h sim/sgpu_link_model.h $(HW_H) $(SIM_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) $(OPT) -I$(GEN) -Isim $(SIM_SDL_CFLAGS) -o $@ $< $(SIM_LIB) \
	  $(SIM_SDL_LIBS) -lpng $(SIM_LDLIBS) -lm

ALL_TARGETS += $(SIM_LIB) $(SIM_BIN)

# Chip-level tests: every tests/chip/test_*.c, with the shared helper,
# linked with the coverage variant of the model (but SIM_COV_PLAIN): run
# with SGPU_COVERAGE_DIR set (make test, make coverage) they add the chip's
# line coverage.
CHIP_TEST_SRCS := $(sort $(wildcard tests/chip/test_*.c))
CHIP_TESTS     := $(patsubst tests/chip/%.c,$(BUILD)/tests/chip/%,$(CHIP_TEST_SRCS))
CHIP_UTIL_OBJ  := $(BUILD)/tests/chip/chip_util.o

$(CHIP_UTIL_OBJ): tests/chip/chip_util.c tests/chip/chip_util.h sim/sgpu_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) $(OPT) $(SAN) -I$(GEN) -Isim -Itests/chip -c -o $@ $<

$(BUILD)/tests/chip/%: tests/chip/%.c $(CHIP_UTIL_OBJ) tests/chip/chip_util.h $(SIM_LIB) $(SIM_COV_LIB) $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) $(OPT) $(SAN) -I$(GEN) -Isim -Itests/chip -o $@ $< $(CHIP_UTIL_OBJ) \
	  $(if $(filter $(SIM_COV_PLAIN),$*),$(SIM_LIB),$(SIM_COV_LIB)) $(SIM_LDLIBS)

# Tests of the sgpu-sim program (scripts; they need the binary).
SIM_TEST_SCRIPTS := tests/chip/sgpu_sim_cli.sh tests/chip/sgpu_sim_window.sh tests/chip/sgpu_sim_nodisplay.sh
$(SIM_TEST_SCRIPTS): $(SIM_BIN)

TESTS += $(CHIP_TESTS) $(SIM_TEST_SCRIPTS)

.PHONY: sim chip-tests
sim: $(SIM_LIB) $(SIM_BIN)
chip-tests: $(CHIP_TESTS)
