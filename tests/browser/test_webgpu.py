"""WebGPU for ingestion, on the one adapter headless Chromium has here: SwiftShader, a software
WebGPU adapter (--enable-unsafe-webgpu). The app takes a software adapter only when the page asks
(`?webgpu=software`); by default it keeps to wasm and says why. On WebGPU it first checks that the
vectors agree with wasm, then embeds ingestion there; a GPU whose vectors disagree is refused, and
one that fails mid-batch hands the rest to wasm without losing a document."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from pages import exported_database, open_app, wait_until

CHROMIUM = "/usr/bin/chromium"
GPU_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-unsafe-webgpu"]
SOFTWARE = "?webgpu=software"
RUNTIME = "/vendor/ort-webgpu/"  # the lazily fetched WebGPU build of ONNX Runtime

# Small documents of one passage each: SwiftShader runs WebGPU on the CPU, slowly.
DOCS = [
    {"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid."},
    {"name": "tides.md", "text": "# Tides\n\nSpring tides follow the full and the new moon."},
    {"name": "bread.md", "text": "# Bread\n\nSourdough needs a long, cold proof overnight."},
]
# The decision is made: status().embedder (refreshed by the page's heartbeat) shows its outcome.
DECIDED = "['on', 'refused', 'failed', 'unavailable'].includes(e.webgpu.state)"
QUERIES = ["how often is the kettle cleaned", "moon and the sea", "baking with a starter"]


def survey(topic: str) -> dict:
    """A one-passage document of about 60 tokens: four of them fill a batch of 256 tokens."""
    text = (f"# {topic.title()}\n\nThe {topic} survey: the crew measured the {topic} at dawn, wrote the "
            f"readings down twice, compared them with the season before, and filed the {topic} report "
            "with the harbour office before noon, as the rules ask.")
    return {"name": f"{topic}.md", "text": text}


SURVEYS = [survey(t) for t in ("orchard", "quarry", "meadow", "foundry", "estuary", "vineyard",
                                "lighthouse", "granary")]


@pytest.fixture(scope="module")
def browser(playwright):
    """This module's Chromium offers WebGPU (a software adapter); the other tests' offers none.
    Launched from the run's one Playwright (conftest), beside the other tests' Chromium."""
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=GPU_ARGS, headless=True)
    yield b
    b.close()


def open_page(context, site: str, query: str):
    pg = context.new_page()
    open_app(pg, site, query)
    return pg


def fresh_context(browser, guard):
    """A second context (its own storage, so its own library), behind the same origin guard."""
    ctx = browser.new_context()
    ctx.route("**/*", guard.route)
    ctx.on("request", guard.on_request)
    return ctx


def embedder(pg, until: str = "true") -> dict:
    """status().embedder once `until` (JS over `e`) holds: the page refreshes it every 2 s."""
    wait_until(pg, f"async () => {{ const e = (await window.readingroom.status()).embedder; return Boolean({until}); }}")
    return pg.evaluate("async () => (await window.readingroom.status()).embedder")


def add(pg, docs: list[dict]) -> None:
    report = pg.evaluate("(d) => window.readingroom.addDocuments(d)", docs)
    assert [d["status"] for d in report["documents"]] == ["added"] * len(docs), report["documents"]


def stored_vectors(pg) -> dict:
    """{(document, passage number): vector} from the library's database file as stored."""
    import apsw
    import sqlite_vec

    data = exported_database(pg)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "library.sqlite"
        path.write_bytes(data)
        db = apsw.Connection(str(path))
        db.enable_load_extension(True)
        db.load_extension(sqlite_vec.loadable_path())
        try:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            rows = db.execute("SELECT d.name, c.idx, v.embedding FROM chunks c JOIN documents d ON d.id = c.doc_id "
                              "JOIN chunks_vec v ON v.rowid = c.id").fetchall()
            counts = db.execute("SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_vec)").fetchone()
        finally:
            db.close()
    assert counts[0] == counts[1] == len(rows)
    return {(name, idx): np.frombuffer(blob, dtype=np.float32) for name, idx, blob in rows}


def top_results(pg, query: str) -> list[tuple[str, float]]:
    r = pg.evaluate("(q) => window.readingroom.query(q, {mode: 'vector'})", query)
    assert r["reason"] is None
    return [(h["doc_name"], h["score"]) for h in r["results"][:3]]


def test_ingestion_embeds_on_webgpu_after_agreeing_with_wasm_and_ranks_alike(browser, context, site, guard):
    # By default a software adapter is not used (slower than wasm), the page says why, and the
    # WebGPU runtime is never downloaded.
    plain_ctx = fresh_context(browser, guard)
    try:
        plain = open_page(plain_ctx, site, "")
        add(plain, DOCS)
        info = plain.evaluate("() => window.readingroom.debug.chooseEmbedBackend()")
        assert info["state"] == "unavailable" and "swiftshader" in info["adapter"] and info["software"] is True
        emb = embedder(plain, DECIDED)
        assert emb["backend"] == "wasm" and "software one" in emb["backendNote"]
        assert not any(RUNTIME in u for u in guard.requests)
        wasm_vectors = stored_vectors(plain)
        wasm_results = {q: top_results(plain, q) for q in QUERIES}
    finally:
        plain_ctx.close()

    gpu = open_page(context, site, SOFTWARE)
    info = gpu.evaluate("() => window.readingroom.debug.chooseEmbedBackend()")
    assert info["state"] == "on", info
    assert "swiftshader" in info["adapter"] and info["software"] is True
    assert len(info["cosines"]) == 6 and info["agreement"] == min(info["cosines"]) >= 0.999
    assert any(RUNTIME in u for u in guard.requests)
    add(gpu, DOCS)
    emb = embedder(gpu, "e.webgpu.batches > 0")
    assert emb["backend"] == "webgpu" and emb["queryBackend"] == "wasm" and emb["backendNote"] == ""
    assert emb["webgpu"]["batches"] >= 1  # the documents' vectors came from WebGPU

    gpu_vectors = stored_vectors(gpu)
    assert gpu_vectors.keys() == wasm_vectors.keys()
    for key, v in gpu_vectors.items():
        assert float(np.dot(v, wasm_vectors[key])) >= 0.999, key
    for q in QUERIES:
        got = top_results(gpu, q)
        assert [n for n, _ in got] == [n for n, _ in wasm_results[q]], q
        assert all(abs(a - b) < 1e-3 for (_, a), (_, b) in zip(got, wasm_results[q])), q


def test_a_webgpu_device_lost_mid_batch_hands_the_rest_to_wasm_and_loses_no_document(context, site):
    gpu = open_page(context, site, SOFTWARE)
    # The GPU device is destroyed as WebGPU's second ingestion batch starts (a real device loss).
    info = gpu.evaluate("() => window.readingroom.debug.chooseEmbedBackend({fault: {failAtBatch: 2}})")
    assert info["state"] == "on", info
    add(gpu, SURVEYS)  # eight passages of ~60 tokens: two batches
    emb = embedder(gpu, "e.webgpu.state === 'failed'")
    assert emb["backend"] == "wasm"
    assert emb["webgpu"]["state"] == "failed" and emb["webgpu"]["batches"] == 1
    assert "failed" in emb["backendNote"] and "no document was lost" in emb["backendNote"]
    status = gpu.evaluate("() => window.readingroom.status()")
    assert status["documents"] == len(SURVEYS) and status["chunks"] == len(SURVEYS)
    assert len(stored_vectors(gpu)) == len(SURVEYS)
    for doc in SURVEYS:
        topic = doc["name"].removesuffix(".md")
        assert top_results(gpu, f"the {topic} survey")[0][0] == doc["name"]
    # Later ingestion runs on wasm.
    add(gpu, DOCS)
    assert embedder(gpu)["backend"] == "wasm"
    assert top_results(gpu, QUERIES[0])[0][0] == "kettle.md"


def test_webgpu_whose_vectors_disagree_is_refused_and_wasm_embeds(context, site):
    gpu = open_page(context, site, SOFTWARE)
    info = gpu.evaluate("() => window.readingroom.debug.chooseEmbedBackend({fault: {skew: true}})")
    assert info["state"] == "refused" and info["agreement"] < 0.999
    emb = embedder(gpu, DECIDED)
    assert emb["backend"] == "wasm" and emb["webgpu"]["batches"] == 0
    assert "refused" in emb["backendNote"] and f"{info['agreement']:.4f}" in emb["backendNote"]
    add(gpu, DOCS)
    assert embedder(gpu)["backend"] == "wasm"
    for q, name in zip(QUERIES, ["kettle.md", "tides.md", "bread.md"]):
        assert top_results(gpu, q)[0][0] == name
