"""Runs docs/tutorial.md: every ```sh block, in order, in one scratch
directory that looks like the repository's root (examples/, protocol/,
docs/ and build/ linked in), each with the environment the blocks before it
exported. A block must exit with 0, and a ```text block right after it
holds lines its output (stdout and stderr) must contain, in that order,
`...` standing for anything. A block after `<!-- norun -->` is shown, not
run (building)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("SEAM_SOURCE_ROOT", ".")
BUILD = os.environ.get("SEAM_BUILD_ROOT", os.path.join(ROOT, "build"))


def blocks(markdown):
    """[(line, code, expected lines or None)] of the blocks to run."""
    found = []
    fence = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
    last_end, pending = 0, None
    for m in fence.finditer(markdown):
        between = markdown[last_end:m.start()]
        line = markdown.count("\n", 0, m.start()) + 1
        if m.group(1) == "text" and pending is not None and not between.strip():
            found[-1] = (found[-1][0], found[-1][1], m.group(2).splitlines())
        elif m.group(1) == "sh" and "<!-- norun -->" not in between.strip().splitlines()[-1:]:
            found.append((line, m.group(2), None))
            pending = True
            last_end = m.end()
            continue
        pending = None
        last_end = m.end()
    return found


def contains_in_order(output, expected):
    """The first expected line not found (after the ones before it), or None."""
    lines, at = output.splitlines(), 0
    for want in expected:
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")))
        while at < len(lines) and not pattern.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None


def main():
    with open(os.path.join(ROOT, "docs", "tutorial.md"), encoding="utf-8") as f:
        todo = blocks(f.read())
    if len(todo) < 10:
        sys.exit("docs/tutorial.md: only %d blocks to run; the extraction is broken" % len(todo))
    scratch = tempfile.mkdtemp(prefix="seam-tutorial-")
    for name in ("examples", "protocol", "docs"):
        os.symlink(os.path.abspath(os.path.join(ROOT, name)), os.path.join(scratch, name))
    os.symlink(os.path.abspath(BUILD), os.path.join(scratch, "build"))
    state = os.path.join(scratch, ".env")
    open(state, "w").close()
    try:
        for i, (line, code, expected) in enumerate(todo):
            script = "source %s\nset -e\n%s\nexport -p > %s\n" % (state, code, state)
            proc = subprocess.run(["bash", "-c", script], cwd=scratch, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=300)
            output = proc.stdout   # both streams, as each process flushed them
            if proc.returncode != 0:
                sys.exit("docs/tutorial.md:%d: the block exited with status %d:\n%s\n--- its output:\n%s"
                         % (line, proc.returncode, code, output))
            missing = contains_in_order(output, expected) if expected else None
            if missing is not None:
                sys.exit("docs/tutorial.md:%d: the output lacks \"%s\" (in the order shown):\n%s"
                         % (line, missing, output))
            print("docs/tutorial.md:%d: ok (%d expected lines)" % (line, len(expected or [])))
    finally:
        shutil.rmtree(scratch)
    print("%d blocks ran" % len(todo))


if __name__ == "__main__":
    main()
