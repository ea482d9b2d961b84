#!/usr/bin/python3
"""Every number a scene or a plugin's configuration holds is read through a declared range (seam_cfg_key,
seam_cfg_key_int, seam_cfg_key_vec, seam_cfg_key_numbers, seam_cfg_key_points: seam/config.h), so that "every key
is refused outside its range" is a property of the sources: no library or plugin source calls a getter that takes a
range of its own, or reads a JSON number itself, except the few in ALLOWED, each with its own check named.

    test_key_reading.py   (SEAM_SOURCE_ROOT: the source tree)
"""
import os
import re
import sys

ROOT = os.environ["SEAM_SOURCE_ROOT"]
# the code that reads scenes and configurations: the coupler, the library, the plugins seam ships and the ones
# the examples and tests load (tests/docs/outsider holds plugins written from the docs alone, as outsiders do)
DIRS = ["core", "coupler", "plugins", "precice", "protocol", "examples/plugins", "tests/plugins"]
GETTERS = re.compile(r"\b(seam_cfg_num|seam_cfg_int|seam_cfg_vec|seam_cfg_numbers|seam_cfg_points|seam_cfg_density|"
                     r"json_number_value|json_real_value|json_integer_value)\(")
# (file, text on the line): why the number needs no declaration
ALLOWED = [
    ("core/src/config.c", "", "the getters themselves"),
    ("core/include/seam/config.h", "", "their declarations"),
    ("coupler/scene.c", "\"gravity\"", "|g| at most SEAM_GRAVITY_MAX, checked on the vector's length"),
    ("plugins/fluid_mac/config.c", "\"cells\"", "whole numbers in [4, 32768], 2^27 in all, checked beside"),
    ("plugins/solid_fem/generate.c", "seam_cfg_numbers(c, key", "cell counts: whole numbers in [1, 1e6], checked "
                                                                "beside (read_counts)"),
    ("plugins/solid_fem/config.c", "\"nodes\"", "node indices, checked against the body's node count"),
    ("plugins/solid_fem/config.c", "\"dim\"", "2 or 3"),
    ("plugins/solid_rigid/config.c", "\"dim\"", "2 or 3"),
    ("precice/participant/link.c", "json_integer_value(json_object_get(root", "a reply of the protocol, not a "
                                                                             "key of a scene"),
]


def main():
    failures, used = [], set()
    n_files = 0
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                n_files += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        if not GETTERS.search(line):
                            continue
                        ok = [i for i, (file, text, _) in enumerate(ALLOWED) if file == rel and text in line]
                        if ok:
                            used.update(ok)
                        else:
                            failures.append("%s:%d: a number read without a declared range (seam_cfg_key...): %s"
                                            % (rel, no, line.strip()))
    for i, (file, text, why) in enumerate(ALLOWED):
        if i not in used:
            failures.append("ALLOWED names %s (\"%s\": %s), which no longer reads a number so: remove it"
                            % (file, text, why))
    print("%d source files scanned; %d reads allowed without a declaration" % (n_files, len(ALLOWED)))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
