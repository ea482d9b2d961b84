"""Serve a solver written in Python over the seam protocol (PROTOCOL.md).

A solver is a class: its constructor takes (config, host) like a plugin's
create, and its methods mirror the plugin contract (docs/plugins.md). seam's
coupler then uses it like any plugin, started by the scene
("process": "separate", "command": ["python3", "my_solver.py"]) or reached
through "connect" (docs/remote.md). README.md next to this file walks
through a fluid and a solid.

    import seam_client as seam

    class Fluid(seam.Plugin):
        name, role, summary = "my_fluid", "fluid", "one line for `seam plugins`"
        def __init__(self, config, host): ...       # raise seam.CreateError to refuse
        def max_dt(self): return math.inf
        def bind(self, iface): ...; return seam.OK   # iface.X, iface.n_points, ...
        def solve(self, step, io, out): ...; return seam.OK   # io.X, io.V in; fill out.F
        def commit(self): return seam.OK

    seam.serve(Fluid, "tcp://127.0.0.1:5555")      # or seam.main(Fluid): --bind, --once

The calls the server makes, with what each gets and returns (arrays are
array.array('d') of n_points * dim values, point after point):

    cls(config, host)           config: the participant's object (a dict)
    max_dt()                    -> the largest stable step, s (math.inf: none)
    bind(iface)                 fluid: the solids' surfaces -> status
    describe()                  solid: -> (status, Interface) of its surface
    solve(step, io, out)        step.index, .t, .dt, .iteration; a fluid gets
                                io.X, io.V and fills out.F, a solid gets io.F
                                and fills out.X, out.V -> status
    commit()                    accept the last solve of the step -> status
    destroy()                   optional: the coupler is done with the
                                instance (after the run, or after
                                `seam validate`); messages it logs still
                                reach the coupler
    capabilities()              optional: CAP_* flags from seam_abi
    mobility(impulse, dv)       optional: fill dv = M^-1 impulse -> status
    regions(step, X)            optional: -> (status, C, q[, M])
    save() / load(data)         optional: -> (status, bytes) / status
    field(name)                 optional: -> (status, {"nx", "ny", "nz",
                                "origin", "dx", "data", "units"})
    write_output(dir, frame)    optional: -> status
    domain()                    optional: -> ((x0, y0, z0), (x1, y1, z1))
    bodies()                    optional: -> (status, centre, rotation, first,
                                points): per rigid body its committed centre
                                (3 values), rotation (9, row-major, body to
                                world) and point range (plugin.h seam_bodies)

A status is seam.OK, seam.ERROR (give up, after logging why) or
seam.UNSTABLE (this step failed; a smaller dt may work). Messages go
through host.log(level, text) with a log level, seam.LOG_DEBUG, LOG_INFO,
LOG_WARN or LOG_ERROR: statuses and levels are distinct types, and
host.log refuses a status (the old names seam.DEBUG, INFO and WARN still
work in this release, with a DeprecationWarning). An exception a solver
raises fails the call, and its traceback reaches the coupler's log. host.gravity is the scene's gravity (x, y, z),
or None when the coupler names none; host.vtk the frame format the scene
asks write_output for ("xml", "legacy" or "xml_float32").

The plugin ABI (its version, entries, capability flags, statuses and log
levels) comes from seam_abi.py, which the build generates from
core/include/seam/plugin.h into build/protocol/python/, next to a copy of
this module and the seam package: put that folder on PYTHONPATH (after
`meson install`, all three are where Debian's python3 looks). A copy of it
lies next to this file in the source tree, so a solver next to it (or with
protocol/python/ on PYTHONPATH) runs without a build.

Arrays are array.array('d') (or 'i' for int32) in host order; on the wire
they are little-endian bin, so numbers arrive bit for bit; from protocol 2
on, large ones travel in frames of their own after the MessagePack map. Needs pyzmq and
msgpack (Debian: python3-zmq, python3-msgpack); no numpy.
"""
import argparse
import array
import enum
import math
import struct
import sys
import traceback
import warnings

import msgpack
import zmq

PROTOCOL_VERSION = 2
PROTOCOL_OLDEST = 1        # hello with 1 is served too, with every array inline
OOB_EXT = 1                # ext type of an out-of-band marker (PROTOCOL.md, "Frames")
OOB_MIN = 64 * 1024        # bins this large go out of band in replies to protocol 2
CHUNK = 256 * 1024         # bytes per frame of an out-of-band value
MAX_PARTS = 16384          # frames after the map
MAX_MESSAGE = 1 << 31      # bytes in them
# The plugin ABI (version, entries, capability flags, statuses, log levels)
# comes from seam_abi.py, which the build writes from core/include/seam/plugin.h
# (build/protocol/python/seam_abi.py); the copy next to this file serves a solver
# run from the source tree, and a test keeps it equal to the build's.
try:
    import seam_abi  # noqa: E402
except ImportError:
    raise ImportError("seam_client.py needs seam_abi.py, which lies next to it in seam's protocol/python/ "
                      "(and in build/protocol/python/): copy both, or put that folder on PYTHONPATH") from None
from seam_abi import ABI_VERSION, ABI_OLDEST, ENTRIES, NEED_ALL  # noqa: E402
from seam_abi import W_INT, W_SIZE, W_F64S, W_I32S, W_U8S, W_BYTES, W_STRS, W_OPT  # noqa: E402
from seam_abi import CAP_LOADS_PRESSURE, CAP_LOADS_IMPULSE, CAP_RIGID, CAP_REGIONS, CAP_MOBILITY, CAP_SAVE  # noqa: E402,F401


class Status(enum.IntEnum):
    """What each call of the contract returns (seam_status in plugin.h)."""
    OK = seam_abi.STATUS_OK
    ERROR = seam_abi.STATUS_ERROR          # give up: the message went through host.log
    UNSTABLE = seam_abi.STATUS_UNSTABLE    # this step failed; a smaller dt may work


class Level(enum.IntEnum):
    """The level of a message to host.log (seam_log_level in plugin.h)."""
    DEBUG = seam_abi.LOG_DEBUG
    INFO = seam_abi.LOG_INFO
    WARN = seam_abi.LOG_WARN
    ERROR = seam_abi.LOG_ERROR


OK, ERROR, UNSTABLE = Status.OK, Status.ERROR, Status.UNSTABLE
LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR = Level.DEBUG, Level.INFO, Level.WARN, Level.ERROR
# The levels' names before they became LOG_*: served for one more release, with a warning.
_DEPRECATED = {"DEBUG": "LOG_DEBUG", "INFO": "LOG_INFO", "WARN": "LOG_WARN"}


def __getattr__(name):
    """seam.DEBUG, seam.INFO, seam.WARN: the old names of the log levels (PEP 562)."""
    if name in _DEPRECATED:
        warnings.warn("seam_client.%s is deprecated and will be removed in the next release: use seam_client.%s"
                      % (name, _DEPRECATED[name]), DeprecationWarning, stacklevel=2)
        return globals()[_DEPRECATED[name]]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
# Entries a solver may leave out: the optional ones and those one role needs.
OPTIONAL = tuple(name for name, _, need in ENTRIES if need != NEED_ALL)
_LITTLE = sys.byteorder == "little"
from seam_abi import VTK_FORMATS, SHAPES, STRUCTS  # noqa: E402  (host.vtk is one of VTK_FORMATS)


def solver_traceback(e):
    """The traceback of an exception a solver raised, without this module's
    own frames (the server's dispatch), as Python would print it."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != __file__]
    return ("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
            + "".join(traceback.format_exception_only(type(e), e))).rstrip()


class CreateError(Exception):
    """Raise from the constructor to refuse a configuration (the message is logged)."""


class ProtocolError(Exception):
    """A request that cannot be served: answered with {ok: false, error}."""


def f64(data, n=None, what="array"):
    """Little-endian float64 bytes -> array('d'), checking the count."""
    if not isinstance(data, (bytes, bytearray)):
        raise ProtocolError("%s: expected bin, got %s" % (what, type(data).__name__))
    if len(data) % 8 or (n is not None and len(data) != 8 * n):
        raise ProtocolError("%s: expected bin of %s float64, got %d bytes" % (what, n, len(data)))
    a = array.array("d")
    a.frombytes(data)
    if not _LITTLE:
        a.byteswap()
    return a


def i32(data, n, what="array"):
    if data is None:
        return None
    if not isinstance(data, (bytes, bytearray)) or len(data) != 4 * n:
        raise ProtocolError("%s: expected bin of %d int32" % (what, n))
    a = array.array("i")
    a.frombytes(data)
    if not _LITTLE:
        a.byteswap()
    return a


def to_bin(a):
    """array('d') or array('i') -> little-endian bytes."""
    if a is None:
        return None
    if _LITTLE:
        return a.tobytes()
    b = array.array(a.typecode, a)
    b.byteswap()
    return b.tobytes()


class _OutOfBand:
    """A marker read from the map: `size` bytes that follow in frames."""

    def __init__(self, size):
        self.size = size


def _ext_hook(code, data):
    if code == OOB_EXT and len(data) == 8:
        return _OutOfBand(struct.unpack(">Q", data)[0])
    return msgpack.ExtType(code, data)


def decode(frames):
    """The frames of a message (the map, then out-of-band bytes) -> dict.
    Each top-level marker takes the next frames until its size is reached."""
    return take_parts(unpack(frames[0]), frames)


def unpack(raw):
    """The map's bytes -> dict, out-of-band markers still in it."""
    try:
        req = msgpack.unpackb(raw, raw=False, ext_hook=_ext_hook)
    except Exception as e:  # msgpack raises several types for bad input
        raise ProtocolError("malformed request: %s" % e)
    if not isinstance(req, dict):
        raise ProtocolError("malformed request: expected a map")
    return req


def take_parts(req, frames):
    """The second half of decode: req (from unpack(frames[0])) with each
    marker replaced by the bytes of its frames."""
    if len(frames) - 1 > MAX_PARTS or sum(len(f) for f in frames[1:]) > MAX_MESSAGE:
        raise ProtocolError("malformed request: more than %d frames or %d bytes" % (MAX_PARTS, MAX_MESSAGE))
    nxt = 1
    for key, v in req.items():   # maps keep the order of the bytes
        if not isinstance(v, _OutOfBand):
            continue
        if v.size == 0:
            raise ProtocolError("malformed request: field \"%s\": an out-of-band value of 0 bytes" % key)
        got, first = 0, nxt
        while got < v.size and nxt < len(frames):
            got += len(frames[nxt])
            nxt += 1
        if got != v.size:
            raise ProtocolError("malformed request: field \"%s\": an out-of-band value of %d bytes, but %s"
                                % (key, v.size, "the frames after the map end before it does" if got < v.size
                                   else "its frames hold more (values never share a frame)"))
        req[key] = b"".join(bytes(f) for f in frames[first:nxt])
    if nxt != len(frames):
        raise ProtocolError("malformed request: %d frames after the map that no out-of-band field takes"
                            % (len(frames) - nxt))
    return req


def encode(reply, out_of_band):
    """dict -> frames: the map, then (out_of_band) each large bin in frames."""
    if not out_of_band:
        return [msgpack.packb(reply, use_bin_type=True)]
    tail, head = [], {}
    for key, v in reply.items():
        if isinstance(v, (bytes, bytearray)) and len(v) >= OOB_MIN:
            head[key] = msgpack.ExtType(OOB_EXT, struct.pack(">Q", len(v)))
            view = memoryview(v)
            tail.extend(view[i:i + CHUNK] for i in range(0, len(v), CHUNK))
        else:
            head[key] = v
    return [msgpack.packb(head, use_bin_type=True)] + tail


class Plugin:
    """Base class: name, role ("fluid", "solid", "coupled") and summary, plus
    the methods of the contract. Optional ones are offered when defined."""
    name = "python"
    role = "fluid"
    summary = ""


class Host:
    """What the coupler told create: names, directories, and a logger whose
    messages travel back with the reply."""

    def __init__(self, req):
        self.name = _text(req, "name", True)
        self.config_path = _text(req, "config_path")
        self.output_dir = _text(req, "output_dir")
        self.scene_dir = _text(req, "scene_dir")
        cell = req.get("cell_size", 0.0)
        if cell is None:
            cell = 0.0
        if isinstance(cell, bool) or not isinstance(cell, (int, float)) or not cell >= 0:
            raise ProtocolError("create: field \"cell_size\": expected a number >= 0")
        self.cell_size = float(cell)   # the scene's fluid cell size (m), 0: none
        g = req.get("gravity")         # the scene's gravity (x, y, z), or None when the coupler names none
        self.gravity = None if g is None else tuple(f64(g, 3, "gravity"))
        vtk = req.get("vtk")           # the frame format write_output makes (ABI 6): "xml", "legacy", "xml_float32"
        if vtk is not None and vtk not in VTK_FORMATS:
            raise ProtocolError("create: field \"vtk\": %r is not a frame format (%s)" % (vtk, ", ".join(VTK_FORMATS)))
        self.vtk = vtk or VTK_FORMATS[0]
        locs = req.get("locations") or {}
        if not isinstance(locs, dict):
            raise ProtocolError("create: field \"locations\": expected a map")
        self._locations = locs
        self.messages = []

    def log(self, level, message):
        """Send message to the coupler at level (seam.LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR)."""
        if isinstance(level, Status) or isinstance(level, bool) or not isinstance(level, int) \
                or level not in set(Level):
            raise TypeError("host.log: the level must be seam.LOG_DEBUG, LOG_INFO, LOG_WARN or LOG_ERROR, not %s"
                            % ("seam.%s (a status)" % level.name if isinstance(level, Status) else repr(level)))
        self.messages.append([int(level), str(message)])

    def locate(self, key_path):
        """'scene.json:12:7' for a key path of the configuration, else where its nearest ancestor is
        ('' is the participant's object: a required key the scene does not write), or None."""
        while True:
            if key_path in self._locations:
                return self._locations[key_path]
            if not key_path:
                return None
            key_path = key_path[:max(key_path.rfind("."), key_path.rfind("["), 0)]

    def config_error(self, key, message):
        """Log an error about one key of the configuration, located like
        the coupler's own: 'scene.json:10:42: fluid.added_mass: message'."""
        where = self.locate(key)
        path = "%s.%s" % (self.config_path, key) if self.config_path else key
        self.log(LOG_ERROR, "%s%s: %s" % (where + ": " if where else "", path, message))


class Interface:
    """A coupling surface: n_points points of dimension dim, X their
    positions (n_points * dim values), mass per point (a solid's, or None),
    body the rigid body of each point (int32, or None), elems the surface
    elements (n_elems * nodes_per_elem point indices, or None). bind gets
    one; describe returns one."""

    def __init__(self, dim, n_points, X, mass=None, body=None, nodes_per_elem=0, n_elems=0, elems=None,
                 two_sided=None, n_bodies=1):
        self.dim, self.n_points, self.X, self.mass, self.body = dim, n_points, X, mass, body
        self.nodes_per_elem, self.n_elems, self.elems = nodes_per_elem, n_elems, elems
        self.two_sided, self.n_bodies = two_sided, n_bodies


class Step:
    def __init__(self, m):
        if not isinstance(m, dict):
            raise ProtocolError("field \"step\": expected a map")
        self.index = _int(m, "index")
        self.t = _num(m, "t")
        self.dt = _num(m, "dt")
        self.iteration = _int(m, "iteration")


class IO:
    """solve's io and out: X, V, F, each an array of n * dim values or None.
    In io: what the coupler sends (a fluid gets X and V, a solid F). In out:
    the arrays the coupler asked for, zeroed, to fill in place (a fluid's F,
    a solid's X and V)."""

    def __init__(self, n, dim):
        self.n, self.dim = n, dim
        self.X = self.V = self.F = None


def _text(req, key, required=False):
    v = req.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str):
        raise ProtocolError("field \"%s\": expected a string" % key)
    return v


def _int(req, key):
    v = req.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ProtocolError("field \"%s\": expected an integer" % key)
    return v


def _num(req, key):
    v = req.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ProtocolError("field \"%s\": expected a number" % key)
    return float(v)


def _status(st):
    if isinstance(st, Level) or isinstance(st, bool) or st not in set(Status):
        raise ProtocolError("the solver returned %r, not a status (seam.OK, seam.ERROR or seam.UNSTABLE)" % (st,))
    return int(st)


class Session:
    """One coupler's conversation with the solver class: request -> reply."""

    def __init__(self, cls):
        self.cls = cls
        self.greeted = False
        self.protocol = PROTOCOL_OLDEST   # what the coupler said hello with
        self.instance = None
        self.host = None
        self.n_iface = 0
        self.iface = None
        self.stepped = False   # the last instance was asked to solve (a run, not a validation)

    def functions(self):
        return [f for f in OPTIONAL if callable(getattr(self.cls, f, None))]

    def handle(self, raw, parts=()):
        """The map's bytes (and the frames after it) in, (reply dict, ended)
        out; never raises."""
        rid = 0
        host = self.host   # bye ends it; what its destroy logged still goes back
        if host is not None:
            host.messages = []
        try:
            req = unpack(raw)
            if isinstance(req.get("id"), int) and not isinstance(req["id"], bool):
                rid = max(req["id"], 0)   # answer the id even when the frames do not fit
            req = take_parts(req, [raw] + list(parts))
            rid = req.get("id", 0)
            if not isinstance(rid, int) or isinstance(rid, bool) or rid < 0:
                rid = 0
                raise ProtocolError("malformed request: field \"id\": expected an unsigned integer")
            op = req.get("op")
            if not isinstance(op, str):
                raise ProtocolError("malformed request: field \"op\": expected a string")
            body, ended = self.dispatch(op, req)
            reply = {"id": rid, "ok": True}
            reply.update(body)
        except ProtocolError as e:
            reply, ended = {"id": rid, "ok": False, "error": str(e)}, False
        except Exception as e:  # a bug in the solver must not take the server down
            reply, ended = {"id": rid, "ok": False, "error": "the solver raised %s: %s" % (type(e).__name__, e)}, False
            host = self.host if self.host is not None else host
            if host is not None:   # the traceback goes where the user looks: the coupler's terminal
                host.messages.append([int(LOG_ERROR), solver_traceback(e)])
            else:
                sys.stderr.write(solver_traceback(e) + "\n")
        host = self.host if self.host is not None else host
        reply["log"] = host.messages if host is not None else []
        return reply, ended

    def dispatch(self, op, req):
        if op == "hello":
            proto = req.get("protocol")
            if not isinstance(proto, int) or not PROTOCOL_OLDEST <= proto <= PROTOCOL_VERSION:
                raise ProtocolError("hello: protocol version %r is not spoken here (this server speaks %d to %d)"
                                    % (proto, PROTOCOL_OLDEST, PROTOCOL_VERSION))
            abi = req.get("abi")
            if not isinstance(abi, int) or abi < ABI_OLDEST:
                raise ProtocolError("hello: plugin ABI %r requested; this server hosts ABI %d and speaks to "
                                    "couplers of ABI %d and newer" % (abi, ABI_VERSION, ABI_OLDEST))
            self.greeted = True
            self.protocol = proto
            return {"protocol": proto, "abi": ABI_VERSION, "plugin": self.cls.name,
                    "role": self.cls.role, "summary": self.cls.summary, "functions": self.functions()}, False
        known = ("bye",) + tuple(name for name, _, _ in ENTRIES if name != "destroy")
        if op not in known:
            raise ProtocolError("unknown op \"%s\"" % op)
        if not self.greeted:
            raise ProtocolError("%s: say hello first" % op)
        if op == "bye":
            self.reset()
            return {}, True
        if op == "create":
            self.stepped = False
            return self.create(req), False
        if self.instance is None and _SHAPED.get(op, ("",))[0] != "SEAM_PLUGIN":
            raise ProtocolError("%s: no instance (send create first)" % op)
        if op in OPTIONAL and op not in self.functions():
            raise ProtocolError("%s: plugin \"%s\" does not provide it" % (op, self.cls.name))
        if op in _SHAPED:
            return self.op_shaped(op, req), False
        return getattr(self, "op_" + op)(req), False

    def reset(self):
        """End the session: the instance's destroy (when it has one) runs first."""
        instance, self.instance = self.instance, None
        self.greeted = False
        if instance is not None and callable(getattr(instance, "destroy", None)):
            try:
                instance.destroy()
            except Exception as e:  # the session ends all the same
                if self.host is not None:
                    self.host.log(LOG_ERROR, "destroy raised %s: %s" % (type(e).__name__, e))
        self.host = None
        self.n_iface = 0

    def create(self, req):
        if self.instance is not None:
            raise ProtocolError("create: an instance exists already (one per session; bye ends it)")
        config = _text(req, "config", True)
        self.host = Host(req)
        import json
        try:
            cfg = json.loads(config)
            self.instance = self.cls(cfg, self.host)
        except (CreateError, ValueError) as e:
            self.host.log(LOG_ERROR, str(e))
            return {"status": ERROR}
        return {"status": OK}

    def op_max_dt(self, req):
        return {"status": OK, "dt": float(self.instance.max_dt())}

    def op_capabilities(self, req):
        return {"capabilities": int(self.instance.capabilities())}

    def op_commit(self, req):
        want = req.get("max_dt")
        if want is not None and not isinstance(want, bool):
            raise ProtocolError('commit: field "max_dt": expected bool, got %s' % type(want).__name__)
        reply = {"status": _status(self.instance.commit())}
        if want and reply["status"] == OK:   # max_dt of the state just committed: the coupler's next question
            try:
                reply["max_dt"] = self.op_max_dt(req)
            except Exception as e:   # the commit stands; the coupler asks max_dt itself and hears why
                self.host.log(LOG_WARN, "max_dt after the commit: %s" % e)
        return reply

    def op_solve(self, req):
        self.stepped = True
        step = Step(req.get("step"))
        n, dim = _int(req, "n"), _int(req, "dim")
        coupled = self.cls.role == "coupled"
        if not coupled and (self.n_iface == 0 or n * dim != self.n_iface):
            raise ProtocolError("solve: %d points of dimension %d do not match the interface (%d values)"
                                % (n, dim, self.n_iface))
        io = IO(n, dim)
        for k in ("X", "V", "F"):
            if req.get(k) is not None:
                setattr(io, k, f64(req[k], self.n_iface, k))
        want = req.get("out") or []
        if not isinstance(want, list) or any(k not in ("X", "V", "F") for k in want):
            raise ProtocolError("solve: field \"out\": items are \"X\", \"V\" or \"F\"")
        out = IO(n, dim)
        for k in want:
            setattr(out, k, array.array("d", bytes(8 * self.n_iface)))
        st = _status(self.instance.solve(step, None if coupled else io, None if coupled else out))
        reply = {"status": st}
        if st == OK:
            for k in want:
                reply[k] = to_bin(getattr(out, k))
        return reply

    def op_shaped(self, op, req):
        """Every entry plugin.h gives a shape: its inputs decoded, the
        solver's method called, its outputs encoded (seam_abi.SHAPES)."""
        recv, params = _SHAPED[op]
        args, outs, given = [], [], {}
        for p in params:
            kind, n = p[0], (int(p[2]) if p[2] != "IFACE" else self.n_iface) if len(p) > 2 else 0
            if kind in ("IN_F64S", "OUT_F64S") and p[2] == "IFACE" and self.n_iface == 0:
                raise ProtocolError("%s: no interface described or bound yet" % op)
            if kind == "STEP":
                args.append(Step(req.get("step")))
            elif kind == "IN_F64S":
                args.append(f64(req.get(p[1]), n, p[1]))
            elif kind == "OUT_F64S":
                outs.append((p[1], array.array("d", bytes(8 * n))))
                args.append(outs[-1][1])
            elif kind == "IN_STRUCT":
                given[p] = _read_struct(p[1], req)
                args.append(given[p])
            elif kind == "IN_BYTES":
                if not isinstance(req.get(p[1]), bytes):
                    raise ProtocolError("%s: field \"%s\": expected bin" % (op, p[1]))
                args.append(req[p[1]])
            elif kind in ("IN_STR", "IN_PATH"):
                args.append(_text(req, p[1], True))
            elif kind == "IN_INDEX":
                k = _int(req, p[1])
                if not 0 <= k <= 2**31 - 1:
                    raise ProtocolError("%s: field \"%s\": %d is out of range" % (op, p[1], k))
                args.append(k)
        target = self.cls if recv == "SEAM_PLUGIN" else self.instance
        st, members = _CALLS.get(op, _call)(target, op, args, self.n_iface)
        st = _status(st)
        reply = {"status": st}
        if st != OK:
            return reply
        for key, a in outs:
            reply[key] = to_bin(a)
        for p in params:
            if p[0] == "OUT_STRUCT":
                reply.update(_write_struct(p[1], members))
            if p[0] in ("IN_STRUCT", "OUT_STRUCT") and p[1] == "seam_interface":   # sizes the solves
                f = given[p] if p[0] == "IN_STRUCT" else members
                self.n_iface = _member(f, "n_points") * _member(f, "dim")
        return reply

    def op_field(self, req):
        st, r = self.instance.field(_text(req, "name", True))
        if _status(st) != OK:
            return {"status": st}
        return {"status": OK, "nx": r["nx"], "ny": r["ny"], "nz": r["nz"], "origin": to_bin(array.array("d", r["origin"])),
                "dx": float(r["dx"]), "data": to_bin(r["data"]), "units": r.get("units")}


# ---- the shaped entries (seam_abi.SHAPES, STRUCTS from plugin.h) ----------

_SHAPED = {name: (spec[0], tuple(tuple(t.strip() for t in p.strip("()").split(",")) for p in spec[1:]))
           for name, spec in SHAPES.items()}
_STRUCT_CLASSES = {"seam_interface": Interface}   # what a solver is handed for a struct; others: a Record


class Record:
    """A struct handed to a solver: its members as attributes."""

    def __init__(self, **members):
        self.__dict__.update(members)


def _member(obj, name):
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _length(fields, lens, k):
    n = k
    for name in lens:
        n *= max(int(fields[name] or 0), 0)
    return n


def _read_struct(type_name, req):
    """A struct's members from the request's top-level keys, arrays checked against their lengths."""
    fields = {}
    for name, kind, flags, k, lens in STRUCTS[type_name]:
        v = req.get(name)
        if kind in (W_INT, W_SIZE):
            fields[name] = 0 if v is None and flags & W_OPT else _int(req, name)
            if fields[name] < 0:
                raise ProtocolError("field \"%s\": %d is out of range" % (name, fields[name]))
            continue
        if kind == W_BYTES:
            if not isinstance(v, bytes) and not (v is None and flags & W_OPT):
                raise ProtocolError("field \"%s\": expected bin" % name)
            fields[name], fields[lens[0]] = v, len(v or b"")
            continue
        n = _length(fields, lens, k)
        if v is None:
            if n and not flags & W_OPT:
                raise ProtocolError("field \"%s\" is missing" % name)
            fields[name] = None
        elif kind == W_F64S:
            fields[name] = f64(v, n, name)
        elif kind == W_I32S:
            fields[name] = i32(v, n, name)
        elif kind == W_U8S:
            if not isinstance(v, bytes) or len(v) != n:
                raise ProtocolError("field \"%s\": expected bin of %d bytes" % (name, n))
            fields[name] = v
        elif kind == W_STRS:
            if not isinstance(v, list) or len(v) != n or not all(isinstance(t, str) for t in v):
                raise ProtocolError("field \"%s\": expected %d strings" % (name, n))
            fields[name] = v
    return _STRUCT_CLASSES.get(type_name, Record)(**fields)


def _write_struct(type_name, obj):
    """A struct's members as reply keys: optional arrays that are None or empty stay out."""
    out = {}
    for name, kind, flags, k, lens in STRUCTS[type_name]:
        v = _member(obj, name)
        if kind in (W_INT, W_SIZE):
            out[name] = int(v or 0)
        elif v is None or len(v) == 0:
            if not flags & W_OPT:
                out[name] = [] if kind == W_STRS else b""
        elif kind == W_F64S:
            out[name] = to_bin(v if isinstance(v, array.array) and v.typecode == "d" else array.array("d", v))
        elif kind == W_I32S:
            out[name] = to_bin(v if isinstance(v, array.array) and v.typecode == "i" else array.array("i", v))
        elif kind in (W_U8S, W_BYTES):
            out[name] = bytes(v)
        elif kind == W_STRS:
            out[name] = [str(t) for t in v]
    return out


def _call(target, op, args, n_iface):
    """The solver's method with the inputs and the arrays to fill; it
    returns a status, or (status, the struct it hands out: an object or a dict)."""
    res = getattr(target, op)(*args)
    return (res[0], res[1]) if isinstance(res, tuple) else (res, None)


def _regions(target, op, args, n_iface):
    res = target.regions(*args)   # (status, C, q[, M]): this client's convention before the shapes
    st, C, q = res[:3]
    M = res[3] if len(res) > 3 and len(q) else None
    return st, {"count": len(q), "n": n_iface, "C": C, "q": q, "M": M}


def _save(target, op, args, n_iface):
    st, data = target.save()      # (status, bytes)
    return st, {"data": data}


def _domain(target, op, args, n_iface):
    lo, hi = target.domain()      # ((x0, y0, z0), (x1, y1, z1)), no status
    args[0][:] = array.array("d", lo)
    args[1][:] = array.array("d", hi)
    return OK, None


# Entries whose Python methods kept the calling convention they had before
# the wire was derived (solvers written for them keep working).
_CALLS = {"regions": _regions, "save": _save, "domain": _domain}


def serve(cls, endpoint, once=False, heartbeat_s=1.0, ready=None):
    """Serve cls on endpoint (loopback/ipc; no CURVE here) until the bye of
    the first coupler that solved with once, or for ever. `ready(endpoint)` is called once bound (default: print the
    same line as seam-serve)."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
    sock.setsockopt(zmq.LINGER, 1000)
    if heartbeat_s > 0:
        ivl = int(heartbeat_s * 1000)
        sock.setsockopt(zmq.HEARTBEAT_IVL, ivl)
        sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 3 * ivl)
        sock.setsockopt(zmq.HEARTBEAT_TTL, 3 * ivl)
    sock.bind(endpoint)
    bound = sock.getsockopt(zmq.LAST_ENDPOINT).decode()
    if ready:
        ready(bound)
    else:
        print("seam-serve: serving %s (%s) on %s" % (cls.name, cls.role, bound), flush=True)
    session = Session(cls)
    owner = None
    try:
        while True:
            frames = sock.recv_multipart(copy=False)
            if len(frames) < 2:
                continue  # nothing to route back to
            cut = 2 if len(frames) > 2 and len(frames[1]) == 0 else 1   # a REQ peer's empty delimiter
            env = [f.bytes for f in frames[:cut]]
            payload, parts = frames[cut].bytes, [f.buffer for f in frames[cut + 1:]]
            is_hello = False
            try:
                peek = msgpack.unpackb(payload, raw=False)
                is_hello = isinstance(peek, dict) and peek.get("op") == "hello"
            except Exception:
                pass
            if owner is not None and env[0] != owner and is_hello and not _alive(sock, owner):
                session.reset()  # the last coupler vanished without bye
                owner = None
            if owner is not None and env[0] != owner:
                rid = peek.get("id", 0) if is_hello else 0
                reply, ended = {"id": rid if isinstance(rid, int) else 0, "ok": False,
                                "error": "busy: plugin \"%s\" is serving another coupler" % cls.name,
                                "log": []}, False
            else:
                reply, ended = session.handle(payload, parts)
                if owner is None and session.greeted:
                    owner = env[0]
            if ended:
                owner = None
            try:
                sock.send_multipart(env + encode(reply, session.protocol >= 2), copy=False)
            except zmq.ZMQError:
                pass  # the peer left
            if ended and once and session.stepped:   # a validation leaves the server for the run
                break
    finally:
        sock.close()
        ctx.term()


def main(cls, argv=None, description=None):
    """The command line of a solver program: --bind ENDPOINT (what seam
    appends when the scene's "command" starts it, with --once), --once,
    --heartbeat S; then serve(cls) there."""
    ap = argparse.ArgumentParser(description=description or "%s (%s): %s" % (cls.name, cls.role, cls.summary))
    ap.add_argument("--bind", required=True, help="endpoint, e.g. ipc:///tmp/fluid.sock or tcp://127.0.0.1:*")
    ap.add_argument("--once", action="store_true", help="exit after the bye of the first coupler that ran steps")
    ap.add_argument("--heartbeat", type=float, default=1.0, help="heartbeat interval, s (0: off)")
    args = ap.parse_args(argv)
    if not args.heartbeat >= 0:
        ap.error("--heartbeat: expected a number >= 0, got %r" % args.heartbeat)
    serve(cls, args.bind, once=args.once, heartbeat_s=args.heartbeat)


def _alive(sock, owner):
    try:
        sock.send_multipart([owner, msgpack.packb({"id": 0, "ok": True, "probe": True})])
        return True
    except zmq.ZMQError:
        return False
