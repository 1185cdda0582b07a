#!/usr/bin/env bash
# No register offset, stride, field slice, range or reset value written by
# hand in rtl/ or host/ (tests/check_reg_literals.py): first its self-test
# (snippets with hand-written numbers are flagged, generated names pass),
# then the scan of the tree.
set -eu
cd "$(dirname "$0")/.."
python3 tests/check_reg_literals.py --self-test
python3 tests/check_reg_literals.py
