"""Calls that preCICE refuses stop the participant with exit status 1 and
"preCICE (seam): ERROR: participant NAME, CALL: ..." (precice/participant),
each in its own process against the build tree's library and coupler.
usage: test_precice_misuse.py BUILD_DIR"""
import json
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "participants", "two_masses.xml")

# (name, code run after "import precice, numpy as np"; p = Participant(...) unless it builds its own,
#  the participant named in the message, the text the message must hold)
CASES = [
    ("unknown participant", "precice.Participant('Nobody', CFG, 0, 1)",
     "Nobody, createParticipant", 'names no participant "Nobody"'),
    ("rank out of range", "precice.Participant('Left', CFG, 2, 2)",
     "Left, createParticipant", "rank 2 of 2 is not a process of the participant"),
    ("undeclared write", "P.write_data('Left-Mesh', 'Right-Displacement', [0], [1.0])",
     "Left, writeData", '<write-data name="Right-Displacement" mesh="Left-Mesh"/>'),
    ("unknown mesh", "P.get_mesh_dimensions('Elsewhere')",
     "Left, getMeshDimensions", 'a mesh "Elsewhere"'),
    ("read before initialize", "P.read_data('Left-Mesh', 'Right-Displacement', [0], 0.0)",
     "Left, readData", "after initialize()"),
    ("vertex id", "P.write_data('Left-Mesh', 'Left-Displacement', [7], [1.0])",
     "Left, writeData", "vertex id 7 is not a vertex"),
    ("gradient", "P.write_gradient_data('Left-Mesh', 'Left-Displacement', [0], [[1.0, 0.0]])",
     "Left, writeGradientData", "not supported by seam"),
    ("region on provided mesh", "P.set_mesh_access_region('Left-Mesh', [0, 1, 0, 1])",
     "Left, setMeshAccessRegion", "not a received mesh"),
    ("vertex on received mesh", "P.set_mesh_vertex('Right-Mesh', [0.0, 0.0])",
     "Left, setMeshVertex", "received, not provided"),
]


def stop_coupler(cwd):
    """End the coupler the case's participant started (it would end on its own, seconds later)."""
    try:
        with open(os.path.join(cwd, "precice-run", "seam-coupler.json")) as f:
            os.kill(int(json.load(f)["pid"]), signal.SIGTERM)
    except (OSError, ValueError, KeyError):
        pass


def main():
    build = os.path.abspath(sys.argv[1])
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "precice", "participant", "python"),
               SEAM=os.path.join(build, "coupler", "seam"), SEAM_PRECICE_TIMEOUT="30")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="seam-precice-") as tmp:
        cfg = os.path.join(tmp, "precice-config.xml")
        with open(CONFIG) as f:
            text = f.read()
        text = text.replace("SCHEME", "serial-implicit").replace("INIT", "false").replace("EXCHANGE", ".")
        with open(cfg, "w") as f:
            f.write(text)
        for i, (name, code, who, text) in enumerate(CASES):
            cwd = os.path.join(tmp, "case%d" % i)   # its own exchange directory: its own coupler
            os.mkdir(cwd)
            prologue = "import precice, numpy as np\nCFG = %r\n" % cfg
            if code.startswith("P."):
                prologue += "P = precice.Participant('Left', CFG, 0, 1)\nP.set_mesh_vertex('Left-Mesh', [0.0, 0.0])\n"
            r = subprocess.run([sys.executable, "-c", prologue + code], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=60)
            want = "preCICE (seam): ERROR: participant " + who
            if r.returncode != 1 or want not in r.stderr or text not in r.stderr:
                print("%s: exit %d, stderr %r (wanted exit 1, %r and %r)" % (name, r.returncode, r.stderr, want, text))
                failures += 1
            else:
                print("%s: %s" % (name, r.stderr.strip()))
            stop_coupler(cwd)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
