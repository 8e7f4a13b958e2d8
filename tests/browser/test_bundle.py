"""The site build.py makes by default opens its bundled demo library on the first visit."""

from __future__ import annotations

from driver import BrowserDriver
from pages import wait_ready, wait_until


def test_the_demo_library_answers_on_first_visit(browser, tmp_path, guard):
    import build

    dist = tmp_path / "dist"
    manifest = build.build(dist=dist)  # default: the demo corpus bundled
    assert manifest["bundle"]["path"] == "bundled/index.sqlite"
    server, _ = build.serve(dist, 0)
    site = f"http://127.0.0.1:{server.server_address[1]}"
    guard.origins.add(site)
    ctx = browser.new_context()
    ctx.route("**/*", guard.route)
    # Record the import progress bar from the first moment (the bundle opens during start-up).
    ctx.add_init_script("""document.addEventListener('DOMContentLoaded', () => {
        window.__importSeen = [];
        const box = document.getElementById('import');
        const bar = document.getElementById('import-bar');
        new MutationObserver(() => window.__importSeen.push({hidden: box.hidden, max: bar.max,
            value: bar.hasAttribute('value') ? bar.value : null}))
            .observe(box, {attributes: true, subtree: true, childList: true, characterData: true});
    });""")
    held = []  # the bundle's requests, held until the page has been seen saying it is merging

    def hold(route):
        held.append(route)

    ctx.route("**/bundled/index.sqlite", hold)
    try:
        page = ctx.new_page()
        page.goto(site + "/")
        wait_ready(page)
        wait_until(page, "async () => (await window.readingroom.status()).merging", 120)
        status = page.evaluate("() => window.readingroom.status()")
        assert (status["documents"], status["reason"]) == (0, "merging")
        assert status["message"].startswith("The bundled documents are still being added")
        assert held, "the bundle's request was not held"
        page.evaluate("() => { window.__early = window.readingroom.query('how do I catch an exception'); }")
        for route in held:
            route.fallback()  # on to the origin guard, and the server
        ctx.unroute("**/bundled/index.sqlite", hold)
        wait_until(page, "async () => (await window.readingroom.status()).documents > 0", 120)
        early = page.evaluate("() => window.__early")  # asked mid-merge: answered once it was in
        assert early["reason"] is None and early["results"][0]["doc_name"].startswith("python-reference/")
        status = page.evaluate("() => window.readingroom.status()")
        assert status["documents"] == 79 and status["mismatch"] is None
        # The bundle's bytes filled a real <progress> bar, which went away once it was open.
        size = manifest["bundle"]["size"]
        seen = page.evaluate("() => window.__importSeen")
        assert any(not s["hidden"] and s["max"] == size and s["value"] == size for s in seen), seen
        assert page.locator("#import").is_hidden()
        r = BrowserDriver(page).query("how do I catch an exception")
        assert r["results"] and r["results"][0]["doc_name"].startswith("python-reference/")
        assert "except" in r["context"]
        page.reload()  # opened once: a reload keeps the library and does not import again
        assert wait_ready(page)["documents"] == 79
    finally:
        ctx.close()
        server.shutdown()
        server.server_close()
    assert guard.offending == []
