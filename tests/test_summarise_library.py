"""Summaries through the real library (SQLite + sqlite-vec, the real model): kept at indexing
time, rebuilt on re-index, computed on demand where missing; ``Library.summarise``, ``ask``
routing, the CLI, and the bad inputs of the issue, each a reason and never an exception."""

from __future__ import annotations

import json

import pytest
from pydoc_data.topics import topics

from readingroom import Library, NewDocument
from readingroom.aio import run
from readingroom.summarise.extractive import VERSION


def doc(name: str, text: str) -> NewDocument:
    return NewDocument(name=name, text=text, doc_type=name.rsplit(".", 1)[-1])


@pytest.fixture
def lib(library):
    run(library.add([doc("try.txt", topics["try"]), doc("while.txt", topics["while"]),
                     doc("for.txt", topics["for"]),
                     doc("table.md", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"),
                     doc("code.py", "def f(x):\n    return x * 2\n\n\nprint(f(3))\n"),
                     doc("one.md", "Only one sentence lives in this short note today."),
                     doc("tool.py", 'import sys\n\n\ndef main():\n    """Read numbers from standard input, one '
                         'per line.\n\n    Print their total at the end, rounded to two places.\n    """\n'
                         "    nums = [float(x) for x in sys.stdin]\n    # Rounding keeps the output short.\n"
                         "    print(round(sum(nums), 2))\n")]))
    return library


def ids(lib) -> dict[str, int]:
    return {d.name: d.id for d in lib.documents()}


def kept(lib, doc_id):
    return lib.index.store.query("SELECT version, data FROM doc_summaries WHERE doc_id = ?", (doc_id,))


def test_summary_is_kept_when_the_document_is_stored_and_rebuilt_when_it_changes(lib):
    i = ids(lib)["try.txt"]
    [(version, data)] = kept(lib, i)
    assert version == VERSION and json.loads(data)["points"]
    run(lib.add([doc("try.txt", "# New\n\nThe try statement was rewritten entirely for this test today. "
                                "Nothing of the old text remains in the new version of the file.")]))
    j = ids(lib)["try.txt"]
    assert kept(lib, i) == [] or i == j
    assert "rewritten" in json.loads(kept(lib, j)[0][1])["points"][0]["text"]
    lib.delete(j)
    assert kept(lib, j) == []


def test_missing_summaries_are_computed_on_demand_and_kept(lib):
    i = ids(lib)["while.txt"]
    before = json.loads(kept(lib, i)[0][1])
    lib.index.store.query("DELETE FROM doc_summaries")
    d = run(lib.summarise([i])).to_dict()
    assert [p["text"] for p in before["points"]] == [r["text"] for r in d["results"][: d["summary"]["points"]]]
    assert kept(lib, i)


def test_reindex_drops_summaries_made_from_the_old_vectors(lib):
    run(lib.reindex())
    assert lib.index.store.query("SELECT count(*) FROM doc_summaries")[0][0] == 0
    assert run(lib.summarise([ids(lib)["for.txt"]])).points


def test_summarise_gives_an_outline_of_verbatim_points_opening_at_their_place(lib):
    d = run(lib.summarise([ids(lib)["try.txt"]])).to_dict()
    assert d["kind"] == "summary" and d["reason"] is None and d["covered"]
    [block] = d["summary"]["documents"]
    assert block["sections"][0]["heading"] == ['The "try" statement']
    ns = [p["n"] for s in block["sections"] for p in s["points"]]
    assert ns == list(range(1, len(ns) + 1)) == [c["n"] for c in d["citations"]][: len(ns)]
    for n in ns:
        r = d["results"][n - 1]
        assert topics["try"][r["start"]:r["end"]] == r["text"]
        [chunk] = lib.neighbours(r["chunk_ids"][0], 0, 0)
        assert r["text"] in chunk.text  # [n] opens the Reader at the chunk that holds it


def test_comparison_pairs_points_and_lists_the_rest(lib):
    i = ids(lib)
    d = run(lib.summarise([i["while.txt"], i["for.txt"]], {"kind": "compare"})).to_dict()
    c = d["summary"]["comparison"]
    assert c["similarity"] == "meaning" and c["pairs"]
    a_ns = {p["n"] for s in d["summary"]["documents"][0]["sections"] for p in s["points"]}
    assert {p["a"] for p in c["pairs"]} | set(c["only_a"]) == a_ns


@pytest.mark.parametrize("name, note", [("code.py", "no_prose"), ("one.md", "one_sentence")])
def test_documents_with_nothing_to_summarise_say_why(lib, name, note):
    d = run(lib.summarise([ids(lib)[name]])).to_dict()
    assert d["summary"]["documents"][0]["note"] == note
    assert d["message"] and name in d["message"]


def test_a_document_of_tables_is_summarised_by_its_tables(lib):
    """A table has no sentence to quote; its summary is its header row and how many rows it has
    (before: "holds no sentence to quote")."""
    d = run(lib.summarise([ids(lib)["table.md"]])).to_dict()
    [block] = d["summary"]["documents"]
    [point] = [p for s in block["sections"] for p in s["points"]]
    assert (block["note"], d["reason"], point["text"], point["rows"]) == (None, None, "| a | b |", 2)
    assert (point["start"], point["end"]) == (0, len("| a | b |"))


def test_a_source_file_is_summarised_from_its_docstrings_and_comments(lib):
    d = run(lib.summarise([ids(lib)["tool.py"]])).to_dict()["summary"]["documents"][0]
    points = [p["text"] for s in d["sections"] for p in s["points"]]
    assert "Read numbers from standard input, one per line." in points
    assert not any("sys.stdin" in p or "print(" in p for p in points)


def test_bad_requests_are_reasons(lib, library):
    i = ids(lib)
    d = run(lib.summarise([i["try.txt"], i["try.txt"]], {"kind": "compare"})).to_dict()
    assert d["reason"] == "same_document" and "itself" in d["message"]
    d = run(lib.summarise([123456])).to_dict()
    assert "not in the library" in d["message"] and d["results"] == []
    many = list(range(1, 201))
    d = run(lib.summarise(many)).to_dict()
    assert "first 20 of 200" in d["message"]
    empty = Library.open(":memory:", embedder=library.embedder)
    assert run(empty.summarise([1])).to_dict()["reason"] == "no_documents"
    empty.close()


def test_a_document_still_being_indexed_says_so(lib):
    i = ids(lib)
    # the record an index run keeps (ingest.py): later.md not stored yet, try.txt being replaced
    lib.index.set_unfinished(["docs/later.md", "try.txt"])
    d = run(lib.ask("Summarise later.md")).to_dict()
    assert d["reason"] == "indexing" and d["message"] == "docs/later.md is still being indexed; ask again when it is done."
    assert d["results"] == [] and d["summary"]["points"] == 0
    d = run(lib.summarise([i["try.txt"]])).to_dict()  # the version stored before, said so
    assert d["summary"]["documents"][0]["note"] == "indexing_again" and d["summary"]["points"]
    assert "try.txt is being indexed again" in d["message"] and d["reason"] is None
    d = run(lib.summarise([max(i.values()) + 1])).to_dict()  # a new document's id, before it is stored
    assert "still being indexed" in d["message"] and d["results"] == []
    lib.index.set_unfinished([])
    d = run(lib.ask("Summarise try.txt")).to_dict()
    assert d["reason"] is None and d["message"] is None and d["summary"]["documents"][0]["note"] is None


def test_ask_routes_whole_document_questions(lib):
    d = run(lib.ask("Summarise try.txt")).to_dict()
    assert d["kind"] == "summary" and d["route"]["doc_ids"] == [ids(lib)["try.txt"]]
    assert d["standalone_query"] == "summary of: try.txt" and d["stats"]["route"]["kind"] == "summary"
    d = run(lib.ask("compare while and for")).to_dict()
    assert d["kind"] == "compare" and d["summary"]["comparison"]
    d = run(lib.ask("What happens to an exception in a finally clause?")).to_dict()
    assert "kind" not in d and d["quick"]  # a passage question is answered as before
    d = run(lib.ask("summarise this", options={"filters": {"doc_ids": [ids(lib)["for.txt"]]}})).to_dict()
    assert d["route"]["doc_ids"] == [ids(lib)["for.txt"]]


def test_model_gets_the_whole_text_when_it_fits_else_the_section_summaries(lib):
    i = ids(lib)["try.txt"]
    d = run(lib.summarise([i])).to_dict()
    assert d["model"]["strategy"] == "whole" and d["model_passages"] == len(d["results"]) > d["summary"]["points"]
    whole = "".join(r["text"] for r in d["results"][d["summary"]["points"]:])
    assert "finally" in whole and d["messages"][-1]["role"] == "user"
    d = run(lib.summarise([i], {"fit_budget": 100})).to_dict()
    assert d["model"]["strategy"] == "sections" and len(d["results"]) == d["summary"]["points"]
    check = run(lib.check_answer(f"{d['results'][0]['text']} [1]",
                                 [{"n": n, "text": r["text"]} for n, r in enumerate(d["results"], 1)]))
    assert check["sentences"][0]["supported"]


def test_cli_summarise_and_ask(cli, tmp_path):
    (tmp_path / "try.txt").write_text(topics["try"])
    (tmp_path / "while.txt").write_text(topics["while"])
    cli("index", str(tmp_path / "try.txt"), str(tmp_path / "while.txt"))
    out = cli("summarise", "try.txt").stdout
    assert 'The "try" statement' in out and "[1]" in out
    d = json.loads(cli("summarise", "try.txt", "while.txt", "--compare", "--json").stdout)
    assert d["kind"] == "compare" and d["summary"]["comparison"] is not None
    p = cli("summarise", "nothere.txt", check=False)
    assert p.returncode == 1 and "not in this library" in p.stderr
    assert '"try" statement' in cli("ask", "summarise the try statement").stdout


def test_a_half_embedded_document_is_summarised_by_words_and_kept_only_once_embedded(library):
    """Words first: while some of a document's passages wait for their vectors, a summary is
    made from what is stored but not kept (it would stay words-only); the pass that lands its
    last vectors makes and keeps the final one."""
    from readingroom.ingest import add as ingest

    [o] = ingest.add_words(library.index, [doc("while.txt", topics["while"] + topics["for"])], library.chunking)
    run(ingest.embed_pending(library.index, library.embedder, size=1, max_batches=1))
    assert library.index.has_pending()
    d = run(library.summarise([o.doc_id])).to_dict()
    assert d["summary"]["points"] >= 1 and kept(library, o.doc_id) == []
    run(library.embed_pending())
    assert not library.index.has_pending()
    [(version, data)] = kept(library, o.doc_id)
    assert version == VERSION and json.loads(data)["points"]
