#!/usr/bin/python3
"""Writes the seed corpus of tests/protocol/fuzz_session.c (input format in
its opening comment) into the directory given (default: fuzz_session/ beside
this file): whole sessions of PROTOCOL.md's ops against piston_solid and
piston_fluid, with out-of-band arrays, protocol 1, a REQ peer, a second
coupler while one owns the server, and an owner that vanishes."""
import os
import struct
import sys

import msgpack

FSEP = b"\xc1\xc1\xc1\xc1"
RSEP = b"\xc1\xc1\xc1\xc2"
SOLID, FLUID = 0, 1
PEER_B, RECONNECT, REQ = 1, 2, 4


def f64(*xs):
    return struct.pack("<%dd" % len(xs), *xs)


def oob(nbytes):
    """The marker of an out-of-band value of nbytes (PROTOCOL.md, Frames)."""
    return msgpack.ExtType(1, struct.pack(">Q", nbytes))


class Session:
    def __init__(self, server):
        self.server = server
        self.requests = []
        self.next_id = 1

    def op(self, op, how=0, frames=(), **fields):
        m = {"op": op, "id": self.next_id}
        self.next_id += 1
        m.update(fields)
        body = FSEP.join([msgpack.packb(m, use_bin_type=True)] + list(frames))
        self.requests.append(bytes([how]) + body)
        return self

    def raw(self, how, *frames):
        self.requests.append(bytes([how]) + FSEP.join(frames))
        return self

    def bytes(self):
        return bytes([self.server]) + RSEP.join(self.requests)


STEP = {"index": 0, "t": 0.0, "dt": 0.01, "iteration": 0}


def hello(s, how=0, protocol=2):
    return s.op("hello", how, protocol=protocol, abi=3)


def seeds():
    out = {}

    s = Session(SOLID)
    hello(s).op("create", config='{"mass": 1, "stiffness": 4, "position": 0.1}', name="piston",
                config_path="solids[0]", locations={"mass": "scene.json:3:5"})
    s.op("capabilities").op("max_dt").op("describe")
    s.op("solve", step=STEP, n=1, dim=1, F=f64(2.5), out=["X", "V"]).op("commit")
    s.op("mobility", impulse=f64(1.0)).op("save").op("load", data=f64(0.2, -0.1))
    s.op("regions", step=STEP, X=f64(0.1)).op("field", name="p").op("write_output", dir="out", frame=1)
    out["solid_session"] = s.op("bye")

    s = Session(SOLID)   # four pistons, arrays out of band (protocol 2)
    hello(s).op("create", config='{"mass": 2, "count": 4}', name="p4", gravity=f64(0, -9.81, 0), cell_size=0.1)
    s.op("describe")
    F = f64(1, 2, 3, 4)
    s.op("solve", frames=[F[:8], F[8:]], step=STEP, n=4, dim=1, F=oob(32), out=["X"])
    s.op("load", frames=[f64(0, 0, 0, 0), f64(1, 1, 1, 1)], data=oob(64))
    out["solid_out_of_band"] = s.op("commit").op("bye")

    s = Session(SOLID)   # protocol 1: every array inline
    hello(s, protocol=1).op("create", config='{"mass": 1}', name="piston").op("describe")
    out["solid_protocol_1"] = s.op("solve", step=STEP, n=1, dim=1, F=f64(1.0), out=["X", "V"]).op("bye")

    s = Session(FLUID)
    hello(s).op("create", config='{"added_mass": 1.5}', name="fluid").op("capabilities")
    s.op("bind", dim=1, n_points=2, X=f64(0.0, 1.0), mass=f64(1, 1), body=b"\0\0\0\0\0\0\0\0",
         nodes_per_elem=2, n_elems=1, elems=b"\0\0\0\0\1\0\0\0", two_sided=b"\1", n_bodies=1)
    s.op("solve", step=STEP, n=2, dim=1, X=f64(0.01, 1.01), V=f64(1.0, 1.0), out=["F"])
    s.op("commit").op("max_dt")
    out["fluid_session"] = s.op("bye")

    s = Session(FLUID)   # commit's `fields`: the piston fluid has none, and bad lists
    hello(s).op("create", config='{"added_mass": 1.5}', name="fluid")
    s.op("bind", dim=1, n_points=1, X=f64(0.0), nodes_per_elem=0, n_elems=0, n_bodies=1)
    s.op("solve", step=STEP, n=1, dim=1, X=f64(0.01), V=f64(1.0), out=["F"])
    s.op("commit", max_dt=True, fields=["pressure"]).op("commit", fields=[]).op("commit", fields=None)
    s.op("commit", fields=["a", "a"]).op("commit", fields=list("abcdefghi")).op("commit", fields=[""])
    s.op("commit", fields=["x\0y"]).op("commit", fields=["n" * 256]).op("commit", fields=[["nested"]])
    out["commit_fields"] = s.op("commit", fields="pressure")

    s = Session(FLUID)   # bind refused by the server, then out of band
    hello(s).op("create", config='{"added_mass": 1, "fault": {"kind": "nan", "step": 0}}', name="f")
    s.op("bind", dim=2, n_points=1, X=f64(0, 0), nodes_per_elem=1, n_elems=1, elems=b"\5\0\0\0", n_bodies=1)
    X = f64(*range(6))
    s.op("bind", frames=[X], dim=3, n_points=2, X=oob(48), nodes_per_elem=0, n_elems=0, n_bodies=0)
    s.op("solve", frames=[X, X], step=STEP, n=2, dim=3, X=oob(48), V=oob(48), out=["F", "X"])
    out["fluid_out_of_band"] = s.op("bye")

    s = Session(SOLID)   # a second coupler while the first owns the server
    hello(s).op("create", config='{"mass": 1}', name="a")
    hello(s, PEER_B).op("describe", PEER_B).op("describe")
    s.op("bye", PEER_B)
    out["two_couplers"] = s.op("bye")

    s = Session(FLUID)   # the owner vanishes without bye; the newcomer gets the server
    hello(s).op("create", config='{"added_mass": 1}', name="a")
    hello(s, PEER_B | RECONNECT).op("create", PEER_B, config='{"added_mass": 2}', name="b")
    out["owner_vanishes"] = s.op("bye", PEER_B)

    s = Session(SOLID)   # a REQ peer: an empty delimiter before the map
    hello(s, REQ).op("create", REQ, config='{"mass": 1}', name="r")
    out["req_peer"] = s.op("describe", REQ).op("bye", REQ)

    s = Session(SOLID)   # refusals: before hello, bad versions, bad fields, stray frames, garbage
    s.op("describe").op("hello", protocol=9, abi=3).op("hello", protocol=2, abi=1)
    hello(s).op("describe").op("create", config="{", name="../x").op("create", config="[]", name="ok")
    s.op("nope").op("solve", step={"index": 0}, n=1, dim=1)
    s.op("describe", frames=[b"stray"])
    s.raw(0, b"\x81\xa2op")
    s.raw(0, b"")
    s.raw(0, b"", msgpack.packb({"op": "max_dt", "id": 99}))
    out["refusals"] = s.op("bye")

    s = Session(SOLID)   # empty frames after the map into a server that has no frame buffer yet (UBSan: NULL + 0)
    s.op("hello", frames=[b"", b""], protocol=2, abi=3)
    out["finding_empty_frames_in_a_fresh_server"] = s.op("bye")
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "fuzz_session")
    os.makedirs(target, exist_ok=True)
    for name, s in seeds().items():
        with open(os.path.join(target, name), "wb") as f:
            f.write(s.bytes())


if __name__ == "__main__":
    main()
