"""An empty library and an emptied one: every read answers normally, with reason
``no_documents`` and a sentence, in the Python API and the CLI (exit code 0)."""

from __future__ import annotations

import json

import pytest

import badinput
from helpers import run
from readingroom import NewDocument
from readingroom.reasons import NO_DOCUMENTS


def make_state(library, state):
    if state == "emptied":
        outcomes = run(library.add([NewDocument("a.md", text="# Tea\n\nGreen tea is steamed."),
                                    NewDocument("b.txt", text="Black tea is oxidised.")]))
        for o in outcomes:
            assert library.delete(o.doc_id)
    return library


@pytest.mark.parametrize("state", [s for s, _ in badinput.EMPTY_STATES])
@pytest.mark.parametrize("mode", ["hybrid", "vector", "lexical"])
def test_retrieve_in_an_empty_library_says_add_a_document(library, state, mode):
    lib = make_state(library, state)
    r = run(lib.retrieve("green tea", {"mode": mode}))
    assert r.reason == NO_DOCUMENTS and r.results == [] and r.documents == []
    d = r.to_dict()
    assert d["message"].startswith("Add a document first")
    json.dumps(d)  # what the worker sends the page
    assert run(lib.get_context("green tea")) == ""


@pytest.mark.parametrize("state", [s for s, _ in badinput.EMPTY_STATES])
def test_every_other_read_in_an_empty_library(library, state):
    lib = make_state(library, state)
    s = lib.status()
    assert (s["documents"], s["chunks"], s["reason"]) == (0, 0, NO_DOCUMENTS)
    assert s["message"].startswith("Add a document first")
    for hits in (lib.similar(1), lib.neighbours(1, 2, 2)):
        assert list(hits) == [] and hits.reason == NO_DOCUMENTS
    assert lib.warm() == 0
    done = run(lib.reindex())
    assert (done.chunks, done.reason) == (0, NO_DOCUMENTS)
    assert lib.documents() == []
    assert run(lib.retrieve("   ")).reason == "empty_query"  # the question's own problem comes first


def test_a_library_with_documents_has_no_reason(library):
    run(library.add([NewDocument("a.md", text="# Tea\n\nGreen tea is steamed.")]))
    assert library.status()["reason"] is None
    r = run(library.retrieve("green tea"))
    assert r.reason is None and r.results and r.to_dict()["message"] is None
    assert library.neighbours(r.results[0].chunk_ids[0]).reason is None


@pytest.mark.parametrize("command", [["search", "anything"], ["search", "anything", "--json"],
                                     ["recall", "anything"], ["similar", "1"], ["status"], ["reindex", "--force"]])
def test_cli_on_an_empty_workspace_says_add_a_document_and_exits_0(cli, command):
    cli("init")
    p = cli(*command)
    assert "Traceback" not in p.stderr
    if "--json" in command:
        assert json.loads(p.stdout)["reason"] == NO_DOCUMENTS
    else:
        assert "Add a document first" in p.stdout


@pytest.mark.parametrize("state", [s for s, _ in badinput.EMPTY_STATES])
def test_ask_in_an_empty_library_says_add_a_document(library, state):
    lib = make_state(library, state)
    d = run(lib.ask("what is green tea?", history=["and black tea?"])).to_dict()
    assert (d["reason"], d["quick"], d["results"]) == (NO_DOCUMENTS, [], [])
    assert d["message"].startswith("Add a document first")


def test_the_answer_carries_its_own_sentence_not_retrievals(library):
    run(library.add([NewDocument("a.md", text="# Tea\n\nGreen tea is steamed; black tea is oxidised.")]))
    d = run(library.ask("How do I change a bicycle tyre?")).to_dict()
    assert d["reason"] == "not_covered" and d["message"] and d["quick"] == []
