"""Retrieval quality on a BEIR folder: the same queries through the same ``Library``.

The index for a corpus is built once and cached, keyed by model, corpus and chunker, so
repeated runs (and the browser run, which imports the very same file) skip embedding.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Callable

from ..aio import run as run_sync
from ..ingest.chunking import CHUNKER_VERSION
from ..library import Library
from ..model_files import MODEL_ID
from ..search.options import Options
from . import metrics
from .beir import Dataset

# The three methods compared everywhere (native, browser, peers): one leg each, and both.
METHODS: dict[str, dict] = {
    "lexical": {"mode": "lexical"},
    "vector": {"mode": "vector"},
    "hybrid": {"mode": "hybrid"},
}
# Deep enough for Recall@100, with no cap: a judged document should not be hidden by
# diversity rules that exist for reading, not for ranking.
EVAL_OPTIONS = {"candidates": 300, "documents": 100, "cap_key": None, "k": 10}


def cache_dir() -> Path:
    """Outside the checkout, so a fresh clone on the same machine reuses the embeddings."""
    d = Path(os.environ.get("READINGROOM_BENCH_CACHE", Path.home() / ".cache" / "readingroom" / "bench"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def index_path(ds: Dataset) -> Path:
    tag = MODEL_ID.replace("/", "_")
    return cache_dir() / f"index-{tag}-c{CHUNKER_VERSION}-{ds.corpus_hash}.sqlite"


def build_index(ds: Dataset, model_dir: str | None = None,
                log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> tuple[Path, dict]:
    """The cached index for ``ds``, building it natively if needed; returns timing too."""
    final = index_path(ds)
    if final.exists():
        return final, {"cached": True}
    tmp = final.with_name(f"{final.stem}.{os.getpid()}.building")  # concurrent runs never share it
    if tmp.exists():
        tmp.unlink()
    lib = Library.open(tmp, model_dir=model_dir)
    docs = ds.documents()
    t0 = time.perf_counter()
    chunks = 0
    step = 200
    for i in range(0, len(docs), step):
        out = run_sync(lib.add(docs[i : i + step]))
        chunks += sum(o.chunks for o in out)
        rate = chunks / (time.perf_counter() - t0)
        log(f"  indexed {min(i + step, len(docs))}/{len(docs)} documents, {chunks} chunks, {rate:.1f} chunks/s")
    seconds = time.perf_counter() - t0
    lib.close()
    shutil.move(tmp, final)
    return final, {"cached": False, "chunks": chunks, "seconds": round(seconds, 2),
                   "chunks_per_s": round(chunks / seconds, 2)}


def ranked_docs(result: dict) -> list[str]:
    return [d["name"] for d in result["documents"]]


async def run_library(lib: Library, ds: Dataset, methods: dict[str, dict] = METHODS) -> dict:
    """Metrics per method for every judged query."""
    out = {}
    qids = [q for q in ds.qrels if q in ds.queries]
    for name, extra in methods.items():
        opts = Options.from_dict({**EVAL_OPTIONS, **extra})
        runs = {}
        for q in qids:
            r = await lib.retrieve(ds.queries[q], opts)
            runs[q] = [d.name for d in r.documents]
        out[name] = metrics.summarise(runs, ds.qrels)
    return out


def run_native(ds: Dataset, model_dir: str | None = None) -> dict:
    path, build = build_index(ds, model_dir)
    lib = Library.open(path, model_dir=model_dir)
    try:
        t0 = time.perf_counter()
        result = run_sync(run_library(lib, ds))
        result["seconds"] = round(time.perf_counter() - t0, 2)
        from . import legs

        result["legs"] = legs.check(lib, [ds.queries[q] for q in ds.qrels if q in ds.queries])
    finally:
        lib.close()
    result["index"] = {"path": str(path), **build}
    return result


_RUN = """
async ([queries, options]) => {
  const out = {};
  for (const [qid, text] of queries) {
    const r = await window.readingroom.query(text, options);
    out[qid] = r.documents.map((d) => d.name);
  }
  return out;
}
"""


def run_browser(ds: Dataset, embed_in_browser: bool = False, rebuild: bool = True) -> dict:
    """The same evaluation through the app in headless Chromium (Pyodide + sqlite-wasm)."""
    from . import browser as bb

    queries = [[q, ds.queries[q]] for q in ds.qrels if q in ds.queries]
    out: dict = {}
    with bb.session(rebuild) as (browser, url):
        ctx, page, _ = bb.open_app(browser, url)
        t0 = time.perf_counter()
        if embed_in_browser:
            docs = [{"name": d.name, "text": d.text, "type": d.doc_type} for d in ds.documents()]
            for i in range(0, len(docs), 100):
                page.evaluate("(d) => window.readingroom.addDocuments(d)", docs[i : i + 100])
            out["index"] = {"embedded_in_browser": True, "seconds": round(time.perf_counter() - t0, 1)}
        else:
            path, _ = build_index(ds)
            status = bb.import_index(page, path)
            out["index"] = {"imported": str(path), "chunks": status["chunks"],
                            "seconds": round(time.perf_counter() - t0, 1)}
        t0 = time.perf_counter()
        for name, extra in METHODS.items():
            runs = page.evaluate(_RUN, [queries, {**EVAL_OPTIONS, **extra}])
            out[name] = metrics.summarise(runs, ds.qrels)
        out["seconds"] = round(time.perf_counter() - t0, 2)
        ctx.close()
    return out


def compare(native: dict, browser: dict, tolerance: float = 0.001) -> list[str]:
    """Every figure on which the two sides differ by more than ``tolerance``."""
    diffs = []
    for method in METHODS:
        for key in ("ndcg@10", "recall@10", "recall@100", "mrr@10"):
            a, b = native[method][key], browser[method][key]
            if abs(a - b) > tolerance:
                diffs.append(f"{method} {key}: native {a:.4f} vs browser {b:.4f}")
    return diffs
