"""Library-wide operations in the page: re-index after a model change, a bundled set that a
new version replaces without touching the user's documents, and a passage in its context."""

from __future__ import annotations

import os
import shutil

import pytest

from helpers import OtherModel, run
from pages import screenshot, wait_until
from readingroom import Library, NewDocument

NOTES = [NewDocument("bread.txt", text="How to bake sourdough bread with a crisp crust: flour, water, salt."),
         NewDocument("fan.txt", text="The device reports error code E4711 when the fan stalls.")]


@pytest.fixture
def publish():
    """Copies a file into the served dist/ for the duration of a test; returns its URL path."""
    import build

    made = []

    def put(path):
        target = build.EMPTY_DIST / f"test-{os.getpid()}-{path.name}"
        shutil.copyfile(path, target)
        made.append(target)
        return target.name

    yield put
    for target in made:
        target.unlink(missing_ok=True)


def _index(path, docs, embedder):
    lib = Library.open(path, embedder=embedder)
    run(lib.add(docs))
    lib.close()
    return path


def test_reindex_after_a_model_change_from_the_mismatch_banner(page, tmp_path, publish):
    url = publish(_index(tmp_path / "other.sqlite", NOTES, OtherModel("someone/else-v2")))
    status = page.evaluate("(u) => window.readingroom.importIndex(u)", url)
    assert "someone/else-v2" in status["mismatch"]
    r = page.evaluate("() => window.readingroom.query('baking a loaf')")
    assert r["reason"] == "model_mismatch"  # words still work meanwhile
    page.get_by_role("button", name="Re-index").first.click()
    wait_until(page, "async () => (await window.readingroom.status()).mismatch === null", 300)
    screenshot(page, "reindexed")
    status = page.evaluate("() => window.readingroom.status()")
    assert (status["documents"], status["chunks"]) == (2, 2)
    r = page.evaluate("() => window.readingroom.query('baking a loaf', {mode: 'vector'})")
    assert r["reason"] is None and r["results"][0]["doc_name"] == "bread.txt"


def test_a_new_bundle_version_replaces_the_bundled_set_and_keeps_the_users(page, tmp_path, publish, embedder):
    v1 = publish(_index(tmp_path / "v1.sqlite", NOTES, embedder))
    v2 = publish(_index(tmp_path / "v2.sqlite", [
        NewDocument("bread.txt", text="Rye bread needs a long, slow proof and a hot oven."),
        NewDocument("cocoa.txt", text="Cocoa beans are fermented, dried and roasted.")], embedder))
    out = page.evaluate("(u) => window.readingroom.importIndex(u, {asBundle: 'v1'})", v1)
    assert out["bundle_version"] == "v1" and out["documents"] == 2
    page.evaluate("(d) => window.readingroom.addDocuments(d)",
                  [{"name": "my-notes.md", "text": "# Garden\n\nTomatoes need sun and regular watering."}])
    out = page.evaluate("(u) => window.readingroom.importIndex(u, {asBundle: 'v2'})", v2)
    assert out["bundle_version"] == "v2"
    names = {d["name"] for d in page.evaluate("() => window.readingroom.documents()")}
    assert names == {"my-notes.md", "bread.txt", "cocoa.txt"}
    r = page.evaluate("() => window.readingroom.query('E4711', {mode: 'lexical'})")
    assert r["results"] == []  # v1's fan.txt left with v1
    r = page.evaluate("() => window.readingroom.query('tomatoes in the sun')")
    assert r["results"][0]["doc_name"] == "my-notes.md"
    r = page.evaluate("() => window.readingroom.query('slow proof rye')")
    assert r["results"][0]["doc_name"] == "bread.txt" and "Rye" in r["results"][0]["text"]


def test_a_passage_in_its_document_context(page):
    text = "\n\n".join(f"Section {i}. " + (f"Notes on topic number {i}. " * 40) for i in range(5))
    page.evaluate("(d) => window.readingroom.addDocuments(d)", [{"name": "long.txt", "text": text}])
    r = page.evaluate("() => window.readingroom.query('topic number 2', {mode: 'lexical', k: 1})")
    cid = r["results"][0]["chunk_ids"][0]
    around = page.evaluate("(c) => window.readingroom.neighbours(c, 1, 1)", cid)
    ids = [c["chunk_id"] for c in around["chunks"]]
    assert cid in ids and ids == sorted(ids) and 2 <= len(ids) <= 3
    assert all(c["doc_name"] == "long.txt" for c in around["chunks"])
    # The reader shows a found passage with the document's text around it, even text this
    # search did not retrieve.
    page.check("#mode-search")
    page.fill("#query", "Section 2")
    page.press("#query", "Enter")
    page.locator("#results .result").first.wait_for()
    page.locator("#results .result").first.click()
    wait_until(page, "() => !!document.querySelector('#reader .context-before, #reader .context-after')", 60)
    reader = page.locator("#reader")
    around_text = " ".join(reader.locator(".context-before, .context-after").all_inner_texts())
    assert "topic number" in around_text and "text around it in its document" in reader.locator(".reader-note").inner_text()
