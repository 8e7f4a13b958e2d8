"""Every format dropped into the page (one page for the module): the same chunks as the native
side, a question only each file answers, the place its citation names; bad files refused with
their typed reason and nothing stored; a PDF read by pdf.js cleaned like pypdf's."""

from __future__ import annotations

import pytest

import formats
import formats_extra
from conftest import OriginGuard
from pages import open_app, wait_until
from readingroom import NewDocument
from readingroom.ingest.chunking import ChunkSettings
from readingroom.ingest.add import prepare

GOOD = formats.good_files()
DROP = """(names) => document.getElementById('activity').textContent.startsWith('Documents:')"""


@pytest.fixture(scope="module")
def shared(browser, site):
    guard = OriginGuard(site)
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    ctx.route("**/*", guard.route)
    ctx.on("request", guard.on_request)
    pg = ctx.new_page()
    pg.guard = guard
    open_app(pg, site)
    yield pg
    ctx.close()
    assert guard.offending == [], f"requests left the origin: {guard.offending}"


def _drop(pg, files):
    pg.set_input_files("#file-input", [{"name": n, "mimeType": "application/octet-stream", "buffer": b}
                                        for n, b in files])
    wait_until(pg, DROP, 600)


def _chunks_of(pg, name: str, words: str) -> list[dict]:
    """Every chunk of a document, in order: the neighbours of one that holds ``words``."""
    return pg.evaluate("""async ([name, words]) => {
        const r = await window.readingroom.query(words, {mode: 'lexical', k: 1, filters: {doc_names: [name]}});
        const id = r.evidence[0].chunk_id;
        return (await window.readingroom.neighbours(id, 100000, 100000)).chunks;
    }""", [name, words])


def test_every_format_in_the_page_reads_as_natively_and_answers_with_its_place(shared):
    pg = shared
    _drop(pg, [(name, data) for name, data, *_ in GOOD] + [("photo.bin", b"\x00\x01")])
    shown = pg.inner_text("#file-messages")
    assert "photo.bin: .bin files are not read (Reading Room reads" in shown, shown
    names = {d["name"] for d in pg.evaluate("() => window.readingroom.documents()")}
    assert names == {g[0] for g in GOOD}
    # Office, OpenDocument, EPUB and RTF need nothing beyond the start-up's files; OCR's stay unloaded.
    assert not [u for u in pg.guard.requests if "/vendor/ocr/" in u]
    for name, data, question, phrase, place in GOOD:
        _t, _text, native = prepare(NewDocument(name, data=data), ChunkSettings())
        in_page = _chunks_of(pg, name, phrase)
        assert [(c["text"], c["heading_path"]) for c in in_page] == [
            (c.text, list(c.heading_path)) for c in native], name
        r = pg.evaluate("(q) => window.readingroom.query(q, {k: 3})", question)
        top = r["results"][0]
        assert (top["doc_name"], phrase in top["text"]) == (name, True), (question, top["doc_name"])
        assert top["place"].startswith(place), top["place"]
    # A fact in a sheet is answered by its row, quoted under the sheet's header row.
    n = pg.locator("#chat-log .chat-turn").count() + 1
    pg.check("#mode-ask")
    pg.fill("#query", "Who manages Atlantis?")
    pg.press("#query", "Enter")
    pg.wait_for_function("(id) => ['answered', 'done', 'stopped', 'interrupted', 'error'].includes(document.getElementById(id)?.dataset.state)",
                         arg=f"chat-{n}", timeout=120_000)
    card = pg.evaluate("""(id) => {
        const t = document.getElementById(id);
        const all = (s) => [...t.querySelectorAll(s)].map((n) => n.textContent);
        const cells = (row) => [...row.querySelectorAll('th, td')].map((c) => c.textContent);
        return {head: [...t.querySelectorAll('.quick table .quick-table-head')].map(cells),
                row: [...t.querySelectorAll('.quick table .quick-row')].map(cells),
                cites: all('.quick .quick-row .chat-cite')};
    }""", f"chat-{n}")
    # a real table: the sheet's header cells over the row's, the row's [n] in a last column
    assert card["head"][0] == ["Region", "Manager", "Revenue", "Source"], card
    assert card["row"][0] == ["Atlantis", "Captain Nemo", "777777", f"[{card['cites'][0]}]"] and card["cites"], card
    # Exported, the row stays a Markdown table under its header row, its [n] in a Source column.
    with pg.expect_download() as info:
        pg.click("#export-conversation")
    lines = open(info.value.path(), encoding="utf-8").read().splitlines()
    at = lines.index("| Region | Manager | Revenue | Source |")
    assert lines[at + 1] == "| --- | --- | --- | --- |", lines
    assert lines[at + 2] == f"| Atlantis | Captain Nemo | 777777 | [{card['cites'][0]}] |", lines


def test_bad_files_in_the_page_get_their_typed_reason_and_nothing_is_stored(shared):
    pg = shared
    before = pg.evaluate("() => window.readingroom.status()")["documents"]
    for name, make, kind, phrase in formats.BAD:
        report = pg.evaluate("""async ([name, b64]) => window.readingroom.addDocuments(
            [new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name)])""",
                             [name, __import__("base64").b64encode(make()).decode()])
        rows = report.get("rejected_files", []) + report.get("documents", [])
        [got] = [r for r in rows if r["name"] == name]
        if kind is None:
            assert got["status"] == "added", got
            pg.evaluate("(id) => window.readingroom.deleteDocument(id)", got["doc_id"])
            continue
        err = got.get("error") or got
        assert (err["type"], phrase in err["message"]) == (kind, True), (name, got)
    assert pg.evaluate("() => window.readingroom.status()")["documents"] == before


def test_a_pdf_read_by_pdfjs_is_cleaned_and_titled_by_its_outline(shared):
    pg = shared
    data = formats.report_pdf(two_column=True)
    _drop(pg, [("guide.pdf", data)])
    chunks = _chunks_of(pg, "guide.pdf", "puffins")
    text = "\n".join(c["text"] for c in chunks)
    assert "Field Guide to Northern Birds" not in text and "Page " not in text
    assert "differ-" not in text and text.count("differences") == 5
    assert [c["heading_path"] for c in chunks][:5] == [[f"{n} {b}"] for n, b in enumerate(
        ["Owls", "Gulls", "Puffins", "Terns", "Ravens"], 1)]
    assert text.index("RIGHTCOLUMN") > text.rindex("Waders")
    _t, _text, native = prepare(NewDocument("guide.pdf", data=data), ChunkSettings())
    assert [" ".join(c["text"].split()) for c in chunks] == [" ".join(c.text.split()) for c in native]


def test_a_pdf_without_an_outline_is_titled_by_font_size_in_the_page_as_natively(shared):
    pg = shared
    data = formats_extra.headed_pdf()
    _drop(pg, [("survey.pdf", data)])
    chunks = _chunks_of(pg, "survey.pdf", "burrows")
    _t, _text, native = prepare(NewDocument("survey.pdf", data=data), ChunkSettings())
    assert [c["heading_path"][-1] for c in chunks] == ["Coastal Birds Survey", "Gulls and terns", "Nesting sites",
                                                       "Puffins", "Burrows"]
    assert [(" ".join(c["text"].split()), c["heading_path"]) for c in chunks] == [
        (" ".join(c.text.split()), list(c.heading_path)) for c in native]
    # a heading wrapped onto two lines is one title in pdf.js's runs too
    data = formats_extra.wrapped_heading_pdf()
    _drop(pg, [("storms.pdf", data)])
    chunks = _chunks_of(pg, "storms.pdf", "cliffs")
    assert [c["heading_path"] for c in chunks] == [["Effects of winter storms on the nesting colonies"], ["Counts"]]


def test_scans_and_pictures_are_read_by_ocr_in_the_page(shared):
    pg = shared
    _drop(pg, [("scan.pdf", formats_extra.scan_pdf()), ("bakery.png", formats_extra.scan_png(formats_extra.PICTURE_LINES))])
    shown = pg.inner_text("#file-messages")
    assert "scan.pdf: page 3 has no text (OCR found no words)" in shown, shown
    r = pg.evaluate("(q) => window.readingroom.query(q, {k: 3})", "Who repaired the waterwheel?")
    top = r["results"][0]
    assert ("Klinkhammer" in top["text"], top["place"]) == (True, "scan.pdf · page 2 (OCR)"), top
    r = pg.evaluate("(q) => window.readingroom.query(q, {k: 3})", "Who ordered rye flour?")
    top = r["results"][0]
    assert ("Pfannkuchen" in top["text"], top["place"]) == (True, "bakery.png · page 1 (OCR)"), top
    assert [c["page"] for c in _chunks_of(pg, "scan.pdf", "cover letter")] == [1, 2]


def test_a_million_cell_sheet_in_the_page_is_added_capped_with_its_note(shared):
    from readingroom.extract.sheets import MAX_CELLS

    pg = shared
    data = formats_extra.formatted_million_cells()
    _drop(pg, [("ledger.xlsx", data)])
    shown = pg.inner_text("#file-messages")
    assert f"ledger.xlsx has more than {MAX_CELLS:,} cells; only the first {MAX_CELLS:,} were read" in shown, shown
    _t, _text, native = prepare(NewDocument("ledger.xlsx", data=data), ChunkSettings())
    assert [c["text"] for c in _chunks_of(pg, "ledger.xlsx", "feverfew")] == [c.text for c in native]


def _picture(lines: list[str], fmt: str) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.open(io.BytesIO(formats_extra.scan_png(lines))).save(buf, fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return buf.getvalue()


def test_jpeg_and_tiff_pictures_are_read_by_ocr_in_the_page_with_progress(shared):
    # Names without "g", "Q" or "y": tesseract.js's best_int model reads this font's "g" as "a",
    # "Q" as "O" and "y" as "v" in some words ("Brandenburaer") where tesseract natively does not.
    pg = shared
    pg.evaluate("""() => {
        window.__ocrSteps = [];
        const el = document.getElementById('ingest-chunks-text');
        new MutationObserver(() => window.__ocrSteps.push(el.textContent))
            .observe(el, {childList: true, characterData: true, subtree: true});
    }""")
    _drop(pg, [("receipt.jpg", _picture(["Receipt from the harbour chandlery", "Ottilie Brandenbusch bought two brass lanterns."], "JPEG")),
               ("letter.tiff", _picture(["Letter from the lighthouse board", "Wendelin Rautenstrauch will paint the tower in March."], "TIFF"))])
    steps = pg.evaluate("() => window.__ocrSteps")
    for name in ("receipt.jpg", "letter.tiff"):
        assert f"Reading text in {name} (OCR): page 1 of 1" in steps, steps
    for question, word, place in (("Who bought brass lanterns?", "Brandenbusch", "receipt.jpg · page 1 (OCR)"),
                                  ("Who will paint the tower?", "Rautenstrauch", "letter.tiff · page 1 (OCR)")):
        top = pg.evaluate("(q) => window.readingroom.query(q, {k: 3})", question)["results"][0]
        assert (word in top["text"], top["place"]) == (True, place), (top["text"], top["place"])


def test_an_ocr_language_file_that_fails_its_hash_is_refused_in_the_page(page):
    # On the context: the service worker fetches for the page, and only context routes see its requests.
    page.context.route("**/vendor/ocr/eng.traineddata.gz", lambda route: route.fulfill(body=b"not the model"))
    report = page.evaluate("""async (b64) => window.readingroom.addDocuments(
        [new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'bakery.png')])""",
                           __import__("base64").b64encode(formats_extra.scan_png(formats_extra.PICTURE_LINES)).decode())
    [got] = report.get("rejected_files") or [report]
    assert got["type"] == "ocr_model" and "eng.traineddata.gz fails its check" in got["message"], got
    assert page.evaluate("() => window.readingroom.status()")["documents"] == 0


def test_ocr_files_are_kept_for_offline_use(page, context):
    from pages import wait_ready

    add = """async ([name, b64]) => window.readingroom.addDocuments(
        [new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name)])"""
    b64 = __import__("base64").b64encode(formats_extra.scan_png(formats_extra.PICTURE_LINES)).decode()
    wait_until(page, "async () => (await window.readingroom.status()).offlineReady === true", 120)
    assert page.evaluate(add, ["first.png", b64])["documents"][0]["status"] == "added"
    context.set_offline(True)
    page.reload()
    wait_ready(page)
    [again] = page.evaluate(add, ["second.png", b64])["documents"]  # a fresh worker, files from the cache
    assert again["status"] == "added", again


def test_cancel_while_ocr_reads_stores_nothing_of_those_files(page):
    pictures = [(f"page-{n}.png", formats_extra.scan_png([f"Page {n} of the ledger, line {k}." for k in range(30)], a4=True))
                for n in range(3)]
    page.evaluate("""(files) => { window.__adding = window.readingroom.addDocuments(files.map(([name, b64]) =>
        new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name))); }""",
                  [[n, __import__("base64").b64encode(b).decode()] for n, b in pictures])
    wait_until(page, "() => document.getElementById('ingest-chunks-text').textContent.startsWith('Reading text in page-0.png (OCR)')", 120)
    page.evaluate("() => window.readingroom.cancelIngest()")
    report = page.evaluate("() => window.__adding")
    assert {r["name"]: r["type"] for r in report["rejected_files"]} == {n: "cancelled" for n, _ in pictures}
    assert page.evaluate("() => window.readingroom.status()")["documents"] == 0


def test_the_page_takes_the_file_types_python_reads_and_says_the_same_of_the_others(shared):
    """The page's file-type gate (web/api/files.js) and its file picker are Python's table
    (extract.FORMATS), and its advice for a format another program can save (.doc, .xls) is
    extract.OLDER's."""
    from readingroom.extract import FORMATS, OLDER

    got = shared.evaluate("""async () => {
        const m = await import('./api/files.js');
        return {types: m.TYPES, older: m.OLDER, accept: document.getElementById('file-input').accept};
    }""")
    assert got["types"] == FORMATS
    assert got["older"] == {ext: list(pair) for ext, pair in OLDER.items()}
    assert sorted(got["accept"].split(",")) == sorted(f".{ext}" for ext in FORMATS)
