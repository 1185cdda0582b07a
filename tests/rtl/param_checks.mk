# Parameter preconditions stop elaboration in Icarus Verilog, Verilator and
# yosys, and legal configurations elaborate (tests/rtl/param_checks.sh; it
# elaborates what it checks itself and needs only the generated header).
TESTS += tests/rtl/param_checks.sh
tests/rtl/param_checks.sh: $(HW_VH)
