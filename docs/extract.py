#!/usr/bin/env python3
"""Write the fenced code block that follows `<!-- file: NAME -->` in a
Markdown page to OUTPUT, so examples in the docs are compiled and run."""
import re
import sys


def extract(markdown: str, name: str) -> str:
    marker = re.search(r"<!--\s*file:\s*" + re.escape(name) + r"\s*-->\s*\n```[^\n]*\n", markdown)
    if not marker:
        raise SystemExit(f"extract.py: no block marked {name}")
    end = markdown.find("\n```", marker.end() - 1)
    if end < 0:
        raise SystemExit(f"extract.py: block {name} is not closed")
    return markdown[marker.end():end + 1]


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit("usage: extract.py PAGE.md NAME OUTPUT")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = extract(f.read(), sys.argv[2])
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(text)
