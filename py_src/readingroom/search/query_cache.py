"""The query's vector, ready before it is needed: a small LRU cache of query embeddings, and
typing ahead (the page asks for a question's vector while it is still being typed).

Two texts share a vector when the model would see the same input: the key is the query as
retrieval embeds it (whitespace collapsed, cut at ``MAX_QUERY_CHARS``), and, for ASCII text,
lower-cased, because all-MiniLM-L6-v2's tokenizer lower-cases its input anyway (its
normaliser has ``lowercase: true``; ``tests/test_query_cache.py`` holds the model to it).
Other text keeps its case: Unicode case mappings are not worth trusting to be the
tokenizer's own. The model id is part of the key.

``cache_key`` and ``LRU`` are pure; ``QueryVectors`` wires them to an ``Embedder``, and says
where each query's vector came from: ``embedded`` (asked for now), ``typed_ahead`` (asked for
while it was typed, before the search) or ``cache`` (an earlier search asked for it).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, Awaitable, Generic, TypeVar

import numpy as np

from .options import MAX_QUERY_CHARS
from ..seams import Embedder

CACHE_SIZE = 64  # query vectors kept (64 x 384 float32: 96 KB)
EMBEDDED, TYPED_AHEAD, CACHE = "embedded", "typed_ahead", "cache"

V = TypeVar("V")


def normalise(text: str) -> str:
    """The text retrieval embeds, as the model reads it (see the module docstring)."""
    text = " ".join(text.split())[:MAX_QUERY_CHARS]
    return text.lower() if text.isascii() else text


def cache_key(text: str, model_id: str) -> str:
    return f"{model_id}\x00{normalise(text)}"


class LRU(Generic[V]):
    """At most ``size`` entries; a get or a put makes its key the most recent."""

    def __init__(self, size: int = CACHE_SIZE):
        self.size = max(1, int(size))
        self._items: OrderedDict[str, V] = OrderedDict()

    def get(self, key: str) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: str, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def drop(self, key: str) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items


class _Entry:
    """A vector, or the embedding under way that will give it; ``source`` is how it came."""

    def __init__(self, source: str, future: asyncio.Future | None = None, vector: np.ndarray | None = None):
        self.source, self.future, self.vector = source, future, vector
        self.used = False  # a search has used it (from then on it is "cache")


async def _ready(vector: np.ndarray) -> np.ndarray:
    return vector[None, :]


class QueryVectors:
    """The LRU of query vectors, for one library."""

    def __init__(self, size: int = CACHE_SIZE):
        self.lru: LRU[_Entry] = LRU(size)

    def embed_query(self, embedder: Embedder, text: str) -> tuple[Awaitable[np.ndarray], str]:
        """An awaitable of the (1, dim) vector for ``text``, and where it comes from. A miss
        sends the request at once (the page's embedder starts on call), like ``embed``."""
        key = cache_key(text, embedder.model_id)
        entry = self.lru.get(key)
        if entry is not None:
            source = CACHE if entry.used else entry.source
            entry.used = True
            if entry.vector is not None:
                return _ready(entry.vector), source
            if entry.future is not None:
                return self._from_future(entry.future), source
        request = embedder.embed([text])
        return self._keep(key, request), EMBEDDED

    async def _from_future(self, future: asyncio.Future) -> np.ndarray:
        return (await asyncio.shield(future))[None, :]

    async def _keep(self, key: str, request: Awaitable[np.ndarray]) -> np.ndarray:
        vectors = await request
        entry = _Entry(EMBEDDED, vector=np.asarray(vectors[0], dtype=np.float32))
        entry.used = True
        self.lru.put(key, entry)
        return vectors

    async def type_ahead(self, embedder: Embedder, text: str) -> str:
        """Embeds ``text`` now, for a search that has not been asked yet; a search asked
        meanwhile waits for this same embedding. Returns ``cache`` when it was there already,
        ``typed_ahead`` once embedded. A failure is forgotten (the search asks again)."""
        if not " ".join(text.split()):
            return "empty"
        key = cache_key(text, embedder.model_id)
        if key in self.lru:
            return CACHE
        future = asyncio.get_running_loop().create_future()
        entry = _Entry(TYPED_AHEAD, future=future)
        self.lru.put(key, entry)
        try:
            vectors = await embedder.embed([" ".join(text.split())[:MAX_QUERY_CHARS]])
            entry.vector = np.asarray(vectors[0], dtype=np.float32)
            future.set_result(entry.vector)
        except BaseException as e:
            if self.lru.get(key) is entry:
                self.lru.drop(key)
            future.set_exception(e)
            future.exception()  # retrieved: a search that waited on it gets it; nobody else must
            raise
        return TYPED_AHEAD


class CachedQueries:
    """``embedder`` with ``embed_query`` answered through ``queries`` (retrieve uses it when
    there); everything else is the embedder's own."""

    def __init__(self, embedder: Embedder, queries: QueryVectors):
        self._embedder, self._queries = embedder, queries

    def embed_query(self, text: str) -> tuple[Awaitable[np.ndarray], str]:
        return self._queries.embed_query(self._embedder, text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)
