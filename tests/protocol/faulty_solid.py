#!/usr/bin/python3
"""The piston's solid (protocol/python/piston_solid.py) that fails on
purpose, for the coupler's failure tests: the participant key
"fault": "OP:N:HOW" makes the N-th call (from 1) of OP (create, bind,
max_dt, solve, commit, save, load, write_output, destroy) end as HOW:

    kill    the process kills itself (SIGKILL) before answering
    stop    the process stops itself (SIGSTOP): a frozen host, no heartbeats
    hang    the call never returns (heartbeats go on: a solver in a loop)
    exit    the process exits with status 3
    close   the server closes its socket and lives on without it
    error   the call returns an error status, saying so
    nan     the call answers NaN (max_dt: the step; solve: the position)

With "fault_file": PATH, each call of OP first appends "OP N\\n" to PATH
(and flushes), so a test can see how far the solver got. write_output
writes DIR/piston_NNNNNN.txt (position and velocity) through a temporary
name, as frames are written.
"""
import math
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "protocol", "python"))
import seam_client as seam  # noqa: E402
from piston_solid import PistonSolid  # noqa: E402


class CloseSocket(BaseException):
    """Raised through the session (which catches Exception only) to make
    serve() close its socket."""


class FaultySolid(PistonSolid):
    name = "piston_solid_py"

    def __init__(self, config, host):
        config = dict(config) if isinstance(config, dict) else config
        fault = config.pop("fault", "") if isinstance(config, dict) else ""
        self.trace = config.pop("fault_file", None) if isinstance(config, dict) else None
        self.calls = {}
        self.fault = fault.split(":") if fault else None
        if self.fault and (len(self.fault) != 3 or not self.fault[1].isdigit()):
            host.config_error("fault", "expected OP:N:HOW, got %r" % fault)
            raise seam.CreateError("bad fault")
        self.host = host
        if self.maybe_fail("create") is True:
            raise seam.CreateError("injected failure in create")
        super().__init__(config, host)

    def maybe_fail(self, op):
        n = self.calls[op] = self.calls.get(op, 0) + 1
        if self.trace:
            with open(self.trace, "a") as f:
                f.write("%s %d\n" % (op, n))
        if not self.fault or self.fault[0] != op or int(self.fault[1]) != n:
            return False
        how = self.fault[2]
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif how == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        elif how == "hang":
            while True:
                time.sleep(0.05)
        elif how == "exit":
            os._exit(3)
        elif how == "close":
            raise CloseSocket()
        elif how == "error":
            self.host.log(seam.LOG_ERROR, "injected failure in %s, call %d" % (op, n))
            return True
        return how

    def bind(self, iface):
        return seam.ERROR if self.maybe_fail("bind") is True else seam.OK

    def max_dt(self):
        return math.nan if self.maybe_fail("max_dt") == "nan" else super().max_dt()

    def solve(self, step, io, out):
        fail = self.maybe_fail("solve")
        if fail is True:
            return seam.ERROR
        st = super().solve(step, io, out)
        if fail == "nan":
            out.X[0] = math.nan
        return st

    def commit(self):
        return seam.ERROR if self.maybe_fail("commit") is True else super().commit()

    def save(self):
        return (seam.ERROR, b"") if self.maybe_fail("save") is True else super().save()

    def load(self, data):
        return seam.ERROR if self.maybe_fail("load") is True else super().load(data)

    def destroy(self):
        self.maybe_fail("destroy")
        super().destroy()

    def write_output(self, directory, frame):
        if self.maybe_fail("write_output") is True:
            return seam.ERROR
        path = os.path.join(directory, "piston_%06d.txt" % frame)
        with open(path + ".tmp", "w") as f:
            f.write("%.17g %.17g\n" % (self.x[0], self.v[0]))
        os.rename(path + ".tmp", path)
        return seam.OK


if __name__ == "__main__":
    try:
        seam.main(FaultySolid)
    except CloseSocket:
        while True:   # alive, its socket closed: only the coupler's SIGTERM ends it
            time.sleep(1)
