# Formal proofs (SymbiYosys with the yowasp yosys of the project venv).
# `make formal` runs every proof; make test runs them through
# tests/formal/run_formal.sh, which prints FIGURE formal_depth_* lines.
FORMAL_SRCS := $(wildcard tests/formal/*.sby tests/formal/*.v)

TESTS += tests/formal/run_formal.sh
tests/formal/run_formal.sh: $(HW_VH)

.PHONY: formal
formal: $(HW_VH)
	BUILD=$(BUILD) FORMAL_FULL=1 bash tests/formal/run_formal.sh
