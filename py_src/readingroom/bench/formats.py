"""``bench ingest --formats``: per format, units (pages, slides, sheets, chapters) per second
natively and in the page, end to end (read, chunk, embed, store), with extraction alone
natively, peak memory and the load average. The files are made by the libraries that write
each format (``tests/formats.py``, so this needs the test extra and a repository checkout).

OCR: seconds per A4 page at 300 dpi (40 lines of rendered text), natively with tesseract and
in the page with tesseract.js (end to end: read, embed, store).
"""

from __future__ import annotations

import base64
import resource
import sys
import time
from pathlib import Path

from ..aio import run as run_sync
from . import browser as bb
from .stats import load_average

_ADD = """
async ([name, b64, probe]) => {""" + bb.ADD_AND_PROBE + """
  const file = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name);
  const {r, ms, firstWordMs} = await addAndProbe(file, name, probe);
  const d = r.documents?.[0] ?? {};
  return {ms, firstWordMs, chunks: d.chunks ?? 0, status: d.status ?? 'error',
          error: d.error ?? r.rejected_files?.[0] ?? null};
}
"""


def _formats():
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
    import formats_extra  # noqa: E402 - the test suite's generators

    return formats_extra


def ocr_seconds(pages: int = 3) -> float | None:
    from ..extract import ocr

    if not ocr.available():
        return None
    f = _formats()
    image = f.scan_png([f"Line {n}: the inspection of the mill found the wheel in good order." for n in range(40)], a4=True)
    t0 = time.perf_counter()
    for _ in range(pages):
        ocr.read_pages("a4.png", image)
    return round((time.perf_counter() - t0) / pages, 2)


def native(files) -> dict:
    from .. import Library
    from ..extract import extract
    from ..ingest.add import NewDocument

    out = {}
    lib = Library.open(":memory:")
    run_sync(lib.add([NewDocument("warm.txt", text="Warming the embedder up.")]))
    for name, data, units, unit in files:
        t0 = time.perf_counter()
        extract(name, data)
        extract_s = time.perf_counter() - t0
        chunks = chunk_texts(name, data)
        t0 = time.perf_counter()
        [o] = run_sync(lib.add([NewDocument(name, data=data)]))
        secs = time.perf_counter() - t0
        out[name] = {"units": units, "unit": unit, "chunks": len(chunks), "status": o.status,
                     "seconds": round(secs, 2), "per_s": round(units / secs, 2),
                     "extract_per_s": round(units / max(extract_s, 1e-9), 1)}
    lib.close()
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out["ocr_s_per_a4_page"] = ocr_seconds()
    return out


_EMBED = """
async (texts) => {
  const t0 = performance.now();
  await window.readingroom.embed(texts);
  return performance.now() - t0;
}
"""


def chunk_texts(name: str, data: bytes) -> list[str]:
    """The file's chunks as ingestion makes them (the same Python on both sides)."""
    from ..ingest.chunking import ChunkSettings
    from ..ingest.add import NewDocument, prepare_document

    return [c.text for c in prepare_document(NewDocument(name, data=data), ChunkSettings())[2]]


def browser(files, rebuild: bool) -> dict:
    """End to end per file, then its chunks embedded alone by the page's embedder: what is
    left (reading, chunking, storing) is the difference; and when a word search first finds it."""
    out = {}
    with bb.session(rebuild) as (chromium, url):
        ctx, page, _ms = bb.open_app(chromium, url)
        try:
            with bb.PeakMemory() as peak:
                for name, data, units, unit in files:
                    texts = chunk_texts(name, data)
                    probe = " ".join(texts[0].split()[:4]) if texts else ""
                    r = page.evaluate(_ADD, [name, base64.b64encode(data).decode(), probe])
                    first = r["firstWordMs"]
                    out[name] = {"units": units, "unit": unit, "chunks": r["chunks"], "status": r["status"],
                                 "seconds": round(r["ms"] / 1000, 2), "per_s": round(units / (r["ms"] / 1000), 2),
                                 "first_word_s": round(first / 1000, 2) if first is not None else None,
                                 "error": r["error"],
                                 "embed_s": round(page.evaluate(_EMBED, texts) / 1000, 2)}
                # OCR: the first picture also fetches and checks tesseract's files; the next ones not.
                f = _formats()
                times = []
                for n in range(3):
                    lines = [f"Line {k}: page {n} of the inspection found the wheel in good order." for k in range(40)]
                    r = page.evaluate(_ADD, [f"a4-{n}.png", base64.b64encode(f.scan_png(lines, a4=True)).decode(), ""])
                    times.append(round(r["ms"] / 1000, 2))
                out["ocr_first_s"], out["ocr_s_per_a4_page"] = times[0], round(sum(times[1:]) / 2, 2)
            out["peak_renderer_mb"] = round(peak.peak_mb) if peak.peak_mb else None
        finally:
            ctx.close()
    return out


def run(rebuild: bool = True, native_side: bool = True, browser_side: bool = True) -> dict:
    files = _formats().bench_files()
    result = {"load_average_at_start": load_average()}
    if native_side:
        result["native"] = native(files)
    if browser_side:
        result["browser"] = browser(files, rebuild)
    result["load_average_at_end"] = load_average()
    print(f"ingestion per format (load average {result['load_average_at_start'][0]} -> {result['load_average_at_end'][0]}):")
    print(f"{'file':<13}{'units':>12}{'chunks':>8}{'native /s':>11}{'extract /s':>12}{'page /s':>9}{'page s':>8}"
          f"{'words s':>9}{'embed s':>9}")
    for name, _d, units, unit in files:
        n = result.get("native", {}).get(name, {})
        b = result.get("browser", {}).get(name, {})
        print(f"{name:<13}{units:>5} {unit:<6}{n.get('chunks', b.get('chunks', 0)):>8}{n.get('per_s', '-'):>11}"
              f"{n.get('extract_per_s', '-'):>12}{b.get('per_s', '-'):>9}{b.get('seconds', '-'):>8}"
              f"{b.get('first_word_s') or '-':>9}{b.get('embed_s', '-'):>9}")
    print("page s: added end to end in the page (its last vector stored); words s: from the drop until a word "
          "search finds it; embed s: the same chunks embedded alone there afterwards")
    print(f"peak memory: native {result.get('native', {}).get('peak_rss_mb')} MB (process), "
          f"page {result.get('browser', {}).get('peak_renderer_mb')} MB (renderer processes)")
    b = result.get("browser", {})
    print(f"OCR, A4 at 300 dpi: {result.get('native', {}).get('ocr_s_per_a4_page')} s per page natively "
          f"(tesseract, one thread); in the page {b.get('ocr_s_per_a4_page')} s per page end to end "
          f"(the first, fetching tesseract.js's files: {b.get('ocr_first_s')} s)")
    return result
