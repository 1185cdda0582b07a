# Project-wide checks: RTL lint, iCE40 synthesis, generated docs up to date.
TEST_SCRIPTS := tests/check_interface_docs.sh tests/lint_rtl.sh tests/synth_ice40.sh tests/pnr_icebreaker.sh
TESTS += $(TEST_SCRIPTS)
$(TEST_SCRIPTS): $(HW_VH) $(HW_H)
tests/pnr_icebreaker.sh: $(FW_DIR)/boot_icebreaker.hex

# Each verification area keeps its rules in its own fragment
# (tests/<area>/<area>.mk): formal proofs, fuzzing, differential testing, coverage.
include $(sort $(wildcard tests/*/*.mk))
