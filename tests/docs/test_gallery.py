"""docs/gallery.md against examples/: every example scene has its entry
(a section with its command and its picture), every picture the page names
is a PNG in docs/gallery/ (none there unnamed, each under 200 KB, all under
2 MB), and the page is the one docs/gallery/make_gallery.py writes, so a new
example without its line in the script's SCENES fails here."""
import glob
import os
import re
import sys

ROOT = os.environ.get("SEAM_SOURCE_ROOT", ".")
MAX_PICTURE, MAX_TOTAL = 200_000, 2_000_000


def fail(msg):
    sys.exit("test_gallery: " + msg)


def main():
    scenes = sorted(os.path.basename(p)[:-len(".json")] for p in glob.glob(os.path.join(ROOT, "examples", "*.json")))
    if len(scenes) < 10:
        fail("only %d scenes in %s/examples: the wrong directory?" % (len(scenes), ROOT))
    with open(os.path.join(ROOT, "docs", "gallery.md"), encoding="utf-8") as f:
        text = f.read()
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    listed = {}
    for section in sections:
        name = section.split("\n", 1)[0].strip()
        commands = re.findall(r"`seam run examples/([\w-]+)\.json[^`]*`", section)
        images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", section)
        if commands != [name] or len(images) != 1:
            fail("docs/gallery.md, section %s: expected one `seam run examples/%s.json ...` and one picture, "
                 "found commands %s and pictures %s" % (name, name, commands, images))
        listed[name] = images[0]
    if sorted(listed) != scenes:
        fail("docs/gallery.md lists %s; examples/ has %s (without an entry: %s; not a scene: %s)"
             % (sorted(listed), scenes, sorted(set(scenes) - set(listed)), sorted(set(listed) - set(scenes))))
    total = 0
    for name, image in sorted(listed.items()):
        path = os.path.join(ROOT, "docs", image)
        try:
            with open(path, "rb") as f:
                head = f.read(8)
        except OSError as e:
            fail("docs/gallery.md, section %s: the picture %s: %s" % (name, image, e.strerror))
        if head != b"\x89PNG\r\n\x1a\n":
            fail("docs/gallery.md, section %s: %s is not a PNG file" % (name, image))
        size = os.path.getsize(path)
        if size > MAX_PICTURE:
            fail("docs/%s has %d bytes, more than %d" % (image, size, MAX_PICTURE))
        total += size
    stray = sorted(set(os.path.relpath(p, os.path.join(ROOT, "docs"))
                       for p in glob.glob(os.path.join(ROOT, "docs", "gallery", "*.png"))) - set(listed.values()))
    if stray:
        fail("docs/gallery/ holds %s, which docs/gallery.md does not show" % ", ".join(stray))
    if total > MAX_TOTAL:
        fail("the gallery's pictures have %d bytes in all, more than %d" % (total, MAX_TOTAL))

    sys.dont_write_bytecode = True   # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(ROOT, "docs", "gallery"))
    import make_gallery
    if sorted(make_gallery.SCENES) != scenes:
        fail("docs/gallery/make_gallery.py's SCENES has %s; examples/ has %s" % (sorted(make_gallery.SCENES), scenes))
    if make_gallery.page() != text:
        fail("docs/gallery.md is not what docs/gallery/make_gallery.py writes: run it again "
             "(python3 docs/gallery/make_gallery.py)")
    print("docs/gallery.md: %d scenes, each with its picture (%d bytes in all)" % (len(scenes), total))


if __name__ == "__main__":
    main()
