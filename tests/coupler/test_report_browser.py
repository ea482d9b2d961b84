"""The run report in a real browser: runs the demo's scene (the Makefile's
SCENE, shortened) as `make demo` does, takes the report's path from the
last line it prints, opens that index.html in Debian's chromium (headless,
no network) over the DevTools protocol (--remote-debugging-pipe), and
checks that every <img> of the page loaded, at the size of its PNG file.
Then it removes one PNG, reloads, and checks that the browser reports that
image, and only it, as broken: the check can tell a missing picture."""
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.environ.get("SEAM_SOURCE_ROOT", ".")
BUILD = os.environ.get("SEAM_BUILD_ROOT", os.path.join(ROOT, "build"))
TIMEOUT_S = 60


def fail(msg):
    sys.exit("test_report_browser: " + msg)


def demo_scene():
    """The Makefile's `SCENE ?= ...`: what `make demo` runs."""
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        m = re.search(r"^SCENE \?= (\S+)$", f.read(), re.M)
    if not m:
        fail("Makefile: no `SCENE ?= ...` line: which scene does make demo run?")
    return os.path.join(ROOT, m.group(1))


def png_size(path):
    """(width, height) from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        fail("%s is not a PNG file" % path)
    return struct.unpack(">II", head[16:24])


class Browser:
    """chromium --headless with the DevTools protocol on fds 3 (commands in)
    and 4 (replies and events out), messages ended by a NUL byte."""

    def __init__(self, profile):
        exe = shutil.which("chromium")
        if not exe:
            fail("chromium is not installed (scripts/deps.sh installs it)")
        to_browser, self.cmd = os.pipe()
        self.out, from_browser = os.pipe()

        def child_fds():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        args = [exe, "--headless", "--remote-debugging-pipe", "--user-data-dir=" + profile,
                "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "about:blank"]
        if os.geteuid() == 0:   # chromium's sandbox refuses to run as root (CI)
            args.insert(2, "--no-sandbox")
        os.makedirs(profile)
        self.log = os.path.join(profile, "chromium.log")   # a file: a pipe left unread would fill and stall it
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child_fds, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log)
        os.close(to_browser)
        os.close(from_browser)
        self.next_id, self.buf, self.events, self.session = 0, b"", [], None

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.out], [], [], left)[0]:
                with open(self.log, errors="replace") as log:
                    fail("chromium did not answer within %d s: %s" % (TIMEOUT_S, log.read()[-2000:]))
            chunk = os.read(self.out, 1 << 16)
            if not chunk:
                with open(self.log, errors="replace") as log:
                    fail("chromium closed the DevTools pipe (exit status %s): %s" % (self.proc.poll(), log.read()[-2000:]))
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.cmd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method):
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def open_page(self):
        pages = [t["targetId"] for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page"]
        target = pages[0] if pages else self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")

    def load(self, url, reload=False):
        """Load (or reload) and wait for the load event: every image loaded or failed by then."""
        self.events.clear()
        if reload:
            self.call("Page.reload", ignoreCache=True)
        else:
            self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def images(self):
        expr = ("JSON.stringify(Array.from(document.images, i => "
                "[i.getAttribute('src'), i.complete, i.naturalWidth, i.naturalHeight]))")
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        return json.loads(r["result"]["value"])

    def close(self):
        try:
            os.write(self.cmd, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd)
        os.close(self.out)


def main():
    scratch = tempfile.mkdtemp(prefix="seam-report-browser-")
    try:
        out = os.path.join(scratch, "out")
        run = subprocess.run([os.path.join(BUILD, "coupler", "seam"), "run", demo_scene(), "--end", "0.2",
                              "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             timeout=120)
        if run.returncode != 0:
            fail("the demo's run exited with status %d:\n%s%s" % (run.returncode, run.stdout, run.stderr))
        last = run.stdout.rstrip("\n").splitlines()[-1]
        if last != "report: %s/index.html" % out:
            fail("the run's last line is \"%s\", not the report's path \"report: %s/index.html\"" % (last, out))
        page = last[len("report: "):]
        with open(page, encoding="utf-8") as f:
            srcs = re.findall(r'<img src="([^"]+)"', f.read())
        if len(srcs) < 9:   # 3 plots + 3 probe plots (disc position and force, floor pressure) + 3 frames
            fail("%s has %d <img> tags, expected at least 9: %s" % (page, len(srcs), srcs))

        browser = Browser(os.path.join(scratch, "profile"))
        try:
            browser.open_page()
            browser.load("file://" + page)
            shown = browser.images()
            if [s for s, _, _, _ in shown] != srcs:
                fail("the browser's images %s are not the page's <img> tags %s" % ([s[0] for s in shown], srcs))
            for src, complete, w, h in shown:
                if not complete or w == 0:
                    fail("%s: the browser did not load %s" % (page, src))
                want = png_size(os.path.join(out, src))
                if (w, h) != want:
                    fail("%s: the browser shows %s at %dx%d, the file is %dx%d" % (page, src, w, h, want[0], want[1]))
            print("%s: %d images, every one loaded in chromium" % (page, len(shown)))

            gone = srcs[len(srcs) // 2]   # the check itself: a missing PNG must show as broken
            os.remove(os.path.join(out, gone))
            browser.load(None, reload=True)
            broken = [s for s, _, w, _ in browser.images() if w == 0]
            if broken != [gone]:
                fail("with %s removed, the browser reports %s as broken, expected exactly it" % (gone, broken))
            print("with %s removed, chromium reports it, and only it, as not loaded" % gone)
        finally:
            browser.close()
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
