"""The passages around one passage: the chunks nearest to it in meaning (``similar``, the
Reader's "more like this") and the chunks beside it in its document (``neighbours``). Both go
through the ``Index`` (storage seam) and answer an empty library with reason ``no_documents``."""

from __future__ import annotations

from dataclasses import replace

from .. import reasons
from . import reads as search
from ..records import Filters
from ..store.index import Index


def similar(index: Index, chunk_id: int, k: int = 8) -> reasons.Hits:
    """Chunks nearest to a stored chunk, excluding the chunk itself; in an empty library,
    none, with reason ``no_documents``."""
    if index.is_empty():
        return reasons.Hits(reason=reasons.NO_DOCUMENTS)
    vec = index.vector(chunk_id)
    if vec is None or k < 1:  # k < 1 asks for nothing (and vec0 refuses a k below 1)
        return reasons.Hits()
    near = [(c, s) for c, s in search.vector_candidates(index.store, vec, k + 1, Filters(),
                                                                index.vector_matrix())
            if c != chunk_id][:k]
    bases = search.hits_for(index.store, [c for c, _ in near])
    return reasons.Hits(replace(bases[c], vector_rank=i, vector_sim=s, score=s)
                        for i, (c, s) in enumerate(near, start=1) if c in bases)


def neighbours(index: Index, chunk_id: int, before: int = 1, after: int = 1) -> reasons.Hits:
    """The chunk and up to ``before``/``after`` chunks on each side of it, in document order."""
    if index.is_empty():
        return reasons.Hits(reason=reasons.NO_DOCUMENTS)
    if not index.sql.is_rowid(chunk_id):
        return reasons.Hits()
    span = (min(max(0, n), index.sql.ROWID_MAX // 2) for n in (before, after))  # idx -/+ span stays bindable
    rows = index.store.query(index.sql.NEIGHBOUR_IDS, (chunk_id, *span))
    ids = [int(r[0]) for r in rows]
    bases = search.hits_for(index.store, ids)
    return reasons.Hits(bases[c] for c in ids if c in bases)
