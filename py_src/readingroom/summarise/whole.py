"""A document's whole text as ``[n]`` passages, for a server model whose context holds it all
(the "fit" side of fit-or-map-reduce, ``run._model_messages``): its chunks in order, joined
without their overlaps into runs of about ``size`` tokens, each a ``Span`` like a retrieved one,
so the page opens it in the Reader and the citation check reads it."""

from __future__ import annotations

from typing import Sequence

from ..search.merge import _span
from ..records import Span
from ..search.reads import hits_for


def passages(index, doc_ids: Sequence[int], size: int) -> list[Span]:
    out: list[Span] = []
    for doc_id in doc_ids:
        ids = [r[0] for r in index.store.query(index.sql.DOC_CHUNK_IDS, (doc_id,))]
        hits = hits_for(index.store, ids)
        run, count = [], 0
        for h in (hits[i] for i in ids if i in hits):
            if run and count + h.token_count > size:
                out.append(_span(run))
                run, count = [], 0
            run.append(h)
            count += h.token_count
        if run:
            out.append(_span(run))
    return out
