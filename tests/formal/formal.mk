# Formal proofs (SymbiYosys with the yowasp yosys of the project venv).
# `make formal` and make test run every proof (the host bridge's "full" task,
# which reaches a retransmitted frame, included) through
# tests/formal/run_formal.sh, which prints FIGURE formal_depth_* lines.
# The assertions in rtl/'s `ifdef FORMAL blocks also run in simulation: the
# model of sim/sim.mk's assertion variant (--assert, FORMAL defined) under
# tests/diff's seeds (diff_assert_seeds.sh).
FORMAL_SRCS := $(wildcard tests/formal/*.sby tests/formal/*.v)

TESTS += tests/formal/run_formal.sh
tests/formal/run_formal.sh: $(HW_VH)

.PHONY: formal
formal: $(HW_VH)
	BUILD=$(BUILD) bash tests/formal/run_formal.sh
