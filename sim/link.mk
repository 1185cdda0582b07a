# link fragment: the Verilator model of the chip behind its host bridge
# (rtl/link/sgpu_link_top.v) as $(LSIM_LIB), used by sgpu-sim's link server
# (--listen tcp:..., --pty).  The verilated runtime (verilated.o) is the one
# in $(SIM_LIB), which every program linking $(LSIM_LIB) links after it.

LSIM_DIR   := $(BUILD)/sim/link
LSIM_LIB   := $(LSIM_DIR)/libsgpu_link_sim.a
LSIM_VFLAGS := --cc -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial unique --output-split 1000000 \
               --top-module sgpu_link_top -GNODES=$(SIM_NODES) -GSOURCES=$(SIM_SOURCES) \
               -GMEM_BYTES=$(SIM_MEM) $(RTL_INC) -CFLAGS -g0 -CFLAGS -fPIC
LSIM_CXXFLAGS := -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -I$(GEN) -Isim -I$(LSIM_DIR)/v \
                 -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd

$(LSIM_DIR)/v.stamp: $(RTL_SRCS) $(HW_VH) sim/link.mk
	+@set -e; t=$(LSIM_DIR)/v.tmp.$$$$; rm -rf $$t; mkdir -p $$t; \
	echo "VERILATE sgpu_link_top -> $(LSIM_DIR)/v"; \
	$(VERILATOR) $(LSIM_VFLAGS) --Mdir $$t --prefix Vsgpu_link_top $(RTL_SRCS); \
	$(MAKE) --no-print-directory -s -C $$t -f Vsgpu_link_top.mk MAKEOVERRIDES= OPT_FAST=-O2 \
	  OPT_SLOW=-O1 OPT_GLOBAL=-O1 Vsgpu_link_top__ALL.o; \
	rm -rf $(LSIM_DIR)/v; mv $$t $(LSIM_DIR)/v; touch $@

$(LSIM_DIR)/sgpu_link_sim.o: sim/sgpu_link_sim.cpp sim/sgpu_link_sim.h $(HW_H) $(LSIM_DIR)/v.stamp
	$(CXX) $(LSIM_CXXFLAGS) -c -o $@ $<

$(LSIM_LIB): $(LSIM_DIR)/sgpu_link_sim.o $(LSIM_DIR)/v.stamp
	@rm -f $@.tmp.$$$$ && ar rcs $@.tmp.$$$$ $(LSIM_DIR)/sgpu_link_sim.o \
	  $(LSIM_DIR)/v/Vsgpu_link_top__ALL.o && mv $@.tmp.$$$$ $@
	@echo "AR $@"

# sgpu-sim serves the link from this model: its link line gets the library
# (and the chip model again, for the verilated runtime after it).
$(SIM_BIN): $(LSIM_LIB) sim/sgpu_link_sim.h
$(SIM_BIN): SIM_SDL_LIBS += $(LSIM_LIB) $(SIM_LIB) -lutil

ALL_TARGETS += $(LSIM_LIB)
.PHONY: link-sim
link-sim: $(LSIM_LIB) $(SIM_BIN)
