# tests/fuzz: libFuzzer targets, one per tests/fuzz/fuzz_<name>.c.
#
# They link a second build of the library (and of the CLI's file-parsing
# sources for fuzz_cli) compiled with clang and the fuzzer sanitizers, in
# $(BUILD)/fuzz; the Verilator model library is linked as built.
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS=...]
#        runs every target N seconds (default 60) from its seed corpus
#        (tests/fuzz/corpus/<name>/) and prints FIGURE fuzz_execs_per_sec_<name>.
# `make test` runs $(BUILD)/tests/fuzz/fuzz_<name>.sh: the target's
# regression inputs (tests/fuzz/regressions/<name>/), then ~5 s of fuzzing;
# any crash fails it.

FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := $(WARN) $(CSTD) -D_DEFAULT_SOURCE $(HOST_INC) -g -O1 $(FUZZ_SAN)

FUZZ_LIB_OBJS := $(patsubst host/src/%.c,$(FUZZ_DIR)/obj/%.o,$(HOST_SRCS))
FUZZ_CLI_SRCS := $(filter-out host/cli/main.c,$(HOST_CLI_SRCS))
FUZZ_CLI_OBJS := $(patsubst host/cli/%.c,$(FUZZ_DIR)/obj/cli/%.o,$(FUZZ_CLI_SRCS))
FUZZ_SRCS     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES    := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRCS))
FUZZ_TARGETS  ?= $(FUZZ_NAMES)
FUZZ_BINS     := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))
FUZZ_TESTS    := $(patsubst %,$(BUILD)/tests/fuzz/fuzz_%.sh,$(FUZZ_NAMES))
FUZZ_HDRS     := $(wildcard tests/fuzz/*.h) $(HOST_HDRS)

.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_CLI_OBJS)

$(FUZZ_DIR)/obj/transport_usb.o: FUZZ_CFLAGS += $(USB_CFLAGS)

$(FUZZ_DIR)/obj/%.o: host/src/%.c $(HOST_HDRS) $(HOST_INT_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/obj/cli/%.o: host/cli/%.c $(HOST_HDRS) $(wildcard host/cli/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Ihost/cli -fsanitize=fuzzer-no-link -c -o $@ $<

# fuzz_cli also links the CLI's sources (all but main.c).
$(FUZZ_DIR)/fuzz_cli: tests/fuzz/fuzz_cli.c $(FUZZ_LIB_OBJS) $(FUZZ_CLI_OBJS) $(SIM_LIB) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Ihost/cli -fsanitize=fuzzer -o $@ $< $(FUZZ_CLI_OBJS) \
	  $(FUZZ_LIB_OBJS) $(SIM_LIB) $(HOST_LDLIBS)

# fuzz_link_client's device is the host tests' fake device.
$(FUZZ_DIR)/fuzz_link_client: tests/host/link_fake_dev.h host/src/link.h

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS) $(SIM_LIB) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(SIM_LIB) $(HOST_LDLIBS)

$(BUILD)/tests/fuzz/fuzz_%.sh: $(FUZZ_DIR)/fuzz_% tests/fuzz/run_fuzz.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nFUZZ_DIR=%s exec bash %s --seconds %s --regressions %s "$$@"\n' \
	  '$(abspath $(FUZZ_DIR))' '$(abspath tests/fuzz/run_fuzz.sh)' '$${FUZZ_TEST_SECONDS:-5}' \
	  '$*' >$@
	chmod +x $@

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
	FUZZ_DIR=$(abspath $(FUZZ_DIR)) bash tests/fuzz/run_fuzz.sh --seconds $(FUZZ_SECONDS) \
	  --keep-corpus $(FUZZ_TARGETS)

TESTS += $(FUZZ_TESTS)

# Regression tests for bugs the fuzzers found (tests/fuzz/regress_*.c): plain
# cmocka programs built like the host tests (gcc, ASan/UBSan).
FUZZ_REGRESS_SRCS := $(sort $(wildcard tests/fuzz/regress_*.c))
FUZZ_REGRESS      := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_REGRESS_SRCS))
$(BUILD)/tests/fuzz/regress_%: tests/fuzz/regress_%.c $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O1 -g $(SAN) -o $@ $< $(HOST_ASAN_OBJS) $(SIM_LIB) -lcmocka $(HOST_LDLIBS)
TESTS += $(FUZZ_REGRESS)
