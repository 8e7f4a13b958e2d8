"""Adding documents: decode, chunk, embed, then store in one transaction.

The slow part (embedding) happens before the transaction opens, so a dead embedder or a
closed tab leaves the database exactly as it was; the write itself replaces all of a
document's chunks, vectors and FTS rows at once or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .chunking import ChunkSettings, embedding_text
from .documents import (MAX_FILE_BYTES, MAX_TEXT_BYTES, TEXT_TYPES, NewDocument, decode,  # noqa: F401 - re-exported
                        doc_type_of, document_hash, prepare, prepare_document)
from .errors import Cancelled, EmbedderError, ReadingRoomError
from .index import Index
from .merge import text_hash
from .records import Chunk
from .seams import Embedder

# Texts per embedding request, across documents (the embedder buckets them by length).
EMBED_BATCH = 64


@dataclass(frozen=True)
class Outcome:
    name: str
    status: str  # added | replaced | unchanged | error
    doc_id: int | None = None
    chunks: int = 0
    error: dict | None = None
    notes: tuple[str, ...] = ()  # what was capped or left out, in words

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["notes"] = list(self.notes)
        return d


@dataclass
class _Pending:
    """A prepared document waiting for its vectors."""

    i: int  # its place in the call's list
    doc: NewDocument
    doc_type: str
    text: str
    digest: str
    replaces: bool
    chunks: list[Chunk]
    inputs: list[str]
    notes: tuple[str, ...] = ()
    vectors: list[np.ndarray] = field(default_factory=list)
    embedded: int = 0  # inputs whose vectors arrived
    requested: int = 0  # inputs sent to the embedder (>= embedded)

    @property
    def complete(self) -> bool:
        return self.embedded == len(self.inputs)


class _Run:
    """One add_documents call: outcomes settle in input order, and the unfinished record
    shrinks as they do (in a stored document's own transaction, or on its own otherwise)."""

    def __init__(self, index: Index, names: list[str], then: list[str],
                 progress: Callable[[dict], None]):
        self.index, self.names, self.then, self.progress = index, names, then, progress
        self.settled: dict[int, Outcome] = {}
        self.outcomes: list[Outcome] = []

    def rest_after(self, i: int) -> list[str]:
        """The names still to do once document ``i`` is settled."""
        return [n for k, n in enumerate(self.names[i + 1 :], start=i + 1)
                if k not in self.settled] + self.then

    def settle(self, i: int, outcome: Outcome) -> None:
        self.settled[i] = outcome
        while len(self.outcomes) in self.settled:
            k = len(self.outcomes)
            done = self.settled[k]
            self.outcomes.append(done)
            if done.status not in ("added", "replaced"):
                self.index.set_unfinished(self.rest_after(k))  # no transaction recorded it
            self.progress({"event": "document", "done": k + 1, "total": len(self.names),
                           "name": done.name, "status": done.status})

    def store(self, p: _Pending) -> None:
        try:
            doc_id = self.index.replace_document(
                name=p.doc.name, doc_type=p.doc_type, content_hash=p.digest,
                size=len(p.text.encode("utf-8")), meta=dict(p.doc.meta), chunks=p.chunks,
                vectors=np.concatenate(p.vectors), text_hashes=[text_hash(c.text) for c in p.chunks],
                unfinished=self.rest_after(p.i),
            )
        except ReadingRoomError as e:
            self.settle(p.i, Outcome(name=p.doc.name, status="error", error=e.to_dict()))
            return
        self.settle(p.i, Outcome(name=p.doc.name, status="replaced" if p.replaces else "added",
                                 doc_id=doc_id, chunks=len(p.chunks), notes=p.notes))


def _prepare_one(index: Index, doc: NewDocument, i: int, settings: ChunkSettings) -> _Pending | Outcome:
    index.require_compatible()
    extracted, text, chunks = prepare_document(doc, settings)
    doc_type, notes = extracted.doc_type, tuple(extracted.notes)
    digest = document_hash(text, doc.meta)
    existing = index.find(doc.name)
    if existing and existing[1] == digest:
        if existing[2] != doc.meta.get("source_type"):
            # The same text was there as part of the bundled set: added by the user, it is
            # theirs now, and a later bundle version must not take it away.
            index.set_source(existing[0], doc.meta.get("source_type"))
        return Outcome(name=doc.name, status="unchanged", doc_id=existing[0], chunks=len(chunks),
                       notes=notes)
    return _Pending(i, doc, doc_type, text, digest, existing is not None, chunks,
                    [embedding_text(c) for c in chunks], notes=notes)


def _take_batch(queue: Sequence[_Pending], size: int) -> list[tuple[_Pending, int, int]]:
    """The next ``size`` inputs not yet sent, across documents in order: (doc, from, to)."""
    batch, room = [], size
    for p in queue:
        if room == 0:
            break
        if p.requested < len(p.inputs):
            end = min(len(p.inputs), p.requested + room)
            batch.append((p, p.requested, end))
            room -= end - p.requested
            p.requested = end
    return batch


async def add_documents(index: Index, embedder: Embedder, docs: Sequence[NewDocument],
                        settings: ChunkSettings = ChunkSettings(),
                        progress: Callable[[dict], None] = lambda e: None,
                        cancelled: Callable[[], bool] = lambda: False,
                        then: Sequence[str] = ()) -> list[Outcome]:
    """Add or replace each document; one bad document never stops the others.

    Texts are embedded in batches of EMBED_BATCH across document boundaries (many small
    files make full batches, which the embedder buckets by length), while each document is
    still stored in its own transaction, in order, as soon as its last vector arrives. The
    next batch is sent before the finished documents are stored, so in the browser the
    embedding worker computes while Python chunks and writes. Ingestion asks for vectors
    with the embedder's ``embed_background`` when it has one, so queries go first.

    If the embedder fails mid-batch (it died and was restarted), the first document of that
    batch is reported as failed and the batch's other documents are embedded again.

    The names still to do are recorded in the index as the work goes (with each stored
    document, in its transaction), so if the process dies the next session can say which
    files did not finish. ``then`` names what the caller's larger run still has to do after
    these documents (the CLI adds one file at a time): the record keeps them, so a kill
    between two calls still names every file not yet done. A normal end, a cancel or an
    error leaves the record at ``then`` (empty: cleared)."""
    names = [d.name for d in docs]
    if not names:
        return []
    run = _Run(index, names, list(then), progress)
    embed = getattr(embedder, "embed_background", embedder.embed)
    index.set_unfinished(names + run.then)
    queue: list[_Pending] = []  # prepared, waiting for vectors, in input order
    upcoming = 0  # the next document to prepare
    inflight = None  # (batch, awaitable vectors)

    def fill() -> None:
        """Prepare documents until a batch's worth of inputs waits to be sent. A name given
        twice waits until its first copy is stored, so the second is seen as it would be
        one call later (unchanged, or a replacement)."""
        nonlocal upcoming
        while upcoming < len(docs) and sum(len(p.inputs) - p.requested for p in queue) < EMBED_BATCH:
            i, doc = upcoming, docs[upcoming]
            if any(p.doc.name == doc.name for p in queue):
                return
            upcoming += 1
            try:
                got = _prepare_one(index, doc, i, settings)
            except ReadingRoomError as e:
                got = Outcome(name=doc.name, status="error", error=e.to_dict())
            if isinstance(got, Outcome):
                run.settle(i, got)
            else:
                progress({"event": "prepared", "name": doc.name, "chunks": len(got.inputs)})
                queue.append(got)

    def send():
        batch = _take_batch(queue, EMBED_BATCH)
        if not batch:
            return None
        return batch, embed([t for p, a, b in batch for t in p.inputs[a:b]])

    try:
        while True:
            fill()
            if inflight is None:
                if queue and cancelled():
                    first = queue[0]
                    run.settle(first.i, Outcome(name=first.doc.name, status="error", error=Cancelled(
                        f"adding {first.doc.name} was cancelled; nothing of it was stored").to_dict()))
                    break
                inflight = send()
                if inflight is None:
                    break
            batch, pending = inflight
            inflight = None
            try:
                vectors = await pending
            except EmbedderError as e:
                for p, a, _b in batch:
                    p.requested = a  # sent again with the next batch
                first = batch[0][0]
                queue.remove(first)
                run.settle(first.i, Outcome(name=first.doc.name, status="error", error=e.to_dict()))
                continue
            at = 0
            for p, a, b in batch:
                p.vectors.append(vectors[at : at + b - a])
                p.embedded, at = b, at + b - a
                progress({"event": "chunks", "name": p.doc.name, "document": p.i + 1,
                          "documents": len(docs), "done": b, "total": len(p.inputs)})
            fill()
            if not cancelled():
                inflight = send()  # computed while the finished documents are written
            while queue and queue[0].complete:
                run.store(queue.pop(0))
    finally:
        if inflight is not None and hasattr(inflight[1], "close"):
            inflight[1].close()  # never awaited (an error escaped): say so rather than leak a warning
        try:
            index.set_unfinished(run.then)
        except ReadingRoomError:
            pass  # storage gone: the record stays and the next session reports it
    return run.outcomes
