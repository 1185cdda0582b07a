# RTL sources: every rtl/*.v is part of the chip; board tops live in rtl/boards/.
RTL_SRCS   := $(sort $(wildcard rtl/*.v))
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
