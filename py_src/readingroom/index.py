"""The stored index: documents, chunks, vectors, FTS rows and provenance, through ``Store``.

Every write that touches a document happens inside one transaction, so a crash, a full
disk or a dead worker leaves either the old document or the new one, never half of each.
"""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Iterator, Sequence, TypeVar

import numpy as np

from . import sql
from .chunking import CHUNKER_VERSION
from .errors import ExtensionMissing, ModelMismatch, StorageError
from .records import Chunk
from .seams import Store
from .store import dialect
from .bm25 import LexicalIndex
from .summarise import stored as summaries
from . import vectors
from .vectors import MatrixBuilder, VectorMatrix, vec0_block

T = TypeVar("T")

# Up to this many chunks the page's database has an in-memory copy (sqlite-host.js keeps one
# below 1 GB, ~385,000 chunks), so a full scan is quick: a query typed while the vectors load is
# answered by vec0 (~125 ms at 100,000), and the warm-up finds the commonest terms in FTS5's
# vocabulary. Past it the database is read from OPFS, where either scan takes minutes: a query
# then finishes the load instead, and terms load on first use only.
QUICK_SCANS_UP_TO = 200_000
WARM_BLOCKS = 4  # vec0 blocks (1,024 vectors each) read per warm-up step
COMMON_TERMS_PAGE = 4_000  # vocabulary entries read per warm-up step while finding common terms
WARMING, READY, COLD = "warming", "ready", "cold"
SEARCH_MESSAGES = {
    WARMING: "Search is getting ready: the first answers may take a moment longer.",
    COLD: "Search loads its index on the next question.",
}


def _ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


UNFINISHED = "unfinished"  # meta key: names of the documents an add is still working on


@dataclass(frozen=True)
class Provenance:
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
    id: int
    name: str
    doc_type: str
    size: int
    added_at: str
    content_hash: str
    chunks: int

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class Index:
    """One SQLite database holding one workspace's documents."""

    def __init__(self, store: Store, provenance: Provenance):
        self.store = store
        self.sql = dialect(store)  # the engine's statements (sql.py for SQLite, store/pg_sql.py)
        self.provenance = provenance
        self._writes = 0  # commits made through this Index; the vector matrix follows them
        self._kept: dict[str, tuple[tuple, object]] = {}  # what ``_keep`` holds, by name
        self._warm: Iterator[str] | None = None  # the warm-up under way (``warm_steps``)
        self.warm_pending = False  # a warm-up is about to start (the worker's background task)
        self.load_ms: dict[str, float] = {}  # how long the latest loads of the legs took
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
        if meta and not self.store.query(self.sql.HAS_EMBEDDED_FLAG):
            with self.transaction():
                self.sql.migrate(self.store)
        if not meta:
            with self.transaction():
                self.store.execute_script(self.sql.schema(self.provenance.dim))
                for k, v in self.provenance.as_meta().items():
                    self.store.query(self.sql.SET_META, (k, v))
            meta = self.provenance.as_meta()
        elif self.sql.SUMMARY_TABLE:
            try:  # a library from before summaries were kept gets their table
                self.store.execute_script(self.sql.SUMMARY_TABLE)
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
        with self.transaction():
            old = self.find(name)
            if old:
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
                summaries.keep(self, doc_id, chunks, ids, vecs)  # derived data, in the same transaction
            if unfinished is not None:
                self._record_unfinished(unfinished)
        return doc_id

    # -- words first, meaning after (ingest.embed_pending) ---------------------------------
    def has_pending(self) -> bool:
        """Whether some chunk is stored by its words only, its vector still to come."""
        return bool(self.store.query(self.sql.HAS_PENDING)[0][0])

    def pending_chunks(self, after: int, limit: int) -> list[tuple]:
        """The next pending chunks with an id above ``after``, in id order:
        (id, doc_id, document name, idx, text, heading_path JSON)."""
        return self.store.query(self.sql.PENDING_CHUNKS, (after, limit))

    def pending_documents(self) -> list[tuple[int, str, int, int]]:
        """Every document with a pending chunk: (id, name, chunks, embedded chunks)."""
        return [(int(i), n, int(c), int(e)) for i, n, c, e in self.store.query(self.sql.PENDING_DOCUMENTS)]

    def store_vectors(self, ids: Sequence[int], vectors: np.ndarray) -> int:
        """Pending chunks' vectors, in one transaction, each with its flag; a chunk deleted or
        embedded meanwhile is skipped. Returns how many were written."""
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if len(ids) != len(vecs):
            raise ValueError("one vector per chunk")
        before = self._key()
        kept = {name: self._kept_now(name, before) for name in ("lexical", "vectors")}
        written = []
        with self.transaction():
            for i, (cid, vec) in enumerate(zip(ids, vecs)):
                if self.sql.embed_chunk(self.store, int(cid), vec):
                    written.append(i)
        self._carry_over(before, kept, [int(ids[i]) for i in written], vecs[written])
        return len(written)

    def _carry_over(self, before: tuple, kept: dict, ids: list[int], vecs: np.ndarray) -> None:
        """After vectors were written by this connection alone (nobody else's commit in
        between), the kept legs stay: BM25's lengths are unchanged (no word changed), and the
        vector matrix takes the new rows (``VectorMatrix.extended``) instead of being read again
        on the next query, a batch at a time while an import runs."""
        after = self._key()
        if after[1] != before[1]:
            return  # another connection committed meanwhile: load again, as ever
        found, lexicon = kept["lexical"]
        if found:
            self._kept["lexical"] = (after, lexicon)
        found, matrix = kept["vectors"]
        if found and matrix is not None:
            grown = matrix.extended(np.asarray(ids, dtype=np.int64), vecs)
            if grown is not None:
                self._kept["vectors"] = (after, grown)

    def embedded_count(self) -> int:
        return int(self.store.query(self.sql.EMBEDDED_COUNT)[0][0])

    def set_unfinished(self, names: Sequence[str]) -> None:
        """Record the names still to do (no write when the record already says so)."""
        if list(names) == self._unfinished:
            return
        with self.transaction():
            self._record_unfinished(names)

    def _record_unfinished(self, names: Sequence[str]) -> None:
        self._unfinished = list(names)
        if names:
            self.store.query(self.sql.SET_META, (UNFINISHED, json.dumps(list(names), ensure_ascii=False)))
        else:
            self.store.query(self.sql.DELETE_META, (UNFINISHED,))

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
        with self.transaction():
            existed = bool(self.store.query(self.sql.DOC_EXISTS, (doc_id,)))
            self.delete_rows(doc_id)
        return existed

    def documents(self) -> list[StoredDocument]:
        return [StoredDocument(*r) for r in self.store.query(self.sql.LIST_DOCS)]

    def counts(self) -> tuple[int, int]:
        docs, chunks = self.store.query(self.sql.COUNTS)[0]
        return int(docs), int(chunks)

    def is_empty(self) -> bool:
        """No passage to search: a new library, or one whose documents were all deleted."""
        return not self.store.query(self.sql.HAS_CHUNKS)[0][0]

    def replace_vectors(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Every chunk's vector at once, made by this app's model (see reindex.py): the
        vector table is rebuilt for its dimension and the provenance becomes this app's."""
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if len(ids) != len(vecs) or (len(vecs) and vecs.shape[1] != self.provenance.dim):
            raise ValueError("one vector of the app's dimension per chunk")
        with self.transaction():
            _, chunks = self.counts()
            if chunks != len(ids):
                raise StorageError("the library changed while it was being re-indexed; try again")
            self.store.execute_script(self.sql.DROP_VEC_TABLE)
            self.store.execute_script(self.sql.vec_table(self.provenance.dim))
            for cid, vec in zip(ids, vecs):
                self.store.query(self.sql.INSERT_VECTOR, (int(cid), self.sql.vector_param(vec)))
            self.store.query(self.sql.MARK_ALL_EMBEDDED)
            if self.sql.DELETE_SUMMARIES:
                self.store.query(self.sql.DELETE_SUMMARIES)  # made from the old vectors: made again on demand
            for k, v in self.provenance.as_meta().items():
                self.store.query(self.sql.SET_META, (k, v))
        self.stored_provenance = self.provenance.as_meta()
        self.mismatch = None

    def vector(self, chunk_id: int) -> np.ndarray | None:
        if not sql.is_rowid(chunk_id):
            return None
        rows = self.store.query(self.sql.GET_VECTOR, (chunk_id,))
        return self.sql.vector_value(rows[0][0]) if rows else None

    # -- the in-memory legs (vectors.py, bm25.py) ------------------------------------------
    def _key(self) -> tuple:
        """What the kept legs were built from: commits here, and ``PRAGMA data_version``,
        which changes when another connection commits."""
        return (self._writes, self.store.query(self.sql.DATA_VERSION)[0][0])

    def _kept_now(self, name: str, key: tuple) -> tuple[bool, object]:
        kept = self._kept.get(name)
        return (True, kept[1]) if kept is not None and kept[0] == key else (False, None)

    def _keep(self, name: str, build: Callable[[], T]) -> T:
        """``build()``, kept until the index changes (see ``_key``). While a warm-up is
        under way (``warming``) a leg it has not loaded yet is not built here a second time:
        the lexical leg is then None (FTS5 answers, with the same ranking), and so is the
        vector leg of a library whose vec0 scan is quick (see ``QUICK_SCANS_UP_TO``);
        a larger library's query finishes the warm-up instead."""
        key = self._key()
        found, value = self._kept_now(name, key)
        if found:
            return value  # type: ignore[return-value]
        if self._warm is not None or self.warm_pending:
            if name == "lexical" or self.counts()[1] <= QUICK_SCANS_UP_TO:
                return None  # type: ignore[return-value]
            for _ in self._warm or ():
                if self._kept_now(name, key)[0]:
                    break
            found, value = self._kept_now(name, key)
            if found:
                return value  # type: ignore[return-value]
        t0 = time.perf_counter()
        value = build()
        self.load_ms[f"{name}_on_query"] = _ms_since(t0)
        self._kept[name] = (key, value)
        return value

    def vector_matrix(self) -> VectorMatrix | None:
        """Every stored vector as one normalised matrix (see ``_keep``). None when the index
        is too large to keep one or its vectors cannot be mixed."""
        if self.mismatch or not self.sql.IN_MEMORY_VECTORS:
            return None
        return self._keep("vectors", self._build_matrix)

    def _build_matrix(self) -> VectorMatrix | None:
        for _ in self._matrix_steps(self._key()):
            pass
        return self._kept["vectors"][1]  # type: ignore[return-value]

    def lexical_index(self) -> LexicalIndex | None:
        """Chunk lengths for the in-memory BM25 (bm25.py), whose postings fill as queries use
        terms (see ``_keep``). None when the library is too large to keep them, or its
        engine ranks the words itself."""
        if not self.sql.IN_MEMORY_LEXICON:
            return None
        return self._keep("lexical", self._build_lexical)

    def _build_lexical(self) -> LexicalIndex | None:
        return self.sql.build_lexicon(self.store)

    def warm_steps(self) -> Iterator[str]:
        """Loads both in-memory legs in small steps, naming each as it is done ("lexical",
        "vectors", "terms"): the page's worker runs one step at a time while it is idle, so
        the first query a person types does not pay for the load, and a query arriving
        meanwhile is answered between two steps (see ``_keep``). Last come the postings of
        the library's most common terms (bm25.py's ``common_terms``; up to
        ``QUICK_SCANS_UP_TO`` chunks): the costliest to read on first use, and the likeliest
        to be asked. A write in between makes what was
        loaded stale, and it is then loaded again on first use, as without a warm-up."""
        self.warm_pending = False
        if self._warm is not None or not self.sql.IN_MEMORY_VECTORS:
            return  # one warm-up at a time; on Postgres the first query loads BM25's lengths
        mine = self._warm = self._warming()
        try:
            yield from mine
        finally:
            if self._warm is mine:
                self._warm = None

    def stop_warming(self) -> None:
        """Ends the warm-up under way, if any (a write or another library makes it moot)."""
        warm, self._warm = self._warm, None
        self.warm_pending = False
        if warm is not None:
            warm.close()

    def _warming(self) -> Iterator[str]:
        t0 = time.perf_counter()
        key = self._key()
        found, lexicon = self._kept_now("lexical", key)
        if not found:
            t1 = time.perf_counter()
            lexicon = self._build_lexical()
            self._kept["lexical"] = (key, lexicon)
            self.load_ms["lexical"] = _ms_since(t1)
            yield "lexical"
        if not self.mismatch and not self._kept_now("vectors", key)[0]:
            yield from self._matrix_steps(key)
        if lexicon is not None and len(lexicon) <= QUICK_SCANS_UP_TO:
            t1 = time.perf_counter()
            self.store.execute_script(self.sql.FTS_TERMS_TABLE)
            terms = yield from lexicon.common_terms(
                lambda after: self.store.query(self.sql.FTS_TERM_COUNTS, (after, COMMON_TERMS_PAGE)))
            self.load_ms["terms_found"] = _ms_since(t1)
            read = 0.0
            for term in terms:
                if self._key() != key:
                    return  # the library changed: what would be read now is another's
                t2 = time.perf_counter()
                instances = self.store.query(self.sql.FTS_TERM_INSTANCES, (term,))[0][0]
                read += time.perf_counter() - t2
                lexicon.preload(term, instances)
                yield "terms"
            self.load_ms["terms_read"] = round(read * 1000, 1)
            self.load_ms["terms"] = _ms_since(t1)
        self.load_ms["warm_up"] = _ms_since(t0)

    def _matrix_steps(self, key: tuple) -> Iterator[str]:
        """The vector matrix read a few of vec0's blocks at a time, then finished in steps;
        kept under ``key`` (the index as it was when the read began)."""
        t0 = time.perf_counter()
        chunks = self.embedded_count()  # a pending chunk has no vector yet
        dim = self.provenance.dim
        if not vectors.fits(chunks, dim):
            self._kept["vectors"] = (key, None)
            return
        builder = MatrixBuilder(dim, chunks)
        read = 0.0  # seconds spent in SQLite (and, in the page, crossing into Python)
        try:
            pages = self._vector_pages(WARM_BLOCKS)
            while True:
                t1 = time.perf_counter()
                page = next(pages, None)
                read += time.perf_counter() - t1
                if page is None:
                    break
                for block in page:
                    builder.add(*vec0_block(block[1:], dim))
                yield "vectors"
            t1 = time.perf_counter()
            for _ in builder.finishing():
                yield "vectors"
            self.load_ms["vectors_codes"] = _ms_since(t1)
            m = builder.matrix
        except (StorageError, ValueError):
            m = None  # another vec0 layout: read it the portable way
        if m is None or len(m) != chunks:
            m = VectorMatrix.from_rows(self.store.query(self.sql.ALL_VECTORS), dim)
        self._kept["vectors"] = (key, m)
        self.load_ms["vectors_read"] = round(read * 1000, 1)
        self.load_ms["vectors"] = _ms_since(t0)

    def search_state(self) -> dict:
        """Whether the in-memory legs are loaded: "warming" (a warm-up is under way; queries
        are answered meanwhile), "ready", or "cold" (the next query loads them)."""
        if not self.sql.IN_MEMORY_VECTORS:
            state = READY
        elif self._warm is not None or self.warm_pending:
            state = WARMING
        else:
            key = self._key()
            loaded = self._kept_now("lexical", key)[0] and (self.mismatch or self._kept_now("vectors", key)[0])
            state = READY if loaded else COLD
        return {"state": state, "message": SEARCH_MESSAGES.get(state), "load_ms": dict(self.load_ms)}

    def _vector_pages(self, per_page: int = 16) -> Iterator[list]:
        """sqlite-vec's blocks of 1,024 vectors, ``per_page`` blocks per statement."""
        last = -1
        while True:
            page = self.store.query(self.sql.VECTOR_BLOCKS, (last, per_page))
            if page:
                yield page
            if len(page) < per_page:
                return
            last = page[-1][0]

    def _vector_blocks(self, per_page: int = 16) -> Iterator[tuple]:
        """sqlite-vec's blocks, one at a time (see ``vectors.vec0_block``)."""
        for page in self._vector_pages(per_page):
            for row in page:
                yield row[1:]

    def integrity(self) -> str:
        return str(self.store.query(self.sql.INTEGRITY)[0][0])
