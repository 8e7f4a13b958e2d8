"""Drive the real app in headless Chromium for the benchmarks.

The bench serves the built ``dist/`` (plus a ``bench/`` folder of its own files: indexes to
import, Orama) on 127.0.0.1 and talks to the page only through ``window.readingroom``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[3]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _build_module():
    sys.path.insert(0, str(REPO))
    import build

    return build


def dist(rebuild: bool = True) -> Path:
    build = _build_module()
    if rebuild or not (build.EMPTY_DIST / "index.html").exists():
        build.build(dist=build.EMPTY_DIST, demo=False)  # the bench imports its own indexes into an empty library
    return build.EMPTY_DIST


def publish(path: Path, name: str) -> str:
    """Put a file in ``dist/bench/`` so the page can fetch it from its own origin."""
    target = _build_module().EMPTY_DIST / "bench" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.stat().st_size != path.stat().st_size:
        target.unlink(missing_ok=True)
        try:
            os.link(path, target)  # a 2.6 GB index need not be copied on the same file system
        except OSError:
            shutil.copyfile(path, target)
    return f"bench/{name}"


@contextmanager
def session(rebuild: bool = True) -> Iterator[tuple]:
    """(browser, url): one Chromium and one server for a whole bench run."""
    from playwright.sync_api import sync_playwright

    build = _build_module()
    dist(rebuild)
    server, _ = build.serve(build.EMPTY_DIST, 0)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            try:
                yield browser, url
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()


def open_app(browser, url: str, timeout_ms: int = 180_000):
    """A fresh context (empty OPFS) with the app loaded and ready; returns (context, page, ms)."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(url)
    ms = ready_ms(page, timeout_ms)
    return ctx, page, ms


@contextmanager
def normal_profile(browser, url: str, timeout_ms: int = 180_000):
    """(context, page, ms) like ``open_app``, but in a profile on disk, as a person's browser has.

    ``open_app``'s contexts are off the record, and Chromium keeps an off-the-record site's
    files (OPFS) in memory, at most about 1.5 GB: a larger index cannot be imported there (see
    tests/browser/test_import_room.py). The profile directory is removed afterwards.
    """
    profile = tempfile.mkdtemp(prefix="readingroom-profile-")
    ctx = browser.browser_type.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                         headless=True)
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        page.goto(url)
        yield ctx, page, ready_ms(page, timeout_ms), profile
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)


def ready_ms(page, timeout_ms: int = 180_000) -> float:
    """Milliseconds from navigation start to ``readingroom.ready`` resolving, measured in-page."""
    page.wait_for_function("() => window.readingroom !== undefined", timeout=timeout_ms)
    return page.evaluate("async () => { await window.readingroom.ready; return performance.now(); }")


def wait_until(page, expression: str, timeout_s: float = 180, every_s: float = 0.25):
    """Evaluates ``expression`` (a function, async or not, as for ``page.evaluate``) until it
    gives a truthy value, and returns that value. Not ``page.wait_for_function``: that takes the
    promise an async condition returns as truthy at once (playwright#29132), so it never waits
    on ``readingroom.status()``."""
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {expression}")
        time.sleep(every_s)


def import_index(page, path: Path) -> dict:
    rel = publish(path, path.name)
    return page.evaluate("(u) => window.readingroom.importIndex(u)", rel)


class PeakMemory:
    """The peak resident memory of this bench's Chromium renderer processes (the tab and its
    workers: Pyodide, SQLite and the embedding workers all live in the renderer), sampled from
    /proc every ``every`` seconds on a thread while the ``with`` block runs.

    Only descendants of this Python process count, so another Chromium on the machine does not.
    Linux only; elsewhere ``peak_mb`` stays None.
    """

    def __init__(self, every: float = 0.2):
        self.every, self.peak_mb, self.samples = every, None, 0

    def __enter__(self) -> PeakMemory:
        import threading

        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while True:
            mb = renderer_rss_mb()
            if mb is not None:
                self.samples += 1
                self.peak_mb = mb if self.peak_mb is None else max(self.peak_mb, mb)
            if self._stop.wait(self.every):
                return


def _renderer_pids(profile: str | None = None) -> list[int]:
    """Chromium renderer processes started by this process (through Playwright), or only those
    of the Chromium that runs with ``profile``; [] where there is no /proc."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    parents, renderers, roots = {}, [], set()
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            cmdline = (d / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # the process ended while we looked
        if b"--type=renderer" in cmdline:
            renderers.append(int(d.name))
        if profile and f"--user-data-dir={profile}".encode() in cmdline:
            roots.add(int(d.name))
    top = roots or {os.getpid()}
    out = []
    for pid in renderers:
        p, seen = pid, 0
        while p > 1 and p not in top and seen < 64:
            p, seen = parents.get(p, 0), seen + 1
        if p in top:
            out.append(pid)
    return out


def renderer_rss_mb() -> float | None:
    """Summed RSS in MB of the Chromium renderer processes started by this process, or None."""
    total = 0
    for pid in _renderer_pids():
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    return round(total / 2**20, 1) if total else None


def renderer_memory(profile: str) -> dict:
    """Memory of the renderer processes of the Chromium that runs with ``profile`` (see
    ``normal_profile``): the tab, its workers (threads of the same process) and its service
    worker. ``pss_bytes`` (proportional set size: a page shared by several processes is split
    among them, so the sum counts it once) is the figure for "the tab's memory"; resident
    memory now and at its peak beside it. {} where there is no /proc."""
    out = {"pss_bytes": 0, "rss_bytes": 0, "peak_rss_bytes": 0, "processes": 0}
    for pid in _renderer_pids(profile):
        try:
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status + rollup if ":" in line)
        kb = lambda k: int(fields.get(k, "0 kB").split()[0]) * 1024  # noqa: E731
        out["pss_bytes"] += kb("Pss")
        out["rss_bytes"] += kb("VmRSS")
        out["peak_rss_bytes"] += kb("VmHWM")
        out["processes"] += 1
    return out if out["processes"] else {}


# Words first, meaning after: addDocuments([file]) from the drop, and meanwhile a word search for
# ``probe`` in that file asked again and again until it finds it (the first word answer);
# addDocuments resolving is the file fully hybrid. Declared at the top of a bench's page script
# (page.evaluate takes one function expression).
ADD_AND_PROBE = """
async function addAndProbe(file, name, probe) {
  const rr = window.readingroom;
  const t0 = performance.now();
  let done = false;
  const adding = rr.addDocuments([file]).finally(() => { done = true; });
  let firstWordMs = null, asked = 0;
  while (probe && firstWordMs === null && !done) {
    const w = await rr.query(probe, {mode: 'lexical', k: 1, filters: {doc_names: [name]}});
    asked += 1;
    if (w.results?.length) firstWordMs = performance.now() - t0;
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const r = await adding;
  return {r, ms: performance.now() - t0, firstWordMs, asked};
}
"""
