"""What the outsider tests (test_outsider.py, test_outsider_fluid.py) share: where the build's seam is, a
search path that finds the outsiders' plugins, and the checks they count."""
import os
import subprocess

BUILD = os.environ["SEAM_BUILD_ROOT"]
SOURCE = os.environ["SEAM_SOURCE_ROOT"]
SEAM = os.path.join(BUILD, "coupler", "seam")
HERE = os.path.join(SOURCE, "tests", "docs", "outsider")
ENV = dict(os.environ, SEAM_PLUGIN_PATH=os.path.join(BUILD, "tests", "docs"))
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def seam(*args, cwd):
    p = subprocess.run([SEAM] + list(args), cwd=cwd, env=ENV, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def verdict():
    """The exit status of a test: 1 when a check failed, after their count."""
    print("%d failed" % len(failures))
    return 1 if failures else 0
