"""The query vector cache and typing ahead (query_cache.py): keys that the model really reads
alike, an LRU that forgets the oldest, and searches that say where their vector came from."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from helpers import run
from readingroom import Library, NewDocument
from readingroom.search import query_cache as qc
from readingroom.errors import EmbedderError


def test_keys_collapse_whitespace_and_ascii_case_but_not_other_text():
    assert qc.cache_key("  What IS\tBRCA1? ", "m") == qc.cache_key("what is brca1?", "m")
    assert qc.cache_key("Ünïcode", "m") != qc.cache_key("ünïcode", "m")
    assert qc.cache_key("x", "model-a") != qc.cache_key("x", "model-b")
    assert qc.normalise("a " * 5000) == ("a " * 5000)[: len(qc.normalise("a " * 5000))]


def test_the_model_reads_keys_alike_exactly(embedder):
    """What the cache key folds together, the real model embeds to the very same vector."""
    pairs = [("What IS  BRCA1?", "what is brca1?"), ("Sourdough\nPROOF", "sourdough proof")]
    for a, b in pairs:
        va, vb = embedder.embed_sync([" ".join(a.split())]), embedder.embed_sync([b])
        assert qc.cache_key(a, "m") == qc.cache_key(b, "m")
        assert np.array_equal(va, vb)


def test_the_lru_forgets_the_least_recently_used():
    lru = qc.LRU(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("a") == 1  # a is now the most recent
    lru.put("c", 3)
    assert "b" not in lru and lru.get("a") == 1 and lru.get("c") == 3 and len(lru) == 2


class Counting:
    def __init__(self, real, fail=False):
        self.real, self.fail, self.texts = real, fail, []
        self.model_id, self.dim, self.max_tokens = real.model_id, real.dim, real.max_tokens

    async def embed(self, texts):
        self.texts.append(list(texts))
        if self.fail:
            raise EmbedderError("the embedding model stopped")
        return await self.real.embed(texts)

    async def count_tokens(self, texts):
        return await self.real.count_tokens(texts)


def test_searches_say_where_their_vector_came_from_and_the_cache_saves_the_model(embedder):
    counting = Counting(embedder)
    lib = Library.open(":memory:", embedder=counting)
    run(lib.add([NewDocument("bread.txt", text="Sourdough needs a long, cold proof overnight.")]))
    before = len(counting.texts)
    first = run(lib.retrieve("cold proof"))
    assert first.stats["query_vector"] == {"source": "embedded"} and len(counting.texts) == before + 1
    again = run(lib.retrieve("  COLD   proof "))
    assert again.stats["query_vector"] == {"source": "cache"} and len(counting.texts) == before + 1
    assert [h.chunk_id for h in again.evidence] == [h.chunk_id for h in first.evidence]
    assert "query_vector" not in run(lib.retrieve("cold proof", {"mode": "lexical"})).stats
    # Typed ahead: embedded before the search; the search uses it, then it is a cache hit.
    assert run(lib.type_ahead("overnight dough")) == "typed_ahead"
    assert run(lib.type_ahead("overnight dough")) == "cache"
    n = len(counting.texts)
    typed = run(lib.retrieve("overnight dough"))
    assert typed.stats["query_vector"]["source"] == "typed_ahead" and len(counting.texts) == n
    assert run(lib.retrieve("overnight dough")).stats["query_vector"]["source"] == "cache"
    assert run(lib.ask("overnight dough")).retrieval.stats["query_vector"]["source"] == "cache"


def test_a_search_asked_while_its_text_is_typed_ahead_waits_for_that_embedding(embedder):
    counting = Counting(embedder)
    lib = Library.open(":memory:", embedder=counting)
    run(lib.add([NewDocument("tides.txt", text="Spring tides follow the full and the new moon.")]))
    n = len(counting.texts)

    async def both():
        ahead = asyncio.ensure_future(lib.type_ahead("full moon tides"))
        await asyncio.sleep(0)  # the typing-ahead has started its embedding
        result = await lib.retrieve("Full moon tides")
        return await ahead, result

    source, result = run(both())
    assert source == "typed_ahead" and result.stats["query_vector"]["source"] == "typed_ahead"
    assert len(counting.texts) == n + 1 and result.results[0].doc_name == "tides.txt"


def test_a_failed_type_ahead_is_forgotten(embedder):
    failing = Counting(embedder, fail=True)
    lib = Library.open(":memory:", embedder=failing)
    with pytest.raises(EmbedderError):
        run(lib.type_ahead("anything"))
    assert len(lib.queries.lru) == 0
