"""Query syntax (syntax.py): the four modes, wrong syntax read as plain words with a note,
and the same query matching the same chunks on FTS5 and on Postgres."""

from __future__ import annotations

import pytest

from helpers import run
from readingroom import Library, NewDocument
from readingroom.search.fts import match_expression
from readingroom.records import Filters
from readingroom.search.reads import lexical_candidates
from readingroom.search.syntax import fts5_expression, parse, tsquery_literal

DOCS = {
    "tea.md": "# Tea\n\nGreen tea is steamed soon after picking; black tea is oxidised before it is dried.",
    "coffee.md": "# Coffee\n\nCoffee beans are roasted. Cold brew coffee steeps for a day; green beans keep for years.",
    "bread.txt": "Sourdough bread needs a long cold proof in the fridge and a hot oven for a crisp crust.",
    "device.txt": "The controller reports error code E4711 when the cooling fan stalls; replace the fan.",
    "notes.md": "# Café notes\n\nThe café serves tea and coffee. Naïve drinkers ask for e-mail receipts; foo_bar.",
}
QUERIES = [
    ("green tea", "web"), ('"green tea"', "web"), ('"green coffee"', "web"), ("tea -green", "web"),
    ("tea OR bread", "web"), ('coffee -"cold brew"', "web"), ("cold OR hot crust", "web"),
    ("green tea", "strict"), ("green tea", "phrase"), ("coffee tea", "strict"), ("green tea", "plain"),
    ('"green tea" -oxidised', "plain"), ("cafe", "web"), ("naive", "web"), ("e-mail", "web"),
    ("foo_bar", "web"), ("foo_bar", "phrase"), ("steams", "web"), ("roasting", "strict"),
    ('"unbalanced tea', "web"), ("OR tea", "web"), ("tea OR", "web"), ("-tea", "web"),
    ("E4711", "phrase"), ("fans stall", "strict"), ("the fan", "phrase"), ("'; DROP TABLE chunks; --", "web"),
    ("tea & !coffee | <->", "web"), ("a:b ^c NEAR(", "web"),
]


def test_words_without_operators_read_as_before():
    for text in ["green tea", "what is the fan", "E4711 -", "tea OR"]:
        assert fts5_expression(parse(text)) in (match_expression(text), None) or parse(text).note


def test_web_operators():
    p = parse('"green tea" -oxidised coffee OR bread')
    assert p.read_as == "web" and p.note is None
    assert p.all_of == ((("green", "tea"),), (("coffee",), ("bread",)))
    assert p.none_of == (("oxidised",),)
    assert fts5_expression(p) == '(("green tea") AND ("coffee" OR "bread")) NOT ("oxidised")'
    assert tsquery_literal(p) == "((('green' <-> 'tea')) & (('coffe') | ('bread'))) & !(('oxidis'))"


@pytest.mark.parametrize("text, why", [
    ('"unclosed quote', "quote is not closed"), ("OR tea", "OR needs"), ("tea OR", "OR needs"),
    ("tea OR -coffee", "OR cannot join"), ("-tea -coffee", "only excluded"),
])
def test_wrong_syntax_is_read_as_plain_words_and_says_so(text, why):
    p = parse(text)
    assert p.read_as == "plain" and why in p.note
    assert p.any_of and not p.all_of and not p.none_of


def test_plain_phrase_and_strict():
    assert parse('"a b" -c OR d', "plain").ranked_words == ["b", "c", "d"]  # "a" and "or" are stop words
    assert parse("the green tea", "phrase").all_of == ((("the", "green", "tea"),),)
    assert parse("the green tea", "strict").all_of == ((("green",),), (("tea",),))


def test_unknown_mode_is_bad_input(library):
    from readingroom.errors import BadInput

    with pytest.raises(BadInput, match="syntax must be one of web, plain, phrase, strict"):
        parse("tea", "regex")
    with pytest.raises(BadInput):
        run(library.retrieve("tea", {"syntax": "regex"}))


def _matches(lib: Library, text: str, mode: str) -> set[tuple[str, int]]:
    ids = [c for c, _ in lexical_candidates(lib.index.store, text, 1000, Filters(), None, mode)]
    return {(h.doc_name, h.chunk_index) for h in _hits(lib, ids)}


def _hits(lib: Library, ids: list[int]):
    from readingroom.search.reads import hits_for

    return hits_for(lib.index.store, ids).values()


@pytest.fixture(scope="module")
def both(embedder, postgres):
    libs = [Library.open(":memory:", embedder=embedder), Library.open(postgres.new_database(), embedder=embedder)]
    for lib in libs:
        run(lib.add([NewDocument(name, text=text) for name, text in DOCS.items()]))
    yield libs
    for lib in libs:
        lib.close()


def test_the_same_query_matches_the_same_chunks_on_both_stores(both):
    sqlite, pg = both
    seen = {}
    for text, mode in QUERIES:
        on_sqlite, on_pg = _matches(sqlite, text, mode), _matches(pg, text, mode)
        assert on_sqlite == on_pg, (text, mode)
        seen[(text, mode)] = {name for name, _ in on_sqlite}
    # and they mean what the modes say
    assert seen[('"green tea"', "web")] == {"tea.md"}
    assert seen[('"green coffee"', "web")] == set()
    assert seen[("tea -green", "web")] == {"notes.md"}
    assert seen[('coffee -"cold brew"', "web")] == {"notes.md"}
    assert seen[("green tea", "plain")] == {"tea.md", "coffee.md", "notes.md"}
    assert seen[("coffee tea", "strict")] == {"notes.md"}
    assert seen[("cafe", "web")] == seen[("naive", "web")] == {"notes.md"}  # diacritics folded
    assert seen[("steams", "web")] == {"tea.md"}  # stems
    assert seen[("the fan", "phrase")] == {"device.txt"}
    assert seen[('"unbalanced tea', "web")] == {"tea.md", "notes.md"}


def test_sql_looking_text_and_filter_values_never_reach_sql_as_syntax(both):
    for lib in both:
        before = lib.index.counts()
        for text in ["'; DROP TABLE chunks; --", "tea' OR '1'='1", "tea); DELETE FROM documents; --"]:
            r = run(lib.retrieve(text, {"filters": {"doc_names": ["x' OR '1'='1"],
                                                    "metadata": {"a') OR 1=1 --": "'; DROP TABLE meta"}}}))
            assert r.reason is None and r.results == []
            r = run(lib.retrieve(text, {"syntax": "strict"}))
            assert r.reason is None
        assert lib.index.counts() == before and lib.index.integrity() == "ok"


def test_words_are_ranked_by_the_same_bm25_on_both_stores(both):
    """Words without operators: BM25 in memory on both stores (on Postgres from its tsvectors),
    the same chunks in the same order with the same scores as FTS5's bm25()."""
    sqlite, pg = both
    for text in ["green tea", "coffee beans cold brew", "tea", "the fan stalls", "oven crust proof", "cafe naive"]:
        ranked = []
        for lib in both:
            lexicon = lib.index.lexical_index()
            assert lexicon is not None
            hits = lexical_candidates(lib.index.store, text, 20, Filters(), lexicon)
            rows = {h.chunk_id: h for h in _hits(lib, [c for c, _ in hits])}
            ranked.append([(rows[c].doc_name, rows[c].chunk_index, round(s, 9)) for c, s in hits])
        assert ranked[0] == ranked[1] and ranked[0], text
        fts5 = lexical_candidates(sqlite.index.store, text, 20, Filters())  # FTS5's own bm25()
        assert [round(s, 9) for _, s in fts5] == [s for *_, s in ranked[0]]
    assert pg.index.vector_matrix() is None  # the vector leg stays Postgres's (HNSW)
