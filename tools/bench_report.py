#!/usr/bin/env python3
"""Turn the raw lines of tools/bench.sh into OUT/results.json, OUT/report.md
and PNG plots (gnuplot, Debian package gnuplot-nox).

usage: bench_report.py RAW OUT

Every figure has a value, its limit (the physical bound, or the budget or
real-time rate it is compared with) and the ratio value / limit; for a limit
of 0 (things that must not happen) the ratio is 1.0 when the value is 0 too,
else null.  results.json: {"schema": "sgpu-bench/1", "quick": bool,
"figures": [{"name", "group", "value", "limit", "ratio", "unit", "limit_is"}],
"plots": [file names], "model": {"base": {"name", "sha"} or null,
"identical": bool or null (no base), ...}}.
"""
import json
import os
import re
import subprocess
import sys

raw_path, out = sys.argv[1], sys.argv[2]
figs, series, model, demo, ircyc, desc, runs = [], {}, {}, {}, {}, {}, {}
quick = False
base = None
icarus = None
board = []


def add(name, group, value, limit, unit, what):
    if limit:
        ratio = value / limit
    else:
        ratio = 1.0 if value == 0 else None
    figs.append({"name": name, "group": group, "value": round(value, 6), "limit": limit,
                 "ratio": None if ratio is None else round(ratio, 4), "unit": unit, "limit_is": what})


def callgrind(path):
    """function -> inclusive instructions, and the program total."""
    fn, total = {}, None
    for line in open(path):
        m = re.match(r'\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$', line)
        if not m:
            continue
        ir, what = int(m.group(1).replace(',', '')), m.group(2)
        if 'PROGRAM TOTALS' in what:
            total = ir
            continue
        name = what.split(' [')[0].split(':')[-1].strip()
        fn.setdefault(name, ir)
    return fn, total


for line in open(raw_path):
    p = line.rstrip('\n').split()
    if not p:
        continue
    if p[0] == 'QUICK':
        quick = p[1] == '1'
    elif p[0] == 'FIG':
        head, _, what = line.partition(' | ')
        _, name, value, limit, unit = head.split()[:5]
        group = 'chip'
        add(name, group, float(value), float(limit), unit, what.strip())
    elif p[0] == 'PT':
        series.setdefault(p[1], []).append((float(p[2]), float(p[3])))
    elif p[0] == 'MODEL':
        kv = dict(x.split('=', 1) for x in p[1:])
        runs.setdefault((kv['model'], kv['workload']), []).append(kv)
    elif p[0] == 'MODELDESC':
        desc[p[1]] = line.split(None, 2)[2].strip() if len(p) > 2 else p[1]
    elif p[0] == 'IRCYCLE':
        kv = dict(x.split('=', 1) for x in p[1:3])
        ircyc[(kv['model'], kv['workload'])] = int(p[3]) / int(p[4])
    elif p[0] == 'BASE':
        base = {'name': p[1], 'sha': p[2]}
    elif p[0] == 'DEMO':
        kv = dict(x.split('=', 1) for x in p[1:])
        runs.setdefault((kv['model'], 'demo'), []).append(kv)
    elif p[0] == 'ICARUS':
        icarus = int(p[1]) / float(p[2])
    elif p[0] == 'CALLGRIND':
        kind, n, path = p[1], int(p[2]), p[3]
        fn, total = callgrind(path)
        if kind == 'submit':
            sub = fn.get('sgpu_submit_command', total or 0)
            tr = sum(v for k, v in fn.items() if k.startswith('sgpu_tr_'))
            add('host_instructions_per_submit', 'host', (sub - tr) / n, 1000, 'instructions',
                'the budget test_submit_cost.sh holds sgpu_submit_command() to (transport excluded)')
            add('host_instructions_per_submit_with_transport', 'host', sub / n, 1000, 'instructions',
                'the same budget: the share the simulated transport adds')
        else:
            # Floor: one instruction per packet word stored.
            words = {'sgpu_cmd_nop': 3, 'sgpu_cmd_indirect': 4, 'sgpu_cmd_fence': 3,
                     'sgpu_cmd_write_data': 6, 'sgpu_cmd_wait_mem': 5, 'sgpu_cmd_wait_vsync': 2,
                     'sgpu_cmd_wait_scanline': 4, 'sgpu_cmd_fill': 6, 'sgpu_cmd_copy': 7,
                     'sgpu_cmd_flip': 4, 'sgpu_cmd_context': 4, 'sgpu_cmd_timestamp': 2}
            for f, w in words.items():
                if f in fn:
                    add(f'host_instructions_{f}', 'host', fn[f] / n, w, 'instructions',
                        f'one store per packet word ({w} words)')
    elif p[0] == 'REPORT':
        board.append(p[1])

# Model speed.  Each program ran several times (tools/bench.sh REPS, the
# base and the current side alternating on a shared machine): the fastest
# run counts; a side whose runs behaved differently (hash, demo fingerprint)
# is marked.
for (v, w), rs in runs.items():
    key = 'fingerprint' if w == 'demo' else 'hash'
    best = dict(max(rs, key=lambda kv: float(kv['cycles_per_s'])))
    if len({kv[key] for kv in rs}) != 1:
        best[key] = 'differs-between-runs'
    best['runs'] = str(len(rs))
    if w == 'demo':
        demo[v] = best
    else:
        model[(v, w)] = best
REAL = 25175000.0  # 640x480 at 60 Hz: 800 x 525 pixel clocks per frame
FRAME = 800 * 525
# The 4x target of the speed work: a quarter of the host instructions per
# idle cycle of the build before it (9,773 at fcfa720).
IR_TARGET = 9773 / 4
has_base = base is not None
SIDE = {'cur': '', 'base': 'base_'}
for w in ('idle', 'blit'):
    for v in ('cur', 'base'):
        m = model.get((v, w))
        if m:
            add(f'model_{SIDE[v]}cycles_per_s_{w}', 'model', float(m['cycles_per_s']), REAL, 'cycles/s',
                'the real chip: 25.175 MHz pixel clock')
    if ('base', w) in model and ('cur', w) in model:
        sp = float(model[('cur', w)]['cycles_per_s']) / float(model[('base', w)]['cycles_per_s'])
        add(f'model_speedup_over_base_{w}', 'model', sp, 1.0, 'x', 'the base commit\'s speed, same run')
for v in ('cur', 'base'):
    if (v, 'idle') in model:
        add(f'model_{SIDE[v]}fps_640x480', 'model', float(model[(v, 'idle')]['cycles_per_s']) / FRAME, 60.0,
            'frames/s', 'the 60 Hz of the real timing')
for w in ('idle', 'demo'):
    for v in ('cur', 'base'):
        if (v, w) in ircyc:
            add(f'model_{SIDE[v]}host_instructions_per_cycle_{w}', 'model', ircyc[(v, w)], IR_TARGET,
                'instructions', 'the 4x target: a quarter of the idle build before the speed work (9,773)')
    if ('cur', w) in ircyc and ('base', w) in ircyc:
        add(f'model_host_instructions_per_cycle_{w}_over_base', 'model', ircyc[('cur', w)] / ircyc[('base', w)],
            1.0, 'x', 'the base commit\'s instructions per cycle')
for v in ('cur', 'base'):
    if v in demo:
        add(f'demo_{SIDE[v]}cycles_per_s', 'model', float(demo[v]['cycles_per_s']), REAL, 'cycles/s',
            'the real chip: 25.175 MHz')
if 'base' in demo and 'cur' in demo and float(demo['base']['cycles_per_s']) > 0:
    add('demo_speedup_over_base', 'model', float(demo['cur']['cycles_per_s']) / float(demo['base']['cycles_per_s']),
        1.0, 'x', 'the base commit\'s speed, same run')
if icarus:
    add('icarus_cycles_per_s_idle', 'model', icarus, REAL, 'cycles/s', 'the real chip: 25.175 MHz')
    if ('cur', 'idle') in model:
        add('model_over_icarus', 'model', float(model[('cur', 'idle')]['cycles_per_s']) / icarus, 1.0,
            'x', 'Icarus Verilog on the same RTL, same workload')
# Behaviour, base against current: the same frames, fence cycles, memory and
# demo frames (a change of the RTL's timing may change them on purpose).
identical = None
if has_base:
    same = all(model.get(('base', w), {}).get('hash') == model.get(('cur', w), {}).get('hash')
               != 'differs-between-runs' for w in ('idle', 'blit'))
    demo_same = demo.get('base', {}).get('fingerprint') == demo.get('cur', {}).get('fingerprint') \
        != 'differs-between-runs'
    identical = bool(same and demo_same)
    add('model_differences_from_base', 'model', 0 if identical else 1, 0, 'workloads',
        'frames, fence cycles, memory and demo frame checksums identical to the base commit\'s')

# Board / link reports (present only after their flows ran).
for path in board:
    for line in open(path, errors='replace'):
        m = re.match(r'FIGURE (\S+) ([\d.]+) MHz \(pixel clock ([\d.]+) MHz\)', line)
        if m:
            add(f'board_{m.group(1)}', 'board', float(m.group(2)), float(m.group(3)), 'MHz',
                'the pixel clock the board must reach')
        m = re.match(r'FIGURE (\S+) (\d+) of (\d+)', line)
        if m:
            add(f'board_{m.group(1)}', 'board', float(m.group(2)), float(m.group(3)), 'cells',
                'the device\'s logic cells')
        m = re.match(r'FIGURE (\S*efficiency\S*) ([\d.]+)', line)
        if m:
            add(f'link_{m.group(1)}', 'link', float(m.group(2)), 1.0, 'ratio', 'every byte payload')

# Plots (gnuplot).
plots = []


def gnuplot(name, script, data):
    dat = os.path.join(out, name + '.dat')
    with open(dat, 'w') as f:
        f.write(data)
    png = os.path.join(out, name + '.png')
    full = (f"set terminal pngcairo size 900,540 noenhanced\nset output '{png}'\n"
            f"set grid\n" + script.replace('DAT', dat))
    r = subprocess.run(['gnuplot'], input=full, text=True, capture_output=True)
    if r.returncode != 0 or not os.path.exists(png):
        sys.exit(f"gnuplot failed for {name}: {r.stderr}")
    plots.append(name + '.png')


keys = sorted(k for k in series if k.startswith(('fill_', 'copy_')))
if keys:
    data = ''.join(f"# {k}\n" + ''.join(f"{x:g} {y:g}\n" for x, y in series[k]) + "\n\n" for k in keys)
    cmds = ', '.join(f"'DAT' index {i} with linespoints title '{k}'" for i, k in enumerate(keys))
    gnuplot('blit_sweep', "set title 'FILL and COPY words per cycle (8 rows; limits: FILL 1, COPY 0.5)'\n"
            "set logscale x 2\nset xlabel 'width in bytes'\nset ylabel 'words/cycle'\nset yrange [0:1.1]\n"
            f"plot {cmds}, 1 title 'FILL limit' dt 2 lw 2, 0.5 title 'COPY limit' dt 2 lw 2\n", data)
if 'flip_latency' in series:
    data = ''.join(f"{y:g}\n" for _, y in series['flip_latency'])
    gnuplot('flip_latency', "set title 'Flip latency after vblank start (lines; limit 0)'\n"
            "set xlabel 'lines after vblank start'\nset ylabel 'flips'\nset style fill solid 0.6\n"
            "set boxwidth 0.2\nbin(x)=0.25*floor(x/0.25+0.5)\nset xrange [-1:2]\n"
            "plot 'DAT' using (bin($1)):(1.0) smooth frequency with boxes title 'flips'\n", data)
if 'submission' in series:
    data = ''.join(f"{x:g} {y:g}\n" for x, y in series['submission'])
    gnuplot('submission', "set title 'Doorbell to fence visible, per submission (cycles; limit 6)'\n"
            "set xlabel 'submission'\nset ylabel 'cycles'\nset yrange [0:*]\n"
            "plot 'DAT' with linespoints title 'measured', 6 title 'limit' dt 2 lw 2\n", data)
speeds = [(f"{v} {w}", float(model[(v, w)]['cycles_per_s'])) for w in ('idle', 'blit') for v in ('base', 'cur')
          if (v, w) in model]
if icarus:
    speeds.append(('icarus idle', icarus))
if speeds:
    data = ''.join(f'"{k}" {v:g}\n' for k, v in speeds)
    gnuplot('model_speed', "set title 'Model speed, cycles per second (real chip: 25.175 MHz)'\n"
            "set logscale y\nset style fill solid 0.6\nset boxwidth 0.6\nset ylabel 'cycles/s'\n"
            "set yrange [1000:5e7]\n"
            "plot 'DAT' using 0:2:xtic(1) with boxes title 'measured', 25175000 title 'real time' dt 2 lw 2, "
            "4200000 title '10 frames/s at 640x480' dt 3 lw 2\n", data)

doc = {"schema": "sgpu-bench/1", "quick": quick, "figures": figs, "plots": plots,
       "model": {"base": base, "identical": identical,
                 "describe": desc,
                 "workloads": {f"{v}_{w}": m for (v, w), m in model.items()},
                 "host_instructions_per_cycle": {f"{v}_{w}": round(x, 1) for (v, w), x in ircyc.items()},
                 "demo": demo}}
with open(os.path.join(out, 'results.json'), 'w') as f:
    json.dump(doc, f, indent=1)

with open(os.path.join(out, 'report.md'), 'w') as f:
    f.write("# sgpu benchmark\n\n")
    f.write(f"{'Reduced run (QUICK=1). ' if quick else ''}Written by `make bench` (tools/bench.sh, "
            "tools/bench_report.py). Chip figures are simulation cycles; model speeds are CPU "
            "seconds of this machine. ratio = value / limit (for a limit of 0: 1 when the value is 0).\n\n")
    f.write("| group | figure | value | limit | ratio | unit | limit is |\n|---|---|---|---|---|---|---|\n")
    for g in figs:
        r = '-' if g['ratio'] is None else f"{g['ratio']:.3g}"
        f.write(f"| {g['group']} | {g['name']} | {g['value']:.6g} | {g['limit']:.6g} | {r} | {g['unit']} "
                f"| {g['limit_is']} |\n")
    f.write("\n")
    if model or demo or icarus:
        # Model speed side by side: the base commit, the current tree, Icarus.
        f.write("## Model speed: base commit, current tree, Icarus Verilog\n\n"
                f"One 640x480 frame is 800 x 525 = {FRAME:,} cycles (one-clock model: one pixel per "
                "cycle); the real chip runs 25.175 M cycles/s (60 frames/s).  Best of the runs of "
                "each side, alternating in the same run (CPU time of the simulating thread; the demo's "
                "is wall-clock time and includes its PNG writing); host instructions per simulated "
                "cycle counted by callgrind (idle: scanout alone; demo: one frame of sgpu-demo).\n\n"
                "| model | idle cycles/s | blit cycles/s | demo cycles/s | instructions/cycle idle "
                "| instructions/cycle demo | 640x480 frames/s (idle) |\n|---|---|---|---|---|---|---|\n")
        cell = lambda m: f"{float(m['cycles_per_s']):,.0f}" if m else '-'
        for v in ('base', 'cur'):
            mi, mb, dm = model.get((v, 'idle')), model.get((v, 'blit')), demo.get(v)
            if not (mi or mb or dm):
                continue
            fps = f"{float(mi['cycles_per_s']) / FRAME:.2f}" if mi else '-'
            irc = lambda w: f"{ircyc[(v, w)]:,.0f}" if (v, w) in ircyc else '-'
            f.write(f"| {v}: {desc.get(v, v)} | {cell(mi)} | {cell(mb)} | {cell(dm)} | {irc('idle')} "
                    f"| {irc('demo')} | {fps} |\n")
        if has_base:
            r = lambda w: (f"{float(model[('cur', w)]['cycles_per_s']) / float(model[('base', w)]['cycles_per_s']):.2f}x"
                           if ('base', w) in model and ('cur', w) in model else '-')
            rd = (f"{float(demo['cur']['cycles_per_s']) / float(demo['base']['cycles_per_s']):.2f}x"
                  if 'base' in demo and 'cur' in demo and float(demo['base']['cycles_per_s']) else '-')
            rir = lambda w: (f"{ircyc[('cur', w)] / ircyc[('base', w)]:.3f}x"
                             if ('cur', w) in ircyc and ('base', w) in ircyc else '-')
            f.write(f"| current / base | {r('idle')} | {r('blit')} | {rd} | {rir('idle')} | {rir('demo')} | |\n")
        if icarus:
            f.write(f"| Icarus Verilog, same RTL (idle) | {icarus:,.0f} | - | - | - | - | {icarus / FRAME:.3f} |\n")
        if has_base:
            f.write(f"\nBase: BASE={base['name']}, commit {base['sha']}.  Behaviour identical to the base "
                    f"(frames, fence cycles, memory, demo frames): {'yes' if identical else 'NO'}.\n\n")
        else:
            f.write("\nNo base commit in this run (`make bench BASE=<commit>` measures one beside it).\n\n")
    for p in plots:
        f.write(f"![{p}]({p})\n\n")
print(f"bench: {len(figs)} figures, {len(plots)} plots -> {out}/report.md, results.json")
