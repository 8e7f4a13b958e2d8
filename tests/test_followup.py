"""Follow-up questions become queries that can be searched on their own; questions that
already stand alone are searched exactly as asked."""

from __future__ import annotations

import pytest

from readingroom.answer.followup import MAX_TURNS, Turn, is_followup, standalone_query, subject, turns

FINALLY = "What happens to the exception when a finally clause runs a return statement?"


@pytest.mark.parametrize("earlier, question, carried", [
    (FINALLY, "And what if it runs a break?", "the exception when a finally clause runs a return statement"),
    ("How do I define a function with default arguments?", "When are those values evaluated?",
     "define a function with default arguments"),
    ("What does the with statement do?", "What happens if its exit method returns true?", "the with statement"),
    ("What does the return statement do?", "What about inside a generator?", "the return statement"),
    ("How does a for loop work?", "And when does its else clause run?", "a for loop"),
    ("What is a lambda?", "Can they contain statements?", "a lambda"),
    ("What is a lambda?", "Why?", "a lambda"),
    ("What is a lambda?", "Is this allowed in a default argument?", "a lambda"),
    ("What does global do?", "Same for nonlocal?", "global"),
    ("What does del do?", "What if the name is not bound?", "del"),
    ("How are dictionaries compared?", "and sets?", "dictionaries compared"),
    ("Как определить функцию?", "А с аргументами по умолчанию?", "Как определить функцию"),
    ("関数の定義方法は？", "デフォルト引数は？", "関数の定義方法は"),
])
def test_a_follow_up_carries_what_the_previous_question_was_about(earlier, question, carried):
    q = standalone_query(question, [earlier])
    assert q.endswith(f"({carried})")
    assert q != question


def test_the_opening_and_or_what_about_is_dropped_and_what_if_is_kept():
    assert standalone_query("And what if it runs a break?", [FINALLY]).startswith("what if it runs a break?")
    assert standalone_query("What about inside a generator?", ["What does return do?"]).startswith("inside a generator?")
    assert standalone_query("and sets?", ["How are dictionaries compared?"]).startswith("sets?")


@pytest.mark.parametrize("question", [
    "How do I sort a list in place?",
    "What is the error that the parser raises for a bad token?",  # "that" after a noun
    "Can a lambda contain statements?",
    "How are floating point numbers rounded when formatted?",
])
def test_a_question_that_stands_alone_is_searched_as_asked(question):
    assert standalone_query(question, ["What is a lambda?"]) == question


@pytest.mark.parametrize("question", [
    "Is there a maximum size for an integer?",  # "there" that points at nothing
    "There are two loops; which runs first?",
    "Is it a good idea to use a mutable default argument?",  # the "it" of "is it … to"
    "Is it possible to call a function with a keyword that matches none of its parameters?",
    "Does it matter if I write names in capitals?",
    "How do I compare mutable objects such as lists?",
    "How do I write a tuple with just one element?",  # "one" before a noun is a number
    "Can I use a variable in a function before the global statement that declares it?",  # "it": the variable
    "Why does modifying a dictionary while iterating over its view fail?",
    "Do objects that compare equal need to have the same hash?",
    "What is a generator?",  # one word of its own, and yet it asks what one thing is
    "What does NaN mean?",
    "What does < mean when I use it between two sets?",  # "it": the operator, named before "when"
    "What happens to a file if an error is raised inside it?",
])
def test_a_question_whose_pronoun_points_inside_it_or_at_nothing_is_searched_as_asked(question):
    assert not is_followup(question)
    assert standalone_query(question, ["What is a lambda?"]) == question


@pytest.mark.parametrize("question", [
    "What is a guard in it?", "Is it stable?", "When did he die?", "Who is she?",
    "What is the default?", "Which one is faster?", "How do I chain it to another exception?",
    "Does it still help when the parent class doesn't use it?", "Is there a limit on them?",
    "Can I use ** on it?", "What if I call it twice?",
])
def test_a_question_whose_pronoun_points_at_an_earlier_turn_is_a_follow_up(question):
    assert is_followup(question)
    assert standalone_query(question, ["What does the match statement do?"]).endswith("(the match statement)")


def test_a_follow_up_that_names_its_subject_needs_nothing_carried():
    assert standalone_query("And can a lambda have default arguments?", ["What is a lambda?"]) == \
        "And can a lambda have default arguments?"


def test_without_earlier_turns_a_follow_up_is_searched_as_asked():
    assert standalone_query("And what if it runs a break?", []) == "And what if it runs a break?"
    assert standalone_query("And what if it runs a break?", None) == "And what if it runs a break?"
    assert standalone_query("  why?  ", [" ", {"question": ""}, {"answer": "x"}, 42]) == "why?"


def test_a_chain_of_follow_ups_keeps_the_original_subject():
    first = "What does the with statement do?"
    second = "Can it be nested?"
    q2 = standalone_query(second, [first])
    assert q2 == "Can it be nested? (the with statement)"
    q3 = standalone_query("And for async code?", [first, {"question": second, "standalone_query": q2}])
    assert q3 == "for async code? (be nested; the with statement)"


def test_history_items_may_be_strings_dicts_or_turns_and_only_the_last_matter():
    hist = [f"What does statement number {i} do?" for i in range(200)] + ["What is a lambda?"]
    assert len(turns(hist)) == MAX_TURNS and turns(hist)[-1].question == "What is a lambda?"
    assert standalone_query("Why?", hist) == "Why? (a lambda)"
    as_dicts = [{"question": "What is a lambda?", "answer": "An anonymous function [1].", "standalone_query": None}]
    assert standalone_query("Why?", as_dicts) == standalone_query("Why?", [Turn("What is a lambda?")])


def test_is_followup_signals():
    assert is_followup("And the brakes?") and is_followup("What does that mean?") and is_followup("Why?")
    assert is_followup("How does it handle exceptions raised inside the finally clause?")
    assert not is_followup("How do I read a file line by line?")


def test_subject_strips_the_question_scaffolding():
    assert subject("What does the with statement do?") == "the with statement"
    assert subject("How do I define a function with default arguments?") == "define a function with default arguments"
    assert subject("Why?") == "Why"


def test_deterministic():
    hist = [FINALLY]
    assert len({standalone_query("And what if it runs a break?", hist) for _ in range(5)}) == 1
