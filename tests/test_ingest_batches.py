"""Batches across documents: many small files share embedding batches, each document is still
stored whole in its own transaction, outcomes come back in input order, and an embedder that
fails mid-batch costs the document it was on and nothing else."""

from __future__ import annotations

import numpy as np

from helpers import run
from readingroom import Library, NewDocument
from readingroom import ingest
from readingroom.errors import EmbedderError


class Recording:
    """The real embedder, counting calls; ``fail_on`` call numbers (1-based) raise instead."""

    def __init__(self, real, fail_on=()):
        self.real, self.fail_on, self.calls = real, set(fail_on), []
        self.model_id, self.dim, self.max_tokens = real.model_id, real.dim, real.max_tokens

    async def embed(self, texts):
        self.calls.append(len(texts))
        if len(self.calls) in self.fail_on:
            raise EmbedderError("The embedding model stopped while this was being indexed, and was restarted. "
                                "Add the document again.")
        return await self.real.embed(texts)

    async def count_tokens(self, texts):
        return await self.real.count_tokens(texts)


def small_docs(n: int) -> list[NewDocument]:
    return [NewDocument(f"note{i:02}.md", text=f"# Note {i}\n\nThe note about topic {i} says {i} things.")
            for i in range(n)]


def stored(lib: Library) -> dict[str, int]:
    return {d.name: d.chunks for d in lib.documents()}


def test_many_small_documents_share_batches_and_are_stored_whole(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder))
    docs = small_docs(150)
    outcomes = run(lib.add(docs))
    assert [o.name for o in outcomes] == [d.name for d in docs]
    assert all(o.status == "added" and o.chunks == 1 for o in outcomes)
    # 150 one-chunk documents in batches of EMBED_BATCH, not 150 calls.
    assert lib.embedder.calls == [ingest.EMBED_BATCH] * (150 // ingest.EMBED_BATCH) + [150 % ingest.EMBED_BATCH]
    assert lib.index.counts() == (150, 150) and lib.index.integrity() == "ok"
    # Vectors are those of one document at a time.
    alone = embedder.embed_sync([ingest.embedding_text(c) for c in ingest.prepare(docs[7], lib.chunking)[2]])
    hit = run(lib.retrieve("The note about topic 7 says 7 things", {"mode": "vector", "k": 1}))
    assert hit.results[0].doc_name == "note07.md"
    assert float(alone[0] @ np.asarray(lib.index.vector(hit.results[0].chunk_ids[0]))) > 0.9999
    assert lib.status()["unfinished"] == []


def test_a_failed_batch_costs_its_first_document_only(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder, fail_on={2}))
    long = NewDocument("long.md", text="\n\n".join(f"## Part {i}\n\nThe glacier log, entry {i}, was written "
                                                    f"twice and compared with season {i}." for i in range(100)))
    docs = small_docs(3) + [long] + small_docs(70)[3:]
    outcomes = run(lib.add(docs))
    by_name = {o.name: o for o in outcomes}
    assert [o.name for o in outcomes] == [d.name for d in docs]
    # Call 2 held the long document's next passages (and maybe others after it): only it failed.
    failed = [o.name for o in outcomes if o.status == "error"]
    assert failed == ["long.md"]
    assert by_name["long.md"].error["type"] == "embed_failed"
    assert "Add the document again" in by_name["long.md"].error["message"]
    assert set(stored(lib)) == {d.name for d in docs} - {"long.md"}
    assert all(n == 1 for n in stored(lib).values())
    assert lib.index.counts() == (len(docs) - 1, len(docs) - 1) and lib.index.integrity() == "ok"


def test_unchanged_and_bad_documents_keep_their_places(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder))
    run(lib.add(small_docs(2)))
    docs = [small_docs(2)[0], NewDocument("empty.md", text="   "), NewDocument("new.md", text="A new note."),
            small_docs(2)[1], NewDocument("image.png", data=b"\x89PNG")]
    outcomes = run(lib.add(docs))
    assert [(o.name, o.status) for o in outcomes] == [
        ("note00.md", "unchanged"), ("empty.md", "error"), ("new.md", "added"),
        ("note01.md", "unchanged"), ("image.png", "error")]
    assert lib.status()["unfinished"] == []


def test_cancel_stores_the_finished_documents_and_names_the_one_in_progress(embedder):
    calls = []

    def cancelled():
        return len(calls) >= 2

    class Counting(Recording):
        async def embed(self, texts):
            calls.append(len(texts))
            return await super().embed(texts)

    lib = Library.open(":memory:", embedder=Counting(embedder))
    docs = small_docs(3 * ingest.EMBED_BATCH)
    outcomes = run(lib.add(docs, cancelled=cancelled))
    statuses = [o.status for o in outcomes]
    # Two batches were embedded; every document they finished is stored, the next one is cancelled.
    assert statuses[:-1] == ["added"] * (2 * ingest.EMBED_BATCH)
    assert outcomes[-1].status == "error" and outcomes[-1].error["type"] == "cancelled"
    assert lib.index.counts()[0] == 2 * ingest.EMBED_BATCH
    assert lib.status()["unfinished"] == []


def test_a_name_given_twice_in_one_call_is_added_then_seen_as_it_would_be_later(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder))
    a = NewDocument("a.md", text="Sourdough needs a long, cold proof.")
    a2 = NewDocument("a.md", text="Rye needs a warm proof.")
    outcomes = run(lib.add([a, a, NewDocument("b.md", text="Tides follow the moon."), a2]))
    assert [o.status for o in outcomes] == ["added", "unchanged", "added", "replaced"]
    assert lib.index.counts() == (2, 2)
