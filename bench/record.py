#!/usr/bin/env python3
"""Record a bench's figures as data: one JSON object per line, appended to
bench/data/BENCH.jsonl, each with the date (UTC), the machine, the commit and
the command beside the bench's own parameters and figures.

A bench says what to record by printing lines of the form

    @row key=value key=value ...

on its standard output (values with spaces in single quotes; numbers are
stored as numbers). Run it under this recorder, which passes every other
line through and keeps the @row lines out of the output:

    bench/record.py BENCH [KEY=VALUE ...] -- COMMAND [ARG ...]

KEY=VALUE pairs before `--` are added to every row (parameters the command
line does not show). Exit status: the command's. A bench script records
itself by re-running under the recorder on its first line (bench/rows.sh).

    bench/record.py BENCH KEY=VALUE ...

records one row from the arguments alone. SEAM_BENCH_DATA names another
directory for the data files (the tests of the recorder use it);
SEAM_BENCH_DATA=- records nothing (a dry run).
"""
import json
import os
import platform
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def number(text):
    """The value as stored: an int or float where it reads as one, else the text."""
    for kind in (int, float):
        try:
            value = kind(text)
            return value if value - value == 0 else text   # nan and inf stay text: JSON has no such numbers
        except ValueError:
            pass
    return text


def pairs(tokens):
    row = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise ValueError(f"expected KEY=VALUE, got '{token}'")
        row[key] = number(value)
    return row


def machine():
    """Architecture, CPU model and processor count: what a figure depends on."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.machine()}, {model}, {os.cpu_count()} cpus"


def commit():
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    # a figure measured on uncommitted code says so (the data and the docs do not count)
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/data", ":!docs")
    return head + ("+dirty" if dirty else "")


# settings that change a bench's figures without appearing on its command line
ENVIRONMENT = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY", "BENCH_STEPS", "BENCH_SIZES", "BENCH_TIME",
               "PREFIX")


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return ""


class Recorder:
    def __init__(self, bench, params, command):
        self.path = None
        where = os.environ.get("SEAM_BENCH_DATA", os.path.join(ROOT, "bench", "data"))
        if where != "-":
            os.makedirs(where, exist_ok=True)
            self.path = os.path.join(where, bench + ".jsonl")
        self.head = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit(),
                     "machine": machine(), "load": load(), "command": command, "source": "measured"}
        env = {k: os.environ[k] for k in ENVIRONMENT if os.environ.get(k)}
        if env:
            self.head["env"] = env
        self.params = params
        self.rows = 0

    def add(self, figures):
        row = {**self.head, **self.params, **figures}
        self.rows += 1
        if self.path:
            with open(self.path, "a") as f:   # one write per row: whole rows even if killed
                f.write(json.dumps(row) + "\n")


def run(bench, params, argv):
    shown = " ".join(shlex.quote(os.path.relpath(a, ROOT) if os.path.isabs(a) and a.startswith(ROOT) else a)
                     for a in argv)
    rec = Recorder(bench, params, shown)
    env = dict(os.environ, SEAM_BENCH_ROWS=bench)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    for line in proc.stdout:
        if line.startswith("@row "):
            try:
                rec.add(pairs(shlex.split(line[5:])))
            except ValueError as e:
                print(f"bench/record.py: bad row ({e}): {line.rstrip()}", file=sys.stderr)
        else:
            sys.stdout.write(line)
            sys.stdout.flush()
    status = proc.wait()
    where = rec.path and (os.path.relpath(rec.path, ROOT) if rec.path.startswith(ROOT + os.sep) else rec.path)
    print(f"bench/record.py: {rec.rows} rows{' to ' + where if where else ' (not kept: SEAM_BENCH_DATA=-)'}",
          file=sys.stderr)
    return status


def main(args):
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    bench, rest = args[0], args[1:]
    if "--" in rest:
        cut = rest.index("--")
        if cut + 1 == len(rest):
            print("bench/record.py: no command after --", file=sys.stderr)
            return 2
        return run(bench, pairs(rest[:cut]), rest[cut + 1:])
    Recorder(bench, {}, "bench/record.py " + " ".join(args)).add(pairs(rest))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ValueError as e:
        print(f"bench/record.py: {e}", file=sys.stderr)
        sys.exit(2)
