"""Each document's extractive summary, kept beside the index as derived data.

``keep`` runs inside the transaction that stores a document (``Index.replace_document``), from
the chunks and vectors it is writing, so the summary of a 300-page PDF opens at once and is
rebuilt whenever the document is added again. ``load`` reads it back; a summary that is
missing (a library from before summaries, the bundled set merged in, a re-index, Postgres,
which keeps none) or of another summariser version is computed from the stored chunks and
vectors on demand, and kept where the store keeps summaries.
"""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from ..errors import StorageError
from ..records import Chunk
from .extractive import VERSION, Extract, Part, Point, summarise


def to_json(ex: Extract) -> str:
    return json.dumps({"points": [p.to_dict() for p in ex.points], "sentences": ex.sentences,
                       "sections": ex.sections, "tokens": ex.tokens, "note": ex.note},
                      ensure_ascii=False, separators=(",", ":"))


def from_json(data: str) -> Extract:
    d = json.loads(data)
    return Extract([Point.from_dict(p) for p in d["points"]], d["sentences"], d["sections"],
                   d["tokens"], d.get("note"))


def keep(index, doc_id: int, chunks: Sequence[Chunk], ids: Sequence[int], vectors: np.ndarray,
         doc_type: str = "") -> None:
    """Compute and write a document's summary (inside the caller's transaction)."""
    if not index.sql.SET_SUMMARY:
        return
    parts = [Part(cid, c.doc_index, c.text, c.start, tuple(c.heading_path), c.page, c.token_count)
             for c, cid in zip(chunks, ids)]
    index.store.query(index.sql.SET_SUMMARY, (doc_id, VERSION, to_json(summarise(parts, vectors, doc_type=doc_type))))


def _compute(index, doc_id: int) -> tuple[Extract | None, bool]:
    """From the stored chunks and vectors; None when the document has no chunks (or is gone).
    And whether it is final: made with every chunk's vector (or from words in a library of
    another model), not from words while some vectors are still pending."""
    from ..search.reads import hits_for

    ids = [r[0] for r in index.store.query(index.sql.DOC_CHUNK_IDS, (doc_id,))]
    if not ids:
        return None, False
    hits = hits_for(index.store, ids)
    parts = [Part(h.chunk_id, h.chunk_index, h.text, h.start, tuple(h.heading_path), h.page, h.token_count)
             for h in (hits[i] for i in ids if i in hits)]
    vectors = None
    if not index.mismatch:
        rows = index.store.query(index.sql.VECTORS_FOR, (json.dumps(ids),))
        if len(rows) == len(parts):
            vectors = np.stack([index.sql.vector_value(v) for _, v in rows])
    doc_type = next((h.doc_type for h in hits.values()), "")
    return summarise(parts, vectors, doc_type=doc_type), vectors is not None or bool(index.mismatch)


def load(index, doc_id: int) -> Extract | None:
    """The document's summary: stored, or computed now (and kept when the store keeps them)."""
    if index.sql.GET_SUMMARY:
        rows = index.store.query(index.sql.GET_SUMMARY, (doc_id,))
        if rows and rows[0][0] == VERSION:
            return from_json(rows[0][1])
    ex, final = _compute(index, doc_id)
    if ex is not None and final and index.sql.SET_SUMMARY:
        try:  # one statement, committed alone: not ``index.transaction()``, whose count of
            # writes would make the in-memory search legs reload for data they do not hold
            index.store.query(index.sql.SET_SUMMARY, (doc_id, VERSION, to_json(ex)))
        except StorageError:
            pass  # read-only or busy: computed again next time
    return ex


def titles(index) -> dict[int, str]:
    """Each document's first heading (its title where it has one), for naming documents."""
    out = {}
    for doc_id, path in index.store.query(index.sql.DOC_TITLES):
        heads = json.loads(path) if isinstance(path, str) else (path or [])
        if heads:
            out[int(doc_id)] = str(heads[0])
    return out
