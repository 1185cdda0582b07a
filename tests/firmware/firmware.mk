# firmware tests: the boot ROM image on the chip behind its real host bridge
# (the link simulation, $(LSIM_LIB)) against the reference model, and the
# library's identity block calls.  Writes build/firmware/poweron.png.
FWT_DIR   := $(BUILD)/tests/firmware
FWT_TESTS := $(FWT_DIR)/test_firmware_boot

$(FWT_DIR)/test_%: tests/firmware/test_%.c $(MODEL_OBJ) $(MODEL_BOOT_OBJ) $(HOST_ASAN_OBJS) $(LSIM_LIB) $(SIM_LIB) $(HW_H) \
    host/src/link.h host/src/link_frame.h sim/sgpu_link_sim.h tests/model/sgpu_ref.h \
    $(FW_DIR)/boot_icebreaker.bin
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src -Itests/model -O1 -g $(SAN) -o $@ $< $(MODEL_OBJ) $(MODEL_BOOT_OBJ) $(HOST_ASAN_OBJS) \
	  $(LSIM_LIB) $(SIM_LIB) $(HOST_LDLIBS)

TESTS += $(FWT_TESTS)
.PHONY: firmware-tests
firmware-tests: $(FWT_TESTS)
