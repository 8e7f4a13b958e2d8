"""The in-memory BM25 gives FTS5's own ranking and scores, on real SQLite FTS5."""

import json
import re

import apsw
import numpy as np
import pytest

from beir_fixture import DOCS, QUERIES
from helpers import SCIFACT
from readingroom.search import bm25, porter, reads as search
from readingroom._compat._not_in_pyodide import open_store
from readingroom.store.index import Index, Provenance
from readingroom.records import Chunk, Filters

DIM = 4
RULE_SUFFIXES = ("s sses ies ss eed ed ing at bl iz y ational tional enci anci izer logi bli alli "
                 "entli eli ousli ization ation ator alism iveness fulness ousness aliti iviti "
                 "biliti icate ative alize iciti ical ful ness al ance ence er ic able ible ant "
                 "ement ment ent ion sion tion ou ism ate iti ous ive ize e ll").split()
RULE_STEMS = ("", "a", "b", "y", "ay", "yy", "by", "tr", "tree", "hop", "fil", "fail", "rat", "feed",
              "agr", "sky", "cry", "replac", "ador", "conn", "hopp", "fizz", "fall", "roll",
              "gener", "condit", "sens", "rel", "formal", "electr", "cas", "ow", "box", "sy")


def _scifact_texts(n: int) -> list[str]:
    lines = (SCIFACT / "corpus.jsonl").read_text("utf-8").splitlines()[:n]
    return [f"{d['title']}\n\n{d['text']}" for d in map(json.loads, lines)]


def _fts5_stems(words: list[str]) -> list[str]:
    """What FTS5's porter tokenizer stores for each word, read back from a real FTS5 index."""
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(words, 1)))
    db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, t, instance)")
    by_row = {doc: term for term, doc in db.execute("SELECT term, doc FROM temp.v")}
    return [by_row.get(i) for i in range(1, len(words) + 1)]


def test_query_words_are_stemmed_exactly_as_fts5_stems_them():
    words = set(re.findall(r"[a-z0-9]+", " ".join(_scifact_texts(1000) + list(QUERIES.values())).lower()))
    words |= {s + a + b for s in RULE_STEMS for a in RULE_SUFFIXES for b in ("", "s", "ed", "ing", "e", "ly")}
    words = sorted(w for w in words if w)
    ours = [porter.stem(w) for w in words]
    differ = [(w, o, f) for w, o, f in zip(words, ours, _fts5_stems(words)) if o != f]
    assert len(words) > 20000 and differ == []


def test_phrases_that_are_not_one_plain_token_go_to_fts5():
    assert bm25.query_terms("Cells running RUNS") == ["cell", "run", "run"]
    assert bm25.query_terms("IL_6 levels") is None  # "il 6" is a two-token phrase for FTS5
    assert bm25.query_terms("amyloid-β oligomers") is None  # FTS5's own Unicode folding
    assert bm25.query_terms("___ cancer") == ["cancer"]  # an empty phrase matches nothing
    assert bm25.query_terms("?!") == []


def test_varints_decode_sqlite_varints():
    assert bm25.varints(bytes([0x05, 0x81, 0x00, 0xA8, 0x3F, 0xC7, 0xA4, 0x02])).tolist() == [5, 128, 5183, 1167874]


def _index(texts: list[tuple[str, tuple[str, ...], str]]) -> Index:
    """One chunk per (text, heading path, doc type): a document each, named by position."""
    idx = Index(open_store(":memory:"), Provenance(model_id="test-model", dim=DIM))
    for i, (text, heading, doc_type) in enumerate(texts):
        idx.replace_document(name=f"d{i}", doc_type=doc_type, content_hash=str(i), size=len(text), meta={},
                             chunks=[Chunk(0, text, 0, len(text), heading, None, 10)],
                             vectors=np.ones((1, DIM), np.float32), text_hashes=[str(i)])
    return idx


@pytest.fixture(scope="module")
def library_index():
    texts = [(f"{t}\n\n{x}", (t,) if i % 2 else (), "md") for i, (t, x) in enumerate(DOCS.values())]
    texts += [(t, ("Methods", "Cancer cells") if i % 7 == 0 else (), "txt" if i % 3 else "md")
              for i, t in enumerate(_scifact_texts(600))]
    texts += [(texts[10][0], (), "txt")] * 3  # the same text again: equal scores, ordered by id
    texts += [("cancer " * 40, (), "txt"), ("cancer", ("cancer",), "txt")]  # long and short
    idx = _index(texts)
    for doc_id in (5, 50, 51, 300):
        idx.delete_document(doc_id)
    yield idx
    idx.store.close()


def _queries() -> list[str]:
    lines = (SCIFACT / "queries.jsonl").read_text("utf-8").splitlines()
    return list(QUERIES.values()) + [json.loads(q)["text"] for q in lines] + [
        "the of and", "cancer cancer cells cell", "cancer", "methods", "no such wordzz",
        "IL_6 levels", "amyloid-β oligomers",
    ]


def test_in_memory_ranking_equals_fts5_bm25(library_index):
    lexicon = library_index.lexical_index()
    assert lexicon is not None and len(lexicon) == 6 + 600 + 5 - 4
    compared = 0
    for q in _queries():
        for n in (5, 300):
            fts = search.lexical_candidates(library_index.store, q, n, Filters())
            memory = search.lexical_candidates(library_index.store, q, n, Filters(), lexicon)
            assert memory == fts, q  # same chunks, same order, the same scores to the last bit
            compared += bool(fts)
    assert compared > 1000


def test_ties_follow_chunk_id(library_index):
    lexicon = library_index.lexical_index()
    text = library_index.store.query("SELECT text FROM chunks WHERE id = 11")[0][0]  # texts[10], 4 times
    hits = search.lexical_candidates(library_index.store, text[:200], 50, Filters(), lexicon)
    tied = [c for c, s in hits if s == hits[0][1]]
    assert len(tied) == 4 and tied == sorted(tied)


def test_a_filter_is_a_mask(library_index):
    lexicon = library_index.lexical_index()
    for q in ("breast cancer risk", "cell", "the of and"):
        f = Filters(doc_types=("md",))
        fts = search.lexical_candidates(library_index.store, q, 40, f)
        assert search.lexical_candidates(library_index.store, q, 40, f, lexicon) == fts and len(fts) == 40


def test_follows_writes_and_terms_too_large_go_to_fts5():
    idx = _index([("alpha beta", (), "txt"), ("beta gamma", (), "txt")])
    first = idx.lexical_index()
    assert search.lexical_candidates(idx.store, "beta", 5, Filters(), first) == \
        search.lexical_candidates(idx.store, "beta", 5, Filters())
    assert idx.lexical_index() is first  # kept while nothing changes
    idx.delete_document(1)
    second = idx.lexical_index()
    assert second is not first and len(second) == 1
    assert [c for c, _ in search.lexical_candidates(idx.store, "beta", 5, Filters(), second)] == [2]
    tiny = bm25.LexicalIndex(second.ids, np.ones(1), 1, 1, max_bytes=16)
    assert tiny.top(["beta"], 5, lambda term: bm25.instance_postings("4")) is None  # one posting is more than 16 bytes beside the chunk arrays
    assert search.lexical_candidates(idx.store, "beta", 5, Filters(), tiny) == \
        search.lexical_candidates(idx.store, "beta", 5, Filters())
    idx.store.close()


def test_least_recently_used_terms_make_room_and_unknown_words_are_never_kept():
    lex = bm25.LexicalIndex(np.arange(1, 11), np.full(10, 5), 10, 50, max_bytes=10 * bm25._CHUNK_BYTES + 12 * 12)
    stored = {"a": " ".join(str(2 * i) for i in range(1, 11)), "b": "2 4", "c": "6 8"}
    reads = []
    fetch = lambda term: reads.append(term) or bm25.instance_postings(stored.get(term))  # noqa: E731
    assert [c for c, _ in lex.top(["a", "b"], 3, fetch)] == [1, 2, 3]  # 12 postings: both kept
    lex.top(["a"], 3, fetch)  # "a" is now the most recently used
    lex.top(["c"], 3, fetch)  # 14 postings do not fit in 12: "b" goes
    assert reads == ["a", "b", "c"]
    lex.top(["a", "b", "c"], 3, fetch)  # "b" comes back and pushes "c" out, which comes back
    assert reads == ["a", "b", "c", "b", "c"]
    for i in range(1000):  # made-up words match nothing, are read each time and never kept
        assert lex.top([f"nosuchword{i}"], 3, fetch) == []
    assert set(lex._postings) <= {"a", "b", "c"}
