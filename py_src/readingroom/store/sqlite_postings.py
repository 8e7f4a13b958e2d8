"""Kept postings: the common words' postings of a large SQLite library, one compact row a word.

Why: BM25 in memory (search/bm25.py) reads a word's postings from FTS5 the first time a query
uses it, and FTS5 gives them one row per occurrence (its ``fts5vocab`` instance table). For a
word in half a million chunks that read is most of a query at a million chunks (50–80 ms
natively, three times that in the page). Here such a word's postings are one row: its chunk
ids and its count in each column, read with one seek and turned into arrays without parsing.

Kept in step with FTS5 without reading it again: a row stands for the word's postings when it
was written, and every chunk inserted or deleted after that is listed in ``postings_since``
(by triggers, inside the writing transaction), an inserted chunk's words also indexed in a
small FTS5 table of their own, ``chunks_fts_since`` (the same tokenizer). ``read`` takes the
row, drops the chunks listed since and adds the word's instances in ``chunks_fts_since``:
FTS5's postings as they are now, to the last bit, at the cost of the chunks written since, not
the word's whole list. (Until 2026-11-28 a write emptied the table and the page's warm-up read
every kept word again: 77 s natively after one small document at a million chunks.) Past
``SINCE_AT_MOST`` chunks written since, a word is read from FTS5 as if it were not kept, and
keeping again (``keep``, or ``refill`` in the page's warm-up) starts afresh.

``keep`` chooses the words from FTS5's vocabulary and fills the table in one transaction: the
CLI does so after indexing a library larger than the page's quick scans (``store/legs.py``), as
do ``readingroom export`` and the benches' large indexes. The words chosen are listed in
``kept_terms``, which writes do not empty, so ``refill`` can read them again without scanning
the vocabulary (minutes at a million chunks in the page): the page's warm-up does so for rows
that are missing (a library an older version wrote to emptied them), a word a step, each row
written by one statement that reads FTS5 as it is then.

A row (``term``, ``chunks`` n, ``first``, ``gaps``, ``counts``), each blob's width told by
its length: the chunk ids ascending, as the first and the n - 1 gaps after it (little-endian
uint16 when every gap fits, else uint32, else int64); the word's count in each chunk's text
and heading columns packed as ``text << 3 | heading`` in a uint8 when every count fits, else
``text << 10 | heading`` in a little-endian int32 (the packing of Postgres's postings). A
common word at a million chunks takes about 3 bytes a chunk. A word whose counts do not fit
either packing is not kept.
"""

from __future__ import annotations

import time
from typing import Callable, Generator

import numpy as np

from ..errors import StorageError
from ..search.bm25 import Postings, instance_counts, instance_postings, packed_postings
from .sqlite_sql import FTS_TOKENIZE, INSTANCES_TABLE, TERM_INSTANCES

# Kept words: those in at least this many chunks (reading fewer costs little), at most this
# many of them, commonest first.
KEEP_FROM_CHUNKS = 2_000
KEEP_AT_MOST = 20_000
# Chunks written since the rows were kept, past which a word is read from FTS5 instead and
# keeping starts afresh: dropping them from a common word's row and reading them costs about
# what reading the word from FTS5 would.
SINCE_AT_MOST = 20_000
_WIDE_HEADING_BITS, _NARROW_HEADING_BITS = 10, 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS term_postings (
    term   TEXT PRIMARY KEY,
    chunks INTEGER NOT NULL,
    first  INTEGER NOT NULL,
    gaps   BLOB NOT NULL,
    counts BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS kept_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings_since (chunk_id INTEGER PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_since USING fts5(text, heading, tokenize='""" + FTS_TOKENIZE + """');
DROP TRIGGER IF EXISTS chunks_insert_clears_postings;
DROP TRIGGER IF EXISTS chunks_delete_clears_postings;
CREATE TRIGGER IF NOT EXISTS chunks_insert_follows_postings AFTER INSERT ON chunks
WHEN EXISTS (SELECT 1 FROM term_postings) OR EXISTS (SELECT 1 FROM postings_since) BEGIN
    INSERT INTO chunks_fts_since(rowid, text, heading) VALUES (new.id, new.text, new.heading);
    INSERT OR IGNORE INTO postings_since(chunk_id) VALUES (new.id);
END;
CREATE TRIGGER IF NOT EXISTS chunks_delete_follows_postings AFTER DELETE ON chunks
WHEN EXISTS (SELECT 1 FROM term_postings) OR EXISTS (SELECT 1 FROM postings_since) BEGIN
    DELETE FROM chunks_fts_since WHERE rowid = old.id;
    INSERT OR IGNORE INTO postings_since(chunk_id) VALUES (old.id);
END;
"""
GET = "SELECT chunks, first, gaps, counts FROM term_postings WHERE term = ?"
PUT = "INSERT OR REPLACE INTO term_postings(term, chunks, first, gaps, counts) VALUES (?, ?, ?, ?, ?)"
# Rows and what was written since go together (see the triggers: ``since`` keeps following
# writes while it holds anything, so it must never outlive the rows it completes).
CLEAR = "DELETE FROM term_postings; DELETE FROM postings_since; DELETE FROM chunks_fts_since"
SINCE_IDS = "SELECT count(*), group_concat(chunk_id, ' ') FROM postings_since"
SINCE_COUNT = "SELECT count(*) FROM postings_since"
SINCE_INSTANCES_TABLE = INSTANCES_TABLE.format(fts="chunks_fts_since")
SINCE_INSTANCES = TERM_INSTANCES.format(fts="chunks_fts_since")
ANY = "SELECT 1 FROM term_postings LIMIT 1"
CHOSEN = "INSERT INTO kept_terms(term) VALUES (?)"
CLEAR_CHOSEN = "DELETE FROM kept_terms"
# The chosen words whose rows a write has emptied.
MISSING = """
SELECT k.term FROM kept_terms k
WHERE NOT EXISTS (SELECT 1 FROM term_postings p WHERE p.term = k.term)
"""
# FTS5's row vocabulary (sqlite_sql.FTS_TERMS_TABLE): the words to keep, commonest first.
COMMON = "SELECT term, doc FROM temp.chunks_fts_terms WHERE doc >= ?1 ORDER BY doc DESC, term LIMIT ?2"


def read(store, term: str) -> Postings | None:
    """A kept word's postings (chunk ids, its weighted count in each) as FTS5 has them now (see
    the module's doc); None when not kept, or when too much was written since."""
    try:
        rows = store.query(GET, (term,))
    except StorageError:
        return None  # a library opened read-only from before the table existed
    if not rows:
        return None
    n, first, gaps, counts = rows[0]
    width = {2 * (n - 1): "<u2", 4 * (n - 1): "<u4"}.get(len(gaps), "<i8")
    ids = np.empty(n, np.int64)
    ids[0] = first
    np.cumsum(np.frombuffer(gaps, dtype=width), dtype=np.int64, out=ids[1:])
    ids[1:] += first
    narrow = len(counts) == n
    ids, f = packed_postings(ids, np.frombuffer(counts, dtype="u1" if narrow else "<i4"),
                             _NARROW_HEADING_BITS if narrow else _WIDE_HEADING_BITS)
    written, since = store.query(SINCE_IDS)[0]
    if not written:
        return ids, f
    if written > SINCE_AT_MOST:
        return None
    stay = ~np.isin(ids, np.fromstring(since, dtype=np.int64, sep=" "))
    store.execute_script(SINCE_INSTANCES_TABLE)
    new_ids, new_f = instance_postings(store.query(SINCE_INSTANCES, (term,))[0][0])
    ids, f = np.concatenate([ids[stay], new_ids]), np.concatenate([f[stay], new_f])
    order = np.argsort(ids, kind="stable")
    return ids[order], f[order]


def kept(store) -> bool:
    """Whether any word's postings are kept."""
    try:
        return bool(store.query(ANY))
    except StorageError:
        return False


def written_since(store) -> int:
    """Chunks inserted or deleted since the rows were kept (see the module's doc)."""
    try:
        return int(store.query(SINCE_COUNT)[0][0])
    except StorageError:
        return 0  # read-only, from before the table


def pack(instances: str | None) -> tuple[int, int, bytes, bytes] | None:
    """``(chunks, first, gaps, counts)`` for a row, from FTS5's instances as ``sqlite_sql``'s
    ``FTS_TERM_INSTANCES`` gives them; None when there are none, or a count does not fit."""
    ids, text, heading = instance_counts(instances)
    if not len(ids):
        return None
    if text.max() < 1 << (8 - _NARROW_HEADING_BITS) and heading.max() < 1 << _NARROW_HEADING_BITS:
        counts = ((text << _NARROW_HEADING_BITS) | heading).astype("u1")
    elif text.max() < 1 << (31 - _WIDE_HEADING_BITS) and heading.max() < 1 << _WIDE_HEADING_BITS:
        counts = ((text << _WIDE_HEADING_BITS) | heading).astype("<i4")
    else:
        return None
    gaps = np.diff(ids)
    top = gaps.max() if len(gaps) else 0
    width = "<u2" if top < 1 << 16 else "<u4" if top < 1 << 32 else "<i8"
    return len(ids), int(ids[0]), gaps.astype(width).tobytes(), counts.tobytes()


def keep(store, instances: Callable[[str], str | None], least: int | None = None) -> dict:
    """Fills the table with the postings of the library's words in at least ``least`` chunks
    (at most ``KEEP_AT_MOST`` words, commonest first), in one transaction, after emptying it.
    ``instances(term)`` is FTS5's instance list of a term. Returns what was kept."""
    from .sqlite_sql import FTS_INSTANCES_TABLE, FTS_TERMS_TABLE

    t0 = time.perf_counter()
    store.execute_script(FTS_TERMS_TABLE + ";\n" + FTS_INSTANCES_TABLE)
    words = store.query(COMMON, (KEEP_FROM_CHUNKS if least is None else least, KEEP_AT_MOST))
    kept = postings = nbytes = 0
    store.execute_script("BEGIN IMMEDIATE")
    try:
        store.execute_script(SCHEMA)
        store.execute_script(CLEAR)
        store.query(CLEAR_CHOSEN)
        for term, _df in words:
            store.query(CHOSEN, (term,))
            row = pack(instances(term))
            if row is not None:
                store.query(PUT, (term, *row))
                kept += 1
                postings += row[0]
                nbytes += len(row[2]) + len(row[3])
        store.execute_script("COMMIT")
    except BaseException:
        store.execute_script("ROLLBACK")
        raise
    return {"words": kept, "postings": postings, "bytes": nbytes,
            "seconds": round(time.perf_counter() - t0, 2)}


def refill(store, instances: Callable[[str], str | None]) -> Generator[str, None, int]:
    """The chosen words whose rows are missing, read from FTS5 and kept again, one word a step
    ("postings"); returns how many were kept. All of them, after emptying the table, when more
    than ``SINCE_AT_MOST`` chunks were written since the rows were kept. Each row is one
    statement, consistent with the index as it is when written; what is written later is
    followed by ``postings_since`` as for any row."""
    try:
        if written_since(store) > SINCE_AT_MOST:
            store.execute_script("BEGIN IMMEDIATE;\n" + CLEAR + ";\nCOMMIT")  # too much written since: afresh
        missing = [t for (t,) in store.query(MISSING)]
    except StorageError:
        return 0  # read-only, from before the tables
    kept = 0
    for term in missing:
        row = pack(instances(term))
        if row is not None:
            store.query(PUT, (term, *row))
            kept += 1
        yield "postings"
    return kept
