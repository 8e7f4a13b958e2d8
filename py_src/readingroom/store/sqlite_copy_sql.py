"""SQLite statements that copy a whole library in: the bundled set, attached and copied with
its ids shifted past ours (``ingest/bundle.py``, ``library.py``), and a library exported from another
store with its ids kept (``store/export.py``). The tables are ``sqlite_sql.SCHEMA``'s."""

# -- the bundled set (bundle.py) ----------------------------------------------------------
# {schema} is the attached bundle; ?1 and ?2 shift its document and chunk ids past ours, and
# ?3 is the source_type that marks bundled documents.
BUNDLE_META = "SELECT key, value FROM {schema}.meta"
BUNDLED_DOC_IDS = "SELECT id FROM documents WHERE source_type = ?"
BUNDLE_NAME_CLASHES = """
SELECT b.name FROM {schema}.documents b JOIN main.documents d ON d.name = b.name ORDER BY b.name
"""
MAX_IDS = """
SELECT (SELECT coalesce(max(id), 0) FROM main.documents), (SELECT coalesce(max(id), 0) FROM main.chunks)
"""
BUNDLE_COPY_DOCUMENTS = """
INSERT INTO main.documents(id, name, doc_type, content_hash, size, added_at, source_type, date, meta)
SELECT b.id + ?1, b.name, b.doc_type, b.content_hash, b.size, b.added_at, ?3, b.date, b.meta
FROM {schema}.documents b
WHERE b.name NOT IN (SELECT name FROM main.documents)
"""
BUNDLE_COPY_TAGS = """
INSERT INTO main.doc_tags(doc_id, tag)
SELECT t.doc_id + ?1, t.tag FROM {schema}.doc_tags t
WHERE t.doc_id + ?1 IN (SELECT id FROM main.documents WHERE source_type = ?3 AND id > ?1)
"""
BUNDLE_COPY_CHUNKS = """
INSERT INTO main.chunks(id, doc_id, idx, page, start_char, end_char, heading_path, heading,
                        token_count, text, text_hash)
SELECT c.id + ?2, c.doc_id + ?1, c.idx, c.page, c.start_char, c.end_char, c.heading_path,
       c.heading, c.token_count, c.text, c.text_hash
FROM {schema}.chunks c
WHERE c.doc_id + ?1 IN (SELECT id FROM main.documents WHERE source_type = ?3 AND id > ?1)
"""
BUNDLE_COPY_VECTORS = """
INSERT INTO main.chunks_vec(rowid, embedding)
SELECT v.rowid + ?2, v.embedding FROM {schema}.chunks_vec v
WHERE v.rowid + ?2 IN (SELECT c.id FROM main.chunks c JOIN main.documents d ON d.id = c.doc_id
                       WHERE d.source_type = ?3 AND d.id > ?1)
"""
# A bundle's chunk without a vector (one written before its vectors were) stays pending here.
BUNDLE_MARK_PENDING = """
UPDATE main.chunks SET embedded = 0
WHERE id > ?2 AND doc_id IN (SELECT id FROM main.documents WHERE source_type = ?3 AND id > ?1)
  AND id NOT IN (SELECT rowid FROM main.chunks_vec WHERE rowid > ?2)
"""
BUNDLED_COUNTS = """
SELECT count(*), (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id
                  WHERE d.source_type = ?1)
FROM documents WHERE source_type = ?1
"""
ATTACH = "ATTACH DATABASE ? AS {schema}"
# A library copied in from another store (``readingroom export`` from Postgres), ids kept.
COPY_DOC = """
INSERT INTO documents(id, name, doc_type, content_hash, size, added_at, source_type, date, meta)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
COPY_CHUNK = """
INSERT INTO chunks(id, doc_id, idx, page, start_char, end_char, heading_path, heading,
                   token_count, text, text_hash, embedded)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
DETACH = "DETACH DATABASE {schema}"
