"""``readingroom serve`` on a real Postgres: tokens (401, 403), limits (413, 429), CORS, the
JSON of each route, 503 while Postgres is stopped and recovery when it is back, and a bounded
load test (16 clients asking and one adding documents through uvicorn on 127.0.0.1)."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest
from starlette.testclient import TestClient

from helpers import run
from readingroom import Library, NewDocument
from readingroom.serve.app import Config, make_app
from readingroom.serve.tokens import TokenFile

DOCS = [{"name": "tea.md", "text": "# Tea\n\nGreen tea is steamed; black tea is oxidised before drying."},
        {"name": "fan.txt", "text": "The controller reports error code E4711 when the cooling fan stalls."}]


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    t = TokenFile(tmp_path_factory.mktemp("serve") / "tokens.json")
    t.reader, t.writer = t.add("reader", writes=False), t.add("writer", writes=True)
    return t


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def served(postgres, embedder, tokens):
    lib = Library.open(postgres.new_database(), embedder=embedder)
    run(lib.add([NewDocument(d["name"], text=d["text"]) for d in DOCS]))
    with TestClient(make_app(lib, tokens, Config(max_body=64 * 1024, rate_per_minute=600, burst=40))) as c:
        yield c, lib
    lib.close()


def test_the_token_file_keeps_only_hashes(tokens):
    stored = tokens.path.read_text()
    assert tokens.reader not in stored and tokens.writer not in stored and "sha256" in stored
    assert oct(tokens.path.stat().st_mode & 0o777) == "0o600"
    assert TokenFile(tokens.path).find(tokens.writer).writes


def test_routes_answer_with_the_libraries_json(served, tokens):
    c, lib = served
    h = auth(tokens.reader)
    r = c.post("/v1/search", json={"query": "error E4711", "options": {"k": 3}}, headers=h)
    assert r.status_code == 200
    body = r.json()
    assert body["results"][0]["doc_name"] == "fan.txt" and body["reason"] is None
    assert set(body) == set(run(lib.retrieve("error E4711", {"k": 3})).to_dict())
    a = c.post("/v1/ask", json={"question": "What is green tea?", "history": []}, headers=h).json()
    assert {"quick", "covered", "messages", "results"} <= set(a)
    assert [d["name"] for d in c.get("/v1/documents", headers=h).json()["documents"]] == ["fan.txt", "tea.md"]
    # A page at a time, by name: each page says which name the next one starts after.
    first = c.get("/v1/documents?limit=1", headers=h).json()
    assert [d["name"] for d in first["documents"]] == ["fan.txt"] and first["next"] == "fan.txt"
    last = c.get("/v1/documents", params={"limit": 1, "after": first["next"]}, headers=h).json()
    assert [d["name"] for d in last["documents"]] == ["tea.md"] and last["next"] == "tea.md"
    assert c.get("/v1/documents", params={"limit": 1, "after": "tea.md"}, headers=h).json() == {"documents": [], "next": None}
    for bad in ({"limit": 0}, {"limit": "all"}, {"after": "fan.txt"}, {"limit": 10_001}):
        r = c.get("/v1/documents", params=bad, headers=h)
        assert r.status_code == 400 and r.json()["error"]["type"] == "bad_input", bad
    assert c.get("/v1/status", headers=h).json()["storage"] == "postgres"


def test_tokens_are_needed_and_read_only_ones_cannot_write(served, tokens):
    c, _ = served
    assert c.get("/v1/status").status_code == 401
    r = c.get("/v1/status", headers=auth("rr_wrong"))
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert c.get("/v1/status", headers={"Authorization": tokens.reader}).status_code == 401  # no scheme
    r = c.post("/v1/documents", json={"documents": [DOCS[0]]}, headers=auth(tokens.reader))
    assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden"
    assert c.delete("/v1/documents/1", headers=auth(tokens.reader)).status_code == 403


def test_add_and_delete_with_a_read_write_token(served, tokens):
    c, _ = served
    h = auth(tokens.writer)
    r = c.post("/v1/documents", json={"documents": [{"name": "bread.txt", "text": "Sourdough needs a cold proof."},
                                                    {"name": "empty.md", "text": "  "}]}, headers=h).json()
    assert [o["status"] for o in r["documents"]] == ["added", "error"] and r["status"]["documents"] == 3
    doc_id = r["documents"][0]["doc_id"]
    assert c.delete(f"/v1/documents/{doc_id}", headers=h).json()["deleted"] is True
    assert c.delete(f"/v1/documents/{doc_id}", headers=h).json()["deleted"] is False
    assert c.delete(f"/v1/documents/{2**64}", headers=h).json()["deleted"] is False


def test_bad_and_oversized_requests(served, tokens):
    c, _ = served
    h = auth(tokens.reader)
    r = c.post("/v1/search", content=b"x" * (64 * 1024 + 1), headers=h)
    assert r.status_code == 413 and r.json()["error"]["type"] == "too_large"
    assert c.post("/v1/search", content=b"{nope", headers=h).status_code == 400
    assert c.post("/v1/search", json={"query": 3}, headers=h).json()["error"]["type"] == "bad_input"
    r = c.post("/v1/search", json={"query": "tea", "options": {"k": 0}}, headers=h)
    assert r.status_code == 400 and "k must be" in r.json()["error"]["message"]
    r = c.post("/v1/search", json={"query": "tea'); DROP TABLE chunks; --",
                                   "options": {"filters": {"doc_names": ["x' OR 1=1 --"]}}}, headers=h)
    assert r.status_code == 200 and r.json()["results"] == []


def test_cors_is_closed_unless_configured(served, tokens):
    c, lib = served
    pre = {"Origin": "http://127.0.0.1:9", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in c.options("/v1/search", headers=pre).headers
    app = make_app(lib, tokens, Config(cors_origins=("http://127.0.0.1:9",)))
    with TestClient(app) as open_c:
        assert open_c.options("/v1/search", headers=pre).headers["access-control-allow-origin"] == "http://127.0.0.1:9"


def test_a_token_over_its_rate_is_told_when_to_come_back(postgres, embedder, tokens):
    lib = Library.open(postgres.new_database(), embedder=embedder)
    with TestClient(make_app(lib, tokens, Config(rate_per_minute=60, burst=3))) as c:
        codes = [c.get("/v1/status", headers=auth(tokens.reader)).status_code for _ in range(5)]
        r = c.get("/v1/status", headers=auth(tokens.reader))
        assert codes[:3] == [200] * 3 and 429 in codes[3:] and int(r.headers["retry-after"]) >= 1
        assert c.get("/v1/status", headers=auth(tokens.writer)).status_code == 200  # per token
    lib.close()


def test_503_while_postgres_is_stopped_and_recovery_after(embedder, tokens):
    from pg_server import LocalPostgres

    server = LocalPostgres()  # its own, to stop
    try:
        lib = Library.open(server.new_database(), embedder=embedder)
        run(lib.add([NewDocument(d["name"], text=d["text"]) for d in DOCS]))
        with TestClient(make_app(lib, tokens, Config())) as c:
            h = auth(tokens.reader)
            assert c.post("/v1/search", json={"query": "tea"}, headers=h).status_code == 200
            server.stop()
            r = c.post("/v1/search", json={"query": "tea"}, headers=h)
            assert r.status_code == 503 and r.json()["error"]["type"] == "unavailable"
            assert c.get("/v1/status", headers=h).status_code == 503
            server.start()
            r = c.post("/v1/search", json={"query": "green tea"}, headers=h)
            assert r.status_code == 200 and r.json()["results"][0]["doc_name"] == "tea.md"
        lib.close()
    finally:
        server.close()


def test_a_starting_server_reads_the_commonest_words_first(postgres, embedder, tokens):
    """While serve starts, a thread of its own reads the postings of the library's commonest
    words (from the statistics ANALYZE keeps), so the first questions do not wait for them;
    what is ranked does not change, and it stops when told."""
    lib = Library.open(postgres.new_database(), embedder=embedder)
    run(lib.add([NewDocument(f"tea{i}.md", text=f"# Tea {i}\n\nGreen tea number {i} is steamed; tea {i % 3} "
                             "is oxidised.") for i in range(12)] + [NewDocument(d["name"], text=d["text"]) for d in DOCS]))
    before = [(h.doc_name, round(h.score, 9)) for h in run(lib.retrieve("green tea fan", {"mode": "lexical"})).results]
    lib.index.store.execute_script("ANALYZE")
    assert lib.index.preload_common_words(stop=lambda: True) == 0
    with TestClient(make_app(lib, tokens, Config())) as c:
        for t in threading.enumerate():
            if t.name == "preload-words":
                t.join(60)
        kept = set(lib.index.lexical_index()._postings)
        assert {"tea", "green", "steam", "number"} <= kept  # in 12 or 13 of the 14 chunks
        r = c.post("/v1/search", json={"query": "green tea fan", "options": {"mode": "lexical"}},
                   headers=auth(tokens.reader))
        assert [(x["doc_name"], round(x["score"], 9)) for x in r.json()["results"]] == before
    lib.close()
