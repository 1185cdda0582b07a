# sgpud, the device server (docs/sgpud.md): host/sgpud/*.c over the
# library's public API (and the protocol header host/src/remote_proto.h),
# into $(BUILD)/bin/sgpud (installed with the other programs) and, with
# sanitizers, $(BUILD)/asan/bin/sgpud for the tests.
HOST_SGPUD_SRCS := $(sort $(wildcard host/sgpud/*.c))
HOST_SGPUD      := $(BUILD)/bin/sgpud
HOST_ASAN_SGPUD := $(BUILD)/asan/bin/sgpud

$(HOST_SGPUD): $(HOST_SGPUD_SRCS) $(HOST_LIB_A) $(HOST_HDRS) host/src/remote_proto.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src $(OPT) -o $@ $(HOST_SGPUD_SRCS) $(HOST_LIB_A) $(HOST_LDLIBS)

$(HOST_ASAN_SGPUD): $(HOST_SGPUD_SRCS) $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_HDRS) host/src/remote_proto.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src -O1 -g $(SAN) -o $@ $(HOST_SGPUD_SRCS) $(HOST_ASAN_OBJS) \
	  $(SIM_LIB) $(HOST_LDLIBS)

# The test program with sanitizers too (the library's client side under
# ASan/UBSan); the plain one is for valgrind and the figures.
HOST_ASAN_SGPUD_CLIENT := $(BUILD)/asan/tests/bench_sgpud
$(HOST_ASAN_SGPUD_CLIENT): tests/host/bench_sgpud.c $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_HDRS) host/src/remote_proto.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O1 -g $(SAN) -o $@ $< $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_LDLIBS)

ALL_TARGETS += $(HOST_SGPUD)
$(BUILD)/tests/host/test_sgpud.sh: $(HOST_SGPUD) $(HOST_ASAN_SGPUD) $(HOST_ASAN_SGPUD_CLIENT)

# The system service: a systemd unit (the installed sgpud's path put in) and
# a udev rule giving the boards' USB/serial nodes to the sgpu group.
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
UDEV_RULES_DIR   ?= $(PREFIX)/lib/udev/rules.d
SGPU_DOC_DIR     ?= $(PREFIX)/share/doc/sgpu
HOST_SGPUD_UNIT  := $(BUILD)/sgpud/sgpud.service

$(HOST_SGPUD_UNIT): host/sgpud/sgpud.service.in host/sgpud/sgpud.mk
	@mkdir -p $(dir $@)
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@DOCDIR@|$(SGPU_DOC_DIR)|g' $< >$@

ALL_TARGETS += $(HOST_SGPUD_UNIT)
$(BUILD)/tests/host/test_sgpud.sh: $(HOST_SGPUD_UNIT)

.PHONY: install-sgpud
install: install-sgpud
install-sgpud: $(HOST_SGPUD) $(HOST_SGPUD_UNIT)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SYSTEMD_UNIT_DIR) $(DESTDIR)$(UDEV_RULES_DIR) \
	  $(DESTDIR)$(SGPU_DOC_DIR)
	install -m 755 $(HOST_SGPUD) $(DESTDIR)$(PREFIX)/bin/sgpud
	install -m 644 $(HOST_SGPUD_UNIT) $(DESTDIR)$(SYSTEMD_UNIT_DIR)/sgpud.service
	install -m 644 host/sgpud/70-sgpu.rules $(DESTDIR)$(UDEV_RULES_DIR)/70-sgpu.rules
	install -m 644 docs/sgpud.md $(DESTDIR)$(SGPU_DOC_DIR)/sgpud.md

# The host test suite run through sgpud (tests/host/test_host_suite_sgpud.sh):
# the sanitizer builds of the tests and the server.
$(BUILD)/tests/host/test_host_suite_sgpud.sh: $(HOST_TEST_C) $(HOST_SGPUD)
