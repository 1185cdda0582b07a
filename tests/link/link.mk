# link tests: the link client against sgpu-sim's link server (the chip
# behind its host-bridge RTL).  Helper programs are built twice: against the
# full library (sanitizers, with the model) and against the library built
# without the model (build/nosim), which must work through tcp:.
LINK_TEST_DIR  := $(BUILD)/tests/link
LINK_HELPERS   := $(LINK_TEST_DIR)/link_workload $(LINK_TEST_DIR)/link_workload_nosim \
                  $(LINK_TEST_DIR)/link_upload $(LINK_TEST_DIR)/link_upload_nosim \
                  $(LINK_TEST_DIR)/link_errors $(LINK_TEST_DIR)/link_stats
LINK_TEST_SH   := $(patsubst tests/link/%.sh,$(LINK_TEST_DIR)/%.sh,$(sort $(wildcard tests/link/test_*.sh)))
LINK_HOST_HDRS := $(wildcard host/include/*.h) $(HW_H) host/src/link.h host/src/internal.h
.SECONDARY: $(LINK_HELPERS)

$(LINK_TEST_DIR)/%_nosim: tests/link/%.c $(HOST_NOSIM_A) $(LINK_HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src $(OPT) -o $@ $< $(HOST_NOSIM_A) $(HOST_NOSIM_LDLIBS)

$(LINK_TEST_DIR)/%: tests/link/%.c $(HOST_ASAN_OBJS) $(SIM_LIB) $(LINK_HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src -O1 -g $(SAN) -o $@ $< $(HOST_ASAN_OBJS) $(SIM_LIB) \
	  $(HOST_LDLIBS)

$(LINK_TEST_DIR)/test_%.sh: tests/link/test_%.sh $(LINK_HELPERS) $(SIM_BIN) tests/link/link_lib.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nSGPU_BIN=%s SGPU_LINK_BIN=%s SGPU_ROOT=%s exec bash %s "$$@"\n' \
	  '$(abspath $(BUILD)/bin)' '$(abspath $(LINK_TEST_DIR))' '$(abspath .)' \
	  '$(abspath $<)' >$@
	chmod +x $@

TESTS += $(LINK_TEST_SH)

# The library as a machine without libftdi1/libusb-1.0 builds it:
# transport_usb.c without SGPU_HAVE_USB, linked before the archive (whose
# USB member is then not pulled in) and with no USB library on the line.
$(LINK_TEST_DIR)/test_usb_absent: tests/link/usb_absent.c host/src/transport_usb.c $(HOST_NOSIM_A) $(LINK_HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src -O1 -g -o $@ tests/link/usb_absent.c host/src/transport_usb.c \
	  $(HOST_NOSIM_A) -lpng -lpthread -lm
TESTS += $(LINK_TEST_DIR)/test_usb_absent
.PHONY: link-tests
link-tests: $(LINK_TEST_SH)

# The host test suite (tests/host/test_*.c) built against the library
# without the model, with the sanitizers, and run by
# tests/link/test_host_suite_nosim.sh through tcp: to sgpu-sim
# (SGPU_TEST_DEVICE, see tests/host/host_test.h).  test_validation_regressions
# drives the model's own API (sgpu_sim_*): it needs the model to link.
LINK_NOSIM_ASAN_DIR  := $(BUILD)/asan-nosim/host
LINK_NOSIM_ASAN_OBJS := $(patsubst host/src/%.c,$(LINK_NOSIM_ASAN_DIR)/%.o,$(HOST_SRCS))
LINK_NOSIM_SUITE     := $(patsubst tests/host/%.c,$(LINK_TEST_DIR)/nosim/%,\
                          $(filter-out tests/host/test_validation_regressions.c,$(HOST_TEST_C_SRCS)))
.SECONDARY: $(LINK_NOSIM_ASAN_OBJS) $(LINK_NOSIM_SUITE)

$(LINK_NOSIM_ASAN_DIR)/%.o: host/src/%.c $(HOST_HDRS) $(HOST_INT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -DSGPU_NO_SIM -O1 -g $(SAN) -c -o $@ $<
$(LINK_NOSIM_ASAN_DIR)/transport_usb.o: HOST_CFLAGS += $(USB_CFLAGS)

$(LINK_TEST_DIR)/nosim/test_%: tests/host/test_%.c $(LINK_NOSIM_ASAN_OBJS) $(HOST_HDRS) $(HOST_TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Itests/host -O1 -g $(SAN) -o $@ $< $(LINK_NOSIM_ASAN_OBJS) -lcmocka \
	  $(HOST_NOSIM_LDLIBS)

$(LINK_TEST_DIR)/test_host_suite_nosim.sh: $(LINK_NOSIM_SUITE)

# The usb transport against a fake libusb-1.0/libftdi1 (the test defines
# their functions; the real libraries are not linked): listing, open, FTDI
# set-up, errors and unplugging, without a board.
ifeq ($(HAVE_USB),1)
$(LINK_TEST_DIR)/test_usb_fake: tests/link/test_usb_fake.c tests/host/link_fake_dev.h \
    $(LINK_NOSIM_ASAN_OBJS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(USB_CFLAGS) -Itests/host -O1 -g $(SAN) -o $@ $< $(LINK_NOSIM_ASAN_OBJS) \
	  -lcmocka -lpng -lpthread -lm
TESTS += $(LINK_TEST_DIR)/test_usb_fake
endif

# `make link-bench`: the link's efficiency at 3 Mbaud through tcp: and the
# pseudo-terminal, simulated and wall time (tests/link/bench_link.sh; a
# measurement for make bench, not a test).  Writes $(BUILD)/bench/link.md.
.PHONY: link-bench
link-bench: $(LINK_TEST_DIR)/link_bench_nosim $(SIM_BIN)
	@mkdir -p $(BUILD)/bench
	bash tests/link/bench_link.sh $(SIM_BIN) $(LINK_TEST_DIR)/link_bench_nosim $(BUILD)/bench/link.md

# `make link-upload-errors`: a 1 MiB upload and its read back through 1 %
# byte faults each way, alone (tests/link/test_link_upload_errors.sh, also
# in make test).
.PHONY: link-upload-errors
link-upload-errors: $(LINK_TEST_DIR)/test_link_upload_errors.sh
	$<
