"""The Python client keeps its users: seam_client.py imports from the source
tree alone (its seam_abi.py copy equals the one the build generates), the old
level names seam.DEBUG, INFO and WARN still work with a DeprecationWarning,
and an exception a solver raises inside solve reaches the user of `seam run`
with its traceback."""
import filecmp
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
import warnings

ROOT = os.environ.get("SEAM_SOURCE_ROOT", ".")
BUILD = os.environ.get("SEAM_BUILD_ROOT", os.path.join(ROOT, "build"))
SOURCE_PY = os.path.abspath(os.path.join(ROOT, "protocol", "python"))


class SourceTreeTest(unittest.TestCase):
    def test_abi_copy_is_the_generated_one(self):
        built = os.path.join(BUILD, "protocol", "python", "seam_abi.py")
        self.assertTrue(filecmp.cmp(built, os.path.join(SOURCE_PY, "seam_abi.py"), shallow=False),
                        "protocol/python/seam_abi.py differs from the build's: cp %s %s" % (built, SOURCE_PY))

    def test_imports_without_a_build(self):
        # only the source folder on the path: no build/protocol/python
        env = dict(os.environ, PYTHONPATH=SOURCE_PY)
        out = subprocess.run([sys.executable, "-c", "import seam_client as s; print(s.ABI_VERSION, int(s.LOG_WARN))"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stdout)
        self.assertRegex(out.stdout.strip(), r"^\d+ 2$")

    def test_missing_abi_says_what_to_do(self):
        with tempfile.TemporaryDirectory() as d:   # seam_client.py copied alone
            with open(os.path.join(SOURCE_PY, "seam_client.py"), encoding="utf-8") as f, \
                    open(os.path.join(d, "seam_client.py"), "w", encoding="utf-8") as g:
                g.write(f.read())
            out = subprocess.run([sys.executable, "-c", "import seam_client"], cwd=d, env=dict(os.environ, PYTHONPATH=d),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("seam_client.py needs seam_abi.py", out.stdout)


class DeprecatedNamesTest(unittest.TestCase):
    def test_old_level_names(self):
        sys.path.insert(0, SOURCE_PY)
        import seam_client as seam
        for old, new in (("DEBUG", seam.LOG_DEBUG), ("INFO", seam.LOG_INFO), ("WARN", seam.LOG_WARN)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.assertIs(getattr(seam, old), new)
            self.assertEqual([w.category for w in caught], [DeprecationWarning], old)
            self.assertIn("use seam_client.LOG_%s" % old, str(caught[0].message))
            self.assertEqual(caught[0].filename, __file__)   # blames the caller's line
        with self.assertRaises(AttributeError):
            seam.NOTICE   # noqa: B018
        self.assertIs(seam.ERROR, seam.Status.ERROR)   # ERROR was and stays the status


FAULTY = '''
import math
import seam_client as seam


class Faulty(seam.Plugin):
    name, role, summary = "faulty", "fluid", "raises in its third solve"

    def __init__(self, config, host):
        self.calls, self.host = 0, host

    def max_dt(self):
        return math.inf

    def bind(self, iface):
        self.host.log(seam.INFO, "bound (old level name)")
        return seam.OK

    def solve(self, step, io, out):
        self.calls += 1
        return self.pressure(io, out)

    def pressure(self, io, out):
        for i in range(len(io.V)):
            out.F[i] = -io.V[i] / (3 - self.calls)   # the third call divides by zero
        return seam.OK

    def commit(self):
        return seam.OK


if __name__ == "__main__":
    seam.main(Faulty)
'''


class TracebackTest(unittest.TestCase):
    def test_solve_raises(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "faulty.py"), "w", encoding="utf-8") as f:
                f.write(textwrap.dedent(FAULTY))
            with open(os.path.join(d, "scene.json"), "w", encoding="utf-8") as f:
                f.write('{"time": {"end": 0.1, "dt": 0.01}, "coupling": {"scheme": "explicit"},\n'
                        ' "fluid": {"process": "separate", "command": ["python3", "faulty.py"]},\n'
                        ' "solids": [{"name": "piston", "plugin": "piston_solid", "mass": 1.0,'
                        ' "stiffness": 10.0, "position": 0.1}]}\n')
            env = dict(os.environ, PYTHONPATH=SOURCE_PY)
            out = subprocess.run([os.path.join(BUILD, "coupler", "seam"), "run", "scene.json", "--quiet"], cwd=d,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        text = out.stdout
        for want in ("the solver raised ZeroDivisionError: float division by zero", "Traceback (most recent call last):",
                     "faulty.py\", line 21, in solve", "faulty.py\", line 25, in pressure",
                     "-io.V[i] / (3 - self.calls)", "ZeroDivisionError: float division by zero",
                     "DeprecationWarning: seam_client.INFO is deprecated"):
            self.assertIn(want, text)
        self.assertNotIn("seam_client.py", text.split("Traceback")[1])   # only the solver's own frames


if __name__ == "__main__":
    unittest.main(verbosity=2)
