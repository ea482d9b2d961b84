#!/usr/bin/python3
"""spring_body over the seam wire protocol, written from protocol/PROTOCOL.md alone:
a ROUTER server hosting a 2D polygon body on a spring and damper (translation only)."""
import json
import math
import struct
import sys

import msgpack
import zmq

ENTRIES = ["describe", "save", "load", "capabilities", "bodies"]
CAP_RIGID, CAP_SAVE = 1 << 2, 1 << 5
KEYS = {"radius", "points", "mass", "stiffness", "damping", "position", "gravity"}


def f64(values):
    return struct.pack("<%dd" % len(values), *values)


def unf64(b):
    return list(struct.unpack("<%dd" % (len(b) // 8), b))


class Refused(Exception):
    pass


class Body:
    def __init__(self, cfg, gravity, log, where):
        unknown = sorted(set(cfg) - KEYS)
        if unknown:
            raise Refused("%s: unknown key" % where(unknown[0]))
        def num(key, default, lo, hi, required=False):
            if key not in cfg:
                if required:
                    raise Refused("%s: required key missing" % where(key))
                return default
            v = cfg[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise Refused("%s: expected a number in [%g, %g], got %r" % (where(key), lo, hi, v))
            return float(v)
        self.r = num("radius", 0.1, 1e-12, 1e3)
        self.n = int(num("points", 32, 3, 1e6))
        self.m = num("mass", 0.0, 1e-300, 1e9, True)
        self.k = num("stiffness", 0.0, 0.0, math.inf)
        self.c = num("damping", 0.0, 0.0, math.inf)
        pos = cfg.get("position")
        if not isinstance(pos, list) or len(pos) != 2 or not all(isinstance(p, (int, float)) for p in pos):
            raise Refused("%s: expected [x, y]" % where("position"))
        self.x0 = [float(p) for p in pos]
        self.g = list(gravity) if gravity is not None else [0.0, -9.81, 0.0]
        if "gravity" in cfg:
            self.g = [float(cfg["gravity"][0]), float(cfg["gravity"][1]), 0.0]
            log(2, "gravity %r of the configuration overrides the scene's" % (cfg["gravity"],))
        self.x, self.v = list(self.x0), [0.0, 0.0]
        self.xs, self.vs = list(self.x), list(self.v)
        self.arm = []
        for i in range(self.n):
            a = 6.283185307179586 * i / self.n
            self.arm += [self.r * math.cos(a), self.r * math.sin(a)]

    def place(self, c):
        return [c[i % 2] + self.arm[i] for i in range(2 * self.n)]

    def describe(self):
        elems = []
        for i in range(self.n):
            elems += [i, (i + 1) % self.n]
        return {"status": 0, "dim": 2, "n_points": self.n, "X": f64(self.place(self.x)),
                "mass": f64([self.m / self.n] * self.n), "body": None, "nodes_per_elem": 2,
                "n_elems": self.n, "elems": struct.pack("<%di" % len(elems), *elems),
                "two_sided": bytes(self.n), "n_bodies": 1}

    def solve(self, dt, F):
        for d in range(2):
            f = 0.0
            for i in range(self.n):
                f += F[2 * i + d]
            rhs = self.m * self.v[d] + dt * (f + self.m * self.g[d] - self.k * (self.x[d] - self.x0[d]))
            self.vs[d] = rhs / (self.m + dt * self.c + dt * dt * self.k)
            self.xs[d] = self.x[d] + dt * self.vs[d]
        if not all(math.isfinite(v) for v in self.xs):
            return 2, None, None
        return 0, self.place(self.xs), self.vs * self.n


class Server:
    def __init__(self, endpoint, once, newest):
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.HEARTBEAT_IVL, 1000)
        self.sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 3000)
        self.sock.setsockopt(zmq.HEARTBEAT_TTL, 3000)
        self.sock.bind(endpoint)
        self.once, self.owner, self.body, self.solved = once, None, None, False
        self.protocol, self.logs, self.newest = 2, [], newest
        print("spring_body.py: serving spring_body (solid) on %s" % endpoint, flush=True)

    def log(self, level, text):
        self.logs.append([level, text])

    def take_oob(self, req, frames):
        """Replace the fixext-8 markers of top-level fields by the bytes of the frames after the map."""
        markers = [k for k, v in req.items() if isinstance(v, msgpack.ExtType)]
        # the markers take the frames in the order they appear in the map's bytes: unpacking keeps that order
        pos = 0
        for k in markers:
            ext = req[k]
            if ext.code != 1 or len(ext.data) != 8:
                raise Refused("field \"%s\": an ext value that is not an out-of-band marker" % k)
            need = struct.unpack(">Q", ext.data)[0]
            got = b""
            while len(got) < need:
                if pos == len(frames):
                    raise Refused("malformed request: frames missing")
                got += frames[pos]
                pos += 1
            if len(got) != need:
                raise Refused("malformed request: frames do not add up")
            req[k] = got
        if pos != len(frames):
            raise Refused("malformed request: frames left over")
        if frames and self.protocol == 1:
            raise Refused("malformed request: protocol 1 sends every message as one frame")

    def handle(self, req):
        op = req.get("op")
        if op == "hello":
            if req.get("protocol") not in range(1, self.newest + 1):
                raise Refused("hello: protocol version %r is not spoken here (this server speaks 1 to %d)"
                              % (req.get("protocol"), self.newest))
            if not isinstance(req.get("abi"), int) or req["abi"] < 2:
                raise Refused("hello: abi %r not served (2 and up are)" % (req.get("abi"),))
            self.protocol = req["protocol"]
            return {"protocol": self.protocol, "abi": 5, "plugin": "spring_body", "role": "solid",
                    "summary": "2D polygon body on a spring and damper (Python)", "functions": ENTRIES}
        if op == "create":
            if self.body is not None:
                raise Refused("one instance per session: create refused")
            locations = req.get("locations") or {}
            path = req.get("config_path") or req.get("name", "solid")
            def where(key):
                loc = locations.get(key)
                return "%s: %s.%s" % (loc, path, key) if loc else "%s.%s" % (path, key)
            g = req.get("gravity")
            try:
                self.body = Body(json.loads(req["config"]), unf64(g) if g is not None else None, self.log, where)
            except Refused as e:
                self.log(3, str(e))
                return {"status": 1}
            self.log(1, "created; this session speaks protocol %d" % self.protocol)
            return {"status": 0}
        if self.body is None and op != "bye":
            raise Refused("%s before create" % op)
        b = self.body
        if op == "describe":
            return b.describe()
        if op == "capabilities":
            return {"capabilities": CAP_RIGID | CAP_SAVE}
        if op == "bodies":
            return {"status": 0, "count": 1, "centre": f64([b.x[0], b.x[1], 0.0]),
                    "rotation": f64([1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]), "ranges": f64([0.0, float(b.n)])}
        if op == "max_dt":
            return {"status": 0, "dt": math.inf}
        if op == "solve":
            self.solved = True
            F = req.get("F")
            if not isinstance(F, bytes) or len(F) != 16 * b.n or req.get("n") != b.n or req.get("dim") != 2:
                raise Refused("field \"F\": expected bin of %d float64" % (2 * b.n))
            status, X, V = b.solve(req["step"]["dt"], unf64(F))
            rep = {"status": status}
            if status == 0:
                out = req.get("out", [])
                if "X" in out:
                    rep["X"] = f64(X)
                if "V" in out:
                    rep["V"] = f64(V)
            return rep
        if op == "commit":
            b.x, b.v = list(b.xs), list(b.vs)
            return {"status": 0}
        if op == "save":
            return {"status": 0, "data": f64(b.x + b.v)}
        if op == "load":
            d = req.get("data")
            if not isinstance(d, bytes) or len(d) != 32:
                self.log(3, "load: expected 32 bytes")
                return {"status": 1}
            s = unf64(d)
            b.x, b.v = s[:2], s[2:]
            return {"status": 0}
        if op == "bye":
            return {}
        raise Refused("unknown op %r" % op)

    def serve(self):
        while True:
            msg = self.sock.recv_multipart()
            ident, rest = msg[0], msg[1:]
            envelope = [ident]
            if rest and rest[0] == b"":       # a REQ client's empty delimiter
                envelope.append(b"")
                rest = rest[1:]
            rid, ok, fields, err = 0, True, {}, None
            self.logs = []
            try:
                req = msgpack.unpackb(rest[0], raw=False, strict_map_key=True)
                if not isinstance(req, dict):
                    raise Refused("malformed request: not a map")
                rid = req.get("id", 0) if isinstance(req.get("id"), int) else 0
                self.take_oob(req, rest[1:])
                if self.owner is not None and ident != self.owner:
                    raise Refused("busy: plugin \"spring_body\" is serving another coupler")
                if req.get("op") == "hello":
                    self.owner = ident
                fields = self.handle(req)
            except Refused as e:
                ok, err = False, str(e)
            except Exception as e:  # malformed MessagePack and the like
                ok, err = False, "malformed request: %s" % e
            rep = {"id": rid, "ok": ok, "log": self.logs}
            if ok:
                rep.update(fields)
            else:
                rep["error"] = err
            self.sock.send_multipart(envelope + [msgpack.packb(rep, use_bin_type=True)])
            if ok and req.get("op") == "bye":
                self.owner, self.body = None, None
                if self.once and self.solved:
                    return


def main(argv):
    endpoint, once, newest = None, False, 2
    i = 0
    while i < len(argv):
        if argv[i] == "--bind":
            endpoint = argv[i + 1]
            i += 1
        elif argv[i] == "--protocol":       # the newest protocol version served (1 or 2)
            newest = int(argv[i + 1])
            i += 1
        elif argv[i] == "--once":
            once = True
        i += 1
    if endpoint is None:
        sys.exit("usage: spring_body.py --bind ENDPOINT [--once] [--protocol 1|2]")
    Server(endpoint, once, newest).serve()


if __name__ == "__main__":
    main(sys.argv[1:])
