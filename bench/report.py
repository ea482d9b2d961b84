#!/usr/bin/env python3
"""Make the tables of docs/performance.md from the rows in bench/data/.

The document is written by hand; each table in it sits between a marker
naming what it shows and an end marker, and this script rewrites what lies
between them:

    <!-- table BENCH [where KEY=VALUE ...] [columns KEY,KEY,...] [runs all] -->
    ... generated ...
    <!-- end table -->

BENCH is the data file (bench/data/BENCH.jsonl). The table shows the rows
of the latest run (one date, commit and command) among those that match
every KEY=VALUE (VALUE may list alternatives, a|b; quote a pair that holds
spaces, as a shell would), or of every matching run with `runs all`; the columns
given, or else every key whose value varies between the rows shown (the
keys common to all go in the caption, with the run's date, commit, machine
and command, and where the figures were transcribed from).

    bench/report.py [--check] [--data DIR] [DOCUMENT]

DOCUMENT defaults to docs/performance.md. --check rewrites nothing and
exits 1 when the document's tables differ from what the data gives.
"""
import json
import os
import re
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
META = ("date", "commit", "machine", "load", "command", "source", "env", "section", "note")
MARKER = re.compile(r"^<!-- table (.*?) -->\n(.*?)^<!-- end table -->\n", re.S | re.M)


def load_rows(data, bench):
    path = os.path.join(data, bench + ".jsonl")
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError:
        raise SystemExit(f"bench/report.py: no data file {os.path.relpath(path, ROOT)}")


def parse_marker(text):
    words = shlex.split(text)
    spec = {"bench": words[0], "where": {}, "columns": None, "runs": "latest"}
    i = 1
    while i < len(words):
        if words[i] == "where":
            i += 1
            while i < len(words) and "=" in words[i]:
                key, value = words[i].split("=", 1)
                spec["where"][key] = set(value.split("|"))
                i += 1
        elif words[i] == "columns" and i + 1 < len(words):
            spec["columns"] = words[i + 1].split(",")
            i += 2
        elif words[i] == "runs" and i + 1 < len(words) and words[i + 1] in ("all", "latest"):
            spec["runs"] = words[i + 1]
            i += 2
        else:
            raise SystemExit(f"bench/report.py: cannot read the marker '{text}' at '{words[i]}'")
    return spec


def run_of(row):
    return (row.get("date", ""), row.get("commit", ""), row.get("command", ""))


def cell(value):
    if isinstance(value, float):
        if value != value:
            return "nan"
        if abs(value) >= 1000 or value == int(value) and abs(value) >= 100:
            return f"{value:.0f}"
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value).replace("|", "\\|")


def caption(rows, fixed):
    """Where the figures come from: per run, its date, commit, machine, command and source."""
    lines = []
    for run in dict.fromkeys(run_of(r) for r in rows):
        r = next(x for x in rows if run_of(x) == run)
        where = f"{r.get('date', '?')}, commit {r.get('commit', '?')}, {r.get('machine', '?')}"
        if r.get("load"):
            where += f", load {r['load']}"
        if r.get("env"):
            where += f", {cell(r['env'])}"
        text = f"`{r['command']}`" if r.get("command") else ""
        if r.get("source", "measured") != "measured":
            text += f" ({r['source']}{': ' + r['section'] if r.get('section') else ''})"
        lines.append(f"{text}; {where}." if text else f"{where}.")
        if r.get("note"):
            lines[-1] += f" {r['note']}"
    if fixed:
        lines.append("For every row: " + ", ".join(f"{k} = {cell(v)}" for k, v in fixed.items()) + ".")
    return lines


def table(data, spec):
    rows = [r for r in load_rows(data, spec["bench"])
            if all(cell(r.get(k, "")) in v for k, v in spec["where"].items())]
    if not rows:
        raise SystemExit(f"bench/report.py: no row of {spec['bench']} matches {spec['where']}")
    rows.sort(key=lambda r: r.get("date", ""))   # stable: a run's rows keep their order
    if spec["runs"] == "latest":
        last = max(rows, key=lambda r: r.get("date", ""))
        rows = [r for r in rows if run_of(r) == run_of(last)]
    keys = [k for k in dict.fromkeys(k for r in rows for k in r) if k not in META and k not in spec["where"]]
    if spec["runs"] == "all" and len({run_of(r) for r in rows}) > 1:
        keys = ["date", "commit"] + keys
    if spec["columns"]:
        columns, fixed = spec["columns"], {}
    else:
        varies = lambda k: len({json.dumps(r.get(k)) for r in rows}) > 1 or len(rows) == 1
        columns = [k for k in keys if varies(k)]
        fixed = {k: rows[0][k] for k in keys if not varies(k) and k in rows[0]}
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        out.append("| " + " | ".join(cell(r.get(k, "")) for k in columns) + " |")
    return "\n".join(out + [""] + caption(rows, fixed)) + "\n"


def render(text, data):
    return MARKER.sub(lambda m: f"<!-- table {m.group(1)} -->\n{table(data, parse_marker(m.group(1)))}"
                                f"<!-- end table -->\n", text)


def main(args):
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    data = os.path.join(ROOT, "bench", "data")
    if "--data" in args:
        i = args.index("--data")
        if i + 1 >= len(args):
            raise SystemExit("bench/report.py: --data needs a directory")
        data = args[i + 1]
        del args[i:i + 2]
    if any(a in ("-h", "--help") for a in args) or len(args) > 1:
        print(__doc__.strip())
        return 0 if args and args[0] in ("-h", "--help") else 2
    doc = args[0] if args else os.path.join(ROOT, "docs", "performance.md")
    with open(doc) as f:
        text = f.read()
    new = render(text, data)
    if check:
        if new != text:
            print(f"bench/report.py: {os.path.relpath(doc)} is not what bench/data gives; run bench/report.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(doc, "w") as f:
            f.write(new)
    print(f"bench/report.py: {len(MARKER.findall(new))} tables in {os.path.relpath(doc)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
