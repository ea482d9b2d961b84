"""Runs docs/tutorial.md: every ```sh block, in order, in one scratch
directory that looks like the repository's root (examples/, protocol/,
docs/ and build/ linked in), each with the environment the blocks before it
exported. A block must exit with 0, and a ```text block right after it
holds lines its output (stdout and stderr) must contain, in that order,
`...` standing for anything. A block after `<!-- norun -->` is shown, not
run (building).

The pictures: every image of the page, `![...](tutorial/NAME.png)`, comes
right after a line `<!-- picture: PATH -->` naming the file the blocks
before it wrote (PATH relative to the scratch directory). After the blocks
ran, each PATH must be a PNG, and docs/tutorial/NAME.png a PNG of the same
size; with SEAM_TUTORIAL_PICTURES=write (docs/gallery/make_gallery.py sets
it) the run's pictures are copied there instead. docs/tutorial/ holds no
other file.

The newcomer's machine: the blocks run after what `make demo` leaves (its
recipe from the Makefile, shortened to 0.05 s: out/rising_disc filled), with
a python3 first on PATH that lacks numpy, pyzmq and msgpack (Python without
its site packages, as a pyenv or conda one), which the setup block's PATH
must overrule."""
import os
import re
import shutil
import struct
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


def pictures(markdown):
    """[(line, PATH the run writes, NAME.png under docs/tutorial/)], or exits
    naming an image without its `<!-- picture: PATH -->` line."""
    found = []
    lines = markdown.splitlines()
    for i, text in enumerate(lines):
        for target in re.findall(r"!\[[^\]]*\]\(([^)]*)\)", text):
            m = re.fullmatch(r"<!-- picture: (\S+) -->", lines[i - 1]) if i else None
            name = re.fullmatch(r"tutorial/([\w.-]+\.png)", target)
            if not m or not name:
                sys.exit("docs/tutorial.md:%d: the image %s is not tutorial/NAME.png right after a "
                         "`<!-- picture: PATH -->` line naming the file a run wrote" % (i + 1, target))
            found.append((i + 1, m.group(1), name.group(1)))
    return found


def png_size(path):
    """(width, height) of a PNG file, or None when it is not one."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_pictures(todo, scratch):
    """The pictures the blocks before them wrote against those committed in
    docs/tutorial/ (or copied there, with SEAM_TUTORIAL_PICTURES=write)."""
    folder = os.path.join(ROOT, "docs", "tutorial")
    write = os.environ.get("SEAM_TUTORIAL_PICTURES") == "write"
    for line, made, name in todo:
        size = png_size(os.path.join(scratch, made))
        if size is None:
            sys.exit("docs/tutorial.md:%d: the runs above wrote no PNG file %s" % (line, made))
        shown = os.path.join(folder, name)
        if write:
            os.makedirs(folder, exist_ok=True)
            shutil.copyfile(os.path.join(scratch, made), shown)
        elif png_size(shown) != size:
            sys.exit("docs/tutorial.md:%d: docs/tutorial/%s is %s, the run's %s is a %dx%d PNG: regenerate "
                     "the pictures (python3 docs/gallery/make_gallery.py tutorial)"
                     % (line, name, "missing" if png_size(shown) is None else "%dx%d" % png_size(shown), made,
                        size[0], size[1]))
        print("docs/tutorial.md:%d: %s, %dx%d, is docs/tutorial/%s" % (line, made, size[0], size[1], name))


def make_demo(scratch):
    """Run the Makefile's `demo` recipe in scratch, as `make demo` would, shortened."""
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    recipe = re.search(r"^demo:.*\n\t(.*)\n", makefile, re.M)
    scene = re.search(r"^SCENE \?= (\S+)", makefile, re.M)
    if not recipe or not scene:
        sys.exit("Makefile: no `demo` recipe or SCENE default; this test reads them")
    command = recipe.group(1).replace("$(BUILD)", "build").replace("$(SCENE)", scene.group(1)) + " --end 0.05 --quiet"
    proc = subprocess.run(["bash", "-c", command], cwd=scratch, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)
    if proc.returncode != 0:
        sys.exit("make demo's recipe, %s, exited with status %d:\n%s" % (command, proc.returncode, proc.stdout))
    print("make demo's recipe ran: %s" % command)


def python_without_modules(scratch):
    """A folder whose python3 lacks numpy, zmq and msgpack (no site packages)."""
    folder = os.path.join(scratch, ".bare-python")
    os.mkdir(folder)
    with open(os.path.join(folder, "python3"), "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nexec %s -S \"$@\"\n" % sys.executable)
    os.chmod(os.path.join(folder, "python3"), 0o755)
    check = subprocess.run([os.path.join(folder, "python3"), "-c", "import numpy"], stderr=subprocess.DEVNULL)
    if check.returncode == 0:
        sys.exit("the bare python3 imports numpy: this test cannot play a pyenv python3")
    return folder


def main():
    with open(os.path.join(ROOT, "docs", "tutorial.md"), encoding="utf-8") as f:
        markdown = f.read()
    todo, shown = blocks(markdown), pictures(markdown)
    if not shown:
        sys.exit("docs/tutorial.md: no pictures; the extraction is broken")
    folder = os.path.join(ROOT, "docs", "tutorial")
    stray = sorted(set(os.listdir(folder) if os.path.isdir(folder) else []) - {name for _, _, name in shown})
    if stray:
        sys.exit("docs/tutorial/ holds %s, which docs/tutorial.md does not show" % ", ".join(stray))
    if len(todo) < 10:
        sys.exit("docs/tutorial.md: only %d blocks to run; the extraction is broken" % len(todo))
    scratch = tempfile.mkdtemp(prefix="seam-tutorial-")
    for name in ("examples", "protocol", "docs"):
        os.symlink(os.path.abspath(os.path.join(ROOT, name)), os.path.join(scratch, name))
    os.symlink(os.path.abspath(BUILD), os.path.join(scratch, "build"))
    state = os.path.join(scratch, ".env")
    open(state, "w").close()
    env = dict(os.environ, PATH=python_without_modules(scratch) + os.pathsep + os.environ.get("PATH", ""))
    try:
        make_demo(scratch)
        for i, (line, code, expected) in enumerate(todo):
            script = "source %s\nset -e\n%s\nexport -p > %s\n" % (state, code, state)
            proc = subprocess.run(["bash", "-c", script], cwd=scratch, env=env, stdout=subprocess.PIPE,
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
            upto = todo[i + 1][0] if i + 1 < len(todo) else len(markdown)   # a picture shows what ran above it
            check_pictures([p for p in shown if line < p[0] < upto], scratch)
        if shown[0][0] < todo[0][0]:
            sys.exit("docs/tutorial.md:%d: a picture before any block ran" % shown[0][0])
    finally:
        shutil.rmtree(scratch)
    print("%d blocks ran, %d pictures" % (len(todo), len(shown)))


if __name__ == "__main__":
    main()
