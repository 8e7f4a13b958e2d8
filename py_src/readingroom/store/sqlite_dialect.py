"""SQLite's side of the seam: the statements of ``sqlite_sql.py`` and the few things that are not
one statement (how a vector is passed and read back, how a chunk row is written)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..search.bm25 import instance_postings, query_terms  # noqa: F401 - the FTS5 terms of a query's words
from . import sqlite_postings
from .sqlite_sql import *  # noqa: F401,F403 - the statements are this dialect
from .sqlite_sql import (ADD_EMBEDDED_FLAG, FTS_TERM_INSTANCES, HAS_EMBEDDED_FLAG, INSERT_CHUNK,
                         INSERT_PENDING_CHUNK, INSERT_VECTOR, MARK_EMBEDDED, SUMMARY_TABLE)

NAME = "sqlite"
DERIVED_TABLES = SUMMARY_TABLE + ";\n" + sqlite_postings.SCHEMA  # made for a library from before them
IN_MEMORY_VECTORS = IN_MEMORY_LEXICON = True  # the vector matrix and BM25 in Python (vectors.py, bm25.py)
PARAM = "?"
TRUE = "1"
BEGIN, COMMIT, ROLLBACK = "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"
HAS_SCHEMA = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
DOC_EXISTS = "SELECT 1 FROM documents WHERE id = ?"
INTEGRITY = "PRAGMA integrity_check"
ANALYZE = None  # SQLite's planner needs no statistics here (the legs are in memory)
META_EQUALS = "json_quote(json_extract(d.meta, ?)) = json_quote(json(?))"


def meta_params(key: str, value: Any) -> list[Any]:
    import json

    # json_extract gives SQL values; compare JSON-encoded to keep types exact.
    return ["$." + json.dumps(str(key)), json.dumps(value)]


def vector_param(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


def vector_value(value) -> np.ndarray:
    return np.frombuffer(value, dtype=np.float32)


def insert_chunk(store, row: tuple, vec: np.ndarray) -> int:
    """One chunk row (``INSERT_CHUNK``'s parameters) and its vector; the chunk's id."""
    cid = store.query(INSERT_CHUNK, row)[0][0]
    store.query(INSERT_VECTOR, (cid, vector_param(vec)))
    return cid


def insert_pending_chunk(store, row: tuple) -> int:
    """One chunk row (``INSERT_CHUNK``'s parameters) whose vector comes later; its id."""
    return store.query(INSERT_PENDING_CHUNK, row)[0][0]


def embed_chunk(store, chunk_id: int, vec: np.ndarray) -> bool:
    """A pending chunk's vector, with its flag (inside the caller's transaction); False when
    the chunk is gone or was embedded already (nothing is written then)."""
    if not store.query(MARK_EMBEDDED, (chunk_id,)):
        return False
    store.query(INSERT_VECTOR, (chunk_id, vector_param(vec)))
    return True


def outdated(store) -> bool:
    """Whether a library was written by an earlier version (``migrate`` brings it up to date)."""
    return not store.query(HAS_EMBEDDED_FLAG)


def migrate(store) -> None:
    """Brings a library written by an earlier version up to this schema (inside a transaction)."""
    if not store.query(HAS_EMBEDDED_FLAG):
        store.execute_script(ADD_EMBEDDED_FLAG)


def term_postings(store, term: str):
    """One term's postings for BM25 (bm25.py): kept ones (sqlite_postings.py) when the word is
    common and the library large, otherwise from FTS5's instance vocabulary."""
    kept = sqlite_postings.read(store, term)
    return kept if kept is not None else instance_postings(term_instances(store, term))


def term_instances(store, term: str) -> str | None:
    """FTS5's instances of a term (``FTS_TERM_INSTANCES``)."""
    return store.query(FTS_TERM_INSTANCES, (term,))[0][0]


def postings_kept(store) -> bool:
    """Whether the common words' postings are kept (sqlite_postings.py) and not so much was
    written since that they should be kept afresh."""
    return sqlite_postings.kept(store) and sqlite_postings.written_since(store) <= sqlite_postings.SINCE_AT_MOST


def refill_postings(store):
    """The kept words' postings that are missing, read again a word a step (sqlite_postings.py)."""
    from .sqlite_sql import FTS_INSTANCES_TABLE

    store.execute_script(FTS_INSTANCES_TABLE)
    return (yield from sqlite_postings.refill(store, lambda term: term_instances(store, term)))


def keep_postings(store) -> dict:
    """Keeps the common words' postings (sqlite_postings.py); what was kept."""
    return sqlite_postings.keep(store, lambda term: term_instances(store, term))


def changed_lexicon(store, lexicon, gone, added):
    """BM25's chunk lengths after this connection deleted the chunks ``gone`` and added the
    chunks ``added`` (``LexicalIndex.changed``): the added ones' lengths and FTS5's new totals
    read, not every chunk's; None when the added ids are not the ones past all others."""
    from ..search.bm25 import fts5_lengths, fts5_totals
    from .sqlite_sql import FTS_COLUMNS, FTS_SIZES_FROM

    added = sorted(int(i) for i in added)
    ids, lengths = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if added:
        ids_text, sizes = store.query(FTS_SIZES_FROM, (added[0],))[0]
        ids, lengths = fts5_lengths(ids_text, bytes.fromhex(sizes or ""), FTS_COLUMNS)
        if ids.tolist() != added:
            return None
    return lexicon.changed(gone, ids, lengths, *fts5_totals(_averages(store), FTS_COLUMNS))


def _averages(store) -> bytes:
    """FTS5's averages record (the row count, then total tokens per column)."""
    from .sqlite_sql import FTS_AVERAGES

    rows = store.query(FTS_AVERAGES)
    return rows[0][0] if rows else b""


def build_lexicon(store):
    """BM25's chunk lengths from FTS5's own index (bm25.py); None past its memory bound."""
    from ..search.bm25 import LexicalIndex
    from .sqlite_sql import FTS_COLUMNS, FTS_INSTANCES_TABLE, FTS_SIZES

    chunks = store.query("SELECT count(*) FROM chunks")[0][0]
    if not LexicalIndex.fits(chunks):
        return None
    store.execute_script(FTS_INSTANCES_TABLE)
    ids, sizes = store.query(FTS_SIZES)[0]
    return LexicalIndex.from_fts5(ids, bytes.fromhex(sizes or ""), _averages(store), FTS_COLUMNS)
