#!/usr/bin/env bash
# The reduced benchmark (`make bench QUICK=1 BASE=`: no base commit, the
# current model alone) into build/bench-quick, then checks what it wrote:
# results.json against its schema (every figure with a name, a number, its
# limit and ratio; at least 20 figures; the model's figures there, no base's),
# report.md listing every figure, and at least 3 plots that decode as PNG.
# No duration is checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/bench-quick
rm -rf "$out"
make --no-print-directory -s bench QUICK=1 BASE= BENCH_OUT="$out"
python3 - "$out" <<'PY'
import json, os, struct, sys, zlib
out = sys.argv[1]
doc = json.load(open(os.path.join(out, "results.json")))
assert doc["schema"] == "sgpu-bench/1", doc.get("schema")
assert doc["quick"] is True
figs = doc["figures"]
assert len(figs) >= 20, f"only {len(figs)} figures"
names = set()
for f in figs:
    for k, t in (("name", str), ("group", str), ("unit", str), ("limit_is", str)):
        assert isinstance(f[k], t) and f[k], (k, f)
    for k in ("value", "limit"):
        assert isinstance(f[k], (int, float)), (k, f)
    assert f["ratio"] is None or isinstance(f["ratio"], (int, float)), f
    if f["limit"]:
        assert abs(f["ratio"] - f["value"] / f["limit"]) <= 1e-3 * max(1, abs(f["ratio"])), f
    assert f["name"] not in names, f["name"]
    names.add(f["name"])
for need in ("indirect_fetch_words_per_cycle", "fill_words_per_cycle", "copy_words_per_cycle",
             "last_write_to_fence_visible_cycles", "flip_latency_after_vblank_start_lines",
             "scanout_underflows_max_2d_load", "model_cycles_per_s_idle", "model_cycles_per_s_blit",
             "model_host_instructions_per_cycle_idle", "demo_cycles_per_s", "icarus_cycles_per_s_idle",
             "host_instructions_per_submit"):
    assert need in names, f"missing figure {need}"
byname = {f["name"]: f for f in figs}
assert byname["scanout_underflows_max_2d_load"]["value"] == 0, "scanout underflows under 2D load"
assert doc["model"]["base"] is None and doc["model"]["identical"] is None, doc["model"].get("base")
assert not [n for n in names if "base" in n], "base figures without a base"
assert doc["model"]["workloads"]["cur_idle"]["hash"] != "differs-between-runs"
report = open(os.path.join(out, "report.md")).read()
for n in names:
    assert n in report, f"{n} not in report.md"
plots = doc["plots"]
assert len(plots) >= 3, plots
for p in plots:
    data = open(os.path.join(out, p), "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", p
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(typ + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0], p
        if typ == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        if typ == b"IDAT":
            idat += body
        pos += 12 + n
    assert w > 0 and h > 0 and len(zlib.decompress(idat)) > 0, p
    assert p in report, f"{p} not in report.md"
print(f"bench_quick: {len(figs)} figures, {len(plots)} plots, schema ok, PNGs decode")
PY
