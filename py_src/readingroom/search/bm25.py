"""The lexical leg in memory: FTS5's own ``bm25()`` ranking, computed with numpy.

Why: FTS5 computes ``bm25()`` row by row for every chunk matching any query word (about a
third of the corpus for a typical SciFact claim), which made it the slowest stage of a
query and the one that grows with the library. Here each term's postings are kept as two
arrays (chunk positions and the term's precomputed weight in each chunk); a query sums
``idf * weight`` over its terms into one score array and takes the top k by partial sort.

Same answer as FTS5, to the last bit:

- The postings come from the engine's own index, one term at a time, the first time a query
  uses it (or while the library opens, for its commonest terms: see ``common_terms``), as
  each dialect's ``term_postings`` gives them: chunk ids and the term's ``f`` in each. On
  SQLite they are FTS5's (the ``fts5vocab`` instance table, ``instance_postings``), and the
  chunk lengths and the row count come from its ``docsize`` and averages records, so the
  documents are tokenised by FTS5, not here.
  Query words are stemmed by ``porter.py`` (checked against FTS5 in the tests); a query
  with a word that is not one plain ASCII token goes to FTS5 (``query_terms`` says None).
- The formula is FTS5's, evaluated in the same order in float64: per phrase,
  ``idf = log((N - n + 0.5) / (n + 0.5))`` with N rows and n rows containing the term,
  clamped to 1e-6 when it is not positive (FTS5 does this for terms in more than half the
  rows); ``f`` is the term's count in the text column plus 0.5 times its count in the
  heading column (the column weights of ``sql.BM25_WEIGHTS``); D is the chunk's token
  count over both columns, stop words included, and avgdl is FTS5's total token count over
  N; with k1 = 1.2 and b = 0.75 the weight is
  ``(f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))`` and the score is the sum of
  ``idf * weight`` over the query's phrases, in query order (a word given twice, or two
  words with one stem, count twice, as in FTS5).
- Ties (equal scores, e.g. the same text twice) are broken by the smaller chunk id, as
  the FTS5 statement's ``ORDER BY rank, rowid`` does.

Memory: 12 bytes per posting kept (int32 position, float64 weight), least recently used
terms dropped beyond ``MAX_POSTINGS_BYTES``, and up to 24 bytes per chunk (its id, length
and a slot of the id lookup). A library whose chunk arrays alone pass the bound, or a term
whose postings do, stays with FTS5.

A large SQLite library keeps its common words' postings in a table of their own
(``store/sqlite_postings.py``), which ``term_postings`` reads before FTS5's instances.
"""

from __future__ import annotations

import heapq
import math
import threading
from typing import Callable, Generator

import numpy as np

from . import porter
from .fts import terms
from ..store.sqlite_sql import BM25_WEIGHTS
from .vectors import best_first

K1, B = 1.2, 0.75
MIN_IDF = 1e-6
MAX_POSTINGS_BYTES = 128 * 1024 * 1024
# Preloaded while the library opens (``common_terms``): the most common terms, whose postings
# are the costliest to read on first use (a stop word at 100,000 chunks is in 90,000 of them)
# and the likeliest to be in a query; at most this many, in at most this share of the bound.
PRELOAD_TERMS = 256
PRELOAD_SHARE = 0.5
_POSTING_BYTES = 4 + 8
_CHUNK_BYTES = 8 + 8 + 4 + 8  # id, length norm, length, and at most two slots of the id lookup (``_positions``)


def query_terms(text: str) -> list[str] | None:
    """The FTS5 term of each phrase of ``fts.match_expression(text)``, in order; None when
    a phrase is not a single ASCII token (FTS5 then answers: several tokens make a phrase
    query, and non-ASCII folding is FTS5's own)."""
    out = []
    for word in terms(text):
        pieces = [p for p in word.split("_") if p]  # "_" separates tokens for FTS5, not for \w
        if not pieces:
            continue  # FTS5 drops an empty phrase
        if len(pieces) > 1 or not word.isascii():
            return None
        out.append(porter.stem(pieces[0]))
    return out


def varints(buf: bytes) -> np.ndarray:
    """SQLite varints (7 bits a byte, most significant first, high bit = more follows)."""
    b = np.frombuffer(buf, dtype=np.uint8).astype(np.int64)
    if len(b) == 0:
        return np.zeros(0, np.int64)
    ends = np.flatnonzero(b < 0x80)
    starts = np.concatenate(([0], ends[:-1] + 1))
    owner = np.repeat(np.arange(len(ends)), ends - starts + 1)
    shift = 7 * (ends[owner] - np.arange(len(b)))
    return np.add.reduceat((b & 0x7F) << shift, starts)


Postings = tuple["np.ndarray", "np.ndarray"]  # chunk ids (int64), the term's f in each (float64)


def postings(ids: np.ndarray, f: np.ndarray) -> Postings:
    return np.asarray(ids, dtype=np.int64), np.asarray(f, dtype=np.float64)


def instance_counts(instances: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A term's chunks and its count in each column (text, heading), from FTS5's instances
    in index order, given as text: one ``chunk_id * 2 + column`` per occurrence (0 text,
    1 heading)."""
    v = np.fromstring(instances or "", dtype=np.int64, sep=" ")
    if len(v) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    doc, column = v >> 1, v & 1
    first = np.flatnonzero(np.concatenate(([True], doc[1:] != doc[:-1])))
    heading = np.add.reduceat(column, first)
    return doc[first], np.diff(np.append(first, len(v))) - heading, heading


def instance_postings(instances: str | None) -> Postings:
    """A term's postings from FTS5's instances (see ``instance_counts``)."""
    ids, text, heading = instance_counts(instances)
    return postings(ids, text * BM25_WEIGHTS[0] + heading * BM25_WEIGHTS[1])


def packed_postings(ids: np.ndarray, packed: np.ndarray, heading_bits: int) -> Postings:
    """A term's postings from counts packed as ``text << heading_bits | heading`` (Postgres's
    postings, SQLite's kept ones)."""
    n = packed.astype(np.int64)
    return postings(ids, (n >> heading_bits) * BM25_WEIGHTS[0] + (n & ((1 << heading_bits) - 1)) * BM25_WEIGHTS[1])


def fts5_lengths(ids_text: str | None, sizes: bytes, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Chunk ids and their token counts over all columns, from FTS5's ``docsize`` rowids as
    text and its ``sz`` blobs concatenated (``columns`` varints each)."""
    ids = np.fromstring(ids_text or "", dtype=np.int64, sep=" ")
    per_column = varints(sizes).reshape(len(ids), columns) if len(ids) else np.zeros((0, columns), np.int64)
    return ids, per_column.sum(axis=1)


def fts5_totals(averages: bytes, columns: int) -> tuple[int, int]:
    """The row count and the total tokens over all columns, from FTS5's averages record."""
    avg = varints(averages)
    return (int(avg[0]) if len(avg) else 0), int(avg[1 : 1 + columns].sum())


class LexicalIndex:
    """Chunk lengths for a whole library and the postings of the terms queries have used."""

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, rows: int, total_tokens: int,
                 max_bytes: int = MAX_POSTINGS_BYTES):
        order = np.argsort(ids, kind="stable")
        self.ids = np.ascontiguousarray(np.asarray(ids, dtype=np.int64)[order])
        self.lengths = np.asarray(lengths, dtype=np.int32)[order]  # tokens per chunk, for ``changed``
        self.rows, self.total_tokens = int(rows), int(total_tokens)
        avgdl = float(total_tokens) / float(rows) if rows else 1.0
        # k1 * (1 - b + b * D / avgdl), grouped as C groups it in FTS5's bm25.
        self.norm = K1 * ((1 - B) + (B * self.lengths.astype(np.float64)) / avgdl)
        self.max_bytes = max_bytes
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lookup: np.ndarray | None = None  # chunk id - ids[0] -> position (``_positions``)
        self._bytes = 0
        self._lock = threading.Lock()  # serve's threads share one index: its postings move as one

    @classmethod
    def from_fts5(cls, ids_text: str | None, sizes: bytes, averages: bytes, columns: int,
                  max_bytes: int = MAX_POSTINGS_BYTES) -> "LexicalIndex":
        """From FTS5's shadow tables: the rowids of ``docsize`` as text, its ``sz`` blobs
        concatenated (``columns`` varints each: tokens per column), and the averages
        record (the row count, then total tokens per column)."""
        ids, lengths = fts5_lengths(ids_text, sizes, columns)
        return cls(ids, lengths, *fts5_totals(averages, columns), max_bytes)

    def changed(self, gone: np.ndarray, ids: np.ndarray, lengths: np.ndarray, rows: int,
                total_tokens: int) -> "LexicalIndex":
        """This index after the chunks ``gone`` were deleted and ``ids`` (``lengths`` tokens
        each) added, ``rows`` and ``total_tokens`` as FTS5 now counts them: what ``from_fts5``
        would read after the write, without reading every chunk's length again (a second at a
        million chunks natively). No postings are kept: their weights change with the average."""
        stay = ~np.isin(self.ids, np.asarray(gone, dtype=np.int64)) if len(gone) else slice(None)
        return LexicalIndex(np.concatenate([self.ids[stay], np.asarray(ids, dtype=np.int64)]),
                            np.concatenate([self.lengths[stay], np.asarray(lengths, dtype=np.int32)]),
                            rows, total_tokens, self.max_bytes)

    @staticmethod
    def fits(chunks: int, max_bytes: int = MAX_POSTINGS_BYTES) -> bool:
        return chunks * _CHUNK_BYTES <= max_bytes

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def nbytes(self) -> int:
        """Memory held: the chunk arrays and the postings kept."""
        return self.ids.nbytes + self.norm.nbytes + self.lengths.nbytes + self._bytes + (self._lookup.nbytes if self._lookup is not None else 0)

    def _load(self, term: str, found: Postings) -> tuple[np.ndarray, np.ndarray] | None:
        """A term's postings as ``term_postings`` read them, kept for later queries unless
        empty (a word the library lacks costs one index seek each time, and is never kept: a
        stream of made-up words must not grow memory). None when the term alone is larger
        than the bound (the query then goes to the engine)."""
        docs, f = found
        if len(docs) == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.float64)
        pos = self._positions(docs)
        if pos is None:
            raise ValueError(f"the index lists chunks for {term!r} whose lengths are not kept")
        weight = (f * (K1 + 1.0)) / (f + self.norm[pos])
        size = len(pos) * _POSTING_BYTES
        room = self.max_bytes - len(self.ids) * _CHUNK_BYTES
        if size > room:
            return None
        while self._postings and self._bytes + size > room:
            old = next(iter(self._postings))  # least recently used first (see top)
            self._bytes -= len(self._postings.pop(old)[0]) * _POSTING_BYTES
        self._postings[term] = (pos, weight)
        self._bytes += size
        return pos, weight

    def _positions(self, docs: np.ndarray) -> np.ndarray | None:
        """Where each chunk id is in ``ids`` (int32); None when one is not there. Ids that
        are nearly consecutive (the usual case) are looked up in a table of their range,
        made on first use; others are found by binary search."""
        if self._lookup is None and len(self.ids) and self.ids[-1] - self.ids[0] < 2 * len(self.ids) + 1024:
            self._lookup = np.full(int(self.ids[-1] - self.ids[0]) + 1, -1, np.int32)
            self._lookup[self.ids - self.ids[0]] = np.arange(len(self.ids), dtype=np.int32)
        if self._lookup is not None:
            at = docs - self.ids[0]
            if len(at) and (at.min() < 0 or at.max() >= len(self._lookup)):
                return None
            pos = self._lookup[at]
            return None if np.any(pos < 0) else pos
        pos = np.searchsorted(self.ids, docs)
        if np.any(pos >= len(self.ids)) or np.any(self.ids[np.minimum(pos, len(self.ids) - 1)] != docs):
            return None
        return pos.astype(np.int32)

    def common_terms(self, read_page: Callable[[str], list]) -> Generator[str, None, list[str]]:
        """The terms to preload, most common first: at most ``PRELOAD_TERMS``, whose postings
        fill at most ``PRELOAD_SHARE`` of the bound. ``read_page(after)`` gives the next
        ``(term, chunks containing it)`` pairs in term order after ``after`` (FTS5's row
        vocabulary); one step per page, so a large vocabulary is read between other work."""
        best: list[tuple[int, str]] = []
        after = ""
        while True:
            page = read_page(after)
            for term, count in page:
                item = (int(count), str(term))
                if len(best) < PRELOAD_TERMS:
                    heapq.heappush(best, item)
                elif item > best[0]:
                    heapq.heapreplace(best, item)
            yield "terms"
            if not page:
                break
            after = str(page[-1][0])
        room = PRELOAD_SHARE * (self.max_bytes - len(self.ids) * _CHUNK_BYTES)
        out = []
        for count, term in sorted(best, reverse=True):
            if count * _POSTING_BYTES <= room:
                room -= count * _POSTING_BYTES
                out.append(term)
        return out

    def preload(self, term: str, found: Postings) -> None:
        """Keep a term's postings before any query asks for it (see ``common_terms``)."""
        with self._lock:
            if term not in self._postings:
                self._load(term, found)

    def top(self, query: list[str], n: int, read: Callable[[str], Postings],
            allowed: np.ndarray | None = None) -> list[tuple[int, float]] | None:
        """``(chunk_id, score)`` for the chunks matching any term, best first, at most ``n``;
        the score is minus FTS5's ``bm25()``. ``read(term)`` reads the postings of a term not
        kept yet (see ``_load``). None when a term is too large to hold."""
        if n <= 0 or not query or not len(self.ids):
            return []
        with self._lock:
            return self._top(query, n, read, allowed)

    def _top(self, query, n, read, allowed):
        scores = np.zeros(len(self.ids), dtype=np.float64)
        for term in query:
            kept = self._postings.pop(term, None)
            if kept is not None:
                self._postings[term] = kept  # most recently used goes last
            else:
                kept = self._load(term, read(term))
                if kept is None:
                    return None
            pos, weight = kept
            df = len(pos)
            idf = math.log((self.rows - df + 0.5) / (df + 0.5))
            if idf <= 0.0:
                idf = MIN_IDF
            scores[pos] += idf * weight
        hit = np.flatnonzero(scores != 0)  # a bool mask: several times quicker than on floats
        if allowed is not None:
            hit = hit[np.isin(self.ids[hit], np.asarray(allowed, dtype=np.int64))]
        if not len(hit):
            return []
        return best_first(scores[hit], self.ids[hit], n)
