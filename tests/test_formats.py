"""Every format, natively: made by the library that writes it, read by ``extract``, added to a
real library and asked a question only that file answers; the bad inputs get their typed
refusal and leave nothing stored."""

from __future__ import annotations

import pytest

import formats
import formats_extra
from helpers import run
from readingroom import NewDocument
from readingroom.ingest.chunking import ChunkSettings
from readingroom.extract import extract
from readingroom.extract.document import split_rows, table_text
from readingroom.extract.sheets import MAX_CELLS
from readingroom.ingest.add import prepare_document
from readingroom.places import label
from readingroom.text import tokens

GOOD = formats.good_files()


@pytest.mark.parametrize("name,data,question,phrase,place", GOOD, ids=[g[0] for g in GOOD])
def test_each_format_keeps_the_fact_and_says_where_it_is(name, data, question, phrase, place):
    doc, _text, chunks = prepare_document(NewDocument(name, data=data), ChunkSettings())
    holding = [c for c in chunks if phrase in c.text]
    assert holding, [c.text for c in chunks]
    assert label(name, doc.doc_type, holding[0].heading_path, holding[0].page).startswith(place)


def test_a_question_only_each_file_answers_finds_that_file(library):
    outcomes = run(library.add([NewDocument(name, data=data) for name, data, *_ in GOOD]))
    assert [o.status for o in outcomes] == ["added"] * len(GOOD), [o.error for o in outcomes]
    for name, _data, question, phrase, place in GOOD:
        result = run(library.retrieve(question, {"k": 3}))
        top = result.results[0]
        assert (top.doc_name, phrase in top.text) == (name, True), (question, top.doc_name, top.text)
        assert top.to_dict()["place"].startswith(place)


def test_each_files_question_is_answered_by_the_sentence_or_table_row_that_holds_it(library):
    """The quick answer quotes the fact from every format: a sentence, or, from a sheet, a CSV
    or a Word table, the row that holds it (verbatim, its header row given above it)."""
    run(library.add([NewDocument(name, data=data) for name, data, *_ in GOOD]))
    for name, data, question, phrase, _place in GOOD:
        a = run(library.ask(question)).to_dict()
        assert a["covered"] and a["quick"], (question, a["reason"])
        top = a["quick"][0]
        _doc, text, _chunks = prepare_document(NewDocument(name, data=data), ChunkSettings())
        assert (top["doc_name"], phrase in top["text"]) == (name, True), (question, top)
        assert text[top["start"]:top["end"]] == top["text"]
        if top["header"]:  # a row: its own line, under the header row of its table
            assert top["text"].startswith("| ") and top["text"].endswith(" |") and "\n" not in top["text"]
            assert top["header"] + "\n|---" in text and top["header"].count("|") == top["text"].count("|")
    headed = [run(library.ask(q)).to_dict()["quick"][0]["header"] for n, _d, q, *_ in GOOD if n.endswith(("xlsx", "csv", "ods"))]
    assert headed == ["| Region | Manager | Revenue |", "| city | river | population |", "| Part | Count |"]


def test_structure_is_kept():
    docx = extract("report.docx", formats.docx_bytes())
    paths = [s.heading_path for s in docx.sections]
    assert paths == [("Annual report",), ("Annual report", "Costs"), ("Annual report", "Outlook")]
    costs = docx.sections[1].text
    assert "- Rent goes first" in costs and "1. Salaries come second" in costs
    assert "| Item | Amount |\n|---|---|\n| Printer toner | 120 EUR |" in costs
    assert costs.endswith("Comment: Check the toner price with Ingrid.")  # comments stay with their section
    deck = extract("deck.pptx", formats.pptx_bytes())
    assert [s.heading_path for s in deck.sections][:3] == [
        ("Slide 1: Welcome",), ("Slide 1: Welcome", "Speaker notes"), ("Slide 2: Budget",)]
    book = extract("book.epub", formats.epub_bytes())
    assert [s.heading_path[0] for s in book.sections] == ["The harbour", "The storm", "The lighthouse keeper"]
    rtf = extract("minutes.rtf", formats.rtf_bytes()).text()
    assert rtf == "Minutes of the meeting\n\nThe café opens at seven.\n\nThe treasurer is \u201cMs Okafor\u201d."


def test_a_long_sheet_is_cut_by_rows_with_its_header_in_every_piece():
    sheet = extract("budget.xlsx", formats.xlsx_bytes())
    pieces = [s for s in sheet.sections if s.heading_path[0] == "Sheet Q3"]
    assert len(pieces) > 1
    rows = []
    for s in pieces:
        lines = s.text.split("\n")
        assert lines[:2] == ["| Region | Manager | Revenue |", "|---|---|---|"]
        rows += lines[2:]
    assert rows == [f"| Region {n} | Manager {n} | {n * 1000} |" for n in range(1, 80)] + [
        "| Atlantis | Captain Nemo | 777777 |"]
    first, last = pieces[0].heading_path[1], pieces[-1].heading_path[1]
    assert first.startswith("Rows 2–") and last.endswith("–81")


def test_tables_in_markdown_and_html_are_whole_or_split_with_the_header():
    lines = ["| k | v |", "|---|---|"] + [f"| key {n} | value {n} |" for n in range(200)]
    costs = [tokens.estimate(line) for line in lines[2:]]
    text = table_text(lines, costs)
    pieces = text.split("\n\n")
    assert len(pieces) == len(split_rows(lines[:2], costs)) > 1
    assert all(p.startswith("| k | v |\n|---|---|\n") for p in pieces)
    assert [r for p in pieces for r in p.split("\n")[2:]] == lines[2:]
    small = "| a | b |\n|---|---|\n| 1 | 2 |"
    assert table_text(small.split("\n"), [tokens.estimate("| 1 | 2 |")]) == small
    md = extract("t.md", ("# Prices\n\n" + "\n".join(lines) + "\n").encode())
    assert md.text().count("| k | v |") == len(pieces)
    html = extract("t.html", b"<table><tr><th>k</th><th>v</th></tr>"
                   + b"".join(b"<tr><td>key %d</td><td>value %d</td></tr>" % (n, n) for n in range(200)) + b"</table>")
    assert html.text() == text


def test_a_web_pages_headings_are_its_heading_path_and_read_without_hashes(library):
    """<h1>–<h3> say where a passage is ("guide.html · Boats > Hire") and open their sections
    as the words the page shows: no "# Boats" line a person never wrote, in the stored text or
    in what search returns."""
    page = (b"<html><body><h2> </h2><h1>Boats</h1><p>The harbour has twelve moorings.</p><h2>Hire</h2>"
            b"<p>A rowing boat costs nine crowns an hour.</p><h3>Deposits</h3><p>Keep the receipt.</p>"
            b"<pre><code># a comment, not a heading\nprint(1)</code></pre></body></html>")
    doc = extract("guide.html", page)
    assert [(s.heading_path, s.text.split("\n")[0]) for s in doc.sections] == [
        (("Boats",), "Boats"), (("Boats", "Hire"), "Hire"), (("Boats", "Hire", "Deposits"), "Deposits")]
    assert "\n# a comment, not a heading\n" in doc.text() and "# Boats" not in doc.text()
    assert doc.text().startswith("Boats\n")  # an empty heading (a spacer) leaves no "#" behind
    [out] = run(library.add([NewDocument("guide.html", data=page)]))
    assert out.status == "added", out.error
    [hit] = run(library.retrieve("rowing boat per hour", {"mode": "lexical", "k": 1})).results
    assert ("Boats", "Hire") in hit.heading_paths and "Hire\n\nA rowing boat costs" in hit.text
    assert "# Boats" not in hit.text and "# Hire" not in hit.text


def test_a_huge_sheet_is_capped_with_a_message():
    doc = extract("big.xlsx", formats.xlsx_bytes(cells=MAX_CELLS * 5))
    assert doc.notes == [f"big.xlsx has more than {MAX_CELLS:,} cells; only the first {MAX_CELLS:,} were read"]
    # every cell holds its own number; a row of 100 is cut by columns, each piece led by column A
    cells = {c.strip() for s in doc.sections for line in s.text.split("\n") if not line.startswith("|---")
             for c in line.strip("|").split("|")}
    assert len(cells) == MAX_CELLS


def test_a_million_cell_sheet_is_added_capped_with_its_note(library):
    [outcome] = run(library.add([NewDocument("ledger.xlsx", data=formats_extra.formatted_million_cells())]))
    note = f"ledger.xlsx has more than {MAX_CELLS:,} cells; only the first {MAX_CELLS:,} were read"
    assert (outcome.status, list(outcome.notes)) == ("added", [note]), outcome
    r = run(library.retrieve("Who keeps harbour 7?", {"k": 3}))
    assert "Keeper Aldous Feverfew 7" in r.results[0].text


def test_a_dense_million_cell_sheet_cancelled_midway_keeps_its_words_and_the_rest_pending(library):
    """Words first: the capped sheet (some 10,000 passages) is stored by its words at once; a
    Cancel during its embedding keeps it, searchable by words, with the passages not embedded
    pending (each once), and says so."""
    data = formats.xlsx_bytes(cells=1_000_000)  # capped at MAX_CELLS: still some 10,000 passages
    batches = []
    [outcome] = run(library.add([NewDocument("big.xlsx", data=data)],
                                progress=lambda e: batches.append(e) if e.get("event") == "chunks" else None,
                                cancelled=lambda: len(batches) >= 2))
    assert outcome.status == "added" and batches and batches[-1]["done"] < batches[-1]["total"], outcome
    chunks = library.status()["chunks"]
    pending = library.index.store.query("SELECT count(*) FROM chunks WHERE NOT embedded")[0][0]
    vectors = library.index.store.query("SELECT count(*) FROM chunks_vec")[0][0]
    assert outcome.pending == pending and 0 < pending < chunks and vectors == chunks - pending
    assert any("embedded" in n or "meaning" in n.lower() for n in outcome.notes), outcome.notes
    assert [d.name for d in library.documents()] == ["big.xlsx"]
    assert run(library.retrieve("sheet", {"mode": "lexical", "k": 1})).results


@pytest.mark.parametrize("name,make,kind,phrase", formats.BAD, ids=[b[0] for b in formats.BAD])
def test_bad_inputs_are_refused_with_a_type_and_nothing_is_stored(library, name, make, kind, phrase):
    [outcome] = run(library.add([NewDocument(name, data=make())]))
    documents = library.documents()
    if kind is None:  # macro-enabled files: their text only; the macros are never run
        assert outcome.status == "added" and len(documents) == 1
        return
    assert (outcome.status, outcome.error["type"]) == ("error", kind), outcome
    assert phrase in outcome.error["message"]
    assert documents == []


def test_scans_and_pictures_are_read_by_ocr_and_say_so(library):
    import shutil

    assert shutil.which("tesseract"), "OCR tests need Debian's tesseract-ocr and tesseract-ocr-eng (build.py test installs them)"
    docs = [NewDocument("scan.pdf", data=formats_extra.scan_pdf()), NewDocument("bakery.png", data=formats_extra.scan_png(formats_extra.PICTURE_LINES))]
    outcomes = run(library.add(docs))
    assert [o.status for o in outcomes] == ["added", "added"], outcomes
    assert outcomes[0].notes == ("scan.pdf: page 3 has no text (OCR found no words)",)
    result = run(library.retrieve("Who repaired the waterwheel?", {"k": 4}))
    assert "Klinkhammer" in result.results[0].text and result.results[0].place == "scan.pdf · page 2 (OCR)"
    result = run(library.retrieve("Who ordered rye flour?", {"k": 4}))
    assert "Pfannkuchen" in result.results[0].text and result.results[0].place == "bakery.png · page 1 (OCR)"
    [blank] = run(library.add([NewDocument("blank.png", data=formats_extra.scan_png([]))]))
    assert (blank.error["type"], "OCR found no words" in blank.error["message"]) == ("empty_document", True)
    assert len(library.documents()) == 2


def test_an_ocr_language_file_that_fails_its_hash_is_refused(library, tmp_path, monkeypatch):
    from readingroom.extract import ocr

    (tmp_path / "eng.traineddata").write_bytes(b"not the model")
    monkeypatch.setenv("READINGROOM_TESSDATA", str(tmp_path))
    [out] = run(library.add([NewDocument("mill.png", data=formats_extra.scan_png(formats_extra.SCAN_LINES))]))
    assert out.error["type"] == "ocr_model" and "fails its check" in out.error["message"]
    assert library.documents() == []
    assert str(tmp_path / "eng.traineddata") not in ocr._checked
