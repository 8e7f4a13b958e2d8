"""The warm-up: an ``Index``'s in-memory search legs (store/legs.py) loaded in small steps
after a library opens, so the first question a person types does not pay for them, and a
query arriving meanwhile is answered between two steps. The vectors are read a few of
sqlite-vec's blocks at a time, following this connection's writes in between
(``matrix_build.replay``); then the postings of the commonest words.

``WarmUp`` is a part of ``Index`` (store/index.py), beside ``KeptLegs``, whose kept legs it fills.
"""

from __future__ import annotations

import time
from typing import Callable, Generator, Iterator, TypeVar

from . import legs
from .legs import _ms_since
from ..errors import StorageError
from ..search import vectors
from ..search.bm25 import LexicalIndex
from ..search.matrix_build import MatrixBuilder, replay, vec0_block
from ..search.vectors import VectorMatrix

T = TypeVar("T")

WARM_BLOCKS = 4  # vec0 blocks (1,024 vectors each) read per warm-up step
COMMON_TERMS_PAGE = 4_000  # vocabulary entries read per warm-up step while finding common terms


def _result(steps: Generator[object, None, T]) -> T:
    """What a generator of steps returns, all its steps taken at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


class WarmUp:
    def warm_steps(self) -> Iterator[str]:
        """Loads the in-memory legs in small steps, naming each as it is done ("lexical",
        "names", "vectors", "terms"): the page's worker runs one step at a time while it is idle, so
        the first query a person types does not pay for the load, and a query arriving
        meanwhile is answered between two steps (see ``_keep``). Last come the postings of
        the library's most common terms (bm25.py's ``common_terms``; up to
        ``QUICK_SCANS_UP_TO`` chunks): the costliest to read on first use, and the likeliest
        to be asked. This connection's adds, deletes and vectors written in between are
        followed (``_matrix_steps``); another write makes what was loaded stale, and it is
        read again."""
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
        # The name leg's index (search/names.py) before the vectors: a query arriving before it
        # is read goes without the leg when many names are left (legs.names_later: 0.6-1.3 s for
        # 5,183 names in the page after a reload), while one arriving before the vectors are
        # read is answered by vec0 (up to ``QUICK_SCANS_UP_TO`` chunks).
        yield from self._name_steps(self._key())
        for _ in range(3):  # again, should the library change in a way the read cannot follow
            if self.mismatch or self._kept_now("vectors", self._key())[0]:
                break
            yield from self._matrix_steps(self._key())
        yield from self._name_steps(self._key())  # nothing, unless this connection wrote meanwhile
        key = self._key()  # this connection's writes meanwhile were followed (the lexicon too)
        found, lexicon = self._kept_now("lexical", key)
        if not found:
            return
        if lexicon is not None and len(lexicon) <= legs.QUICK_SCANS_UP_TO:
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
        if lexicon is not None and len(lexicon) > legs.QUICK_SCANS_UP_TO and refill is not None:
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
