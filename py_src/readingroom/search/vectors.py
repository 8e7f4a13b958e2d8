"""Cosine search over in-memory matrices of the stored vectors: exact when small, through
quantised copies when large.

Why not ask ``vec0`` every time: its brute-force scan costs ~25 ms at 20,000 chunks in
wasm (and ~125 ms at 100,000), and keeping the top k costs more as k grows. One float32
mat-vec over the same vectors in numpy costs about a third of that, and a filter becomes a
mask over the scores instead of an over-fetch loop.

Past ``BINARY_FROM`` chunks even the mat-vec is the slow part, and past
``MAX_FLOAT_BYTES`` of float32 (about 170,000 chunks of 384 dimensions) the float matrix
no longer fits beside everything else in the page (1M chunks would be 1.5 GB). So a large
library is searched in stages, each on the few candidates the previous one kept:

1. binary codes: one bit per dimension (the sign of the vector minus the library's mean
   vector), compared with the query's by Hamming distance: 48 bytes a chunk, a XOR and a
   popcount per 64 dimensions; the ``prefilter(n)`` nearest go on (ties at the cut by
   position, so every platform keeps the same ones);
2. their float32 rows, exact, while the library is under ``MAX_FLOAT_BYTES``; above it,
   int8 rows (each row scaled by its largest component: 384 bytes a chunk, 1M chunks in
   384 MB), whose best ``EXACT_RESCORE`` are then rescored with their float vectors read
   back from SQLite (the ``exact`` callback of ``top``). Only a few: one vector read
   through vec0 costs ~0.5 ms natively, so the float rows cannot come from there.

Measured on SciFact's real vectors (13,724 chunks, 809 queries, every stage forced on)
against the exact float search: recall@10 0.9998 for binary + float, 0.9999 for binary +
int8 + exact rescoring, but 0.9946 for int8 without it (its misses are near-ties, exact
scores within 0.001, which int8's ~3.5e-4 error swaps), which is why it is never the last
stage. On 100,000 chunks made of SciFact copies with jittered vectors (clusters of nearly
identical vectors: the hard case; 300 queries): 0.9983 and 0.9987. ``BINARY_FROM``: in Pyodide 0.27 the full float mat-vec costs ~14-20 ms at 20,000
chunks and the binary stages ~2-6 ms (load ~16 on 2 cores: ratios, not figures); below
20,000 the exact search is cheap enough to keep exact. ``tests/test_vectors.py`` holds
recall@10 >= 0.995 for both quantised paths on fixture-sized data.

The matrix is read from sqlite-vec's own storage in blocks of 1,024 vectors (see
``from_vec0_blocks``) rather than one row per vector, block by block, so a million vectors
never exist as one float32 matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

MAX_FLOAT_BYTES = 256 * 1024 * 1024  # float32 rows kept up to here: exact second stage
MAX_INT8_BYTES = 512 * 1024 * 1024  # int8 rows kept up to here; past it the leg stays in vec0
BINARY_FROM = 20_000  # chunks from which the binary first stage is used (see module doc)
RECENTRE_SHARE = 0.02  # rows added to a binary matrix before it is built again (see ``extended``)
PREFILTER_MIN = 2_000  # candidates the binary stage keeps, at least ...
PREFILTER_PER_RESULT = 8  # ... and this many per result asked for
EXACT_RESCORE = 20  # int8 candidates whose order is made exact from the stored floats
_BLOCK = 16_384  # rows per step when scoring or coding many rows at once

Exact = Callable[["np.ndarray"], "np.ndarray"]  # chunk ids -> their float32 vectors, same order


def prefilter(n: int) -> int:
    return max(PREFILTER_MIN, PREFILTER_PER_RESULT * n)


def fits(chunks: int, dim: int) -> bool:
    return chunks * dim <= MAX_INT8_BYTES


def _normalised(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def _int8(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row symmetric int8: ``row ~= codes * scale``."""
    peak = np.abs(rows).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    return np.rint(rows / scale[:, None]).astype(np.int8), scale


def _bits(rows: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """One bit per dimension (set when above the mean), packed into uint64 words."""
    packed = np.packbits(rows > centre, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


@dataclass(frozen=True)
class VectorMatrix:
    """A library's vectors in memory: float rows, or int8 codes with scales, and sign bits for the first pass."""

    ids: np.ndarray  # int64 chunk ids, ascending
    rows: np.ndarray | None  # float32 [n, dim], L2-normalised (zero rows stay zero)
    codes: np.ndarray | None = None  # int8 [n, dim] when rows is None; row ~= codes * scales
    scales: np.ndarray | None = None  # float32 [n]
    bits: np.ndarray | None = None  # uint64 [n, words]: signs of row - centre
    centre: np.ndarray | None = None  # float32 [dim]: the mean row
    room: "Room | None" = field(default=None, repr=False, compare=False)  # see ``extended``
    gone: np.ndarray | None = None  # bool [n]: rows of deleted chunks, never returned (see ``without``)

    @classmethod
    def build(cls, ids: np.ndarray, rows: np.ndarray) -> "VectorMatrix":
        """From ids and float32 rows (any order, not yet normalised)."""
        ids = np.asarray(ids, dtype=np.int64)
        rows = np.asarray(rows, dtype=np.float32)
        if rows.ndim != 2:  # a flat buffer; (0, dim) stays as it is (reshape(0, -1) is ambiguous)
            rows = rows.reshape(len(ids), -1)
        return cls.from_blocks([(ids, rows)], rows.shape[1], len(ids))

    @classmethod
    def from_blocks(cls, blocks: Iterable[tuple[np.ndarray, np.ndarray]], dim: int,
                    expected: int) -> "VectorMatrix":
        """From ``(ids, float32 rows)`` blocks, holding only one block of floats at a time
        when the library is too large to keep them; ``expected`` rows are allotted."""
        from .matrix_build import MatrixBuilder  # it makes VectorMatrix objects: imported here

        builder = MatrixBuilder(dim, expected)
        for block_ids, block in blocks:
            builder.add(block_ids, block)
        for _ in builder.finishing():
            pass
        return builder.matrix

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, bytes]], dim: int) -> "VectorMatrix":
        """From ``(chunk_id, float32 blob)`` pairs: the portable way, one row per vector."""
        pairs = list(rows)
        ids = np.fromiter((int(r) for r, _ in pairs), dtype=np.int64, count=len(pairs))
        flat = np.frombuffer(b"".join(bytes(b) for _, b in pairs), dtype=np.float32)
        return cls.build(ids, flat.reshape(len(pairs), dim) if pairs else np.zeros((0, dim), np.float32))

    @classmethod
    def from_vec0_blocks(cls, blocks: Iterable[tuple[int, bytes, bytes, bytes]], dim: int,
                         expected: int) -> "VectorMatrix":
        """From sqlite-vec 0.1's shadow tables (see ``vec0_block``)."""
        from .matrix_build import vec0_block

        return cls.from_blocks((vec0_block(b, dim) for b in blocks), dim, expected)

    def __len__(self) -> int:
        """The vectors it holds (a deleted chunk's row no longer counts)."""
        return len(self.ids) - (int(self.gone.sum()) if self.gone is not None else 0)

    def without(self, ids: np.ndarray) -> "VectorMatrix | None":
        """This matrix with the rows of deleted chunks ``ids`` left out of every search, instead
        of reading every vector again (at a million chunks ~20 s natively, and a query waits
        for it); None when a fresh build is needed instead: below the binary stage (a build is
        cheap there), or when more than ``RECENTRE_SHARE`` of its rows would be gone."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.bits is None:
            return None
        at = np.searchsorted(self.ids, ids)
        at = at[(at < len(self.ids)) & (self.ids[np.minimum(at, len(self.ids) - 1)] == ids)]
        gone = np.zeros(len(self.ids), bool) if self.gone is None else self.gone.copy()
        gone[at] = True
        if gone.sum() > RECENTRE_SHARE * len(self.ids):
            return None
        return VectorMatrix(self.ids, self.rows, self.codes, self.scales, self.bits, self.centre, self.room, gone)

    def extended(self, ids: np.ndarray, rows: np.ndarray) -> "VectorMatrix | None":
        """This matrix with more vectors (words first, meaning after: a batch of pending
        chunks just embedded), instead of reading every vector again; None when a fresh build
        is needed instead: an id it holds already, a float matrix growing into the binary stage,
        or a binary one whose room is used up or whose new ids are not past its last one.

        Below ``BINARY_FROM`` it is the matrix a fresh build makes. A binary matrix is built
        with room for ``RECENTRE_SHARE`` more rows (``matrix_build.Room``), filled in place, so a batch costs
        its own rows, not a copy of the million others (~1 s natively at 1M); the new rows'
        codes are taken against the centre it was built with, the old rows' codes stay. A fresh
        build would move the centre by about that share of the new rows' offset, and the codes
        only choose the candidates the float or int8 stage then scores (``tests/test_vectors.py``
        holds recall@10 at a fresh build's). At a million chunks a fresh build is ~15 s in the
        page, and a query waits for it."""
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) == 0:
            return self
        order = np.argsort(ids, kind="stable")
        ids, rows = ids[order], np.asarray(rows, dtype=np.float32).reshape(len(ids), -1)[order]
        if self.bits is not None:
            return self.room.take(self, ids, rows) if self.room else None
        if self.rows is None or len(self.ids) + len(ids) >= BINARY_FROM or len(np.intersect1d(ids, self.ids)):
            return None
        rows = _normalised(rows)
        all_ids = np.concatenate([self.ids, ids])
        all_rows = np.concatenate([self.rows, rows])
        if np.any(all_ids[1:] <= all_ids[:-1]):
            order = np.argsort(all_ids, kind="stable")
            all_ids, all_rows = all_ids[order], all_rows[order]
        return VectorMatrix(all_ids, all_rows)

    @property
    def kind(self) -> str:
        """How the leg searches: "float", "binary+float" or "binary+int8" (for stats and docs)."""
        second = "float" if self.rows is not None else "int8"
        return second if self.bits is None else f"binary+{second}"

    def _dense(self, at) -> np.ndarray:
        """Rows ``at`` (a slice or positions) as float32: exact, or dequantised int8."""
        if self.rows is not None:
            return self.rows[at]
        return self.codes[at].astype(np.float32) * self.scales[at][:, None]

    def _scores(self, q: np.ndarray, at: np.ndarray | None) -> np.ndarray:
        """Cosine of ``q`` with the rows at positions ``at`` (all when None)."""
        if self.rows is not None:
            return self.rows @ q if at is None else self.rows[at] @ q
        at = np.arange(len(self.ids)) if at is None else at
        out = np.empty(len(at), np.float32)
        for i in range(0, len(at), _BLOCK):  # never the whole int8 matrix as floats at once
            part = at[i : i + _BLOCK]
            out[i : i + _BLOCK] = (self.codes[part].astype(np.float32) @ q) * self.scales[part]
        return out

    def _nearest_bits(self, q: np.ndarray, at: np.ndarray | None, keep: int) -> np.ndarray | None:
        """Positions of the ``keep`` rows nearest ``q`` in Hamming distance, or None when
        there is nothing to cut (no binary codes, or no more rows than ``keep``)."""
        count = len(self) if at is None else len(at)
        if self.bits is None or count <= keep:
            return at if at is not None or self.gone is None else np.flatnonzero(~self.gone)
        qbits = _bits(q[None, :], self.centre)[0]
        codes = self.bits if at is None else self.bits[at]
        distance = np.bitwise_count(codes ^ qbits).sum(axis=1, dtype=np.uint16)
        if at is None and self.gone is not None:
            distance[self.gone] = np.iinfo(np.uint16).max  # past any real distance: never kept
        # Every row nearer than the keep-th distance, then the ties at it by position: the
        # same candidates on every platform (argpartition would cut ties arbitrarily).
        cut = np.partition(distance, keep - 1)[keep - 1]
        nearer = np.flatnonzero(distance < cut)
        near = np.concatenate([nearer, np.flatnonzero(distance == cut)[: keep - len(nearer)]])
        near.sort()  # rows gathered in memory order read faster
        return near if at is None else at[near]

    def top(self, qvec: np.ndarray, n: int, allowed: np.ndarray | None = None,
            exact: Exact | None = None) -> list[tuple[int, float]]:
        """``(chunk_id, cosine similarity)``, best first, at most ``n``; only ``allowed`` ids
        when given. ``exact`` reads stored float vectors: with int8 rows, the best
        ``EXACT_RESCORE`` are rescored with them (without it their order is int8's)."""
        if n <= 0 or len(self.ids) == 0:
            return []
        q = np.asarray(qvec, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return []
        q = q / norm
        at = None
        if allowed is not None:
            at = np.flatnonzero(np.isin(self.ids, np.asarray(allowed, dtype=np.int64)))
            if self.gone is not None:
                at = at[~self.gone[at]]
            if len(at) == 0:
                return []
        elif self.gone is not None and len(self) == 0:
            return []
        at = self._nearest_bits(q, at, prefilter(n))
        sims = self._scores(q, at)
        ids = self.ids if at is None else self.ids[at]
        if self.rows is not None or exact is None:
            return best_first(sims, ids, n)
        best = best_first(sims, ids, max(n, EXACT_RESCORE))
        head = np.array([c for c, _ in best[:EXACT_RESCORE]], dtype=np.int64)
        stored = exact(head)
        if len(stored) == len(head):  # else keep int8's order rather than guess
            exact_sims = _normalised(np.asarray(stored, dtype=np.float32)) @ q
            best = best_first(exact_sims, head, len(head)) + best[EXACT_RESCORE:]
        return best[:n]


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
