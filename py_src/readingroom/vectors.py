"""Exact cosine search over an in-memory matrix of the stored vectors.

Why not ask ``vec0`` every time: its brute-force scan costs ~25 ms at 20,000 chunks in
wasm (and ~125 ms at 100,000), and keeping the top k costs more as k grows. One float32
mat-vec over the same vectors in numpy costs about a third of that, and a filter becomes a
mask over the scores instead of an over-fetch loop. The answer is the same exact KNN
(cosine, ties broken by chunk id), so the vector leg does not change, only its cost.

The matrix is read from sqlite-vec's own storage in blocks of 1,024 vectors (see
``from_vec0_blocks``) rather than one row per vector, which makes loading 20,000 vectors
in the browser a few dozen reads instead of 20,000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

# Above this many bytes of vectors the matrix is not kept; the vector leg stays in vec0.
MAX_MATRIX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class VectorMatrix:
    ids: np.ndarray  # int64 chunk ids, ascending
    rows: np.ndarray  # float32 [len(ids), dim], each row L2-normalised (zero rows stay zero)

    @classmethod
    def build(cls, ids: np.ndarray, rows: np.ndarray) -> "VectorMatrix":
        ids = np.asarray(ids, dtype=np.int64)
        rows = np.asarray(rows, dtype=np.float32)
        if rows.ndim != 2:  # a flat buffer; (0, dim) stays as it is (reshape(0, -1) is ambiguous)
            rows = rows.reshape(len(ids), -1)
        order = np.argsort(ids, kind="stable")
        ids, rows = ids[order], rows[order]
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
        return cls(np.ascontiguousarray(ids), np.ascontiguousarray(rows))

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, bytes]], dim: int) -> "VectorMatrix":
        """From ``(chunk_id, float32 blob)`` pairs: the portable way, one row per vector."""
        pairs = list(rows)
        ids = np.fromiter((int(r) for r, _ in pairs), dtype=np.int64, count=len(pairs))
        flat = np.frombuffer(b"".join(bytes(b) for _, b in pairs), dtype=np.float32)
        return cls.build(ids, flat.reshape(len(pairs), dim) if pairs else np.zeros((0, dim), np.float32))

    @classmethod
    def from_vec0_blocks(cls, blocks: Sequence[tuple[int, bytes, bytes, bytes]], dim: int) -> "VectorMatrix":
        """From sqlite-vec 0.1's shadow tables: per block of ``size`` slots, a validity bitmap
        (bit i, least significant first, set when slot i holds a vector), the slots' rowids
        as int64, and their vectors as ``size * dim`` float32."""
        ids, rows = [], []
        for size, validity, rowids, vectors in blocks:
            valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
            ids.append(np.frombuffer(rowids, dtype=np.int64)[:size][valid])
            rows.append(np.frombuffer(vectors, dtype=np.float32).reshape(-1, dim)[:size][valid])
        if not ids:
            return cls.build(np.zeros(0, np.int64), np.zeros((0, dim), np.float32))
        return cls.build(np.concatenate(ids), np.concatenate(rows))

    def __len__(self) -> int:
        return len(self.ids)

    def top(self, qvec: np.ndarray, n: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """``(chunk_id, cosine similarity)``, best first, at most ``n``; only ``allowed`` ids
        when given."""
        if n <= 0 or len(self.ids) == 0:
            return []
        q = np.asarray(qvec, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return []
        sims = self.rows @ (q / norm)
        ids = self.ids
        if allowed is not None:
            keep = np.isin(ids, np.asarray(allowed, dtype=np.int64))
            sims, ids = sims[keep], ids[keep]
            if len(ids) == 0:
                return []
        return best_first(sims, ids, n)


def best_first(values: np.ndarray, ids: np.ndarray, n: int) -> list[tuple[int, float]]:
    """The ``n`` largest ``values`` as ``(id, value)``, largest first, ties broken by the
    smaller id: one partial sort, not a full one. Shared by both in-memory legs."""
    if n < len(values):
        part = np.argpartition(-values, n - 1)[:n]
        # argpartition splits ties at the n-th value arbitrarily: take every tie, then cut.
        cut = values[part].min()
        part = np.flatnonzero(values >= cut)
    else:
        part = np.arange(len(values))
    best = part[np.lexsort((ids[part], -values[part]))][:n]
    return [(int(ids[i]), float(values[i])) for i in best]
