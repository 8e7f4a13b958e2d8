"""The in-memory legs against what they replace, on a real corpus (run by ``quality``).

- lexical: for every query, the in-memory BM25 (bm25.py) and FTS5's ``bm25()`` must give
  the same chunks, in the same order, with the same scores; counts the queries that do,
  and those FTS5 answered itself (a word that is not one plain ASCII token);
- vector: recall@10 of each quantised path of vectors.py, forced on whatever the corpus
  size, against the exact float search.
"""

from __future__ import annotations

from unittest import mock

import numpy as np

from ..search import reads as search, vectors
from ..aio import run as run_sync
from ..search.bm25 import query_terms
from ..library import Library
from ..records import Filters
from ..search.vectors import VectorMatrix

DEPTH = 300  # as deep as the quality run's candidates


def lexical_equality(lib: Library, queries: list[str], depth: int = DEPTH) -> dict:
    store, lexicon = lib.index.store, lib.index.lexical_index()
    same, differ, through_fts5 = 0, [], 0
    for q in queries:
        fts = search.lexical_candidates(store, q, depth, Filters())
        memory = search.lexical_candidates(store, q, depth, Filters(), lexicon)
        through_fts5 += query_terms(q) is None
        if memory == fts:
            same += 1
        else:
            differ.append(q)
    return {"queries": len(queries), "identical": same, "answered_by_fts5": through_fts5,
            "differ": differ[:10]}


def vector_recall(lib: Library, queries: list[str]) -> dict:
    m = lib.index.vector_matrix()
    if m is None or m.rows is None:
        return {"skipped": "no float matrix to compare with"}
    qvecs = np.concatenate([run_sync(lib.embedder.embed(queries[i : i + 64])) for i in range(0, len(queries), 64)])
    stored = dict(zip(m.ids.tolist(), m.rows))
    exact_rows = lambda ids: np.stack([stored[int(c)] for c in ids])  # noqa: E731
    with mock.patch.object(vectors, "BINARY_FROM", 10**12):
        exact = VectorMatrix.build(m.ids, m.rows)
    paths = {}
    with mock.patch.object(vectors, "BINARY_FROM", 0):
        paths["binary+float"] = VectorMatrix.build(m.ids, m.rows)
        with mock.patch.object(vectors, "MAX_FLOAT_BYTES", 0):
            paths["binary+int8"] = VectorMatrix.build(m.ids, m.rows)
    out = {"chunks": len(m), "queries": len(queries), "in_use": m.kind}
    for name, path in paths.items():
        hits = 0
        for q in qvecs:
            truth = {c for c, _ in exact.top(q, 10)}
            hits += len(truth & {c for c, _ in path.top(q, 100, exact=exact_rows)[:10]})
        out[f"recall@10 {name}"] = round(hits / (10 * len(qvecs)), 4)
    return out


def check(lib: Library, queries: list[str]) -> dict:
    return {"lexical_vs_fts5": lexical_equality(lib, queries), "vector_quantised": vector_recall(lib, queries)}
