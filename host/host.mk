# host fragment: libsgpu (static + shared + pkg-config), the sgpu CLI, the
# examples (host/examples/<name>.c -> sgpu-<name>), the host tests and
# `make install`.  Wildcards, so new files are picked up without edits here.

SIM_LIB    ?= $(BUILD)/sim/libsgpu_sim.a
SIM_LDLIBS ?= -lstdc++ -lz -lpthread

# Boards on USB (the usb: transport, sgpu list): libftdi1 over libusb-1.0,
# built in where pkg-config finds both (HAVE_USB=0 leaves them out; usb:
# URIs are then refused with SGPU_ERROR_NOT_SUPPORTED).  Only
# host/src/transport_usb.c includes their headers.
USB_PKGS  := libftdi1 libusb-1.0
HAVE_USB  ?= $(shell pkg-config --exists $(USB_PKGS) 2>/dev/null && echo 1 || echo 0)
ifeq ($(HAVE_USB),1)
USB_CFLAGS := -DSGPU_HAVE_USB $(shell pkg-config --cflags $(USB_PKGS)) \
              $(shell pkg-config --atleast-version=1.5 libftdi1 && echo -DSGPU_FTDI_TCIOFLUSH)
USB_LIBS   := $(shell pkg-config --libs $(USB_PKGS))
endif

HOST_INC     := -I$(GEN) -Ihost/include -Isim
HOST_CFLAGS  := $(WARN) $(CSTD) -D_DEFAULT_SOURCE $(HOST_INC)
HOST_LDLIBS  := $(SIM_LDLIBS) -lpng $(USB_LIBS) -lpthread -lm
HOST_HDRS    := $(wildcard host/include/*.h) $(HW_H) $(HW_TABLES) sim/sgpu_sim.h

HOST_SRCS      := $(sort $(wildcard host/src/*.c))
HOST_OBJS      := $(patsubst host/src/%.c,$(BUILD)/host/obj/%.o,$(HOST_SRCS))
HOST_ASAN_OBJS := $(patsubst host/src/%.c,$(BUILD)/asan/host/%.o,$(HOST_SRCS))
HOST_INT_HDRS  := $(wildcard host/src/*.h)

HOST_LIB_A  := $(BUILD)/lib/libsgpu.a
HOST_LIB_SO := $(BUILD)/lib/libsgpu.so
HOST_PC     := $(BUILD)/lib/sgpu.pc
HOST_CLI    := $(BUILD)/bin/sgpu
HOST_CLI_SRCS := $(sort $(wildcard host/cli/*.c))
HOST_EXAMPLE_SRCS := $(sort $(wildcard host/examples/*.c))
HOST_EXAMPLES := $(patsubst host/examples/%.c,$(BUILD)/bin/sgpu-%,$(HOST_EXAMPLE_SRCS))

.SECONDARY: $(HOST_OBJS) $(HOST_ASAN_OBJS)
$(BUILD)/host/obj/transport_usb.o $(BUILD)/asan/host/transport_usb.o: HOST_CFLAGS += $(USB_CFLAGS)

$(BUILD)/host/obj/%.o: host/src/%.c $(HOST_HDRS) $(HOST_INT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(OPT) -fPIC -c -o $@ $<

$(BUILD)/asan/host/%.o: host/src/%.c $(HOST_HDRS) $(HOST_INT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O1 -g $(SAN) -c -o $@ $<

# The static library carries the simulation model too, so that an installed
# libsgpu.a / libsgpu.so is usable alone (plus its system libraries).
$(HOST_LIB_A): $(HOST_OBJS) $(SIM_LIB)
	@mkdir -p $(dir $@)
	@rm -f $@
	{ echo "create $@"; echo "addlib $(SIM_LIB)"; \
	  for o in $(HOST_OBJS); do echo "addmod $$o"; done; echo save; echo end; } | ar -M
	ranlib $@

$(HOST_LIB_SO): $(HOST_OBJS) $(SIM_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libsgpu.so -o $@ $(HOST_OBJS) \
	  -Wl,--whole-archive $(SIM_LIB) -Wl,--no-whole-archive $(HOST_LDLIBS)

comma := ,
# $(1) prefix, $(2) 1 = with the simulation model, 0 = without (link
# transports only).  `pkg-config --variable=sim sgpu` tells which one is
# installed; `pkg-config --variable=usb sgpu` whether usb: boards are.
# Libs carries -Wl,-rpath,${libdir}: a program linked with
# `pkg-config --libs sgpu` finds the installed libsgpu.so in any prefix at
# run time, without LD_LIBRARY_PATH (tests/host/test_readme.sh checks it).
define HOST_PC_TEXT
prefix=$(1)
libdir=$${prefix}/lib
includedir=$${prefix}/include
sim=$(2)
usb=$(HAVE_USB)

Name: sgpu
Description: host driver library of the sgpu soft-GPU ($(if $(filter 1,$(2)),with its in-process simulation model,without the simulation model: link transports only)$(if $(USB_LIBS),$(comma) with usb boards))
Version: $(SGPU_VERSION)
Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lsgpu -lpng $(if $(filter 1,$(2)),-lstdc++ -lz )$(if $(USB_LIBS),$(strip $(USB_LIBS)) )-lpthread -lm

Cflags: -I$${includedir}
endef
SGPU_VERSION := $(shell sed -n 's/^VERSION_MAJOR *= *//p' tools/hwspec.py).$(shell sed -n 's/^VERSION_MINOR *= *//p' tools/hwspec.py).0

# $(file) is expanded before the recipe runs, so the folder must exist first.
$(HOST_PC): host/host.mk tools/hwspec.py | $(dir $(HOST_PC))
	$(file >$@,$(call HOST_PC_TEXT,$(PREFIX),1))
	@true
$(dir $(HOST_PC)):
	mkdir -p $@

ifneq ($(HOST_CLI_SRCS),)
$(HOST_CLI): $(HOST_CLI_SRCS) $(HOST_LIB_A) $(HOST_HDRS) $(wildcard host/cli/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/cli $(OPT) -o $@ $(HOST_CLI_SRCS) $(HOST_LIB_A) $(HOST_LDLIBS)
ALL_TARGETS += $(HOST_CLI)
endif

$(BUILD)/bin/sgpu-%: host/examples/%.c $(HOST_LIB_A) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(OPT) -o $@ $< $(HOST_LIB_A) $(HOST_LDLIBS)

ALL_TARGETS += $(HOST_LIB_A) $(HOST_PC) $(HOST_EXAMPLES)
# The shared library needs the model's objects compiled position-independent
# (-fPIC); the sim fragment sets SIM_PIC := 1 once they are.
ifeq ($(SIM_PIC),1)
ALL_TARGETS += $(HOST_LIB_SO)
HOST_INSTALL_SO := $(HOST_LIB_SO)
endif

# ---------------------------------------------------------------- without the model
# The same library without the simulation model (-DSGPU_NO_SIM): no
# Verilator, no C++ runtime; `sim` URIs are refused, tcp:/serial: work.
# Built into $(BUILD)/nosim; `make install-nosim` installs it (with a .pc
# whose sim variable is 0) instead of the full one.
HOST_NOSIM_DIR  := $(BUILD)/nosim
HOST_NOSIM_OBJS := $(patsubst host/src/%.c,$(HOST_NOSIM_DIR)/obj/%.o,$(HOST_SRCS))
HOST_NOSIM_A    := $(HOST_NOSIM_DIR)/lib/libsgpu.a
HOST_NOSIM_CLI  := $(HOST_NOSIM_DIR)/bin/sgpu
HOST_NOSIM_LDLIBS := -lpng $(USB_LIBS) -lpthread -lm
.SECONDARY: $(HOST_NOSIM_OBJS)
$(HOST_NOSIM_DIR)/obj/transport_usb.o: HOST_CFLAGS += $(USB_CFLAGS)

$(HOST_NOSIM_DIR)/obj/%.o: host/src/%.c $(HOST_HDRS) $(HOST_INT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -DSGPU_NO_SIM $(OPT) -fPIC -c -o $@ $<

$(HOST_NOSIM_A): $(HOST_NOSIM_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $(HOST_NOSIM_OBJS)

$(HOST_NOSIM_CLI): $(HOST_CLI_SRCS) $(HOST_NOSIM_A) $(HOST_HDRS) $(wildcard host/cli/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/cli $(OPT) -o $@ $(HOST_CLI_SRCS) $(HOST_NOSIM_A) $(HOST_NOSIM_LDLIBS)

.PHONY: nosim install-nosim
nosim: $(HOST_NOSIM_A) $(HOST_NOSIM_CLI)
install-nosim: $(HOST_NOSIM_A) $(HOST_NOSIM_CLI)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(HOST_NOSIM_A) $(DESTDIR)$(PREFIX)/lib/libsgpu.a
	install -m 644 host/include/*.h $(HW_H) $(DESTDIR)$(PREFIX)/include/
	$(file >$(HOST_NOSIM_DIR)/sgpu-install.pc,$(call HOST_PC_TEXT,$(PREFIX),0))
	install -m 644 $(HOST_NOSIM_DIR)/sgpu-install.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/sgpu.pc
	install -m 755 $(HOST_NOSIM_CLI) $(DESTDIR)$(PREFIX)/bin/sgpu

# ---------------------------------------------------------------- tests
# tests/host/test_*.c: one cmocka program each, built with sanitizers
# against the sanitizer build of the library and the model.
# tests/host/test_*.sh: shell tests; a wrapper in $(BUILD)/tests/host runs
# each with SGPU_BIN (built programs) and SGPU_TEST_BIN (test helpers) set.
HOST_TEST_C_SRCS  := $(sort $(wildcard tests/host/test_*.c))
HOST_TEST_SH_SRCS := $(sort $(wildcard tests/host/test_*.sh))
HOST_TEST_C   := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(HOST_TEST_C_SRCS))
HOST_TEST_SH  := $(patsubst tests/host/%.sh,$(BUILD)/tests/host/%.sh,$(HOST_TEST_SH_SRCS))
HOST_TEST_HDRS := $(wildcard tests/host/*.h)
# Helper programs for the shell tests (no sanitizers: valgrind runs them).
HOST_BENCH_SRCS := $(sort $(wildcard tests/host/bench_*.c))
HOST_BENCHES  := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(HOST_BENCH_SRCS))
.SECONDARY: $(HOST_BENCHES)

$(BUILD)/tests/host/test_%: tests/host/test_%.c $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_HDRS) $(HOST_TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Itests/host -O1 -g $(SAN) -o $@ $< $(HOST_ASAN_OBJS) $(SIM_LIB) \
	  -lcmocka $(HOST_LDLIBS)

$(BUILD)/tests/host/bench_%: tests/host/bench_%.c $(HOST_LIB_A) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(OPT) -o $@ $< $(HOST_LIB_A) $(HOST_LDLIBS)

# The CLI built with sanitizers against the sanitizer build of the library
# (SGPU_ASAN_BIN in the shell tests): hostile inputs must not crash it.
HOST_ASAN_CLI := $(BUILD)/asan/bin/sgpu
ifneq ($(HOST_CLI_SRCS),)
$(HOST_ASAN_CLI): $(HOST_CLI_SRCS) $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_HDRS) $(wildcard host/cli/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/cli -O1 -g $(SAN) -o $@ $(HOST_CLI_SRCS) $(HOST_ASAN_OBJS) $(SIM_LIB) \
	  $(HOST_LDLIBS)
endif

$(BUILD)/tests/host/test_%.sh: tests/host/test_%.sh $(HOST_BENCHES) $(HOST_LIB_A) \
    $(if $(HOST_CLI_SRCS),$(HOST_CLI) $(HOST_ASAN_CLI)) $(HOST_EXAMPLES)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nSGPU_BIN=%s SGPU_ASAN_BIN=%s SGPU_TEST_BIN=%s SGPU_ROOT=%s exec bash %s "$$@"\n' \
	  '$(abspath $(BUILD)/bin)' '$(abspath $(BUILD)/asan/bin)' '$(abspath $(BUILD)/tests/host)' \
	  '$(abspath .)' '$(abspath $<)' >$@
	chmod +x $@

TESTS += $(HOST_TEST_C) $(HOST_TEST_SH)

# ---------------------------------------------------------------- boot firmware
# The boot ROM images are built by a host tool (tools/mkboot.c) from the
# library's assembler and frame encoder: firmware/firmware.mk.
include firmware/firmware.mk

# ---------------------------------------------------------------- install
DESTDIR ?=
install: $(HOST_LIB_A) $(HOST_INSTALL_SO) $(if $(HOST_CLI_SRCS),$(HOST_CLI)) $(HOST_EXAMPLES)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(HOST_LIB_A) $(DESTDIR)$(PREFIX)/lib/libsgpu.a
	$(if $(HOST_INSTALL_SO),install -m 755 $(HOST_LIB_SO) $(DESTDIR)$(PREFIX)/lib/libsgpu.so)
	install -m 644 host/include/*.h $(HW_H) $(DESTDIR)$(PREFIX)/include/
	$(file >$(BUILD)/lib/sgpu-install.pc,$(call HOST_PC_TEXT,$(PREFIX),1))
	install -m 644 $(BUILD)/lib/sgpu-install.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/sgpu.pc
	for b in $(BUILD)/bin/*; do [ -f "$$b" ] && install -m 755 "$$b" $(DESTDIR)$(PREFIX)/bin/; done; true
