# board fragment: board-level simulation of the iCEBreaker image
# (docs/boards.md).  rtl/boards/icebreaker_top.v and every rtl/*.v are
# verilated whole (Vicebreaker_top, no tracing, C++ at -O1 like the chip
# model) into $(BOARD_VL_LIB); tests/board/board_sim.cpp drives its pins
# with both clocks at their real ratio.  The tests (tests/board/test_*.c)
# encode and decode link frames with the host library's own codec
# (host/src/link_frame.c) and compare with the C reference model.
#
# The two-clock variant of the in-process chip model (libsgpu_sim_2c, see
# sim/sim.mk) runs the existing flip, tearing and underflow chip tests as
# <test>_2c.

BOARD_DIR     := $(BUILD)/tests/board
BOARD_VL_DIR  := $(BOARD_DIR)/vl
BOARD_VL_LIB  := $(BOARD_DIR)/libboard_vl.a
BOARD_SRCS    := $(RTL_SRCS) rtl/boards/icebreaker_top.v
BOARD_VFLAGS  := --cc -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial unique \
                 --top-module icebreaker_top $(RTL_INC) -CFLAGS -g0
BOARD_VL_OBJS := Vicebreaker_top__ALL.a verilated.o verilated_threads.o
BOARD_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -I$(GEN) -Itests/board -I$(BOARD_VL_DIR) \
                  -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd
BOARD_CFLAGS  := $(WARN) $(CSTD) -D_DEFAULT_SOURCE $(OPT) $(SAN) -I$(GEN) -Ihost/src -Ihost/include \
                 -Itests/board -Itests/model
BOARD_HOST_OBJS := $(BUILD)/asan/host/link_frame.o $(BUILD)/asan/host/packet_check.o $(BUILD)/asan/host/hwinfo.o

# Verilate in a private folder moved into place at the end (concurrent makes).
$(BOARD_DIR)/vl.stamp: $(BOARD_SRCS) $(HW_VH) tests/board/board.vlt tests/board/board.mk
	+@set -e; t=$(BOARD_VL_DIR).tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE icebreaker_top -> $(BOARD_VL_DIR)"; \
	$(VERILATOR) $(BOARD_VFLAGS) --Mdir $$t --prefix Vicebreaker_top tests/board/board.vlt $(BOARD_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vicebreaker_top.mk $(SIM_VMAKE) $(BOARD_VL_OBJS); \
	rm -rf $(BOARD_VL_DIR); mv $$t $(BOARD_VL_DIR); touch $@

$(BOARD_DIR)/board_sim.o: tests/board/board_sim.cpp tests/board/board_sim.h $(HW_H) $(BOARD_DIR)/vl.stamp
	$(CXX) $(BOARD_CXXFLAGS) -c -o $@ $<

# Model archive unpacked into one library with the harness and the runtime.
$(BOARD_VL_LIB): $(BOARD_DIR)/board_sim.o $(BOARD_DIR)/vl.stamp
	@set -e; t=$(BOARD_DIR)/ar.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	cd $$t && ar x $(abspath $(BOARD_VL_DIR)/Vicebreaker_top__ALL.a) && cd - >/dev/null; \
	rm -f $@.tmp; ar rcs $@.tmp $(BOARD_DIR)/board_sim.o $$t/*.o $(BOARD_VL_DIR)/verilated.o \
	  $(BOARD_VL_DIR)/verilated_threads.o; rm -rf $$t; mv $@.tmp $@
	@echo "AR $@"

$(BOARD_DIR)/board_link.o: tests/board/board_link.c tests/board/board_link.h tests/board/board_sim.h \
    host/src/link_frame.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(BOARD_CFLAGS) -c -o $@ $<

BOARD_TEST_SRCS := $(sort $(wildcard tests/board/test_*.c))
BOARD_TESTS     := $(patsubst tests/board/%.c,$(BOARD_DIR)/%,$(BOARD_TEST_SRCS))

$(BOARD_DIR)/test_%: tests/board/test_%.c $(BOARD_DIR)/board_link.o $(BOARD_VL_LIB) $(BOARD_HOST_OBJS) \
    $(MODEL_OBJ) tests/board/board_link.h tests/board/board_sim.h tests/model/sgpu_ref.h $(HW_H)
	$(CC) $(BOARD_CFLAGS) -o $@ $< $(BOARD_DIR)/board_link.o $(MODEL_OBJ) $(BOARD_HOST_OBJS) \
	  $(BOARD_VL_LIB) -lstdc++ -lpthread -lm

TESTS += $(BOARD_TESTS)

.PHONY: board-tests
board-tests: $(BOARD_TESTS)
