#!/usr/bin/env python3
"""The bench figures as data: bench/record.py keeps a bench's @row lines
with the date, machine and commit; every bench script and program goes
through it; bench/report.py makes docs/performance.md's tables from the data,
and the page in the tree is what the data gives."""
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("SEAM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def record(data, *args):
    env = dict(os.environ, SEAM_BENCH_DATA=data)
    env.pop("SEAM_BENCH_ROWS", None)
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "record.py"), *args], env=env,
                          capture_output=True, text=True)


def test_record(data):
    p = record(data, "demo", "size=3", "--", "sh", "-c",
               "echo figure 1; echo \"@row n=64 ms=1.5 name='two words' v=nan\"; echo figure 2; exit 3")
    check(p.returncode == 3, f"the command's exit status comes back (got {p.returncode})")
    check(p.stdout == "figure 1\nfigure 2\n", f"other lines pass through, @row lines do not: {p.stdout!r}")
    rows = [json.loads(line) for line in open(os.path.join(data, "demo.jsonl"))]
    check(len(rows) == 1, f"one row per @row line, got {len(rows)}")
    r = rows[0]
    check((r["n"], r["ms"], r["name"], r["v"], r["size"]) == (64, 1.5, "two words", "nan", 3),
          f"figures and parameters as values: {r}")
    for key in ("date", "commit", "machine", "command", "source"):
        check(r.get(key), f"the row has its {key}: {r}")
    check(r["date"].endswith("UTC") and "cpus" in r["machine"], f"date in UTC and the machine's cpus: {r}")
    p = record(data, "demo", "alone=1")
    check(p.returncode == 0 and len(open(os.path.join(data, "demo.jsonl")).readlines()) == 2,
          "KEY=VALUE alone records one row")
    p = record(data, "demo", "not-a-pair")
    check(p.returncode == 2, "a bad pair is refused with status 2")


def test_every_bench_records():
    for path in sorted(glob.glob(os.path.join(ROOT, "bench", "*", "*.sh")) + [os.path.join(ROOT, "bench", "run")]):
        head = open(path).read().split("\nset ", 1)[0]
        check("SEAM_BENCH=" in head and "rows.sh" in head, f"{os.path.relpath(path, ROOT)} runs under the recorder")
    for path in sorted(glob.glob(os.path.join(ROOT, "bench", "*", "*.c"))):
        check("@row " in open(path).read(), f"{os.path.relpath(path, ROOT)} prints @row lines")


def test_report(data):
    with open(os.path.join(data, "demo.jsonl"), "w") as f:
        for date, n, ms in (("2026-01-01 10:00 UTC", 1, 9.0), ("2026-01-02 10:00 UTC", 1, 4.0),
                            ("2026-01-02 10:00 UTC", 2, 5.0)):
            f.write(json.dumps({"date": date, "commit": "abc", "machine": "m", "command": "c", "source": "measured",
                                "kind": "x", "n": n, "ms": ms}) + "\n")
    doc = os.path.join(data, "doc.md")
    with open(doc, "w") as f:
        f.write("text\n<!-- table demo where kind=x -->\nold\n<!-- end table -->\nmore text\n")
    report = [sys.executable, os.path.join(ROOT, "bench", "report.py"), "--data", data]
    check(subprocess.run(report + ["--check", doc], capture_output=True).returncode == 1,
          "--check finds a stale table")
    check(subprocess.run(report + [doc], capture_output=True).returncode == 0, "report.py rewrites the page")
    text = open(doc).read()
    check("| n | ms |\n|---|---|\n| 1 | 4 |\n| 2 | 5 |\n" in text, f"the latest run's rows, varying columns:\n{text}")
    check("| 9 |" not in text and text.startswith("text\n") and text.endswith("more text\n"),
          f"older runs and the text around the table are left out/alone:\n{text}")
    check(subprocess.run(report + ["--check", doc], capture_output=True).returncode == 0, "then --check passes")


def test_performance_page_is_current():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "report.py"), "--check"], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"docs/performance.md is what bench/data gives (run bench/report.py): {p.stderr}")


with tempfile.TemporaryDirectory() as tmp:
    test_record(tmp)
    test_every_bench_records()
    test_report(tmp)
test_performance_page_is_current()
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
