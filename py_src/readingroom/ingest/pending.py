"""Words first, meaning after: the pure decisions about chunks whose vectors are still to come.

A document is stored by its words as soon as it is chunked (``add.py``); its vectors
follow, a batch at a time, each batch in its own transaction. Until then a hybrid search
has fewer chunks in its vector leg, and says so: these functions say how much of which
document the meaning search covers, in a sentence a person can act on, and turn stored
rows back into the model's input. Nothing here touches storage or the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Sequence

from .chunking import embedding_text
from ..records import Chunk

NAMED = 3  # documents named in the sentence; the rest are counted


@dataclass(frozen=True)
class Coverage:
    """How much of one document its vectors cover."""

    doc_id: int
    name: str
    chunks: int
    embedded: int

    @property
    def pending(self) -> int:
        return self.chunks - self.embedded

    @property
    def percent(self) -> int:
        """The covered share in whole percent, never rounded up to 100 nor down to 0 while
        that would hide what is left or what is done."""
        if self.chunks <= 0 or self.embedded >= self.chunks:
            return 100
        share = int(100 * self.embedded / self.chunks)
        return max(1 if self.embedded else 0, min(99, share))

    def to_dict(self) -> dict:
        return {"doc_id": self.doc_id, "name": self.name, "chunks": self.chunks,
                "embedded": self.embedded, "percent": self.percent}


def coverage(rows: Iterable[tuple[int, str, int, int]]) -> list[Coverage]:
    """(doc id, name, chunks, embedded) rows as ``Coverage``, the documents still pending only."""
    out = [Coverage(int(i), str(n), int(c), int(e)) for i, n, c, e in rows]
    return [c for c in out if c.pending > 0]


def _short(name: str) -> str:
    """A document's name as a person knows it: the file's name, not its whole path."""
    return name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or name


def message(docs: Sequence[Coverage]) -> str | None:
    """The sentence for a search (and the status) while some documents are not fully
    embedded; None when everything is."""
    docs = [d for d in docs if d.pending > 0]
    if not docs:
        return None
    parts = [f"{d.percent} % of {_short(d.name)}" for d in docs[:NAMED]]
    if len(docs) > NAMED:
        parts.append(f"part of {len(docs) - NAMED} more document{'s' if len(docs) - NAMED > 1 else ''}")
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"Meaning search covers {listed} so far; the rest is found by its words until its "
            "passages are embedded, which goes on while documents are added and after a reload.")


def describe(docs: Sequence[Coverage]) -> dict | None:
    """What a result's ``stats.meaning`` and ``status().pending`` carry; None when nothing
    is pending."""
    docs = [d for d in docs if d.pending > 0]
    if not docs:
        return None
    return {"pending_chunks": sum(d.pending for d in docs), "documents": [d.to_dict() for d in docs],
            "message": message(docs)}


def outcome_note(doc: Coverage) -> str:
    """The note on an added document whose vectors did not all arrive in its own add."""
    return (f"{_short(doc.name)} is searchable by its words; meaning search covers {doc.percent} % of it "
            f"so far ({doc.pending} passage{'s' if doc.pending != 1 else ''} still to embed, which "
            "continues on the next add or reload).")


@dataclass(frozen=True)
class Batch:
    """Pending chunks as the model's input: ids, texts, and per document how many."""

    ids: tuple[int, ...]
    texts: tuple[str, ...]
    per_doc: tuple[tuple[int, str, int], ...]  # (doc id, name, chunks in this batch), in order

    @property
    def last(self) -> int:
        return self.ids[-1]


def batch(rows: Sequence[tuple]) -> Batch:
    """Rows of ``PENDING_CHUNKS`` (id, doc id, name, idx, text, heading_path JSON) as the
    embedder's input: the same text ``ingest`` and ``reindex`` embed for that chunk."""
    ids, texts, per_doc = [], [], []
    for cid, doc_id, name, idx, text, heading_path in rows:
        chunk = Chunk(doc_index=int(idx), text=text, start=0, end=len(text),
                      heading_path=tuple(json.loads(heading_path)))
        ids.append(int(cid))
        texts.append(embedding_text(chunk))
        if per_doc and per_doc[-1][0] == int(doc_id):
            per_doc[-1][2] += 1
        else:
            per_doc.append([int(doc_id), name, 1])
    return Batch(tuple(ids), tuple(texts), tuple((d, n, k) for d, n, k in per_doc))
