"""The in-memory search legs an ``Index`` keeps: the vector matrix (vectors.py) and the BM25
lengths and postings (bm25.py), built on first use or by the warm-up (store/warmup.py) in
small steps, and kept until the library changes, or carried over the index's own writes.

``KeptLegs`` is a part of ``Index`` (store/index.py): it reads through the index's ``store``
and ``sql``, knows a change by the index's ``_writes``, and keeps its own state, which
``Index.__init__`` starts with ``_start_legs``.
"""

from __future__ import annotations

import time
from typing import Callable, Generator, Iterator, TypeVar

from ..search.bm25 import LexicalIndex
from ..search.names import NAMES_UP_TO, NameIndex
from ..search.vectors import VectorMatrix

T = TypeVar("T")

# Up to this many chunks the page's database has an in-memory copy (sqlite-host.js keeps one
# below 1 GB, ~385,000 chunks), so a full scan is quick: a query typed while the vectors load is
# answered by vec0 (~125 ms at 100,000), and the warm-up finds the commonest terms in FTS5's
# vocabulary. Past it the database is read from OPFS, where either scan takes minutes: a query
# then finishes the load instead, and terms load on first use only.
QUICK_SCANS_UP_TO = 200_000
# While a warm-up is under way, a query reads the documents' names itself (finishing the build
# the warm-up began) only when at most this many are left: ~90 ms in the page after a reload.
# With more, it goes without the name leg and says so (``names_later``); the warm-up reads them.
NAMES_AT_QUERY = 1_000
WARMING, READY, COLD = "warming", "ready", "cold"
SEARCH_MESSAGES = {
    WARMING: "Search is getting ready: the first answers may take a moment longer.",
    COLD: "Search loads its index on the next question.",
}


def worth_keeping(chunks: int, least_chunks: int = QUICK_SCANS_UP_TO) -> bool:
    """Whether a library of ``chunks`` keeps its common words' postings in a table of their
    own (store/sqlite_postings.py): past what the page scans quickly, by default."""
    return chunks > least_chunks


def _ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


class _Build:
    """A build in steps (a generator returning what it built) that more than one caller may
    take further: the warm-up a step at a time, a query arriving between two of its steps all
    the rest. What it built is kept once it ends; later steps do nothing."""

    def __init__(self, key: tuple, steps: Generator[object, None, object]):
        self.key, self.steps = key, steps
        self.done, self.value = False, None
        self.ms = 0.0  # time spent in its steps, whoever took them
        self.read = 0  # what its last step said it had read so far (a count), 0 before any

    def step(self) -> bool:
        """One step; False once the build has ended (``value`` is then what it built)."""
        if self.done:
            return False
        t0 = time.perf_counter()
        try:
            got = next(self.steps)
            self.read = got if isinstance(got, int) else self.read
            return True
        except StopIteration as end:
            self.done, self.value = True, end.value
            return False
        finally:
            self.ms += (time.perf_counter() - t0) * 1000


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
        self._names_build: _Build | None = None  # the name leg's index being built (``_name_steps``)

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

    def names_later(self) -> bool:
        """Whether a query now goes without the name leg: a warm-up is under way (or about to
        start) and more than ``NAMES_AT_QUERY`` names are still to be read. The warm-up reads them
        next; a query that read them itself would wait for all of them (0.5-1.3 s for 5,183 names
        in the page after a reload, most of a first question's time)."""
        if self._warm is None and not self.warm_pending:
            return False
        key = self._key()
        if self._kept_now("names", key)[0]:
            return False
        docs = self.counts()[0]
        if docs > NAMES_UP_TO:
            return False  # the leg is off for such a library: nothing to wait for
        build = self._names_build
        left = docs - (build.read if build is not None and build.key == key else 0)
        return left > NAMES_AT_QUERY

    def name_index(self) -> NameIndex | None:
        """The documents' names as words (search/names.py), kept until the library changes;
        None for an empty library or one of more than ``NAMES_UP_TO`` documents. A build the
        warm-up began for the library as it is now is finished, not begun again (``retrieve``
        asks ``names_later`` first)."""
        key = self._key()
        found, value = self._kept_now("names", key)
        if found:
            return value  # type: ignore[return-value]
        for _ in self._name_steps(key):
            pass
        return self._kept_now("names", key)[1]  # type: ignore[return-value]

    def _name_steps(self, key: tuple) -> Iterator[str]:
        """The name leg's index built ``NAMES_PER_STEP`` names a step and kept under ``key``
        (after a reload the page stems every word of 5,000 names for the first time: ~0.7 s
        at once, which a query arriving meanwhile would wait for)."""
        if self._kept_now("names", key)[0]:
            return
        build = self._names_build
        if build is None or build.key != key:
            docs = self.counts()[0]
            if not 0 < docs <= NAMES_UP_TO:
                self._kept["names"] = (key, None)
                return
            rows = [(int(r[0]), r[1]) for r in self.document_rows()]
            build = self._names_build = _Build(key, NameIndex.in_steps(rows))
        while build.step():
            yield "names"
        self._kept["names"] = (key, build.value)
        self.load_ms["names"] = round(build.ms, 1)
        if self._names_build is build:
            self._names_build = None

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
