#!/usr/bin/env bash
# Install what `make demo` and `make test` need and is missing.  As root it
# uses apt-get; otherwise it prints the exact command to run.
set -u
need_cmds=(verilator iverilog yosys nextpnr-ice40 icepack pkg-config xvfb-run valgrind)
need_pkgs=(verilator iverilog yosys nextpnr-ice40 fpga-icestorm pkg-config xvfb valgrind
           libcmocka-dev libpng-dev libsdl2-dev libusb-1.0-0-dev libftdi1-dev
           clang-14 libclang-rt-14-dev z3 python3-venv openfpgaloader gnuplot-nox)
missing=()
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${need_pkgs[@]}" 2>/dev/null | awk '/install ok installed/ { print $1 }')
for p in "${need_pkgs[@]}"; do
  grep -qx "$p" <<<"$installed" || missing+=("$p")
done
# --check (plain `make`): print one line naming what is missing and the
# command that installs it, nothing when all is there; never installs.
if [ "${1:-}" = --check ]; then
  command -v dpkg-query >/dev/null || exit 0   # not Debian: the compiler will say
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "missing Debian packages: ${missing[*]}; install them with 'sudo apt-get install -y ${missing[*]}' or run 'make bootstrap' as root (make demo and make test do it for you)"
  exit 1
fi
if [ ${#missing[@]} -eq 0 ]; then
  exec bash "$(dirname "$0")/venv.sh"
fi
echo "bootstrap: missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || { echo "bootstrap: apt-get install failed" >&2; exit 1; }
  echo "bootstrap: installed ${missing[*]}"
else
  echo "bootstrap: run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
for c in "${need_cmds[@]}"; do
  command -v "$c" >/dev/null || { echo "bootstrap: '$c' still missing" >&2; exit 1; }
done
# Python tools from PyPI (formal proofs, ECP5 flow) go into a project-local venv.
exec bash "$(dirname "$0")/venv.sh"
