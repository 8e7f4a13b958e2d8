"""Chunks stored by their words first and their vectors after (``ingest.embed_pending``),
the record of the documents an add is still working on, and a re-index's vectors.

``Vectors`` is a part of ``Index`` (store/index.py), beside ``KeptLegs`` and ``WarmUp``: each
write notes what it changed for a warm-up under way (``_note``) and carries the in-memory legs
over (``_carry``) instead of dropping them.
"""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from ..errors import StorageError
from . import sqlite_sql as sql

UNFINISHED = "unfinished"  # meta key: names of the documents an add is still working on


class Vectors:
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
        done, done_vecs = [int(ids[i]) for i in written], vecs[written]
        self._note((), done, done_vecs)
        self._carry_over(before, kept, done, done_vecs)
        return len(written)

    def _carry_over(self, before: tuple, kept: dict, ids: list[int], vecs: np.ndarray) -> None:
        """After vectors were written by this connection alone, the kept legs stay (``_carry``):
        BM25's lengths are unchanged (no word changed), and the vector matrix takes the new rows
        (``VectorMatrix.extended``) instead of being read again on the next query, a batch at a
        time while an import runs."""
        found, matrix = kept["vectors"]
        grown = matrix.extended(np.asarray(ids, dtype=np.int64), vecs) if found and matrix is not None else None
        self._carry(before, {"lexical": kept["lexical"], "vectors": (grown is not None, grown)})

    def embedded_count(self) -> int:
        return int(self.store.query(self.sql.EMBEDDED_COUNT)[0][0])

    def set_unfinished(self, names: Sequence[str]) -> None:
        """Record the names still to do (no write when the record already says so)."""
        if list(names) == self._unfinished:
            return
        before = self._key()
        kept = {name: self._kept_now(name, before) for name in ("lexical", "vectors")}
        with self.transaction():
            self._record_unfinished(names)
        self._note()
        self._carry(before, kept)  # a record in meta: neither leg changed

    def _record_unfinished(self, names: Sequence[str]) -> None:
        self._unfinished = list(names)
        if names:
            self.store.query(self.sql.SET_META, (UNFINISHED, json.dumps(list(names), ensure_ascii=False)))
        else:
            self.store.query(self.sql.DELETE_META, (UNFINISHED,))

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
