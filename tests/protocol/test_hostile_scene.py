"""Whole scenes against hostile servers, and a SIGKILLed coupler's leftovers.

Each class of hostile reply (tests/protocol/hostile_server.py: a wrong
size, NaN, a huge array, garbage, a slow drip of stale replies, a server
that stops answering mid-step) answers the piston's solid in a `seam run`:
the run must stop with exit status 1 (not a signal, no sanitizer report),
name the participant, the step and the cause, and leave whole output files
whose committed rows end before the failed step.

A coupler killed with SIGKILL mid-run, with a seam-serve participant and a
Python `command` participant, must leave no process and no private ipc
directory behind within a few seconds (protocol/remote.c's reaper)."""
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.environ.get("SEAM_SOURCE_ROOT", ".")
BUILD = os.environ.get("SEAM_BUILD_ROOT", os.path.join(ROOT, "build"))
SEAM = os.path.join(BUILD, "coupler", "seam")
HOSTILE = os.path.abspath(os.path.join(ROOT, "tests", "protocol", "hostile_server.py"))
PY_SOLID = os.path.abspath(os.path.join(ROOT, "protocol", "python", "piston_solid.py"))
SCENE = os.path.abspath(os.path.join(ROOT, "examples", "piston.json"))
AT = 7   # the solve answered badly: within step 2 of the aitken piston (3 or so solves a step)


def load_check_outputs():
    spec = importlib.util.spec_from_file_location("check_outputs", os.path.join(ROOT, "bench", "coupler",
                                                                                 "check_outputs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CHECK = load_check_outputs()


def solid(command, extra=""):
    return ('solids.0={"name": "piston", "process": "separate", "command": %s, "mass": 1.0, '
            '"stiffness": 39.47841760435743, "position": 0.1%s}' % (command, extra))


def last_step(path):
    with open(path) as f:
        rows = f.read().splitlines()
    return int(rows[-1].split(",")[0]) if len(rows) > 1 else None


class HostileServerTest(unittest.TestCase):
    # how: what the error must say about the cause
    CAUSES = {
        "size": r"solve at step \d+ .*: bad reply from ipc://\S+: field \"X\": expected bin of 1 float64",
        "nan": r"returned a non-finite position or velocity",
        "huge": r"solve at step \d+ .*: bad reply from ipc://\S+: field \"X\": expected bin of 1 float64 \(8 bytes\), "
                r"got 16777216 bytes",
        "garbage": r"solve at step \d+ .*: malformed reply from ipc://",
        "drip": r"no reply from ipc://\S+ within 1 s",
        "stop": r"no reply from ipc://\S+ within 1 s",
    }

    def run_hostile(self, how):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            cmd = [SEAM, "run", SCENE, "--set", solid('["/usr/bin/python3", "%s", "%s", "%d"]' % (HOSTILE, how, AT),
                                                      ', "timeout": %d' % (1 if how in ("drip", "stop") else 20)),
                   "--set", "coupling.scheme=aitken", "--steps", "10", "--out", out, "--force"]
            t0 = time.monotonic()
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                               env=dict(os.environ, TMPDIR=d))
            took = time.monotonic() - t0
            log = p.stdout
            self.assertEqual(p.returncode, 1, "%s: exit %d\n%s" % (how, p.returncode, log))
            self.assertNotRegex(log, "AddressSanitizer|LeakSanitizer|runtime error", how)
            self.assertLess(took, 30.0, how)
            first = re.search(r"\[piston\] error: .*", log)   # the first error says it all
            self.assertIsNotNone(first, "%s: no error naming the participant:\n%s" % (how, log))
            m = re.search(r" at step (\d+) \(t = [0-9.e-]+ s\)", first.group(0))
            self.assertIsNotNone(m, "%s: the first error names no step:\n%s" % (how, log))
            self.assertRegex(first.group(0), self.CAUSES[how], "%s:\n%s" % (how, log))
            step = int(m.group(1))
            self.assertGreaterEqual(step, 1, log)
            bad = [(name, why) for name in sorted(os.listdir(out)) if name.endswith(".csv")
                   for why in [CHECK.check_csv(os.path.join(out, name))] if why]
            self.assertEqual(bad, [], "%s: torn outputs" % how)
            self.assertEqual([n for n in os.listdir(out) if n.endswith(".tmp")], [], how)
            # stats.csv and interface.csv: the committed steps, the failed one not among them
            self.assertEqual(last_step(os.path.join(out, "stats.csv")), step - 1, how)
            self.assertEqual(last_step(os.path.join(out, "interface.csv")), step, how)   # row k: the state after step k-1
            # nothing left behind: the hostile server's directory and the coupler's
            self.assertEqual([n for n in os.listdir(d) if n != "out"], [], how)

    def test_wrong_size(self):
        self.run_hostile("size")

    def test_nan(self):
        self.run_hostile("nan")

    def test_huge_array(self):
        self.run_hostile("huge")

    def test_garbage(self):
        self.run_hostile("garbage")

    def test_slow_drip(self):
        self.run_hostile("drip")

    def test_stops_answering(self):
        self.run_hostile("stop")


def processes_naming(text):
    """The pids of live processes whose command line holds text (zombies excluded)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read()
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in cmdline and state != "Z":
            found.append(int(pid))
    return found


class KilledCouplerTest(unittest.TestCase):
    def test_sigkill_leaves_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            tmp = os.path.join(d, "tmp")
            os.mkdir(tmp)
            out = os.path.join(d, "out")
            cmd = [SEAM, "run", SCENE, "--set", "fluid.process=separate",
                   "--set", solid('["/usr/bin/python3", "%s"]' % PY_SOLID),
                   "--set", "output.frames=false", "--end", "1e4", "--out", out, "--force", "--quiet"]
            run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=dict(os.environ, TMPDIR=tmp))
            try:
                stats = os.path.join(out, "stats.csv")
                t0 = time.monotonic()
                while time.monotonic() - t0 < 30 and (not os.path.exists(stats) or
                                                      open(stats).read().count("\n") < 5):
                    time.sleep(0.02)
                self.assertEqual(len(os.listdir(tmp)), 2, "two servers, two private directories")
                run.send_signal(signal.SIGKILL)
                run.wait()
                t0 = time.monotonic()
                while time.monotonic() - t0 < 5 and (os.listdir(tmp) or processes_naming(tmp) or
                                                     processes_naming(out)):
                    time.sleep(0.05)
                self.assertEqual(os.listdir(tmp), [], "a private ipc directory outlived the coupler by 5 s")
                self.assertEqual(processes_naming(tmp), [], "a server outlived the coupler by 5 s")
                self.assertEqual(processes_naming(out), [], "a reaper outlived the coupler by 5 s")
            finally:
                if run.poll() is None:
                    run.kill()
                    run.wait()


if __name__ == "__main__":
    unittest.main(verbosity=2)
