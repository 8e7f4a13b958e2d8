"""The in-memory search legs an ``Index`` keeps: the vector matrix (vectors.py) and the BM25
lengths and postings (bm25.py), built on first use or by a warm-up run in small steps, and kept
until the library changes.

``KeptLegs`` is a part of ``Index`` (store/index.py): it reads through the index's ``store``
and ``sql``, knows a change by the index's ``_writes``, and keeps its own state, which
``Index.__init__`` starts with ``_start_legs``.
"""

from __future__ import annotations

import time
from typing import Callable, Generator, Iterator, TypeVar

from ..search import vectors
from ..search.bm25 import LexicalIndex
from ..errors import StorageError
from ..search.matrix_build import MatrixBuilder, replay, vec0_block
from ..search.vectors import VectorMatrix

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


def worth_keeping(chunks: int, least_chunks: int = QUICK_SCANS_UP_TO) -> bool:
    """Whether a library of ``chunks`` keeps its common words' postings in a table of their
    own (store/sqlite_postings.py): past what the page scans quickly, by default."""
    return chunks > least_chunks


def _result(steps: Generator[object, None, T]) -> T:
    """What a generator of steps returns, all its steps taken at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


class KeptLegs:
    def _start_legs(self) -> None:
        self._kept: dict[str, tuple[tuple, object]] = {}  # what ``_keep`` holds, by name
        self._warm: Iterator[str] | None = None  # the warm-up under way (``warm_steps``)
        self.warm_pending = False  # a warm-up is about to start (the worker's background task)
        self.load_ms: dict[str, float] = {}  # how long the latest loads of the legs took
        # While the vector matrix is read a few blocks at a time (``_matrix_steps``), this
        # connection's writes in between, for ``matrix_build.replay``, and its commits: a
        # commit that noted nothing (a re-index, a bundle) cannot be followed.
        self._writes_seen: list[tuple] | None = None
        self._commits_seen = 0

    def _note(self, gone=(), ids=(), vectors=None) -> None:
        """A commit of this connection's: chunks ``gone``, vectors written for ``ids``."""
        if self._writes_seen is not None:
            self._writes_seen.append((list(gone), list(ids), vectors))

    def _key(self) -> tuple:
        """What the kept legs were built from: commits here, and ``PRAGMA data_version``,
        which changes when another connection commits."""
        return (self._writes, self.store.query(self.sql.DATA_VERSION)[0][0])

    def _kept_now(self, name: str, key: tuple) -> tuple[bool, object]:
        kept = self._kept.get(name)
        return (True, kept[1]) if kept is not None and kept[0] == key else (False, None)

    def _carry(self, before: tuple, kept: dict[str, tuple[bool, object]]) -> None:
        """After a commit of this connection's that did not change what the ``kept`` legs
        (``_kept_now`` before it, under ``before``) were built from, they stay kept under the
        new key; not when another connection committed in between (then all load again)."""
        after = self._key()
        if after[1] != before[1]:
            return
        for name, (found, value) in kept.items():
            if found:
                self._kept[name] = (after, value)

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

    @staticmethod
    def _matrix_without(kept: tuple[bool, object], gone: list[int]) -> tuple[bool, object]:
        """The kept vector matrix (``_kept_now`` before a write that deleted the chunks ``gone``
        and wrote no vector) as it is after it, for ``_carry`` (``VectorMatrix.without``)."""
        found, matrix = kept
        if not gone:
            return kept
        if not found or matrix is None:
            return False, None
        after = matrix.without(gone)
        return after is not None, after

    def lexical_index(self) -> LexicalIndex | None:
        """Chunk lengths for the in-memory BM25 (bm25.py), whose postings fill as queries use
        terms (see ``_keep``). None when the library is too large to keep them, or its
        engine ranks the words itself."""
        if not self.sql.IN_MEMORY_LEXICON:
            return None
        return self._keep("lexical", self._build_lexical)

    def _build_lexical(self) -> LexicalIndex | None:
        return self.sql.build_lexicon(self.store)

    def _lexicon_after(self, kept: tuple[bool, object], gone: list[int], added: list[int]) -> tuple[bool, object]:
        """The kept lexical leg (``_kept_now`` before a write of this connection's that deleted
        the chunks ``gone`` and added ``added``) as it is after it, for ``_carry``: at a
        million chunks reading every chunk's length again costs seconds in the page, and a
        query or status() waits behind it. Not found when it cannot be followed that way."""
        found, lexicon = kept
        if not gone and not added:
            return kept
        change = getattr(self.sql, "changed_lexicon", None)
        if not found or lexicon is None or change is None:
            return False, None
        after = change(self.store, lexicon, gone, added)
        return after is not None, after

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
        for _ in range(3):  # again, should the library change in a way the read cannot follow
            if self.mismatch or self._kept_now("vectors", self._key())[0]:
                break
            yield from self._matrix_steps(self._key())
        key = self._key()  # this connection's writes meanwhile were followed (the lexicon too)
        found, lexicon = self._kept_now("lexical", key)
        if not found:
            return
        if lexicon is not None and len(lexicon) <= QUICK_SCANS_UP_TO:
            t1 = time.perf_counter()
            self.store.execute_script(self.sql.FTS_TERMS_TABLE)
            terms = yield from lexicon.common_terms(
                lambda after: self.store.query(self.sql.FTS_TERM_COUNTS, (after, COMMON_TERMS_PAGE)))
            self.load_ms["terms_found"] = _ms_since(t1)
            done, read = yield from self._read_terms(lexicon, terms, key)
            if not done:
                return  # the library changed: what would be read now is another's
            self.load_ms["terms_read"] = round(read * 1000, 1)
            self.load_ms["terms"] = _ms_since(t1)
        refill = getattr(self.sql, "refill_postings", None)
        if lexicon is not None and len(lexicon) > QUICK_SCANS_UP_TO and refill is not None:
            t1 = time.perf_counter()
            for step in refill(self.store):  # kept postings that are missing (sqlite_postings.py)
                yield step
                if self._key() != key:
                    return
            self.load_ms["postings_kept"] = _ms_since(t1)
        self.load_ms["warm_up"] = _ms_since(t0)

    def preload_common_words(self, stop: Callable[[], bool] = lambda: False) -> int:
        """For a server (``readingroom serve`` on Postgres, in a thread of its own while it
        starts): the postings of the library's commonest terms (``COMMON_TERMS``, chosen as
        bm25.py's ``common_terms`` chooses them), so the first questions people ask do not
        wait for them. Stops at ``stop()`` or when the library changes; the number read."""
        common = self.sql.COMMON_TERMS
        lexicon = self.lexical_index() if common else None
        if lexicon is None:
            return 0
        key = self._key()
        rows = self.store.query(common)
        terms = _result(lexicon.common_terms(lambda after: [] if after else rows))
        return sum(1 for _ in self._read_terms(lexicon, terms, key, stop))

    def keep_postings(self, least_chunks: int = QUICK_SCANS_UP_TO) -> dict | None:
        """For a library of more than ``least_chunks`` chunks (by default the largest the page
        warms up with its commonest words' postings), whose engine can keep them: the common
        words' postings in a table of their own (store/sqlite_postings.py), unless they are
        there already and followed by what was written since. What was kept; None when nothing
        was to be done. No write to the documents: the kept legs stay valid."""
        keep = getattr(self.sql, "keep_postings", None)
        if keep is None or not worth_keeping(self.counts()[1], least_chunks) or self.sql.postings_kept(self.store):
            return None
        return keep(self.store)

    def _read_terms(self, lexicon: LexicalIndex, terms: list[str], key: tuple,
                    stop: Callable[[], bool] = lambda: False) -> Generator[str, None, tuple[bool, float]]:
        """Each term's postings read and kept in ``lexicon``, one step a term; returns whether
        all were read (not when ``stop()``, or the library changed) and the seconds reading took."""
        read = 0.0
        for term in terms:
            if stop() or self._key() != key:
                return False, read
            t0 = time.perf_counter()
            found = self.sql.term_postings(self.store, term)
            read += time.perf_counter() - t0
            lexicon.preload(term, found)
            yield "terms"
        return True, read

    def _matrix_steps(self, key: tuple) -> Iterator[str]:
        """The vector matrix read a few of vec0's blocks at a time, then finished in steps;
        kept under ``key`` (the index as it was when the read began), or, when this
        connection wrote in between (a file added words first while a million vectors load),
        under the key after those writes, which it follows (``matrix_build.replay``)."""
        t0 = time.perf_counter()
        self._writes_seen, self._commits_seen = [], 0
        try:
            yield from self._matrix_read(key, t0)
        finally:
            self._writes_seen = None

    def _matrix_read(self, key: tuple, t0: float) -> Iterator[str]:
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
        now = self._key()
        if now != key:
            writes = self._writes_seen or []
            followed = m is not None and now[1] == key[1] and len(writes) == self._commits_seen
            m = replay(m, writes) if followed else None
            if m is None or len(m) != self.embedded_count():
                return  # not followed: loaded again (the warm-up tries again; else the next query)
            key, chunks = now, len(m)
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
