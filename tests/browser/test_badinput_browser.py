"""The bad-input corpus (tests/badinput.py) through the app: dropped as files into the page,
then sent as queries and options. Each case gets its exact outcome and a message the user
sees, and the library the user already had is unchanged after every one of them."""

from __future__ import annotations

import base64

import pytest

import badinput
from pages import screenshot, wait_until

SEED = [{"name": "seed-tea.txt", "text": "Green tea is steamed; black tea is oxidised."},
        {"name": "seed-coffee.md", "text": "# Coffee\n\nEspresso is brewed under pressure."}]

_ADD_FILES = """
async (files) => {
  const made = files.map(([name, b64]) => new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
  return window.readingroom.addDocuments(made);
}
"""


def _expected(case):
    case_id, kwargs, status, error_type, message = case
    if case_id in badinput.BROWSER_OUTCOMES:
        return ("error", *badinput.BROWSER_OUTCOMES[case_id])
    return status, error_type, message


def _outcomes(report: dict) -> dict[str, dict]:
    """name -> {status, type, message} for files refused by the page and by Python alike."""
    out = {r["name"]: {"status": "error", "type": r["type"], "message": r["message"]}
           for r in report.get("rejected_files", [])}
    for d in report.get("documents", []):
        err = d.get("error") or {}
        out[d["name"]] = {"status": d["status"], "type": err.get("type"), "message": err.get("message")}
    return out


@pytest.fixture(scope="module")
def files():
    return [(c[1]["name"], badinput.case_bytes(c[0], c[1])) for c in badinput.DOCUMENTS]


def test_bad_files_dropped_on_the_page_get_their_message(page, files):
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)", SEED)
    before = page.evaluate("() => window.readingroom.status()")
    page.set_input_files("#file-input", [{"name": n, "mimeType": "application/octet-stream", "buffer": b}
                                          for n, b in files])
    wait_until(page, "() => document.getElementById('activity').textContent.startsWith('Documents:')", 600)
    shown = page.inner_text("#file-messages")
    screenshot(page, "bad-inputs-dropped")
    for case in badinput.DOCUMENTS:
        status, _type, message = _expected(case)
        if status == "error" and message:
            assert message in shown, f"{case[0]}: {message!r} not shown in {shown!r}"
    added = [c for c in badinput.DOCUMENTS if _expected(c)[0] == "added"]
    after = page.evaluate("() => window.readingroom.status()")
    assert after["documents"] == before["documents"] + len(added)
    names = {d["name"] for d in page.evaluate("() => window.readingroom.documents()")}
    assert names == {d["name"] for d in SEED} | {c[1]["name"] for c in added}
    # The page renders the payload document as text: no element came from it.
    assert page.evaluate("() => document.querySelectorAll('img[src=x], script:not([type=module]):not([src])').length") == 0


def test_each_bad_file_gets_its_typed_outcome_and_the_library_is_intact(page, files):
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)", SEED)
    for case, (name, data) in zip(badinput.DOCUMENTS, files):
        before = page.evaluate("() => window.readingroom.status()")
        report = page.evaluate(_ADD_FILES, [[name, base64.b64encode(data).decode()]])
        got = _outcomes(report)[name]
        status, error_type, message = _expected(case)
        assert got["status"] == status, (case[0], got)
        after = page.evaluate("() => window.readingroom.status()")
        if status == "error":
            assert got["type"] == error_type, (case[0], got)
            if message:
                assert message in got["message"], (case[0], got)
            assert (after["documents"], after["chunks"]) == (before["documents"], before["chunks"])
        else:
            assert after["documents"] == before["documents"] + 1
    # Still a working library: the seed answers, the odd texts are searchable.
    r = page.evaluate("() => window.readingroom.query('green tea', {mode: 'lexical'})")
    assert r["results"][0]["doc_name"] == "seed-tea.txt"
    r = page.evaluate("() => window.readingroom.query('المكتبات', {mode: 'lexical'})")
    assert r["results"][0]["doc_name"] == "rtl.txt"


@pytest.fixture
def seeded(page):
    page.evaluate("(docs) => window.readingroom.addDocuments(docs)", SEED)
    return page


def test_bad_queries_in_the_page(seeded):
    before = seeded.evaluate("() => window.readingroom.status()")
    for case_id, text, reason in badinput.QUERIES:
        r = seeded.evaluate("(t) => window.readingroom.query(t)", text)
        assert "error" not in r, (case_id, r)
        assert r["reason"] == reason, (case_id, r["reason"])
        if case_id in ("100kb", "control-chars", "unbalanced-quote", "near", "minus", "caret", "parens",
                       "close-paren", "braces"):
            assert r["results"] and r["results"][0]["doc_name"] == "seed-tea.txt", case_id
    # Typed into the search box, FTS syntax and markup are searched for, never run.
    seeded.check("#mode-search")
    seeded.fill("#query", '"NEAR( <img src=x onerror=window.__pwned=1> tea')
    seeded.press("#query", "Enter")
    wait_until(seeded, "() => document.querySelectorAll('#results .result').length > 0", 60)
    assert seeded.evaluate("() => window.__pwned === undefined")
    after = seeded.evaluate("() => window.readingroom.status()")
    assert (after["documents"], after["chunks"]) == (before["documents"], before["chunks"])


def test_bad_options_are_typed_errors_in_the_page(seeded):
    for options, message in badinput.BAD_OPTIONS:
        r = seeded.evaluate("(o) => window.readingroom.query('tea', o)", options)
        assert r.get("error", {}).get("type") == "bad_input", (options, r)
        assert message in r["error"]["message"], (options, r)


def test_an_empty_and_an_emptied_library_in_the_page_say_add_a_document(page):
    """The page's library with nothing in it, then with every document deleted: searches and
    a passage's context answer with reason no_documents and the sentence, never an error."""
    for state, _ in badinput.EMPTY_STATES:
        if state == "emptied":
            added = page.evaluate("(docs) => window.readingroom.addDocuments(docs)", SEED)
            for d in added["documents"]:
                page.evaluate("(id) => window.readingroom.deleteDocument(id)", d["doc_id"])
        status = page.evaluate("() => window.readingroom.status()")
        assert (status["documents"], status["chunks"], status["reason"]) == (0, 0, "no_documents"), state
        for mode in ("hybrid", "vector", "lexical"):
            r = page.evaluate("(m) => window.readingroom.query('green tea', {mode: m})", mode)
            assert "error" not in r, (state, r)
            assert r["reason"] == "no_documents" and r["results"] == [], (state, mode)
            assert r["message"].startswith("Add a document first"), (state, r["message"])
        n = page.evaluate("() => window.readingroom.neighbours(1, 2, 2)")
        assert n["chunks"] == [] and n["reason"] == "no_documents", (state, n)
        page.fill("#query", "green tea")
        page.press("#query", "Enter")
        wait_until(page, "() => (document.body.innerText || '').includes('Add a document first')", 60)
        screenshot(page, f"empty-library-{state}")
