#!/usr/bin/python3
"""Whether every file a `seam run` left in DIR is whole: each CSV row has
the header's number of fields and ends in a newline, each PNG's chunks run
to IEND with their CRCs right, each VTK XML file and .pvd collection parses
(the appended data ends where the file says), index.html ends its page, and
checkpoint.seam has its magic, its length and its CRC-32
(core/include/seam/checkpoint.h). Prints one line per problem and exits 1
when there is one; --tmp-ok allows NAME.tmp files (a SIGKILL between a
temporary file's write and its rename leaves one).

    bench/coupler/check_outputs.py DIR [--tmp-ok]
"""
import os
import struct
import sys
import xml.etree.ElementTree as ET
import zlib


def check_csv(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        return "empty"
    if not data.endswith(b"\n"):
        return "last row cut (no newline at the end)"
    lines = data[:-1].split(b"\n")
    n = lines[0].count(b",")
    for i, line in enumerate(lines[1:], 2):
        if line.count(b",") != n:
            return "line %d has %d fields, the header %d" % (i, line.count(b",") + 1, n + 1)
        for v in line.split(b","):
            if v:
                try:
                    float(v)
                except ValueError:
                    if not path.endswith("summary.csv"):
                        return "line %d: %r is no number" % (i, v[:30])
    return None


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    at = 8
    while at + 12 <= len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        if at + 12 + n > len(data):
            return "chunk %r runs past the end" % kind
        if zlib.crc32(data[at + 4:at + 8 + n]) != struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]:
            return "chunk %r: bad CRC" % kind
        at += 12 + n
        if kind == b"IEND":
            return None if at == len(data) else "bytes after IEND"
    return "no IEND"


def check_vtk_xml(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"</VTKFile>\n"):
        return "does not end with </VTKFile>"
    head, sep, _ = data.partition(b"<AppendedData")
    try:
        ET.fromstring(head + b"</VTKFile>" if sep else data)   # the raw bytes after <AppendedData are no XML
    except ET.ParseError as e:
        return "XML: %s" % e
    return None


def check_pvd(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return "XML: %s" % e
    missing = [d.get("file") for d in root.iter("DataSet")
               if not os.path.exists(os.path.join(os.path.dirname(path), d.get("file")))]
    return "lists missing files %s" % missing[:3] if missing else None


def check_html(path):
    with open(path, "rb") as f:
        return None if f.read().rstrip().endswith(b"</html>") else "page cut short"


def check_checkpoint(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"SEAMCKPT" or len(data) < 24:
        return "no SEAMCKPT header"
    length = struct.unpack("<Q", data[12:20])[0]
    if 20 + length + 4 != len(data):
        return "length %d in the header, %d in the file" % (length, len(data) - 24)
    if zlib.crc32(data[:-4]) != struct.unpack("<I", data[-4:])[0]:
        return "bad CRC"
    return None


CHECKS = {".csv": check_csv, ".png": check_png, ".vti": check_vtk_xml, ".vtu": check_vtk_xml,
          ".vtp": check_vtk_xml, ".pvd": check_pvd, ".html": check_html, ".seam": check_checkpoint}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top, tmp_ok = sys.argv[1], "--tmp-ok" in sys.argv[2:]
    problems = 0
    for d, _, files in os.walk(top):
        for name in sorted(files):
            path = os.path.join(d, name)
            ext = os.path.splitext(name)[1]
            why = None
            if ext == ".tmp":
                why = None if tmp_ok else "temporary file left"
            elif ext in CHECKS:
                why = CHECKS[ext](path)
            if why:
                print("%s: %s" % (os.path.relpath(path, top), why))
                problems += 1
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
