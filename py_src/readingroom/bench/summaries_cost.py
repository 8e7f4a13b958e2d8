"""``bench summaries --index-cost N``: what keeping each document's summary as it is indexed
costs (the issue's target: indexing slows by at most 15 %), measured natively on the same
SumPubMed articles ``bench summaries`` reads."""

from __future__ import annotations

import time
from pathlib import Path

from ..aio import run
from ..summarise import stored
from .summaries import articles, readable


class _NoSummaries:
    """An index's statements with the summary's write taken away (``stored.keep`` then skips it)."""

    def __init__(self, sql):
        self._sql = sql

    def __getattr__(self, name):
        return None if name == "SET_SUMMARY" else getattr(self._sql, name)


def index_cost(data: Path, limit: int, model_dir: str | None = None) -> dict:
    """The same articles added to two libraries, one keeping summaries as it indexes and one
    not, alternating which goes first (ABBA): the seconds each took and the slowdown; and,
    less exposed to a busy machine, the seconds spent making and writing the summaries
    (``stored.keep`` for a document stored whole, ``stored.load`` when its last vectors land) as a share of the first library's indexing time."""
    from .. import Library, NewDocument

    libs = {"with": Library.open(":memory:", model_dir=model_dir), "without": Library.open(":memory:", model_dir=model_dir)}
    libs["without"].index.sql = _NoSummaries(libs["without"].index.sql)
    warm = "Warming up. The model loads before the clock starts, in both libraries alike."
    for lib in libs.values():
        run(lib.add([NewDocument("warm.md", text=warm, doc_type="md")]))
    secs = {"with": 0.0, "without": 0.0}
    kept_s = [0.0]
    real = {"keep": stored.keep, "load": stored.load}  # keep: stored whole; load: its last vectors landed

    def timed(name):
        def call(*args):
            t0 = time.perf_counter()
            try:
                return real[name](*args)
            finally:
                kept_s[0] += time.perf_counter() - t0
        return call

    docs = articles(data, limit)
    stored.keep, stored.load = timed("keep"), timed("load")
    try:
        for i, (_, path) in enumerate(docs):
            doc = NewDocument(path.name.replace(".txt", ".md"), text=readable(path.read_text()), doc_type="md")
            for which in (("with", "without") if i % 2 == 0 else ("without", "with")):
                before = kept_s[0]
                t0 = time.perf_counter()
                run(libs[which].add([doc]))
                secs[which] += time.perf_counter() - t0
                if which == "without":
                    kept_s[0] = before  # its keep() only returns: not the summary's cost
    finally:
        stored.keep, stored.load = real["keep"], real["load"]
    kept = {k: len(lib.index.store.query("SELECT doc_id FROM doc_summaries")) for k, lib in libs.items()}
    for lib in libs.values():
        lib.close()
    return {"documents": len(docs), "with_s": secs["with"], "without_s": secs["without"],
            "slowdown": secs["with"] / secs["without"] - 1 if secs["without"] else 0.0, "summaries_kept": kept,
            "keep_s": kept_s[0], "keep_share": kept_s[0] / secs["with"] if secs["with"] else 0.0}
