# Project-wide checks: RTL lint, iCE40 synthesis, generated docs up to date,
# plain make naming missing packages, the README's figures those of
# docs/figures.md.
TEST_SCRIPTS := tests/check_interface_docs.sh tests/check_make_deps.sh tests/check_readme_figures.sh tests/lint_rtl.sh tests/synth_ice40.sh tests/pnr_icebreaker.sh
TESTS += $(TEST_SCRIPTS)
$(TEST_SCRIPTS): $(HW_VH) $(HW_H)
tests/pnr_icebreaker.sh: $(FW_DIR)/boot_icebreaker.hex

# Each verification area keeps its rules in its own fragment
# (tests/<area>/<area>.mk): formal proofs, fuzzing, differential testing, coverage.
# The reference model's objects (rules in tests/model/model.mk), named here
# because fragments read before that one list them as prerequisites.
MODEL_DIR      := $(BUILD)/tests/model
MODEL_OBJ      := $(MODEL_DIR)/sgpu_ref.o
MODEL_BOOT_OBJ := $(MODEL_DIR)/sgpu_ref_boot.o
include $(sort $(wildcard tests/*/*.mk))
