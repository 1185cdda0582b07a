# diff fragment: random differential testing of the RTL against the reference
# model (tests/model), and the "validation is exact" test.
#
#   make test              runs $(BUILD)/tests/diff/diff_seeds.sh (2000 fixed seeds)
#                          $(BUILD)/tests/diff/test_validate_exact, test_regs_diff and
#                          test_diff_regressions
#   make soak SEEDS=N      N random seeds (the base seed is printed)
#   build/tests/diff/sgpu_diff --seed S --verbose   one seed, with listing and traces

DIFF_DIR        := $(BUILD)/tests/diff
DIFF_BIN        := $(DIFF_DIR)/sgpu_diff
DIFF_MODEL_OBJ  := $(BUILD)/tests/model/sgpu_ref.o
DIFF_GEN_OBJ    := $(DIFF_DIR)/diff_gen.o
DIFF_HDRS       := tests/diff/diff_gen.h tests/model/sgpu_ref.h tests/chip/chip_util.h sim/sgpu_sim.h \
                   host/src/packet_check.h $(HOST_HDRS)
DIFF_SEEDS      ?= 2000
SEEDS           ?= 10000

$(DIFF_DIR)/%.o: tests/diff/%.c $(DIFF_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(MODEL_CFLAGS) -c -o $@ $<

$(DIFF_BIN): $(DIFF_DIR)/sgpu_diff.o $(DIFF_GEN_OBJ) $(DIFF_MODEL_OBJ) $(CHIP_UTIL_OBJ) $(HOST_ASAN_OBJS) $(SIM_LIB)
	$(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(HOST_LDLIBS)

$(DIFF_DIR)/test_validate_exact: $(DIFF_DIR)/test_validate_exact.o $(DIFF_GEN_OBJ) $(CHIP_UTIL_OBJ) \
    $(HOST_ASAN_OBJS) $(SIM_LIB)
	$(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(HOST_LDLIBS)

$(DIFF_DIR)/test_diff_regressions: $(DIFF_DIR)/test_diff_regressions.o $(DIFF_MODEL_OBJ) $(CHIP_UTIL_OBJ) \
    $(HOST_ASAN_OBJS) $(SIM_LIB)
	$(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(HOST_LDLIBS)

$(DIFF_DIR)/test_regs_diff: $(DIFF_DIR)/test_regs_diff.o $(DIFF_MODEL_OBJ) $(CHIP_UTIL_OBJ) $(HOST_ASAN_OBJS) $(SIM_LIB)
	$(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(HOST_LDLIBS)

# The make-test entry: a fixed set of seeds.
$(DIFF_DIR)/diff_seeds.sh: $(DIFF_BIN) tests/diff/diff.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s --seeds %s --base 1 "$$@"\n' '$(abspath $(DIFF_BIN))' '$(DIFF_SEEDS)' >$@
	chmod +x $@

# The same runner on the model with assertions on (sim/sim.mk,
# SIM_ASSERT_LIB), seeds after the fixed ones: traffic of every packet kind,
# both nodes at once, memory stalls, resets and faults through every
# assertion that stands next to a handshake in rtl/.  A failing assertion
# aborts the run; the script names the seed it was running (--announce).
# Its figures are not the suite's (the plain run prints them).
DIFF_ASSERT_BIN   := $(DIFF_DIR)/sgpu_diff_assert
DIFF_ASSERT_SEEDS ?= 1000
DIFF_ASSERT_BASE  := $(shell echo $$(($(DIFF_SEEDS) + 1)))
$(DIFF_ASSERT_BIN): $(DIFF_DIR)/sgpu_diff.o $(DIFF_GEN_OBJ) $(DIFF_MODEL_OBJ) $(CHIP_UTIL_OBJ) $(HOST_ASAN_OBJS) \
    $(SIM_ASSERT_LIB)
	$(CC) $(SAN) -o $@ $(filter %.o %.a,$^) $(HOST_LDLIBS)
$(DIFF_DIR)/diff_assert_seeds.sh: $(DIFF_ASSERT_BIN) tests/diff/diff.mk
	@mkdir -p $(dir $@)
	@{ echo '#!/bin/sh'; \
	  echo '# $(DIFF_ASSERT_SEEDS) seeds from $(DIFF_ASSERT_BASE) on the model with assertions on'; \
	  echo 'log=$$(mktemp) || exit 1; trap '"'"'rm -f "$$log"'"'"' EXIT'; \
	  echo '$(abspath $(DIFF_ASSERT_BIN)) --seeds $(DIFF_ASSERT_SEEDS) --base $(DIFF_ASSERT_BASE) --announce >"$$log" 2>&1'; \
	  echo 'rc=$$?'; \
	  echo 'grep -v -e "^FIGURE" -e "^seed " "$$log" | tail -n 40'; \
	  echo 'if [ $$rc -ne 0 ]; then'; \
	  echo '  s=$$(grep "^seed " "$$log" | tail -n 1 | cut -d" " -f2)'; \
	  echo '  echo "FAIL (exit status $$rc) in seed $$s: $(abspath $(DIFF_ASSERT_BIN)) --seed $$s --verbose"'; \
	  echo 'fi'; \
	  echo 'exit $$rc'; } >$@
	@chmod +x $@

# Seeds that once failed, each named after what it was.
#   soak_watchdog_under_heavy_stall: with two nodes and memory refusing 87-88%
#   of requests, a valid packet TIMEOUT on the 30000-cycle watchdog while the
#   other node's COPY held the 2D engine (the runner now scales the watchdog).
DIFF_REGRESSION_SEEDS := 1885279588 1885280023
$(DIFF_DIR)/diff_regression_seeds.sh: $(DIFF_BIN) tests/diff/diff.mk
	@mkdir -p $(dir $@)
	{ echo '#!/bin/sh'; echo '# one seed each; their per-seed figures are not the suite'"'"'s'; \
	  for s in $(DIFF_REGRESSION_SEEDS); do \
	    echo "out=\$$($(abspath $(DIFF_BIN)) --seed $$s 2>&1) || { echo \"\$$out\"; exit 1; }"; \
	    echo "echo \"\$$out\" | grep -v '^FIGURE'"; done; echo 'exit 0'; } >$@
	chmod +x $@

DIFF_TESTS := $(DIFF_DIR)/diff_seeds.sh $(DIFF_DIR)/test_validate_exact $(DIFF_DIR)/test_regs_diff \
              $(DIFF_DIR)/test_diff_regressions $(DIFF_DIR)/diff_regression_seeds.sh \
              $(DIFF_DIR)/diff_assert_seeds.sh
TESTS += $(DIFF_TESTS)

.PHONY: soak diff
diff: $(DIFF_BIN) $(DIFF_TESTS)
soak: $(DIFF_BIN)
	$(DIFF_BIN) --random --seeds $(SEEDS)
