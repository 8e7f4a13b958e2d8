"""``answer.clauses``: a sentence too long to quote whole, cut into verbatim pieces."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from readingroom.answer.clauses import CLAUSE_CHARS, pieces


def test_a_run_on_sentence_is_cut_at_its_clause_marks():
    text = "First, " + "; ".join(f"clause number {i} says a little more" for i in range(30)) + "."
    got = [text[a:b] for a, b in pieces(text)]
    assert len(got) > 1 and all(len(p) <= CLAUSE_CHARS for p in got)
    assert all(p.endswith(";") for p in got[:-1]) and got[-1].endswith(".")  # each piece ends at a clause
    assert " ".join(got) == text


def test_without_clause_marks_it_is_cut_before_a_joining_word_else_at_a_space():
    text = " and ".join(f"the pump moves water number {i}" for i in range(40))
    got = [text[a:b] for a, b in pieces(text)]
    assert all(p.startswith("and ") for p in got[1:])  # never "water number" | "8 and"
    words = "word " * 200
    got = [words[a:b] for a, b in pieces(words, limit=50)]
    assert all(len(p) <= 50 and p.split() == ["word"] * len(p.split()) for p in got)


def test_a_word_longer_than_a_piece_is_passed_over_and_offsets_stay_in_range():
    text = "see " + "x" * 400 + " for the rest of the text, which goes on"
    got = pieces(text, 0, len(text), limit=100)
    assert [text[a:b] for a, b in got] == ["see", "for the rest of the text, which goes on"]
    assert pieces(text, 4, 404, limit=100) == []
    assert pieces("   ") == [] and pieces("short one") == [(0, 9)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab ,;:\n\u2014", max_size=400), st.integers(5, 60), st.data())
def test_pieces_are_short_ordered_trimmed_and_keep_every_word_that_fits(text, limit, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    got = pieces(text, start, end, limit)
    last = start
    for a, b in got:
        assert last <= a < b <= end and b - a <= limit
        assert not text[a].isspace() and not text[b - 1].isspace()
        last = b
    covered = set()
    for a, b in got:
        covered.update(range(a, b))
    pos = start
    for word in text[start:end].split():  # every word no longer than a piece is inside one piece
        at = text.index(word, pos, end)
        pos = at + len(word)
        if len(word) <= limit:
            assert any(a <= at and at + len(word) <= b for a, b in got), (word, at)
