"""Making a ``VectorMatrix``: from sqlite-vec's blocks, a block at a time, finished in steps
the page's worker can answer queries between; and the room a binary matrix keeps for the
rows of documents embedded after it was built (see ``VectorMatrix.extended``)."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from . import vectors  # its limits are read when used: tests and benches change them
from .vectors import VectorMatrix, _bits, _int8, _normalised


def vec0_block(block: tuple[int, bytes, bytes, bytes], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """One block of sqlite-vec 0.1's shadow tables as ``(ids, float32 rows)`` of its used
    slots: ``size`` slots, a validity bitmap (bit i, least significant first, set when slot
    i holds a vector), the slots' rowids as int64, and their vectors as ``size * dim`` float32."""
    size, validity, rowids, vectors = block
    valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
    return (np.frombuffer(rowids, dtype=np.int64)[:size][valid],
            np.frombuffer(vectors, dtype=np.float32).reshape(-1, dim)[:size][valid])


class MatrixBuilder:
    """A ``VectorMatrix`` made a block at a time (``add``), then finished in steps
    (``finishing``): the page's worker loads a large library between other work this way,
    answering a query between two steps instead of after the whole load."""

    def __init__(self, dim: int, expected: int):
        self.dim, self.expected = dim, expected
        keep_rows = expected * dim * 4 <= vectors.MAX_FLOAT_BYTES
        # A binary matrix gets room for vectors.RECENTRE_SHARE more rows (see ``VectorMatrix.extended``).
        cap = expected + (int(vectors.RECENTRE_SHARE * expected) if expected >= vectors.BINARY_FROM else 0)
        self.ids = np.zeros(cap, np.int64)
        self.rows = np.zeros((cap, dim), np.float32) if keep_rows else None
        self.codes = None if keep_rows else np.zeros((cap, dim), np.int8)
        self.scales = None if keep_rows else np.zeros(cap, np.float32)
        self.total = np.zeros(dim, np.float64)
        self.at = 0
        self.matrix: VectorMatrix | None = None  # set once ``finishing`` is done

    def add(self, block_ids: np.ndarray, block: np.ndarray) -> None:
        """Rows in any order, not yet normalised. A binary matrix's room takes rows written
        while the blocks were read (see ``replay``)."""
        block = _normalised(np.asarray(block, dtype=np.float32).reshape(len(block_ids), self.dim))
        at, end = self.at, self.at + len(block_ids)
        if end > len(self.ids):
            raise ValueError(f"more than the {self.expected} vectors expected")
        self.ids[at:end] = block_ids
        if self.rows is not None:
            self.rows[at:end] = block
        else:
            self.codes[at:end], self.scales[at:end] = _int8(block)
        self.total += block.sum(axis=0, dtype=np.float64)
        self.at = end

    def finishing(self) -> Iterator[None]:
        """Sorts by id and makes the binary codes, one block of rows per step."""
        at = self.at
        if np.any(self.ids[1:at] <= self.ids[: at - 1]):
            order = np.argsort(self.ids[:at], kind="stable")
            for a in (self.ids, self.rows, self.codes, self.scales):
                if a is not None:
                    a[:at] = a[:at][order]
        m = VectorMatrix(*(a if a is None else a[:at] for a in (self.ids, self.rows, self.codes, self.scales)))
        if at >= vectors.BINARY_FROM:
            centre = (self.total / at).astype(np.float32)
            words = (-(-self.dim // 8) + 7) // 8  # bytes per row, padded to whole uint64 words
            bits = np.zeros((len(self.ids), words), np.uint64)
            for i in range(0, at, vectors._BLOCK):
                yield
                bits[i : min(i + vectors._BLOCK, at)] = _bits(m._dense(slice(i, i + vectors._BLOCK)), centre)
            room = Room(self.ids, self.rows, self.codes, self.scales, bits, at)
            m = VectorMatrix(m.ids, m.rows, m.codes, m.scales, bits[:at], centre, room)
        self.matrix = m


def replay(m: VectorMatrix, writes: list[tuple]) -> VectorMatrix | None:
    """``m``, read a block at a time while this connection wrote, as the library is after
    those ``writes`` (``(gone chunk ids, ids of vectors written, their vectors)``, in order):
    a block read before a write lacks it, one read after has it already. None when a fresh
    read is needed instead (``VectorMatrix.without`` and ``extended`` say when)."""
    for gone, ids, rows in writes:
        gone = np.asarray(gone, dtype=np.int64)
        if len(gone) and np.isin(gone, m.ids).any():
            m = m.without(gone)
            if m is None:
                return None
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids):
            if m.gone is not None and np.isin(ids, m.ids[m.gone]).any():
                return None  # an id used again after its chunk was deleted
            fresh = ~np.isin(ids, m.ids)
            m = m.extended(ids[fresh], np.asarray(rows, dtype=np.float32).reshape(len(ids), -1)[fresh])
            if m is None:
                return None
    return m


class Room:
    """A binary matrix's arrays as allotted, past its rows: ``used`` rows are taken."""

    def __init__(self, ids, rows, codes, scales, bits, used: int):
        self.arrays = (ids, rows, codes, scales, bits)
        self.used = used

    def take(self, m: VectorMatrix, ids: np.ndarray, rows: np.ndarray) -> VectorMatrix | None:
        """``m`` with ``ids`` (ascending, all past its last) and their rows written into the
        room after it; None when ``m`` is not the latest matrix of this room, the ids are not
        past its last, or there is no room left."""
        all_ids, all_rows, all_codes, all_scales, all_bits = self.arrays
        at, end = self.used, self.used + len(ids)
        if len(m.ids) != at or (at and ids[0] <= m.ids[-1]) or end > len(all_ids):
            return None
        rows = _normalised(rows)
        all_ids[at:end] = ids
        if all_rows is not None:
            all_rows[at:end] = rows
        else:
            all_codes[at:end], all_scales[at:end] = _int8(rows)
        grown = VectorMatrix(*(a if a is None else a[:end] for a in (all_ids, all_rows, all_codes, all_scales)))
        all_bits[at:end] = _bits(grown._dense(slice(at, end)), m.centre)
        self.used = end
        gone = None if m.gone is None else np.concatenate([m.gone, np.zeros(end - at, bool)])
        return VectorMatrix(grown.ids, grown.rows, grown.codes, grown.scales, all_bits[:end], m.centre, self, gone)
