"""The seam Python package (protocol/python/seam): runs scenes through the
seam program and returns their outputs as numpy arrays.

The piston (examples/piston.json): a piston of mass m_s = 1 on a spring
k = 4 pi^2 pushes a column of mass m_a = 2. The coupled iterations converge
to backward Euler on the combined mass (tests/coupler/test_piston.c),
    x' = (x + dt v) / (1 + k dt^2 / (m_s + m_a)),
whose motion is harmonic with omega^2 = k / (m_s + m_a), the period
T = 2 pi / omega = sqrt(3) s, up to backward Euler's damping."""
import json
import math
import os
import shutil
import tempfile
import unittest

import numpy as np

import seam

ROOT = os.environ.get("SEAM_SOURCE_ROOT", ".")
PISTON = os.path.join(ROOT, "examples", "piston.json")
M, K, DT, X0 = 1.0 + 2.0, 39.47841760435743, 0.01, 0.1


def backward_euler(steps):
    x, v, xs = X0, 0.0, [X0]
    for _ in range(steps):
        x_new = (x + DT * v) / (1.0 + K * DT * DT / M)
        v = (x_new - x) / DT
        x = x_new
        xs.append(x)
    return np.array(xs)


class PackageTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="seam-py-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_piston_from_python(self):
        run = seam.run(PISTON, out=os.path.join(self.tmp, "p"), report=False)
        self.assertEqual(run.returncode, 0)
        x = run.interface
        self.assertEqual(x.shape, (201, 1, 1))          # the initial state, then 200 steps
        self.assertEqual(x.dtype, np.float64)
        t = run.interface_t
        self.assertEqual(t[0], 0.0)
        np.testing.assert_array_equal(t[1:], run.stats["t"])
        # the discrete answer, to the coupling tolerance (1e-10 m per step)
        np.testing.assert_allclose(x[:, 0, 0], backward_euler(200), rtol=0, atol=1e-8)
        # the physics: x falls through 0 at T/4 and is lowest at T/2, T = sqrt(3) s
        period = 2 * math.pi / math.sqrt(K / M)
        self.assertAlmostEqual(period, math.sqrt(3.0), places=12)
        first_zero = np.argmax(x[:, 0, 0] < 0)
        self.assertLessEqual(abs(t[first_zero] - period / 4), DT)
        self.assertLessEqual(abs(t[np.argmin(x[:, 0, 0])] - period / 2), 2 * DT)
        # stats: one row per step, every step converged, its iterations are its rows in residuals.csv
        self.assertEqual(run.stats["step"].dtype, np.int64)
        np.testing.assert_array_equal(run.stats["step"], np.arange(200))
        self.assertTrue(np.all(run.stats["converged"] == 1))
        counts = np.bincount(run.residuals["step"], minlength=200)
        np.testing.assert_array_equal(counts, run.stats["iterations"])
        self.assertEqual(list(run.summary["name"][:2]), ["fluid", "piston"])
        self.assertEqual(list(run.summary["solves"][:2]), [run.stats["iterations"].sum()] * 2)
        # load gives the same arrays from the directory
        again = seam.load(run.dir)
        self.assertEqual(sorted(again.tables), sorted(run.tables))
        np.testing.assert_array_equal(again.interface, x)

    def test_overrides_and_a_failed_run(self):
        with self.assertRaises(seam.RunError) as caught:
            seam.run(PISTON, out=os.path.join(self.tmp, "x"), report=False, coupling={"scheme": "explicit"},
                     fluid__added_mass=10)
        e = caught.exception
        self.assertEqual(e.returncode, 4)                 # diverged (docs/scenes.md, exit statuses)
        self.assertIn("scheme explicit diverged at step 12", str(e))
        self.assertEqual(len(e.run.stats["step"]), 12)    # the steps it finished
        run = seam.run(PISTON, out=os.path.join(self.tmp, "x"), report=False, force=True, check=False,
                       **{"coupling.scheme": "explicit", "fluid.added_mass": 10})
        self.assertEqual(run.returncode, 4)
        with self.assertRaises(seam.RunError) as caught:   # a run without --force keeps the earlier outputs
            seam.run(PISTON, out=os.path.join(self.tmp, "x"), report=False)
        self.assertEqual(caught.exception.returncode, 1)
        self.assertIn("--force", str(caught.exception))
        self.assertEqual(seam.overrides_to_sets({"time": {"end": 0.5}, "solids__0__mass": 2, "a.b": "text"}),
                         ["time.end=0.5", "solids.0.mass=2", 'a.b="text"'])

    def test_default_output_directory_is_the_scenes(self):
        with open(PISTON) as f:
            scene = json.load(f)
        scene["output"]["dir"] = "results"                 # relative to the scene's directory
        path = os.path.join(self.tmp, "scene.json")
        with open(path, "w") as f:
            json.dump(scene, f)
        run = seam.run(path, report=False, time__end=0.1)
        self.assertEqual(run.dir, os.path.join(self.tmp, "results"))
        self.assertEqual(len(run.stats["step"]), 10)
        run = seam.run(path, report=False, force=True, time__end=0.05, output__dir=os.path.join(self.tmp, "o"))
        self.assertEqual(run.dir, os.path.join(self.tmp, "o"))
        self.assertEqual(len(run.stats["step"]), 5)

    def test_python_participants_same_arrays(self):
        c = seam.run(PISTON, out=os.path.join(self.tmp, "c"), report=False)
        py = seam.run(os.path.join(ROOT, "examples", "piston_python.json"), out=os.path.join(self.tmp, "py"),
                      report=False)
        np.testing.assert_array_equal(py.interface, c.interface)   # bit for bit
        self.assertEqual(list(py.summary["plugin"][:2]), ["piston_fluid_py", "piston_solid_py"])


if __name__ == "__main__":
    unittest.main()
