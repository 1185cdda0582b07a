#!/usr/bin/env bash
# The CLI's input limits, run on the sanitizer build of the CLI
# ($SGPU_ASAN_BIN/sgpu: ASan/UBSan, like the library's cmocka tests):
#   - an expression nested 20,000 deep (`nop (((...1...)))`, 40 KB) is an
#     assembly error naming FILE:LINE:COLUMN and the limit, through
#     `sgpu asm` and `sgpu submit` (it used to overflow the stack);
#   - a file of exactly SGPU_ASM_MAX_TEXT (64 MiB) bytes is read, one byte
#     more is refused with a message saying the limit ("at most N bytes").
set -u
TAP_BIN=${SGPU_ASAN_BIN:?SGPU_ASAN_BIN must name the directory of the sanitizer-built CLI}
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

python3 - "$T" <<'PY'
import sys
d = 20000
t = sys.argv[1]
open(t + "/deep.s", "w").write("; deep\nnop " + "(" * d + "1" + ")" * d + "\n")
open(t + "/unary.s", "w").write(".word " + "-" * (2 * d) + "1\n")
PY

# column of the '(' past the limit: "nop " is 4 characters, the limit 64
"$SGPU" asm "$T/deep.s" -o "$T/deep.bin" >"$T/out" 2>"$T/err"; rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] \
   && grep -q "deep.s:2:69: error: expression nested too deeply (at most 64 levels" "$T/err"; then
  ok "asm: 20,000-deep expression refused: $(cat "$T/err")"
else
  bad "asm of the deep expression: exit $rc, $(head -c 600 "$T/err")"
fi
[ ! -e "$T/deep.bin" ] && ok "asm: no output written" || bad "asm wrote $T/deep.bin"

"$SGPU" asm "$T/unary.s" -o "$T/unary.bin" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "unary.s:1:71: error: expression nested too deeply" "$T/err" \
  && ok "asm: 40,000 unary minuses refused" || bad "asm unary: exit $rc, $(head -c 600 "$T/err")"

"$SGPU" submit "$T/deep.s" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "deep.s:2:69: error: expression nested too deeply" "$T/err" \
  && ok "submit: 20,000-deep expression refused" || bad "submit deep: exit $rc, $(head -c 600 "$T/err")"

"$SGPU" --json submit "$T/deep.s" >"$T/out" 2>"$T/err"; rc=$?
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["exit"]==2 and "nested too deeply" in j["error"], j' \
  "$T/out" && [ "$rc" -eq 2 ] && ok "submit --json: the error as JSON" || bad "submit --json deep: exit $rc, $(head -c 300 "$T/out")"

# exactly 64 MiB of blank lines assembles (to nothing); one byte more does not
head -c 67108864 /dev/zero | tr '\0' '\n' >"$T/big.s"
"$SGPU" asm "$T/big.s" -o "$T/big.bin" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 0 ] && [ -f "$T/big.bin" ] && [ ! -s "$T/big.bin" ] \
  && ok "asm: a text of exactly 67108864 bytes is accepted" || bad "64 MiB text: exit $rc, $(cat "$T/err")"
printf '\n' >>"$T/big.s"
"$SGPU" asm "$T/big.s" -o "$T/big.bin" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "over the size limit (at most 67108864 bytes)" "$T/err" \
  && ok "asm: 67108865 bytes refused: $(cat "$T/err")" || bad "64 MiB + 1: exit $rc, $(cat "$T/err")"
rm -f "$T/big.s"
# a binary of exactly 64 MiB (16 Mi words, the assembler's output limit too) is read whole
head -c 67108864 /dev/zero >"$T/big.bin"
"$SGPU" submit --segment 1 --no-wait "$T/big.bin" >"$T/out" 2>"$T/err"; rc=$?
if grep -q "size limit" "$T/err"; then bad "64 MiB binary refused as too large: $(cat "$T/err")"
else ok "submit: a 64 MiB binary is not refused by the size limit (exit $rc: $(head -c 200 "$T/err"))"; fi
rm -f "$T/big.bin"

tap_finish
