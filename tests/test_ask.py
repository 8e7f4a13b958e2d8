"""``Library.ask`` and ``check_answer`` end to end on real SQLite and the real model: the JSON
shape, every bad input and library state, the worker ops, and the ``ask`` CLI streaming from a
real OpenAI-compatible HTTP server on 127.0.0.1 (a stand-in only for the remote model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, OtherModel, run
from stand_in_chat import StandInChat
from readingroom import Library, NewDocument, reasons, worker
from readingroom.answer import ask as ask_module
from readingroom.errors import BadInput

DOCS = [
    NewDocument("kettle.md", doc_type="md", text=(
        "# Kettle manual\n\nThe kettle switches itself off when the water boils. "
        "Descale the kettle every month with white vinegar to remove limescale.\n\n"
        "Never run the kettle empty, because the heating element overheats.")),
    NewDocument("bike.md", doc_type="md", text=(
        "# Bicycle care\n\nPump the tyres to 4 bar before every long ride. "
        "Oil the chain every 300 km, and wipe off the extra oil with a rag.\n\n"
        "Replace the brake pads when the groove on them is worn away.")),
]
KEYS = {"question", "standalone_query", "quick", "covered", "reason", "message", "results", "documents",
        "evidence", "citations", "context", "packed", "stats", "messages", "query", "model_passages",
        "model_tokens", "model_budget", "brief_messages"}


@pytest.fixture
def notes(library):
    run(library.add(DOCS))
    return library


def test_the_answer_json(notes):
    a = run(notes.ask("How often should I descale the kettle?")).to_dict()
    json.dumps(a, allow_nan=False)
    assert set(a) == KEYS
    assert (a["covered"], a["reason"], a["message"]) == (True, None, None)
    top = a["quick"][0]
    assert set(top) == {"text", "n", "doc_name", "doc_id", "chunk_id", "start", "end", "score", "header"}
    assert top["header"] == ""  # a sentence; a table row has its table's header row here
    assert DOCS[0].text[top["start"]:top["end"]] == top["text"] and "white vinegar" in top["text"]
    assert a["standalone_query"] == a["question"] == "How often should I descale the kettle?"
    assert a["messages"][0]["role"] == "system" and a["context"].strip() in a["messages"][0]["content"]
    assert a["messages"][-1] == {"role": "user", "content": "How often should I descale the kettle?"}
    cov = a["stats"]["answer"]["coverage"]
    assert 0 < cov["threshold"] < 1 and cov["probability"] >= cov["threshold"]


BAD_QUESTIONS = ["kettle", "descale " * 2000, "the of and to it is was", "why?", "Why does it?",
                 "Может ли чайник работать пустым?", "(((", "?" * 300]


@pytest.mark.parametrize("question", BAD_QUESTIONS)
def test_odd_questions_get_a_quick_answer_or_a_typed_reason(notes, question):
    """One word, 2,000 words, only stopwords, a bare "why?" with no earlier turn, another
    script, punctuation: a verbatim quick answer, or a refusal with its sentence; no exception."""
    a = run(notes.ask(question)).to_dict()
    json.dumps(a, allow_nan=False)
    if a["quick"]:
        assert a["covered"] and all(notes_text(q) for q in a["quick"])
    else:
        assert a["reason"] in ("not_covered", "empty_query", "no_sentence", "vague_question") and a["message"]


def test_a_question_that_names_nothing_says_so_and_shows_the_closest_passages(notes):
    """A first question without a word that names a subject gets no quoted sentence (any would
    be chance) but a sentence asking for one, with the passages found; after an earlier turn the
    same "Why?" is a follow-up about that turn, and answered."""
    for q in ("why?", "Is it?", "the of and to it is was", "???", "What is that?"):
        a = run(notes.ask(q)).to_dict()
        assert (a["covered"], a["reason"], a["quick"]) == (False, "vague_question", []), q
        assert a["message"] == reasons.message("vague_question")
    for q in ("What does ** do?", "And !a?", "🚲🚲?", "x < y?"):  # an operator, a flag, a pictograph
        assert not ask_module.names_nothing(q), q
    # a follow-up of a question that named nothing names nothing either ("why? (why)")
    assert run(notes.ask("why?", ["why?"])).to_dict()["reason"] == "vague_question"
    a = run(notes.ask("Why?", ["Can I run the kettle empty?"])).to_dict()
    assert "kettle" in a["standalone_query"] and a["reason"] != "vague_question"
    assert a["results"][0]["doc_name"] == "kettle.md"


def test_one_long_sentence_and_a_document_of_code_only(library):
    """A run-on sentence of 400 clauses (a transcript without full stops, a legal clause) is
    quoted by the clause that answers, verbatim and short; a document of code only is never
    quoted."""
    clauses = [f"the pump moves water number {i}" for i in range(400)]
    clauses[217] = "the pump moves olive oil to the press on Sundays"
    long = "On the farm " + ", and ".join(clauses) + "."
    code = "def boil(kettle):\n    kettle.on()\n    while kettle.temp < 100:\n        wait(1)\n    kettle.off()\n"
    run(library.add([NewDocument("long.txt", text=long, doc_type="txt"),
                     NewDocument("boil.py", text="```python\n" + code + "```\n", doc_type="md")]))
    for q in ("What does the pump move to the press on Sundays?", "How does boil turn the kettle off?"):
        a = run(library.ask(q)).to_dict()
        json.dumps(a, allow_nan=False)
        assert a["results"]  # the passages are found and shown
        for s in a["quick"]:  # no sentence over the quoting limit, nothing from the code block
            assert len(s["text"]) <= 600 and "kettle.on()" not in s["text"]
        assert a["quick"] or (a["reason"] in ("not_covered", "no_sentence") and a["message"])
    a = run(library.ask("What does the pump move to the press on Sundays?")).to_dict()
    top = a["quick"][0]
    assert "olive oil to the press on Sundays" in top["text"] and len(top["text"]) <= 300
    assert long[top["start"]:top["end"]] == top["text"] and top["doc_name"] == "long.txt"


def test_a_source_file_is_quoted_from_its_comments_and_docstrings_never_its_code(library):
    # A .py file read as text has no full stops among its statements: a run of code read as
    # one long "sentence" was quoted as the answer. Its prose is its comments and docstrings.
    py = ("import sys\n\n\ndef total(values):\n    out = 0\n    for v in values:\n        out += v\n"
          "    return out\n\n\ndef main():\n"
          '    """Read the numbers from standard input, one per line, and print their total."""\n'
          "    nums = [float(x) for x in sys.stdin]\n    print(total(nums))\n")
    js = ("// The kettle reports its temperature to the server every ten seconds.\n"
          "setInterval(function () {\n  send(kettle.temp)\n}, 10000)\n")
    run(library.add([NewDocument("tool.py", text=py, doc_type="py"),
                     NewDocument("kettle.js", text=js, doc_type="js")]))
    a = run(library.ask("How does the tool read its numbers?")).to_dict()
    assert [s["text"] for s in a["quick"]][:1] == [
        "Read the numbers from standard input, one per line, and print their total."]
    b = run(library.ask("How often does the kettle report its temperature?")).to_dict()
    assert b["quick"] and b["quick"][0]["text"].startswith("The kettle reports its temperature")
    for s in a["quick"] + b["quick"]:
        assert "for v in values" not in s["text"] and "setInterval" not in s["text"]

@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question(notes, question):
    a = run(notes.ask(question)).to_dict()
    assert (a["reason"], a["covered"], a["quick"], a["results"], a["messages"]) == ("empty_query", False, [], [], [])
    assert a["message"] == "Type a question first."


def test_an_empty_and_an_emptied_library_say_add_a_document(library):
    a = run(library.ask("How often should I descale the kettle?")).to_dict()
    assert (a["reason"], a["message"], a["covered"], a["quick"]) == ("no_documents", reasons.message("no_documents"), False, [])
    [added, _] = run(library.add(DOCS))
    library.delete(added.doc_id)
    library.delete(library.documents()[0].id)
    assert run(library.ask("kettle")).to_dict()["reason"] == "no_documents"


def test_a_question_the_documents_do_not_cover(notes):
    a = run(notes.ask("Who won the football world cup in 1998?")).to_dict()
    assert (a["covered"], a["reason"], a["quick"]) == (False, "not_covered", [])
    assert a["message"] == "Your documents do not seem to cover this."
    a = run(notes.ask("How do I set up Kubernetes?")).to_dict()
    assert (a["covered"], a["reason"], a["quick"]) == (False, "not_covered", [])
    assert a["message"] == "Your documents do not seem to cover this. Nothing found mentions “Kubernetes”."


def test_a_follow_up_is_searched_with_the_conversation_and_stands_alone_without_one(notes):
    first = "How do I oil the bicycle chain?"
    a = run(notes.ask("And how often?", [first])).to_dict()
    assert a["standalone_query"] == "how often? (oil the bicycle chain)"
    assert a["results"][0]["doc_name"] == "bike.md" and "300 km" in a["quick"][0]["text"]
    alone = run(notes.ask("And how often?")).to_dict()
    assert alone["standalone_query"] == "And how often?" and alone["reason"] in (None, "not_covered")


def test_a_200_turn_history_uses_only_recent_turns(notes):
    history = [{"question": f"Tell me about the kettle, part {i}?", "answer": "It boils water [1]. " * 5}
               for i in range(199)] + [{"question": "How do I oil the bicycle chain?", "answer": None}]
    a = run(notes.ask("And how often?", history, {"history_budget": 120})).to_dict()
    assert a["standalone_query"].endswith("(oil the bicycle chain)")
    earlier = a["messages"][1:-1]
    assert 0 < len(earlier) <= 6 and [m["role"] for m in earlier[:2]] == ["user", "assistant"]
    assert earlier[-1]["content"].startswith("It boils water")  # newest answered turn kept
    assert "part 198?" in earlier[-2]["content"]


@pytest.mark.parametrize("question", ["ケトルの掃除はどのくらいの頻度ですか？", "Как часто чистить чайник?", "🚲🚲🚲?"])
def test_a_question_in_another_script(notes, question):
    a = run(notes.ask(question)).to_dict()
    assert a["reason"] in (None, "not_covered") and json.dumps(a, allow_nan=False)
    assert all(notes_text(q) for q in a["quick"])


def notes_text(q: dict) -> bool:
    doc = next(d for d in DOCS if d.name == q["doc_name"])
    return doc.text[q["start"]:q["end"]] == q["text"]


def test_options(notes):
    a = run(notes.ask("descale the kettle", options={"k": 1, "history_budget": 0,
                                                     "standalone_query": "brake pads"})).to_dict()
    assert a["standalone_query"] == "brake pads" and a["results"][0]["doc_name"] == "bike.md"
    assert a["stats"]["options"]["k"] == 1
    for bad in ({"k": 0}, {"history_budget": -1}, {"standalone_query": 3}, {"nonsense": 1}):
        with pytest.raises(BadInput):
            run(notes.ask("kettle", options=bad))
    for history in ("What is a kettle?", {"question": "What is a kettle?"}, 42):
        with pytest.raises(BadInput, match="history must be a list"):
            run(notes.ask("kettle", history))


def test_another_models_library_answers_by_words_and_says_so(tmp_path, embedder):
    path = tmp_path / "other.sqlite"
    other = Library.open(path, embedder=OtherModel("someone/else-v2"))
    run(other.add(DOCS))
    other.close()
    lib = Library.open(path, embedder=embedder)
    try:
        a = run(lib.ask("descale kettle white vinegar")).to_dict()
        assert a["reason"] == "model_mismatch" and "re-index" in a["message"]
        assert a["covered"] and "vinegar" in a["quick"][0]["text"]  # words alone, still verbatim
        assert run(lib.ask("football world cup winners")).to_dict()["covered"] is False
    finally:
        lib.close()


def test_check_answer_through_the_library(notes):
    passages = [{"n": 1, "text": DOCS[0].text}]
    c = run(notes.check_answer("Descale it monthly with vinegar [1]. Boil eggs in it [1]. See [3].", passages))
    assert [s["supported"] for s in c["sentences"]] == [True, False, False] and c["invalid_citations"] == [3]


# --- worker ops (the browser's entry points, run natively) -----------------------------------

def _w(coro) -> dict:
    return json.loads(run(coro))


def test_worker_ops(tmp_path, model_dir):
    os.environ.setdefault("READINGROOM_MODEL_DIR", str(model_dir))
    assert "error" not in _w(worker.open(json.dumps({"path": str(tmp_path / "w.sqlite")})))
    docs = [{"name": d.name, "text": d.text, "type": d.doc_type} for d in DOCS]
    _w(worker.add_documents(json.dumps(docs)))
    a = _w(worker.ask("And how often?", json.dumps(["How do I oil the bicycle chain?"]), "{}", 1))
    assert set(a) == KEYS and a["results"][0]["doc_name"] == "bike.md"
    passages = json.dumps([{"n": 1, "text": DOCS[1].text}])
    c = _w(worker.check_answer("Oil the chain every 300 km [1]. It is made of gold [7].", passages))
    assert [s["supported"] for s in c["sentences"]] == [True, False] and c["invalid_citations"] == [7]
    assert _w(worker.ask("x", "{not json", "{}", 2))["error"]["type"] == "bad_input"
    assert _w(worker.ask("x", '{"a": 1}', "{}", 3))["error"]["type"] == "bad_input"
    assert _w(worker.ask("x", "[]", '{"k": -1}', 4))["error"]["type"] == "bad_input"
    assert _w(worker.check_answer("x", '[{"n": "one"}]'))["error"]["type"] == "bad_input"
    assert _w(worker.check_answer("x", '"nope"'))["error"]["type"] == "bad_input"
    worker.cancel_queries_before(10)  # a newer question arrived: this older one stops
    assert _w(worker.ask("kettle", "[]", "{}", 9))["error"]["type"] == "cancelled"
    assert _w(worker.ask("kettle", "[]", "{}", 11))["reason"] is None


# --- the CLI, with a real HTTP server speaking the OpenAI streaming protocol ------------------

REPLY = ["Descale the kettle every month ", "with white vinegar [1]. ", "It also makes coffee [1]. ", "See [9]."]


@pytest.fixture
def chat_server():
    """``/ok/v1`` streams REPLY; ``/fail/v1`` answers HTTP 500; ``/drop/v1`` stops after two pieces."""
    with StandInChat(REPLY, rewrite="How often should I oil the bicycle chain?") as server:
        yield server


@pytest.fixture
def cli(tmp_path, embedder, model_dir):
    (tmp_path / ".readingroom").mkdir()
    lib = Library.open(tmp_path / ".readingroom" / "index.sqlite", embedder=embedder)
    run(lib.add(DOCS))
    lib.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_src"), "READINGROOM_MODEL_DIR": str(model_dir)}

    def call(*args):
        return subprocess.run([sys.executable, "-m", "readingroom", "ask", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
    return call


def test_cli_ask_prints_the_quick_answer_and_its_sources(cli, tmp_path):
    p = cli("How often should I descale the kettle?")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("Descale the kettle every month with white vinegar") and lines[0].endswith("[1]")
    assert "Sources:" in lines and "  [1] kettle.md — Kettle manual" in lines
    (tmp_path / "h.txt").write_text("How do I oil the bicycle chain?\n\n")
    p = cli("And how often?", "--history-file", "h.txt", "--json")
    a = json.loads(p.stdout)
    assert set(a) == KEYS and a["standalone_query"].endswith("(oil the bicycle chain)")
    (tmp_path / "h.json").write_text(json.dumps([{"question": "How do I oil the bicycle chain?"}]))
    assert json.loads(cli("And how often?", "--history-file", "h.json", "--json").stdout)["results"][0]["doc_name"] == "bike.md"
    p = cli("   ")
    assert p.returncode == 0 and "Type a question first." in p.stdout
    p = cli("x", "--history-file", "missing.txt")
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "missing.txt" in p.stderr


def test_cli_streams_the_model_and_checks_its_citations(cli, chat_server):
    p = cli("How often should I descale the kettle?", "--llm", f"{chat_server.url}/ok/v1", "--model", "tiny")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "Answer:\nDescale the kettle every month with white vinegar [1]. It also makes coffee [1]. See [9]." in out
    assert "unsupported (not supported by [1]): It also makes coffee [1]." in out
    assert "no such source: [9]" in out
    assert "Descale the kettle every month with white vinegar [1]." not in out.split("Citation check:")[1]
    [req] = chat_server.requests
    assert req["path"] == "/ok/v1/chat/completions"
    assert req["json"]["stream"] is True and req["json"]["model"] == "tiny"
    assert req["json"]["messages"][0]["role"] == "system" and "[1] kettle.md" in req["json"]["messages"][0]["content"]


def test_cli_rewrites_a_follow_up_with_the_model(cli, chat_server, tmp_path):
    (tmp_path / "h.txt").write_text("How do I oil the bicycle chain?\n")
    p = cli("And how often?", "--history-file", "h.txt", "--llm", f"{chat_server.url}/ok/v1", "--json")
    a = json.loads(p.stdout)
    assert a["standalone_query"] == "How often should I oil the bicycle chain?"
    assert a["generated"].startswith("Descale") and a["check"]["unsupported"] >= 1
    assert [r["json"]["stream"] for r in chat_server.requests] == [False, True]


def test_cli_model_failures_are_one_line_and_keep_the_quick_answer(cli, chat_server):
    p = cli("How often should I descale the kettle?", "--llm", f"{chat_server.url}/fail/v1")
    assert p.returncode == 1 and "white vinegar" in p.stdout
    assert p.stderr.strip().count("\n") == 0 and "HTTP 500" in p.stderr and "model not loaded" in p.stderr
    p = cli("How often should I descale the kettle?", "--llm", f"{chat_server.url}/drop/v1")
    assert p.returncode == 1 and "with white vinegar [1]. [interrupted]" in p.stdout
    assert "Citation check: 1 of 1" in p.stdout and "ended before" in p.stderr
    p = cli("How often should I descale the kettle?", "--llm", "http://127.0.0.1:9/v1")
    assert p.returncode == 1 and "cannot reach" in p.stderr and "white vinegar" in p.stdout


def test_cli_does_not_ask_the_model_when_the_documents_do_not_cover_it(cli, chat_server):
    p = cli("Who won the football world cup in 1998?", "--llm", f"{chat_server.url}/ok/v1")
    assert p.returncode == 0 and "do not seem to cover" in p.stdout and chat_server.requests == []
    p = cli("Who won the football world cup in 1998?", "--llm", f"{chat_server.url}/ok/v1", "--anyway")
    assert p.returncode == 0 and len(chat_server.requests) == 1


def test_a_small_model_budget_shortens_what_the_model_reads_not_the_quick_answer(library):
    """The in-page model is sent fewer sources ([1]..[m] of the same numbering); the quick
    answer still draws on every packed passage."""
    docs = [NewDocument(f"tea{i}.md", text=f"# Tea {i}\n\n" + " ".join(
        f"Tea number {i} is steeped for {j} minutes in water at {80 + j} degrees." for j in range(12)))
        for i in range(4)]
    run(library.add(docs))
    full = run(library.ask("How long is tea steeped?")).to_dict()
    small = run(library.ask("How long is tea steeped?", options={"model_budget": 120})).to_dict()
    assert small["quick"] == full["quick"] and small["citations"] == full["citations"]
    sent, whole = small["messages"][0]["content"], full["messages"][0]["content"]
    assert len(sent) < len(whole) and "[1] " in sent and "[3] " not in sent
    assert 1 <= small["model_passages"] < full["model_passages"] == len(full["citations"])
    assert small["model_tokens"] <= small["model_budget"] == 120 < full["model_tokens"]
    assert sent.split("[1] ", 1)[1][:40] == whole.split("[1] ", 1)[1][:40]  # the same [1]


def test_a_passage_only_meaning_finds_is_among_those_an_answer_draws_on(library):
    """A person's own words: the question shares "files" and "need" with a dozen backup notes
    and no word with the note that answers it. Lexical x2 ranks every backup note above it
    (words alone); an answer lifts the vector leg's best chunks into its passages."""
    backups = [NewDocument(f"backup-{i:02d}.md", doc_type="md", text=(
        f"# Backup night {i}\n\nThe nightly job copied the files you need to the archive disk on night {i}; "
        "no files were skipped, and the files you need most were verified twice.")) for i in range(12)]
    answer = NewDocument("clean-up.md", doc_type="md", text=(
        "# Clearing out\n\nTo delete a document you have finished with, select it in the list and press "
        "Remove; it is gone at once and cannot be brought back."))
    run(library.add(backups + [answer]))
    question = "How do I get rid of files I no longer need?"
    words_first = run(library.ask(question, [], {"lift_vector": 0})).retrieval
    assert "clean-up.md" not in [s.doc_name for s in words_first.packed.spans]
    lifted = run(library.ask(question)).retrieval
    names = [s.doc_name for s in lifted.packed.spans]
    assert "clean-up.md" in names[:4 + 1], names
    assert lifted.stats["options"]["lift_vector"] == ask_module.ASK_RETRIEVAL["lift_vector"] > 0
    with pytest.raises(BadInput):
        run(library.ask(question, [], {"lift_vector": -1}))
