"""``Library``: the public face of one index, the same natively and in the browser."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Callable, Sequence

from .ingest import bundle as _bundle
from . import model_files, reasons
from .search import related as _related, retrieve as _retrieve
from .answer.ask import Answer, ask as _ask, check_answer as _check_answer
from .ingest.bundle import Merged
from ._compat import make_embedder, open_store
from .ingest.chunking import ChunkSettings
from .errors import ReadingRoomError
from .store import sqlite_copy_sql as copy_sql
from .store.index import Index, Provenance, StoredDocument
from .ingest import pending as _pending
from .ingest.add import NewDocument, Outcome, Pass, add_words, embed_pending as _embed_pending, with_pending
from .search.options import Options
from .search.query_cache import CachedQueries, QueryVectors
from .ingest.reindex import Reindexed, reindex as _reindex
from .search.retrieve import RetrievalResult
from .seams import Embedder, Store
from .store import open_location
from .summarise import run as _summarise


ANALYZE_AFTER = 5_000  # chunks added before Postgres's statistics are refreshed
WARM_SLICE_S = 0.05  # warm-up work between two pauses (see ``Library.warm_in_background``)
WARM_PAUSE_S = 0.004  # > 2 ms: Pyodide's webloop then uses setTimeout


class Library:
    def __init__(self, index: Index, embedder: Embedder | None,
                 chunking: ChunkSettings = ChunkSettings()):
        self.index = index
        self.embedder = embedder
        self.chunking = chunking
        self.merging = False  # a bundled set is being read in (the browser's worker says so)
        self.defaults: dict = {}  # retrieval options a workspace sets (workspace.py); a call's win
        self._added_since_analyze = 0
        self._embedding = False  # a pass of ``embed_pending`` is under way
        self.queries = QueryVectors()  # query vectors asked for lately or typed ahead

    def _options(self, options: Options | dict | None) -> Options | dict | None:
        if isinstance(options, Options) or not self.defaults:
            return options
        return {**self.defaults, **(options or {})}

    @classmethod
    def open(cls, path: str | os.PathLike = ":memory:", *, model_dir: str | None = None,
             embedder: Embedder | None = None, store: Store | None = None,
             storage_kind: str | None = None) -> "Library":
        """Open (or create) an index. Natively ``path`` is a file or a Postgres URL
        (``postgresql://…``, a shared library); in the browser the worker's database is used
        and ``storage_kind`` says where it lives."""
        if embedder is None:
            embedder = make_embedder(model_dir, model_id=model_files.MODEL_ID,
                                     dim=model_files.DIM, max_tokens=model_files.MAX_TOKENS)
        if store is None:
            store = open_location(path) if storage_kind is None else open_store(kind=storage_kind)
        index = Index(store, Provenance(model_id=embedder.model_id, dim=embedder.dim))
        return cls(index, embedder)

    async def add(self, docs: Sequence[NewDocument],
                  progress: Callable[[dict], None] = lambda e: None,
                  cancelled: Callable[[], bool] = lambda: False,
                  then: Sequence[str] = ()) -> list[Outcome]:
        """Add or replace documents, each in its own transaction. ``then``: names a larger
        run will add after these, kept in the record of unfinished work (see ingest.py)."""
        if self.embedder is None:
            from .errors import EmbedderError

            raise EmbedderError("no embedder: documents cannot be added")
        outcomes = add_words(self.index, docs, self.chunking, progress, cancelled, then)
        passed = await self.embed_pending(progress, cancelled)
        outcomes = with_pending(self.index, outcomes, passed)
        self._after_bulk(sum(o.chunks for o in outcomes if o.status in ("added", "replaced")))
        return outcomes

    async def embed_pending(self, progress: Callable[[dict], None] = lambda e: None,
                            cancelled: Callable[[], bool] = lambda: False,
                            max_batches: int | None = None) -> Pass:
        """Embed the chunks stored by their words only (this session's adds, or what an
        earlier one left when it was killed); the page's worker runs it after a reload. One
        pass at a time: a second waits for the first, then embeds what is left (nothing, or
        what was added meanwhile)."""
        if self.embedder is None:
            return Pass()
        while self._embedding:
            await asyncio.sleep(0.05)
        self._embedding = True
        try:
            return await _embed_pending(self.index, self.embedder, progress, cancelled,
                                        max_batches=max_batches)
        finally:
            self._embedding = False

    def _after_bulk(self, chunks: int) -> None:
        """Postgres plans its searches from table statistics: refreshed (ANALYZE) once
        ``ANALYZE_AFTER`` chunks were added through this library since the last time."""
        if self.index.sql.ANALYZE is None:
            return
        self._added_since_analyze += chunks
        if self._added_since_analyze >= ANALYZE_AFTER:
            self.index.store.query(self.index.sql.ANALYZE)
            self._added_since_analyze = 0
        self._embedding = False  # a pass of ``embed_pending`` is under way
        self.queries = QueryVectors()  # query vectors asked for lately or typed ahead

    async def retrieve(self, query: str, options: Options | dict | None = None,
                       cancelled: Callable[[], bool] = lambda: False) -> RetrievalResult:
        options = self._options(options)
        opts = options if isinstance(options, Options) else Options.from_dict(options)
        return await _retrieve.retrieve(self.index, self._query_embedder(), query, opts, cancelled)

    def _query_embedder(self) -> Embedder | None:
        """The embedder, with query vectors answered through this library's cache."""
        return None if self.embedder is None else CachedQueries(self.embedder, self.queries)

    async def type_ahead(self, text: str) -> str:
        """Embeds a query while it is still being typed (see query_cache.py): the search asked
        with that text then finds its vector ready, or waits for this same embedding."""
        if self.embedder is None or self.index.mismatch:
            return "none"
        return await self.queries.type_ahead(self.embedder, text)

    async def ask(self, question: str, history: Sequence = (), options: Options | dict | None = None,
                  cancelled: Callable[[], bool] = lambda: False) -> Answer:
        """A question (after ``history``: earlier questions or turn dicts, oldest first) answered
        from the documents: the quick answer, the sources and what a model would be sent. One
        that asks for a summary, an outline or a comparison of documents is answered at the
        document level (``summarise``; ``to_dict()`` then has ``kind`` and ``summary``)."""
        options = self._options(options)
        whole = await _summarise.answer(self.index, self.embedder, question, options)
        if whole is not None:
            return whole  # type: ignore[return-value]
        if isinstance(options, dict):
            options = {k: v for k, v in options.items() if k not in ("length", "fit_budget")}
        return await _ask(self.index, self._query_embedder(), question, history, options, cancelled)

    async def summarise(self, doc_ids: Sequence[int], options: dict | None = None) -> "_summarise.Summarised":
        """The documents' extractive summaries as one outline (``options``: ``kind`` "summary" or
        "compare", ``length`` in sentences, ``fit_budget``: a server model's context in tokens,
        ``question``); a reason, never an exception, for documents that cannot be summarised."""
        return await _summarise.summarise(self.index, self.embedder, doc_ids, options)

    async def check_answer(self, answer_text: str, passages: Sequence[dict]) -> dict:
        """A generated answer checked sentence by sentence against the ``[n]`` passages
        (``[{"n", "text"}]``) it was written from."""
        return await _check_answer(self.embedder, answer_text, passages)

    async def get_context(self, query: str, options: Options | dict | None = None) -> str:
        return _retrieve.get_context(await self.retrieve(query, options))

    def similar(self, chunk_id: int, k: int = 8) -> reasons.Hits:
        return _related.similar(self.index, chunk_id, k)

    async def reindex(self, progress: Callable[[dict], None] = lambda e: None,
                      cancelled: Callable[[], bool] = lambda: False) -> Reindexed:
        """Re-embed every chunk with this library's model (after a model mismatch)."""
        if self.embedder is None:
            from .errors import EmbedderError

            raise EmbedderError("no embedder: the library cannot be re-indexed")
        return await _reindex(self.index, self.embedder, progress, cancelled)

    def neighbours(self, chunk_id: int, before: int = 1, after: int = 1) -> reasons.Hits:
        """A chunk with the chunks around it in its document, in order: its context."""
        return _related.neighbours(self.index, chunk_id, before, after)

    def warm(self) -> int:
        """Load what the first query would otherwise load (the vector matrix, the chunk
        lengths of the in-memory BM25, the postings of the commonest terms); returns the
        matrix's rows."""
        for _ in self.index.warm_steps():
            pass
        m = self.index.vector_matrix()
        return len(m) if m is not None else 0

    async def warm_in_background(self) -> None:
        """``warm`` in slices of about ``WARM_SLICE_S``, giving the event loop back between
        them: in the page's worker, calls that arrive meanwhile (a query, status) run between
        two slices. The pause is a short timer rather than ``sleep(0)``, which Pyodide runs as
        an immediate callback (a MessageChannel message): a timer leaves the page's messages
        their turn whatever order the browser gives its task queues."""
        steps = self.index.warm_steps()
        try:
            since = time.perf_counter()
            for _ in steps:
                if time.perf_counter() - since >= WARM_SLICE_S:
                    await asyncio.sleep(WARM_PAUSE_S)
                    since = time.perf_counter()
        finally:
            steps.close()

    def merge_bundle(self, schema: str, version: str) -> Merged:
        """Make the index attached as ``schema`` this library's bundled set (see bundle.py)."""
        return _bundle.merge(self.index, schema, version)

    def merge_bundle_file(self, path: str | os.PathLike, version: str) -> Merged:
        """Natively: attach an index file and merge it as the bundled set."""
        store = self.index.store
        store.query(copy_sql.ATTACH.format(schema="bundle"), (str(path),))
        try:
            return self.merge_bundle("bundle", version)
        finally:
            store.query(copy_sql.DETACH.format(schema="bundle"))

    def clear_unfinished(self) -> None:
        """The user has seen which documents did not finish; stop reporting them."""
        self.index.unfinished_at_open = []

    def delete(self, doc_id: int) -> bool:
        return self.index.delete_document(doc_id)

    def documents(self, ids: Sequence[int] | None = None, after: str | None = None,
                  limit: int | None = None) -> list[StoredDocument]:
        """Every document, or only those of ``ids``, or ``limit`` of them by name after the
        name ``after`` (see ``Index.documents``)."""
        return self.index.documents(ids, after, limit)

    def status(self) -> dict:
        try:
            docs, chunks = self.index.counts()
        except ReadingRoomError as e:
            return {"error": e.to_dict()}
        meta = self.index.stored_provenance
        reason = reasons.NO_DOCUMENTS if chunks == 0 else None
        if self.merging:
            reason = reasons.MERGING
        return {
            "reason": reason,
            "merging": self.merging,
            "message": reasons.message(reason),
            "documents": docs,
            "chunks": chunks,
            "model": {"id": meta.get("model_id"), "dim": int(meta.get("dim", 0))},
            "app_model": {"id": self.index.provenance.model_id, "dim": self.index.provenance.dim},
            "chunker_version": meta.get("chunker_version"),
            "mismatch": self.index.mismatch,
            "storage": self.index.store.kind,
            "unfinished": list(self.index.unfinished_at_open),
            "bundle_version": _bundle.bundle_version(self.index),
            "search": self.index.search_state(),
            # Documents stored by their words whose vectors are still to come (None: none).
            "pending": self.meaning_coverage(),
        }

    def meaning_coverage(self) -> dict | None:
        """How much of which documents the vector leg covers while some are pending (see
        pending.py); None when every chunk has its vector."""
        if not self.index.has_pending():
            return None
        return _pending.describe(_pending.coverage(self.index.pending_documents()))

    def close(self) -> None:
        self.index.store.close()
