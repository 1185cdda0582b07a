# coverage fragment: Verilator line and toggle coverage of rtl/ per module.
#
# Producers: the Verilator builds of the unit testbenches (rtl/rtl.mk,
# <tb>-verilator, line + toggle) and the chip tests linked with the coverage
# variant of the model (sim/sim.mk, line only).  Each writes its counters into
# $SGPU_COVERAGE_DIR when that is set.  `make test` sets it to a folder it
# empties first, and runs tests/coverage/check_coverage.sh after every other
# test (TESTS_LAST): it merges the files (verilator_coverage), writes
# build/coverage/report.md and build/coverage/annotated/, prints FIGURE
# coverage_line_<module> / coverage_toggle_<module>, and fails when a module
# is below 90% lines without a waiver (tests/coverage/waivers.txt).
# `make coverage` runs just the producers and the report.

COV_DIR    := $(BUILD)/coverage
COV_DATA   := $(COV_DIR)/data
COV_CHECK  := tests/coverage/check_coverage.sh
COV_PRODUCERS = $(RTL_VL_BINS) $(CHIP_TESTS)
TESTS_LAST += $(COV_CHECK)

# Only this run's files count: stale ones from an earlier run would inflate it.
test: coverage-reset
test: export SGPU_COVERAGE_DIR := $(abspath $(COV_DATA))

.PHONY: coverage coverage-reset
coverage-reset:
	@rm -rf $(COV_DATA) && mkdir -p $(COV_DATA)

coverage: $(HW_VH)
	@$(MAKE) --no-print-directory -j$(JOBS) $(COV_PRODUCERS)
	@rm -rf $(COV_DATA) && mkdir -p $(COV_DATA)
	@SGPU_COVERAGE_DIR=$(abspath $(COV_DATA)) bash tests/run_tests.sh $(COV_PRODUCERS) --last $(COV_CHECK)
