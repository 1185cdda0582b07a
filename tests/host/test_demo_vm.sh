#!/usr/bin/env bash
# The demo renders the same frames from a VM context as from a physical one
# (GPU virtual memory, docs/vm.md): `sgpu-demo --vm` maps its framebuffers,
# sprite sheet and command buffers into a VM context and draws and flips by
# virtual address; each captured frame's CRC-32 must equal the physical
# run's, and its frames must equal the independent rendering of the scene
# (tests/host/frame_ref.py).  On a device without CAPS.VM, --vm is refused
# in one line (exit 3) and the comparison is skipped (said so).
# The --vm run counts its MMUs' work (SGPU_SIM_MMU_STATS, sim/sgpu_sim.h):
# per kind of MMU (IB fetch, writer, 2D engine) the translations (virtual
# requests accepted, each by a TLB hit), the page checks' probes and the TLB
# misses (walks); FIGURE lines give them and the hit rate,
# 1 - misses / (translations + probes).
set -u
BIN=${SGPU_BIN:?SGPU_BIN must name the directory of the built programs}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }
N=3

"$BIN/sgpu-demo" --help | grep -q -- '--vm ' && ok "sgpu-demo --help lists --vm" || bad "--help lacks --vm"
"$BIN/sgpu" --json info >"$T/info.json" 2>&1
has=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["has_vm"])' "$T/info.json" 2>/dev/null)
if [ "$has" != True ]; then
  "$BIN/sgpu-demo" --vm --out "$T/vm" --frames 1 --budget 0 >"$T/log" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'no GPU virtual memory (CAPS.VM = 0)' "$T/err" \
    && ok "sgpu-demo --vm refused without CAPS.VM" || bad "sgpu-demo --vm: exit $rc $(cat "$T/err")"
  echo "skipped: the device has no GPU virtual memory (CAPS.VM = 0): no frames to compare"
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]; exit
fi

"$BIN/sgpu-demo" --out "$T/phys" --frames $N --budget 0 >"$T/phys.log" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "sgpu-demo (physical) exits 0" || { bad "sgpu-demo exit $rc"; cat "$T/phys.log"; }
SGPU_SIM_MMU_STATS="$T/mmu" "$BIN/sgpu-demo" --vm --out "$T/vm" --frames $N --budget 0 >"$T/vm.log" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "sgpu-demo --vm exits 0" || { bad "sgpu-demo --vm exit $rc"; cat "$T/vm.log"; }
grep -q 'VM context: framebuffers at va' "$T/vm.log" && ok "the --vm run drew from a VM context" \
  || bad "no VM context line in $(cat "$T/vm.log")"
crcs() { sed -n 's/^frame .*crc32 \([0-9a-f]*\),.*/\1/p' "$1"; }
crcs "$T/phys.log" >"$T/phys.crc"; crcs "$T/vm.log" >"$T/vm.crc"
[ "$(wc -l <"$T/phys.crc")" -eq $N ] && cmp -s "$T/phys.crc" "$T/vm.crc" \
  && ok "the $N frames' CRC-32s are the same from the VM context ($(tr '\n' ' ' <"$T/vm.crc"))" \
  || bad "frame CRCs differ: physical $(tr '\n' ' ' <"$T/phys.crc") vm $(tr '\n' ' ' <"$T/vm.crc")"
python3 "$HERE/frame_ref.py" demo "$T/vm" $N >"$T/ref" 2>&1 \
  && ok "the VM run's frames equal the independent rendering of the scene" || { bad "VM frames differ"; cat "$T/ref"; }
# TLB hit rate of the --vm run, per kind of MMU and in all
if [ -s "$T/mmu" ] && python3 - "$T/mmu" >"$T/mmu.out" 2>&1 <<'PY'
import sys
tot = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 2 or f[0] != "mmu":
        continue
    d = tot.setdefault(f[1], {})
    for k, v in zip(f[2::2], f[3::2]):
        d[k] = d.get(k, 0) + int(v)
all_ = {}
for kind in ("fetch", "writer", "2d"):
    d = tot[kind]
    for k, v in d.items():
        all_[k] = all_.get(k, 0) + v
for kind, d in list(tot.items()) + [("all", all_)]:
    look = d["translations"] + d["probes"]
    rate = 1 - d["walks"] / look if look else 0.0
    lat = d["walk_cycles"] / d["walks"] if d["walks"] else 0.0
    print(f"FIGURE demo_vm_tlb_{kind} lookups {look} (translations {d['translations']} probes {d['probes']}) "
          f"misses {d['walks']} (directory reads {d['dir_reads']} table reads {d['table_reads']}) "
          f"hit_rate {100 * rate:.2f} % walk_cycles_mean {lat:.2f}")
ok = (tot["fetch"]["translations"] > 0 and tot["2d"]["translations"] > 0 and tot["writer"]["translations"] > 0
      and 0 < all_["walks"] < all_["translations"] + all_["probes"])
sys.exit(0 if ok else 1)
PY
then
  cat "$T/mmu.out"
  ok "the --vm run's MMUs translated (fetch, writer, 2D engine) with TLB misses counted"
else
  bad "MMU counters of the --vm run: $(cat "$T/mmu" "$T/mmu.out" 2>/dev/null)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
