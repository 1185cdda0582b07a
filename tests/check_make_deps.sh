#!/usr/bin/env bash
# Plain `make` on a machine without the build's Debian packages must name
# what is missing and the command that installs it, before any compiler
# runs.  The machine is faked: a dpkg-query first in PATH that reports every
# package installed except libpng-dev and libsdl2-dev.
set -u
cd "$(dirname "$0")/.."
fake=$(mktemp -d); trap 'rm -rf "$fake"' EXIT
cat >"$fake/dpkg-query" <<'FAKE'
#!/bin/sh
for a in "$@"; do
  case "$a" in -*|'${'*) continue ;; libsdl2-dev|libpng-dev) ;; *) echo "$a install ok installed" ;; esac
done
FAKE
chmod +x "$fake/dpkg-query"
fail=0
check() { if [ "$1" = ok ]; then echo "ok: $2"; else echo "FAIL: $2" >&2; fail=1; fi; }

out=$(PATH="$fake:$PATH" bash tools/bootstrap.sh --check); rc=$?
[ $rc -ne 0 ] && check ok "--check fails when packages are missing" || check bad "--check exit status $rc"
grep -q "libpng-dev libsdl2-dev" <<<"$out" && check ok "it names them" || check bad "names: $out"
grep -q "sudo apt-get install -y libpng-dev libsdl2-dev" <<<"$out" && check ok "it gives the command" \
  || check bad "command: $out"

# plain make stops with that line, building nothing (a build dir of its own)
out=$(PATH="$fake:$PATH" make --no-print-directory BUILD="$fake/build" 2>&1); rc=$?
[ $rc -ne 0 ] && check ok "make stops" || check bad "make exit status $rc"
grep -q "missing Debian packages: libpng-dev libsdl2-dev" <<<"$out" && check ok "make names them" \
  || check bad "make said: $out"
# (the make fragments' configuration file, boards.cfg, is written while
# reading them; nothing else may be)
built=$(find "$fake/build" -type f ! -name boards.cfg 2>/dev/null)
[ -z "$built" ] && check ok "nothing was built" || check bad "make built $built"

# the real machine has everything: --check is silent and succeeds
out=$(bash tools/bootstrap.sh --check); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && check ok "nothing missing here: silent" || check bad "here: rc $rc, '$out'"
exit $fail
