"""The schema and every SQL statement: the single source of truth for native and browser.

Both sides run these exact strings, through the ``Store`` seam, on SQLite with sqlite-vec
and FTS5. Chunk text lives once, in ``chunks``; the FTS5 index is an external-content
table and the vectors live in a ``vec0`` table. Triggers keep both in step with
``chunks`` so that a delete of a document's chunks, inside one transaction, removes all
three and nothing can be left half-written.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"  # chunks_fts and sqlite_postings' chunks_fts_since
ROWID_MIN, ROWID_MAX = -(2**63), 2**63 - 1  # SQLite's ids are signed 64-bit integers


def is_rowid(value: int) -> bool:
    """Whether ``value`` can be an id in the database at all. One from outside (a URL, the
    command line) may be any integer; one that cannot be bound names no row, and asking for
    it must say "none", not fail in the driver."""
    return ROWID_MIN <= value <= ROWID_MAX

# The vector dimension is part of the table definition, so the schema is a template.
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    doc_type     TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size         INTEGER NOT NULL,
    added_at     TEXT NOT NULL,
    source_type  TEXT,
    date         TEXT,
    meta         TEXT NOT NULL DEFAULT '{{}}'
);
CREATE TABLE IF NOT EXISTS chunks (
    id           INTEGER PRIMARY KEY,
    doc_id       INTEGER NOT NULL REFERENCES documents(id),
    idx          INTEGER NOT NULL,
    page         INTEGER,
    start_char   INTEGER NOT NULL,
    end_char     INTEGER NOT NULL,
    heading_path TEXT NOT NULL DEFAULT '[]',
    heading      TEXT NOT NULL DEFAULT '',
    token_count  INTEGER NOT NULL,
    text         TEXT NOT NULL,
    text_hash    TEXT NOT NULL,
    embedded     INTEGER NOT NULL DEFAULT 1,
    UNIQUE (doc_id, idx)
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, idx);
{pending_index}
CREATE TABLE IF NOT EXISTS doc_tags (
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    tag    TEXT NOT NULL,
    PRIMARY KEY (doc_id, tag)
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, heading,
    content='chunks', content_rowid='id',
    tokenize='{tokenize}'
);
{vec_table}
{summary_table}
CREATE TRIGGER IF NOT EXISTS chunks_after_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;
CREATE TRIGGER IF NOT EXISTS chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, heading)
        VALUES ('delete', old.id, old.text, old.heading);
    DELETE FROM chunks_vec WHERE rowid = old.id;
END;
"""


VEC_TABLE = """CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(
    embedding float[{dim}] distance_metric=cosine
);"""


# A chunk is stored with its words first and ``embedded = 0``; its vector follows in a later
# transaction that also sets ``embedded = 1`` (index.py ``store_vectors``). So ``embedded``
# says whether the chunk has its row in chunks_vec, and the pending ones are found through
# this small partial index, which is empty once everything is embedded.
PENDING_INDEX = "CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(id) WHERE embedded = 0;"
# A library written before the flag existed has every chunk embedded: the column is added
# with that default (schema version 1 either way: an older app writes its chunks whole).
HAS_EMBEDDED_FLAG = "SELECT 1 FROM pragma_table_info('chunks') WHERE name = 'embedded'"
ADD_EMBEDDED_FLAG = "ALTER TABLE chunks ADD COLUMN embedded INTEGER NOT NULL DEFAULT 1;\n" + PENDING_INDEX


def schema(dim: int) -> str:
    from .sqlite_postings import SCHEMA as KEPT_POSTINGS  # derived: the common words' postings

    return SCHEMA.format(vec_table=vec_table(dim), summary_table=SUMMARY_TABLE, tokenize=FTS_TOKENIZE,
                         pending_index=PENDING_INDEX) + KEPT_POSTINGS


# -- derived data: each document's extractive summary (summarise/stored.py) ---------------
# Made from the chunks and vectors as the document is stored (the same transaction), so it
# opens at once; ``version`` is the summariser's, and another version is computed again on
# demand. A library made before this table existed gets it when opened (``Index``).
SUMMARY_TABLE = """CREATE TABLE IF NOT EXISTS doc_summaries (
    doc_id  INTEGER PRIMARY KEY REFERENCES documents(id),
    version INTEGER NOT NULL,
    data    TEXT NOT NULL
);"""
GET_SUMMARY = "SELECT version, data FROM doc_summaries WHERE doc_id = ?"
SET_SUMMARY = """
INSERT INTO doc_summaries(doc_id, version, data) VALUES (?, ?, ?)
ON CONFLICT(doc_id) DO UPDATE SET version = excluded.version, data = excluded.data
"""
DELETE_DOC_SUMMARY = "DELETE FROM doc_summaries WHERE doc_id = ?"
DELETE_SUMMARIES = "DELETE FROM doc_summaries"
# A document's chunk ids in order, and each document's first heading (its title, for naming).
DOC_CHUNK_IDS = "SELECT id FROM chunks WHERE doc_id = ? ORDER BY idx"
DOC_TITLES = "SELECT doc_id, heading_path FROM chunks WHERE idx = 0"


def vec_table(dim: int) -> str:
    return VEC_TABLE.format(dim=int(dim))


DROP_VEC_TABLE = "DROP TABLE IF EXISTS chunks_vec"
# Every chunk with what its embedding input is made of, for re-embedding (reindex.py).
REINDEX_CHUNKS = """
SELECT c.id, d.name, c.idx, c.text, c.heading_path
FROM chunks c JOIN documents d ON d.id = c.doc_id
ORDER BY d.name, c.idx
"""


# -- provenance --------------------------------------------------------------------------
GET_META = "SELECT key, value FROM meta"
SET_META = "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
DELETE_META = "DELETE FROM meta WHERE key = ?"
GET_META_KEY = "SELECT value FROM meta WHERE key = ?"
EXTENSIONS = "SELECT vec_version()"

# -- documents ---------------------------------------------------------------------------
DOC_BY_NAME = "SELECT id, content_hash, source_type FROM documents WHERE name = ?"
SET_DOC_SOURCE = "UPDATE documents SET source_type = ? WHERE id = ?"
INSERT_DOC = """
INSERT INTO documents(name, doc_type, content_hash, size, added_at, source_type, date, meta)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
"""
INSERT_TAG = "INSERT OR IGNORE INTO doc_tags(doc_id, tag) VALUES (?, ?)"
DELETE_DOC_CHUNKS = "DELETE FROM chunks WHERE doc_id = ?"
DELETE_DOC_TAGS = "DELETE FROM doc_tags WHERE doc_id = ?"
DELETE_DOC = "DELETE FROM documents WHERE id = ?"
_DOC_COLUMNS = """
SELECT d.id, d.name, d.doc_type, d.size, d.added_at, d.content_hash,
       (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunks
FROM documents d"""
LIST_DOCS = _DOC_COLUMNS + " ORDER BY d.name"
# The list a page at a time, by name (names are unique): the documents after ?1, at most ?2.
LIST_DOCS_AFTER = _DOC_COLUMNS + " WHERE d.name > ? ORDER BY d.name LIMIT ?"
# One document by its id: what the page asks after an add, instead of the whole list again.
GET_DOC = _DOC_COLUMNS + " WHERE d.id = ?"
COUNTS = "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)"
# O(1), unlike COUNTS: asked before every search, so an empty library is told apart cheaply.
HAS_CHUNKS = "SELECT EXISTS (SELECT 1 FROM chunks)"

# -- chunks ------------------------------------------------------------------------------
INSERT_CHUNK = """
INSERT INTO chunks(doc_id, idx, page, start_char, end_char, heading_path, heading,
                   token_count, text, text_hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
"""
INSERT_VECTOR = "INSERT INTO chunks_vec(rowid, embedding) VALUES (?, ?)"
# Words first: a chunk without its vector yet (the FTS row comes with it, by trigger).
INSERT_PENDING_CHUNK = """
INSERT INTO chunks(doc_id, idx, page, start_char, end_char, heading_path, heading,
                   token_count, text, text_hash, embedded)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id
"""
# Claims a pending chunk for its vector: no row when it was deleted or embedded meanwhile, so
# a vector is never written for a chunk that is gone, nor twice for one chunk.
MARK_EMBEDDED = "UPDATE chunks SET embedded = 1 WHERE id = ? AND embedded = 0 RETURNING id"
MARK_ALL_EMBEDDED = "UPDATE chunks SET embedded = 1 WHERE embedded = 0"
HAS_PENDING = "SELECT EXISTS (SELECT 1 FROM chunks WHERE embedded = 0)"
# Which of some chunks (a JSON array of ids) have no vector yet: fusion counts their words for both legs.
PENDING_AMONG = """
SELECT json_group_array(c.id) FROM chunks c
WHERE c.embedded = 0 AND c.id IN (SELECT value FROM json_each(?))
"""
EMBEDDED_COUNT = "SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM chunks WHERE embedded = 0)"
# The next pending chunks after ?1, in id order, with what their embedding input is made of.
PENDING_CHUNKS = """
SELECT c.id, c.doc_id, d.name, c.idx, c.text, c.heading_path
FROM chunks c JOIN documents d ON d.id = c.doc_id
WHERE c.embedded = 0 AND c.id > ?
ORDER BY c.id LIMIT ?
"""
# Every document with pending chunks: (id, name, chunks, embedded chunks). The pending ids come
# from the partial index (a GROUP BY over all chunks scanned chunks_doc: 0.27 s at 1M natively).
PENDING_DOCUMENTS = """
SELECT d.id, d.name, (SELECT count(*) FROM chunks a WHERE a.doc_id = d.id),
       (SELECT count(*) FROM chunks a WHERE a.doc_id = d.id) - p.pending
FROM (SELECT c.doc_id, count(*) AS pending FROM chunks c
      WHERE c.id IN (SELECT id FROM chunks WHERE embedded = 0) GROUP BY c.doc_id) p
JOIN documents d ON d.id = p.doc_id
ORDER BY d.name
"""
GET_VECTOR = "SELECT embedding FROM chunks_vec WHERE rowid = ?"
# Every vector, for the in-memory matrix (vectors.py). The first reads sqlite-vec 0.1's
# shadow tables a block of 1,024 vectors at a time; the second is the portable fallback.
# Paged (?1: the last block read, ?2: blocks per page) so a large library never crosses
# into Python at once.
VECTOR_BLOCKS = """
SELECT c.chunk_id, c.size, c.validity, c.rowids, v.vectors
FROM chunks_vec_chunks c JOIN chunks_vec_vector_chunks00 v ON v.rowid = c.chunk_id
WHERE c.chunk_id > ?1
ORDER BY c.chunk_id
LIMIT ?2
"""
# Stored vectors of a few chunks, in the order asked (the exact rescoring in vectors.py).
VECTORS_FOR = """
SELECT v.rowid, v.embedding FROM json_each(?) j JOIN chunks_vec v ON v.rowid = j.value ORDER BY j.key
"""
ALL_VECTORS = "SELECT rowid, embedding FROM chunks_vec"
DATA_VERSION = "PRAGMA data_version"

# Rows for a set of chunk ids, given as one JSON array. The whole answer is one JSON text:
# in the browser every value crossing from sqlite-wasm into Python costs a conversion, and a
# few hundred rows of 13 columns cost more than the query; one string and one json.loads do not.
_CHUNK_ROWS = """
SELECT json_group_array(json_array(
    c.id, c.doc_id, d.name, d.doc_type, c.idx, {text}, c.start_char, c.end_char,
    c.text_hash, c.token_count, json(c.heading_path), c.page, json(d.meta)))
FROM chunks c JOIN documents d ON d.id = c.doc_id
WHERE c.id IN (SELECT value FROM json_each(?))
"""
CHUNK_ROWS = _CHUNK_ROWS.format(text="c.text")
# The same rows without their text (most of the bytes): a query's candidates are read this
# way, and only the texts of what it shows are read after fusion (CHUNK_TEXTS).
CHUNK_ROWS_NO_TEXT = _CHUNK_ROWS.format(text="''")
CHUNK_TEXTS = """
SELECT json_group_array(json_array(c.id, c.text)) FROM chunks c
WHERE c.id IN (SELECT value FROM json_each(?))
"""

# A chunk and its neighbours in the same document: (chunk id, before, after).
NEIGHBOUR_IDS = """
SELECT n.id FROM chunks c JOIN chunks n ON n.doc_id = c.doc_id
WHERE c.id = ?1 AND n.idx BETWEEN c.idx - ?2 AND c.idx + ?3
ORDER BY n.idx
"""

# -- candidates --------------------------------------------------------------------------
# The plain KNN over everything: vec0 answers it from its own index.
KNN = """
SELECT rowid, distance FROM chunks_vec
WHERE embedding MATCH ? AND k = ?
ORDER BY distance
"""
# Exact distances over an explicit set of chunks: used when a filter is selective, so a
# filtered search is never short of results that exist. {allowed} is a SELECT of ids.
KNN_WITHIN = """
SELECT v.rowid, vec_distance_cosine(v.embedding, ?) AS distance
FROM chunks_vec v
WHERE v.rowid IN ({allowed})
ORDER BY distance, v.rowid
LIMIT ?
"""
# BM25 over chunk text and heading; bm25() is negative, smaller is better. The rows come
# back as one JSON array of [rowid, rank] (see CHUNK_ROWS for why); the caller re-sorts.
# The column weights are shared with the in-memory BM25 (bm25.py), which must agree.
BM25_WEIGHTS = (1.0, 0.5)  # text, heading
FTS = """
SELECT json_group_array(json_array(rowid, rank)) FROM (
    SELECT f.rowid AS rowid, bm25(chunks_fts, %r, %r) AS rank
    FROM chunks_fts f
    WHERE chunks_fts MATCH ? {filter}
    ORDER BY rank, f.rowid
    LIMIT ?
)
""" % BM25_WEIGHTS
# What the in-memory BM25 (bm25.py) is built from: FTS5's own index. The instance
# vocabulary lists every occurrence of a term in (chunk, column, offset) order; it lives in
# the temp schema, so creating it changes nothing in the library.
# An FTS5 table's instance vocabulary, and one term's occurrences in it as text, "chunk_id * 2
# + column" (0 text, 1 heading) each; for chunks_fts here, and for sqlite_postings' own table.
INSTANCES_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts}_instances
USING fts5vocab(main, {fts}, instance)
"""
TERM_INSTANCES = """
SELECT group_concat(doc * 2 + (col = 'heading'), ' ') FROM temp.{fts}_instances WHERE term = ?
"""
FTS_INSTANCES_TABLE = INSTANCES_TABLE.format(fts="chunks_fts")
FTS_TERM_INSTANCES = TERM_INSTANCES.format(fts="chunks_fts")
# Every term with the number of chunks holding it, in term order, a page at a time after ?1
# (FTS5 reads these from its index's doclists; nothing is sorted): the most common terms are
# preloaded while a library opens (bm25.py ``common_terms``).
FTS_TERMS_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_terms USING fts5vocab(main, chunks_fts, row)
"""
FTS_TERM_COUNTS = "SELECT term, doc FROM temp.chunks_fts_terms WHERE term > ?1 ORDER BY term LIMIT ?2"
COMMON_TERMS = None  # a server's preload (Postgres's statistics); here the warm-up reads FTS_TERM_COUNTS
FTS_COLUMNS = 2
# Tokens per column of every chunk (docsize's sz: one varint per column), and the
# averages record (row count, then total tokens per column): bm25()'s D, N and avgdl.
FTS_SIZES = "SELECT group_concat(id, ' '), group_concat(hex(sz), '') FROM chunks_fts_docsize"
FTS_AVERAGES = "SELECT block FROM chunks_fts_data WHERE id = 1"
FTS_SIZES_FROM = FTS_SIZES + " WHERE id >= ?"  # the chunks a write just added (ids past the others)
# The chunks a filter allows; {where} is built by ``filters.where`` from fixed fragments.
ALLOWED = "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE {where}"
COUNT_ALLOWED = "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE {where}"
