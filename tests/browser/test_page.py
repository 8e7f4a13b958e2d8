"""The conversation-first page (issue 13) in headless Chromium, at desktop (1280x800) and phone
(390x844) sizes: the question box in the first viewport with the 79 bundled documents, nothing
scrolling sideways on a phone, the scope checkboxes, [n] previews and the Reader, follow-ups,
conversations kept across a reload and exported as Markdown, dark mode, axe-core, a keyboard-only
walk, the empty library, and Download library's round trip. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pages import ARTIFACTS, wait_ready, wait_until
from stand_in_chat import StandInChat

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WAIT_MS = 120_000
SETTLED = ("['answered', 'done', 'stopped', 'interrupted', 'error']"
           ".includes(document.getElementById(id)?.dataset.state)")

KETTLE = {"name": "kettle.md", "text": (
    "# Kettle manual\n\nThe kettle switches itself off when the water boils. "
    "Descale the kettle every month with white vinegar to remove limescale.\n\n"
    "Never run the kettle empty, because the heating element overheats.")}
BIKE = {"name": "bike.md", "text": (
    "# Bicycle care\n\nPump the tyres to 4 bar before every long ride. "
    "Oil the chain every 300 km, and wipe off the extra oil with a rag.\n\n"
    "Replace the brake pads when the groove on them is worn away.")}


def shot(pg, name: str) -> None:
    """The viewport as a person sees it (the page itself never scrolls)."""
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def new_page(browser, site, guard, viewport, **options):
    ctx = browser.new_context(viewport=viewport, accept_downloads=True, **options)
    ctx.route("**/*", guard.route)
    ctx.on("request", guard.on_request)
    pg = ctx.new_page()
    pg.goto(f"{site}/")
    wait_ready(pg)
    return ctx, pg


def add(pg, docs):
    out = pg.evaluate("(d) => window.readingroom.addDocuments(d)", docs)
    assert all(d["status"] == "added" for d in out["documents"]), out
    pg.wait_for_function("(n) => document.querySelectorAll('#document-list .doc-row').length === n",
                         arg=len(docs), timeout=WAIT_MS)


def ask(pg, question: str) -> dict:
    """Asks through the box (Ask mode, Enter) and waits for the turn to settle; returns it."""
    n = pg.locator("#chat-log .chat-turn").count() + 1
    pg.check("#mode-ask")
    pg.fill("#query", question)
    pg.press("#query", "Enter")
    pg.wait_for_function(f"(id) => {SETTLED}", arg=f"chat-{n}", timeout=WAIT_MS)
    return turn(pg, f"chat-{n}")


def turn(pg, turn_id: str) -> dict:
    return pg.evaluate("""(id) => {
        const t = document.getElementById(id);
        const all = (s) => [...t.querySelectorAll(s)].map((n) => n.textContent);
        return {
            state: t.dataset.state, question: t.querySelector('.chat-question').textContent,
            reason: all('.reason').join(' '), quick: all('.quick-sentence'),
            searched: all('.searched-for').join(' '), cites: all('.quick .chat-cite'),
            sources: all('.chat-sources[aria-label="Sources cited"] .chat-source-doc'),
            allSources: all('.chat-source-doc'), error: all('.chat-error').join(' '),
        };
    }""", turn_id)


def axe_problems(pg) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not pg.evaluate("() => typeof window.axe === 'object'"):
        pg.evaluate(AXE.read_text() + "\n;true")  # evaluate runs outside the page's CSP
    found = pg.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .filter((v) => ['serious', 'critical'].includes(v.impact))
        .map((v) => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5)}))""")
    return found


def in_viewport(pg, selector: str) -> bool:
    return pg.evaluate("""(s) => { const r = document.querySelector(s).getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
            && r.bottom <= innerHeight && r.right <= innerWidth; }""", selector)


def sideways_overflow(pg) -> list[str]:
    """Visible elements that reach past the viewport's right edge (outside scrolling tables)."""
    return pg.evaluate("""() => [...document.querySelectorAll('body *')].filter((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && r.right > innerWidth + 1 && !el.closest('.table-scroll');
        }).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`).slice(0, 10)
        .concat(document.documentElement.scrollWidth > innerWidth ? ['<html> scrolls sideways'] : [])""")


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory):
    """The site as build.py makes it by default: the demo library (79 documents) bundled."""
    import build

    dist = tmp_path_factory.mktemp("demo") / "dist"
    build.build(dist=dist)
    server, _ = build.serve(dist, 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_bundled_library_at_both_sizes(browser, demo_site, guard, size):
    viewport = DESKTOP if size == "desktop" else PHONE
    guard.origins.add(demo_site)
    ctx = browser.new_context(viewport=viewport)
    ctx.route("**/*", guard.route)
    try:
        pg = ctx.new_page()
        pg.goto(f"{demo_site}/", wait_until="domcontentloaded")
        # From the first paint, before anything has loaded: the box, its visible label and name.
        assert in_viewport(pg, "#query") and in_viewport(pg, "#query-label")
        assert pg.get_by_role("combobox", name="Ask your documents").count() == 1
        shot(pg, f"page-starting-{size}")
        wait_ready(pg)
        wait_until(pg, "async () => (await window.readingroom.status()).documents === 79", 120)
        pg.wait_for_function("() => document.querySelectorAll('#document-list .doc-row').length === 79",
                             timeout=WAIT_MS)
        assert in_viewport(pg, "#query")
        assert sideways_overflow(pg) == []
        starters = pg.locator("#starters button")
        assert starters.count() == 3 and starters.first.is_visible()
        assert axe_problems(pg) == []
        shot(pg, f"page-demo-{size}")

        starters.first.click()
        t = pg.wait_for_function(f"(id) => {SETTLED}", arg="chat-1", timeout=WAIT_MS)
        t = turn(pg, "chat-1")
        assert t["state"] in ("answered", "done"), t
        assert t["quick"] and t["cites"], t
        assert all(s.startswith("python-reference/") for s in t["allSources"]), t
        assert in_viewport(pg, "#query")
        assert sideways_overflow(pg) == []
        assert axe_problems(pg) == []
        shot(pg, f"page-answer-{size}")

        pg.locator("#chat-1 .quick .chat-cite").first.click()
        pg.locator("#reader").wait_for(state="visible")
        assert pg.locator("#reader .sentence").inner_text().strip() == t["quick"][0].strip()
        assert sideways_overflow(pg) == []
        assert axe_problems(pg) == []
        shot(pg, f"page-reader-{size}")

        pg.click("#tab-sources" if size == "phone" else "#doc-filter")
        assert pg.locator("#sources-pane").is_visible()
        assert "of 79" in pg.locator("#scope-line").inner_text() or "all 79" in pg.locator("#scope-line").inner_text()
        assert axe_problems(pg) == []
        shot(pg, f"page-sources-{size}")
    finally:
        ctx.close()


def test_scope_checkboxes_change_which_documents_answer(page):
    add(page, [KETTLE, BIKE])
    assert page.locator("#scope-line").inner_text() == "Asking all 2 documents"
    question = "How often should I descale the kettle?"
    every = ask(page, question)
    assert every["sources"][0] == "kettle.md" and every["quick"], every
    page.locator("#document-list .doc-row", has_text="kettle.md").locator("input.pick").uncheck()
    assert page.locator("#scope-line").inner_text() == "Asking 1 of 2 documents"
    only_bike = ask(page, question)
    assert "kettle.md" not in only_bike["allSources"], only_bike
    assert set(only_bike["allSources"]) <= {"bike.md"}
    assert only_bike["reason"] or only_bike["allSources"], only_bike  # bike.md, or "not covered"
    # '#' and letters offer a document: choosing it asks only that one.
    page.click("#select-all")
    page.fill("#query", "")
    page.type("#query", "How often #kett")
    page.locator("#doc-suggestions li", has_text="kettle.md").wait_for()
    page.keyboard.press("Enter")
    assert page.locator("#scope-line").inner_text() == "Asking 1 of 2 documents"
    assert page.input_value("#query") == "How often "
    page.type("#query", "is it descaled?")
    page.keyboard.press("Enter")
    page.wait_for_function(f"(id) => {SETTLED}", arg="chat-3", timeout=WAIT_MS)
    assert set(turn(page, "chat-3")["allSources"]) == {"kettle.md"}


def test_a_refused_question_still_shows_the_closest_passages_folded(page):
    add(page, [KETTLE, BIKE])
    t = ask(page, "How much does a new bicycle cost in Paris?")
    assert t["reason"] == "Your documents do not seem to cover this. Nothing found mentions “Paris”." \
        and t["quick"] == [], t  # the name the question gives that no passage found holds
    assert t["sources"] == [] and t["allSources"], t  # nothing shown as cited; the closest are there
    fold = page.locator("#chat-1 details.closest")
    assert not fold.evaluate("d => d.open")
    assert fold.locator("summary").inner_text().startswith("The ") and "for you to judge" in fold.locator("summary").inner_text()
    why = page.locator("#chat-1 .answer-why").text_content()  # the debug view: query searched, the decision
    assert "searched for: How much does a new bicycle cost in Paris?" in why and "covered: false (probability 0." in why


def test_a_first_question_that_names_nothing_asks_for_a_subject(page):
    """"Why?" opening a conversation quotes nothing, says what to do, offers no model to write
    from it, and folds whatever passages it found."""
    add(page, [KETTLE, BIKE])
    t = ask(page, "Why?")
    assert t["reason"] == "Say what you are asking about: this question has no word that names a subject." \
        and t["quick"] == [] and t["sources"] == [], t
    assert page.locator("#chat-1 .write-answer, #chat-1 .ask-anyway").count() == 0
    assert page.locator("#chat-1 details.closest").count() == (1 if t["allSources"] else 0)


def test_a_citation_shows_its_passage_and_opens_the_reader_at_the_sentence(page):
    add(page, [KETTLE, BIKE])
    t = ask(page, "How often should I descale the kettle?")
    assert any("white vinegar" in q for q in t["quick"]), t
    cite = page.locator("#chat-1 .quick .chat-cite").first
    cite.hover()
    preview = page.locator("#cite-preview")
    preview.wait_for(state="visible")
    assert "kettle.md" in preview.inner_text() and "white vinegar" in preview.inner_text()
    shot(page, "page-cite-preview-desktop")
    page.mouse.move(0, 0)
    preview.wait_for(state="hidden")
    cite.click()
    reader = page.locator("#reader")
    reader.wait_for(state="visible")
    assert reader.locator(".reader-title").inner_text() == "kettle.md"
    assert "white vinegar" in reader.locator(".sentence").inner_text()
    assert "Kettle manual" in reader.locator(".reader-headings").inner_text()
    # Only the sources the answer cites are shown; nothing of bike.md is among them.
    assert t["sources"] == ["kettle.md"], t


def test_follow_ups_reload_and_markdown_export(page, tmp_path):
    add(page, [KETTLE, BIKE])
    first = ask(page, "How often should I oil the bicycle chain?")
    assert first["sources"] and first["sources"][0] == "bike.md"
    follow = ask(page, "And how often?")
    assert "chain" in follow["searched"] and follow["searched"].startswith("Searched for:"), follow
    assert follow["allSources"][0] == "bike.md", follow
    assert page.locator("#conversation-list option:checked").inner_text() == "How often should I oil the bicycle chain?"

    page.reload()
    wait_ready(page)
    page.wait_for_function("() => document.querySelectorAll('#chat-log .chat-turn').length === 2", timeout=WAIT_MS)
    assert turn(page, "chat-1")["question"].endswith(first["question"].removeprefix("You: "))
    again = turn(page, "chat-2")
    assert again["searched"] == follow["searched"] and again["quick"] == follow["quick"]

    with page.expect_download() as info:
        page.click("#export-conversation")
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.suffix == ".md"
    text = path.read_text()
    assert text.startswith("# How often should I oil the bicycle chain?")
    assert "## And how often?" in text and "Searched for:" in text
    assert re.search(r"- \[\d+\] bike\.md — Bicycle care", text), text

    # A new conversation starts empty; the old one stays in the list.
    page.click("#new-conversation")
    assert page.locator("#chat-log .chat-turn").count() == 0
    ask(page, "Why does the kettle switch off?")
    assert page.locator("#conversation-list option").count() == 2
    # A question that stands on its own is searched as asked, though it follows another
    # and says "it" ("is it safe to …" points at nothing).
    alone = ask(page, "Is it safe to run the kettle empty?")
    assert alone["searched"] == "" and alone["sources"] == ["kettle.md"], alone


def test_dark_mode_renders_and_the_toggle_switches(browser, site, guard):
    ctx, pg = new_page(browser, site, guard, DESKTOP, color_scheme="dark")
    try:
        luminance = """() => { const [r, g, b] = getComputedStyle(document.body).backgroundColor
            .match(/\\d+/g).map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; }"""
        assert pg.evaluate(luminance) < 0.2
        assert pg.get_attribute("#theme-toggle", "aria-pressed") == "true"
        add(pg, [KETTLE])
        ask(pg, "How often should I descale the kettle?")
        assert axe_problems(pg) == []
        shot(pg, "page-dark-desktop")
        pg.set_viewport_size(PHONE)
        shot(pg, "page-dark-phone")
        pg.click("#theme-toggle")
        assert pg.evaluate(luminance) > 0.8
        assert pg.get_attribute("#theme-toggle", "aria-pressed") == "false"
        pg.reload()
        wait_ready(pg)
        assert pg.evaluate(luminance) > 0.8  # the choice is kept
    finally:
        ctx.close()


def test_keyboard_only_ask_citation_reader_and_back(page):
    add(page, [KETTLE, BIKE])
    page.locator("body").focus()
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "query"
    page.keyboard.type("How often should I descale the kettle?")
    page.keyboard.press("Enter")
    page.wait_for_function(f"(id) => {SETTLED}", arg="chat-1", timeout=WAIT_MS)
    for _ in range(60):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("() => document.activeElement.classList.contains('chat-cite')"):
            break
    else:
        raise AssertionError("no [n] reached with the keyboard")
    focused_visible = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle !== 'none'")
    assert focused_visible
    assert page.locator("#cite-preview").is_visible()  # focus shows the passage too
    n = page.evaluate("() => document.activeElement.dataset.n")
    page.keyboard.press("Enter")
    page.locator("#reader").wait_for(state="visible")
    assert page.evaluate("() => !!document.activeElement.closest('#reader-pane')")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.id") == "reader-close"
    page.keyboard.press("Enter")
    assert page.locator("#reader").is_hidden()
    assert page.evaluate("() => document.activeElement.classList.contains('chat-cite') && document.activeElement.dataset.n") == n


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_empty_library_says_add_a_document_first(browser, site, guard, size):
    ctx, pg = new_page(browser, site, guard, DESKTOP if size == "desktop" else PHONE)
    try:
        assert pg.locator("#intro").is_visible() and pg.locator("#intro-empty label").is_visible()
        assert in_viewport(pg, "#query")
        shot(pg, f"page-empty-{size}")
        t = ask(pg, "What is in my library?")
        assert t["reason"].startswith("Add a document first"), t
        assert sideways_overflow(pg) == []
        assert axe_problems(pg) == []
    finally:
        ctx.close()


def test_download_library_then_restore_it_with_open_index_file(page, tmp_path):
    add(page, [KETTLE, BIKE])
    persisted = page.locator("#persistence")
    assert persisted.inner_text().startswith(("Kept", "Not guaranteed"))
    before = page.evaluate("() => window.readingroom.query('how often is the chain oiled')")
    with page.expect_download() as info:
        page.click("#download-library")
    name = info.value.suggested_filename
    assert re.fullmatch(r"reading-room-library-\d{4}-\d{2}-\d{2}\.sqlite", name)
    saved = tmp_path / name
    info.value.save_as(saved)
    assert saved.read_bytes().startswith(b"SQLite format 3\x00")

    for doc in page.evaluate("() => window.readingroom.documents()"):
        assert page.evaluate("(id) => window.readingroom.deleteDocument(id)", doc["id"])["deleted"]
    assert page.evaluate("() => window.readingroom.status()")["documents"] == 0

    page.set_input_files("#index-input", str(saved))
    wait_until(page, "async () => (await window.readingroom.status()).documents === 2", 120)
    page.wait_for_function("() => document.querySelectorAll('#document-list .doc-row').length === 2", timeout=WAIT_MS)
    names = sorted(d["name"] for d in page.evaluate("() => window.readingroom.documents()"))
    assert names == ["bike.md", "kettle.md"]
    after = page.evaluate("() => window.readingroom.query('how often is the chain oiled')")
    top = lambda r: [(s["doc_name"], s["chunk_ids"], s["text"]) for s in r["results"][:3]]  # noqa: E731
    assert top(after) == top(before)


def test_a_written_answer_streams_and_its_unsupported_sentence_is_folded_away(browser, site, guard):
    """A server writes the answer (a stand-in speaking the OpenAI protocol on 127.0.0.1): it
    starts by itself, its [n] are buttons, and the sentence no source says is folded away by Python's check."""
    server = StandInChat("Descale the kettle every month with white vinegar [1]. "
                        "Racing cars change their tyres every lap [1].")
    guard.origins.add(server.url)
    settings = {"transport": "openai", "baseUrl": f"{server.url}/v1", "model": "m", "temperature": 0,
                "maxTokens": 64, "grounded": True}
    ctx = browser.new_context(viewport=DESKTOP)
    ctx.route("**/*", guard.route)
    ctx.add_init_script("((s) => localStorage.setItem('readingroom.chat.settings.v2', JSON.stringify(s)))(%s);"
                        % json.dumps(settings))
    try:
        pg = ctx.new_page()
        pg.goto(f"{site}/")
        wait_ready(pg)
        add(pg, [KETTLE, BIKE])
        t = ask(pg, "How often should I descale the kettle?")
        assert t["state"] == "done", t
        card = pg.locator("#chat-1")
        answer = card.locator(".chat-answer")
        assert "white vinegar" in answer.inner_text() and "Racing cars" not in answer.inner_text()
        assert answer.locator(".chat-cite").count() == 1 and answer.locator(".draft").count() == 0
        fold = card.locator(".unsupported-fold")  # the unsupported sentence is not shown as an answer
        assert fold.locator("summary").inner_text() == "The model also wrote 1 sentence not supported by your documents"
        assert not fold.evaluate("d => d.open") and "Racing cars" in fold.locator(".unsupported").text_content()
        shot(pg, "page-written-answer-desktop")
        sent = [r for r in server.requests if r["method"] == "POST"]
        assert len(sent) == 1 and "white vinegar" in sent[0]["body"]  # Python's messages, with the passage
    finally:
        ctx.close()
        server.close()
