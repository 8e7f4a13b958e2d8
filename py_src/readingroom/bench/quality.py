"""Retrieval quality on a BEIR folder: the same queries through the same ``Library``.

The index for a corpus is built once and cached, keyed by model, corpus and chunker, so
repeated runs (and the browser run, which imports the very same file) skip embedding.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path
from typing import Callable

from ..chunking import CHUNKER_VERSION
from ..library import Library
from ..model_files import MODEL_ID
from ..options import Options
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
    d = Path(__file__).resolve().parents[3] / ".cache" / "bench"
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
    tmp = final.with_suffix(".building")
    if tmp.exists():
        tmp.unlink()
    lib = Library.open(tmp, model_dir=model_dir)
    docs = ds.documents()
    t0 = time.perf_counter()
    chunks = 0
    step = 200
    for i in range(0, len(docs), step):
        out = asyncio.run(lib.add(docs[i : i + step]))
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
        result = asyncio.run(run_library(lib, ds))
        result["seconds"] = round(time.perf_counter() - t0, 2)
    finally:
        lib.close()
    result["index"] = {"path": str(path), **build}
    return result
