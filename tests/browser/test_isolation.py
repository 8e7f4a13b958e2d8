"""Cross-origin isolation: the isolated page embeds on every core, the non-isolated one on one
thread and says why, and a static host that sends no headers is isolated by the service worker
from the second visit on. Both paths give the same vectors and the same answers."""

from __future__ import annotations

import math

import pytest

from pages import open_app, wait_ready

DOCS = [
    {"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid."},
    {"name": "tides.md", "text": "# Tides\n\nSpring tides follow the full and the new moon."},
]
TEXTS = ["how often is the kettle cleaned", "moon and the sea", "x" * 3000]


def isolation_status(pg) -> dict:
    status = pg.evaluate("() => window.readingroom.status()")
    return {"isolated": status["crossOriginIsolated"], "threads": status["embedThreads"],
            "embedder": status["embedder"],
            "cores": pg.evaluate("() => navigator.hardwareConcurrency"),
            "sab": pg.evaluate("() => typeof SharedArrayBuffer === 'function'")}


def cosine(a, b) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def search_finds_kettle(pg) -> None:
    pg.evaluate("(docs) => window.readingroom.addDocuments(docs)", DOCS)
    result = pg.evaluate("() => window.readingroom.query('descaling the kettle', {mode: 'vector'})")
    assert result["reason"] is None
    assert result["results"][0]["doc_name"] == "kettle.md"


def test_isolated_page_embeds_on_every_core(page):
    got = isolation_status(page)
    assert got["isolated"] is True and got["sab"] is True
    workers = got["embedder"]["workers"]
    assert workers == min(2, got["cores"])
    assert got["threads"] == workers * got["embedder"]["threads"] == workers * (got["cores"] // workers)
    assert got["embedder"]["backend"] == "wasm" and got["embedder"]["threadNote"] == ""
    search_finds_kettle(page)


def test_without_isolation_one_thread_says_why_and_vectors_agree(page, site):
    isolated = page.evaluate("(t) => window.readingroom.embed(t)", TEXTS)
    open_app(page, site, "?isolation=off")
    got = isolation_status(page)
    assert got["isolated"] is False and got["sab"] is False
    # No wasm threads without isolation: one per worker, and the note says so when that leaves
    # cores idle (two single-threaded workers already use both cores of a 2-core machine).
    workers = got["embedder"]["workers"]
    assert got["embedder"]["threads"] == 1 and got["threads"] == workers == min(2, got["cores"])
    assert ("not cross-origin isolated" in got["embedder"]["threadNote"]) == (got["cores"] > workers)
    plain = page.evaluate("(t) => window.readingroom.embed(t)", TEXTS)
    # Threads change the order of float sums, not the vectors.
    assert all(cosine(a, b) > 0.9999 for a, b in zip(isolated, plain))
    search_finds_kettle(page)


@pytest.fixture
def plain_host(site):
    """The same dist/ from a server that sends no COOP/COEP, as a plain static host."""
    import build

    server, _ = build.serve(build.EMPTY_DIST, 0, isolation=False)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    yield url
    server.shutdown()
    server.server_close()


def test_a_plain_static_host_is_isolated_by_the_service_worker_after_the_first_visit(browser, plain_host):
    ctx = browser.new_context()
    try:
        pg = ctx.new_page()
        open_app(pg, plain_host)
        first = isolation_status(pg)
        assert first["isolated"] is False and first["embedder"]["threads"] == 1
        pg.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=120_000)
        pg.reload()
        wait_ready(pg)
        second = isolation_status(pg)
        assert second["isolated"] is True and second["sab"] is True
        assert second["threads"] == second["embedder"]["workers"] * (second["cores"] // second["embedder"]["workers"])
        search_finds_kettle(pg)
    finally:
        ctx.close()
