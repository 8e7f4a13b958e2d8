"""Whole-document answers in the page (headless Chromium): the Summarise action on a source
row and in the Reader, the outline with [n] opening the Reader at the quoted sentence,
``window.readingroom.summarise`` (a comparison, bad input as reasons), and a comparison asked
in words. Markup in a document stays text."""

from __future__ import annotations

from test_ui import add_files

WAIT_MS = 120_000

BIRDS = b"""# Owls

Owls hunt at night and sleep during the day in hollow trees. Their soft feathers let them fly
without a sound. Barn owls eat mice and voles, and a pair needs thousands a year.

## Nests

Most owls do not build nests; they take over the old nests of crows. Eggs are laid a few days
apart, so the chicks differ in size. The note says <b>never</b> disturb a nest in spring.

# Feeders

A bird feeder costs about twenty pounds and needs cleaning every week. Seed mixes with millet
attract sparrows rather than finches.
"""

GARDEN = b"""# Garden birds

Sparrows and finches visit feeders all year, and a clean feeder keeps disease away. Owls are
rarely seen in town gardens because they hunt over open fields at night. Robins sing in winter
to hold their ground.
"""


def turns_with_summary(page):
    return page.locator("#chat-log .chat-turn .summary")


def test_summarise_action_outline_and_reader(page):
    add_files(page, [{"name": "birds.md", "mimeType": "text/markdown", "buffer": BIRDS},
                     {"name": "garden.md", "mimeType": "text/markdown", "buffer": GARDEN}], expect_documents=2)
    page.click("#document-list .doc-row[data-name='birds.md'] button.summarise")
    turns_with_summary(page).first.wait_for(timeout=WAIT_MS)
    block = page.locator("#chat-log .summary-block").first
    assert block.locator(".summary-doc").inner_text() == "birds.md"
    heads = block.locator(".summary-heading").all_inner_texts()
    assert heads and heads[0].startswith("Owls")
    points = block.locator(".summary-point .summary-text").all_inner_texts()
    assert points and all(" ".join(p.split()) in " ".join(BIRDS.decode().split()) for p in points)
    # markup in a document is text, never elements
    assert page.locator("#chat-log .summary b").count() == 0
    # [1] opens the Reader at the quoted sentence
    page.locator("#chat-log .summary-point >> nth=0").locator("button.chat-cite").click()
    page.locator("#reader").wait_for(state="visible")
    assert page.locator("#reader .reader-title").inner_text() == "birds.md"
    assert " ".join(page.locator("#reader .sentence").inner_text().split()) == " ".join(points[0].split())
    # the Reader's own Summarise action summarises the document it shows
    page.click("#reader-summarise")
    page.wait_for_function("() => document.querySelectorAll('#chat-log .summary').length === 2", timeout=WAIT_MS)


def test_summarise_api_comparison_and_bad_input(page):
    add_files(page, [{"name": "birds.md", "mimeType": "text/markdown", "buffer": BIRDS},
                     {"name": "garden.md", "mimeType": "text/markdown", "buffer": GARDEN}], expect_documents=2)
    out = page.evaluate("""async () => {
        const docs = await window.readingroom.documents();
        const id = (n) => docs.find((d) => d.name === n).id;
        const rr = window.readingroom;
        return {
          one: await rr.summarise([id('birds.md')]),
          cmp: await rr.summarise([id('birds.md'), id('garden.md')], {kind: 'compare'}),
          same: await rr.summarise([id('birds.md'), id('birds.md')], {kind: 'compare'}),
          missing: await rr.summarise([987654]),
          bad: await rr.summarise(['x']),
        };
    }""")
    assert out["one"]["kind"] == "summary" and out["one"]["summary"]["points"] >= 3
    assert out["one"]["results"][0]["doc_name"] == "birds.md"
    c = out["cmp"]["summary"]["comparison"]
    assert c["similarity"] == "meaning" and set(c) >= {"pairs", "only_a", "only_b"}
    assert out["same"]["reason"] == "same_document"
    assert "not in the library" in out["missing"]["message"]
    assert out["bad"]["error"]["type"] == "bad_input"


def test_comparison_asked_in_words_is_shown_side_by_side(page):
    add_files(page, [{"name": "birds.md", "mimeType": "text/markdown", "buffer": BIRDS},
                     {"name": "garden.md", "mimeType": "text/markdown", "buffer": GARDEN}], expect_documents=2)
    page.check("#mode-ask")
    page.fill("#query", "Compare birds.md and garden.md")
    page.click("#query-button")
    page.locator("#chat-log .summary[data-kind='compare']").wait_for(timeout=WAIT_MS)
    assert page.locator("#chat-log .summary-only").count() == 2
    assert "compare of: birds.md, garden.md" in page.locator("#chat-log .searched-for").inner_text()
    # the debug view says what was decided, on its own line: kind, documents, why
    route = page.locator("#chat-log .chat-turn .answer-route").first.text_content()
    assert route.startswith("route: compare · documents: birds.md, garden.md · why: named in the question"), route
    assert "searched for: compare of: birds.md, garden.md" in page.locator("#chat-log .answer-why").first.text_content()


def test_debug_view_says_a_plain_question_went_to_passages(page):
    add_files(page, [{"name": "birds.md", "mimeType": "text/markdown", "buffer": BIRDS}], expect_documents=1)
    page.check("#mode-ask")
    page.fill("#query", "What do barn owls eat?")
    page.click("#query-button")
    page.locator("#chat-log .chat-turn .answer-route").first.wait_for(state="attached", timeout=WAIT_MS)
    page.wait_for_function("() => document.querySelector('#chat-log .answer-route')?.textContent.startsWith('route:')",
                           timeout=WAIT_MS)
    assert page.locator("#chat-log .answer-route").first.text_content() == \
        "route: passages · the question asks no summary or comparison"


def test_a_spreadsheet_is_summarised_by_its_table(page):
    """A CSV has no sentence to quote: Summarise shows its header row and how many rows it has,
    and [1] opens the Reader at that header row (before: "holds no sentence to quote")."""
    csv = b"city,river,population\n" + b"".join(b"City %d,River %d,%d\n" % (n, n, n * 100) for n in range(1, 41))
    add_files(page, [{"name": "cities.csv", "mimeType": "text/csv", "buffer": csv}], expect_documents=1)
    page.click("#document-list .doc-row[data-name='cities.csv'] button.summarise")
    turns_with_summary(page).first.wait_for(timeout=WAIT_MS)
    block = page.locator("#chat-log .summary-block").first
    assert block.locator(".summary-note").count() == 0
    assert block.locator(".summary-table .summary-text").all_inner_texts() == ["| city | river | population |"]
    assert block.locator(".summary-table .summary-rows").all_inner_texts() == [" (40 rows)"]
    block.locator(".summary-point button.chat-cite").first.click()
    page.locator("#reader").wait_for(state="visible")
    assert page.locator("#reader .sentence").inner_text().strip() == "| city | river | population |"
