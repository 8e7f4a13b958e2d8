"""The hot path's head start, in the real page: a question's vector is asked for while it is
typed in the box (debounced), the search asked with that text uses it (its debug data says
`typed_ahead`), a repeated or re-spaced question hits the cache, and the debug view says which."""

from __future__ import annotations

from pages import wait_until

WAIT_MS = 120_000


def test_typing_a_question_embeds_it_ahead_and_the_search_says_so(page):
    page.evaluate("(d) => window.readingroom.addDocuments(d)",
                  [{"name": "tides.md", "text": "# Tides\n\nSpring tides follow the full and the new moon."}])
    box = page.locator("#query")
    box.click()
    box.press_sequentially("when are spring tides", delay=20)
    # The composer asked for the text's vector after the pause; the API says it is there now.
    wait_until(page, """async () => (await window.readingroom.typeAhead('when are spring tides')).source
                        === 'cache'""", WAIT_MS / 1000)
    r = page.evaluate("() => window.readingroom.query('when are spring tides')")
    assert r["stats"]["query_vector"]["source"] == "typed_ahead", r["stats"].get("query_vector")
    assert r["results"][0]["doc_name"] == "tides.md"
    again = page.evaluate("() => window.readingroom.query('  When are SPRING tides ')")
    assert again["stats"]["query_vector"]["source"] == "cache"
    new = page.evaluate("() => window.readingroom.query('full moon')")
    assert new["stats"]["query_vector"]["source"] == "embedded"
    assert "query_vector" not in page.evaluate("() => window.readingroom.query('moon', {mode: 'lexical'})")["stats"]


def test_the_debug_view_says_where_the_query_vector_came_from(page):
    page.evaluate("(d) => window.readingroom.addDocuments(d)",
                  [{"name": "bread.md", "text": "# Bread\n\nSourdough needs a long, cold proof overnight."}])
    page.check("#mode-search")
    page.check("#debug-toggle")
    box = page.locator("#query")
    box.click()
    box.press_sequentially("how long is the proof", delay=20)
    wait_until(page, """async () => (await window.readingroom.typeAhead('how long is the proof')).source
                        === 'cache'""", WAIT_MS / 1000)
    box.press("Enter")
    page.wait_for_function("() => document.querySelector('.debug-query-vector') !== null", timeout=WAIT_MS)
    text = page.locator(".debug-query-vector").first.inner_text()
    assert text.startswith("Query vector: ")
    assert "typed ahead" in text or "from the cache" in text
