"""A bounded load test of ``readingroom serve`` on a real Postgres: uvicorn on 127.0.0.1, 16
clients searching and asking and one client adding documents, for 60 s (at most 2,000
requests per client), then every answer must have been a 200 and the counts must agree:
documents added = documents listed = documents in status, chunks in status = chunks stored."""

from __future__ import annotations

import os
import threading
import time

import httpx

from helpers import run, serving
from readingroom import Library, NewDocument
from readingroom.serve.app import Config, make_app
from readingroom.serve.tokens import TokenFile

SECONDS = float(os.environ.get("READINGROOM_LOAD_SECONDS", "60"))
CLIENTS, MAX_PER_CLIENT, MAX_ADDS = 16, 2000, 400
TOPICS = ["kettle", "teapot", "sourdough", "controller", "cooling fan", "glaze", "citric acid", "proofing"]


def _doc(i: int) -> dict:
    t = TOPICS[i % len(TOPICS)]
    return {"name": f"load-{i}.md", "text": f"# Note {i} on the {t}\n\nThe {t} in note {i} needs care: "
                                             f"check it weekly, clean it monthly, and write down what changed."}


def test_sixteen_clients_asking_while_one_adds(postgres, embedder, tmp_path):
    lib = Library.open(postgres.new_database(), embedder=embedder)
    run(lib.add([NewDocument(d["name"], text=d["text"]) for d in map(_doc, range(40))]))
    tokens = TokenFile(tmp_path / "tokens.json")
    reader, writer = tokens.add("r", writes=False), tokens.add("w", writes=True)
    deadline = time.monotonic() + SECONDS
    errors: list[str] = []
    done = {"search": 0, "ask": 0}
    added: list[int] = []
    lock = threading.Lock()

    def asker(n: int) -> None:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {reader}"}, timeout=60) as c:
            for i in range(MAX_PER_CLIENT):
                if time.monotonic() > deadline:
                    return
                topic = TOPICS[(n + i) % len(TOPICS)]
                kind = "ask" if i % 4 == 3 else "search"
                body = {"question": f"how often is the {topic} cleaned?"} if kind == "ask" else {"query": topic}
                try:
                    r = c.post(f"/v1/{kind}", json=body)
                    ok = r.status_code == 200 and r.json().get("reason") in (None, "not_covered")
                    ok = ok and all(s["doc_name"].startswith("load-") for s in r.json()["results"])
                except httpx.HTTPError as e:
                    ok, r = False, e
                with lock:
                    if ok:
                        done[kind] += 1
                    else:
                        errors.append(f"{kind}: {getattr(r, 'status_code', r)} {getattr(r, 'text', '')[:200]}")

    def adder() -> None:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {writer}"}, timeout=120) as c:
            for i in range(40, 40 + MAX_ADDS):
                if time.monotonic() > deadline:
                    return
                r = c.post("/v1/documents", json={"documents": [_doc(i)]})
                if r.status_code != 200 or r.json()["documents"][0]["status"] != "added":
                    with lock:
                        errors.append(f"add: {r.status_code} {r.text[:200]}")
                    return
                added.append(i)

    workers = [threading.Thread(target=asker, args=(n,)) for n in range(CLIENTS)] + [threading.Thread(target=adder)]
    with serving(make_app(lib, tokens, Config(rate_per_minute=10**6, burst=10**5))) as base:
        deadline = time.monotonic() + SECONDS
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=SECONDS + 300)
        assert not any(w.is_alive() for w in workers)
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {reader}"}, timeout=60) as c:
            status = c.get("/v1/status").json()
            listed = c.get("/v1/documents").json()["documents"]
    stored_chunks = lib.index.store.query("SELECT count(*) FROM chunks")[0][0]
    lib.close()
    print(f"\nload: {done['search']} searches, {done['ask']} asks, {len(added)} documents added in "
          f"{SECONDS:.0f} s; load average {os.getloadavg()}")
    assert errors == []
    assert done["search"] > 0 and done["ask"] > 0 and added
    assert status["documents"] == len(listed) == 40 + len(added)
    assert {d["name"] for d in listed} == {f"load-{i}.md" for i in [*range(40), *added]}
    assert status["chunks"] == stored_chunks == sum(d["chunks"] for d in listed)
