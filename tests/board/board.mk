# board fragment: board-level simulation of the iCEBreaker image
# (docs/boards.md).  rtl/boards/icebreaker_top.v and every chip module (tools/rtl_srcs.sh) are
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
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(BOARD_VL_DIR); mv $$t $(BOARD_VL_DIR); touch $@

$(BOARD_DIR)/board_sim.o: tests/board/board_sim.cpp tests/board/board_sim.h tests/board/board_pins.h $(HW_H) \
    $(BOARD_DIR)/vl.stamp
	$(CXX) $(BOARD_CXXFLAGS) -c -o $@ $<

# The UART and frame capture on the pins, for this harness and the ULX3S's
# (tests/ulx3s/ulx3s.mk puts it in that archive as well).
BOARD_PINS_OBJ := $(BOARD_DIR)/board_pins.o
$(BOARD_PINS_OBJ): tests/board/board_pins.cpp tests/board/board_pins.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CXX) $(BOARD_CXXFLAGS) -c -o $@ $<

# Model archive unpacked into one library with the harness and the runtime.
$(BOARD_VL_LIB): $(BOARD_DIR)/board_sim.o $(BOARD_PINS_OBJ) $(BOARD_DIR)/vl.stamp
	@set -e; t=$(BOARD_DIR)/ar.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	cd $$t && ar x $(abspath $(BOARD_VL_DIR)/Vicebreaker_top__ALL.a) && cd - >/dev/null; \
	rm -f $@.tmp; ar rcs $@.tmp $(BOARD_DIR)/board_sim.o $(BOARD_PINS_OBJ) $$t/*.o $(BOARD_VL_DIR)/verilated.o \
	  $(BOARD_VL_DIR)/verilated_threads.o; rm -rf $$t; mv $@.tmp $@
	@echo "AR $@"

$(BOARD_DIR)/board_link.o: tests/board/board_link.c tests/board/board_link.h tests/board/board_sim.h \
    host/src/link_frame.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(BOARD_CFLAGS) -c -o $@ $<

BOARD_TEST_SRCS := $(sort $(wildcard tests/board/test_*.c))
BOARD_ALL_TESTS := $(patsubst tests/board/%.c,$(BOARD_DIR)/%,$(BOARD_TEST_SRCS))
# The power-on screen test runs once the board top instantiates the boot ROM
# feeder (rtl/top/sgpu_boot.v); it replays the ROM image through the reference
# model, so it needs the image built.
BOARD_FW_BIN    := $(BUILD)/firmware/boot_icebreaker.bin
BOARD_HAS_BOOT  := $(shell grep -l 'sgpu_boot' rtl/boards/icebreaker_top.v 2>/dev/null)
BOARD_TESTS     := $(if $(BOARD_HAS_BOOT),$(BOARD_ALL_TESTS),$(filter-out %/test_board_boot,$(BOARD_ALL_TESTS)))
$(BOARD_DIR)/test_board_boot: $(if $(BOARD_HAS_BOOT),$(BOARD_FW_BIN))

$(BOARD_DIR)/test_%: tests/board/test_%.c $(BOARD_DIR)/board_link.o $(BOARD_VL_LIB) $(BOARD_HOST_OBJS) \
    $(MODEL_OBJ) $(MODEL_BOOT_OBJ) tests/board/board_link.h tests/board/board_sim.h tests/model/sgpu_ref.h $(HW_H)
	$(CC) $(BOARD_CFLAGS) -o $@ $< $(BOARD_DIR)/board_link.o $(MODEL_OBJ) $(MODEL_BOOT_OBJ) $(BOARD_HOST_OBJS) \
	  $(BOARD_VL_LIB) -lstdc++ -lpthread -lm

TESTS += $(BOARD_TESTS)

.PHONY: board-tests
board-tests: $(BOARD_ALL_TESTS)

# The existing flip, tearing and underflow chip tests (tests/chip) against
# the two-clock model: same sources, linked with $(SIM_2C_LIB).  At the real
# clock ratio a tiny frame lasts 2140 system cycles, not 4480, and the
# display needs 2.09 times the memory bandwidth per system cycle; a test
# joins make test once it takes the model's ratio from sgpu_sim_pixel_ratio()
# (docs/boards.md).  `make board-tests` builds them all.
BOARD_2C_ALL   := $(BOARD_DIR)/test_flip_2c $(BOARD_DIR)/test_blit_2c
BOARD_2C_TESTS := $(foreach t,$(BOARD_2C_ALL),$(if $(shell grep -l sgpu_sim_pixel_ratio \
                    tests/chip/$(patsubst %_2c,%,$(notdir $(t))).c 2>/dev/null),$(t)))

$(BOARD_DIR)/%_2c: tests/chip/%.c $(CHIP_UTIL_OBJ) tests/chip/chip_util.h $(SIM_2C_LIB) $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) $(OPT) $(SAN) -I$(GEN) -Isim -Itests/chip -o $@ $< $(CHIP_UTIL_OBJ) \
	  $(SIM_2C_LIB) $(SIM_LDLIBS)

TESTS += $(BOARD_2C_TESTS)
board-tests: $(BOARD_2C_ALL)
