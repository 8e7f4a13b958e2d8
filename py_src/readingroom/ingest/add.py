"""Adding documents: words first, meaning after.

A document is decoded, chunked and stored by its words at once (one transaction: the
document, its chunks, their FTS rows, chunks marked pending), so it is searchable by words
within moments of being added. Its vectors follow (``embed_pending``): a batch of pending
chunks at a time, across documents, each batch written in its own transaction that sets
the chunks' ``embedded`` flag with their vectors. A kill, a closed tab or a dead embedder at
any moment leaves every chunk either with its vector or marked pending, never a vector
without its chunk nor a chunk embedded twice; the next pass (the next add, a reload of the
page) picks up what is pending.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from . import pending
from .chunking import ChunkSettings, embedding_text  # noqa: F401 - re-exported
from .documents import (MAX_FILE_BYTES, MAX_TEXT_BYTES, TEXT_TYPES, NewDocument, doc_type_of,
    document_hash, prepare, prepare_document)
from ..errors import Cancelled, EmbedderError, ReadingRoomError
from ..summarise import stored as summaries
from ..store.index import Index
from ..search.merge import text_hash
from ..records import Chunk
from ..seams import Embedder

# Texts per embedding request, across documents (the embedder buckets them by length).
EMBED_BATCH = 64


@dataclass(frozen=True)
class Outcome:
    """What adding one file did: added, replaced, unchanged or an error, with its chunk counts."""

    name: str
    status: str  # added | replaced | unchanged | error
    doc_id: int | None = None
    chunks: int = 0
    error: dict | None = None
    notes: tuple[str, ...] = ()  # what was capped or left out, in words
    pending: int = 0  # passages stored by their words whose vectors are still to come

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["notes"] = list(self.notes)
        return d


@dataclass
class _Pending:
    """A prepared document, about to be stored by its words."""

    i: int  # its place in the call's list
    doc: NewDocument
    doc_type: str
    text: str
    digest: str
    replaces: bool
    chunks: list[Chunk]
    notes: tuple[str, ...] = ()


@dataclass
class Pass:
    """One pass of ``embed_pending``: chunks embedded, chunks whose batch failed (they stay
    pending), the last embedder error, and whether it stopped for a cancel."""

    embedded: int = 0
    failed: int = 0
    error: dict | None = None
    cancelled: bool = False

    def to_dict(self) -> dict:
        return dict(self.__dict__)


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
                           "name": done.name, "status": done.status, "doc_id": done.doc_id})

    def store(self, p: _Pending) -> None:
        """The document by its words, in one transaction; its vectors come later."""
        try:
            doc_id = self.index.replace_document(
                name=p.doc.name, doc_type=p.doc_type, content_hash=p.digest,
                size=len(p.text.encode("utf-8")), meta=dict(p.doc.meta), chunks=p.chunks,
                vectors=None, text_hashes=[text_hash(c.text) for c in p.chunks],
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
    return _Pending(i, doc, doc_type, text, digest, existing is not None, chunks, notes=notes)


def add_words(index: Index, docs: Sequence[NewDocument], settings: ChunkSettings = ChunkSettings(),
              progress: Callable[[dict], None] = lambda e: None,
              cancelled: Callable[[], bool] = lambda: False,
              then: Sequence[str] = ()) -> list[Outcome]:
    """Store each document by its words (added, replaced, unchanged or error, in input
    order); one bad document never stops the others. A name given twice is seen the second
    time as it would be one call later (unchanged, or a replacement).

    The names still to do are recorded in the index as the work goes (with each stored
    document, in its transaction), so if the process dies the next session can say which
    files did not finish. ``then`` names what the caller's larger run still has to do after
    these documents (the CLI adds one file at a time): the record keeps them. A normal end,
    a cancel or an error leaves the record at ``then`` (empty: cleared)."""
    names = [d.name for d in docs]
    if not names:
        return []
    run = _Run(index, names, list(then), progress)
    index.set_unfinished(names + run.then)
    try:
        for i, doc in enumerate(docs):
            if cancelled():
                run.settle(i, Outcome(name=doc.name, status="error", error=Cancelled(
                    f"adding {doc.name} was cancelled; nothing of it was stored").to_dict()))
                continue
            try:
                got = _prepare_one(index, doc, i, settings)
            except ReadingRoomError as e:
                got = Outcome(name=doc.name, status="error", error=e.to_dict())
            if isinstance(got, Outcome):
                run.settle(i, got)
                continue
            progress({"event": "prepared", "name": doc.name, "chunks": len(got.chunks)})
            run.store(got)
    finally:
        try:
            index.set_unfinished(run.then)
        except ReadingRoomError:
            pass  # storage gone: the record stays and the next session reports it
    return run.outcomes


async def embed_pending(index: Index, embedder: Embedder,
                        progress: Callable[[dict], None] = lambda e: None,
                        cancelled: Callable[[], bool] = lambda: False,
                        size: int | None = None, max_batches: int | None = None) -> Pass:
    """Embed every pending chunk, ``size`` at a time in id order (across documents), each
    batch written in its own transaction. The next batch is sent before this one is written,
    so in the browser the embedding worker computes while Python writes. Ingestion asks with
    the embedder's ``embed_background`` when it has one, so queries go first.

    A batch the embedder fails (it died and was restarted) stays pending and the pass goes
    on; two failures in a row end it. ``cancelled`` ends it before its next batch, and so does
    ``max_batches`` sent (the page resumes a batch per call, so other work gets its turn). What
    is left is picked up by the next pass. A library made by another model embeds nothing
    (re-indexing does it all)."""
    result = Pass()
    size = size or EMBED_BATCH
    if index.mismatch or not index.has_pending():
        return result
    embed = getattr(embedder, "embed_background", embedder.embed)
    docs = {c.doc_id: c for c in pending.coverage(index.pending_documents())}
    done = {d: c.embedded for d, c in docs.items()}

    sent = 0

    def send(after: int):
        nonlocal sent
        if max_batches is not None and sent >= max_batches:
            return None
        rows = index.pending_chunks(after, size)
        if not rows:
            return None
        sent += 1
        b = pending.batch(rows)
        return b, embed(list(b.texts))

    inflight = None if cancelled() else send(index.sql.ROWID_MIN)
    failures = 0
    try:
        while inflight is not None:
            b, vectors = inflight
            inflight = None
            try:
                vecs = await vectors
            except EmbedderError as e:
                result.failed += len(b.ids)
                result.error = e.to_dict()
                failures += 1
                if failures < 2 and not cancelled():
                    inflight = send(b.last)
                continue
            failures = 0
            if not cancelled():
                inflight = send(b.last)  # computed while this batch is written
            try:
                result.embedded += index.store_vectors(b.ids, vecs)
            except ReadingRoomError as e:  # full storage, say: the batch stays pending, the pass ends
                result.error = e.to_dict()
                break
            for doc_id, name, k in b.per_doc:
                if doc_id not in docs:  # stored after this pass began (the page adds while it runs)
                    docs.update({c.doc_id: c for c in pending.coverage(index.pending_documents())
                                 if c.doc_id not in docs})
                    done[doc_id] = docs[doc_id].embedded if doc_id in docs else 0
                done[doc_id] += k
                total = docs[doc_id].chunks if doc_id in docs else done[doc_id]
                if done[doc_id] >= total and index.sql.SET_SUMMARY:
                    try:  # its last vectors landed: its summary is made and kept now
                        summaries.load(index, doc_id)
                    except ReadingRoomError:
                        pass  # derived data: made on demand instead
                progress({"event": "chunks", "name": name, "document": list(docs).index(doc_id) + 1
                          if doc_id in docs else len(docs) + 1, "documents": max(len(docs), 1),
                          "done": min(done[doc_id], total), "total": total})
        result.cancelled = cancelled() and index.has_pending()
    finally:
        if inflight is not None and hasattr(inflight[1], "close"):
            inflight[1].close()  # never awaited (an error escaped): say so rather than leak a warning
    return result


def with_pending(index: Index, outcomes: list[Outcome], passed: Pass | None = None) -> list[Outcome]:
    """Outcomes of stored documents whose vectors are not all there yet carry how many are
    pending and a note saying what that means (and why, when the pass ended on an error)."""
    if not index.has_pending():
        return outcomes
    left = {c.doc_id: c for c in pending.coverage(index.pending_documents())}
    why = (f" They could not be embedded now: {passed.error['message']}"
           if passed is not None and passed.error else "")
    return [replace(o, pending=left[o.doc_id].pending,
                    notes=o.notes + (pending.outcome_note(left[o.doc_id]) + why,))
            if o.status in ("added", "replaced", "unchanged") and o.doc_id in left else o
            for o in outcomes]


async def add_documents(index: Index, embedder: Embedder, docs: Sequence[NewDocument],
                        settings: ChunkSettings = ChunkSettings(),
                        progress: Callable[[dict], None] = lambda e: None,
                        cancelled: Callable[[], bool] = lambda: False,
                        then: Sequence[str] = ()) -> list[Outcome]:
    """``add_words``, then ``embed_pending`` (which also finishes what earlier adds left)."""
    outcomes = add_words(index, docs, settings, progress, cancelled, then)
    passed = await embed_pending(index, embedder, progress, cancelled)
    return with_pending(index, outcomes, passed)
