# sgpu — top-level build.  `make demo` and `make test` are the two commands;
# each part of the project adds its rules in its own fragment (*.mk).
.DEFAULT_GOAL := all
SHELL := /bin/bash

BUILD    ?= build
GEN      := $(BUILD)/gen
PREFIX   ?= /usr/local
PY       ?= python3
CC       ?= cc
CXX      ?= c++
VERILATOR ?= verilator
IVERILOG ?= iverilog
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)

WARN      := -Wall -Wextra -Werror
CSTD      := -std=c11
OPT       ?= -O2 -g
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

HW_H  := $(GEN)/sgpu_hw.h
HW_VH := $(GEN)/sgpu_hw.vh
HW_TABLES := $(GEN)/sgpu_hw_tables.h

# Lists the fragments fill in.
TESTS :=          # executables run by `make test`; each passes by exiting 0
TESTS_LAST :=     # run after all of TESTS: checks of what the tests left (coverage)
ALL_TARGETS :=    # what `make` builds

# genhw.py rewrites an output only when its text changes, so an edit of
# hwspec.py rebuilds only what reads a file that changed; the stamp records
# that the generator ran (without it make would run it again every time an
# output kept its old date).  A deleted output is written again.
HW_GEN_CMD := $(PY) tools/genhw.py --c $(HW_H) --v $(HW_VH) --tables $(HW_TABLES) --vregs $(GEN)
$(GEN)/hw.stamp: tools/hwspec.py tools/genhw.py
	$(HW_GEN_CMD)
	@touch $@
# The register blocks' Verilog fragments come with sgpu_hw.vh (which carries
# their digest, so whatever depends on it rebuilds when one changes).
HW_VREGS := $(addprefix $(GEN)/sgpu_regs_,node.vh source.vh global.vh mirror.vh)
$(HW_H) $(HW_VH) $(HW_TABLES): $(GEN)/hw.stamp
	@for f in $@ $(if $(filter $(HW_VH),$@),$(HW_VREGS)); do test -f $$f || { $(HW_GEN_CMD); break; }; done

docs/interface.md: tools/hwspec.py tools/genhw.py
	$(PY) tools/genhw.py --md $@

.PHONY: all docs bootstrap test demo clean install
docs: docs/interface.md

include rtl/rtl.mk
include sim/sim.mk
include sim/link.mk
include host/host.mk
include tests/tests.mk
include tools/board.mk

all: $(HW_H) $(HW_VH) $(HW_TABLES) $(ALL_TARGETS)

# Plain `make` on a machine without the build's packages stops here and
# names them with the command that installs them, before a compiler stops at
# a missing header (make demo and make test install them first).
ifneq ($(filter all,$(or $(MAKECMDGOALS),all)),)
DEPS_MISSING := $(shell bash tools/bootstrap.sh --check)
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING))
endif
endif

bootstrap:
	@bash tools/bootstrap.sh

# `make test`: bootstrap, build every test, run them all, one summary line.
test: bootstrap
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TESTS) $(TESTS_LAST)
	@bash tests/run_tests.sh $(TESTS) --last $(TESTS_LAST)

# `make demo`: bootstrap, build, then the animated scene on the in-process model.
demo: bootstrap
	@$(MAKE) --no-print-directory -j$(JOBS) all
	$(BUILD)/bin/sgpu-demo --out $(BUILD)/demo

clean:
	rm -rf $(BUILD)
