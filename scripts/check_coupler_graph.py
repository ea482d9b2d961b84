#!/usr/bin/env python3
"""Check that the files of coupler/ depend on each other without a cycle.

A module is a file name without its extension (interface.c and interface.h
are one module). Module A depends on module B when A includes B's header
or names a function or object that B defines without `static` (a call, a
table's address). The check fails (exit 1) when the graph has a cycle,
naming one, or when a file other than simulation.c names the simulation
struct's fields (`struct seam_sim` or `seam_sim` outside the public
handle of simulation.h and its user main.c).

    scripts/check_coupler_graph.py [--dot] [--mermaid] [coupler_dir]

--mermaid prints the graph (for docs/architecture.md) instead of checking.
"""
import os
import re
import sys

# The simulation's public handle: declared opaque in simulation.h and used
# through its functions by the `seam` command; only simulation.c sees inside.
SIM_ALLOWED = {"simulation.c", "simulation.h", "main.c"}

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r"[A-Za-z_]\w*")
# A definition at file scope: a line starting in column 0 with a type and a
# name followed by "(" (a function) or "=" / "[" (an object), not static,
# not extern, not a declaration ending in ";" before its body.
DEF_FUNC = re.compile(r"^(?!static\b|extern\b|typedef\b|#)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(([^;{]*?)\)\s*\{",
                      re.M | re.S)
DEF_OBJ = re.compile(r"^(?!static\b|extern\b|typedef\b|#)(?:const\s+)?[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)"
                     r"\s*(?:\[[^\]]*\]\s*)?=", re.M)


def strip(text):
    text = COMMENT.sub(" ", text)
    return STRING.sub('""', text)


def read_modules(root):
    files = sorted(f for f in os.listdir(root) if f.endswith((".c", ".h")))
    raw, clean = {}, {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            raw[f] = fh.read()
        clean[f] = strip(raw[f])
    return files, raw, clean


def module(f):
    return os.path.splitext(f)[0]


def build_graph(files, raw, clean):
    mods = sorted({module(f) for f in files})
    edges = {m: set() for m in mods}
    why = {}
    for f in files:
        for inc in INCLUDE.findall(raw[f]):
            if inc not in raw:   # a header of core/ or protocol/ ("seam/log.h"), not one of coupler/
                continue
            b = module(inc)
            if b != module(f):
                edges[module(f)].add(b)
                why.setdefault((module(f), b), f"{f} includes {inc}")
    defined = {}
    for f in files:
        if not f.endswith(".c"):
            continue
        for m in DEF_FUNC.finditer(clean[f]):
            defined.setdefault(m.group(1), module(f))
        for m in DEF_OBJ.finditer(clean[f]):
            defined.setdefault(m.group(1), module(f))
    for f in files:
        if not f.endswith(".c"):
            continue
        for name in set(IDENT.findall(clean[f])):
            b = defined.get(name)
            if b and b != module(f):
                edges[module(f)].add(b)
                why.setdefault((module(f), b), f"{f} names {name}")
    return mods, edges, why


def cycles(mods, edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in mods:
        if v not in index:
            visit(v)
    return out


def one_cycle(comp, edges):
    """A closed path through the component, for the message."""
    inside = set(comp)
    start = comp[0]
    path, seen = [start], {start}
    v = start
    while True:
        nxt = sorted(w for w in edges[v] if w in inside)
        back = [w for w in nxt if w in seen]
        if back:
            w = back[0]
            return path[path.index(w):] + [w]
        v = nxt[0]
        path.append(v)
        seen.add(v)


def back_edges(comp, edges):
    inside = set(comp)
    return sum(1 for v in comp for w in edges[v] if w in inside)


def sim_mentions(files, clean):
    bad = []
    for f in files:
        if f in SIM_ALLOWED:
            continue
        lines = [i for i, line in enumerate(clean[f].split("\n"), 1) if re.search(r"\bseam_sim\b", line)]
        if lines:
            bad.append(f"{f}:{lines[0]} (and {len(lines) - 1} more lines)" if len(lines) > 1 else f"{f}:{lines[0]}")
    return bad


def mermaid(mods, edges):
    lines = ["graph TD"]
    for v in mods:
        for w in sorted(edges[v]):
            lines.append(f"    {v} --> {w}")
    return "\n".join(lines)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "coupler")
    files, raw, clean = read_modules(root)
    mods, edges, why = build_graph(files, raw, clean)
    if "--mermaid" in argv:
        print(mermaid(mods, edges))
        return 0
    rc = 0
    comps = cycles(mods, edges)
    for comp in comps:
        path = one_cycle(comp, edges)
        steps = "; ".join(why[(a, b)] for a, b in zip(path, path[1:]))
        print(f"coupler graph: cycle among {len(comp)} modules ({', '.join(comp)}), "
              f"{back_edges(comp, edges)} edges inside; e.g. {' -> '.join(path)} ({steps})")
        rc = 1
    for where in sim_mentions(files, clean):
        print(f"coupler graph: {where}: names the simulation struct (only simulation.c may)")
        rc = 1
    if rc == 0:
        n = sum(len(e) for e in edges.values())
        print(f"coupler graph: {len(mods)} modules, {n} dependencies, no cycle")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
