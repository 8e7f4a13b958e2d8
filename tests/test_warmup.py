"""The search's in-memory legs load in steps after a library opens; queries meanwhile get
the same answers, status says "warming", and a write during the warm-up is never hidden."""

import json

import numpy as np
import pytest

from helpers import SCIFACT, run
from readingroom.search import bm25, names
from readingroom import worker, worker_warm
from readingroom.store import legs, sqlite_sql as sql, warmup
from readingroom._compat._not_in_pyodide import open_store
from readingroom.store.index import Index, Provenance
from readingroom.records import Chunk, Filters
from readingroom.search.reads import lexical_candidates, vector_candidates

DIM = 16
QUERIES = ["cancer cells in the blood", "the of and", "vitamin D deficiency", "protein folding"]


def _texts(n: int) -> list[str]:
    lines = (SCIFACT / "corpus.jsonl").read_text("utf-8").splitlines()[:n]
    return [f"{d['title']}\n\n{d['text']}" for d in map(json.loads, lines)]


def _add(idx: Index, i: int, text: str, vec: np.ndarray, name: str | None = None) -> None:
    idx.replace_document(name=name or f"d{i}", doc_type="txt", content_hash=str(i), size=len(text), meta={},
                         chunks=[Chunk(0, text, 0, len(text), (), None, 10)], vectors=vec[None, :],
                         text_hashes=[str(i)])


def _through(steps, name: str) -> list[str]:
    """The warm-up's steps taken up to its first ``name`` step, that one included."""
    taken = []
    for step in steps:
        taken.append(step)
        if step == name:
            return taken
    raise AssertionError(f"the warm-up ended without a {name!r} step: {taken}")


@pytest.fixture
def library():
    idx = Index(open_store(":memory:"), Provenance(model_id="test-model", dim=DIM))
    rng = np.random.default_rng(5)
    for i, text in enumerate(_texts(400)):
        _add(idx, i, text, rng.standard_normal(DIM).astype(np.float32))
    yield idx, rng
    idx.store.close()


def _answers(idx: Index, rng_seed: int = 9) -> list:
    """Both legs' candidates for a few queries, through whatever the index holds now."""
    q = np.random.default_rng(rng_seed).standard_normal((len(QUERIES), DIM)).astype(np.float32)
    out = []
    for text, qvec in zip(QUERIES, q):
        vec = vector_candidates(idx.store, qvec, 20, Filters(), idx.vector_matrix())
        lex = lexical_candidates(idx.store, text, 20, Filters(), idx.lexical_index())
        out.append(([c for c, _ in vec], np.round([s for _, s in vec], 5).tolist(), lex))
    return out


def test_queries_during_the_warm_up_get_the_answers_after_it(library):
    idx, _ = library
    assert idx.search_state()["state"] == "cold"
    steps = idx.warm_steps()
    assert next(steps) == "lexical"
    assert idx.search_state()["state"] == "warming"
    assert idx.lexical_index() is not None  # loaded first: from here on BM25 is in memory
    assert idx.vector_matrix() is None  # not loaded yet, and not loaded twice: vec0 answers
    during = _answers(idx)
    assert list(steps)[-1] == "terms"
    state = idx.search_state()
    assert state["state"] == "ready" and state["message"] is None
    assert {"lexical", "vectors", "names", "terms", "warm_up"} <= set(state["load_ms"])
    assert idx._kept_now("names", idx._key())[0]  # the name leg's index too: the first query does not build it
    assert idx.vector_matrix() is not None
    assert _answers(idx) == during


def test_a_query_between_two_steps_of_the_names_finishes_their_build_once(monkeypatch):
    """The name leg's index is read in steps right after the words (a query has no other way
    to it); a query arriving between two steps finishes that same build, the warm-up then goes
    on to the vectors, and what is kept is what a build at once gives."""
    monkeypatch.setattr(names, "NAMES_PER_STEP", 40)
    begun = []
    in_steps = names.NameIndex.in_steps
    monkeypatch.setattr(names.NameIndex, "in_steps",
                        classmethod(lambda cls, rows, per_step=None: begun.append(len(rows)) or in_steps(rows, per_step)))
    idx = Index(open_store(":memory:"), Provenance(model_id="test-model", dim=DIM))
    rng = np.random.default_rng(7)
    texts = _texts(150)
    for i, text in enumerate(texts):
        _add(idx, i, text, rng.standard_normal(DIM).astype(np.float32), name=f"papers/{text.splitlines()[0][:60]}.md")
    steps = idx.warm_steps()
    assert _through(steps, "names") == ["lexical", "names"]  # 40 of 150 names read
    assert not idx._kept_now("names", idx._key())[0]
    index = idx.name_index()  # a query: the rest of the same build
    assert begun == [150] and idx._kept_now("names", idx._key())[0]
    whole = names.NameIndex([(int(r[0]), r[1]) for r in idx.document_rows()])
    assert index.names == whole.names and index.idf == whole.idf and len(index.names) > 100
    title = texts[3].splitlines()[0]
    assert idx.find(f"papers/{title[:60]}.md")[0] in [n.doc_id for n in index.named(title)]
    rest = list(steps)
    assert "names" not in rest and "vectors" in rest and rest[-1] == "terms"
    assert begun == [150] and idx.name_index() is index and idx.load_ms["names"] > 0


def test_a_query_during_the_warm_up_of_many_names_goes_without_the_name_leg_and_says_so(monkeypatch):
    """A large library's names are read by the warm-up; a query that arrives before it has read
    all but ``NAMES_AT_QUERY`` of them is searched without the name leg (it would wait for all of
    them), and says so; with few left it finishes the build; with no warm-up under way (the CLI,
    the Python API) a query reads them itself."""
    monkeypatch.setattr(names, "NAMES_PER_STEP", 40)
    monkeypatch.setattr(legs, "NAMES_AT_QUERY", 100)
    idx = Index(open_store(":memory:"), Provenance(model_id="test-model", dim=DIM))
    rng = np.random.default_rng(7)
    for i, text in enumerate(_texts(150)):
        _add(idx, i, text, rng.standard_normal(DIM).astype(np.float32), name=f"papers/{text.splitlines()[0][:60]}.md")
    assert not idx.names_later()  # no warm-up: a query builds the index itself
    steps = idx.warm_steps()
    assert _through(steps, "lexical") == ["lexical"]
    assert idx.names_later()  # 150 names left, more than 100
    assert _through(steps, "names") == ["names"]  # 40 read, 110 left
    assert idx.names_later()
    assert _through(steps, "names") == ["names"]  # 80 read, 70 left: a query finishes the build
    assert not idx.names_later() and idx.name_index() is not None
    rest = list(steps)
    assert "names" not in rest and not idx.names_later()
    monkeypatch.setattr(legs, "NAMES_UP_TO", 100)  # a library too large for the leg waits for nothing
    idx.warm_pending = True
    idx._kept.pop("names")
    assert not idx.names_later()


def test_retrieval_without_the_name_leg_says_why(embedder, monkeypatch):
    """The same through retrieval, the way the page's worker marks a warm-up about to start."""
    from readingroom import Library, NewDocument

    monkeypatch.setattr(legs, "NAMES_AT_QUERY", 1)
    library = Library.open(":memory:", embedder=embedder)
    run(library.add([NewDocument("Arsenic and Old Lace.txt", text="The play is set in a parlour in Brooklyn."),
                     NewDocument("trains.txt", text="The night train leaves the station at eleven.")]))
    q = "Where does Arsenic and Old Lace take place?"
    library.index.warm_pending = True
    later = run(library.retrieve(q))
    assert "named" not in later.stats and "still being read" in later.stats["names_later"]
    library.index.warm_pending = False
    now = run(library.retrieve(q))
    assert "names_later" not in now.stats and [d["doc_name"] for d in now.stats["named"]] == ["Arsenic and Old Lace.txt"]
    library.close()


def test_the_commonest_terms_are_preloaded(library, monkeypatch):
    idx, _ = library
    monkeypatch.setattr(bm25, "PRELOAD_TERMS", 40)
    monkeypatch.setattr(warmup, "COMMON_TERMS_PAGE", 300)  # several pages of the vocabulary
    for _ in idx.warm_steps():
        pass
    kept = idx.lexical_index()._postings
    idx.store.execute_script(sql.FTS_TERMS_TABLE)
    counts = [c for _, c in idx.store.query("SELECT term, doc FROM temp.chunks_fts_terms ORDER BY doc DESC")]
    assert len(kept) == 40 and "the" in kept and "of" in kept
    assert sorted((len(p) for p, _ in kept.values()), reverse=True) == counts[:40]
    # Preloaded postings are the ones a query would have read: same ranking as FTS5's.
    assert lexical_candidates(idx.store, "the of and", 30, Filters(), idx.lexical_index()) == \
        lexical_candidates(idx.store, "the of and", 30, Filters())


def test_a_large_library_finishes_the_warm_up_for_its_query(library, monkeypatch):
    idx, _ = library
    monkeypatch.setattr(legs, "QUICK_SCANS_UP_TO", 0)  # as if the database were read from OPFS
    steps = idx.warm_steps()
    next(steps)
    m = idx.vector_matrix()
    assert m is not None and len(m) == 400  # the query loaded the rest of the matrix itself
    assert set(steps) <= {"names"}  # at most the documents' names; no scan of FTS5's vocabulary for common terms
    assert idx._kept_now("names", idx._key())[0]
    assert idx.vector_matrix() is m and idx.search_state()["state"] == "ready"
    assert idx.lexical_index()._postings == {}


def test_a_write_during_the_warm_up_is_not_hidden(library):
    idx, rng = library
    steps = idx.warm_steps()
    _through(steps, "vectors")
    _add(idx, 999, "zyxwv quokka", rng.standard_normal(DIM).astype(np.float32))
    for _ in steps:
        pass
    assert idx.search_state()["state"] == "ready"  # the warm-up followed the write
    assert 401 in idx.vector_matrix().ids and "vectors_on_query" not in idx.load_ms
    assert [c for c, _ in lexical_candidates(idx.store, "quokka", 5, Filters(), idx.lexical_index())] == [401]
    assert idx.search_state()["state"] == "ready"


def test_a_new_warm_up_replaces_a_stopped_one(library):
    idx, _ = library
    first = idx.warm_steps()
    next(first)
    idx.stop_warming()
    assert idx.search_state()["state"] == "cold"
    assert list(first) == []  # stopped: it loads nothing more
    second = list(idx.warm_steps())
    assert "vectors" in second and idx.search_state()["state"] == "ready"


def test_the_worker_warms_in_the_background_and_answers_meanwhile(monkeypatch, tmp_path):
    from contract import CORPUS

    monkeypatch.setattr(worker_warm, "BACKGROUND", True)

    async def session() -> tuple:
        await worker.open(json.dumps({"path": str(tmp_path / "lib.sqlite")}))
        added = json.loads(await worker.add_documents(json.dumps(CORPUS)))
        assert added["status"]["search"]["state"] == "warming"
        during = json.loads(await worker.query("breast cancer gene"))
        await worker_warm.running()
        after = json.loads(await worker.status())
        again = json.loads(await worker.query("breast cancer gene"))
        return during, after, again

    during, after, again = run(session())
    assert after["search"]["state"] == "ready"
    assert during["results"][0]["doc_name"] == "genetics.md"
    assert [(r["doc_name"], round(r["score"], 5)) for r in during["results"]] == \
        [(r["doc_name"], round(r["score"], 5)) for r in again["results"]]


def test_a_new_document_by_its_words_keeps_the_vector_matrix_and_its_vectors_extend_it(library):
    """Adding a file at a million chunks must not read every vector again: storing its words
    changes no vector, the run's record of unfinished names changes neither leg, and the
    vectors that follow extend the matrix. A replaced document changes vectors: loaded again."""
    idx, rng = library
    matrix, lexicon = idx.vector_matrix(), idx.lexical_index()
    idx.set_unfinished(["new.txt"])
    assert idx.vector_matrix() is matrix and idx.lexical_index() is lexicon
    text = "Vitamin D deficiency and the cells of the blood, stored by their words first."
    doc = idx.replace_document(name="new.txt", doc_type="txt", content_hash="n", size=len(text), meta={},
                               chunks=[Chunk(0, text, 0, len(text), (), None, 10)], vectors=None,
                               text_hashes=["n"], unfinished=[])
    assert idx.vector_matrix() is matrix and idx.lexical_index() is not lexicon  # new words: new lengths
    [(cid, *_)] = idx.pending_chunks(0, 10)
    q = rng.standard_normal(DIM).astype(np.float32)
    idx.store_vectors([cid], q[None, :])
    grown = idx.vector_matrix()
    assert len(grown) == len(matrix) + 1
    fresh = Index(idx.store, idx.provenance)  # the same rows, every leg loaded from the store
    for query in QUERIES:
        assert lexical_candidates(idx.store, query, 50, Filters(), idx.lexical_index()) == \
            lexical_candidates(idx.store, query, 50, Filters(), fresh.lexical_index())
    assert vector_candidates(idx.store, q, 20, Filters(), grown)[0][0] == cid
    assert vector_candidates(idx.store, q, 20, Filters(), grown) == \
        vector_candidates(idx.store, q, 20, Filters(), fresh.vector_matrix())
    idx.replace_document(name="new.txt", doc_type="txt", content_hash="m", size=len(text), meta={},
                         chunks=[Chunk(0, text, 0, len(text), (), None, 10)], vectors=None, text_hashes=["m"])
    assert idx.vector_matrix() is not grown and len(idx.vector_matrix()) == len(matrix)  # its vector went
    assert doc


def test_adds_replaces_and_deletes_change_the_lexical_leg_without_reading_every_length_again(library, monkeypatch):
    """At a million chunks reading every chunk's length again costs seconds in the page, and
    a query after an add waited behind it: a write of this connection's takes the lengths of
    the chunks it added and FTS5's new totals, and the leg is what a fresh read would make."""
    idx, rng = library
    idx.lexical_index()
    reads = []
    real = idx.sql.build_lexicon
    monkeypatch.setattr(idx.sql, "build_lexicon", lambda store: reads.append(1) or real(store))
    text = "Vitamin D deficiency and the cells of the blood, stored by their words first."
    writes = [
        lambda: _add(idx, 1000, "Protein folding in the cells of the liver and the blood", rng.standard_normal(DIM)),
        lambda: idx.replace_document(name="words.txt", doc_type="txt", content_hash="w", size=len(text), meta={},
                                     chunks=[Chunk(0, text, 0, 40, (), None, 10), Chunk(1, text[40:], 40, len(text), ("D",), None, 8)],
                                     vectors=None, text_hashes=["w0", "w1"]),
        lambda: _add(idx, 3, "A replaced document about the of and cancer cells", rng.standard_normal(DIM)),
        lambda: idx.delete_document(idx.find("d7")[0]),
        lambda: idx.delete_document(idx.find("words.txt")[0]),
        lambda: idx.delete_document(999_999),
    ]
    for write in writes:
        before = idx.lexical_index()
        write()
        after = idx.lexical_index()
        fresh = real(idx.store)
        assert after is not None and after.ids.tolist() == fresh.ids.tolist()
        assert after.norm.tolist() == fresh.norm.tolist() and after.rows == fresh.rows  # to the last bit
        for query in QUERIES + ["vitamin blood words", "replaced document"]:
            assert lexical_candidates(idx.store, query, 50, Filters(), after) == \
                lexical_candidates(idx.store, query, 50, Filters()), query
        assert len(after) - len(before) in (1, 2, 0, -1, -2)
    assert reads == []  # never every length again
    assert idx.lexical_index() is idx.lexical_index()


def test_past_the_binary_stage_new_vectors_extend_the_matrix_without_reading_it_again(library, monkeypatch):
    """At a million chunks reading every vector again takes ~15 s in the page: a batch of a new
    document's vectors goes into the binary matrix's room instead, and is found at once."""
    from readingroom.search import vectors

    monkeypatch.setattr(vectors, "BINARY_FROM", 100)
    idx, rng = library
    matrix = idx.vector_matrix()
    assert matrix.kind == "binary+float" and len(matrix) == 400
    reads = []
    steps = idx._matrix_steps
    monkeypatch.setattr(idx, "_matrix_steps", lambda key: reads.append(key) or steps(key))
    text = "Vitamin D deficiency and the cells of the blood, stored by their words first."
    for n in range(3):
        idx.replace_document(name=f"new{n}.txt", doc_type="txt", content_hash=f"n{n}", size=len(text), meta={},
                             chunks=[Chunk(0, text, 0, len(text), (), None, 10)], vectors=None,
                             text_hashes=[f"n{n}"])
        [(cid, *_)] = idx.pending_chunks(0, 10)
        q = rng.standard_normal(DIM).astype(np.float32)
        idx.store_vectors([cid], q[None, :])
        grown = idx.vector_matrix()
        assert len(grown) == 401 + n and grown.kind == "binary+float"
        assert vector_candidates(idx.store, q, 5, Filters(), grown)[0][0] == cid
    assert reads == []  # never read again from the store
    monkeypatch.undo()
    monkeypatch.setattr(vectors, "BINARY_FROM", 100)
    fresh = Index(idx.store, idx.provenance).vector_matrix()
    assert np.array_equal(fresh.ids, grown.ids)
    for qvec in rng.standard_normal((5, DIM)).astype(np.float32):
        assert vector_candidates(idx.store, qvec, 20, Filters(), grown) == \
            vector_candidates(idx.store, qvec, 20, Filters(), fresh)


def test_past_the_binary_stage_a_delete_or_a_replace_leaves_rows_out_without_reading_the_matrix_again(library, monkeypatch):
    """At a million chunks a delete made the next query wait ~20 s for every vector again: the
    deleted chunks' rows are left out of the kept matrix instead, with the same candidates as a
    fresh load (the store's vectors, read again) of what is left."""
    from readingroom.search import vectors

    monkeypatch.setattr(vectors, "BINARY_FROM", 100)
    idx, rng = library
    assert idx.vector_matrix().kind == "binary+float"
    reads = []
    steps = idx._matrix_steps
    monkeypatch.setattr(idx, "_matrix_steps", lambda key: reads.append(key) or steps(key))
    gone = [idx.find(f"d{i}")[0] for i in (0, 11, 399)]
    qs = [idx.vector(c) for d in gone for c in [r[0] for r in idx.store.query(sql.DOC_CHUNK_IDS, (d,))]]
    for doc in gone:
        assert idx.delete_document(doc)
    text = "Replaced by its words first: vitamin D and the blood."
    idx.replace_document(name="d5", doc_type="txt", content_hash="r", size=len(text), meta={},
                         chunks=[Chunk(0, text, 0, len(text), (), None, 10)], vectors=None, text_hashes=["r"])
    kept = idx.vector_matrix()
    assert reads == [] and len(kept) == 396  # 400 - 3 deleted - d5's old chunk (its new one is pending)
    monkeypatch.undo()
    monkeypatch.setattr(vectors, "BINARY_FROM", 100)
    fresh = Index(idx.store, idx.provenance).vector_matrix()
    for qvec in list(rng.standard_normal((5, DIM)).astype(np.float32)) + qs:
        assert vector_candidates(idx.store, qvec, 20, Filters(), kept) == \
            vector_candidates(idx.store, qvec, 20, Filters(), fresh)


def _fresh(idx: Index):
    """Both legs' answers with the legs read afresh from the database."""
    idx._kept.clear()
    return _answers(idx)


@pytest.mark.parametrize("binary", [True, False])
def test_the_warm_up_follows_adds_deletes_and_vectors_written_while_it_reads(monkeypatch, binary):
    """At a million chunks the vectors take tens of seconds to read in the page; a file added
    meanwhile (words first, its vectors after) or a document deleted must not send the read
    back to the start: the warm-up takes this connection's writes into what it has read, in
    whichever block they fell, and ends with what a fresh read gives."""
    from readingroom.search import vectors

    monkeypatch.setattr(warmup, "WARM_BLOCKS", 1)  # a vec0 block (1,024 vectors) a step
    if binary:
        monkeypatch.setattr(vectors, "BINARY_FROM", 1_000)
    idx = Index(open_store(":memory:"), Provenance(model_id="test-model", dim=DIM))
    rng = np.random.default_rng(3)
    texts = _texts(300)
    for i in range(2_100):  # three vec0 blocks
        _add(idx, i, texts[i % 300] + f" record {i}", rng.standard_normal(DIM).astype(np.float32))
    steps = idx.warm_steps()
    taken = _through(steps, "vectors")  # the first block is read, after the words and names
    assert taken[0] == "lexical" and set(taken[1:-1]) == {"names"}
    gone_read = idx.find("d5")[0]  # its vector is in the block read
    gone_unread = idx.find("d2050")[0]  # in the third block, not read yet
    assert idx.delete_document(gone_read) and idx.delete_document(gone_unread)
    chunk = Chunk(0, "zyxwv quokka lamp ledger", 0, 24, (), None, 5)
    idx.replace_document(name="words-first.md", doc_type="md", content_hash="w", size=24, meta={},
                         chunks=[chunk], vectors=None, text_hashes=["w"])
    pending = [row[0] for row in idx.pending_chunks(0, 10)]
    assert idx.store_vectors(pending, rng.standard_normal((1, DIM)).astype(np.float32)) == 1
    _add(idx, 5_000, "whole document with its vector", rng.standard_normal(DIM).astype(np.float32))
    assert "vectors" in list(steps)
    state = idx.search_state()
    if binary:  # a float matrix below the binary stage is rebuilt (cheap there): only binary ones keep rows gone
        assert state["state"] == "ready" and "vectors_on_query" not in idx.load_ms
    m = idx.vector_matrix()
    live = set(m.ids[~m.gone].tolist()) if m.gone is not None else set(m.ids.tolist())
    stored = {r[0] for r in idx.store.query("SELECT id FROM chunks WHERE embedded = 1")}
    assert live == stored and len(m) == idx.embedded_count() == 2_100
    assert _answers(idx) == _fresh(idx)


def test_a_write_the_warm_up_cannot_follow_is_read_again(library):
    """A commit that does not say what it changed (here a raw statement in a transaction) is
    not followed: the vectors are read again, and what is kept is what the database holds."""
    idx, rng = library
    steps = idx.warm_steps()
    _through(steps, "vectors")
    with idx.transaction():
        idx.store.query("DELETE FROM chunks WHERE id = 7")
    list(steps)
    m = idx.vector_matrix()
    assert 7 not in m.ids and len(m) == 399
    assert _answers(idx) == _fresh(idx)
