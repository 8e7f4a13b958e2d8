"""A large SQLite library keeps its common words' postings in a table of their own: read
back they are FTS5's postings exactly, the ranking is FTS5's to the last bit, and after any
write to the chunks (followed in the same transaction) they are still FTS5's postings as they
are now, without reading the words from FTS5 again."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from beir_fixture import DOCS, QUERIES
from helpers import SCIFACT
from readingroom.search import bm25, reads as search
from readingroom.store import sqlite_dialect, sqlite_postings, sqlite_sql
from readingroom._compat._not_in_pyodide import open_store
from readingroom.store.index import Index, Provenance
from readingroom.records import Chunk, Filters

DIM = 4


def _add(idx: Index, name: str, text: str, heading: tuple[str, ...] = ()) -> None:
    idx.replace_document(name=name, doc_type="txt", content_hash=name, size=len(text), meta={},
                         chunks=[Chunk(0, text, 0, len(text), heading, None, 10)],
                         vectors=np.ones((1, DIM), np.float32), text_hashes=[name])


def _open(path) -> Index:
    return Index(open_store(path), Provenance(model_id="test-model", dim=DIM))


def _copy(built: Path, path: Path) -> Index:
    shutil.copyfile(built, path)
    return _open(path)


def _build(path: Path) -> Index:
    idx = _open(path)
    lines = (SCIFACT / "corpus.jsonl").read_text("utf-8").splitlines()[:500]
    for i, d in enumerate(map(json.loads, lines)):
        _add(idx, f"s{i}", f"{d['title']}\n\n{d['text']}", ("Methods", "Cancer cells") if i % 7 == 0 else ())
    for i, (t, x) in enumerate(DOCS.values()):
        _add(idx, f"b{i}", f"{t}\n\n{x}", (t,))
    for doc_id in (3, 40, 41):
        idx.delete_document(doc_id)
    return idx


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The 500-abstract library written once to a file (each write its own transaction: ~40 s
    on a slow 2-core machine); each test below gets its own copy."""
    path = tmp_path_factory.mktemp("kept") / "library.sqlite"
    _build(path).store.close()
    return path


@pytest.fixture
def library_copy(built, tmp_path):
    def copy(name: str = "lib.sqlite") -> tuple[Index, Path]:
        return _copy(built, tmp_path / name), tmp_path / name
    return copy


def _fts5(idx: Index, term: str) -> bm25.Postings:
    idx.store.execute_script(sqlite_sql.FTS_INSTANCES_TABLE)
    return bm25.instance_postings(sqlite_dialect.term_instances(idx.store, term))


def _kept_terms(idx: Index) -> list[str]:
    return [t for (t,) in idx.store.query("SELECT term FROM term_postings ORDER BY chunks DESC")]


KEEP_FROM = 40  # chunks: the fixture's library is small, so common is less common here


@pytest.fixture(autouse=True)
def _small_library(monkeypatch):
    monkeypatch.setattr(sqlite_postings, "KEEP_FROM_CHUNKS", KEEP_FROM)


@pytest.fixture(scope="module")
def kept(built, tmp_path_factory):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sqlite_postings, "KEEP_FROM_CHUNKS", KEEP_FROM)
        idx = _copy(built, tmp_path_factory.mktemp("kept") / "kept.sqlite")
        assert idx.keep_postings() is None  # 500 chunks: too small to need them
        assert not sqlite_postings.kept(idx.store)
        done = idx.keep_postings(least_chunks=0)
    assert done is not None and done["words"] > 10 and done["postings"] > 1000
    yield idx
    idx.store.close()


def test_kept_postings_read_back_as_fts5_gives_them(kept):
    terms = _kept_terms(kept)
    rows = dict(kept.store.query("SELECT term, chunks FROM term_postings"))
    want = {t: n for t, n in kept.store.query(
        "SELECT term, doc FROM temp.chunks_fts_terms WHERE doc >= ?", (KEEP_FROM,))}
    assert rows == {t: n for t, n in want.items() if t in rows} and len(rows) == len(want)
    for term in terms:
        ids, f = sqlite_postings.read(kept.store, term)
        want_ids, want_f = _fts5(kept, term)
        assert ids.tolist() == want_ids.tolist() and f.tolist() == want_f.tolist()
        assert f.dtype == np.float64 and ids.dtype == np.int64
    assert any(f.max() % 1 for f in (sqlite_postings.read(kept.store, t)[1] for t in terms))  # heading counts weigh 0.5
    assert sqlite_postings.read(kept.store, "nosuchword") is None


def test_ranking_with_kept_postings_is_fts5s(kept, monkeypatch):
    monkeypatch.setattr(sqlite_postings, "KEEP_FROM_CHUNKS", 20)
    assert kept.keep_postings(least_chunks=0) is None  # kept already: nothing to do
    kept.store.query(sqlite_postings.CLEAR)
    assert sqlite_postings.keep(kept.store, lambda t: sqlite_dialect.term_instances(kept.store, t), least=20)["words"] > 200
    read = []
    monkeypatch.setattr(sqlite_dialect, "term_instances", lambda store, term: read.append(term) or
                        store.query(sqlite_dialect.FTS_TERM_INSTANCES, (term,))[0][0])
    lines = (SCIFACT / "queries.jsonl").read_text("utf-8").splitlines()[:300]
    queries = list(QUERIES.values()) + [json.loads(q)["text"] for q in lines] + ["the of and", "cancer cells"]
    lexicon = kept.lexical_index()
    compared = 0
    for q in queries:
        for n in (5, 300):
            fts = search.lexical_candidates(kept.store, q, n, Filters())
            assert search.lexical_candidates(kept.store, q, n, Filters(), lexicon) == fts, q
            compared += bool(fts)
    assert compared > 500
    assert read and not set(read) & set(_kept_terms(kept))  # only words not kept were read from FTS5


def _same_as_fts5(idx: Index, terms: list[str]) -> None:
    for term in terms:
        got, want = sqlite_postings.read(idx.store, term), _fts5(idx, term)
        assert got is not None, term
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist(), term


def test_after_any_write_the_kept_rows_read_back_as_fts5_has_them_now(library_copy, monkeypatch):
    idx, _ = library_copy()
    assert idx.keep_postings(least_chunks=0)["words"] > 10
    terms = _kept_terms(idx)
    rows = idx.store.query("SELECT term, chunks, first, gaps, counts FROM term_postings ORDER BY term")
    read = []
    real = sqlite_dialect.term_instances
    monkeypatch.setattr(sqlite_dialect, "term_instances", lambda store, term: read.append(term) or real(store, term))
    _add(idx, "new", "cancer cells grow in the new document", ("Cancer", "cells"))
    _add(idx, "s10", "the cells of a replaced document: cancer of the cells")  # a replace: a delete and an insert
    idx.delete_document(7)
    idx.delete_document(idx.find("new")[0])  # written since, then gone again
    _add(idx, "newer", "Cancer cells, and cells again, with a heading", ("The cells",))
    with pytest.raises(RuntimeError):
        with idx.transaction():
            idx.delete_rows(5)
            raise RuntimeError("the write fails")  # rolled back with what it wrote since
    assert idx.store.query("SELECT term, chunks, first, gaps, counts FROM term_postings ORDER BY term") == rows
    assert sqlite_postings.written_since(idx.store) == 5  # s10's old and new chunk, 7's, new's, newer's
    _same_as_fts5(idx, terms)
    assert idx.keep_postings(least_chunks=0) is None  # still kept: nothing to do
    read.clear()
    lexicon = idx.lexical_index()
    for q in ("cancer cells", "the cells of a heading", "cancer", "document again"):
        assert search.lexical_candidates(idx.store, q, 600, Filters(), lexicon) == \
            search.lexical_candidates(idx.store, q, 600, Filters()), q
    assert not set(read) & set(terms)  # the kept words were never read from FTS5
    assert "postings" not in list(idx.warm_steps())  # nothing for the warm-up to read again
    idx.store.close()


def test_past_so_many_chunks_written_since_the_words_are_kept_afresh(library_copy, monkeypatch):
    idx, _ = library_copy()
    assert idx.keep_postings(least_chunks=0)["words"] > 10
    terms = _kept_terms(idx)
    monkeypatch.setattr(sqlite_postings, "SINCE_AT_MOST", 3)
    for i in range(4):
        _add(idx, f"more{i}", f"cancer cells, number {i}")
    assert sqlite_postings.read(idx.store, terms[0]) is None  # read from FTS5 instead
    lexicon = idx.lexical_index()
    assert search.lexical_candidates(idx.store, "cancer cells", 600, Filters(), lexicon) == \
        search.lexical_candidates(idx.store, "cancer cells", 600, Filters())
    assert idx.keep_postings(least_chunks=0)["words"] > 10  # the CLI keeps them afresh
    assert sqlite_postings.written_since(idx.store) == 0
    _same_as_fts5(idx, terms)
    for i in range(4):
        _add(idx, f"later{i}", f"cells {i}")
    from readingroom.store import legs

    monkeypatch.setattr(legs, "QUICK_SCANS_UP_TO", 100)  # so is the page's warm-up
    assert list(idx.warm_steps()).count("postings") == len(terms)
    assert sqlite_postings.written_since(idx.store) == 0
    _same_as_fts5(idx, terms)
    idx.store.close()


def test_a_library_from_before_the_table_gets_it_when_opened(library_copy):
    idx, path = library_copy("old.sqlite")
    idx.store.execute_script("DROP TRIGGER chunks_insert_follows_postings; DROP TRIGGER chunks_delete_follows_postings;"
                             "DROP TABLE term_postings; DROP TABLE postings_since; DROP TABLE chunks_fts_since")
    idx.store.close()
    again = _open(path)
    assert again.keep_postings(least_chunks=0)["words"] > 10
    _add(again, "later", "cancer")
    assert sqlite_postings.written_since(again.store) == 1  # its triggers came with it
    _same_as_fts5(again, _kept_terms(again))
    assert again.store.query("PRAGMA integrity_check")[0][0] == "ok"
    again.store.close()


def test_a_library_an_earlier_version_kept_follows_writes_once_opened_here(library_copy):
    """Its triggers emptied the table on every write: they are replaced when it is opened."""
    idx, path = library_copy("earlier.sqlite")
    assert idx.keep_postings(least_chunks=0)["words"] > 10
    idx.store.execute_script("""
        DROP TRIGGER chunks_insert_follows_postings; DROP TRIGGER chunks_delete_follows_postings;
        DROP TABLE postings_since; DROP TABLE chunks_fts_since;
        CREATE TRIGGER chunks_insert_clears_postings AFTER INSERT ON chunks
        WHEN EXISTS (SELECT 1 FROM term_postings) BEGIN DELETE FROM term_postings; END;
        CREATE TRIGGER chunks_delete_clears_postings AFTER DELETE ON chunks
        WHEN EXISTS (SELECT 1 FROM term_postings) BEGIN DELETE FROM term_postings; END;""")
    idx.store.close()
    again = _open(path)
    terms = _kept_terms(again)
    _add(again, "later", "cancer cells")
    assert _kept_terms(again) == terms and sqlite_postings.written_since(again.store) == 1
    _same_as_fts5(again, terms)
    again.store.close()


@pytest.mark.parametrize("ids, width", [([7, 9, 70_000], 4), ([-5, 2**20, 2**40], 8), ([3], 0), ([2, 65_537], 2)])
def test_ids_far_apart_and_counts_past_a_byte_keep_their_exact_values(ids, width):
    instances = [d * 2 for d in ids for _ in range(3)] + [ids[-1] * 2 + 1]  # 3 in the text; a heading too
    n, first, gaps, counts = sqlite_postings.pack(" ".join(map(str, instances)))
    assert (n, first, len(gaps)) == (len(ids), ids[0], width * (len(ids) - 1))
    many = " ".join(["4"] * 40 + ["5"] * 9)  # chunk 2: 40 in the text, 9 in a heading
    assert len(sqlite_postings.pack(many)[3]) == 4  # past the one-byte packing: int32
    assert sqlite_postings.pack(" ".join(["3"] * 1024)) is None  # 1,024 headings: past both
    assert sqlite_postings.pack("") is None
    idx = _open(":memory:")
    for term, row in (("w", (n, first, gaps, counts)), ("many", sqlite_postings.pack(many))):
        idx.store.query(sqlite_postings.PUT, (term, *row))
    got_ids, f = sqlite_postings.read(idx.store, "w")
    assert got_ids.tolist() == ids and f.tolist() == [3.0] * (len(ids) - 1) + [3.5]
    assert [a.tolist() for a in sqlite_postings.read(idx.store, "many")] == [[2], [44.5]]
    idx.store.close()


def test_the_warm_up_of_a_large_library_keeps_again_the_rows_that_are_missing(library_copy, monkeypatch):
    from readingroom.store import legs

    idx, _ = library_copy()
    assert idx.keep_postings(least_chunks=0)["words"] > 10
    chosen = [t for (t,) in idx.store.query("SELECT term FROM kept_terms")]
    _add(idx, "new", "cancer cells grow in the new document " * 3)
    idx.store.query("DELETE FROM term_postings")  # as an earlier version's write left them
    assert not sqlite_postings.kept(idx.store)
    assert "postings" not in list(idx.warm_steps())  # this small, the warm-up reads the commonest words itself
    assert not sqlite_postings.kept(idx.store)
    monkeypatch.setattr(legs, "QUICK_SCANS_UP_TO", 100)  # as if it were past the page's quick scans
    steps = list(idx.warm_steps())
    assert steps.count("postings") == len(chosen) and sorted(_kept_terms(idx)) == sorted(chosen)
    _same_as_fts5(idx, chosen)  # read again as FTS5 has them now, the new document included
    assert "postings_kept" in idx.search_state()["load_ms"]
    lexicon = idx.lexical_index()
    assert search.lexical_candidates(idx.store, "cancer cells", 600, Filters(), lexicon) == \
        search.lexical_candidates(idx.store, "cancer cells", 600, Filters())
    # A write between two steps: the rows written before it follow it, the rest are read after it.
    idx.store.query("DELETE FROM term_postings")
    steps = idx.warm_steps()
    while next(steps) != "postings":
        pass
    assert sqlite_postings.kept(idx.store)
    idx.delete_document(7)
    _add(idx, "newer", "cancer cells")
    assert list(steps) == []  # the warm-up under way ends at a write ...
    assert list(idx.warm_steps()).count("postings") == len(chosen) - 1  # ... and the next reads the rest
    _same_as_fts5(idx, chosen)
    idx.store.close()
