"""A table too wide for its header and one row to fit a chunk (a sheet of twenty columns) is cut
by columns, each piece led by the first column, then by rows: no chunk holds part of a row, no
row is cut away from its header, and a sheet's place names the columns. Before, such a row was
cut at "J." in "J. Innes" and the quick answer quoted "| Black Ness | Firth | J."."""

from __future__ import annotations

import io

from helpers import run
from readingroom import NewDocument
from readingroom.extract import extract
from readingroom.extract.document import column_groups
from readingroom.ingest.add import prepare_document
from readingroom.ingest.chunking import ChunkSettings
from readingroom.places import columns_heading, label

HEADER = ["Station", "Region", "Keeper", "Built", "Height (m)", "Range (nmi)", "Light character", "Focal plane (m)",
          "Lamp", "Lens", "Fog signal", "Automated", "Access", "Owner", "Status", "Last inspection", "Paint scheme",
          "Tower shape", "Materials", "Notes"]
STATIONS = ["Skerry Point", "Gull Rock", "North Head", "Cape Weald", "Harbour Light", "Black Ness"]
KEEPERS = ["J. Innes", "A. Moray", "R. Bain"]
LENSES = ["2nd order Fresnel", "3rd order Fresnel", "drum lens", "catadioptric panel"]


def _rows() -> list[list[str]]:
    return [HEADER] + [[name, "Firth" if i % 2 else "West isles", KEEPERS[i % 3], str(1820 + 7 * i), str(20 + i),
                        str(12 + i), f"Fl W {i + 2}s", str(30 + i), "LED 12 V", LENSES[i % 4],
                        "Horn 2 blasts every 30 s", str(1980 + i), "By boat at high water only",
                        "Northern Lighthouse Board", "Operational", f"2024-0{i + 1}-15", "White tower, black lantern",
                        "Cylindrical", "Granite masonry", "Keeper's cottages now holiday lets; book the causeway crossing"]
                       for i, name in enumerate(STATIONS)]


def _xlsx() -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Lights"
    for row in _rows():
        ws.append([int(c) if c.isdigit() else c for c in row])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _docx() -> bytes:
    from docx import Document

    doc = Document()
    doc.add_heading("Lights of the coast", 1)
    rows = _rows()
    table = doc.add_table(rows=len(rows), cols=len(HEADER))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def _whole_tables(chunks) -> dict[str, dict[str, str]]:
    """Every chunk is pipe tables of whole rows under their header; each station's values by column."""
    values: dict[str, dict[str, str]] = {}
    for chunk in chunks:
        for block in chunk.text.split("\n\n"):
            lines = block.split("\n")
            if not lines[0].startswith("|"):
                continue
            header = [c.strip() for c in lines[0].strip("|").split("|")]
            assert header[0] == "Station" and lines[1] == "|" + "---|" * len(header), chunk.text
            assert len(lines) > 2, chunk.text  # never a header without a row
            for line in lines[2:]:
                assert line.startswith("| ") and line.endswith(" |"), chunk.text
                cells = [c.strip() for c in line.strip("|").split("|")]
                assert len(cells) == len(header), line
                values.setdefault(cells[0], {}).update(zip(header, cells))
    return values


def test_a_wide_sheet_is_cut_by_columns_then_rows_and_every_value_stays_under_its_header():
    doc, _text, chunks = prepare_document(NewDocument("lights.xlsx", data=_xlsx()), ChunkSettings())
    values = _whole_tables(chunks)
    rows = _rows()
    assert values == {r[0]: dict(zip(HEADER, r)) for r in rows[1:]}  # every value, under its header
    places = {label("lights.xlsx", doc.doc_type, c.heading_path) for c in chunks}
    assert "lights.xlsx · sheet Lights · rows 3–3 · columns A–O" in places, places
    assert any(p.endswith(" · columns A, P–T") for p in places), places
    assert all(c.token_count <= ChunkSettings().target_tokens for c in chunks)


def test_a_wide_word_table_is_cut_the_same_way():
    _doc, _text, chunks = prepare_document(NewDocument("lights.docx", data=_docx()), ChunkSettings())
    rows = _rows()
    assert _whole_tables(chunks) == {r[0]: dict(zip(HEADER, r)) for r in rows[1:]}


def test_a_wide_markdown_table_is_cut_the_same_way_and_a_narrow_one_kept_as_written():
    rows = _rows()
    wide = "\n".join(["# Lights", ""] + ["|" + "|".join(r) + "|" for r in rows[:1]] + ["|" + "--|" * len(HEADER)]
                     + ["|" + "|".join(r) + "|" for r in rows[1:]] + ["", "Counted in 2024."])
    _doc, _text, chunks = prepare_document(NewDocument("lights.md", data=wide.encode()), ChunkSettings())
    assert _whole_tables(chunks) == {r[0]: dict(zip(HEADER, r)) for r in rows[1:]}
    narrow = "|Part|Count|\n|:--|--:|\n|Bolt \\| nut|12|\n"
    assert extract("parts.md", narrow.encode()).text().rstrip("\n") == narrow.rstrip("\n")


def test_a_table_that_fits_is_not_cut_by_columns():
    rows = [["Part", "Count", "Bin"], ["Bolt", "12", "A3"], ["Nut", "40", "A4"]]
    assert column_groups(rows) == [[0, 1, 2]]
    assert extract("parts.csv", b"Part,Count,Bin\nBolt,12,A3\nNut,40,A4\n").sections[0].heading_path == ()
    assert columns_heading([0, 15, 16, 17, 18, 19]) == "Columns A, P–T"
    assert columns_heading([0, 26, 27, 29]) == "Columns A, AA–AB, AD"


def test_a_question_about_one_cell_of_a_wide_row_is_answered_by_that_whole_row(library):
    run(library.add([NewDocument("lights.xlsx", data=_xlsx())]))
    a = run(library.ask("What lens does Cape Weald have?")).to_dict()
    assert a["covered"] and a["quick"], a["reason"]
    top = a["quick"][0]
    assert top["text"].startswith("| Cape Weald |") and "catadioptric panel" in top["text"], top
    assert top["header"].startswith("| Station |") and "| Lens |" in top["header"]
    assert top["header"].count("|") == top["text"].count("|")
