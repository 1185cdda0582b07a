#!/bin/bash
# test_layers.sh — the host library's files call each other one way only:
# no circle of calls between host/src's files, and the transports never
# call up into the device core (docs/architecture.md, "The host library's
# layers").  tests/host/layers.py reads the objects' symbols with nm; its
# self-test first shows that a circle put back is found.
set -euo pipefail
root=${SGPU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
obj=${SGPU_BIN:-$root/build/bin}/../host/obj
py=${PY:-python3}

"$py" "$root/tests/host/layers.py" --self-test

# The objects of the sources there are now (not stale ones of files gone).
objs=()
for src in "$root"/host/src/*.c; do
  o=$obj/$(basename "$src" .c).o
  [ -f "$o" ] || { echo "test_layers: $o is missing (make build/lib/libsgpu.a)"; exit 1; }
  objs+=("$o")
done
# The transports: they may use one another, nothing of the core.
transports=transport,transport_sim,transport_usb,link,link_chan,link_frame,scanout
"$py" "$root/tests/host/layers.py" --closed "$transports" "${objs[@]}"

# Nor do their sources see the device: no core header (the device lock and
# the device's state are inline code and fields, which nm cannot see).
core='internal|error|regs|alloc|shadow|evq|ring|events|identity'
bad=0
for f in ${transports//,/ }; do
  for src in "$root/host/src/$f.c" "$root/host/src/$f.h"; do
    [ -f "$src" ] || continue
    if grep -nE "^#include \"($core)\.h\"" "$src"; then
      echo "test_layers: FAILED: $(basename "$src"), a transport, includes a header of the device core"
      bad=1
    fi
  done
done
[ $bad -eq 0 ] && echo "layers: the transports include no header of the device core"
exit $bad
