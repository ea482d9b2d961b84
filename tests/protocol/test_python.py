"""The Python server module (protocol/python/seam_client.py) on bytes:
hostile input gets an error reply and serving goes on, and the Python piston
fluid computes F = -m_a (V - V^n) / dt bit for bit; statuses and log levels
are distinct; a solver's destroy runs at bye and its messages go back."""
import array
import math
import os
import re
import struct
import sys
import unittest

import msgpack

sys.path.insert(0, os.path.join(os.environ.get("SEAM_SOURCE_ROOT", "."), "protocol", "python"))
import seam_client as seam  # noqa: E402
from piston_fluid import PistonFluid  # noqa: E402
from piston_solid import PistonSolid  # noqa: E402


def pack(obj):
    return msgpack.packb(obj, use_bin_type=True)


class SessionTest(unittest.TestCase):
    def setUp(self):
        self.s = seam.Session(PistonFluid)

    def ask(self, raw):
        reply, ended = self.s.handle(raw)
        # every reply is itself valid MessagePack with the fixed fields
        back = msgpack.unpackb(pack(reply), raw=False)
        self.assertIn("id", back)
        self.assertIn("log", back)
        return back

    def greet(self):
        r = self.ask(pack({"op": "hello", "id": 1, "protocol": 1, "abi": seam.ABI_VERSION}))
        self.assertTrue(r["ok"])
        self.assertEqual(r["plugin"], "piston_fluid_py")
        self.assertEqual(r["functions"], ["bind", "capabilities"])
        r = self.ask(pack({"op": "create", "id": 2, "config": '{"added_mass": 2.0}', "name": "fluid",
                           "config_path": "fluid"}))
        self.assertEqual(r["status"], seam.OK)

    def test_hostile_input_then_physics(self):
        bad = [bytes(range(256)), b"", pack({"op": "solve", "id": 3})[:-3], pack([1, 2, 3]),
               pack({"op": 7, "id": 1}), pack({"op": "launch", "id": 4}), pack({"op": "solve", "id": 5}),
               b"\x81\xa1x\xc6\xff\xff\xff\xff\x00"]
        for raw in bad:
            r = self.ask(raw)
            self.assertFalse(r["ok"], raw)
            self.assertTrue(r["error"])
        self.assertIn("say hello first", self.ask(pack({"op": "solve", "id": 6}))["error"])
        self.greet()
        n = 4
        X = struct.pack("<4d", 0, 0, 0, 0)
        r = self.ask(pack({"op": "bind", "id": 7, "dim": 1, "n_points": n, "X": X, "nodes_per_elem": 0,
                           "n_elems": 0, "n_bodies": 1}))
        self.assertEqual(r["status"], seam.OK)
        step = {"index": 0, "t": 0.0, "dt": 0.1, "iteration": 0}
        r = self.ask(pack({"op": "solve", "id": 8, "step": step, "n": n, "dim": 1, "X": X,
                           "V": struct.pack("<3d", 1, 2, 3), "out": ["F"]}))
        self.assertFalse(r["ok"])   # 3 values for 4 points
        self.assertIn("expected bin of 4 float64", r["error"])
        V = [0.3, -1.0, 2.5, 1e-300]
        r = self.ask(pack({"op": "solve", "id": 9, "step": step, "n": n, "dim": 1, "X": X,
                           "V": struct.pack("<4d", *V), "out": ["F"]}))
        self.assertEqual(r["status"], seam.OK)
        F = struct.unpack("<4d", r["F"])
        for v, f in zip(V, F):
            self.assertEqual(f, -2.0 * (v - 0.0) / 0.1)   # bit for bit, V^n = 0 after bind

    def test_out_of_band_arrays(self):
        """Protocol 2: large bins as markers in the map and bytes in frames,
        split anywhere; replies to protocol 2 carry them the same way."""
        r = self.ask(pack({"op": "hello", "id": 1, "protocol": 2, "abi": seam.ABI_VERSION}))
        self.assertEqual(r["protocol"], 2)
        self.ask(pack({"op": "create", "id": 2, "config": '{"added_mass": 2.0}', "name": "fluid"}))
        n = 10000                                   # 80000 bytes per array
        marker = msgpack.ExtType(seam.OOB_EXT, struct.pack(">Q", 8 * n))
        X = struct.pack("<%dd" % n, *([0.0] * n))
        head = pack({"op": "bind", "id": 3, "dim": 1, "n_points": n, "X": marker, "nodes_per_elem": 0,
                     "n_elems": 0, "n_bodies": 1})
        reply, _ = self.s.handle(head, [X[:12345], X[12345:]])   # a double straddles the frames
        self.assertEqual(reply["status"], seam.OK, reply)
        V = [0.5 * i - 1.0 for i in range(n)]
        Vb = struct.pack("<%dd" % n, *V)
        step = {"index": 0, "t": 0.0, "dt": 0.25, "iteration": 0}
        head = pack({"op": "solve", "id": 4, "step": step, "n": n, "dim": 1, "V": marker, "out": ["F"]})
        reply, _ = self.s.handle(head, [Vb[:70000], Vb[70000:]])
        self.assertEqual(reply["status"], seam.OK, reply)
        frames = seam.encode(reply, True)
        self.assertEqual(len(frames), 1 + 1)        # the map, then F in one 80000-byte frame
        self.assertEqual(msgpack.unpackb(frames[0], raw=False)["F"], marker)
        back = seam.decode(frames)                  # and the same bytes back
        F = struct.unpack("<%dd" % n, back["F"])
        for v, f in zip(V, F):
            self.assertEqual(f, -2.0 * v / 0.25)
        self.assertEqual(len(seam.encode(reply, False)), 1)   # protocol 1: inline
        # frames that do not add up: an error naming the field, with the id
        r, _ = self.s.handle(head, [Vb[:-8]])
        self.assertFalse(r["ok"])
        self.assertEqual(r["id"], 4)
        self.assertIn("field \"V\": an out-of-band value of 80000 bytes", r["error"])
        r, _ = self.s.handle(head, [Vb, b"extra"])
        self.assertIn("1 frames after the map that no out-of-band field takes", r["error"])
        reply, _ = self.s.handle(head, [Vb])        # and serving goes on
        self.assertEqual(reply["status"], seam.OK)


    def test_create_refusal_is_logged_and_located(self):
        self.ask(pack({"op": "hello", "id": 1, "protocol": 1, "abi": seam.ABI_VERSION}))
        r = self.ask(pack({"op": "create", "id": 2, "config": '{"added_mas": 1}', "name": "fluid",
                           "config_path": "fluid", "locations": {"added_mas": "scene.json:4:12"}}))
        self.assertEqual(r["status"], seam.ERROR)
        self.assertIn([seam.LOG_ERROR, "scene.json:4:12: fluid.added_mas: unknown key"], r["log"])

    def test_statuses_and_log_levels_are_distinct(self):
        """seam.ERROR is a status and seam.LOG_ERROR a level: host.log refuses a
        status (it would have logged at info), solve refuses a level, and both
        match plugin.h through seam_abi."""
        self.assertIsNot(type(seam.ERROR), type(seam.LOG_INFO))
        self.assertEqual((seam.OK, seam.ERROR, seam.UNSTABLE), (0, 1, 2))
        self.assertEqual((seam.LOG_DEBUG, seam.LOG_INFO, seam.LOG_WARN, seam.LOG_ERROR), (0, 1, 2, 3))
        with self.assertWarns(DeprecationWarning):   # the old name of a level, one release more
            self.assertIs(seam.INFO, seam.LOG_INFO)
        host = seam.Host({"name": "fluid", "config_path": "fluid"})
        with self.assertRaisesRegex(TypeError, r"not seam\.ERROR \(a status\)"):
            host.log(seam.ERROR, "lost")
        with self.assertRaises(TypeError):
            host.log(7, "no such level")
        host.log(seam.LOG_WARN, "kept")
        host.config_error("added_mass", "too big")
        self.assertEqual(host.messages, [[2, "kept"], [3, "fluid.added_mass: too big"]])
        with self.assertRaisesRegex(seam.ProtocolError, "not a status"):
            seam._status(seam.LOG_ERROR)

    def test_destroy_runs_at_bye_and_its_messages_go_back(self):
        s = seam.Session(PistonSolid)
        reply, _ = s.handle(pack({"op": "hello", "id": 1, "protocol": 2, "abi": seam.ABI_VERSION}))
        self.assertIn("mobility", reply["functions"])
        reply, _ = s.handle(pack({"op": "create", "id": 2, "name": "piston", "config_path": "solids[0]",
                                  "config": '{"mass": 2.0, "stiffness": 0.0, "position": 1.0}'}))
        self.assertEqual(reply["status"], seam.OK, reply)
        reply, _ = s.handle(pack({"op": "describe", "id": 2}))
        self.assertEqual((reply["dim"], reply["n_points"], reply["X"]), (1, 1, struct.pack("<d", 1.0)))
        step = {"index": 0, "t": 0.0, "dt": 0.5, "iteration": 0}
        for k in range(3):   # F = 4 N on 2 kg from rest, no spring: v' = v + dt F / m_s, x' = x + dt v
            reply, _ = s.handle(pack({"op": "solve", "id": 3 + k, "step": step, "n": 1, "dim": 1,
                                      "F": struct.pack("<d", 4.0), "out": ["X", "V"]}))
            self.assertEqual(reply["status"], seam.OK, reply)
            s.handle(pack({"op": "commit", "id": 10 + k}))
        self.assertEqual(struct.unpack("<2d", reply["X"] + reply["V"]), (4.0, 3.0))   # 1 + 0.5 (1 + 2 + 3)
        # commit with max_dt: true also answers max_dt; without it, status alone; a non-bool is refused
        s.handle(pack({"op": "solve", "id": 13, "step": step, "n": 1, "dim": 1, "F": struct.pack("<d", 4.0)}))
        reply, _ = s.handle(pack({"op": "commit", "id": 14, "max_dt": True}))
        self.assertEqual((reply["status"], reply["max_dt"]), (seam.OK, {"status": seam.OK, "dt": math.inf}))
        reply, _ = s.handle(pack({"op": "commit", "id": 15}))
        self.assertNotIn("max_dt", reply)
        reply, _ = s.handle(pack({"op": "commit", "id": 16, "max_dt": 1}))
        self.assertFalse(reply["ok"])
        self.assertIn('commit: field "max_dt": expected bool', reply["error"])
        reply, ended = s.handle(pack({"op": "bye", "id": 20}))
        self.assertTrue(ended)
        self.assertEqual(reply["log"], [[seam.LOG_DEBUG, "piston_solid_py: destroyed after 5 commits"]])
        self.assertIsNone(s.instance)

    def test_solid_refuses_a_bad_configuration_located(self):
        s = seam.Session(PistonSolid)
        s.handle(pack({"op": "hello", "id": 1, "protocol": 2, "abi": seam.ABI_VERSION}))
        reply, _ = s.handle(pack({"op": "create", "id": 2, "name": "piston", "config_path": "solids[0]",
                                  "config": '{"mass": 0, "stifness": 1}',
                                  "locations": {"mass": "s.json:3:5"}}))
        self.assertEqual(reply["status"], seam.ERROR)
        texts = [m[1] for m in reply["log"]]
        self.assertIn("s.json:3:5: solids[0].mass: expected a finite number > 0, got 0", texts)
        self.assertIn("solids[0].stifness: unknown key (known: mass, stiffness, position, velocity, count)", texts)


class KeyedFluid(PistonFluid):
    """A solver that declares its keys (the keys entry, ABI 6): the client serves it without code of its own."""

    @staticmethod
    def keys():
        return seam.OK, {"count": 2, "name": ["added_mass", "mode"], "type": [1, 5], "lo": [0.0, math.nan],
                         "hi": [math.inf, math.nan], "choices": ["", "a|b"], "doc": ["kg", "which"]}


class ShapedEntryTest(unittest.TestCase):
    def test_keys_before_create_and_the_host_frame_format(self):
        s = seam.Session(KeyedFluid)
        r, _ = s.handle(pack({"op": "hello", "id": 1, "protocol": 2, "abi": seam.ABI_VERSION}))
        self.assertIn("keys", r["functions"])
        r, _ = s.handle(pack({"op": "keys", "id": 2}))   # the table's own: no instance needed
        self.assertTrue(r["ok"], r)
        self.assertEqual((r["status"], r["count"], r["name"], r["choices"]), (seam.OK, 2, ["added_mass", "mode"],
                                                                               ["", "a|b"]))
        self.assertEqual(struct.unpack("<2i", r["type"]), (1, 5))
        self.assertEqual(struct.unpack("<2d", r["hi"])[0], math.inf)
        self.assertTrue(math.isnan(struct.unpack("<2d", r["lo"])[1]))
        r, _ = s.handle(pack({"op": "create", "id": 3, "config": '{"added_mass": 2.0}', "name": "fluid",
                              "vtk": "xml_float32"}))
        self.assertEqual(r["status"], seam.OK)
        self.assertEqual(s.host.vtk, "xml_float32")
        s = seam.Session(KeyedFluid)
        s.handle(pack({"op": "hello", "id": 1, "protocol": 2, "abi": seam.ABI_VERSION}))
        r, _ = s.handle(pack({"op": "create", "id": 4, "config": "{}", "name": "fluid", "vtk": "png"}))
        self.assertFalse(r["ok"])
        self.assertIn('"vtk"', r["error"])


class ReadmeTest(unittest.TestCase):
    def test_excerpts_are_the_files(self):
        """Each code block of protocol/python/README.md marked as an excerpt is
        a verbatim piece of the file it names, so the guide shows the code
        that runs."""
        here = os.path.join(os.environ.get("SEAM_SOURCE_ROOT", "."), "protocol", "python")
        with open(os.path.join(here, "README.md")) as f:
            text = f.read()
        excerpts = re.findall(r"<!-- excerpt: ([\w.]+) -->\n```python\n(.*?)```", text, re.S)
        self.assertEqual(len(excerpts), 4)
        for name, code in excerpts:
            with open(os.path.join(here, name)) as f:
                self.assertIn(code, f.read(), "README.md's excerpt of %s is not in it" % name)


if __name__ == "__main__":
    unittest.main()
