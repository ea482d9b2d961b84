#!/usr/bin/python3
"""The coupler side of seam's preCICE participant protocol (precice/PROTOCOL.md)
against participants that speak the wire directly (no participant library):
`seam run config.xml` as a user starts it, two participants find it through
the configuration's directory, and the coupled answer of two linear maps comes
out; a participant that dies ends the run with exit 1 naming it.

usage: test_server_wire.py SEAM"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import msgpack
import zmq

SEAM = sys.argv[1]
NV = 4
A = [0.5, -0.3, 0.8, 0.1]
B = [1.0, 2.0, -1.0, 0.5]
C = [0.9, 0.7, -0.6, 0.4]
D = [0.2, -0.5, 0.3, 1.0]
XSTAR = [(C[j] * B[j] + D[j]) / (1 - C[j] * A[j]) for j in range(NV)]

CONFIG = """<?xml version="1.0"?>
<precice-configuration>
  <data:scalar name="F" />
  <data:scalar name="X" />
  <mesh name="MA" dimensions="2"><use-data name="F" /><use-data name="X" /></mesh>
  <mesh name="MB" dimensions="2"><use-data name="F" /><use-data name="X" /></mesh>
  <participant name="A">
    <provide-mesh name="MA" />
    <receive-mesh name="MB" from="B" />
    <write-data name="F" mesh="MA" />
    <read-data name="X" mesh="MA" />
    <mapping:nearest-neighbor direction="read" from="MB" to="MA" constraint="consistent" />
    <watch-point mesh="MA" name="P1" coordinate="1.2; 0.1" />
  </participant>
  <participant name="B">
    <provide-mesh name="MB" />
    <receive-mesh name="MA" from="A" />
    <write-data name="X" mesh="MB" />
    <read-data name="F" mesh="MB" />
    <mapping:nearest-neighbor direction="read" from="MA" to="MB" constraint="consistent" />
  </participant>
  <m2n:sockets acceptor="A" connector="B" exchange-directory="." />
  <coupling-scheme:%s>
    <participants first="A" second="B" />
    <max-time value="0.3" />
    <time-window-size value="0.1" />
    <max-iterations value="30" />
    <exchange data="F" mesh="MA" from="A" to="B" />
    <exchange data="X" mesh="MB" from="B" to="A" />
    <absolute-convergence-measure data="X" mesh="MB" limit="1e-12" />
    <absolute-convergence-measure data="F" mesh="MA" limit="1e-12" />
    <acceleration:IQN-ILS>
      <data name="X" mesh="MB" />%s
      <initial-relaxation value="0.5" />
      <filter type="QR2" limit="1e-8" />
    </acceleration:IQN-ILS>
  </coupling-scheme:%s>
</precice-configuration>
"""


# B writes and reads on A's mesh through direct access, in a region holding vertices 0..2
DIRECT = """<?xml version="1.0"?>
<precice-configuration>
  <data:scalar name="F" />
  <data:scalar name="X" />
  <mesh name="MA" dimensions="2"><use-data name="F" /><use-data name="X" /></mesh>
  <participant name="A">
    <provide-mesh name="MA" />
    <write-data name="F" mesh="MA" />
    <read-data name="X" mesh="MA" />
  </participant>
  <participant name="B">
    <receive-mesh name="MA" from="A" api-access="true" />
    <write-data name="X" mesh="MA" />
    <read-data name="F" mesh="MA" />
  </participant>
  <m2n:sockets acceptor="A" connector="B" exchange-directory="." />
  <coupling-scheme:serial-implicit>
    <participants first="A" second="B" />
    <max-time value="0.3" />
    <time-window-size value="0.1" />
    <max-iterations value="30" />
    <exchange data="F" mesh="MA" from="A" to="B" />
    <exchange data="X" mesh="MA" from="B" to="A" />
    <absolute-convergence-measure data="X" mesh="MA" limit="1e-12" />
    <acceleration:IQN-ILS>
      <data name="X" mesh="MA" />
      <initial-relaxation value="0.5" />
      <filter type="QR2" limit="1e-8" />
    </acceleration:IQN-ILS>
  </coupling-scheme:serial-implicit>
</precice-configuration>
"""


def fnv1a(path):
    h = 0xCBF29CE484222325
    with open(path, "rb") as f:
        for byte in f.read():
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def f64(values):
    return struct.pack("<%dd" % len(values), *values)


def unf64(b):
    return list(struct.unpack("<%dd" % (len(b) // 8), b))


def participant(name, config, die_after=None):
    """Run one participant; return its last reads (end sample) and what it saw."""
    run = os.path.join(os.path.dirname(config), "precice-run", "seam-coupler.json")
    for _ in range(200):
        if os.path.exists(run):
            break
        time.sleep(0.05)
    addr = json.load(open(run))
    assert addr["config"] == fnv1a(config), "the address file names another configuration"
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.connect(addr["endpoint"])

    def call(msg):
        s.send(msgpack.packb(msg, use_bin_type=True))
        r = msgpack.unpackb(s.recv(), raw=False)
        if not r["ok"]:
            print("%s: coupler error: %s" % (name, r["error"]), flush=True)
            sys.exit(3)
        return r

    call({"op": "hello", "participant": name, "rank": 0, "size": 1, "pid": os.getpid(),
          "host": os.uname().nodename, "cwd": os.getcwd(), "config": fnv1a(config), "wire": 1})
    direct = name == "B" and "api-access" in open(config).read()
    mesh = "MA" if name == "A" or direct else "MB"
    coords = []
    for i in range(NV):
        coords += [float(i), 0.0]
    if direct:
        r = call({"op": "initialize", "meshes": [], "data": [],
                  "regions": [{"mesh": "MA", "box": f64([-0.5, 2.5, -1.0, 1.0])}]})
        got = r["received"][0]
        ids = list(struct.unpack("<%di" % (len(got["ids"]) // 4), got["ids"]))
        assert got["mesh"] == "MA" and ids == [0, 1, 2], got
        assert unf64(got["coords"]) == coords[:6], got
    else:
        r = call({"op": "initialize", "meshes": [{"name": mesh, "coords": f64(coords)}], "regions": [], "data": []})
    seen = {"write_checkpoint": 0, "read_checkpoint": 0, "advances": 0}
    last = None
    while r["ongoing"]:
        seen["write_checkpoint"] += r["write_checkpoint"]
        seen["read_checkpoint"] += r["read_checkpoint"]
        rd = r["read"][0]
        x = unf64(rd["values"][-1])
        assert unf64(rd["times"])[-1] == r["window"]
        out = [A[j] * x[j] + B[j] if name == "A" else C[j] * x[j] + D[j] for j in range(len(x))]
        if die_after is not None and seen["advances"] == die_after:
            os._exit(9)
        r = call({"op": "advance", "dt": r["window"],
                  "writes": [{"mesh": mesh, "data": "F" if name == "A" else "X",
                              "times": f64([r["window"]]), "values": [f64(out)]}]})
        seen["advances"] += 1
        last = out
    call({"op": "finalize"})
    print(json.dumps({"name": name, "last": last, "seen": seen}), flush=True)
    return 0


def start_coupler(tmp, config, extra=()):
    log = open(os.path.join(tmp, "coupler.log"), "w")
    return subprocess.Popen([SEAM, "run", config, *extra], stdout=log, stderr=subprocess.STDOUT), log


def run_case(scheme, die=None, extra=()):
    tmp = tempfile.mkdtemp(prefix="seam_wire_")
    config = os.path.join(tmp, "precice-config.xml")
    reused = "" if scheme.startswith("serial") else '\n      <data name="F" mesh="MA" />'
    with open(config, "w") as f:
        f.write(DIRECT if scheme == "direct" else CONFIG % (scheme, reused, scheme))
    coupler, log = start_coupler(tmp, config, extra)
    procs = {}
    for name in ("A", "B"):
        d = os.path.join(tmp, name)
        os.mkdir(d)
        args = [sys.executable, __file__, "--participant", name, config]
        if die == name:
            args.append("1")
        procs[name] = subprocess.Popen(args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    outs = {n: p.communicate(timeout=60)[0] for n, p in procs.items()}
    rc = coupler.wait(timeout=60)
    log.close()
    text = open(os.path.join(tmp, "coupler.log")).read()
    return tmp, rc, text, outs, {n: p.returncode for n, p in procs.items()}


def check_converged(scheme):
    tmp, rc, text, outs, rcs = run_case(scheme)
    assert rc == 0, "%s: coupler exit %d\n%s\n%s" % (scheme, rc, text, outs)
    assert rcs == {"A": 0, "B": 0}, (rcs, outs)
    b = json.loads(outs["B"].strip().splitlines()[-1])
    for j in range(NV):
        assert abs(b["last"][j] - XSTAR[j]) < 1e-9, (scheme, b["last"], XSTAR)
    a = json.loads(outs["A"].strip().splitlines()[-1])
    assert a["seen"]["write_checkpoint"] == 3, a
    assert a["seen"]["read_checkpoint"] == a["seen"]["advances"] - 3, a
    its = open(os.path.join(tmp, "B", "precice-B-iterations.log")).read().split("\n")
    assert its[0].split() == ["TimeWindow", "TotalIterations", "Iterations", "Convergence"], its[0]
    rows = [r.split() for r in its[1:] if r.strip()]
    assert [int(r[0]) for r in rows] == [1, 2, 3], rows
    assert int(rows[-1][1]) == b["seen"]["advances"], (rows, b)
    conv = open(os.path.join(tmp, "B", "precice-B-convergence.log")).read().split("\n")
    assert conv[0].split() == ["TimeWindow", "Iteration", "ResAbs(MB:X)", "ResAbs(MA:F)"], conv[0]
    assert not os.path.exists(os.path.join(tmp, "precice-run", "seam-coupler.json"))
    # the watch point takes vertex 1 (no edges: the nearest vertex): F as A wrote it, X as A reads it
    wp = [l.split() for l in open(os.path.join(tmp, "A", "precice-A-watchpoint-P1.log")) if l.strip()]
    assert wp[0] == ["Time", "Coordinate0", "Coordinate1", "F", "X"], wp[0]
    assert [float(r[0]) for r in wp[1:]] == [0.0, 0.1, 0.2, 0.30000000000000004] or \
        [round(float(r[0]), 12) for r in wp[1:]] == [0.0, 0.1, 0.2, 0.3], wp
    last = [float(v) for v in wp[-1]]
    assert last[1:3] == [1.0, 0.0], last
    assert abs(last[3] - (A[1] * XSTAR[1] + B[1])) < 1e-8 and abs(last[4] - XSTAR[1]) < 1e-8, last
    # seam's own outputs beside the address file: stats.csv agrees with the iterations log, the report is drawn
    out = os.path.join(tmp, "precice-run", "seam-out")
    stats = [l.strip().split(",") for l in open(os.path.join(out, "stats.csv"))]
    assert stats[0] == ["step", "t", "dt", "iterations", "converged"], stats[0]
    assert [int(r[3]) for r in stats[1:]] == [int(r[2]) for r in rows], (stats, rows)
    probes = open(os.path.join(out, "probes.csv")).readline().strip().split(",")
    assert probes == ["t", "P1.F", "P1.X"], probes
    assert os.path.exists(os.path.join(out, "index.html"))
    print("%s: converged, %s iterations over 3 windows" % (scheme, rows[-1][1]))
    shutil.rmtree(tmp)


def check_death():
    tmp, rc, text, outs, rcs = run_case("serial-implicit", die="A")
    assert rc == 1, (rc, text)
    assert "participant A (pid" in text and "died in time window 1" in text, text
    assert rcs["B"] == 3 and "died in time window 1" in outs["B"], outs["B"]
    print("a dead participant ends the run: %s" % [l for l in text.splitlines() if "died" in l][0])
    shutil.rmtree(tmp)


def check_direct_access():
    """B sees vertices 0..2 of A's mesh: there the coupled answer, at vertex 3 nothing written (0)."""
    tmp, rc, text, outs, rcs = run_case("direct")
    assert rc == 0 and rcs == {"A": 0, "B": 0}, (rc, text, outs)
    b = json.loads(outs["B"].strip().splitlines()[-1])
    assert len(b["last"]) == 3 and all(abs(b["last"][j] - XSTAR[j]) < 1e-9 for j in range(3)), b
    a = json.loads(outs["A"].strip().splitlines()[-1])
    assert abs(a["last"][3] - B[3]) < 1e-15, a   # A read X = 0 at vertex 3
    print("direct access: B's region holds vertices 0..2, converged there")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--participant":
        die = int(sys.argv[4]) if len(sys.argv) > 4 else None
        sys.exit(participant(sys.argv[2], sys.argv[3], die))
    check_converged("serial-implicit")
    check_converged("parallel-implicit")
    check_death()
    check_direct_access()
