#!/usr/bin/python3
"""Writes the seed corpus of tests/protocol/fuzz_server.c (input format in its
opening comment: one mutation record per reply after hello) into the
directory given (default: fuzz_server/ beside this file): every reply kept,
then one reply of each op the coupler side makes (create, describe, solve,
commit, save, load) cut, grown, overwritten with a NaN or a lying length,
replaced by garbage, held back, preceded by a stale one, given an extra
frame, or never sent."""
import os
import struct
import sys

KEEP, OVERWRITE, TRUNCATE, APPEND, SILENT, LATE, STALE, EXTRA, GARBAGE = range(9)


def rec(kind, at=0, data=b""):
    return bytes([kind]) + struct.pack("<H", at) + bytes([len(data)]) + data


def seeds():
    keep = rec(KEEP)   # replies in order: create, capabilities, describe, max_dt, solve, solve, commit, save, load
    nan = struct.pack(">d", float("nan"))
    return {
        "keep_every_reply": b"",
        "create_garbage": rec(GARBAGE, 0, b"\x81\xa2id\xcf" + b"\xff" * 8),
        "create_silent": rec(SILENT),
        "solve_truncated": keep * 4 + rec(TRUNCATE, 9),
        "solve_nan_position": keep * 4 + rec(OVERWRITE, 0xFFFF, nan),
        "solve_huge_bin_length": keep * 4 + rec(OVERWRITE, 20, b"\xc6\x7f\xff\xff\xff"),
        "solve_late": keep * 4 + rec(LATE, 350),
        "solve_drip_then_stale": keep * 4 + rec(LATE, 100) + rec(STALE),
        "solve_extra_frame": keep * 4 + rec(EXTRA),
        "commit_appended_junk": keep * 6 + rec(APPEND, 0, b"\xc1\xc1\xc1"),
        "save_wrong_size": keep * 7 + rec(OVERWRITE, 30, b"\xc4\xff"),
        "load_silent": keep * 8 + rec(SILENT),
        "describe_count_lies": keep * 1 + rec(OVERWRITE, 12, b"\xcf" + b"\xff" * 8),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "fuzz_server")
    os.makedirs(target, exist_ok=True)
    for name, s in seeds().items():
        with open(os.path.join(target, name), "wb") as f:
            f.write(s)


if __name__ == "__main__":
    main()
