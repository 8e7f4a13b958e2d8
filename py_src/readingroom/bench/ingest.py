"""Ingestion throughput, embedding included: in the browser and natively, same documents.

Three measurements, each end to end through the public API, plus embedding alone so the
report can say where the time goes:

- ``browser``: ``readingroom.addDocuments`` with SciFact abstracts (one document each; chunks
  of about 150 tokens), timed with performance.now() in the page; ``browser_not_isolated`` the
  same on a page opened with ``?isolation=off`` (one embedding thread); each states the
  page's isolation, embedding backend (WebGPU only with a hardware adapter that agrees with
  wasm) and threads;
- ``browser_pdf``: a generated text PDF (``--pdf-pages`` pages of real prose) added as a
  ``File`` through the same path a picked file takes (pdf.js reads it page by page);
- ``native``: ``Library.add`` on the same abstracts, ONNX Runtime on the same model files.

Each side's embedder is warmed first (the page's is warmed at start-up; the native one gets
one call before the clock starts), and ``embed_only`` embeds the very chunk texts ingestion
embeds, grouped the same way (one call per document), so ``ingest - embed_only`` is what
chunking, Python and storage cost.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..aio import run as run_sync
from ..ingest.chunking import ChunkSettings, embedding_text
from ..ingest.add import prepare
from . import browser as bb
from .beir import Dataset
from .quality import cache_dir

_INGEST = """
async (docs) => {
  const t0 = performance.now();
  const r = await window.readingroom.addDocuments(docs);
  const ms = performance.now() - t0;
  return {ms, chunks: r.documents.reduce((a, d) => a + (d.chunks ?? 0), 0),
          errors: r.documents.filter((d) => d.status === 'error').map((d) => d.error)};
}
"""

# Queries first (issue 14): the same questions asked on the idle page, then again and again while
# more documents are being added; p50s compare the two. Both sets are answered by the same
# library (the idle one holds the first documents; the busy one is growing).
_QUERIES_DURING = """
async ([queries, docs]) => {
  const rr = window.readingroom;
  const time = async (q) => { const t0 = performance.now(); await rr.query(q); return performance.now() - t0; };
  const idle = [];
  for (const q of queries) idle.push(await time(q));
  let done = false;
  const adding = rr.addDocuments(docs).finally(() => { done = true; });
  const busy = [];
  for (let i = 0; !done; i++) busy.push(await time(queries[i % queries.length]));
  const r = await adding;
  return {idle, busy, chunks: r.documents.reduce((a, d) => a + (d.chunks ?? 0), 0)};
}
"""

# Embedding alone, grouped as ingestion groups it (one call per document).
_EMBED = """
async (groups) => {
  const t0 = performance.now();
  let n = 0;
  for (const g of groups) n += (await window.readingroom.embed(g)).length;
  return {ms: performance.now() - t0, chunks: n};
}
"""

# The PDF through the file path: fetched from this origin into a File, then addDocuments([File]),
# exactly what the picker hands over. pdf.js extraction alone is timed first with the app's own
# module (a second pdf.js run of the same file; it does not touch the library). Then the file is
# added while a word search for its first title is asked (``bb.ADD_AND_PROBE``), checked with
# status().pending at the end.
_PDF = """
async ([url, name, probe]) => {""" + bb.ADD_AND_PROBE + """
  const blob = await (await fetch(url)).blob();
  const file = new File([blob], name, { type: 'application/pdf' });
  const { pdfPages } = await import('./api/pdf.js');
  const x0 = performance.now();
  const read = await pdfPages(name, file, () => {});  // {pages, outline, scanned}
  const pages = read.pages ?? read;
  const extractMs = performance.now() - x0;
  const {r, ms, firstWordMs, asked} = await addAndProbe(file, name, probe);
  const d = r.documents[0] ?? {};
  return {ms, extractMs, firstWordMs, asked, pendingAfter: r.status?.pending ?? null,
          pages: pages.length, chunks: d.chunks ?? 0, status: d.status, error: d.error ?? null};
}
"""


# How the page embeds: isolation, backend, threads. Ingestion's backend (WebGPU after its agreement
# check, or wasm) is decided before the clock starts, as a page's first ingestion would.
_SETUP = """
async () => {
  const gpu = await window.readingroom.debug.chooseEmbedBackend();
  const s = await window.readingroom.status();
  return {cross_origin_isolated: s.crossOriginIsolated, backend: gpu.state === 'on' ? 'webgpu' : 'wasm',
          backend_note: gpu.note, webgpu_adapter: gpu.adapter, webgpu_agreement: gpu.agreement,
          threads: s.embedThreads, thread_note: s.embedder?.threadNote ?? ''};
}
"""


def rate(n: int, seconds: float) -> float:
    return round(n / seconds, 2) if seconds > 0 else float("nan")


def make_pdf(path: Path, ds: Dataset, pages: int) -> Path:
    """A text PDF of ``pages`` pages of real prose (SciFact abstracts, a new one per paragraph)."""
    if path.exists():
        return path
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10.5)
    width, line_h, lines_per_page = 170, 5.2, 50  # about 450 words a page

    def lines():  # the corpus again from the top if the pages outnumber it
        while True:
            for title, text in ds.corpus.values():
                para = (title + ". " + text).encode("latin-1", "replace").decode("latin-1")
                line = ""
                for word in para.split():
                    if line and pdf.get_string_width(line + " " + word) > width:
                        yield line
                        line = word
                    else:
                        line = f"{line} {word}" if line else word
                yield line
                yield ""

    source = lines()
    for _ in range(pages):
        pdf.add_page()
        for i in range(lines_per_page):
            pdf.set_xy(20, 18 + i * line_h)
            pdf.cell(width, line_h, next(source))
    tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
    pdf.output(str(tmp))
    tmp.rename(path)
    return path


def chunk_groups(docs) -> list[list[str]]:
    """The texts ingestion embeds, one list per document."""
    return [[embedding_text(c) for c in prepare(d, ChunkSettings())[2]] for d in docs]


_EMBEDDER = "async () => (await window.readingroom.status()).embedder"


def _queries_during(page, ds: Dataset, more: list[dict]) -> dict:
    """Queries on the idle page, then while ``more`` is added: p50s, their ratio, the tab's peak
    memory meanwhile (renderer processes: the page and every worker) and the embedder's set-up."""
    from .stats import summary

    before = bb.renderer_rss_mb()
    with bb.PeakMemory() as peak:
        q = page.evaluate(_QUERIES_DURING, [list(ds.queries.values())[:30], more])
    idle, busy = summary(q["idle"]), summary(q["busy"])
    e = page.evaluate(_EMBEDDER) or {}
    return {"idle_ms": idle, "during_ms": busy, "added_chunks": q["chunks"],
            "ratio_p50": round(busy["p50"] / idle["p50"], 2) if idle["p50"] else None,
            "query_worker": e.get("queryWorker"), "embedding_sessions": e.get("workersRunning"),
            "renderer_rss_mb": {"before": before, "peak": peak.peak_mb, "samples": peak.samples},
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def run(ds: Dataset, n_docs: int = 200, pdf_pages: int = 200, rebuild: bool = True,
        browser: bool = True, native: bool = True) -> dict:
    docs = ds.documents()[:n_docs]
    groups = chunk_groups(docs)
    n_chunks = sum(len(g) for g in groups)
    tokens = None
    out: dict = {"documents": len(docs), "chunks": n_chunks}
    if native:
        from ..library import Library

        lib = Library.open(":memory:")
        emb = lib.embedder
        counts = run_sync(emb.count_tokens([t for g in groups for t in g]))
        tokens = {"mean": round(sum(counts) / len(counts), 1), "max": max(counts)}
        emb.embed_sync(["warm up"])
        t0 = time.perf_counter()
        for g in groups:
            emb.embed_sync(g)
        embed_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        outcomes = run_sync(lib.add(docs))
        native_s = time.perf_counter() - t0
        chunks = sum(o.chunks for o in outcomes)
        flat = [t for g in groups for t in g]
        t0 = time.perf_counter()
        emb.embed_sync(flat)
        flat_s = time.perf_counter() - t0
        lib.close()
        out["native"] = {"chunks": chunks, "seconds": round(native_s, 2), "chunks_per_s": rate(chunks, native_s),
                         "embed_only_chunks_per_s": rate(n_chunks, embed_s),
                         "embed_one_call_chunks_per_s": rate(n_chunks, flat_s),
                         "load_average": [round(x, 2) for x in os.getloadavg()]}
    out["tokens_per_chunk"] = tokens
    if browser:
        payload = [{"name": d.name, "text": d.text, "type": d.doc_type} for d in docs]
        pdf = make_pdf(cache_dir() / f"scifact-{pdf_pages}p.pdf", ds, pdf_pages) if pdf_pages else None
        with bb.session(rebuild) as (b, url):
            # The same documents on a cross-origin isolated page (wasm threads) and on one
            # without isolation (?isolation=off: one thread), in one run.
            for key, query in (("browser", ""), ("browser_not_isolated", "?isolation=off")):
                ctx, page, _ = bb.open_app(b, url + query)
                setup = page.evaluate(_SETUP)
                e = page.evaluate(_EMBED, groups)
                r = page.evaluate(_INGEST, payload)
                out[key] = {"chunks": r["chunks"], "seconds": round(r["ms"] / 1000, 2),
                            "chunks_per_s": rate(r["chunks"], r["ms"] / 1000),
                            "embed_only_chunks_per_s": rate(e["chunks"], e["ms"] / 1000),
                            "errors": r["errors"], **setup,
                            "load_average": [round(x, 2) for x in os.getloadavg()]}
                more = []
                if key == "browser":
                    more = [{"name": d.name, "text": d.text, "type": d.doc_type}
                            for d in ds.documents()[n_docs:2 * n_docs]]
                if more:  # the corpus has documents beyond the first n_docs to add while asking
                    out["queries_during_ingest"] = _queries_during(page, ds, more)
                ctx.close()
            if browser and len(ds.documents()) > n_docs:
                # The same, with ingestion sharing the query session again (?queryworker=off): what
                # the query-only session buys, and what it costs in tab memory.
                ctx, page, _ = bb.open_app(b, url + "?queryworker=off")
                page.evaluate(_INGEST, payload)
                out["queries_during_ingest_shared_session"] = _queries_during(
                    page, ds, [{"name": d.name, "text": d.text, "type": d.doc_type}
                               for d in ds.documents()[n_docs:2 * n_docs]])
                ctx.close()
            if pdf:
                ctx, page, _ = bb.open_app(b, url)
                before = bb.renderer_rss_mb()
                probe = next(iter(ds.corpus.values()))[0]  # the PDF's first title, as words
                with bb.PeakMemory() as peak:
                    p = page.evaluate(_PDF, [bb.publish(pdf, pdf.name), pdf.name, probe])
                s = p["ms"] / 1000
                out["browser_pdf"] = {**page.evaluate(_SETUP), "file": pdf.name, "bytes": pdf.stat().st_size, "pages": p["pages"],
                                      "chunks": p["chunks"], "seconds": round(s, 2),
                                      "pages_per_s": rate(p["pages"], s), "chunks_per_s": rate(p["chunks"], s),
                                      "pdfjs_extract_s": round(p["extractMs"] / 1000, 2),
                                      # Words first, meaning after: drop to the first word answer
                                      # (None: the add ended first), and to fully hybrid.
                                      "first_word_answer_s": None if p["firstWordMs"] is None
                                      else round(p["firstWordMs"] / 1000, 2),
                                      "full_hybrid_s": round(s, 2) if p["pendingAfter"] is None else None,
                                      "word_probes": p["asked"],
                                      "status": p["status"], "error": p["error"],
                                      "renderer_rss_mb": {"before": before, "peak": peak.peak_mb,
                                                          "samples": peak.samples},
                                      "load_average": [round(x, 2) for x in os.getloadavg()]}
                ctx.close()
    return out
