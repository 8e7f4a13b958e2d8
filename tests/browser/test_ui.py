"""The page a person uses, in headless Chromium: files through the picker (Markdown, a real PDF,
HTML), result cards with pages and highlights, the passage reader, filters, delete, the debug
view, ingestion progress with Cancel, and the start-up, storage and mismatch states. Document
text that looks like markup must stay text. Search mode's cards are what these tests read."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from fpdf import FPDF

from helpers import run
from pages import exported_database, screenshot, wait_ready, wait_until
from stand_in_chat import StandInChat

WAIT_MS = 120_000

NOTES_MD = b"""# Kitchen notes

## Kettle

The kettle is descaled every month with citric acid, and the filter is rinsed weekly.

## Bread

Sourdough needs a long, cold proof in the fridge overnight before baking.
"""

GUIDE_HTML = b"""<!doctype html>
<html><head><title>Guide</title>
<style>body { color: red } .lighthouse-style-marker { display: none }</style>
<script>window.__pwned = 'html-script'; alert('html');</script>
</head><body>
<h1>Harbour guide</h1>
<p>The lighthouse keeper logs every passing ship in a leather ledger.</p>
<script>window.__pwned = 'inline-body-script';</script>
</body></html>
"""

PAGE_ONE = ("Annual maintenance report. The pumping station was inspected in spring. "
            "Valves were greased and the control panel firmware was updated.")
PAGE_TWO = ("Wind farm findings. The turbine inspection found corrosion on blade seven, "
            "and the gearbox oil was replaced after the vibration alarm.")


def make_pdf(pages: list[str]) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    return bytes(pdf.output())


def add_files(page, files: list[dict], expect_documents: int) -> None:
    """Adds files through the real file input and waits until the list shows them."""
    page.set_input_files("#file-input", files=files)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#document-list .doc-row').length === n"
        " && document.getElementById('ingest').hidden",
        arg=expect_documents, timeout=WAIT_MS)


def ask(page, text: str) -> None:
    """Searches through the form (Search mode) and waits for that search's answer to be shown."""
    page.check("#mode-search")
    page.evaluate("() => { delete document.getElementById('results').dataset.query; }")
    page.fill("#query", text)
    page.click("#query-button")
    settled(page, text)


def settled(page, text: str) -> None:
    """Waits until the cards on show answer `text` and no newer search is running."""
    page.wait_for_function(
        "(q) => { const r = document.getElementById('results');"
        " return r.dataset.query === q && r.getAttribute('aria-busy') === 'false'; }",
        arg=text, timeout=WAIT_MS)


def cards(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('#results .result')].map((c) => ({
        name: c.querySelector('.doc-name').textContent,
        type: c.querySelector('.doc-type').textContent,
        page: c.querySelector('.page')?.textContent ?? null,
        heading: c.querySelector('.heading')?.textContent ?? null,
        text: c.querySelector('.passage').textContent,
        marks: [...c.querySelectorAll('.passage mark')].map((m) => m.textContent),
        score: c.querySelector('.score').textContent,
    }))""")


def document_rows(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('#document-list .doc-row')].map((r) => ({
        name: r.querySelector('.name').textContent, type: r.querySelector('.type').textContent,
        size: r.querySelector('.size').textContent, chunks: Number(r.querySelector('.chunks').textContent),
        added: r.querySelector('.added').textContent,
    }))""")


def test_markdown_pdf_and_html_through_the_picker_with_pages_and_highlights(page):
    pdf = make_pdf([PAGE_ONE, PAGE_TWO])
    add_files(page, [
        {"name": "notes.md", "mimeType": "text/markdown", "buffer": NOTES_MD},
        {"name": "report.pdf", "mimeType": "application/pdf", "buffer": pdf},
        {"name": "guide.html", "mimeType": "text/html", "buffer": GUIDE_HTML},
    ], expect_documents=3)
    rows = {r["name"]: r for r in document_rows(page)}
    assert {n: r["type"] for n, r in rows.items()} == {"notes.md": "md", "report.pdf": "pdf", "guide.html": "html"}
    assert all(r["chunks"] >= 1 and r["size"].endswith("B") and r["added"] for r in rows.values())
    assert page.locator("#counts").inner_text().startswith("3 documents")
    assert page.locator("#file-messages li").count() == 0
    screenshot(page, "ui-documents")

    # The PDF's second page answers, and its card says so.
    ask(page, "turbine blade corrosion")
    top = cards(page)[0]
    assert top["name"] == "report.pdf" and top["type"] == "pdf" and top["page"] == "page 2"
    assert "blade seven" in top["text"]
    assert {m.lower() for m in top["marks"]} >= {"turbine", "corrosion", "blade"}
    screenshot(page, "ui-results-pdf")

    # Clicking the card opens the passage with its page.
    page.click("#results .result >> nth=0")
    reader = page.locator("#reader")
    reader.wait_for(state="visible")
    assert reader.locator(".reader-title").inner_text() == "report.pdf"
    assert "page 2" in reader.locator(".reader-where").inner_text()
    assert "blade seven" in reader.locator(".context-span").inner_text()
    assert reader.locator(".context-span mark").count() >= 3
    screenshot(page, "ui-reader")

    # HTML: the text is found, its heading kept; scripts and styles were dropped, never run.
    ask(page, "lighthouse ledger")
    html = [c for c in cards(page) if c["name"] == "guide.html"]
    assert html and "leather ledger" in html[0]["text"] and html[0]["heading"] == "Harbour guide"
    assert all("__pwned" not in c["text"] and "lighthouse-style-marker" not in c["text"] for c in cards(page))
    assert page.evaluate("() => window.__pwned") is None

    # The scope goes to Python as options.filters: the filter box finds the Markdown file, Clear
    # and Select all (of the rows shown) make it the only one asked.
    page.click("#select-none")
    assert page.locator("#scope-line").inner_text().startswith("No document ticked")
    page.fill("#doc-filter", "md")
    page.click("#select-all")
    page.fill("#doc-filter", "")
    assert page.locator("#scope-line").inner_text() == "Asking 1 of 3 documents"
    ask(page, "inspection kettle bread lighthouse turbine")
    assert cards(page) and {c["type"] for c in cards(page)} == {"md"}
    page.click("#select-none")
    page.locator("#document-list .doc-row", has_text="report.pdf").locator("input.pick").check()
    ask(page, "maintenance")
    assert {c["name"] for c in cards(page)} == {"report.pdf"}
    assert cards(page)[0]["page"] == "page 1"

    # The same file again is recognised as unchanged.
    page.set_input_files("#file-input", files=[{"name": "notes.md", "mimeType": "text/markdown", "buffer": NOTES_MD}])
    page.wait_for_function("() => /1 unchanged/.test(document.getElementById('activity').textContent)",
                           timeout=WAIT_MS)
    assert len(document_rows(page)) == 3


def drop_files(page, files: dict[str, str]) -> None:
    """Drops files (name -> text) on the drop zone, as a drag from the desktop would."""
    transfer = page.evaluate_handle("""(files) => {
        const dt = new DataTransfer();
        for (const [name, text] of Object.entries(files)) dt.items.add(new File([text], name));
        return dt;
    }""", files)
    page.dispatch_event("#drop-zone", "dragenter", {"dataTransfer": transfer})
    page.dispatch_event("#drop-zone", "drop", {"dataTransfer": transfer})


def test_delete_updates_the_list_the_counts_and_the_results(page):
    add_files(page, [{"name": "notes.md", "mimeType": "text/markdown", "buffer": NOTES_MD}], expect_documents=1)
    drop_files(page, {"guide.html": GUIDE_HTML.decode()})
    page.wait_for_function("() => document.querySelectorAll('#document-list .doc-row').length === 2",
                           timeout=WAIT_MS)
    ask(page, "kettle descaled citric acid")
    assert cards(page)[0]["name"] == "notes.md"

    delete = page.locator("#document-list .doc-row", has_text="notes.md").locator("button.delete")
    delete.click()
    assert delete.text_content() == "Delete?"  # the first click only asks
    # The list is drawn again whenever the library changes (guide.html's vectors landing, another
    # tab's add: here the filter box draws it): the question stays, and the second click deletes.
    page.dispatch_event("#doc-filter", "input")
    assert delete.text_content() == "Delete?"
    delete.click()
    page.wait_for_function("() => document.querySelectorAll('#document-list .doc-row').length === 1",
                           timeout=WAIT_MS)
    assert [r["name"] for r in document_rows(page)] == ["guide.html"]
    page.wait_for_function("() => document.getElementById('counts').textContent.startsWith('1 document,')",
                           timeout=WAIT_MS)
    # The search runs again: nothing of notes.md is left in the results.
    page.wait_for_function(
        "() => ![...document.querySelectorAll('#results .doc-name')].some((n) => n.textContent === 'notes.md')"
        " && document.getElementById('results').getAttribute('aria-busy') === 'false'",
        timeout=WAIT_MS)
    status = page.evaluate("() => window.readingroom.status()")
    assert status["documents"] == 1
    r = page.evaluate("() => window.readingroom.query('kettle descaled citric acid')")
    assert all(x["doc_name"] != "notes.md" for x in r["results"])
    assert [f.get_attribute("aria-label") for f in page.locator("#document-list input.pick").all()] == ["Ask guide.html"]
    screenshot(page, "ui-after-delete")


HOSTILE_NAME = "<img src=x onerror=alert(1)>.md"
HOSTILE_MD = b"""# <script>window.__pwned = 'heading'</script> Zebra notes

<img src=x onerror="window.__pwned = 'img'; alert('img')"> The zebra crossing outside the school is repainted every spring.

<script>window.__pwned = 'script'; alert('script')</script> <b onmouseover="alert(3)">bold</b>
"""


def test_markup_in_documents_is_shown_as_text_and_never_runs(page, guard):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    add_files(page, [{"name": HOSTILE_NAME, "mimeType": "text/markdown", "buffer": HOSTILE_MD}],
              expect_documents=1)
    assert document_rows(page)[0]["name"] == HOSTILE_NAME
    page.check("#mode-search")
    page.check("#debug-toggle")
    ask(page, "zebra crossing onerror")
    card = cards(page)[0]
    assert card["name"] == HOSTILE_NAME
    assert '<img src=x onerror="window.__pwned' in card["text"]
    assert "<script>" in card["heading"] or "<script>" in card["text"]
    page.click("#results .result >> nth=0")
    page.locator("#reader").wait_for(state="visible")
    assert "<img src=x" in page.locator("#reader .context-span").inner_text()
    assert "<img src=x" in page.locator("#debug .debug-context").inner_text()
    page.hover("#results .result >> nth=0")
    page.wait_for_timeout(500)
    # Nothing from the document became an element, ran, or fetched its src.
    found = page.evaluate("""() => ['#results', '#reader', '#document-list', '#debug', '#sources-pane']
        .map((s) => document.querySelector(s).querySelectorAll('img, script, b, [onerror], [onmouseover]').length)""")
    assert found == [0, 0, 0, 0, 0]
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs == []
    assert not [u for u in guard.requests if re.search(r"/x$", u)]
    screenshot(page, "ui-markup-as-text")


def test_debug_view_shows_every_candidate_timings_counts_and_context(page):
    page.evaluate("""() => window.readingroom.addDocuments([
        {name: 'notes.md', text: %s},
        {name: 'bread.md', text: '# Bread\\n\\nRye bread keeps for a week. Sourdough starter is fed daily with flour.'},
    ])""" % repr(NOTES_MD.decode()))
    page.check("#mode-search")
    page.check("#debug-toggle")
    ask(page, "sourdough proof")
    debug = page.locator("#debug")
    assert debug.is_visible()
    headers = debug.locator("table.evidence th").all_inner_texts()
    assert headers == ["#", "document", "chunk", "page", "vector rank", "similarity", "lexical rank",
                       "BM25", "name rank", "fused", "boosts", "score", "dropped"]
    result = page.evaluate("() => window.readingroom.query('sourdough proof')")
    rows = debug.locator("table.evidence tbody tr")
    assert rows.count() == len(result["evidence"]) >= 2
    dropped = rows.evaluate_all("(rs) => rs.map((r) => r.dataset.dropped)")
    assert dropped == [e["dropped"] or "kept" for e in result["evidence"]]
    assert "kept" in dropped
    stages = debug.locator("table.timings tbody td:first-child").all_inner_texts()
    assert {"embed", "vector", "lexical", "fuse", "total"} <= set(stages)
    counts = dict(zip(*[debug.locator(f"table.counts tbody td:nth-child({i})").all_inner_texts() for i in (1, 2)]))
    assert counts["chosen"] == str(result["stats"]["counts"]["chosen"])
    context = debug.locator(".debug-context").inner_text()
    assert context.startswith("[1] ") and "Sourdough" in context
    first = rows.nth(0).locator("td").all_inner_texts()
    assert first[1] in ("notes.md", "bread.md") and first[4] != "–"  # found by the vector leg
    screenshot(page, "ui-debug")
    # A question that names a document by its title: the debug view says so, and its passage,
    # which never repeats the title, comes first with the name leg's rank.
    page.evaluate("""() => window.readingroom.addDocuments([{name: 'Arsenic and Old Lace.md',
        text: 'The play is set in the Brewster family home in Brooklyn, where two aunts serve elderberry wine.'}])""")
    ask(page, "Where does Arsenic and Old Lace take place?")
    page.wait_for_function("() => /Documents named: Arsenic and Old Lace\\.md/.test("
                           "document.querySelector('#debug .debug-named')?.textContent ?? '')", timeout=WAIT_MS)
    first = debug.locator("table.evidence tbody tr").nth(0).locator("td").all_inner_texts()
    assert first[1] == "Arsenic and Old Lace.md" and first[8] == "1"


def long_document(paragraphs: int) -> bytes:
    topics = ["harbour", "orchard", "glacier", "quarry", "meadow", "foundry", "estuary", "vineyard"]
    return "\n\n".join(
        f"## Section {i}\n\nParagraph {i} describes the {topics[i % len(topics)]} survey in detail: "
        f"measurements were taken at {i} sites, checked twice, and logged with the date and weather. "
        "The team compared them against the previous season and noted every difference found."
        for i in range(paragraphs)).encode()


def test_ingest_shows_progress_and_cancel_keeps_the_words_and_says_what_is_left(page):
    page.set_input_files("#file-input", files=[
        {"name": "survey.md", "mimeType": "text/markdown", "buffer": long_document(400)},
        {"name": "later.md", "mimeType": "text/markdown", "buffer": NOTES_MD},
    ])
    page.wait_for_function("() => /\\d+ of \\d+ passages in survey\\.md/.test("
                           "document.getElementById('ingest-chunks-text').textContent)", timeout=WAIT_MS)
    # Words first: both files are stored (and listed) before their passages are embedded.
    assert page.locator("#ingest-files-text").inner_text() == "2 of 2 files"
    assert page.locator("#app-state").inner_text() in ("Ready", "Ready offline")
    # The page stays responsive while the worker embeds.
    assert page.evaluate("() => new Promise((r) => requestAnimationFrame(() => r(true)))")
    page.wait_for_function("() => /passages\\/s/.test(document.getElementById('ingest-rate').textContent)",
                           timeout=WAIT_MS)
    assert re.search(r"about .+ left", page.locator("#ingest-rate").inner_text())
    screenshot(page, "ui-ingest-progress")
    page.click("#ingest-cancel")
    page.wait_for_function("() => document.getElementById('ingest').hidden", timeout=WAIT_MS)
    # Cancel stops the embedding; what is stored stays, found by its words, and the page says
    # how much meaning search covers (the rest is embedded on the next add or a reload).
    assert "survey.md is searchable by its words; meaning search covers" in page.locator("#file-messages").inner_text()
    status = page.evaluate("() => window.readingroom.status()")
    assert status["documents"] == 2 and status["pending"]["pending_chunks"] > 0
    banner = page.locator("#meaning-pending")
    banner.wait_for(state="visible", timeout=WAIT_MS)
    assert "% of survey.md" in banner.inner_text()
    words = page.evaluate("() => window.readingroom.query('survey', {mode: 'lexical'})")
    assert words["results"] and words["results"][0]["doc_name"] == "survey.md"


def test_header_goes_from_warming_up_to_ready_to_ready_offline(context, site):
    pg = context.new_page()
    pg.goto(f"{site}/", wait_until="domcontentloaded")
    assert pg.locator("#app-state").inner_text() == "Warming up…"
    screenshot(pg, "ui-warming-up")
    wait_ready(pg)
    pg.wait_for_function("() => document.getElementById('app-state').dataset.state === 'offline'",
                         timeout=WAIT_MS)
    assert pg.locator("#app-state").inner_text() == "Ready offline"
    assert pg.locator("#storage-warning").is_hidden()
    screenshot(pg, "ui-ready-offline")


def test_memory_storage_is_a_visible_warning(context, site):
    pg = context.new_page()
    pg.goto(f"{site}/?storage=memory")
    status = wait_ready(pg)
    assert status["storage"] == "memory"
    warning = pg.locator("#storage-warning")
    assert warning.is_visible()
    assert "Storage unavailable" in warning.inner_text() and "memory" in warning.inner_text()
    screenshot(pg, "ui-memory-storage")


class OtherModel:
    """An embedder that says it is another model: an index made with it is a mismatch here."""

    model_id = "example/other-model"
    dim = 384
    max_tokens = 256

    async def embed(self, texts):
        rng = np.random.default_rng(len(texts))
        v = rng.normal(size=(len(texts), self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    async def count_tokens(self, texts):
        return [len(t.split()) for t in texts]


def test_an_index_from_another_model_shows_the_mismatch_banner(page, tmp_path):
    from readingroom import Library, NewDocument

    path = tmp_path / "other.sqlite"
    lib = Library.open(str(path), embedder=OtherModel())
    run(lib.add([NewDocument("tides.md", text="# Tides\n\nSpring tides follow the full and new moon.")]))
    lib.close()
    data = base64.b64encode(path.read_bytes()).decode()
    status = page.evaluate("""async (b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        return window.readingroom.importIndex(bytes);
    }""", data)
    assert status["mismatch"] and "other-model" in status["mismatch"]
    banner = page.locator("#mismatch")
    banner.wait_for(state="visible")
    assert "indexed differently" in banner.inner_text()
    page.wait_for_function("() => document.querySelectorAll('#document-list .doc-row').length === 1",
                           timeout=WAIT_MS)
    # Words still find it; the summary says meaning search is off.
    ask(page, "spring tides moon")
    assert cards(page)[0]["name"] == "tides.md"
    assert "words only" in page.locator("#results-summary").inner_text()
    page.click("#reindex")
    page.wait_for_function("() => !/^(|Re-indexing…)$/.test(document.getElementById('reindex-message').textContent)",
                           timeout=WAIT_MS)
    screenshot(page, "ui-model-mismatch")


def test_full_storage_says_so_and_keeps_the_library(page, context, site):
    wait_until(page, "async () => (await window.readingroom.status()).offlineReady === true", WAIT_MS / 1000)
    usage = page.evaluate("async () => (await navigator.storage.estimate()).usage")
    # Chromium's quota for this origin, just above what the app already uses: the next write fails.
    cdp = context.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site, "quotaSize": usage + 64 * 1024})
    page.set_input_files("#file-input", files=[
        {"name": "big.md", "mimeType": "text/markdown", "buffer": b"# Big\n\n" + b"Words about the sea. " * 40}])
    notice = page.locator("#notice")
    notice.wait_for(state="visible", timeout=WAIT_MS)
    assert notice.inner_text().startswith("Storage is full")
    assert "big.md was not added: storage is full." in page.locator("#file-messages").inner_text()
    status = page.evaluate("() => window.readingroom.status()")
    assert status["documents"] == 0 and status["chunks"] == 0
    screenshot(page, "ui-storage-full")
    # Over the quota at a reload, Chromium refuses even to open the library's files for writing:
    # the page says storage is full and that the saved library is still there.
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site, "quotaSize": 1})
    page.reload()
    status = wait_ready(page)
    assert status["storage"] == "memory", status.get("storageNote")
    warning = page.locator("#storage-warning")
    assert warning.is_visible() and warning.inner_text().startswith("Storage is full, so your saved library could not be opened")
    screenshot(page, "ui-storage-full-at-start")
    # With room again, a reload opens the library in OPFS, whole, and the same file goes in.
    cdp = context.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": site})
    page.reload()
    status = wait_ready(page)
    assert status["storage"] == "opfs", status.get("storageNote")
    assert status["documents"] == 0 and status["chunks"] == 0
    assert page.locator("#storage-warning").is_hidden()
    # With room again, the same file goes in.
    report = page.evaluate("(d) => window.readingroom.addDocuments(d)",
                           [{"name": "big.md", "text": "# Big\n\n" + "Words about the sea. " * 40}])
    assert report["documents"][0]["status"] == "added"


API_KEY = "sk-test-9f2c41d7e0b84a6f-secret"


def test_the_chat_api_key_goes_only_into_the_authorization_header(context, site, guard):
    server = StandInChat("Every month [1].")
    guard.origins.add(server.url)
    try:
        settings = {"transport": "openai", "baseUrl": f"{server.url}/v1", "model": "m", "temperature": 0,
                    "maxTokens": 16, "grounded": True}
        context.add_init_script(
            "((s) => { if (localStorage.getItem('readingroom.chat.settings.v2') === null)"
            " localStorage.setItem('readingroom.chat.settings.v2', JSON.stringify(s)); })(%s);" % json.dumps(settings))
        sent = []  # every request the browser made, whole, from any page or worker
        context.on("request", lambda r: sent.append({"url": r.url, "headers": r.all_headers(),
                                                     "body": r.post_data or ""}))
        pg = context.new_page()
        console = []
        pg.on("console", lambda m: console.append(m.text))
        pg.goto(f"{site}/")
        wait_ready(pg)
        pg.evaluate("(d) => window.readingroom.addDocuments(d)", [
            {"name": "kettle.md", "text": "# Kettle\n\nThe kettle is descaled every month with citric acid."}])
        # The key is typed into the chat settings, as a person would.
        pg.locator("#chat-root .chat-settings summary").click()
        key = pg.locator("#chat-root [name=apiKey]")
        key.fill(API_KEY)
        key.dispatch_event("change")
        pg.fill("#chat-root textarea", "How often is the kettle descaled?")
        pg.click("#chat-root .chat-ask")
        pg.wait_for_function("() => ['done', 'error'].includes(document.querySelector('#chat-1')?.dataset.state)",
                             timeout=WAIT_MS)
        assert pg.locator("#chat-1").get_attribute("data-state") == "done"
        # More library work after the key is set: it must not reach the database either.
        pg.evaluate("(d) => window.readingroom.addDocuments(d)", [
            {"name": "bread.md", "text": "# Bread\n\nSourdough needs a long, cold proof overnight."}])
        database = exported_database(pg)
    finally:
        server.close()

    assert database.startswith(b"SQLite format 3\x00") and b"kettle.md" in database
    assert API_KEY.encode() not in database
    assert API_KEY not in "\n".join(console)
    assert API_KEY not in pg.locator("body").inner_text()
    # Exactly one request carried it: the POST to the configured endpoint, in its Authorization header.
    carrying = [r for r in sent if API_KEY in json.dumps(r)]
    assert len(carrying) == 1, carrying
    (post,) = carrying
    assert post["url"] == f"{server.url}/v1/chat/completions"
    assert post["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert API_KEY not in post["body"] and API_KEY not in post["url"]
    assert all(API_KEY not in v for k, v in post["headers"].items() if k != "authorization")
    # The server saw the same: the key in that header only.
    seen = [r for r in server.requests if API_KEY in json.dumps(r)]
    assert [(r["method"], r["path"]) for r in seen] == [("POST", "/v1/chat/completions")]
    assert seen[0]["headers"]["authorization"] == f"Bearer {API_KEY}" and API_KEY not in seen[0]["body"]
