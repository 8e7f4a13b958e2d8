"""Words first, meaning after, in batches across documents: each document is stored by its
words in its own transaction, many small files share embedding batches, outcomes come back in
input order, and an embedder that fails mid-batch leaves that batch's passages pending (found
by their words, said so, embedded by the next pass) and costs nothing else."""

from __future__ import annotations

import numpy as np

from helpers import run
from readingroom import Library, NewDocument
from readingroom.ingest import add as ingest
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


def pending_ids(lib: Library) -> set[int]:
    return {int(r[0]) for r in lib.index.store.query("SELECT id FROM chunks WHERE embedded = 0")}


def vector_ids(lib: Library) -> set[int]:
    return {int(r[0]) for r in lib.index.store.query("SELECT rowid FROM chunks_vec")}


def test_a_failed_batch_leaves_its_passages_pending_and_the_next_pass_embeds_them(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder, fail_on={2}))
    long = NewDocument("long.md", text="\n\n".join(f"## Part {i}\n\nThe glacier log, entry {i}, was written "
                                                    f"twice and compared with season {i}." for i in range(100)))
    docs = small_docs(3) + [long] + small_docs(70)[3:]
    outcomes = run(lib.add(docs))
    by_name = {o.name: o for o in outcomes}
    assert [o.name for o in outcomes] == [d.name for d in docs]
    assert all(o.status == "added" for o in outcomes)  # every document is stored by its words
    # Call 2 held the second EMBED_BATCH passages in id order (the long document's last ones and
    # the next notes'): they alone wait for their vectors, and their documents say so.
    ids = [int(r[0]) for r in lib.index.store.query("SELECT id FROM chunks ORDER BY id")]
    second = set(ids[ingest.EMBED_BATCH : 2 * ingest.EMBED_BATCH])
    assert pending_ids(lib) == second and vector_ids(lib) == set(ids) - second
    owners = {int(r[0]) for r in lib.index.store.query(
        "SELECT DISTINCT doc_id FROM chunks WHERE embedded = 0")}
    assert {o.doc_id for o in outcomes if o.pending} == owners and by_name["long.md"].doc_id in owners
    assert sum(o.pending for o in outcomes) == ingest.EMBED_BATCH
    assert "meaning search covers" in by_name["long.md"].notes[-1]
    chunks = len(ids)
    assert not vector_ids(lib) & pending_ids(lib) and lib.index.integrity() == "ok"
    # A word search finds the pending passages; a hybrid one says what its vectors cover.
    hit = run(lib.retrieve("glacier log entry 70", {"mode": "lexical", "k": 3}))
    assert hit.results and hit.results[0].doc_name == "long.md"
    hybrid = run(lib.retrieve("glacier log entry 70")).to_dict()
    meaning = hybrid["stats"]["meaning"]
    assert meaning["pending_chunks"] == ingest.EMBED_BATCH
    assert "long.md" in [d["name"] for d in meaning["documents"]]
    assert "Meaning search covers" in meaning["message"] and "of long.md" in meaning["message"]
    cover = {d["name"]: d for d in lib.status()["pending"]["documents"]}
    assert cover["long.md"]["embedded"] == by_name["long.md"].chunks - by_name["long.md"].pending
    # The next pass embeds exactly what was pending, once.
    done = run(lib.embed_pending())
    assert done.embedded == ingest.EMBED_BATCH and done.failed == 0
    assert pending_ids(lib) == set() and len(vector_ids(lib)) == chunks
    assert lib.status()["pending"] is None and "meaning" not in run(lib.retrieve("glacier")).stats
    assert run(lib.embed_pending()).embedded == 0


def test_an_embedder_that_keeps_failing_ends_the_pass_and_loses_nothing(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder, fail_on=set(range(1, 100))))
    outcomes = run(lib.add(small_docs(200)))
    assert all(o.status == "added" and o.pending == 1 for o in outcomes)
    assert len(lib.embedder.calls) == 2  # two failures in a row end the pass
    assert lib.index.counts() == (200, 200) and vector_ids(lib) == set() and len(pending_ids(lib)) == 200
    assert "4 more documents" not in lib.status()["pending"]["message"]
    assert "part of 197 more documents" in lib.status()["pending"]["message"]


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


def test_cancel_keeps_what_is_stored_and_leaves_the_rest_pending(embedder):
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
    # Every document was stored by its words before the first batch; two batches were embedded,
    # the third was never sent, and its documents say their meaning search is still to come.
    assert [o.status for o in outcomes] == ["added"] * len(docs)
    assert [o.pending for o in outcomes] == [0] * (2 * ingest.EMBED_BATCH) + [1] * ingest.EMBED_BATCH
    assert lib.index.counts() == (len(docs), len(docs)) and len(vector_ids(lib)) == 2 * ingest.EMBED_BATCH
    assert lib.status()["unfinished"] == []
    # A cancel before a document's words are stored keeps it out entirely.
    late = run(lib.add([NewDocument("late.md", text="Too late.")], cancelled=lambda: True))
    assert late[0].status == "error" and late[0].error["type"] == "cancelled"
    assert "late.md" not in stored(lib)


def test_a_name_given_twice_in_one_call_is_added_then_seen_as_it_would_be_later(embedder):
    lib = Library.open(":memory:", embedder=Recording(embedder))
    a = NewDocument("a.md", text="Sourdough needs a long, cold proof.")
    a2 = NewDocument("a.md", text="Rye needs a warm proof.")
    outcomes = run(lib.add([a, a, NewDocument("b.md", text="Tides follow the moon."), a2]))
    assert [o.status for o in outcomes] == ["added", "unchanged", "added", "replaced"]
    assert lib.index.counts() == (2, 2)


def test_a_library_written_before_the_embedded_flag_opens_with_every_chunk_embedded(embedder, tmp_path):
    path = tmp_path / "old.sqlite"
    lib = Library.open(path, embedder=Recording(embedder))
    run(lib.add(small_docs(3)))
    lib.index.store.execute_script("DROP INDEX chunks_pending; ALTER TABLE chunks DROP COLUMN embedded;")
    lib.close()
    again = Library.open(path, embedder=Recording(embedder))
    assert again.status()["pending"] is None and again.index.integrity() == "ok"
    assert again.index.store.query("SELECT count(*) FROM chunks WHERE embedded = 1")[0][0] == 3
    outcomes = run(again.add([NewDocument("new.md", text="A new note.")]))
    assert outcomes[0].status == "added" and outcomes[0].pending == 0
    assert len(vector_ids(again)) == 4


def test_vectors_written_later_extend_the_kept_matrix_as_a_fresh_load_would(embedder):
    """Words first, meaning after: a query between two batches does not read every vector
    again; the kept matrix takes the new rows, the same as a fresh load, and BM25's lengths stay."""
    from readingroom.search.vectors import VectorMatrix

    lib = Library.open(":memory:", embedder=Recording(embedder))
    ingest.add_words(lib.index, small_docs(12))
    run(ingest.embed_pending(lib.index, lib.embedder, size=5, max_batches=1))
    run(lib.retrieve("topic 3"))  # loads both legs
    lexicon = lib.index.lexical_index()
    assert len(lib.index.vector_matrix()) == 5
    run(ingest.embed_pending(lib.index, lib.embedder, size=4, max_batches=1))
    kept = lib.index.vector_matrix()
    assert lib.index.lexical_index() is lexicon and len(kept) == 9
    fresh = VectorMatrix.from_rows(lib.index.store.query("SELECT rowid, embedding FROM chunks_vec"), embedder.dim)
    assert np.array_equal(kept.ids, fresh.ids) and np.allclose(kept.rows, fresh.rows, atol=1e-7)
    assert kept.ids.tolist() == sorted(vector_ids(lib))
    # A delete in between (another write) loads again, as ever.
    lib.delete(lib.documents()[0].id)
    run(lib.embed_pending())
    assert sorted(lib.index.vector_matrix().ids.tolist()) == sorted(vector_ids(lib))


def test_a_write_of_vectors_that_fails_ends_the_pass_and_says_why(embedder, monkeypatch):
    from readingroom.errors import StorageError
    from readingroom.store.index import Index

    lib = Library.open(":memory:", embedder=Recording(embedder))

    def full(self, ids, vectors):
        raise StorageError("storage is full")

    monkeypatch.setattr(Index, "store_vectors", full)
    [o] = run(lib.add([NewDocument("sea.md", text="Words about the sea.")]))
    assert o.status == "added" and o.pending == 1
    assert o.notes[-1].endswith("They could not be embedded now: storage is full")
    monkeypatch.undo()
    assert run(lib.embed_pending()).embedded == 1 and lib.status()["pending"] is None


def test_diversity_by_mmr_reads_a_half_embedded_library(embedder):
    """A chunk still waiting for its vector counts as unlike the rest under MMR, whether it
    comes first or later (found by the state machine's bug hunt: ``len(None)``)."""
    lib = Library.open(":memory:", embedder=Recording(embedder))
    ingest.add_words(lib.index, small_docs(6))
    for _ in range(2):  # nothing embedded yet, then some of it
        r = run(lib.retrieve("note about topic 3", {"mmr_lambda": 0.5, "candidates": 50}))
        assert r.reason is None and "note03.md" in [s.doc_name for s in r.results]
        assert r.to_dict()["stats"]["meaning"]["pending_chunks"] > 0
        run(ingest.embed_pending(lib.index, lib.embedder, size=3, max_batches=1))


def test_a_file_still_being_embedded_is_found_by_its_words_before_older_embedded_ones(embedder):
    """Words first, meaning after: a question in the words of a new file, asked while its
    vectors are still to come, finds that file first, though older notes about the same thing
    have vectors (and were found by both legs); once it is embedded it still does."""
    lib = Library.open(":memory:", embedder=Recording(embedder))
    run(lib.add([NewDocument(f"kettle{i}.md", text=f"# Kettle {i}\n\nThe kettle {i} boils water fast and "
                             f"should be cleaned now and then; model {i}.") for i in range(6)]))
    new = NewDocument("descaling.md", text="# Descaling\n\nDescale the kettle monthly with citric acid, "
                      "then rinse twice.")
    ingest.add_words(lib.index, [new])
    for embedded in (False, True):
        r = run(lib.retrieve("how often should the kettle be descaled"))
        assert bool(r.to_dict()["stats"].get("meaning")) is not embedded
        assert r.results[0].doc_name == "descaling.md", [s.doc_name for s in r.results]
        assert r.documents[0].name == "descaling.md"
        run(lib.embed_pending())
