"""The stored index: documents, chunks, vectors, FTS rows and provenance, through ``Store``.

Every write that touches a document happens inside one transaction, so a crash, a full
disk or a dead worker leaves either the old document or the new one, never half of each.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterator, Sequence

import numpy as np

from ..ingest.chunking import CHUNKER_VERSION
from ..errors import ExtensionMissing, ModelMismatch, StorageError
from ..records import Chunk
from ..seams import Store
from ..summarise import stored as summaries
from . import dialect, sqlite_sql as sql
from .legs import KeptLegs
from .pending import UNFINISHED, Vectors
from .warmup import WarmUp

@dataclass(frozen=True)
class Provenance:
    """What an index was built with: the model, its dimension, the chunker and schema versions."""

    model_id: str
    dim: int
    chunker_version: str = CHUNKER_VERSION
    schema_version: int = sql.SCHEMA_VERSION

    def as_meta(self) -> dict[str, str]:
        return {
            "model_id": self.model_id,
            "dim": str(self.dim),
            "chunker_version": self.chunker_version,
            "schema_version": str(self.schema_version),
        }


@dataclass(frozen=True)
class StoredDocument:
    """A stored document as the library lists it."""

    id: int
    name: str
    doc_type: str
    size: int
    added_at: str
    content_hash: str
    chunks: int

    def to_dict(self) -> dict:
        return dict(self.__dict__)


DOCUMENT_FIELDS = tuple(StoredDocument.__dataclass_fields__)  # the columns of ``Index.document_rows``


class Index(KeptLegs, WarmUp, Vectors):
    """One SQLite database holding one workspace's documents."""

    def __init__(self, store: Store, provenance: Provenance):
        self.store = store
        self.sql = dialect(store)  # the engine's statements (sqlite_dialect.py, pg_dialect.py)
        self.provenance = provenance
        self._writes = 0  # commits made through this Index; the vector matrix follows them
        self._start_legs()
        try:
            store.query(self.sql.EXTENSIONS)
        except StorageError as e:
            raise ExtensionMissing(f"sqlite-vec is not loaded in this SQLite: {e}") from e
        self.stored_provenance = self._open()
        # Documents an earlier session began adding and did not finish (a closed tab, a
        # killed process): read once, so the page can name them after a reload.
        self.unfinished_at_open: list[str] = json.loads(self.stored_provenance.get(UNFINISHED, "[]"))
        self._unfinished: list[str] | None = list(self.unfinished_at_open)  # the record now; None: unsure
        # A mismatch does not stop lexical search; it stops mixing vectors.
        self.mismatch: str | None = self._compare(self.stored_provenance)

    def _open(self) -> dict[str, str]:
        meta = dict(self.store.query(self.sql.GET_META)) if self._has_schema() else {}
        if meta and self.sql.outdated(self.store):
            with self.transaction():
                self.sql.migrate(self.store)
        if not meta:
            with self.transaction():
                self.store.execute_script(self.sql.schema(self.provenance.dim))
                for k, v in self.provenance.as_meta().items():
                    self.store.query(self.sql.SET_META, (k, v))
            meta = self.provenance.as_meta()
        elif self.sql.DERIVED_TABLES:
            try:  # a library from before summaries (and kept postings) were kept gets their tables
                self.store.execute_script(self.sql.DERIVED_TABLES)
            except StorageError:
                pass  # read-only: summaries are then computed on demand and not kept
        return meta

    def _has_schema(self) -> bool:
        return bool(self.store.query(self.sql.HAS_SCHEMA))

    def _compare(self, meta: dict[str, str]) -> str | None:
        want = self.provenance.as_meta()
        diffs = [f"{k}: index has {meta.get(k)!r}, app uses {want[k]!r}"
                 for k in ("model_id", "dim", "chunker_version", "schema_version")
                 if meta.get(k) != want[k]]
        return "; ".join(diffs) or None

    def require_compatible(self) -> None:
        self.adopt_if_empty()
        if not self.mismatch:
            return
        if self.stored_provenance.get("chunker_version") != self.provenance.chunker_version:
            raise ModelMismatch(f"this index was built differently ({self.mismatch}); delete its documents "
                                "and add the files again")
        raise ModelMismatch(f"this index was built differently ({self.mismatch}); re-index to use it")

    def adopt_if_empty(self) -> None:
        """A library with no passages has no vectors to mix, whoever made it: it becomes this
        app's (vector table and provenance) rather than refuse every document added to it. Only
        a different schema stays a mismatch: its tables are not the ones this app writes."""
        if (self.mismatch and self.is_empty()
                and self.stored_provenance.get("schema_version") == str(self.provenance.schema_version)):
            self.replace_vectors([], np.zeros((0, self.provenance.dim), np.float32))

    # -- transactions ----------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.store.execute_script(self.sql.BEGIN)
        try:
            yield
        except BaseException:
            self._unfinished = None  # a record written in this transaction is undone with it
            try:
                self.store.execute_script(self.sql.ROLLBACK)
            except StorageError:
                pass  # the failed statement may already have ended the transaction
            raise
        finally:
            self._writes += 1
            self._commits_seen += 1  # warmup.py: a commit that notes nothing is not followed
        self.store.execute_script(self.sql.COMMIT)

    # -- documents -------------------------------------------------------------------------
    def find(self, name: str) -> tuple[int, str, str | None] | None:
        """The stored document of that name: (id, content hash, source type)."""
        rows = self.store.query(self.sql.DOC_BY_NAME, (name,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    def set_source(self, doc_id: int, source_type: str | None) -> None:
        with self.transaction():
            self.store.query(self.sql.SET_DOC_SOURCE, (source_type, doc_id))

    def replace_document(self, *, name: str, doc_type: str, content_hash: str, size: int,
                         meta: dict, chunks: Sequence[Chunk], vectors: np.ndarray | None,
                         text_hashes: Sequence[str], unfinished: Sequence[str] | None = None) -> int:
        """Insert a document with its chunks and vectors, replacing any of the same name.
        ``unfinished`` (the names still to do after this one) is recorded in the same
        transaction, so the record never says a stored document did not finish. Without
        ``vectors`` the chunks are stored by their words, pending (``store_vectors``)."""
        self.require_compatible()
        if (vectors is not None and len(chunks) != len(vectors)) or len(chunks) != len(text_hashes):
            raise ValueError("one vector and one hash per chunk")
        vecs = None if vectors is None else np.ascontiguousarray(vectors, dtype=np.float32)
        tags = meta.get("tags") or []
        before = self._key()
        matrix, lexicon = self._kept_now("vectors", before), self._kept_now("lexical", before)
        with self.transaction():
            old = self.find(name)
            gone = []
            if old:
                gone = [int(r[0]) for r in self.store.query(self.sql.DOC_CHUNK_IDS, (old[0],))]
                self.delete_rows(old[0])
            doc_id = self.store.query(self.sql.INSERT_DOC, (
                name, doc_type, content_hash, size,
                datetime.now(timezone.utc).isoformat(timespec="seconds"),
                meta.get("source_type"), meta.get("date"), json.dumps(meta, sort_keys=True),
            ))[0][0]
            for tag in tags:
                self.store.query(self.sql.INSERT_TAG, (doc_id, str(tag)))
            ids = []
            for i, (ch, th) in enumerate(zip(chunks, text_hashes)):
                row = (doc_id, ch.doc_index, ch.page, ch.start, ch.end,
                       json.dumps(list(ch.heading_path)), " > ".join(ch.heading_path),
                       ch.token_count, ch.text, th)
                if vecs is None:
                    ids.append(self.sql.insert_pending_chunk(self.store, row))
                else:
                    ids.append(self.sql.insert_chunk(self.store, row, vecs[i]))
            if vecs is not None:  # stored whole: its summary now (words first: when its last batch lands)
                summaries.keep(self, doc_id, chunks, ids, vecs, doc_type)  # derived data, in the same transaction
            if unfinished is not None:
                self._record_unfinished(unfinished)
        self._note(gone, ids if vecs is not None else (), vecs)
        carried = {"lexical": self._lexicon_after(lexicon, gone, ids)}
        if vecs is None:  # new chunks by their words only: no vector written, a replaced one's gone
            carried["vectors"] = self._matrix_without(matrix, gone)
        self._carry(before, carried)
        return doc_id

    def delete_rows(self, doc_id: int) -> None:
        """A document's rows, inside a transaction the caller holds."""
        if self.sql.DELETE_DOC_SUMMARY:
            self.store.query(self.sql.DELETE_DOC_SUMMARY, (doc_id,))
        self.store.query(self.sql.DELETE_DOC_CHUNKS, (doc_id,))
        self.store.query(self.sql.DELETE_DOC_TAGS, (doc_id,))
        self.store.query(self.sql.DELETE_DOC, (doc_id,))

    def delete_document(self, doc_id: int) -> bool:
        if not sql.is_rowid(doc_id):
            return False
        before = self._key()
        lexicon, matrix = self._kept_now("lexical", before), self._kept_now("vectors", before)
        with self.transaction():
            existed = bool(self.store.query(self.sql.DOC_EXISTS, (doc_id,)))
            gone = [int(r[0]) for r in self.store.query(self.sql.DOC_CHUNK_IDS, (doc_id,))]
            self.delete_rows(doc_id)
        self._note(gone)
        self._carry(before, {"lexical": self._lexicon_after(lexicon, gone, []),
                             "vectors": self._matrix_without(matrix, gone)})
        return existed

    def documents(self, ids: Sequence[int] | None = None, after: str | None = None,
                  limit: int | None = None) -> list[StoredDocument]:
        """Every stored document by name, or those of ``ids`` in their order (an id not
        stored is left out), or a page of the list (see ``document_rows``)."""
        return [StoredDocument(*r) for r in self.document_rows(ids, after, limit)]

    def document_rows(self, ids: Sequence[int] | None = None, after: str | None = None,
                      limit: int | None = None) -> list[tuple]:
        """``documents`` as plain rows of ``DOCUMENT_FIELDS``: what the page's list reads (at
        377,863 documents, dicts made 61 MB of JSON and five times the time of rows). With
        ``limit``, a page of the list: at most that many documents, by name, after the name
        ``after`` (from the first without it)."""
        if ids is None and limit is not None:
            return self.store.query(self.sql.LIST_DOCS_AFTER, (after or "", int(limit)))
        if ids is None:
            return self.store.query(self.sql.LIST_DOCS)
        return [r for i in ids for r in self.store.query(self.sql.GET_DOC, (int(i),))]

    def counts(self) -> tuple[int, int]:
        docs, chunks = self.store.query(self.sql.COUNTS)[0]
        return int(docs), int(chunks)

    def is_empty(self) -> bool:
        """No passage to search: a new library, or one whose documents were all deleted."""
        return not self.store.query(self.sql.HAS_CHUNKS)[0][0]

    def integrity(self) -> str:
        return str(self.store.query(self.sql.INTEGRITY)[0][0])
