#!/usr/bin/env bash
# The base of `make bench BASE=<commit>` (tests/bench/bench.mk): a git
# worktree of the commit, detached, at DIR (build/bench/base-<short sha>),
# and in it the commit's own model and host library, built by the commit's
# own makefiles (whatever its rtl/ layout or build options were):
#   build/gen/sgpu_hw.h, build/sim/libsgpu_sim.a, build/lib/libsgpu.a
# Those three paths are what every commit since the bench began offers.
# A worktree already at the commit is reused with what it has built; one
# at another commit (or a folder left by `make clean`) is replaced.
#   tests/bench/bench_base.sh SHA DIR [JOBS]
set -euo pipefail
sha=$1 dir=$2 jobs=${3:-2}
say() { echo "bench: base: $*" >&2; }
git worktree prune
if [ -e "$dir" ]; then
  have=$(git -C "$dir" rev-parse --verify --quiet HEAD 2>/dev/null || true)
  top=$(git -C "$dir" rev-parse --show-toplevel 2>/dev/null || true)
  if [ "$have" != "$sha" ] || [ "$(cd "$dir" && pwd -P)" != "$(cd "$top" 2>/dev/null && pwd -P)" ]; then
    say "replacing $dir (not a worktree at ${sha:0:12})"
    git worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
    git worktree prune
  fi
fi
if [ ! -e "$dir" ]; then
  say "git worktree add --detach $dir ${sha:0:12}"
  mkdir -p "$(dirname "$dir")"
  git worktree add --detach --quiet "$dir" "$sha"
fi
# The commit's own make, with none of this run's variables: make puts the
# command line's (BASE, QUICK, BUILD...) and MAKEFLAGS in the environment.
say "building its model and host library in $dir ($(git -C "$dir" log -1 --format='%h %s' | cut -c1-60))"
env -i PATH="$PATH" HOME="${HOME:-/}" ${TMPDIR:+TMPDIR="$TMPDIR"} ${LANG:+LANG="$LANG"} \
  make --no-print-directory -s -C "$dir" -j"$jobs" BUILD=build \
  build/gen/sgpu_hw.h build/sim/libsgpu_sim.a build/lib/libsgpu.a
