#!/usr/bin/python3
"""Every declared key range refuses a number just outside it and takes one just inside (`seam validate` only).

The declarations come from `test_key_ranges --dump` (each plugin's and the coupler's ranges.c). For each example
scene, every declared numeric key of an object the scene holds (in a participant of the declaring plugin, or the
scene's own keys; written in the scene or not) is set just outside its range, below and above (the next double
past a closed end, the end itself when open; one past for an integer), and the refusal must name the key's full
path and its range with the unit. On the first scene that has it, a key is also set just inside, at both ends (the
end itself when closed, the next double inward when open), and no refusal may name its range. Each value goes to
every key of the scene in one call; the keys whose refusal others hid (a body refused before its density was read)
go again in the next. A key no example writes is tried on the first scene holding its object that reads it: a
scene whose message names the key otherwise (a 2D shell's `nu`, a corotated material's `compression_limit`) does
not; objects no example has are made by EXTRA below.

    test_key_ranges.py SEAM DUMP_PROGRAM EXAMPLES_DIR
"""
import concurrent.futures
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

SEAM, DUMP, EXAMPLES = sys.argv[1:4]

# Scenes made to hold objects no example has: (scene, --set assignments)
EXTRA = [
    ("floating_block.json", ["coupling.scheme=\"monolithic\"",
                             "solids.0.newton={\"tolerance\": 1e-6, \"max_iterations\": 50}",
                             "solids.0.linear_solver={\"tolerance\": 1e-8, \"max_iterations\": 2000}",
                             "solids.0.walls={\"min\": [-9, -9], \"max\": [9, 9], \"friction\": 0.5}"]),
    ("piston.json", ["output.checkpoint={\"every_steps\": 5, \"every_seconds\": 60}"]),
    ("smoke_plank.json", ["fluid.buoyancy={\"density\": 0.1, \"temperature\": 0.1}",
                          "fluid.initial={\"density\": 0, \"temperature\": 0}",
                          "fluid.sources=[{\"box\": [0.2, 0.2, 0.4, 0.4], \"rate\": 0.01}]"]),
    ("thin_shell_balloon.json", ["solids.0.bodies.0.material.damping={\"alpha\": 0}"]),
    # solid_fem's disc and spherical shell generators
    ("floating_block.json", ["solids.0.bodies.0.mesh={\"generate\": \"disc\", \"center\": [1, 0.8], \"radius\": 0.1, "
                             "\"rings\": 4}"]),
    ("smoke_cloth.json", ["solids.0.bodies.0.mesh={\"generate\": \"spherical_shell\", \"center\": [0.5, 0.5, 0.5], "
                          "\"radius\": 0.1, \"subdivisions\": 2}"]),
    # the schemes no example uses, and participants in another process (seam-serve, which validate may start)
    ("piston.json", ["coupling.scheme=\"aitken\""]),
    ("piston.json", ["coupling.scheme=\"iqn-imvj\""]),
    ("piston.json", ["coupling.scheme=\"newton-fd\""]),
    ("piston.json", ["fluid.process=\"separate\"", "solids.0.process=\"separate\""]),
    ("tube_monolithic.json", ["coupled.process=\"separate\""]),
    # arrays no example writes (an array's length is the scene's to give, so each is written here)
    ("rising_disc.json", ["fluid.origin=[0, 0]", "solids.0.bodies.0.velocity=[0, 0]",
                          "solids.0.bodies.0.angular_velocity=0",
                          "solids.0.bodies.0.forces=[{\"force\": [0, 1], \"torque\": 0, \"point\": [0, 0]}]"]),
    ("rising_disc.json", ["solids.0.bodies.0={\"shape\": \"polygon\", \"vertices\": [[0, 0], [0.1, 0], [0, 0.1]], "
                          "\"density\": 600, \"position\": [0.5, 0.3]}"]),
    ("rising_disc.json", ["solids.0.bodies.0.kinematic={\"velocity\": [0, 0], \"amplitude\": [0, 0], "
                          "\"angular_velocity\": 0, \"frequency\": 1, \"phase\": 0}"]),
    ("sph_three_bodies.json", ["solids.0.bodies.0.orientation=[1, 0, 0, 0]",
                               "solids.0.bodies.1.constraint={\"rotate_about\": [0.3, 0.11, 0.175], "
                               "\"axis\": [0, 0, 1]}"]),
    ("floating_block.json", ["solids.0.bodies.0.velocity=[0, 0]",
                             "solids.0.bodies.0.prescribed={\"box\": {\"min\": [0.8, 0.7], \"max\": [1.2, 0.75]}, "
                             "\"velocity\": [0, 0]}"]),
    # the test plugins no example loads
    ("piston.json", ["fluid={\"plugin\": \"field_fluid\", \"drag\": 1, \"p0\": 0, \"gradient\": [0, 0]}",
                     "solids.0={\"plugin\": \"probe_solid\", \"position\": 0, \"mass\": 1, \"hang_at_step\": 5, "
                     "\"hang_s\": 1, \"work_s\": 0}"]),
    ("piston.json", ["fluid.fault={\"kind\": \"none\", \"step\": 0, \"unstable_above_dt\": 1, \"unstable_until\": 1}"]),
    # a mesh body (a tetrahedron's OBJ, written at the start) for solid_rigid's scale
    ("sph_three_bodies.json", ["solids.0.bodies.0={\"shape\": \"mesh\", \"mesh\": \"%(tet)s\", \"scale\": 1, "
                               "\"density\": 500, \"position\": [0.2, 0.2, 0.2]}"]),
]
TETRAHEDRON = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def walk(v, parts):
    """Concrete key paths (lists) of v matching the pattern parts ("x[]": each item of array x)."""
    if not parts:
        return [[]]
    head, rest = parts[0], parts[1:]
    arr = head.endswith("[]")
    key = head[:-2] if arr else head
    if not isinstance(v, dict) or key not in v:
        return []
    if arr:
        out = []
        if isinstance(v[key], list):
            for i, x in enumerate(v[key]):
                out += [[key, i] + p for p in walk(x, rest)]
        return out
    return [[key] + p for p in walk(v[key], rest)]


def dotted(p):
    return ".".join(str(x) for x in p)


def shown(p):
    return "".join("[%d]" % x if isinstance(x, int) else ("." if i else "") + x for i, x in enumerate(p))


def number(x, integer):
    return str(int(x)) if integer else repr(float(x))


def values(d):
    """(below, above, low inside, high inside) of declaration d."""
    lo, hi = d["lo"], d["hi"]
    if d["integer"]:
        return lo - 1, hi + 1, lo, hi
    below = lo if d["lo_open"] else math.nextafter(lo, -math.inf)
    above = hi if d["hi_open"] else math.nextafter(hi, math.inf)
    inside_lo = math.nextafter(lo, math.inf) if d["lo_open"] else lo
    inside_hi = math.nextafter(hi, -math.inf) if d["hi_open"] else hi
    return below, above, inside_lo, inside_hi


def applies(d, obj):
    """Whether declaration d's table is the one for obj: solid_fem's materials by their kind, a scheme's own keys
    by the scheme (xpm is rmi's), a participant's remote keys when it runs in another process."""
    if d["plugin"] is None and d["path"] == "coupling" and d["anchor"].startswith("## `"):
        scheme = obj.get("scheme", "relaxation")
        return d["anchor"].split("`")[1] == ("rmi" if scheme == "xpm" else scheme)
    if d["anchor"].startswith("## Keys the coupler consumes"):
        return obj.get("process") == "separate" or "connect" in obj
    if d["anchor"].startswith("Shells"):
        return obj.get("kind") == "shell"
    if d["anchor"].startswith("Volumetric"):
        return obj.get("kind", "solid") != "shell"
    return True


def cases(decls, name, scene, sets):
    """(key path list, declaration, written) of every declared key of an object scene holds."""
    out = []
    parts = [([], None)]   # (path of an object, its plugin): the scene, then each participant
    for k in ("fluid", "coupled"):
        if isinstance(scene.get(k), dict):
            parts.append(([k], scene[k].get("plugin")))
    for i, s in enumerate(scene.get("solids", []) or []):
        if isinstance(s, dict):
            parts.append((["solids", i], s.get("plugin")))
    mono = any("scheme=\"monolithic\"" in x for x in sets)
    if mono:
        parts.append(([], "monolithic"))
    for d in decls:
        if mono and d["plugin"] is None and d["path"].startswith("coupling"):
            continue   # the partitioned schemes' keys do nothing under the monolithic solver
        table = [x for x in d["path"].split(".") if x]
        *inner, key = d["name"].split(".")
        for base, plugin in parts:
            if plugin != d["plugin"]:
                continue
            obj = scene
            for x in base:
                obj = obj[x]
            for t in walk(obj, table):   # the objects of the declaring table ...
                tobj = obj
                for x in t:
                    tobj = tobj[x]
                if not isinstance(tobj, dict) or not applies(d, tobj):
                    continue
                for p in walk(tobj, inner):   # ... and in them, those that hold the key
                    holder = tobj
                    for x in p:
                        holder = holder[x]
                    v = holder.get(key) if isinstance(holder, dict) else None
                    written = is_number(v) or (d["each"] and last_leaf(v) is not None)
                    if isinstance(holder, dict) and (key not in holder or written):
                        out.append((base + t + p + [key], d, written, v))
    return out


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def last_leaf(v):
    """The index path of the last number of a nested list of numbers ([2] in a box, [1, 0] in a point list); None
    when v is no such list."""
    if not isinstance(v, list) or not v:
        return None
    if is_number(v[-1]):
        return [len(v) - 1] if all(is_number(x) for x in v) else None
    inner = last_leaf(v[-1])
    return None if inner is None else [len(v) - 1] + inner


def with_leaf(v, leaf, x):
    """v (a nested list) with its number at index path leaf replaced by x."""
    v = json.loads(json.dumps(v))
    holder = v
    for i in leaf[:-1]:
        holder = holder[i]
    holder[leaf[-1]] = x
    return v


CALLS = {}


def validate(scene, sets):
    CALLS[scene] = CALLS.get(scene, 0) + 1
    args = [SEAM, "validate", os.path.join(EXAMPLES, scene)]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)   # the largest generated mesh (a subdivisions-8 shell) takes ~3 s under ASan
    return r.returncode, r.stdout + r.stderr


def named(k):
    """The key path a refusal of case k names: an array's item for an array ("fluid.box[3]")."""
    p, d, _, v = k
    leaf = last_leaf(v) if d["each"] else None
    return p + leaf if leaf else p


def message(k):
    d = k[1]
    return "%s: expected %s in %s, got" % (shown(named(k)), "an integer" if d["integer"] else "a number", d["range"])


def setting(k, side):
    """--set of case k at value side of values(): an array's last number replaced, its others kept."""
    p, d, _, v = k
    x = number(values(d)[side], d["integer"])
    leaf = last_leaf(v) if d["each"] else None
    return "%s=%s" % (dotted(p), json.dumps(with_leaf(v, leaf, json.loads(x))) if leaf else x)


def assignments(sets, keys, side):
    return list(sets) + [setting(k, side) for k in keys]


def check_inside(name, sets, keys, failures):
    for side in (2, 3):   # just inside, low and high
        rc, log = validate(name, assignments(sets, keys, side))
        for k in keys:
            if message(k) in log:
                failures.append("%s --set %s: a value just inside was refused:\n%s"
                                % (name, " --set ".join(assignments(sets, keys, side)), log))
    return 2


def try_written(name, sets, keys, failures, inside=None):
    """Every key the scene writes outside, each value to all of them in one call (the keys whose refusal others
    hid, a body refused before its density was read, go again in the next call), and those of inside (all when
    None) inside first. The calls made."""
    inside = keys if inside is None else inside
    calls = check_inside(name, sets, inside, failures) if inside else 0
    for side in (0, 1):   # just outside, below and above
        left = list(keys)
        while left:   # the keys not yet refused, again together: what one refusal hid the next call shows
            rc, log = validate(name, assignments(sets, left, side))
            calls += 1
            shown_now = [k for k in left if rc == 1 and message(k) in log]
            left = [k for k in left if k not in shown_now]
            if not shown_now:
                break
        for k in left:
            failures.append("%s --set %s: expected exit 1 and \"%s\", got exit %d:\n%s"
                            % (name, " --set ".join(assignments(sets, left, side)), message(k), rc, log))
    return calls


def try_unwritten(unwritten, tried, failures):
    """The keys no example writes, each on the first scene holding its object that reads it: one whose refusal
    of the value below names the key's range (a scene whose message names the key otherwise does not read it: a
    2D shell's nu, a corotated material's compression_limit; the next scene is tried). A scene's keys go in one
    call, as for the written ones. The calls made."""
    calls = 0
    pending = {key: list(c) for key, c in unwritten.items() if key not in tried}
    while pending:
        first = next(iter(pending.values()))[0]   # the scene and sets of the first candidate left
        batch = {key: c.pop(0)[2] for key, c in pending.items() if c and c[0][:2] == first[:2]}
        name, sets = first[:2]
        rc, log = validate(name, assignments(sets, batch.values(), 0))
        calls += 1
        read = []
        for key, k in batch.items():
            if not (rc == 1 and message(k) in log):
                if shown(k[0]) + ":" in log:   # named otherwise: not read in this scene
                    if not pending[key]:
                        del pending[key]
                    continue
                rc1, log1 = validate(name, assignments(sets, [k], 0))
                calls += 1
                if not (rc1 == 1 and message(k) in log1):
                    if shown(k[0]) + ":" not in log1:
                        failures.append("%s --set %s: exit %d, and no message names the key:\n%s"
                                        % (name, " --set ".join(assignments(sets, [k], 0)), rc1, log1))
                        del pending[key]
                    elif not pending[key]:
                        del pending[key]   # read by no scene: reported as untried
                    continue
            read.append(k)
            tried.add(key)
            del pending[key]
        if read:
            calls += try_written(name, sets, read, failures)   # the value above, and inside: as written keys
    return calls


def main():
    decls = [json.loads(line) for line in subprocess.run([DUMP, "--dump"], check=True, capture_output=True,
                                                          text=True).stdout.splitlines()]
    tmp = tempfile.mkdtemp(prefix="key_ranges_")
    tet = os.path.join(tmp, "tet.obj")
    with open(tet, "w") as f:
        f.write(TETRAHEDRON)
    runs = [(name, []) for name in sorted(os.listdir(EXAMPLES)) if name.endswith(".json")]
    runs += [(name, [a % {"tet": tet} for a in sets]) for name, sets in EXTRA]
    failures, calls, tried, n_cases = [], 0, set(), 0
    unwritten = {}   # declaration id -> [(scene, sets, key)] where its object is but the key is not written
    ident = lambda d: (d["plugin"], d["path"], d["name"], d["anchor"])
    scenes = []
    for name, sets in runs:
        with open(os.path.join(EXAMPLES, name)) as f:
            scene = json.load(f)
        for a in sets:   # as --set applies them
            path, value = a.split("=", 1)
            *up, last = path.split(".")
            obj = scene
            for x in up:
                obj = obj[int(x)] if isinstance(obj, list) else obj.setdefault(x, {})
            obj[int(last) if isinstance(obj, list) else last] = json.loads(value)
        if any(isinstance(p, dict) and "command" in p
               for p in [scene.get("fluid"), scene.get("coupled")] + list(scene.get("solids", []) or [])):
            continue   # validate starts no program a scene names (docs/security.md)
        keys = cases(decls, name, scene, sets)
        for k in keys:
            if not k[2] and not k[1]["each"]:   # an array's length is the scene's: written in EXTRA
                unwritten.setdefault(ident(k[1]), []).append((name, sets, k))
        written = [k for k in keys if k[2]]
        if written:   # a key is tried inside on the first scene that writes it, outside on every one
            inside = [k for k in written if ident(k[1]) not in tried]
            scenes.append((name, sets, written, inside))
            n_cases += len(written)
            tried.update(ident(k[1]) for k in written)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:   # one seam a core
        calls += sum(pool.map(lambda x: try_written(x[0], x[1], x[2], failures, x[3]), scenes))
    before = len(tried)
    calls += try_unwritten(unwritten, tried, failures)
    n_cases += len(tried) - before
    untried = [d for d in decls if ident(d) not in tried]
    print("%d cases (scene and key) in %d seam validate calls; %d of %d declared keys tried" %
          (n_cases, calls, len(decls) - len(untried), len(decls)))
    for d in untried:
        failures.append("no scene tried %s %s%s%s (%s): add one to EXTRA" % (
            d["plugin"] or "scene", d["path"], "." if d["path"] else "", d["name"], d["anchor"]))
    shutil.rmtree(tmp)
    if os.environ.get("KEY_RANGES_DEBUG"):
        print(" ".join("%s %d" % kv for kv in sorted(CALLS.items())))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
