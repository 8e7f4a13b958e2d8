"""Routing whole-document questions (summarise/route.py): pure, no database."""

from __future__ import annotations

import pytest

from readingroom.summarise.route import (AMBIGUOUS, COMPARE, PASSAGES, SAME_DOCUMENT, SUMMARY,
                                         WHICH_DOCUMENT, DocRef, kind_of, route)

R = [DocRef(1, "R-data.pdf", "R Data Import/Export"), DocRef(2, "R-admin.pdf", "R Installation and Administration"),
     DocRef(3, "R-intro.pdf", "An Introduction to R"), DocRef(4, "R-exts.pdf", "Writing R Extensions"),
     DocRef(5, "R-lang.pdf", "R Language Definition"), DocRef(6, "notes/caching.md", "Caching decisions"),
     DocRef(7, "archive/caching.md", "Caching decisions"), DocRef(10, "notes/costs.md", "Costs"),
     DocRef(11, "notes/costs-2024.md", "Costs 2024"),
     DocRef(8, "python-reference/assert.txt"), DocRef(9, "python-reference/try.txt")]


@pytest.mark.parametrize("q, kind", [
    ("Summarise the R Data Import/Export manual", SUMMARY),
    ("summarize R-admin.pdf", SUMMARY),
    ("Give me an overview of the caching notes", SUMMARY),
    ("What are the main points of R-intro?", SUMMARY),
    ("outline of the R language definition", SUMMARY),
    ("tl;dr of try.txt", SUMMARY),
    ("What is the R Data Import/Export manual about?", SUMMARY),
    ("Compare R-data and R-admin", COMPARE),
    ("R-intro vs R-lang", COMPARE),
    ("What does R-data say about spreadsheets?", PASSAGES),
    ("How do I read a CSV file in R?", PASSAGES),
    ("what happens when an assert fails", PASSAGES),
    ("", PASSAGES),
])
def test_kind(q, kind):
    assert kind_of(q) == kind


def test_names_the_document_from_its_title():
    r = route("Summarise the R Data Import/Export manual", R)
    assert (r.kind, r.doc_ids, r.named, r.reason) == (SUMMARY, (1,), True, None)


def test_names_the_document_from_its_file_name():
    assert route("summarise R-admin.pdf", R).doc_ids == (2,)
    assert route("main points of assert", R).doc_ids == (8,)


def test_an_ambiguous_name_lists_the_candidates_and_guesses_nothing():
    r = route("summarise the caching decisions", R)
    assert r.reason == AMBIGUOUS and r.doc_ids == ()
    assert {c.id for c in r.candidates} == {6, 7}
    assert "notes/caching.md" in r.message and "archive/caching.md" in r.message


def test_the_closest_whole_name_wins_over_a_longer_one():
    assert route("summarise the costs notes", R).doc_ids == (10,)
    assert route("summarise costs 2024", R).doc_ids == (11,)


def test_without_a_name_the_scope_is_used():
    r = route("Summarise these documents", R, scope=[3, 5])
    assert (r.kind, r.doc_ids, r.named, r.reason) == (SUMMARY, (3, 5), False, None)


def test_without_a_name_or_a_scope_it_asks_which():
    r = route("Summarise this", R)
    assert r.reason == WHICH_DOCUMENT and r.doc_ids == () and r.message


def test_one_document_library_needs_no_name():
    assert route("summarise this", R[:1]).doc_ids == (1,)


def test_hash_names():
    assert route("summarise #R-exts.pdf", R).doc_ids == (4,)
    assert route("compare #R-exts.pdf #R-lang.pdf", R).doc_ids == (4, 5)


def test_compare_two_named_documents():
    r = route("Compare R-data and R-admin", R)
    assert (r.kind, r.doc_ids, r.reason) == (COMPARE, (1, 2), None)
    r = route("How does the R language definition differ from writing R extensions?", R)
    assert r.kind == COMPARE


def test_compare_a_document_with_itself_is_a_typed_reason():
    r = route("compare R-data with R-data.pdf", R)
    assert r.reason == SAME_DOCUMENT and "itself" in r.message


def test_compare_one_document_needs_another():
    r = route("compare R-data", R)
    assert r.reason == WHICH_DOCUMENT


def test_passage_questions_keep_the_scope():
    r = route("What does R-data say about spreadsheets?", R, scope=[1])
    assert (r.kind, r.doc_ids) == (PASSAGES, (1,))


def test_to_dict_is_plain():
    import json

    d = route("summarise the caching decisions", R).to_dict()
    assert json.loads(json.dumps(d))["reason"] == AMBIGUOUS


def test_a_topic_that_names_no_document_stays_a_passage_question():
    r = route("Summarise the causes of the war", R, scope=[1])
    assert (r.kind, r.doc_ids) == (PASSAGES, (1,))
    assert route("What is the theory of relativity about?", R).kind == PASSAGES


def test_a_name_that_is_a_common_word_still_names_its_document():
    docs = [DocRef(1, "python-reference/while.txt"), DocRef(2, "python-reference/for.txt"),
            DocRef(3, "python-reference/try.txt")]
    r = route("compare while and for", docs)
    assert (r.kind, r.doc_ids, r.reason) == (COMPARE, (1, 2), None)


def test_a_file_name_after_the_cue_word_is_exact_even_when_titles_share_words():
    docs = [DocRef(1, "birds.md", "Owls"), DocRef(2, "garden.md", "Garden birds")]
    r = route("Compare birds.md and garden.md", docs)
    assert (r.kind, r.doc_ids, r.reason) == (COMPARE, (1, 2), None)


@pytest.mark.parametrize("q, scope, why", [
    ("summarise R-admin.pdf", (), "named in the question"),
    ("summarise #R-admin.pdf", (), "named with #"),
    ("summarise this", (3,), "the documents in the scope"),
    ("summarise the caching notes", (), "fits 2 documents"),
    ("summarise this", (), "no document named in the question"),
    ("compare R-data.pdf and R-data.pdf", (), "both names are the same document"),
    ("How do I read a CSV file in R?", (), "no summary or comparison asked for"),
])
def test_why_says_how_the_documents_were_chosen(q, scope, why):
    r = route(q, R, scope)
    assert why in r.why and r.to_dict()["why"] == r.why


@pytest.mark.parametrize("question", [
    "Can I compare a plain object of my own class with another one using < without defining anything?",
    "How do I compare two strings ignoring case?",
    "Is it safe to compare floats with ==?",
    "What happens when I compare a list and a tuple?",
    "Do objects that compare equal need to have the same hash?",
])
def test_asking_how_or_whether_to_compare_things_is_a_passage_question(question):
    """A person asking how to compare values (the bundled reference's comparison operators) is
    not asking for documents to be compared: it is searched, not refused with "which documents?"."""
    assert route(question, R).kind == PASSAGES
    assert route("Can you compare R-data and R-admin?", R).kind == COMPARE


@pytest.mark.parametrize("question", [
    "What is the difference between a list and a data frame?",
    "Compare vectors and matrices",
    "How does a factor differ from a character vector?",
])
def test_comparing_things_that_are_not_documents_is_a_passage_question(question):
    """One side names a document by a common word ("data") and the other names none: the
    things compared are topics, answered from passages, not refused with "which documents?"."""
    r = route(question, R)
    assert (r.kind, r.reason) == (PASSAGES, None)
    assert route("What is the difference between R-data and the R language definition?", R).doc_ids == (1, 5)
