"""One contract for both sides: the JSON API of ``readingroom.worker``.

The native driver calls the worker's coroutines under CPython (apsw + sqlite-vec, ONNX
Runtime); the browser driver calls ``window.readingroom`` in Chromium (Pyodide, sqlite-wasm,
transformers.js). Every case below runs against both, and the browser tests also compare
the two sides' answers number by number.
"""

from __future__ import annotations

import json
from typing import Protocol

GENETICS = {"name": "genetics.md", "text": "# Oncology\n\n## Screening\n\nBRCA1 mutation analysis "
            "in families with hereditary ovarian and mammary tumours identifies carriers early.\n"}
BREAD = {"name": "bread.txt", "text": "How to bake sourdough bread with a crisp crust: flour, water, "
         "salt, and a long cold proof in the fridge."}
DEVICE = {"name": "device.txt", "text": "The controller reports error code E4711 when the cooling fan "
          "stalls; replace the fan and clear the code."}
CORPUS = [GENETICS, BREAD, DEVICE]
QUERIES = ["breast cancer gene", "E4711", "how do I make bread", "fan failure", 'NEAR( "oops -x*']


class Driver(Protocol):
    def add(self, docs: list[dict]) -> dict: ...
    def query(self, text: str, options: dict | None = None) -> dict: ...
    def status(self) -> dict: ...
    def delete(self, doc_id: int) -> dict: ...
    def documents(self, ids: list[int] | None = None, page: dict | None = None) -> list[dict] | dict: ...


class NativeDriver:
    """``readingroom.worker`` natively, on an in-memory database or a Postgres URL."""

    def __init__(self, location: str = ":memory:") -> None:
        from readingroom import worker

        self.worker = worker
        opened = self._run(worker.open(json.dumps({"path": location})))
        assert "error" not in opened, opened

    @staticmethod
    def _run(coro) -> dict:
        from helpers import run

        return json.loads(run(coro))

    def add(self, docs):
        return self._run(self.worker.add_documents(json.dumps(docs)))

    def query(self, text, options=None):
        return self._run(self.worker.query(text, json.dumps(options or {})))

    def status(self):
        return self._run(self.worker.status())

    def delete(self, doc_id):
        return self._run(self.worker.delete_document(doc_id))

    def documents(self, ids=None, page=None):
        out = self._run(self.worker.documents(json.dumps(ids), json.dumps(page)))
        if "rows" not in out:
            return out
        return [dict(zip(out["columns"], row)) for row in out["rows"]]


# -- the cases ---------------------------------------------------------------------------
def case_starts_empty(d: Driver) -> None:
    s = d.status()
    assert (s["documents"], s["chunks"]) == (0, 0)
    assert s["model"] == {"id": "sentence-transformers/all-MiniLM-L6-v2", "dim": 384}
    assert s["mismatch"] is None


def case_add_and_find_by_meaning(d: Driver) -> None:
    report = d.add(CORPUS)
    assert [o["status"] for o in report["documents"]] == ["added"] * 3
    assert report["status"]["documents"] == 3
    r = d.query("breast cancer gene")
    assert r["reason"] is None
    assert r["results"][0]["doc_name"] == "genetics.md"
    assert "BRCA1" in r["results"][0]["text"]
    assert r["results"][0]["heading_paths"][0] == ["Oncology", "Screening"]
    assert r["documents"][0]["name"] == "genetics.md" and len(r["documents"][0]["snippet"]) <= 360
    assert r["context"].startswith("[1] genetics.md — Oncology > Screening\n")


def case_exact_term_lexical(d: Driver) -> None:
    d.add(CORPUS)
    r = d.query("E4711")
    assert r["results"][0]["doc_name"] == "device.txt"
    assert r["evidence"][0]["lexical_rank"] == 1


def case_readd_unchanged(d: Driver) -> None:
    d.add([BREAD])
    assert d.add([BREAD])["documents"][0]["status"] == "unchanged"


def case_bad_documents(d: Driver) -> None:
    r = d.add([{"name": "empty.md", "text": "  \n "}, {"name": "x.exe", "text": "MZ"}, BREAD])
    assert [o["status"] for o in r["documents"]] == ["error", "error", "added"]
    assert r["documents"][0]["error"]["type"] == "empty_document"
    assert r["status"]["documents"] == 1


def case_empty_and_syntax_queries(d: Driver) -> None:
    d.add(CORPUS)
    assert d.query("   ")["reason"] == "empty_query"
    for q in ['"unbalanced', "NEAR(", "-foo", "*", "a:b ^c", "OR AND NOT", "((("]:
        assert d.query(q)["reason"] is None


def case_filters_and_delete(d: Driver) -> None:
    report = d.add(CORPUS)
    r = d.query("hereditary bread fan", {"filters": {"doc_types": ["md"]}})
    assert {s["doc_name"] for s in r["results"]} == {"genetics.md"}
    bread_id = next(o["doc_id"] for o in report["documents"] if o["name"] == "bread.txt")
    out = d.delete(bread_id)
    assert out["deleted"] and out["status"]["documents"] == 2
    assert all(s["doc_name"] != "bread.txt" for s in d.query("sourdough bread")["results"])


def case_bad_options_are_typed_errors(d: Driver) -> None:
    r = d.query("bread", {"k": 0})
    assert r["error"]["type"] == "bad_input" and "k must be" in r["error"]["message"]
    assert d.query("bread", {"nope": 1})["error"]["type"] == "bad_input"


def case_the_list_read_a_page_at_a_time(d: Driver) -> None:
    """The Sources pane reads a large library's list in pages, by name: together they are the
    whole list, in its order, each document once (names that sort by their bytes included)."""
    names = ["b.txt", "a/z.txt", "A.txt", "é.txt", "e.txt", "a/b.txt", "Z.txt"]
    d.add([{"name": n, "text": f"Notes number {i} on the {n} tide tables."} for i, n in enumerate(names)])
    whole = d.documents()
    assert [doc["name"] for doc in whole] == sorted(names, key=lambda n: n.encode())
    pages, after = [], None
    while True:
        page = d.documents(None, {"after": after, "limit": 3})
        assert isinstance(page, list) and len(page) <= 3
        pages += page
        if len(page) < 3:
            break
        after = page[-1]["name"]
    assert pages == whole
    for bad in ({"after": None, "limit": 0}, {"after": 5, "limit": 2}, {"limit": "all"}):
        out = d.documents(None, bad)
        assert out["error"]["type"] == "bad_input" and "page of the list" in out["error"]["message"], out


CASES = [case_starts_empty, case_add_and_find_by_meaning, case_exact_term_lexical,
         case_readd_unchanged, case_bad_documents, case_empty_and_syntax_queries,
         case_filters_and_delete, case_bad_options_are_typed_errors, case_the_list_read_a_page_at_a_time]


def comparable(result: dict) -> dict:
    """The parts of a query answer both sides must agree on (timings differ, of course)."""
    return {
        "reason": result["reason"],
        "results": [(s["doc_name"], s["chunk_ids"], round(s["score"], 5)) for s in result["results"]],
        "evidence": [(h["chunk_id"], h["vector_rank"], h["lexical_rank"],
                      None if h["vector_sim"] is None else round(h["vector_sim"], 4),
                      None if h["lexical_score"] is None else round(h["lexical_score"], 4),
                      h["dropped"]) for h in result["evidence"]],
        "context": result["context"],
    }
