"""Postgres's side of the seam: the statements of ``pg_sql.py`` and the few things that are not
one statement (how a vector is passed and read back, a chunk's words as a ``tsvector``, how a
chunk row is written, BM25's lengths), as ``sqlite_dialect.py`` is for SQLite. ``PostgresStore``
carries this module as its ``dialect``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..search import syntax
from .pg_sql import *  # noqa: F401,F403 - the statements are this dialect
from ..search.bm25 import packed_postings
from .pg_sql import (ADD_EMBEDDED_FLAG, ADD_TERM_COUNTS, FTS_TERM_POSTINGS, HAS_EMBEDDED_FLAG, HAS_TERM_COUNTS,
                     HEADING_WEIGHT, INSERT_CHUNK, INSERT_PENDING_CHUNK, LEXICON_LENGTHS, MARK_EMBEDDED, TEXT_WEIGHT)


META_EQUALS = "d.meta -> %s = %s::jsonb"
# BM25's memory on Postgres: a shared library is served by a long-lived process on a server, so
# it may keep more postings than a tab (bm25.MAX_POSTINGS_BYTES, 128 MB): at 1M chunks the words
# of 110 SciFact questions hold ~150 MB of postings, which a tab's bound would read again and again.
LEXICON_BYTES = 512 * 1024 * 1024


def meta_params(key: str, value: Any) -> list[Any]:
    return [str(key), json.dumps(value)]


def vector_param(vec: np.ndarray) -> str:
    """A vector as pgvector's text form (exact: each float32 printed to round-trip)."""
    return "[" + ",".join(map(repr, np.asarray(vec, dtype=np.float32).tolist())) + "]"


def vector_value(value) -> np.ndarray:
    return np.asarray(value, dtype=np.float32)


def tsvector(text: str, heading: str) -> tuple[str, int, int]:
    """The chunk's words as the ``tsv`` column (text, then heading past a gap, so that a
    phrase never spans the two, as in FTS5's separate columns), and the tokens of each."""
    body, last = syntax.tsvector_literal(text, TEXT_WEIGHT)
    head, end = syntax.tsvector_literal(heading, HEADING_WEIGHT, last + 1)
    return (body + " " + head).strip(), last, max(0, end - last - 1)


def insert_chunk(store, row: tuple, vec: np.ndarray) -> int:
    """One chunk row (``sql.INSERT_CHUNK``'s parameters) with its words and vector."""
    text, heading = row[8], row[6]
    return store.query(INSERT_CHUNK, (*row, *tsvector(text, heading), vector_param(vec)))[0][0]


def insert_pending_chunk(store, row: tuple) -> int:
    """One chunk row with its words; its vector comes later (``embed_chunk``)."""
    text, heading = row[8], row[6]
    return store.query(INSERT_PENDING_CHUNK, (*row, *tsvector(text, heading)))[0][0]


def embed_chunk(store, chunk_id: int, vec: np.ndarray) -> bool:
    """A pending chunk's vector and flag; False when it is gone or embedded already."""
    return bool(store.query(MARK_EMBEDDED, (vector_param(vec), chunk_id)))


def outdated(store) -> bool:
    """Whether a library was written by an earlier version (``migrate`` brings it up to date)."""
    return not store.query(HAS_EMBEDDED_FLAG) or not store.query(HAS_TERM_COUNTS)


def migrate(store) -> None:
    """Brings a library written by an earlier version up to this schema."""
    if not store.query(HAS_EMBEDDED_FLAG):
        store.execute_script(ADD_EMBEDDED_FLAG)
    if not store.query(HAS_TERM_COUNTS):
        store.execute_script(ADD_TERM_COUNTS)


def query_terms(text: str) -> list[str] | None:
    """The stored term of each of a query's words (``syntax.lexeme``: the stems are ours here,
    so words outside ASCII are ranked in memory too); None when a word is several tokens
    (a phrase, which ``FTS`` answers)."""
    from ..search.fts import terms

    out = []
    for word in terms(text):
        toks = syntax.tokens(word)
        if not toks:
            continue
        if len(toks) > 1:
            return None
        out.append(syntax.lexeme(toks[0]))
    return out


def term_postings(store, term: str):
    """One term's postings for BM25 (bm25.py): its chunks and its weighted count in each."""
    ids, counts = store.query(FTS_TERM_POSTINGS, (term,))[0]
    return packed_postings(np.frombuffer(ids or b"", dtype=">i8"), np.frombuffer(counts or b"", dtype=">i4"), 10)


def build_lexicon(store):
    """BM25's chunk lengths (bm25.py), whose postings are read term by term as queries use them
    (``term_postings``); None past its memory bound."""
    from ..search.bm25 import LexicalIndex

    rows = store.query(LEXICON_LENGTHS)
    if not LexicalIndex.fits(len(rows), LEXICON_BYTES):
        return None
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    lengths = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    return LexicalIndex(ids, lengths, len(rows), int(lengths.sum()), LEXICON_BYTES)
