"""Bench corpora: a native-built index repeated to any size, with precomputed vectors.

Embedding 100,000 chunks on this machine would take hours, and latency does not depend on
which vectors are stored, only on how many. So a large index is made from the SciFact
chunks and vectors, copied with distinct document names and slightly jittered vectors
(no two identical, so KNN has real work to do).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._compat import open_store
from ..store.index import Index, Provenance
from ..model_files import DIM, MODEL_ID
from ..store import sqlite_sql as sql


def read_chunks(index_path: Path) -> list[dict]:
    """Every stored chunk with its document and vector, in document order."""
    store = open_store(index_path)
    rows = store.query(
        "SELECT d.name, d.doc_type, c.idx, c.page, c.start_char, c.end_char, c.heading_path, "
        "c.token_count, c.text, c.text_hash, v.embedding FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id JOIN chunks_vec v ON v.rowid = c.id ORDER BY d.id, c.idx")
    store.close()
    keys = ("doc", "doc_type", "idx", "page", "start", "end", "heading_path", "tokens", "text",
            "text_hash", "vector")
    return [dict(zip(keys, r)) for r in rows]


VECTOR_KINDS = ("jitter", "mixed")
MIX = (0.15, 0.45)  # "mixed": the share of another chunk's vector in a copy's


def copy_vectors(base: np.ndarray, copy: int, rng: np.random.Generator, kind: str = "jitter") -> np.ndarray:
    """The vectors of copy ``copy`` of a corpus whose vectors are ``base`` (copy 0: ``base``).

    ``jitter``: each vector plus Gaussian noise (sd 0.01 a component), renormalised: a copy is
    at cosine ~0.98 from its original, so at 1M every chunk has ~70 near-twins and a query's
    exact top 10 are near-ties (what makes a filtered or capped search work hard).
    ``mixed``: each vector blended with a random other chunk's (a share drawn from ``MIX``)
    plus the same noise, renormalised: every vector is distinct, at cosine 0.80-0.97 from its
    original on SciFact (median 0.91; a real chunk's nearest other chunk: 0.76), and the corpus
    keeps the real vectors' directions and spread: the geometry an approximate index (HNSW) is
    measured on, as a million distinct passages would give it.
    """
    if kind not in VECTOR_KINDS:
        raise ValueError(f"vector kind {kind!r}: one of {', '.join(VECTOR_KINDS)}")
    if not copy:
        return base
    vecs = base + rng.normal(0, 0.01, base.shape).astype(np.float32)
    if kind == "mixed":
        share = rng.uniform(*MIX, (len(base), 1)).astype(np.float32)
        vecs = (1 - share) * vecs + share * base[rng.permutation(len(base))]
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def scaled_index(source: Path, n_chunks: int, out: Path, seed: int = 7) -> Path:
    """An index of exactly ``n_chunks`` chunks built from ``source`` (cached by name).

    Copy c of the corpus renames its documents ``name#c`` and shifts their ids; its
    vectors are the source's plus Gaussian noise (sd 0.01 a component), renormalised. The
    rows are copied in SQL, one transaction per copy (the FTS5 triggers index them as
    usual), so a million chunks take minutes rather than hours."""
    if out.exists():
        return with_kept_postings(out)
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.building")  # concurrent runs never share it
    if tmp.exists():
        tmp.unlink()
    index = Index(open_store(tmp), Provenance(MODEL_ID, DIM))
    store = index.store
    store.execute_script("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF")
    store.query("ATTACH DATABASE ? AS src", (str(source),))
    docs, chunks = (int(x) for x in store.query(
        "SELECT (SELECT max(id) FROM src.documents), (SELECT max(id) FROM src.chunks)")[0])
    rows = store.query("SELECT rowid, embedding FROM src.chunks_vec ORDER BY rowid")
    ids = np.array([r for r, _ in rows], dtype=np.int64)
    base = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float32).reshape(len(rows), DIM)
    rng = np.random.default_rng(seed)
    written, copy = 0, 0
    while written < n_chunks:
        take = n_chunks - written
        with index.transaction():
            store.query(_COPY_DOCUMENTS, (copy * docs, copy))
            store.query(_COPY_CHUNKS, (copy * chunks, copy * docs, take))
            store.query(_DROP_EMPTY_DOCUMENTS, (copy * docs,))
            vecs = copy_vectors(base, copy, rng)[:take]
            for cid, vec in zip(ids[:take] + copy * chunks, vecs):
                store.query(sql.INSERT_VECTOR, (int(cid), vec.tobytes()))
        written += min(take, len(ids))
        copy += 1
    store.query("DETACH DATABASE src")
    index.keep_postings()
    store.close()
    tmp.rename(out)
    return out


def with_kept_postings(path: Path) -> Path:
    """``path``, a large index built here, with its common words' postings kept (as
    ``readingroom index`` keeps them: store/sqlite_postings.py); one made before they were
    gets them now."""
    index = Index(open_store(path), Provenance(MODEL_ID, DIM))
    try:
        index.keep_postings()
    finally:
        index.store.close()
    return path


# ?1: id shift of this copy's documents, ?2: the copy's number (0 keeps the names).
_COPY_DOCUMENTS = """
INSERT INTO documents(id, name, doc_type, content_hash, size, added_at, source_type, date, meta)
SELECT id + ?1, CASE WHEN ?2 THEN name || '#' || ?2 ELSE name END, doc_type,
       content_hash || '#' || ?2, size, added_at, source_type, date, meta
FROM src.documents ORDER BY id
"""
# ?1: chunk id shift, ?2: document id shift, ?3: how many chunks this copy still needs.
_COPY_CHUNKS = """
INSERT INTO chunks(id, doc_id, idx, page, start_char, end_char, heading_path, heading,
                   token_count, text, text_hash)
SELECT id + ?1, doc_id + ?2, idx, page, start_char, end_char, heading_path, heading,
       token_count, text, text_hash
FROM src.chunks ORDER BY id LIMIT ?3
"""
# The last copy may stop inside the corpus: its documents without chunks go.
_DROP_EMPTY_DOCUMENTS = """
DELETE FROM documents WHERE id > ?1 AND id NOT IN (SELECT doc_id FROM chunks WHERE doc_id > ?1)
"""
