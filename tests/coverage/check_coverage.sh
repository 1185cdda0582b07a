#!/usr/bin/env bash
# The last test of `make test`: per-module line and toggle coverage of rtl/
# from the coverage files the tests before it wrote into $SGPU_COVERAGE_DIR;
# fails when a module's line coverage is below 90% and its waiver's minimum.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 tests/coverage/coverage.py --check "$@"
