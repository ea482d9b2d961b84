#!/usr/bin/python3
"""A hostile server for whole-scene tests (test_hostile_scene.py): a
`command` participant that starts the real piston solid
(protocol/python/piston_solid.py) on a private socket and relays the
coupler's requests to it, then answers the AT-th `solve` (from 1) as HOW
says instead of with the real reply:

    size     the output arrays one double short (a wrong size)
    nan      the output arrays filled with NaN
    huge     the first output array replaced by 16 MiB of doubles, out of band
    garbage  one frame of 256 pseudo-random bytes instead of the reply
    drip     never the reply: a stale reply (another id) every 0.1 s, for ever
    stop     no reply, to that request or any later one; the process lives on

    hostile_server.py HOW AT --bind ENDPOINT [--once]   (the coupler appends --bind, --once)
"""
import argparse
import math
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

import msgpack
import zmq

HOWS = ("size", "nan", "huge", "garbage", "drip", "stop")
HERE = os.path.dirname(os.path.realpath(__file__))
SOLID = os.path.join(HERE, "..", "..", "protocol", "python", "piston_solid.py")


def mutate(how, reply_frames, out):
    """The frames to send instead of a solve's real reply (None: send nothing)."""
    if how == "garbage":
        return [random.Random(34).randbytes(256)]
    if how in ("drip", "stop"):
        return None
    reply = msgpack.unpackb(reply_frames[0], raw=False)
    names = [k for k in out if isinstance(reply.get(k), bytes)]
    frames = []
    for k in names:
        n = len(reply[k]) // 8
        if how == "size":
            reply[k] = reply[k][:-8]
        elif how == "nan":
            reply[k] = struct.pack("<%dd" % n, *([math.nan] * n))
        elif how == "huge" and not frames:
            size = 16 << 20
            reply[k] = msgpack.ExtType(1, size.to_bytes(8, "big"))   # PROTOCOL.md, "Frames"
            frames.append(struct.pack("<d", 1.0) * (size // 8))
    return [msgpack.packb(reply, use_bin_type=True)] + frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("how", choices=HOWS)
    ap.add_argument("at", type=int)
    ap.add_argument("--bind", required=True)
    ap.add_argument("--once", action="store_true")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="hostile-")
    real = "ipc://%s/real.sock" % tmp
    solid = subprocess.Popen([sys.executable, SOLID, "--bind", real, "--once"], stdout=subprocess.DEVNULL)

    def end(*_):
        solid.kill()
        solid.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        os._exit(0)
    signal.signal(signal.SIGTERM, end)

    ctx = zmq.Context()
    front = ctx.socket(zmq.ROUTER)
    front.bind(a.bind)
    back = ctx.socket(zmq.DEALER)
    back.connect(real)
    poller = zmq.Poller()
    poller.register(front, zmq.POLLIN)
    poller.register(back, zmq.POLLIN)
    peer, ops, solves, silent = None, {}, 0, False
    target = None   # the id of the solve to answer badly, and its `out`
    while solid.poll() is None:
        ready = dict(poller.poll(100))
        if target and a.how == "drip" and peer is not None:
            stale = {"id": target[0] + 1000, "ok": True, "log": [], "status": 0}
            front.send_multipart([peer, msgpack.packb(stale, use_bin_type=True)])
        if front in ready:
            frames = front.recv_multipart()
            peer = frames[0]
            request = msgpack.unpackb(frames[1], raw=False)
            if request.get("op") == "solve":
                solves += 1
                if solves == a.at:
                    target = (request["id"], request.get("out") or [])
            back.send_multipart(frames[1:])
        if back in ready:
            frames = back.recv_multipart()
            reply = msgpack.unpackb(frames[0], raw=False)
            if target and reply.get("id") == target[0]:
                frames = mutate(a.how, frames, target[1])
                silent = a.how == "stop"
            if frames is not None and not silent:
                front.send_multipart([peer] + frames)
    end()


if __name__ == "__main__":
    main()
