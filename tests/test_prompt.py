"""What a generative transport is sent: grounding instructions with the [n] sources, the
earlier turns that fit their budget (newest kept), then the question."""

from __future__ import annotations

from readingroom.text import tokens
from readingroom.answer.prompt import GROUNDED_INSTRUCTIONS, NO_SOURCES_INSTRUCTIONS, messages

CONTEXT = "[1] notes.md\nThe kettle switches itself off.\n\n[2] bike.md\nOil the chain.\n"


def test_grounded_system_message_then_the_question():
    m = messages("How often do I oil the chain?", CONTEXT)
    assert [x["role"] for x in m] == ["system", "user"]
    assert m[0]["content"].startswith(GROUNDED_INSTRUCTIONS)
    assert m[0]["content"].endswith("[2] bike.md\nOil the chain.")
    assert m[1]["content"] == "How often do I oil the chain?"


def test_no_context_says_so_and_none_is_plain_chat():
    assert messages("q", "  ")[0]["content"] == NO_SOURCES_INSTRUCTIONS
    assert messages("q", None) == [{"role": "user", "content": "q"}]


def test_earlier_turns_alternate_in_order_and_turns_without_answers_are_left_out():
    hist = [{"question": "First?", "answer": "One [1]."}, "Second?",
            {"question": "Third?", "answer": "Three [2]."}]
    m = messages("Fourth?", CONTEXT, hist)
    assert [(x["role"], x["content"]) for x in m[1:]] == [
        ("user", "First?"), ("assistant", "One [1]."), ("user", "Third?"), ("assistant", "Three [2]."),
        ("user", "Fourth?")]


def test_the_newest_turns_that_fit_the_budget_are_kept_whole():
    hist = [{"question": f"Question {i}?", "answer": "word " * 40} for i in range(200)]
    m = messages("Now?", CONTEXT, hist, budget_tokens=150)
    kept = [x["content"] for x in m if x["role"] == "user"][:-1]
    assert kept == ["Question 198?", "Question 199?"]  # 2 turns of ~50 tokens fit, the newest
    spent = sum(tokens.estimate(x["content"]) + 4 for x in m[1:-1])
    assert spent <= 150
    assert all(x["content"] == ("word " * 40).strip() for x in m if x["role"] == "assistant")
    assert messages("Now?", CONTEXT, hist, budget_tokens=0)[1:] == [{"role": "user", "content": "Now?"}]
