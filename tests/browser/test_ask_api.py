"""``window.readingroom.ask`` and ``checkAnswer`` in the page: the same answer JSON as
Python's ``Library.ask``, follow-ups searched with the conversation's words, and a
generated answer's citations checked."""

from __future__ import annotations

DOCS = [
    {"name": "kettle.md", "text": (
        "# Kettle manual\n\nThe kettle switches itself off when the water boils. "
        "Descale the kettle every month with white vinegar to remove limescale.\n\n"
        "Never run the kettle empty, because the heating element overheats.")},
    {"name": "bike.md", "text": (
        "# Bicycle care\n\nPump the tyres to 4 bar before every long ride. "
        "Oil the chain every 300 km, and wipe off the extra oil with a rag.\n\n"
        "Replace the brake pads when the groove on them is worn away.")},
]


def _add(page):
    out = page.evaluate("(d) => window.readingroom.addDocuments(d)", DOCS)
    assert [d["status"] for d in out["documents"]] == ["added", "added"]


def test_ask_returns_a_quick_answer_with_its_place_in_the_document(page):
    _add(page)
    a = page.evaluate("() => window.readingroom.ask('How often should I descale the kettle?')")
    assert {"question", "standalone_query", "quick", "covered", "reason", "message", "results",
            "documents", "evidence", "citations", "context", "packed", "stats", "messages"} <= a.keys()
    assert a["covered"] is True and a["reason"] is None
    top = a["quick"][0]
    assert "white vinegar" in top["text"] and top["doc_name"] == "kettle.md"
    assert DOCS[0]["text"][top["start"]:top["end"]] == top["text"]  # verbatim, highlightable
    assert f"[{top['n']}] kettle.md" in a["context"]  # its [n] is the passage it came from
    assert [m["role"] for m in a["messages"]] == ["system", "user"]
    assert "[1]" in a["messages"][0]["content"]

    off = page.evaluate("() => window.readingroom.ask('Who won the football world cup in 1998?')")
    assert (off["covered"], off["reason"], off["quick"]) == (False, "not_covered", [])
    assert off["message"]
    empty = page.evaluate("() => window.readingroom.ask('   ')")
    assert empty["reason"] == "empty_query" and empty["message"]


def test_a_follow_up_is_searched_with_the_earlier_question(page):
    _add(page)
    first = "How do I look after the bicycle chain?"
    a = page.evaluate("(h) => window.readingroom.ask('And how often?', {history: h, k: 4})", [first])
    assert a["standalone_query"] != "And how often?"
    assert "chain" in a["standalone_query"] and "bicycle" in a["standalone_query"]
    assert a["results"][0]["doc_name"] == "bike.md"
    assert a["stats"]["options"]["k"] == 4  # the other options reach retrieval
    turns = [{"question": first, "answer": "Oil it every 300 km [1]."}]
    b = page.evaluate("(h) => window.readingroom.ask('And the brakes?', {history: h})", turns)
    assert [m["role"] for m in b["messages"]] == ["system", "user", "assistant", "user"]


def test_check_answer_flags_unsupported_sentences_and_missing_sources(page):
    _add(page)
    passages = [{"n": 1, "text": DOCS[0]["text"]}, {"n": 2, "text": DOCS[1]["text"]}]
    text = ("Descale the kettle every month with white vinegar [1]. "
            "The kettle can also be used to cook pasta [1]. "
            "Pump the tyres to 4 bar before a long ride [2][9]. "
            "Chains never need oil.")
    c = page.evaluate("([t, p]) => window.readingroom.checkAnswer(t, p)", [text, passages])
    ok = [s["supported"] for s in c["sentences"]]
    assert ok == [True, False, True, False]
    assert c["unsupported"] == 2 and c["invalid_citations"] == [9]
    assert c["sentences"][2]["cites"] == [2] and c["sentences"][2]["missing"] == [9]
    assert text[c["sentences"][1]["start"]:c["sentences"][1]["end"]] == c["sentences"][1]["text"]
