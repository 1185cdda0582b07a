#!/usr/bin/env python3
"""layers.py — the host library's files must call each other one way only.

From the objects of host/src (build/host/obj/*.o) it builds the file-level
call graph: file A -> file B when A's object has an undefined symbol that
B's object defines (global symbols only, as `nm` lists them; a weak
reference counts too).  Calls through a function pointer (the transport ops
table, a wait predicate) are not symbol references and are not seen: that
is the one sanctioned way for a lower file to reach code above it.

  layers.py [--closed A,B,...] OBJ...   check: exit 1 and print each circle
                                        (with the symbols that make it) when
                                        the graph has one; else print the
                                        layer order, bottom first
  layers.py --self-test                 show that a circle put back is found:
                                        synthetic graphs, and two tiny C files
                                        that call each other compiled with cc

--closed names a group of files (object names without .o) that may use one
another but no other file of the library: the transports, which must never
call up into the device core.  A use leaving the group is reported like a
circle.
"""
import os
import subprocess
import sys
import tempfile


def nm_symbols(obj):
    """(defined global symbols, undefined symbols) of an object file."""
    def run(flag):
        out = subprocess.run(["nm", "-P", flag, obj], check=True, capture_output=True,
                             text=True).stdout
        return [line.split() for line in out.splitlines() if line.strip()]
    defined = {f[0] for f in run("--defined-only")
               if len(f) >= 2 and (f[1].isupper() or f[1] in ("u",))}
    undefined = {f[0] for f in run("--undefined-only") if len(f) >= 2}
    return defined, undefined


def graph_of_objects(objs):
    """{file: {dep: [symbols]}} from object files (file = name without .o)."""
    syms = {}
    for o in objs:
        name = os.path.basename(o)
        name = name[:-2] if name.endswith(".o") else name
        syms[name] = nm_symbols(o)
    owner = {}
    for name, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, name)
    graph = {name: {} for name in syms}
    for name, (_, undefined) in syms.items():
        for s in sorted(undefined):
            dep = owner.get(s)
            if dep and dep != name:
                graph[name].setdefault(dep, []).append(s)
    return graph


def sccs(graph):
    """Strongly connected components (Tarjan), each a sorted list."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def circle_in(graph, comp):
    """The shortest circle through the component's first file: [f0, ..., f0]."""
    members, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    while queue:  # breadth first
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [comp[0]]


def layers(graph):
    """Files by layer: 0 uses no other file, n uses files of layers < n."""
    level = {}

    def lv(v, seen=()):
        if v in level:
            return level[v]
        deps = [d for d in graph[v] if d in graph and d not in seen]
        level[v] = 1 + max((lv(d, seen + (v,)) for d in deps), default=-1)
        return level[v]

    for v in graph:
        lv(v)
    out = {}
    for v, n in level.items():
        out.setdefault(n, []).append(v)
    return [sorted(out[n]) for n in sorted(out)]


def check(graph, closed=(), out=sys.stdout):
    """Print the verdict; return the problems found (circles, group exits)."""
    problems = []
    for comp in sccs(graph):
        if len(comp) < 2:
            continue
        path = circle_in(graph, comp)
        steps = []
        for a, b in zip(path, path[1:]):
            steps.append("  %s -> %s   (%s)" % (a, b, ", ".join(graph[a][b][:4]) +
                                                (", ..." if len(graph[a][b]) > 4 else "")))
        problems.append("circle: %s\n%s" % (" -> ".join(path), "\n".join(steps)))
        if len(comp) > len(path) - 1:
            inside = ["%s -> %s" % (a, b) for a in comp for b in sorted(graph[a]) if b in comp]
            problems[-1] += "\n  all of %s are in circles: %s" % (", ".join(comp), ", ".join(inside))
    group = set(closed)
    for a in sorted(group & set(graph)):
        for b in sorted(graph[a]):
            if b not in group:
                problems.append("%s calls up out of its group into %s (%s)" %
                                (a, b, ", ".join(graph[a][b][:4])))
    if problems:
        print("layers: FAILED: the library's files call each other in a circle:", file=out)
        for p in problems:
            print(p, file=out)
        return problems
    print("layers: no circle between %d files; the layer order, bottom first:" % len(graph),
          file=out)
    for n, files in enumerate(layers(graph)):
        for f in files:
            uses = " ".join(sorted(graph[f]))
            print(("  layer %d  %-14s%s" % (n, f, " uses " + uses if uses else "")).rstrip(), file=out)
    return problems


# ---------------------------------------------------------------- self-test
def self_test():
    import io
    fails = []

    def expect(cond, what):
        print("  %s: %s" % ("ok" if cond else "FAILED", what))
        if not cond:
            fails.append(what)

    # A stack with no circle: found clean, layers in order.
    g = {"error": {}, "regs": {"error": ["f"]}, "ring": {"regs": ["r"], "error": ["f"]},
         "device": {"ring": ["s"], "regs": ["r"]}}
    buf = io.StringIO()
    expect(check(g, out=buf) == [], "a one-way stack passes")
    expect(layers(g) == [["error"], ["regs"], ["ring"], ["device"]], "its layer order is error, regs, ring, device")

    # The circle put back (ring calls device again).
    g2 = {k: dict(v) for k, v in g.items()}
    g2["ring"]["device"] = ["sgpu__program_node"]
    buf = io.StringIO()
    p = check(g2, out=buf)
    text = buf.getvalue()
    expect(len(p) == 1 and "device -> ring -> device" in text and "sgpu__program_node" in text,
           "a circle device -> ring -> device is reported with its symbol")
    # A longer one: a -> b -> c -> a beside an acyclic part.
    g3 = {"a": {"b": ["x"]}, "b": {"c": ["y"]}, "c": {"a": ["z"]}, "d": {"a": ["w"]}}
    buf = io.StringIO()
    p = check(g3, out=buf)
    expect(len(p) == 1 and "a -> b -> c -> a" in buf.getvalue(), "a three-file circle is reported")
    # Two separate circles: both reported.
    g4 = {"a": {"b": ["x"]}, "b": {"a": ["y"]}, "c": {"d": ["z"]}, "d": {"c": ["w"]}}
    expect(len(check(g4, out=io.StringIO())) == 2, "two circles are both reported")
    # A transport calling up into the core.
    g5 = {"error": {}, "link": {"error": ["sgpu__fail"]}, "link_frame": {},
          "device": {"link": ["sgpu_link_open"], "error": ["sgpu__fail"]}}
    buf = io.StringIO()
    p = check(g5, closed=("link", "link_frame"), out=buf)
    expect(len(p) == 1 and "link calls up out of its group into error" in buf.getvalue(),
           "--closed: a transport using a core file is reported")

    # The real thing: two C files that call each other, compiled and read by nm.
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as d:
        def compile_(name, text):
            src = os.path.join(d, name + ".c")
            with open(src, "w") as f:
                f.write(text)
            subprocess.run([cc, "-c", "-o", os.path.join(d, name + ".o"), src], check=True)
            return os.path.join(d, name + ".o")
        a = compile_("alpha", "int beta(int);\nint alpha(int x) { return x ? beta(x - 1) : 0; }\n")
        b = compile_("beta", "int alpha(int);\nint beta(int x) { return alpha(x); }\n")
        c = compile_("third", "int alpha(int);\nstatic int local(int x) { return x; }\n"
                     "int third(int x) { return alpha(local(x)); }\n")
        gr = graph_of_objects([a, b, c])
        expect(gr["alpha"] == {"beta": ["beta"]} and gr["beta"] == {"alpha": ["alpha"]}
               and gr["third"] == {"alpha": ["alpha"]}, "nm: the call graph of the compiled files")
        buf = io.StringIO()
        p = check(gr, out=buf)
        expect(len(p) == 1 and "alpha -> beta -> alpha" in buf.getvalue(),
               "compiled objects calling each other: the circle is found")
        # beta through a function pointer instead: no symbol, no circle
        b = compile_("beta", "int beta(int x, int (*up)(int)) { return up(x); }\n")
        gr = graph_of_objects([a, b, c])
        buf = io.StringIO()
        expect(check(gr, out=buf) == [] and "layer 0  beta" in buf.getvalue(),
               "a call up through a function pointer is no circle")
    if fails:
        print("layers self-test: FAILED: %s" % "; ".join(fails))
        return 1
    print("layers self-test: ok (a circle put back is found)")
    return 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    closed = ()
    args = argv[1:]
    if args[:1] == ["--closed"] and len(args) >= 2:
        closed = tuple(x for x in args[1].split(",") if x)
        args = args[2:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    missing = [a for a in args if not os.path.exists(a)]
    if missing:
        print("layers: no such object: %s" % " ".join(missing), file=sys.stderr)
        return 2
    graph = graph_of_objects(args)
    unknown = [c for c in closed if c not in graph]
    if unknown:
        print("layers: --closed names files not given: %s" % " ".join(unknown), file=sys.stderr)
        return 2
    return 1 if check(graph, closed) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
