"""The app in headless Chromium: start-up, ingestion, meaning search, persistence, offline."""

from __future__ import annotations

import numpy as np
import pytest

from pages import screenshot, wait_ready, wait_until
from contract import BREAD, CORPUS, GENETICS
from driver import BrowserDriver


def test_starts_up_to_ready_with_opfs_storage(page):
    status = page.evaluate("() => window.readingroom.status()")
    assert status["state"] == "ready"
    assert status["storage"] == "opfs"
    assert status["model"] == {"id": "sentence-transformers/all-MiniLM-L6-v2", "dim": 384}
    assert (status["documents"], status["chunks"]) == (0, 0)
    assert page.locator("body").get_attribute("data-phase") == "ready"
    screenshot(page, "ready")


def test_ingest_two_documents_and_find_by_meaning(page):
    d = BrowserDriver(page)
    report = d.add([GENETICS, BREAD])
    assert [o["status"] for o in report["documents"]] == ["added", "added"]
    r = d.query("breast cancer gene")
    assert r["reason"] is None
    top = r["results"][0]
    assert top["doc_name"] == "genetics.md" and "BRCA1 mutation analysis" in top["text"]
    # The query shares no word with the passage: only the vector leg can have found it.
    assert r["evidence"][0]["lexical_rank"] is None and r["evidence"][0]["vector_rank"] == 1
    page.check("#mode-search")
    page.fill("#query", "breast cancer gene")
    page.click("#query-form button[type=submit]")
    page.wait_for_selector("text=genetics.md")
    screenshot(page, "results")


def test_files_through_the_picker_and_bad_files_get_messages(page):
    page.set_input_files("#file-input", files=[
        {"name": "notes.md", "mimeType": "text/markdown", "buffer": b"# Notes\n\nThe kettle is descaled monthly."},
        {"name": "latin1.txt", "mimeType": "text/plain", "buffer": b"caf\xe9 au lait"},
        {"name": "empty.txt", "mimeType": "text/plain", "buffer": b""},
    ])
    wait_until(page, "async () => (await window.readingroom.status()).documents === 2")
    wait_until(page, "() => document.getElementById('file-messages').textContent.includes('latin1.txt')")
    body = page.locator("body").inner_text()
    assert "latin1.txt is not UTF-8; it was read as Windows-1252" in body  # read, and says how
    assert "empty.txt" in body
    screenshot(page, "file-errors")


def test_reload_keeps_the_data_in_opfs(page, site):
    BrowserDriver(page).add(CORPUS)
    page.reload()
    status = wait_ready(page)
    assert status["documents"] == 3 and status["storage"] == "opfs"
    assert BrowserDriver(page).query("E4711")["results"][0]["doc_name"] == "device.txt"


def test_reload_offline_still_answers(page, context, site):
    BrowserDriver(page).add(CORPUS)
    wait_until(page, "async () => (await window.readingroom.status()).offlineReady === true", 120)
    context.set_offline(True)
    page.reload()
    status = wait_ready(page)
    assert status["documents"] == 3
    r = BrowserDriver(page).query("breast cancer gene")
    assert r["results"][0]["doc_name"] == "genetics.md"
    screenshot(page, "offline")


EMBED_TEXTS = [
    "breast cancer gene",
    "What does the E4711 error code mean?",
    "BRCA1 mutation analysis in families with hereditary ovarian tumours.",
    "Sourdough needs a long, cold proof.",
    # Longer than 256 tokens: both sides must truncate at the same place.
    " ".join(f"Observation {i}: the mitochondrial membrane potential decreased markedly." for i in range(60)),
]


def test_native_and_browser_embeddings_agree(page, embedder):
    from helpers import run

    browser = np.asarray(BrowserDriver(page).embed(EMBED_TEXTS), dtype=np.float64)
    native = run(embedder.embed(EMBED_TEXTS)).astype(np.float64)
    assert browser.shape == native.shape == (len(EMBED_TEXTS), 384)
    cos = (browser * native).sum(axis=1) / (np.linalg.norm(browser, axis=1) * np.linalg.norm(native, axis=1))
    assert cos.min() >= 0.99999, cos


def test_a_newer_query_cancels_older_ones_in_flight(page):
    BrowserDriver(page).add(CORPUS)
    results = page.evaluate("""async () => {
        const rr = window.readingroom;
        const pending = ['bread', 'fan', 'gene', 'crust', 'breast cancer gene'].map((q) => rr.query(q));
        return Promise.all(pending);
    }""")
    *older, last = results
    assert last["reason"] is None and last["results"][0]["doc_name"] == "genetics.md"
    assert [r.get("error", {}).get("type") for r in older] == ["cancelled"] * 4
