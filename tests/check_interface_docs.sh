#!/usr/bin/env bash
# docs/interface.md must be exactly what tools/hwspec.py generates.
set -eu
cd "$(dirname "$0")/.."
python3 tools/genhw.py --check-md docs/interface.md
echo "docs/interface.md matches tools/hwspec.py"
