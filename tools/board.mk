# Board builds.  `make bitstream BOARD=icebreaker` synthesizes, places and
# routes the board top with timing and area asserted (tools/bitstream_ice40.sh,
# seeds 1 2 3) and writes build/BOARD/sgpu.bin and build/BOARD/report.txt;
# `make bitstream-sweep BOARD=...` prints logic cells and Fmax for each set
# of synthesis options tried; `make flash BOARD=... [DRY_RUN=1] [FLASH=1]`
# programs the board with openFPGALoader through `sgpu flash` (the CLI built
# without the simulator model, host/cli/flash.c).
BOARD ?= icebreaker
DRY_RUN ?= 0
BAUD ?=
.PHONY: bitstream bitstream-sweep flash

# the board's boot ROM image (firmware/firmware.mk) is read by rtl/sgpu_boot.v
bitstream: $(HW_VH) $(FW_DIR)/boot_$(BOARD).hex
	@BAUD=$(BAUD) bash tools/bitstream_ice40.sh $(BOARD)

bitstream-sweep: $(HW_VH) $(FW_DIR)/boot_$(BOARD).hex
	@SWEEP=1 bash tools/bitstream_ice40.sh $(BOARD)

FLASH ?= 0
flash: $(HOST_NOSIM_CLI)
	@$(HOST_NOSIM_CLI) flash --board $(BOARD) $(if $(filter 1,$(DRY_RUN)),--dry-run) \
	  $(if $(filter 1,$(FLASH)),--flash)
