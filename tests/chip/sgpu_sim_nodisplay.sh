#!/usr/bin/env bash
# `sgpu-sim --window` without a display (DISPLAY and WAYLAND_DISPLAY unset):
# it must fail at once, with one line on stderr naming the missing display
# and exit status 1, whether SDL_VIDEODRIVER is unset (SDL would otherwise
# fall back to its offscreen driver and simulate on, windowless, until
# killed) or names a driver that cannot start.  "At once": within the 60 s
# the timeout allows (a loaded machine only slows it); the time is printed.
set -u
SIM=${SGPU_SIM:-build/bin/sgpu-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for drv in "" x11 bogus; do
  if [ -n "$drv" ]; then set_drv=(SDL_VIDEODRIVER="$drv"); else set_drv=(-u SDL_VIDEODRIVER); fi
  t0=$(date +%s%N)
  env -u DISPLAY -u WAYLAND_DISPLAY "${set_drv[@]}" timeout 60 "$SIM" --window --pattern --tiny \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "SDL_VIDEODRIVER=${drv:-(unset)}: exit $rc after $ms ms: $(cat "$tmp/err")"
  [ "$rc" = 1 ] || fail "exit status $rc, not 1 (124: still simulating when killed)"
  [ "$(grep -c . "$tmp/err")" = 1 ] || fail "not one line on stderr"
  grep -q "^sgpu-sim: --window: no display" "$tmp/err" || fail "the line does not say 'no display'"
  [ ! -s "$tmp/out" ] || fail "it printed a summary: $(cat "$tmp/out")"
done
echo "sgpu_sim_nodisplay: PASS"
