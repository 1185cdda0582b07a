# tests/valgrind: the host C test suite (tests/host/test_*.c) once more, built
# WITHOUT sanitizers against the release library $(HOST_LIB_A), and run under
# valgrind memcheck (errors and definite/indirect leaks fail).  One TESTS
# entry: $(BUILD)/tests/valgrind/run_valgrind.sh.

VG_DIR   := $(BUILD)/valgrind
VG_TESTS := $(patsubst tests/host/%.c,$(VG_DIR)/%,$(HOST_TEST_C_SRCS))

$(VG_DIR)/test_%: tests/host/test_%.c $(HOST_LIB_A) $(HOST_HDRS) $(HOST_TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Itests/host -O1 -g -o $@ $< $(HOST_LIB_A) -lcmocka $(HOST_LDLIBS)

$(BUILD)/tests/valgrind/run_valgrind.sh: tests/valgrind/run_valgrind.sh $(VG_TESTS)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s "$$@"\n' '$(abspath tests/valgrind/run_valgrind.sh)' \
	  '$(abspath $(VG_TESTS))' >$@
	chmod +x $@

.PHONY: valgrind
valgrind: $(BUILD)/tests/valgrind/run_valgrind.sh
	$<

TESTS += $(BUILD)/tests/valgrind/run_valgrind.sh
