"""Candidates from the legs: vector KNN and BM25, in memory when the index keeps the
matrices (vectors.py, bm25.py), else through ``vec0`` and FTS5; and the name leg, the best
chunks by meaning of the documents a question names (names.py).

A filtered search must never come back short when enough matching chunks exist. When the
filter leaves few chunks we compute exact distances over just those; otherwise we
over-fetch from the KNN index in proportion to how selective the filter is, and widen
until we have enough or have seen everything.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from . import filters as filters_sql
from . import syntax
from ..store import sqlite_sql as sql
from .bm25 import LexicalIndex
from .fts import match_expression
from .names import CHUNKS_PER_NAMED, NameIndex, Named
from .options import Options
from ..records import Filters, Hit
from ..seams import Store
from ..store import dialect
from .vectors import VectorMatrix

VEC0_MAX_K = 4096  # sqlite-vec's limit on k in one KNN query
EXACT_BELOW = 4000  # a filter allowing fewer chunks than this is searched exhaustively


def _as_blob(qvec: np.ndarray) -> bytes:
    return np.ascontiguousarray(qvec, dtype=np.float32).tobytes()


def vector_candidates(store: Store, qvec: np.ndarray, n: int, f: Filters,
                      matrix: VectorMatrix | None = None, ef_search: int = Options.ef_search) -> list[tuple[int, float]]:
    """``(chunk_id, cosine similarity)``, best first, at most ``n``. With the in-memory
    ``matrix`` the search is one mat-vec (a filter is a mask); without it, vec0's KNN (on
    Postgres, HNSW with ``ef_search``: store/postgres.py)."""
    if dialect(store).NAME == "postgres":
        from ..store import postgres

        return postgres.vector_candidates(store, qvec, n, f, ef_search)
    if matrix is not None:
        return matrix.top(qvec, n, _allowed_ids(store, f), lambda ids: _stored_vectors(store, ids))
    blob = _as_blob(qvec)
    if not f.active:
        rows = store.query(sql.KNN, (blob, min(n, VEC0_MAX_K)))
        return [(int(r), 1.0 - float(d)) for r, d in rows]
    where, params = filters_sql.where(f)
    allowed = int(store.query(sql.COUNT_ALLOWED.format(where=where), params)[0][0])
    if allowed == 0:
        return []
    total = int(store.query("SELECT count(*) FROM chunks")[0][0])
    if allowed > EXACT_BELOW:
        allowed_ids = None
        k = min(VEC0_MAX_K, max(n, n * (total // allowed + 1) * 2))
        while True:
            rows = store.query(sql.KNN, (blob, k))
            if allowed_ids is None:
                allowed_ids = {int(r[0]) for r in store.query(sql.ALLOWED.format(where=where), params)}
            hits = [(int(r), 1.0 - float(d)) for r, d in rows if int(r) in allowed_ids]
            if len(hits) >= n or k >= total:
                return hits[:n]
            if k >= VEC0_MAX_K:
                break  # the index cannot give more in one query: go exact
            k = min(VEC0_MAX_K, k * 2)
    rows = store.query(
        sql.KNN_WITHIN.format(allowed=sql.ALLOWED.format(where=where)), (blob, *params, n)
    )
    return [(int(r), 1.0 - float(d)) for r, d in rows]


def name_candidates(store: Store, names: NameIndex | None, qvec: np.ndarray, text: str, f: Filters,
                    matrix: VectorMatrix | None = None, ef_search: int = Options.ef_search
                    ) -> tuple[list[Named], list[tuple[int, float]]]:
    """The documents ``text`` names (names.py) that the filters allow and that have vectors,
    and their best ``CHUNKS_PER_NAMED`` chunks each by meaning, ``(chunk_id, cosine)`` best
    first: the name leg. Empty without a name index (the leg is off, or the library is empty
    or too large)."""
    if names is None:
        return [], []
    named, leg = [], []
    for m in names.named(text):
        if f.doc_ids and m.doc_id not in f.doc_ids:
            continue
        found = vector_candidates(store, qvec, CHUNKS_PER_NAMED, replace(f, doc_ids=(m.doc_id,)), matrix, ef_search)
        if found:
            named.append(m)
            leg += found
    return named, sorted(leg, key=lambda t: (-t[1], t[0]))


def _allowed_ids(store: Store, f: Filters) -> np.ndarray | None:
    """The chunk ids a filter allows (None: no filter), for the in-memory legs' masks."""
    if not f.active:
        return None
    d = dialect(store)
    where, params = filters_sql.where(f, d)
    return np.array([r[0] for r in store.query(d.ALLOWED.format(where=where), params)], dtype=np.int64)


def _stored_vectors(store: Store, ids: np.ndarray) -> np.ndarray:
    """The float32 vectors of ``ids`` as stored, in that order (for exact rescoring)."""
    rows = store.query(sql.VECTORS_FOR, (json.dumps([int(i) for i in ids]),))
    return np.frombuffer(b"".join(bytes(b) for _, b in rows), dtype=np.float32).reshape(len(rows), -1)


def lexical_candidates(store: Store, text: str, n: int, f: Filters,
                       lexicon: LexicalIndex | None = None,
                       mode: str | syntax.Parsed = "web") -> list[tuple[int, float]]:
    """``(chunk_id, -bm25)``, best first, at most ``n``; empty when no word survives escaping.
    ``mode``: how the text is read (syntax.py), or the text already read. With ``lexicon``
    the ranking of words typed without operators is computed in memory (bm25.py); FTS5
    answers the queries it cannot (an operator, a word that is not one plain token, a term
    too large to keep). On Postgres: ``tsvector`` and ``ts_rank_cd`` (store/postgres.py)."""
    parsed = mode if isinstance(mode, syntax.Parsed) else syntax.parse(text, mode)
    if lexicon is not None and parsed.ranked_words is not None:
        hits = _lexical_in_memory(store, lexicon, text, n, f)
        if hits is not None:
            return hits
    if dialect(store).NAME == "postgres":
        from ..store import postgres

        return postgres.lexical_candidates(store, parsed, n, f)
    # Words without operators: the MATCH expression of fts.py, as ever (bm25.py agrees with it).
    expr = match_expression(text) if parsed.ranked_words is not None else syntax.fts5_expression(parsed)
    if expr is None:
        return []
    if f.active:
        where, params = filters_sql.where(f)
        clause = "AND f.rowid IN (" + sql.ALLOWED.format(where=where) + ")"
    else:
        clause, params = "", []
    rows = json.loads(store.query(sql.FTS.format(filter=clause), (expr, *params, n))[0][0])
    rows.sort(key=lambda r: (r[1], r[0]))
    return [(int(r), -float(s)) for r, s in rows]


def _lexical_in_memory(store: Store, lexicon: LexicalIndex, text: str, n: int,
                       f: Filters) -> list[tuple[int, float]] | None:
    words = dialect(store).query_terms(text)
    if words is None:
        return None
    read = dialect(store).term_postings
    try:
        return lexicon.top(words, n, lambda word: read(store, word), _allowed_ids(store, f))
    except ValueError:
        # A term lists chunks the kept lengths do not know: another connection added them
        # since (Postgres, many writers). The engine answers this query; the next one rebuilds.
        return None


def hits_for(store: Store, ids: list[int], text: bool = True) -> dict[int, Hit]:
    """The stored rows behind candidate ids, as bare ``Hit``s (no scores yet); without
    ``text`` their text is empty until ``texts_for`` reads it for the few that are shown."""
    if not ids:
        return {}
    d = dialect(store)
    statement = d.CHUNK_ROWS if text else d.CHUNK_ROWS_NO_TEXT
    rows = json.loads(store.query(statement, (json.dumps([int(i) for i in ids]),))[0][0])
    out: dict[int, Hit] = {}
    for cid, doc_id, name, doc_type, idx, text, s, e, th, tc, hp, page, meta in rows:
        out[cid] = Hit.stored(cid, doc_id, name, doc_type, idx, text, s, e, th, tc, tuple(hp), page, meta)
    return out


def pending_among(store: Store, ids) -> set[int]:
    """Which of ``ids`` are stored by their words only, their vectors still to come."""
    if not ids:
        return set()
    return set(json.loads(store.query(dialect(store).PENDING_AMONG, (json.dumps(sorted(int(i) for i in ids)),))[0][0]))


def texts_for(store: Store, ids) -> dict[int, str]:
    """The texts of a few chunks, by id, in one statement."""
    if not ids:
        return {}
    rows = json.loads(store.query(dialect(store).CHUNK_TEXTS, (json.dumps(sorted(int(i) for i in ids)),))[0][0])
    return {int(cid): text for cid, text in rows}


def with_texts(hits: list[Hit], texts: dict[int, str]) -> list[Hit]:
    return [h.replaced(text=texts[h.chunk_id]) if h.chunk_id in texts else h for h in hits]
