# ulx3s fragment: board-level simulation of the ULX3S image (docs/boards.md).
# rtl/boards/ulx3s_top.v and every chip module (tools/rtl_srcs.sh), with the SDRAM model of the
# controller's benches on the SDRAM pins (tests/ulx3s/ulx3s_board.v), are
# verilated whole (Vulx3s_board, no tracing, C++ at -O1 like the chip model)
# into $(ULX3S_VL_LIB), with SGPU_FIFO_LUTRAM defined as the ECP5 build
# defines it (tools/bitstream_ecp5.sh); tests/ulx3s/ulx3s_sim.cpp drives it with the three
# PLL clocks at their real periods, talks to the UART pins and decodes the
# GPDI lanes with its own TMDS receiver.  The tests (tests/ulx3s/test_*.c)
# compare what the receiver decodes with the C reference model; the host
# side of the link is tests/board/board_link.c (the iCEBreaker tests' own),
# compiled here against this simulation.  They run in make test.
# `make ulx3s-tests` builds them.

ULX3S_DIR     := $(BUILD)/tests/ulx3s
ULX3S_VL_DIR  := $(ULX3S_DIR)/vl
ULX3S_VL_LIB  := $(ULX3S_DIR)/libulx3s_vl.a
ULX3S_SRCS    := $(RTL_SRCS) rtl/boards/ulx3s_top.v tests/ulx3s/ulx3s_board.v
ULX3S_VFLAGS  := --cc -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial unique +define+SGPU_FIFO_LUTRAM \
                 --top-module ulx3s_board $(RTL_INC) -Itests/rtl -CFLAGS -g0
ULX3S_VL_OBJS := Vulx3s_board__ALL.a verilated.o verilated_threads.o
ULX3S_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -I$(GEN) -Itests/ulx3s -Itests/board -I$(ULX3S_VL_DIR) \
                  -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd
ULX3S_CFLAGS  := $(WARN) $(CSTD) -D_DEFAULT_SOURCE $(OPT) $(SAN) -I$(GEN) -Ihost/src -Ihost/include \
                 -Itests/ulx3s -Itests/board -Itests/model
ULX3S_HOST_OBJS := $(BUILD)/asan/host/link_frame.o $(BUILD)/asan/host/packet_check.o $(BUILD)/asan/host/hwinfo.o

# Verilate in a private folder moved into place at the end (concurrent makes).
$(ULX3S_DIR)/vl.stamp: $(ULX3S_SRCS) $(HW_VH) tests/ulx3s/ulx3s.vlt tests/rtl/sgpu_sdram_model.vh
	+@set -e; t=$(ULX3S_VL_DIR).tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE ulx3s_board -> $(ULX3S_VL_DIR)"; \
	$(VERILATOR) $(ULX3S_VFLAGS) --Mdir $$t --prefix Vulx3s_board tests/ulx3s/ulx3s.vlt $(ULX3S_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vulx3s_board.mk $(SIM_VMAKE) $(ULX3S_VL_OBJS); \
	$(call SIM_STAMP_CHECK,$$t); \
	rm -rf $(ULX3S_VL_DIR); mv $$t $(ULX3S_VL_DIR); touch $@

$(ULX3S_DIR)/ulx3s_sim.o: tests/ulx3s/ulx3s_sim.cpp tests/ulx3s/ulx3s_sim.h tests/board/board_sim.h \
    tests/board/board_pins.h $(HW_H) $(ULX3S_DIR)/vl.stamp
	$(CXX) $(ULX3S_CXXFLAGS) -c -o $@ $<

# board_link.c's board_sim_* calls on this board: a member of its own (see
# the file), which sgpu-sim, linking the iCEBreaker's board_sim.o, leaves out.
$(ULX3S_DIR)/ulx3s_board_shim.o: tests/ulx3s/ulx3s_board_shim.cpp tests/ulx3s/ulx3s_sim.h tests/board/board_sim.h
	@mkdir -p $(dir $@)
	$(CXX) $(ULX3S_CXXFLAGS) -c -o $@ $<

# Model archive unpacked into one library with the harness and the runtime.
$(ULX3S_VL_LIB): $(ULX3S_DIR)/ulx3s_sim.o $(ULX3S_DIR)/ulx3s_board_shim.o $(BOARD_PINS_OBJ) $(ULX3S_DIR)/vl.stamp
	@set -e; t=$(ULX3S_DIR)/ar.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	cd $$t && ar x $(abspath $(ULX3S_VL_DIR)/Vulx3s_board__ALL.a) && cd - >/dev/null; \
	rm -f $@.tmp; ar rcs $@.tmp $(ULX3S_DIR)/ulx3s_sim.o $(ULX3S_DIR)/ulx3s_board_shim.o $(BOARD_PINS_OBJ) $$t/*.o $(ULX3S_VL_DIR)/verilated.o \
	  $(ULX3S_VL_DIR)/verilated_threads.o; rm -rf $$t; mv $@.tmp $@
	@echo "AR $@"

ULX3S_TESTS := $(patsubst tests/ulx3s/%.c,$(ULX3S_DIR)/%,$(sort $(wildcard tests/ulx3s/test_*.c)))
# every test: the image's boot ROM is in the verilated model
$(ULX3S_TESTS): $(BUILD)/firmware/boot_ulx3s.bin $(BUILD)/firmware/boot_ulx3s.hex

$(ULX3S_DIR)/board_link.o: tests/board/board_link.c tests/board/board_link.h tests/board/board_sim.h \
    host/src/link_frame.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(ULX3S_CFLAGS) -c -o $@ $<

$(ULX3S_DIR)/test_%: tests/ulx3s/test_%.c $(ULX3S_DIR)/board_link.o $(ULX3S_VL_LIB) $(ULX3S_HOST_OBJS) \
    $(MODEL_OBJ) $(MODEL_BOOT_OBJ) tests/ulx3s/ulx3s_sim.h tests/board/board_link.h tests/model/sgpu_ref.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(ULX3S_CFLAGS) -o $@ $< $(ULX3S_DIR)/board_link.o $(MODEL_OBJ) $(MODEL_BOOT_OBJ) $(ULX3S_HOST_OBJS) \
	  $(ULX3S_VL_LIB) -lstdc++ -lpthread -lm

# test_ulx3s_vm and test_ulx3s_sched are clients of the library instead:
# libsgpu without the in-process model, over tcp: to sgpu-sim --board ulx3s
# (this folder's board model behind the link), which each starts itself
# (tests/ulx3s/ulx3s_client.h).
ULX3S_CLIENT_TESTS := $(ULX3S_DIR)/test_ulx3s_vm $(ULX3S_DIR)/test_ulx3s_sched
$(ULX3S_CLIENT_TESTS): $(ULX3S_DIR)/test_%: tests/ulx3s/test_%.c tests/ulx3s/ulx3s_client.h $(HOST_NOSIM_A) \
    $(HOST_HDRS) $(SIM_BIN)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(OPT) -o $@ $< $(HOST_NOSIM_A) $(HOST_NOSIM_LDLIBS)

TESTS += $(ULX3S_TESTS)

.PHONY: ulx3s-tests
ulx3s-tests: $(ULX3S_TESTS)

# ---------------------------------------------------------------- sgpu-sim --board
# sgpu-sim serves the link from a board-level simulation with --board
# icebreaker|ulx3s (sim/sgpu_board_lsim.cpp on the two board models above,
# sim/sgpu_link_model.c choosing between them and the chip behind its
# bridge).  The board models are the tests' own archives, verilated once:
# `make` builds them for sgpu-sim (about 70 s of CPU after an RTL change),
# `make test` needed them already.  `make SIM_BOARDS=0` builds sgpu-sim
# without them (--board icebreaker|ulx3s then says so; test_link_boards is
# left out of make test).  Here, after tests/board/board.mk, because the
# rules name both archives.
SIM_BOARDS ?= 1
BLSIM_DIR  := $(BUILD)/sim/board
# the choice, in a file that changes with it, so sgpu-sim is relinked
BLSIM_CFG  := $(BLSIM_DIR)/boards.cfg
$(shell mkdir -p $(BLSIM_DIR); [ "$$(cat $(BLSIM_CFG) 2>/dev/null)" = "$(SIM_BOARDS)" ] || \
  echo "$(SIM_BOARDS)" >$(BLSIM_CFG))

$(BLSIM_DIR)/sgpu_board_lsim.o: sim/sgpu_board_lsim.cpp sim/sgpu_board_lsim.h tests/board/board_sim.h \
    tests/ulx3s/ulx3s_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -I$(GEN) -Isim -Itests/board -Itests/ulx3s \
	  -DSGPU_BOARD_ROOT='"$(abspath .)"' -c -o $@ $<

$(BLSIM_DIR)/sgpu_link_model.o: sim/sgpu_link_model.c sim/sgpu_link_model.h sim/sgpu_board_lsim.h \
    sim/sgpu_link_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) $(OPT) -I$(GEN) -Isim -c -o $@ $<

$(BLSIM_DIR)/noboards/sgpu_link_model.o: sim/sgpu_link_model.c sim/sgpu_link_model.h sim/sgpu_link_sim.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) $(OPT) -I$(GEN) -Isim -DSGPU_LINK_MODEL_NO_BOARDS -c -o $@ $<

ifneq ($(SIM_BOARDS),0)
BLSIM_OBJS := $(BLSIM_DIR)/sgpu_board_lsim.o $(BLSIM_DIR)/sgpu_link_model.o
# The link line: the objects, the board archives, then the chip behind its
# bridge and the chip model again (the verilated runtime every model shares).
# The boot ROM images the models read when sgpu-sim makes them.
$(SIM_BIN): $(BLSIM_OBJS) $(BOARD_VL_LIB) $(ULX3S_VL_LIB) sim/sgpu_link_model.h $(BLSIM_CFG) \
    $(BUILD)/firmware/boot_icebreaker.hex $(BUILD)/firmware/boot_ulx3s.hex
$(SIM_BIN): SIM_SDL_LIBS += $(BLSIM_OBJS) $(BOARD_VL_LIB) $(ULX3S_VL_LIB) $(LSIM_LIB) $(SIM_LIB)
else
BLSIM_OBJS := $(BLSIM_DIR)/noboards/sgpu_link_model.o
$(SIM_BIN): $(BLSIM_OBJS) sim/sgpu_link_model.h $(BLSIM_CFG)
$(SIM_BIN): SIM_SDL_LIBS += $(BLSIM_OBJS) $(LSIM_LIB) $(SIM_LIB)
TESTS := $(filter-out %/test_link_boards.sh,$(TESTS))
endif

# tests/link/test_link_boards.sh: the link workload on sgpu-sim --board
# icebreaker and ulx3s against --board sim (its helper is built by
# tests/link/link.mk's pattern rule; the CLI makes its second connection).
$(LINK_TEST_DIR)/test_link_boards.sh: $(LINK_TEST_DIR)/link_workload $(HOST_CLI)
