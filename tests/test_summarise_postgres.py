"""Summaries on the Postgres store (a real Postgres 18 with pgvector, the real model): it keeps
no summaries, so each is computed on demand from the stored chunks and vectors, and must be
the one SQLite keeps at indexing time; ``ask`` routes whole-document questions there too."""

from __future__ import annotations

import pytest
from pydoc_data.topics import topics

from helpers import run
from readingroom import Library, NewDocument

DOCS = [NewDocument("try.txt", text=topics["try"], doc_type="txt"),
        NewDocument("while.txt", text=topics["while"], doc_type="txt"),
        NewDocument("for.txt", text=topics["for"], doc_type="txt"),
        NewDocument("table.md", text="| a | b |\n|---|---|\n| 1 | 2 |\n", doc_type="md"),
        NewDocument("code.md", text="```python\nprint(1)\n```\n", doc_type="md")]


@pytest.fixture(scope="module")
def both(postgres, embedder):
    pg = Library.open(postgres.new_database(), embedder=embedder)
    lite = Library.open(":memory:", embedder=embedder)
    for lib in (pg, lite):
        run(lib.add(DOCS))
    yield pg, lite
    pg.close()
    lite.close()


def ids(lib) -> dict[str, int]:
    return {d.name: d.id for d in lib.documents()}


def points(d: dict) -> list[str]:
    return [r["text"] for r in d["results"][: d["summary"]["points"]]]


def test_postgres_summary_is_computed_on_demand_and_equals_the_kept_one(both):
    pg, lite = both
    assert pg.index.sql.SET_SUMMARY is None  # nothing kept: computed from the chunks and vectors
    d = run(pg.summarise([ids(pg)["try.txt"]])).to_dict()
    assert d["kind"] == "summary" and d["summary"]["points"] >= 3 and d["reason"] is None
    assert points(d) == points(run(lite.summarise([ids(lite)["try.txt"]])).to_dict())
    for r in d["results"][: d["summary"]["points"]]:
        assert topics["try"][r["start"]:r["end"]] == r["text"]  # verbatim, at its place
    assert d["summary"]["documents"][0]["sections"][0]["heading"]


def test_postgres_routes_asked_summaries_and_comparisons(both):
    pg, _ = both
    d = run(pg.ask("Summarise try.txt")).to_dict()
    assert d["kind"] == "summary" and d["route"]["doc_ids"] == [ids(pg)["try.txt"]]
    assert d["standalone_query"] == "summary of: try.txt" and d["route"]["why"].startswith("named in the question")
    d = run(pg.ask("compare while.txt and for.txt")).to_dict()
    c = d["summary"]["comparison"]
    assert d["kind"] == "compare" and c["similarity"] == "meaning" and c["pairs"]
    d = run(pg.ask("What happens to an exception in a finally clause?")).to_dict()
    assert "kind" not in d and d["quick"]


def test_postgres_bad_inputs_are_reasons(both):
    pg, _ = both
    i = ids(pg)
    d = run(pg.summarise([i["try.txt"], i["try.txt"]], {"kind": "compare"})).to_dict()
    assert d["reason"] == "same_document"
    d = run(pg.summarise([i["code.md"]])).to_dict()
    assert d["summary"]["documents"][0]["note"] == "no_prose" and d["reason"] == "no_sentence"
    d = run(pg.summarise([i["table.md"]])).to_dict()  # a table: its header row and its rows' count
    [point] = d["summary"]["documents"][0]["sections"][0]["points"]
    assert (d["reason"], point["text"], point["rows"]) == (None, "| a | b |", 1)
    d = run(pg.summarise(list(range(1, 201)))).to_dict()
    assert "first 20 of 200" in d["message"]
