#!/usr/bin/env bash
# The figures README.md quotes (its "Figures" table, each row keyed by the
# test and figure names of a row of docs/figures.md's "All figures") are the
# ones docs/figures.md records: tests/readme_figures.py, after its
# self-test (a README copy with a number changed, an unknown key, a number
# outside the table, a row without a number, no rows: each must fail).
set -u
cd "$(dirname "$0")/.."
fail=0
python3 tests/readme_figures.py --self-test README.md docs/figures.md || fail=1
python3 tests/readme_figures.py README.md docs/figures.md || fail=1
exit $fail
