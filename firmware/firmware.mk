# firmware fragment: the boot ROM of each board (docs/firmware.md).
# tools/mkboot.c (built against the library without the simulation model:
# its assembler and link frame encoder) turns firmware/boot.sgs and the font
# into build/firmware/boot_<board>.hex ($readmemh, one byte per line, the
# ROM's full size), .bin (the image) and .lst (listing and figures).
# FW_VERSION is the firmware's version; each board gives its memory (its
# CAPS come from the interface's table of what each board carries).
FW_DIR      := $(BUILD)/firmware
MKBOOT      := $(BUILD)/bin/mkboot
FW_VERSION  := 0.1
FW_SRCS     := firmware/boot.sgs firmware/font5x7.txt
FW_BOARD_icebreaker := --board icebreaker --mem 131072 --rom-bytes 2048
# ULX3S: GPU memory on the 32 MB SDRAM
# (rtl/boards/ulx3s_top.v SDRAM = 1) or, for a block-RAM build (SDRAM = 0),
# 128 KiB (MEM_BYTES)
FW_BOARD_ulx3s      := --board ulx3s --mem 33554432 --rom-bytes 2048
FW_BOARD_ulx3s-128k := --board ulx3s --mem 131072 --rom-bytes 2048
FW_BOARDS   := icebreaker ulx3s ulx3s-128k
FW_HEXES    := $(foreach b,$(FW_BOARDS),$(FW_DIR)/boot_$(b).hex)

$(MKBOOT): tools/mkboot.c $(HOST_NOSIM_A) $(HOST_HDRS) host/src/link_frame.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src $(OPT) -o $@ $< $(HOST_NOSIM_A) $(HOST_NOSIM_LDLIBS)

# one rule writes the three files of a board
$(FW_DIR)/boot_%.hex $(FW_DIR)/boot_%.bin $(FW_DIR)/boot_%.lst &: $(MKBOOT) $(FW_SRCS) firmware/firmware.mk
	@mkdir -p $(FW_DIR)
	$(MKBOOT) --source firmware/boot.sgs --font firmware/font5x7.txt --version $(FW_VERSION) \
	  $(FW_BOARD_$*) --hex $(FW_DIR)/boot_$*.hex --bin $(FW_DIR)/boot_$*.bin --list $(FW_DIR)/boot_$*.lst

.PHONY: firmware
firmware: $(FW_HEXES)
ALL_TARGETS += $(MKBOOT) $(FW_HEXES)
