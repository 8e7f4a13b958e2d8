"""Start-up: the library opens, lists its documents and searches by words before the model is up.

The model's file is held back by the test (its request waits until the test lets it go), so "before
the model is ready" is a state the test controls, not a race against the machine's speed.
"""

from __future__ import annotations

from contract import CORPUS
from driver import BrowserDriver
from pages import READY_TIMEOUT_MS, open_app, screenshot, wait_for_api, wait_ready, wait_until

MODEL_FILES = "**/models/all-MiniLM-L6-v2/onnx/*.onnx"
LIBRARY_READY = "async () => { await window.readingroom.libraryReady; return window.readingroom.status(); }"


class HeldModel:
    """Requests for the model's weights wait here until release(); later ones go straight on."""

    def __init__(self):
        self.waiting = []
        self.released = False

    def route(self, route):
        if self.released:
            route.continue_()
        else:
            self.waiting.append(route)

    def release(self):
        self.released = True
        for route in self.waiting:
            route.continue_()
        self.waiting.clear()


def test_documents_and_word_search_before_the_model_and_meaning_search_waits_for_it(browser, site, guard):
    # No service worker: the model's file then always comes over the network, where the test holds it.
    ctx = browser.new_context(service_workers="block")
    ctx.route("**/*", guard.route)
    ctx.on("request", guard.on_request)
    try:
        page = ctx.new_page()
        console = []
        page.on("console", lambda m: console.append(m.text))
        open_app(page, site)
        BrowserDriver(page).add(CORPUS)

        held = HeldModel()
        ctx.route(MODEL_FILES, held.route)
        page.reload()
        wait_for_api(page, READY_TIMEOUT_MS)
        status = page.evaluate(LIBRARY_READY)
        assert status["embedder"] is None  # the model cannot be up: its weights are held
        assert status["state"] == "words" and status["searchMode"] == "words"
        assert "Meaning search in a moment" in status["searchNote"]
        assert (status["documents"], status["storage"]) == (3, "opfs")
        assert "meaning search in a moment" in page.locator("#app-state").inner_text()
        # The Sources pane lists the documents already, and the search box takes a query.
        page.locator('#sources-pane li.doc-row[data-name="device.txt"]').wait_for(state="attached",
                                                                                  timeout=READY_TIMEOUT_MS)
        assert page.locator("#query").is_enabled()
        names = sorted(d["name"] for d in page.evaluate("() => window.readingroom.documents()"))
        assert names == sorted(d["name"] for d in CORPUS)
        r = page.evaluate("() => window.readingroom.query('E4711', {mode: 'lexical'})")
        assert r["reason"] is None and r["results"][0]["doc_name"] == "device.txt"
        screenshot(page, "start-words-before-model")

        # A search by meaning asked now waits for the model, then answers by meaning.
        page.evaluate("() => { window.__meaning = window.readingroom.query('breast cancer gene'); }")
        assert page.evaluate("() => window.readingroom.status()")["searchMode"] == "words"
        held.release()
        r = page.evaluate("() => window.__meaning")
        assert r["reason"] is None and r["results"][0]["doc_name"] == "genetics.md"
        assert r["evidence"][0]["vector_rank"] == 1 and r["evidence"][0]["lexical_rank"] is None
        status = wait_ready(page)
        assert status["state"] == "ready" and status["searchMode"] == "hybrid" and status["searchNote"] == ""
        assert page.locator("#app-state").inner_text() == "Ready"
        assert status["timings"]["library"] <= status["timings"]["ready"]
        # Python came up the fast way: the build's site-packages image, not the loadPackage fallback
        worker = status["timings"]["retrievalWorker"]
        assert {"snapshot", "site", "wheel", "import", "database", "open"} <= set(worker)
        # numpy is imported after the page said it was ready (the worker's warm-up), and searches
        # by words and by meaning above went through it
        wait_until(page, "() => window.readingroom.status().then((s) => s.timings.retrievalWorker.numpy !== undefined)",
                   READY_TIMEOUT_MS / 1000)
        worker = page.evaluate("() => window.readingroom.status()")["timings"]["retrievalWorker"]
        assert worker["numpy"] >= worker["open"]
        assert not [m for m in console if "loadPackage" in m or "site-packages image" in m], console
        # SQLite's start does not try its other OPFS VFS (its proxy worker is not shipped)
        assert any("retrieval-worker.js?opfs-disable" in u for u in guard.requests)
        assert not [u for u in guard.requests if "opfs-async-proxy" in u]
    finally:
        ctx.close()
    assert guard.offending == [], f"requests left the origin: {guard.offending}"


def test_a_retrieval_worker_that_cannot_start_is_reported_even_before_the_page_listens(browser, site, guard):
    # The retrieval worker starts before the rest of the page's scripts have loaded (api/early.js);
    # what it says before start.js listens is kept and handed over. Here its script throws at once
    # while start.js is held back, so the failure arrives before anyone listens for it.
    ctx = browser.new_context(service_workers="block")
    ctx.route("**/*", guard.route)
    served, held = [], HeldModel()
    ctx.route("**/retrieval-worker.js*", lambda route: (served.append(route.request.url), route.fulfill(
        status=200, content_type="text/javascript", body="throw new Error('this copy of the worker is broken');")))
    ctx.route("**/api/start.js", held.route)
    try:
        page = ctx.new_page()
        page.goto(f"{site}/", wait_until="commit")  # "load" would wait for the held start.js
        for _ in range(100):
            if served:
                break
            page.wait_for_timeout(50)
        assert served, "the retrieval worker was not started before the page's own modules loaded"
        page.wait_for_timeout(300)
        held.release()
        wait_for_api(page, READY_TIMEOUT_MS)
        page.evaluate("() => { window.readingroom.ready.then(() => { window.__outcome = null; }, "
                      "(e) => { window.__outcome = {type: e.type, message: e.message}; }); }")
        error = page.wait_for_function("() => window.__outcome !== undefined && window.__outcome",
                                       timeout=30_000).json_value()
        assert error["type"] == "worker"
        assert "retrieval worker could not start" in error["message"]  # (Chromium keeps a module worker's own message to itself)
        assert "Reload the page" in page.locator("#notice").inner_text()
        assert page.evaluate("() => window.readingroom.status()")["state"] == "error"
    finally:
        ctx.close()
    assert guard.offending == [], f"requests left the origin: {guard.offending}"
