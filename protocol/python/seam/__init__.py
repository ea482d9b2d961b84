"""Run seam scenes from Python and read what they wrote.

    import seam
    run = seam.run("examples/piston.json", out="out/p", force=True,
                   coupling={"scheme": "iqn_ils"}, time__end=1.0)
    run.stats["iterations"]        # numpy array, one value per step
    run.interface                  # numpy array (rows, points, dim): every point at every step
    run.interface_t                # the time of each row
    again = seam.load("out/p")     # the same, from a finished run's directory

seam.run calls the seam program (`seam run SCENE --set KEY=VALUE ...`), so
a run from Python is the run the command line makes. Keyword arguments
other than run's own are overrides of the scene: a nested dict sets each
key in it (coupling={"scheme": "explicit"} is --set coupling.scheme=...),
a double underscore stands for a dot (time__end=1.0 is --set time.end=1),
and any key can be given spelled out, seam.run(scene, **{"solids[0].mass":
2.0}). Values travel as JSON. Needs numpy (Debian: python3-numpy).
"""
import csv
import json
import os
import re
import shutil
import subprocess

import numpy as np

from . import _paths

__all__ = ["run", "load", "program", "Run", "RunError"]


class RunError(Exception):
    """seam exited with a status other than 0: returncode (1: the scene or a
    participant failed, 4: the coupling diverged, ... as docs/scenes.md
    lists), log and messages (what it printed on stdout and on stderr) and
    run (the outputs it left, a Run, or None when it wrote none). The
    exception's text holds the error messages."""

    def __init__(self, returncode, log, messages, run):
        lines = [line for line in messages.splitlines() if line.strip()]
        errors = [line for line in lines if " error: " in line or line.startswith("seam: error")] or lines[-3:]
        super().__init__("seam exited with status %d%s" % (returncode, (":\n" + "\n".join(errors)) if errors else ""))
        self.returncode, self.log, self.messages, self.run = returncode, log, messages, run


def program():
    """The seam program: in the build tree, this build's; installed, the one
    of this package's own prefix (where it lies relative to the package,
    wherever the tree was put), else the configured prefix's; else `seam`
    on PATH."""
    here = os.path.dirname(os.path.realpath(__file__))
    if here == os.path.realpath(_paths.PACKAGE_BUILD):
        candidates = [_paths.BUILD, _paths.INSTALLED]
    else:
        beside = os.path.join(here, os.path.relpath(_paths.INSTALLED, _paths.PACKAGE_INSTALLED))
        candidates = [os.path.normpath(beside), _paths.INSTALLED]
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("seam")
    if not found:
        raise FileNotFoundError("no seam program at %s or on PATH" % " or ".join(candidates))
    return found


def _flatten(key, value, into):
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten("%s.%s" % (key, k), v, into)
    else:
        into[key] = value


def overrides_to_sets(overrides):
    """{key: value} -> ["KEY=JSON", ...] for seam's --set, nested dicts
    flattened and "__" read as "."."""
    flat = {}
    for key, value in overrides.items():
        _flatten(key.replace("__", "."), value, flat)
    return ["%s=%s" % (k, json.dumps(v)) for k, v in flat.items()]


def _output_dir(scene, flat_sets):
    """Where `seam run SCENE` writes without --out (coupler/scene.c):
    output.dir, relative to the scene's directory, else out/<scene name> in
    the working directory."""
    dir_ = None
    for s in flat_sets:
        if s.startswith("output.dir="):
            dir_ = json.loads(s[len("output.dir="):])
    if dir_ is None:
        with open(scene) as f:
            dir_ = (json.load(f).get("output") or {}).get("dir")
    if dir_ is None:
        base = os.path.basename(scene)
        return os.path.join("out", base[:-5] if base.endswith(".json") else base)
    return dir_ if os.path.isabs(dir_) else os.path.join(os.path.dirname(scene) or ".", dir_)


def run(scene, *, out=None, force=False, report=True, check=True, timeout=None, program_path=None, **overrides):
    """Run SCENE with overrides; returns a Run of its outputs.

    out: the output directory (--out; default: the scene's, as seam picks it).
    force: replace an earlier run's outputs there (--force).
    report: write the run report, index.html (False: --no-report).
    check: raise RunError when seam exits with a status other than 0 (else
        return the Run, its returncode set; a run that left no stats.csv
        raises all the same).
    timeout: seconds before the run is killed (subprocess.TimeoutExpired).
    program_path: the seam program (default: program())."""
    sets = overrides_to_sets(overrides)
    args = [program_path or program(), "run", scene]
    if out is not None:
        args += ["--out", out]
    if force:
        args.append("--force")
    if not report:
        args.append("--no-report")
    for s in sets:
        args += ["--set", s]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    dir_ = out if out is not None else _output_dir(scene, sets)
    result = load(dir_) if os.path.exists(os.path.join(dir_, "stats.csv")) else None
    if result is not None:
        result.returncode, result.log, result.messages = proc.returncode, proc.stdout, proc.stderr
    if proc.returncode != 0 and (check or result is None):
        raise RunError(proc.returncode, proc.stdout, proc.stderr, result)
    return result


def _column(values):
    """CSV text -> int64 when every value is an integer, float64 when every
    value is a number or empty (NaN; 17 digits: the bits seam wrote), else
    str."""
    if all(re.fullmatch(r"-?[0-9]+", v) for v in values):
        return np.array([int(v) for v in values], dtype=np.int64)
    try:
        return np.array([float(v) if v else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=str)


def read_csv(path):
    """A CSV file with a header row -> {column: numpy array}."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError("%s: empty (no header row)" % path)
    head, body = rows[0], rows[1:]
    for i, row in enumerate(body):
        if len(row) != len(head):
            raise ValueError("%s:%d: %d values for %d columns" % (path, i + 2, len(row), len(head)))
    return {name: _column([row[j] for row in body]) for j, name in enumerate(head)}


class Run:
    """A run's outputs. tables: every CSV file of the directory by name
    ("stats", "residuals", "summary", "interface", "regions", ...), each a
    dict of numpy arrays by column; the common ones are attributes too
    (None when the run did not write them)."""

    def __init__(self, dir_):
        self.dir = dir_
        self.returncode = 0    # seam.run: seam's exit status, its stdout and its stderr
        self.log = ""
        self.messages = ""
        self.tables = {}
        for name in sorted(os.listdir(dir_)):
            if name.endswith(".csv"):
                self.tables[name[:-4]] = read_csv(os.path.join(dir_, name))

    def __repr__(self):
        return "seam.Run(%r: %s)" % (self.dir, ", ".join(self.tables))

    stats = property(lambda self: self.tables.get("stats"), doc="stats.csv: one row per step")
    residuals = property(lambda self: self.tables.get("residuals"), doc="residuals.csv: one row per iteration")
    summary = property(lambda self: self.tables.get("summary"), doc="summary.csv: one row per participant")
    regions = property(lambda self: self.tables.get("regions"), doc="regions.csv: enclosed regions, when written")

    @property
    def interface(self):
        """interface.csv (output.interface) as an array (rows, points, dim):
        the interface points after each step, the initial state first."""
        t = self.tables.get("interface")
        if t is None:
            return None
        cols = [c for c in t if re.fullmatch(r"p[0-9]+_[xyz]", c)]
        dim = len({c[-1] for c in cols})
        n = len(cols) // dim if dim else 0
        if n * dim != len(cols) or cols != ["p%d_%s" % (i, a) for i in range(n) for a in "xyz"[:dim]]:
            raise ValueError("%s/interface.csv: columns are not p0_x, p0_y, ... point after point"
                             % self.dir)
        rows = len(t["t"])
        return np.stack([t[c] for c in cols], axis=-1).reshape(rows, n, dim) if rows else np.zeros((0, n, dim))

    @property
    def interface_t(self):
        """The time of each row of interface, s."""
        t = self.tables.get("interface")
        return None if t is None else t["t"]


def load(dir_):
    """The outputs of a finished (or stopped) run in dir_, as a Run."""
    if not os.path.exists(os.path.join(dir_, "stats.csv")):
        raise FileNotFoundError("%s: no stats.csv: not the output directory of a seam run" % dir_)
    return Run(dir_)
