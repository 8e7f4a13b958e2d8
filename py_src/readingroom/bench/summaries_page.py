"""``bench summaries --browser PDF``: the time from asking for a long document's summary to the
outline on screen in the page, and the same summary natively.

The document (a 300-page-like PDF: the R manuals of Debian's ``r-doc-pdf`` are the issue's own
example) is indexed natively into a SQLite file, which keeps its summary as indexing does in the
page, then imported into a fresh page. Each run is timed in the page (``performance.now()``):
from the click on the document's **Summarise** button, or from sending "Summarise NAME" in Ask
mode, to the frame after the new outline is in the chat log. Natively: ``Library.summarise`` of
the stored summary, and the summary computed again from the stored chunks and vectors (what a
library without it, or Postgres, does on demand). Smoke runs only on a shared machine; the
figures are printed with the load average.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from ..aio import run
from ..summarise import stored
from . import browser as bb
from .stats import load_average

# In the page: start the clock, act, and stop at the frame after a new outline is in the log.
_TIMED = """async ([how, name]) => {
  const count = () => document.querySelectorAll('#chat-log .summary').length;
  const before = count();
  const shown = new Promise((resolve) => {
    const seen = () => { if (count() > before) { obs.disconnect(); requestAnimationFrame(() => resolve(performance.now())); return true; } return false; };
    const obs = new MutationObserver(seen);
    obs.observe(document.getElementById('chat-log'), { childList: true, subtree: true });
  });
  const t0 = performance.now();
  if (how === 'button') {
    [...document.querySelectorAll('#document-list .doc-row')].find((r) => r.dataset.name === name)
      .querySelector('button.summarise').click();
  } else {
    document.getElementById('mode-ask').click();
    document.getElementById('query').value = `Summarise ${name}`;
    document.getElementById('query-button').click();
  }
  return (await shown) - t0;
}"""


def _native(pdf: Path, path: Path) -> dict:
    from .. import Library, NewDocument

    lib = Library.open(str(path))
    t0 = time.perf_counter()
    [out] = run(lib.add([NewDocument(pdf.name, data=pdf.read_bytes())]))
    index_s = time.perf_counter() - t0
    d = next(x for x in lib.documents() if x.id == out.doc_id)
    times, fresh = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        s = run(lib.summarise([out.doc_id]))
        times.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        stored._compute(lib.index, out.doc_id)
        fresh.append((time.perf_counter() - t0) * 1000)
    pages = max((r[0] or 0 for r in lib.index.store.query(
        "SELECT max(page) FROM chunks WHERE doc_id = ?", (out.doc_id,))), default=0)
    lib.close()
    return {"document": pdf.name, "pages": pages, "chunks": d.chunks, "index_s": round(index_s, 2),
            "points": s.points, "native_ms": statistics.median(times), "native_compute_ms": statistics.median(fresh)}


def page_timing(pdf: Path, runs: int = 3, rebuild: bool = True, browser=None, url: str | None = None) -> dict:
    """The figures for ``pdf``; ``browser`` and ``url``: a Chromium and the served app to use
    (the tests' own), else one session of the bench's."""
    with tempfile.TemporaryDirectory(prefix="readingroom-summary-bench-") as tmp:
        idx = Path(tmp) / "long.sqlite"
        out = _native(pdf, idx)
        if browser is not None:
            out.update(_in_page(browser, url, idx, pdf.name, runs))
        else:
            with bb.session(rebuild) as (own, own_url):
                out.update(_in_page(own, own_url, idx, pdf.name, runs))
    out["load_average"] = load_average()
    return out


def _in_page(browser, url: str, idx: Path, name: str, runs: int) -> dict:
    ctx, page, _ = bb.open_app(browser, url)
    try:
        status = bb.import_index(page, idx)
        page.wait_for_function("(n) => [...document.querySelectorAll('#document-list .doc-row')]"
                               ".some((r) => r.dataset.name === n)", arg=name, timeout=180_000)
        button = [page.evaluate(_TIMED, ["button", name]) for _ in range(runs)]
        asked = [page.evaluate(_TIMED, ["ask", name]) for _ in range(runs)]
        shown = page.locator("#chat-log .summary-point").count()
    finally:
        ctx.close()
    return {"imported_chunks": status.get("chunks"), "runs_ms": [round(x, 1) for x in button],
            "ask_to_screen_ms": round(statistics.median(button), 1),
            "asked_in_words_ms": [round(x, 1) for x in asked], "points_on_screen": shown}
