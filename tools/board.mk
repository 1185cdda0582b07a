# Board builds.  `make bitstream BOARD=icebreaker` synthesizes, places and
# routes the board top with timing and area asserted (tools/bitstream_ice40.sh,
# seeds 1 2 3) and writes build/BOARD/sgpu.bin and build/BOARD/report.txt;
# `make bitstream BOARD=ulx3s [DEVICE=85F|45F|25F|12F]` does the same for the
# ECP5 with the YoWASP tools of the project's venv (tools/bitstream_ecp5.sh,
# build/ulx3s/sgpu.bit);
# `make bitstream-sweep BOARD=...` prints logic cells and Fmax for each set
# of synthesis options tried; `make flash BOARD=... [DRY_RUN=1] [FLASH=1]`
# programs the board with openFPGALoader through `sgpu flash` (the CLI built
# without the simulator model, host/cli/flash.c).
BOARD ?= icebreaker
DEVICE ?= 85F
DRY_RUN ?= 0
BAUD ?=
.PHONY: bitstream bitstream-sweep flash

# each board's family script and the boot ROM images it reads
# (firmware/firmware.mk; rtl/top/sgpu_boot.v reads them)
BOARD_SCRIPT_icebreaker := tools/bitstream_ice40.sh
BOARD_SCRIPT_ulx3s      := tools/bitstream_ecp5.sh
BOARD_FW_icebreaker     := $(FW_DIR)/boot_icebreaker.hex
# (yosys reads sgpu_boot's default ROM_FILE, the iCEBreaker's, while parsing)
BOARD_FW_ulx3s          := $(FW_DIR)/boot_ulx3s.hex $(FW_DIR)/boot_ulx3s-128k.hex $(FW_DIR)/boot_icebreaker.hex

bitstream: $(HW_VH) $(BOARD_FW_$(BOARD))
	@test -n "$(BOARD_SCRIPT_$(BOARD))" || { echo "unknown BOARD '$(BOARD)' (icebreaker, ulx3s)" >&2; exit 2; }
	@BAUD=$(BAUD) DEVICE=$(DEVICE) bash $(BOARD_SCRIPT_$(BOARD)) $(BOARD)

bitstream-sweep: $(HW_VH) $(FW_DIR)/boot_$(BOARD).hex
	@SWEEP=1 bash tools/bitstream_ice40.sh $(BOARD)

FLASH ?= 0
flash: $(HOST_NOSIM_CLI)
	@$(HOST_NOSIM_CLI) flash --board $(BOARD) $(if $(filter 1,$(DRY_RUN)),--dry-run) \
	  $(if $(filter 1,$(FLASH)),--flash)

# make test places and routes the ULX3S image on seed 1 (the iCEBreaker's is
# registered in tests/tests.mk)
TESTS += tests/pnr_ulx3s.sh
tests/pnr_ulx3s.sh: $(HW_VH) $(BOARD_FW_ulx3s)
