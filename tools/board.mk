# Board builds.  `make bitstream BOARD=icebreaker` synthesizes, places and
# routes the board top with timing and area asserted (tools/bitstream_ice40.sh,
# seeds 1 2 3) and writes build/BOARD/sgpu.bin and build/BOARD/report.txt;
# `make bitstream-sweep BOARD=...` prints logic cells and Fmax for each set
# of synthesis options tried; `make flash BOARD=... [DRY_RUN=1]` programs the
# board with openFPGALoader (tools/flash.sh).
BOARD ?= icebreaker
DRY_RUN ?= 0
BAUD ?=
.PHONY: bitstream bitstream-sweep flash

bitstream: $(HW_VH)
	@BAUD=$(BAUD) bash tools/bitstream_ice40.sh $(BOARD)

bitstream-sweep: $(HW_VH)
	@SWEEP=1 bash tools/bitstream_ice40.sh $(BOARD)

flash:
	@DRY_RUN=$(DRY_RUN) bash tools/flash.sh $(BOARD)
