"""Load: rapid-fire searches from the search box, and a thousand queries in a row."""

from __future__ import annotations

import json

from pages import ARTIFACTS, screenshot

WAIT_MS = 120_000
WORDS = ["anchor", "bramble", "cobalt", "dormouse", "ember", "fjord", "granite", "hazel", "indigo",
         "juniper", "kestrel", "lantern", "marble", "nutmeg", "otter", "pumice", "quince", "raven",
         "saffron", "thistle"]


def library(page) -> None:
    docs = [{"name": f"{w}.md", "text": f"# {w.title()}\n\nThe {w} note: everything we know about the {w}, "
             f"written down once and kept for later."} for w in WORDS]
    report = page.evaluate("(d) => window.readingroom.addDocuments(d)", docs)
    assert {d["status"] for d in report["documents"]} == {"added"}


def test_twenty_rapid_searches_show_only_the_last_ones_results(page):
    library(page)
    # Record every answer the page puts on show, in order.
    page.evaluate("""() => {
        window.__shown = [];
        const results = document.getElementById('results');
        new MutationObserver(() => {
            if (results.getAttribute('aria-busy') === 'false') window.__shown.push(results.dataset.query);
        }).observe(results, {attributes: true, attributeFilter: ['aria-busy', 'data-query']});
    }""")
    page.check("#mode-search")
    # Twenty searches submitted through the form in one go (as fast as a person can never type):
    # each submit starts a search that replaces the one before.
    page.evaluate("""(words) => {
        const box = document.getElementById('query');
        const form = document.getElementById('query-form');
        for (const w of words) {
            box.value = `${w} note`;
            form.requestSubmit();
        }
    }""", WORDS)
    last = f"{WORDS[-1]} note"
    page.wait_for_function(
        "(q) => { const r = document.getElementById('results');"
        " return r.dataset.query === q && r.getAttribute('aria-busy') === 'false'; }",
        arg=last, timeout=WAIT_MS)
    names = page.locator("#results .result .doc-name").all_inner_texts()
    assert names and names[0] == f"{WORDS[-1]}.md"
    # Nothing but the last search's answer was ever shown.
    assert set(page.evaluate("() => window.__shown")) == {last}
    screenshot(page, "load-rapid-searches")


MEMORY_BOUND_BYTES = 16 * 1024 * 1024
OBJECTS_BOUND = 2_000


def test_a_thousand_queries_do_not_grow_memory(page):
    """1,000 queries in a row on a 20-document library, after 100 warm-up queries: the retrieval
    worker's Pyodide wasm heap (and sqlite-wasm's) grows by less than 16 MB, and Python's live
    objects (gc-tracked, after a collection) by fewer than 2,000, i.e. fewer than two per query
    (the figures are printed and written to test-artifacts/memory.json)."""
    library(page)
    run = """async (n) => {
        for (let i = 0; i < n; i++) {
            const w = %s[i %% 20];
            const r = await window.readingroom.query(`${w} note ${i}`);
            if (r.error || !r.results.length) throw new Error(`query ${i}: ${JSON.stringify(r.error ?? r.reason)}`);
        }
        return window.readingroom.debug.memory();
    }""" % json.dumps(WORDS)
    warm = page.evaluate(run, 100)
    after = page.evaluate(run, 1000)
    figures = {
        "queries": 1000, "warmup": 100,
        "after_warmup": warm, "after_1000": after,
        "heap_growth_bytes": after["heapBytes"] - warm["heapBytes"],
        "python_objects_growth": after["pythonObjects"] - warm["pythonObjects"],
        "sqlite_heap_growth_bytes": after["sqliteHeapBytes"] - warm["sqliteHeapBytes"],
        "bound_bytes": MEMORY_BOUND_BYTES, "bound_objects": OBJECTS_BOUND,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "memory.json").write_text(json.dumps(figures, indent=1) + "\n")
    print("memory:", json.dumps(figures))
    assert warm["heapBytes"] > 0 and warm["pythonObjects"] > 0
    assert figures["heap_growth_bytes"] < MEMORY_BOUND_BYTES
    assert figures["sqlite_heap_growth_bytes"] < MEMORY_BOUND_BYTES
    assert figures["python_objects_growth"] < OBJECTS_BOUND
