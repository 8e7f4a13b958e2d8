import apsw
import pytest
import sqlite_vec
from hypothesis import given, settings, strategies as st

from readingroom.search.fts import match_expression, terms


@pytest.fixture(scope="module")
def fts_db():
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    db.execute("INSERT INTO t(x) VALUES ('error code E1234 in NEAR field'), ('plain text')")
    return db


@pytest.mark.parametrize("text", ['"unbalanced', "NEAR(", "-foo", "a*", "col:val", "^start",
                                  "OR", "AND NOT", "(((", ")", "x OR", '""', "'", "\x00\x01"])
def test_fts_syntax_in_user_text_never_raises(fts_db, text):
    expr = match_expression(text)
    if expr is not None:
        list(fts_db.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)))


def test_exact_terms_still_match(fts_db):
    rows = list(fts_db.execute("SELECT rowid FROM t WHERE t MATCH ?", (match_expression("E1234?"),)))
    assert rows == [(1,)]


def test_stopwords_dropped_unless_nothing_else_remains():
    assert terms("what is the BRCA1 gene") == ["brca1", "gene"]
    assert terms("the of and") == ["the", "of", "and"]
    assert match_expression("  ?! ") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_valid_fts_query(fts_db, text):
    expr = match_expression(text)
    if expr is not None:
        list(fts_db.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)))
