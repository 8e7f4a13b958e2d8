"""Re-embedding a whole library with this app's model, after the model changed.

The chunks stay as they are (they are exact slices of the source, already stored), only
their vectors are made again. Everything is embedded before anything is written, then the
vector table is rebuilt and the provenance updated in one transaction: a closed tab or a
dead embedder midway leaves the old index, still searchable by words, exactly as it was.

A different *chunker* cannot be fixed this way (the source text is not stored), so an
index chunked by another version says so, and the files must be added again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import reasons
from .chunking import embedding_text
from ..errors import BadInput, Cancelled
from ..store.index import Index
from ..records import Chunk
from ..seams import Embedder

BATCH = 32


@dataclass(frozen=True)
class Reindexed:
    """What re-embedding a library did."""

    documents: int
    chunks: int
    reason: str | None = None  # no_documents: nothing to re-embed (the provenance is updated)

    def to_dict(self) -> dict:
        return {**self.__dict__, "message": reasons.message(self.reason)}


async def reindex(index: Index, embedder: Embedder,
                  progress: Callable[[dict], None] = lambda e: None,
                  cancelled: Callable[[], bool] = lambda: False) -> Reindexed:
    index.adopt_if_empty()  # nothing to re-chunk or re-embed: whoever made it, it is this app's now
    stored = index.stored_provenance
    want = index.provenance
    if stored.get("schema_version") != str(want.schema_version):
        raise BadInput(f"this index has schema version {stored.get('schema_version')!r} and this app "
                       f"reads version {want.schema_version}; make the index again with this version")
    if stored.get("chunker_version") != want.chunker_version:
        raise BadInput(f"this index was chunked by chunker version {stored.get('chunker_version')!r} "
                       f"and this app uses {want.chunker_version!r}; delete its documents and add the files "
                       "again to re-chunk them")
    rows = index.store.query(index.sql.REINDEX_CHUNKS)
    by_doc: dict[str, list[tuple[int, Chunk]]] = {}
    for cid, name, idx, text, heading_path in rows:
        chunk = Chunk(doc_index=int(idx), text=text, start=0, end=len(text),
                      heading_path=tuple(json.loads(heading_path)))
        by_doc.setdefault(name, []).append((int(cid), chunk))
    ids: list[int] = []
    vectors: list[np.ndarray] = []
    for d, (name, chunks) in enumerate(by_doc.items(), start=1):
        inputs = [embedding_text(c) for _, c in chunks]
        for b in range(0, len(inputs), BATCH):
            if cancelled():
                raise Cancelled("re-indexing was cancelled; the library is as it was")
            vectors.append(await embedder.embed(inputs[b : b + BATCH]))
            progress({"event": "chunks", "name": name, "document": d, "documents": len(by_doc),
                      "done": min(b + BATCH, len(inputs)), "total": len(inputs)})
        ids += [cid for cid, _ in chunks]
        progress({"event": "document", "done": d, "total": len(by_doc), "name": name, "status": "reindexed"})
    flat = np.concatenate(vectors) if vectors else np.zeros((0, embedder.dim), np.float32)
    index.replace_vectors(ids, flat)
    return Reindexed(documents=len(by_doc), chunks=len(ids),
                     reason=None if ids else reasons.NO_DOCUMENTS)
