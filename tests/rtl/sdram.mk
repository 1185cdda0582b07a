# The SDRAM controller's benches include the SDRAM model: rebuild their
# Icarus binaries when it changes (rtl/rtl.mk's rule names only the bench;
# the Verilator rule already depends on tests/rtl/*.vh).
$(BUILD)/tests/rtl/tb_sgpu_sdram $(BUILD)/tests/rtl/tb_sgpu_sdram_checker: tests/rtl/sgpu_sdram_model.vh
