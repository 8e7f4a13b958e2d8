"""Faults a person can run into, with the real app: the embedding worker dying mid-ingest, a reload
mid-ingest, a second tab, full storage, a damaged model in the offline cache, and being offline
before the model was ever saved. Each ends with a message the user can act on and a library that
is consistent (nothing half-added) and still answers."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from pages import exported_database, screenshot, wait_for_api, wait_ready, wait_until

WAIT_MS = 120_000


def long_document(topic: str, paragraphs: int) -> str:
    return "\n\n".join(
        f"## Part {i}\n\nThe {topic} log, entry {i}: the crew measured the {topic} at {i} points, "
        "wrote the readings down twice, and compared them with the season before."
        for i in range(paragraphs))


def docs_for_ingest(glacier_parts: int = 120) -> list[dict]:
    """Four documents; glacier.md long enough (120 parts) to fill more than one embedding batch."""
    return [
        {"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid."},
        {"name": "glacier.md", "text": long_document("glacier", glacier_parts)},
        {"name": "bread.md", "text": "# Bread\n\nSourdough needs a long, cold proof overnight."},
        {"name": "tides.md", "text": "# Tides\n\nSpring tides follow the full and the new moon."},
    ]


def consistent(page) -> dict:
    """status() and documents() agree: every stored document is whole, nothing half-added. And
    the database file itself, as stored in OPFS, passes PRAGMA integrity_check, with one FTS row
    per passage and one vector per passage not marked pending (words first, meaning after), as
    many pending as status() says."""
    status = page.evaluate("() => window.readingroom.status()")
    docs = page.evaluate("() => window.readingroom.documents()")
    assert status["documents"] == len(docs)
    assert status["chunks"] == sum(d["chunks"] for d in docs)
    assert all(d["chunks"] >= 1 for d in docs)
    data = exported_database(page)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "library.sqlite"
        path.write_bytes(data)
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            counts = [db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                      for t in ("documents", "chunks", "chunks_fts_docsize", "chunks_vec_rowids")]
            pending = db.execute("SELECT count(*) FROM chunks WHERE NOT embedded").fetchone()[0]
            assert not db.execute("SELECT 1 FROM chunks_vec_rowids v JOIN chunks c ON c.id = v.id "
                                  "WHERE NOT c.embedded").fetchall()
        finally:
            db.close()
    assert pending == (status["pending"] or {}).get("pending_chunks", 0)
    assert counts == [status["documents"]] + [status["chunks"]] * 2 + [status["chunks"] - pending], counts
    return {d["name"]: d["chunks"] for d in docs}


def test_embedder_killed_mid_ingest_leaves_that_batch_pending_restarts_and_recovers(page):
    # Mid-ingest, deterministically: the worker dies as the second batch arrives, the one that
    # carries the rest of glacier.md (the first held kettle.md and glacier.md's first passages).
    # Words first: every document was stored by its words before the first batch, so nothing is
    # lost; that batch's passages stay pending, and the page says what meaning search covers.
    assert page.evaluate("() => window.readingroom.debug.killEmbedder({atBackgroundBatch: 2})") is True
    report = page.evaluate("(docs) => window.readingroom.addDocuments(docs)", docs_for_ingest())
    outcomes = {d["name"]: d for d in report["documents"]}
    assert {o["status"] for o in outcomes.values()} == {"added"}
    glacier = outcomes["glacier.md"]
    assert 0 < glacier["pending"] < glacier["chunks"] and "glacier.md is searchable by its words" in glacier["notes"][-1]
    # The first batch (64 passages, in the order they were stored) has its vectors; the second's
    # are pending. The app restarted the embedder by itself.
    assert outcomes["kettle.md"]["pending"] == 0
    assert sum(o["pending"] for o in outcomes.values()) == sum(o["chunks"] for o in outcomes.values()) - 64
    stored = consistent(page)
    assert set(stored) == {"kettle.md", "glacier.md", "bread.md", "tides.md"}
    # The restart loads the model again (seconds): addDocuments does not wait for it, the page does.
    wait_until(page, "async () => (await window.readingroom.status()).embedderRestarts === 1", WAIT_MS / 1000)
    status = page.evaluate("() => window.readingroom.status()")
    assert status["embedderRestarts"] == 1 and status["embedder"]["model"] == "all-MiniLM-L6-v2"
    assert page.locator("#embedder-problem").is_hidden()
    banner = page.locator("#meaning-pending")
    banner.wait_for(state="visible", timeout=WAIT_MS)
    assert banner.inner_text().startswith("Meaning search covers ") and "% of glacier.md" in banner.inner_text()
    r = page.evaluate("() => window.readingroom.query('glacier entry 110 measured at points')")
    assert r["results"][0]["doc_name"] == "glacier.md" and "glacier.md" in r["stats"]["meaning"]["message"]
    screenshot(page, "faults-meaning-pending")

    # The same documents again: all unchanged, and the pass embeds what was pending, once.
    again = page.evaluate("(docs) => window.readingroom.addDocuments(docs)", docs_for_ingest())
    assert [(d["status"], d["pending"]) for d in again["documents"]] == [("unchanged", 0)] * 4
    stored = consistent(page)
    assert set(stored) == {"kettle.md", "glacier.md", "bread.md", "tides.md"}
    assert again["status"]["pending"] is None
    banner.wait_for(state="hidden", timeout=WAIT_MS)
    r = page.evaluate("() => window.readingroom.query('glacier measured at points')")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "glacier.md" and "meaning" not in r["stats"]

    # A second death: no restart by itself, a button instead; searching by words still works.
    page.evaluate("() => window.readingroom.debug.killEmbedder()")
    banner = page.locator("#embedder-problem")
    banner.wait_for(state="visible", timeout=WAIT_MS)
    assert "embedding model stopped" in banner.inner_text()
    words = page.evaluate("() => window.readingroom.query('sourdough proof')")
    assert words["reason"] == "embed_failed" and words["results"][0]["doc_name"] == "bread.md"
    screenshot(page, "faults-embedder-restart-button")
    banner.get_by_role("button", name="Restart the model").click()
    banner.wait_for(state="hidden", timeout=WAIT_MS)
    wait_until(page, "async () => (await window.readingroom.status()).embedderRestarts === 2")
    r = page.evaluate("() => window.readingroom.query('sourdough proof')")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "bread.md"


def many_documents(n: int) -> list[dict]:
    topics = ["harbour", "orchard", "quarry", "meadow", "foundry", "estuary", "vineyard", "lighthouse"]
    return [{"name": f"survey-{i:02d}.md", "text": long_document(topics[i % len(topics)], 25)} for i in range(n)]


def test_reload_mid_ingest_keeps_every_document_and_embeds_the_rest_after_it(page):
    docs = many_documents(12)
    page.evaluate("(docs) => { window.readingroom.addDocuments(docs); }", docs)
    # Words first: all twelve are stored by their words at once; reload once some vectors are in
    # and some are not (status() is answered mid-ingest).
    wait_until(page, """async () => { const s = await window.readingroom.status();
        return s.documents === 12 && s.pending && s.pending.pending_chunks < s.chunks; }""", WAIT_MS / 1000)
    page.reload()
    wait_for_api(page, WAIT_MS)
    early = page.evaluate("async () => { await window.readingroom.libraryReady; return window.readingroom.status(); }")
    assert early["unfinished"] == [] and early["documents"] == 12 and early["pending"]["pending_chunks"] > 0
    names = [d["name"] for d in docs]
    words = page.evaluate("() => window.readingroom.query('lighthouse log entry 20', {mode: 'lexical'})")
    assert words["results"][0]["doc_name"] in names
    wait_ready(page)
    # Resumed after the reload: every passage gets its vector, once.
    wait_until(page, "async () => (await window.readingroom.status()).pending === null", WAIT_MS / 1000)
    assert sorted(consistent(page)) == names
    page.locator("#meaning-pending").wait_for(state="hidden", timeout=WAIT_MS)
    assert page.locator("#unfinished").is_hidden()
    page.reload()
    status = wait_ready(page)
    assert status["unfinished"] == [] and status["pending"] is None


def test_a_second_tab_takes_the_library_over_and_the_first_can_take_it_back(page, context, site):
    # A small library: what is handed over is the lock and the whole store, not volume.
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)", docs_for_ingest(glacier_parts=8))
    before = consistent(page)
    second = context.new_page()
    second.goto(f"{site}/")
    lock = second.locator("#tab-lock")
    lock.wait_for(state="visible", timeout=WAIT_MS)
    assert "Another tab has Reading Room open" in lock.inner_text()
    assert second.locator("#app-state").inner_text() == "Waiting for another tab"
    screenshot(second, "faults-second-tab-waiting")

    lock.get_by_role("button", name="Use here").click()
    wait_ready(second)
    assert consistent(second) == before
    r = second.evaluate("() => window.readingroom.query('kettle citric acid')")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "kettle.md"
    assert lock.is_hidden()

    # The first tab let go and says so, with a way back.
    first_lock = page.locator("#tab-lock")
    first_lock.wait_for(state="visible", timeout=WAIT_MS)
    assert "Reading Room is open in another tab" in first_lock.inner_text()
    assert page.locator("#app-state").inner_text() == "Open in another tab"
    assert page.locator("#query").is_disabled()
    err = page.evaluate("() => window.readingroom.query('kettle').then(() => null, (e) => e.message)")
    assert err == "Reading Room is open in another tab."
    screenshot(page, "faults-first-tab-let-go")

    # Take it back: the first tab reloads, waits on the lock, and asks for it.
    first_lock.get_by_role("button", name="Use it here").click()
    page.wait_for_function("() => /Another tab has Reading Room open/.test("
                           "document.getElementById('tab-lock').textContent)", timeout=WAIT_MS)
    page.locator("#tab-lock").get_by_role("button", name="Use here").click()
    wait_ready(page)
    assert consistent(page) == before
    second.locator("#tab-lock").wait_for(state="visible", timeout=WAIT_MS)
    r = page.evaluate("() => window.readingroom.query('sourdough proof')")
    assert r["results"][0]["doc_name"] == "bread.md"


MODEL_FILE = "models/all-MiniLM-L6-v2/onnx/model_quantized.onnx"

# Runs in the page: replaces (damage=true) or deletes (false) the saved model files in every
# offline cache of this app; returns how many entries it touched.
TOUCH_SAVED_MODEL = """async ([damage, file]) => {
    let touched = 0;
    for (const name of await caches.keys()) {
        if (!name.startsWith('readingroom-')) continue;
        const cache = await caches.open(name);
        for (const request of await cache.keys()) {
            if (!new URL(request.url).pathname.includes('/models/')) continue;
            if (damage && !request.url.endsWith(file)) continue;
            if (damage) await cache.put(request, new Response(new Uint8Array(4096).fill(7)));
            else await cache.delete(request);
            touched += 1;
        }
    }
    return touched;
}"""

SAVED_MODEL_SIZE = """async (file) => {
    for (const name of await caches.keys()) {
        const hit = await (await caches.open(name)).match(new URL(file, location.href).href);
        if (hit) return (await hit.arrayBuffer()).byteLength;
    }
    return null;
}"""


def offline_ready(page) -> None:
    wait_until(page, "async () => (await window.readingroom.status()).offlineReady === true", WAIT_MS / 1000)


def test_a_damaged_saved_model_is_reported_and_downloaded_again(page):
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)", docs_for_ingest()[2:])
    offline_ready(page)
    assert page.evaluate(TOUCH_SAVED_MODEL, [True, MODEL_FILE]) == 1
    page.reload()
    status = wait_ready(page)  # Python and the library are up; the model is not
    assert status["embedder"] is None and status["embedderError"]["type"] == "embed_failed"
    banner = page.locator("#embedder-problem")
    banner.wait_for(state="visible", timeout=WAIT_MS)
    assert "could not be loaded" in banner.inner_text() and "damaged" in banner.inner_text()
    # Searching by words still works meanwhile; an added document is found by its words and says why
    # its meaning search waits.
    r = page.evaluate("() => window.readingroom.query('sourdough proof')")
    assert r["reason"] == "embed_failed" and r["results"][0]["doc_name"] == "bread.md"
    out = page.evaluate("() => window.readingroom.addDocuments([{name: 'x.md', text: '# X\\n\\nA note about owls.'}])")
    # Words first: the new document is stored by its words, its passage pending, and says why.
    added = out["documents"][0]
    assert added["status"] == "added" and added["pending"] == 1, added
    assert "could not be loaded" in " ".join(added["notes"]) and "by its words" in " ".join(added["notes"])
    r = page.evaluate("() => window.readingroom.query('owls')")
    assert r["results"] and r["results"][0]["doc_name"] == "x.md"
    err = page.evaluate("() => window.readingroom.embed(['owls']).then(() => null, (e) => e.message)")
    assert err and "could not be loaded" in err
    screenshot(page, "faults-damaged-model")

    banner.get_by_role("button", name="Re-download model").click()
    banner.wait_for(state="hidden", timeout=WAIT_MS)
    status = page.evaluate("() => window.readingroom.status()")
    assert status["embedder"]["model"] == "all-MiniLM-L6-v2" and "embedderError" not in status
    assert page.evaluate(SAVED_MODEL_SIZE, MODEL_FILE) == 22928619  # the real file is saved again
    # The same file again: already stored by its words, and this add embeds its pending passage.
    out = page.evaluate("() => window.readingroom.addDocuments([{name: 'x.md', text: '# X\\n\\nA note about owls.'}])")
    assert out["documents"][0]["status"] == "unchanged" and not out["documents"][0].get("pending"), out
    r = page.evaluate("() => window.readingroom.query('owls')")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "x.md"
    page.reload()  # and it stays mended
    assert wait_ready(page)["embedder"]["model"] == "all-MiniLM-L6-v2"


def test_offline_before_the_model_was_saved_searches_by_words_and_says_why(page, context):
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)", docs_for_ingest()[2:])
    offline_ready(page)
    assert page.evaluate(TOUCH_SAVED_MODEL, [False, MODEL_FILE]) >= 2
    context.set_offline(True)
    page.reload()
    status = wait_ready(page)
    assert status["embedder"] is None and status["embedderError"]["type"] == "offline"
    banner = page.locator("#embedder-problem")
    banner.wait_for(state="visible", timeout=WAIT_MS)
    assert "browser is offline" in banner.inner_text()
    r = page.evaluate("() => window.readingroom.query('sourdough proof')")
    assert r["reason"] == "offline" and r["results"][0]["doc_name"] == "bread.md"
    page.check("#mode-search")
    page.fill("#query", "sourdough proof")
    page.click("#query-button")
    page.wait_for_function("() => /not available offline/.test(document.getElementById('results-summary').textContent)",
                           timeout=WAIT_MS)
    screenshot(page, "faults-offline-no-model")
    context.set_offline(False)
    banner.get_by_role("button", name="Re-download model").click()
    banner.wait_for(state="hidden", timeout=WAIT_MS)
    r = page.evaluate("() => window.readingroom.query('sourdough proof')")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "bread.md"
