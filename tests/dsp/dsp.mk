# dsp fragment: sgpu_dsp_add / sgpu_dsp_counter on their iCE40 SB_MAC16
# path, simulated with the yosys cell model and synthesized for cost
# (tests/dsp/dsp_equiv.sh).  The plain-Verilog path is the module testbench
# tests/rtl/tb_sgpu_dsp_add.v that rtl/rtl.mk already runs.  The script needs
# nothing built (no generated headers): it compiles what it runs.
TESTS += tests/dsp/dsp_equiv.sh
