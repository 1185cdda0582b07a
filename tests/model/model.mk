# model fragment: the reference model of the command processor
# (tests/model/sgpu_ref.c), compiled with sanitizers for the tests that link
# it: the differential test (tests/diff) and test_chip_stress.  It calls the
# library's packet checker (host/src/packet_check.c), so those tests link the
# sanitizer build of the library ($(HOST_ASAN_OBJS)).

# (MODEL_DIR, MODEL_OBJ and MODEL_BOOT_OBJ are set in tests/tests.mk, before
# the fragments that name them as prerequisites are read.)
MODEL_CFLAGS  = $(WARN) $(CSTD) -D_DEFAULT_SOURCE $(OPT) $(SAN) -I$(GEN) -Ihost/src -Ihost/include -Isim \
                -Itests/model -Itests/chip -Itests/diff

# The boot ROM replay (tests/model/sgpu_ref_boot.c) for the power-on screen
# tests; it also needs the library's link frame code.
$(MODEL_BOOT_OBJ): tests/model/sgpu_ref_boot.c tests/model/sgpu_ref_boot.h tests/model/sgpu_ref.h \
    host/src/link_frame.h $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(MODEL_CFLAGS) -c -o $@ $<

$(MODEL_OBJ): tests/model/sgpu_ref.c tests/model/sgpu_ref.h host/src/packet_check.h $(HW_H) $(HW_TABLES)
	@mkdir -p $(dir $@)
	$(CC) $(MODEL_CFLAGS) -c -o $@ $<

# test_chip_stress uses the model as its oracle: the chip-test recipe of
# sim/sim.mk plus the model and the library (this explicit rule wins over the
# pattern rule there).
$(BUILD)/tests/chip/test_chip_stress: tests/chip/test_chip_stress.c $(CHIP_UTIL_OBJ) tests/chip/chip_util.h \
    $(MODEL_OBJ) tests/model/sgpu_ref.h $(HOST_ASAN_OBJS) $(SIM_LIB) $(HW_H)
	@mkdir -p $(dir $@)
	$(CC) $(MODEL_CFLAGS) -o $@ $< $(CHIP_UTIL_OBJ) $(MODEL_OBJ) $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_LDLIBS)

.PHONY: model
model: $(MODEL_OBJ)
