#!/usr/bin/python3
"""Mutated scenes against `seam validate` (and `seam run --steps 1` for a sample).

Each case takes a shipped example, applies one random mutation (a key deleted, a value of the
wrong type, a huge / negative / NaN / infinite number, a number at the edge of a range (0, 1, the
smallest double, the integer limits, one ulp beside the example's), an unknown key, the text
truncated, a key duplicated, deep nesting, a participant moved into its own seam-serve and mutated
there, one section (time, coupling, output, probes, a participant) mutated inside, a separate
participant's `command` replaced by a program that cannot serve or dies at its first solve, a fluid_mac's grid
changed (odd or tiny sizes, a third axis, obstacles, open sides, the other preconditioner), or a solid_rigid's
body moved onto, just inside or beyond its walls), writes
it beside the example (so relative paths still resolve; the examples' ../protocol is linked beside
the copies) and runs seam on it with a timeout. A case fails when seam is killed by a signal, prints
a sanitizer report, hangs, exits with a status seam does not document for a run (0, 1, 3:
unconverged steps, 4: diverged), refuses the scene without a message that names the scene file
(file:line:col) or the key path, runs to exit 0 what validate refused, or runs a program that cannot
serve to anything but exit 1 with the participant and the step (or the key) named. Python
participants need the seam_abi module on PYTHONPATH (the suite's environment has it).

Grid, walls and scheme cases (another coupling scheme, rmi most often) are always run for a step as well as validated.

    fuzz_scenes.py SEAM EXAMPLES_DIR [--cases N] [--seed S] [--run-every K] [--timeout T] [--keep DIR]

The suite runs a few cases of a fixed seed (coupler_fuzz_scenes; run it in the sanitizer build to have
memory errors and undefined behaviour reported); a longer search is the same script with more cases
and other seeds (README.md, "Development"). A failing case is printed with its seed, case number,
example and mutation, and with --keep the mutated scene is saved.
"""
import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HUGE = [1e308, -1e308, 1e300, 1e30, -1e30, 4294967296, 9223372036854775807, -9223372036854775808,
        18446744073709551615, 1e-320, -1, -0.0, 0, 2147483648]
TEXT_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "nan"]
ODD = [None, True, False, "", "x" * 300, "\u00e9\u4e2d", [], {}, [[]], [1, "a"], {"a": {}}, 3, -3, 0.5, "0.5"]


def paths(v, prefix=()):
    """Every key path of a JSON value: tuples of keys and indices."""
    out = [prefix]
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths(x, prefix + (i,))
    return out


def get(v, path):
    for p in path:
        v = v[p]
    return v


def edges(v):
    """Numbers at the edges of the ranges a key documents, near the example's value v: the bounds scenes use
    (0, 1, -1, the smallest double), the integer limits, one ulp either side of v, v a few times over."""
    out = [0, 1, -1, 5e-324, 2.2250738585072014e-308, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 1, 2 ** 53 + 1, 2 ** 63 - 1]
    if isinstance(v, int):
        out += [v - 1, v + 1, 2 * v, -v]
    else:
        out += [v * (1 + 2 ** -52), v * (1 - 2 ** -53), 10.0 * v, v / 10.0, -v, 1.0 + 2 ** -52, 1.0 - 2 ** -53]
    return out


def participants(doc):
    """Key paths of the scene's participants (fluid, each of solids, coupled) that are objects."""
    out = [(k,) for k in ("fluid", "coupled") if isinstance(doc.get(k), dict)]
    if isinstance(doc.get("solids"), list):
        out += [("solids", i) for i, x in enumerate(doc["solids"]) if isinstance(x, dict)]
    return out


# Programs a separate participant may name in "command" that cannot serve it: they fail to start, exit or are
# killed before their hello, or never answer it (python3 runs in the scene's directory).
DEAD_COMMANDS = [
    ["false"],
    ["./no_such_solver"],
    ["python3", "-c", "import sys; sys.exit(7)"],
    ["python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
    ["python3", "-c", "import sys; sys.stdout.write('ready\\n'); sys.stdout.flush(); sys.stdin.read()"],
]
# ... and the shipped Python pistons (protocol/python) that die at their first solve, for a fluid and a solid
DYING_COMMANDS = {
    "fluid": ["python3", "-c", "import sys, os, signal; sys.path.insert(0, '../protocol/python'); "
              "import piston_fluid as m; m.PistonFluid.solve = lambda *a: os.kill(os.getpid(), signal.SIGKILL); "
              "m.seam.main(m.PistonFluid)"],
    "solids": ["python3", "-c", "import sys, os; sys.path.insert(0, '../protocol/python'); import piston_solid as m; "
               "m.PistonSolid.solve = lambda *a: os._exit(3); m.seam.main(m.PistonSolid)"],
}


def alter(rng, doc, ps, kind):
    """Mutation KIND of one of the key paths PS of DOC, in place; returns its label."""
    p = rng.choice(ps)
    parent = get(doc, p[:-1])
    label = ".".join(map(str, p))
    if kind == "delete":
        del parent[p[-1]]
    elif kind == "type":
        parent[p[-1]] = copy.deepcopy(rng.choice(ODD))
    elif kind in ("number", "edge"):
        nums = [q for q in ps if isinstance(get(doc, q), (int, float)) and not isinstance(get(doc, q), bool)]
        if nums:
            p = rng.choice(nums)
            label = ".".join(map(str, p))
            parent = get(doc, p[:-1])
        v = get(doc, p)
        v = v if isinstance(v, (int, float)) and not isinstance(v, bool) else 1
        parent[p[-1]] = rng.choice(HUGE + [-abs(v)] if kind == "number" else edges(v))
    elif kind == "array":
        arrs = [q for q in ps if isinstance(get(doc, q), list)]
        if arrs:
            p = rng.choice(arrs)
            label = ".".join(map(str, p))
            a = get(doc, p)
            rng.choice([lambda: a.clear(), lambda: a.append(copy.deepcopy(a[0]) if a else 1),
                        lambda: a.pop() if a else None, lambda: a.extend([1e300] * 3)])()
    elif kind == "unknown":
        objs = [q for q in [p[:-1]] + ps if isinstance(get(doc, q), dict)] or [()]
        q = rng.choice(objs)
        get(doc, q)["zzz_" + rng.choice(["x", "tolerance", "cells"])] = 1
        label = ".".join(map(str, q)) + ".zzz"
    return "%s %s" % (kind, label)


GRID_SIZES = [4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 31, 33, 63, 65, 3, 2, 1, 0]


def fluid_mac_grid(rng, fluid, cell_size):
    """One to three changes to a fluid_mac's grid, FLUID in place: its size (odd, tiny, the domain kept or not),
    a third axis, obstacles (inside, on a side, holding no cell centre, the whole domain), open or wall sides,
    the other preconditioner. Returns the changes' labels."""
    cells = fluid.get("cells")
    if not (isinstance(cells, list) and cells and all(isinstance(n, int) for n in cells)):
        cells = [16, 16]
    dx = fluid.get("dx", cell_size)
    dx = dx if isinstance(dx, (int, float)) and dx > 0 else 0.05
    origin = fluid.get("origin") if isinstance(fluid.get("origin"), list) else [0.0] * len(cells)
    labels = []
    for kind in rng.sample(["cells", "cells", "third", "obstacles", "obstacles", "sides", "sides", "precond",
                            "tiny"], rng.choice([1, 2, 3])):
        dim = len(cells)
        if kind in ("cells", "tiny"):
            new = [rng.choice(GRID_SIZES[:6] if kind == "tiny" else GRID_SIZES[:14]) for _ in cells]
            if rng.random() < 0.1:
                new[rng.randrange(len(new))] = rng.choice(GRID_SIZES[14:])    # below the 4 cells an axis needs
            if kind == "cells" and rng.random() < 0.5 and new[0] > 0:
                # the same domain, about: dx scaled with the first axis, the others rounded to odd counts
                f = cells[0] / new[0]
                dx *= f
                new = [new[0]] + [max(1, int(n / f) | 1) for n in cells[1:]]
                fluid["dx"] = dx
            cells = new
            labels.append("cells %s" % cells)
        elif kind == "third":
            cells = cells[:2] + [rng.choice(GRID_SIZES[:8])] if dim == 2 else cells[:2]
            labels.append("cells %s" % cells)
        elif kind == "obstacles":
            lo = [origin[a] if a < len(origin) and isinstance(origin[a], (int, float)) else 0.0 for a in range(dim)]
            hi = [lo[a] + cells[a] * dx for a in range(dim)]
            boxes = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                how = rng.choice(["inside", "side", "thin", "all", "outside"])
                a0 = [rng.uniform(lo[a], hi[a]) for a in range(dim)]
                a1 = [min(hi[a], a0[a] + rng.choice([0.3, 1, 2, 5]) * dx) for a in range(dim)]
                if how == "side":
                    a = rng.randrange(dim)
                    a0[a], a1[a] = (lo[a] - dx, lo[a] + dx) if rng.random() < 0.5 else (hi[a] - dx, hi[a] + dx)
                elif how == "thin":
                    a = rng.randrange(dim)
                    a1[a] = a0[a] + 0.01 * dx
                elif how == "all":
                    a0, a1 = lo[:], hi[:]
                elif how == "outside":
                    a0 = [h + dx for h in hi]
                    a1 = [h + 2 * dx for h in hi]
                boxes.append({"box": [a0, a1]})
                labels.append("obstacle %s" % how)
            fluid["obstacles"] = (fluid.get("obstacles") if isinstance(fluid.get("obstacles"), list) else []) + boxes
        elif kind == "sides":
            names = ["left", "right", "bottom", "top", "back", "front"][:2 * dim]
            b = {n: rng.choice(["wall", "open"]) for n in names if rng.random() < 0.7}
            fluid["boundary"] = b
            labels.append("boundary %s" % ",".join(n for n in b if b[n] == "open"))
        else:
            fluid["pressure_preconditioner"] = rng.choice(["mic0", "multigrid"])
            labels.append(fluid["pressure_preconditioner"])
    fluid["cells"] = cells
    return labels


def rigid_walls(rng, solid):
    """A solid_rigid's body moved to, just inside or beyond its walls, or walls drawn round the bodies' centres
    (SOLID in place); returns the label."""
    bodies = [b for b in solid.get("bodies", []) if isinstance(b, dict) and isinstance(b.get("position"), list)]
    if not bodies:
        return "walls: no bodies"
    dim = len(bodies[0]["position"])
    walls = solid.get("walls")
    if not (isinstance(walls, dict) and isinstance(walls.get("min"), list) and isinstance(walls.get("max"), list)):
        ps = [b["position"] for b in bodies]
        walls = {"min": [min(p[a] for p in ps) - 0.5 for a in range(dim)],
                 "max": [max(p[a] for p in ps) + 0.5 for a in range(dim)]}
        solid["walls"] = walls
    b = rng.choice(bodies)
    a = rng.randrange(dim)
    side = rng.choice(["min", "max"])
    w = walls[side][a] if a < len(walls[side]) else 0.0
    w = w if isinstance(w, (int, float)) else 0.0
    how = rng.choice(["on", "beyond", "far", "ulp", "inside", "shrink", "swap"])
    if how == "shrink":
        walls[side][a] = b["position"][a]
    elif how == "swap":
        walls["min"], walls["max"] = walls["max"], walls["min"]
    else:
        d = {"on": 0.0, "beyond": 0.01, "far": 1e3, "ulp": abs(w) * 2 ** -52 + 5e-324, "inside": -0.01}[how]
        b["position"][a] = w + d if side == "max" else w - d
    return "walls %s %s[%d] body %s" % (how, side, a, b.get("name"))


def mutate(rng, text):
    """One mutation; returns (label, new text, whether the run must fail)."""
    doc = json.loads(text)
    ps = [p for p in paths(doc) if p]
    kind = rng.choice(["delete", "type", "number", "textnum", "unknown", "truncate", "duplicate", "nest",
                       "number", "type", "delete", "array", "edge", "edge", "separate", "focus", "focus", "command",
                       "grid", "grid", "walls", "scheme"])
    if kind == "scheme" and isinstance(doc.get("coupling"), dict):
        # another coupling scheme (rmi most often), sometimes with a section key mutated as well
        doc["coupling"]["scheme"] = rng.choice(["rmi", "rmi", "rmi", "iqn-ils", "iqn-imvj", "aitken", "xpm",
                                                "explicit", "relaxation", "monolithic"])
        label = "scheme %s" % doc["coupling"]["scheme"]
        sub = [r for r in paths(doc) if r[:1] == ("coupling",) and len(r) > 1]
        if sub and rng.random() < 0.3:
            label += ", " + alter(rng, doc, sub, rng.choice(["delete", "number", "edge", "edge"]))
        return label, json.dumps(doc, indent=1), False
    if kind == "grid":
        fluid = doc.get("fluid")
        if isinstance(fluid, dict) and fluid.get("plugin") == "fluid_mac":
            label = "grid " + ", ".join(fluid_mac_grid(rng, fluid, doc.get("cell_size")))
            return label, json.dumps(doc, indent=1), False
        kind = "focus"
    if kind == "walls":
        rigid = [x for x in (doc.get("solids") or []) if isinstance(x, dict) and x.get("plugin") == "solid_rigid"]
        if rigid:
            return rigid_walls(rng, rng.choice(rigid)), json.dumps(doc, indent=1), False
        kind = "focus"
    if kind == "truncate":
        n = rng.randrange(len(text))
        return "truncate at %d" % n, text[:n], False
    if kind == "textnum":
        # NaN and infinities are not JSON: write them into the text where a number was
        nums = [m for m in re.finditer(r"(?<![\w.\"])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w\"])", text)]
        if nums:
            m = rng.choice(nums)
            w = rng.choice(TEXT_NUMBERS)
            return "number %s at %d -> %s" % (m.group(0), m.start(), w), text[:m.start()] + w + text[m.end():], False
        kind = "number"
    if kind == "duplicate":
        keys = [m for m in re.finditer(r"\"(\w+)\"\s*:\s*", text)]
        if keys:
            m = rng.choice(keys)
            val = json.dumps(rng.choice(ODD + HUGE))
            return "duplicate %s" % m.group(1), text[:m.start()] + m.group(0) + val + ", " + text[m.start():], False
        kind = "delete"
    if kind == "nest":
        depth = rng.choice([20, 200, 5000, 100000])
        p = rng.choice(ps)
        parent = get(doc, p[:-1])
        parent[p[-1]] = json.loads("[" * min(depth, 500) + "]" * min(depth, 500)) if depth <= 500 else None
        if depth > 500:
            marker = "\"@@NEST@@\""
            parent[p[-1]] = "@@NEST@@"
            return "nest %s %d" % (".".join(map(str, p)), depth), \
                json.dumps(doc, indent=1).replace(marker, "[" * depth + "]" * depth), False
        return "nest %s %d" % (".".join(map(str, p)), depth), json.dumps(doc, indent=1), False
    inner = ["delete", "type", "number", "edge", "edge", "unknown", "array"]
    if kind == "separate":
        # an in-process participant moved into its own seam-serve; its keys' refusals come back over the wire
        movable = [q for q in participants(doc) if "plugin" in get(doc, q) and "connect" not in get(doc, q)
                   and get(doc, q).get("process", "inline") == "inline"]
        if movable:
            q = rng.choice(movable)
            get(doc, q)["process"] = "separate"
            label = "separate " + ".".join(map(str, q))
            sub = [r for r in paths(get(doc, q), q) if len(r) > len(q) and r[len(q)] not in ("plugin", "process")]
            if sub and rng.random() < 0.7:
                label += ", " + alter(rng, doc, sub, rng.choice(inner))
            return label, json.dumps(doc, indent=1), False
        kind = "focus"
    if kind == "command":
        # a separate participant's program that cannot start or dies: the run fails and names it
        spawned = [q for q in participants(doc) if get(doc, q).get("process") == "separate" or "plugin" in get(doc, q)]
        if spawned:
            q = rng.choice(spawned)
            part = get(doc, q)
            command = rng.choice(DEAD_COMMANDS + [DYING_COMMANDS[q[0]]] * 3 if q[0] in DYING_COMMANDS
                                 else DEAD_COMMANDS)
            if command in DYING_COMMANDS.values():
                # the piston's keys instead of the participant's own, so that it gets as far as its first solve
                name = part.get("name")
                part.clear()
                part.update({"added_mass": 2.0} if q[0] == "fluid" else {"mass": 1.0, "stiffness": 40.0})
                if name is not None:
                    part["name"] = name
            part["process"] = "separate"
            part.pop("plugin", None)     # whatever the program serves
            part["command"] = command
            part["start_timeout"] = 5
            return "command %s %s" % (".".join(map(str, q)), " ".join(part["command"])[:60]), \
                json.dumps(doc, indent=1), True
        kind = "focus"
    if kind == "focus":
        # one of the sections outsiders edit most, mutated inside
        roots = [q for q in [("time",), ("coupling",), ("output",), ("output", "probes"), ("output", "picture")]
                 + participants(doc) if q[0] in doc and isinstance(get(doc, q[:1]), dict)
                 and (len(q) == 1 or (q[1] in get(doc, q[:1]) if isinstance(q[1], str) else True))]
        q = rng.choice(roots) if roots else ()
        sub = [r for r in ps if r[:len(q)] == q and len(r) > len(q)] or ps
        return alter(rng, doc, sub, rng.choice(inner)), json.dumps(doc, indent=1), False
    return alter(rng, doc, ps, kind), json.dumps(doc, indent=1), False


def located(stderr, name):
    """A refusal has an error line that names the scene file (with line and column when the key is
    written there) and then what is wrong: "seam: [fluid] error: NAME:12:5: fluid.cells: ..." (the
    closing "NAME: not valid" alone does not count)."""
    return re.search(r"error: .*" + re.escape(name) + r"(:\d+:\d+)?: \S", stderr) is not None


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seam")
    ap.add_argument("examples")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("SEAM_FUZZ_SEED", "1")))
    ap.add_argument("--run-every", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--keep", default=None)
    ap.add_argument("--only", default=None, help="only examples whose name contains this")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    scenes = sorted(f for f in os.listdir(a.examples) if f.endswith(".json") and (not a.only or a.only in f))
    texts = {f: open(os.path.join(a.examples, f)).read() for f in scenes}
    out = tempfile.mkdtemp(prefix="seam-fuzz-")
    work = os.path.join(out, "examples")      # mutated scenes sit beside copies of the examples
    shutil.copytree(a.examples, work)
    # what examples name outside their folder (piston_python.json's ../protocol/python/*.py)
    protocol = os.path.join(a.examples, os.pardir, "protocol")
    if os.path.isdir(protocol):
        os.symlink(os.path.abspath(protocol), os.path.join(out, "protocol"))
    failures = 0
    outcomes = {}      # (command, exit status) -> count
    for case in range(a.cases):
        src = rng.choice(scenes)
        label, text, must_fail = mutate(rng, texts[src])
        name = "fuzz_%d_%s" % (case, src)
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        try:
            cmds = [[a.seam, "validate", path]]
            if case % a.run_every == 0 or must_fail or label.startswith(("grid", "walls", "scheme")):
                cmds.append([a.seam, "run", path, "--steps", "1", "--out", os.path.join(out, str(case)),
                             "--force", "--quiet", "--no-report"])
            validated = None
            for cmd in cmds:
                rc, err = run(cmd, a.timeout)
                outcomes[(cmd[1], rc)] = outcomes.get((cmd[1], rc), 0) + 1
                bad = None
                if rc == "timeout":
                    bad = "hang (> %g s)" % a.timeout
                elif rc < 0:
                    bad = "killed by signal %d" % -rc
                elif "Sanitizer" in err or "runtime error:" in err:
                    bad = "sanitizer report"
                elif rc not in (0, 1, 3, 4):
                    bad = "exit status %d" % rc
                elif rc == 1 and cmd[1] == "validate" and not located(err, name):
                    bad = "refused without file:line or key"
                elif cmd[1] == "run" and validated == 1 and rc != 1:
                    bad = "run exited %d on a scene validate refused" % rc
                elif cmd[1] == "run" and must_fail and rc != 1:
                    bad = "a participant's program that cannot serve, and the run exited %d" % rc
                elif cmd[1] == "run" and must_fail and not (located(err, name) or re.search(
                        r"\[[^]\n]+\] error: .*(step \d+|before the first step)", err)):
                    bad = "a participant's program died without the participant and the step (or the key) named"
                # validate does not start a command's program (docs/security.md): it refuses what the run may take
                if cmd[1] == "validate" and "which seam validate does not do" not in err:
                    validated = rc
                if bad:
                    failures += 1
                    print("FAIL case %d (%s, %s): %s: %s\n  %s" % (case, src, label, " ".join(cmd[1:2]), bad,
                          err.strip().replace("\n", "\n  ")[-1500:]), flush=True)
                    if a.keep:
                        os.makedirs(a.keep, exist_ok=True)
                        shutil.copy(path, os.path.join(a.keep, name))
        finally:
            os.remove(path)
    print("outcomes: " + ", ".join("%s %s: %d" % (c, r, n) for (c, r), n in
                                   sorted(outcomes.items(), key=lambda x: (x[0][0], str(x[0][1])))))
    shutil.rmtree(out, ignore_errors=True)
    print("%d cases (seed %d), %d failures" % (a.cases, a.seed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
