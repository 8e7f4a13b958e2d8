"""Workbooks as other programs save them, natively (the page runs the same readers under
Pyodide): zipped by other tools, protected, with a title above the header row, and cells as
Excel shows them (numbers, 1904 dates, phonetic guides, escapes)."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

import formats
from formats_extra import rewritten
from readingroom.errors import Encrypted
from readingroom.extract import extract


def shared_strings(data: bytes) -> bytes:
    """The workbook with its text cells in a shared strings part, as Excel saves them
    (openpyxl writes them inline)."""
    strings: list[str] = []

    def cell(m):
        strings.append(m[2])
        return f'<c{m[1]} t="s"><v>{len(strings) - 1}</v></c>'.encode()

    def change(name, body):
        if name.startswith("xl/worksheets/"):
            body = re.sub(rb'<c([^>]*?) t="inlineStr"><is><t>([^<]*)</t></is></c>',
                          lambda m: cell((None, m[1].decode(), m[2].decode())), body)
        return name, body
    out = rewritten(data, change)
    sst = ('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           + "".join(f"<si><t>{t}</t></si>" for t in strings) + "</sst>")
    rels = zipfile.ZipFile(io.BytesIO(out)).read("xl/_rels/workbook.xml.rels").replace(
        b"</Relationships>", b'<Relationship Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        b'relationships/sharedStrings" Target="sharedStrings.xml" Id="rId99"/></Relationships>')
    return formats.with_member(formats.with_member(out, "xl/sharedStrings.xml", sst),
                               "xl/_rels/workbook.xml.rels", rels)


def test_workbooks_zipped_by_other_tools_read_like_excels_own():
    """Windows paths in the zip ("xl\\workbook.xml"), a part named in another case
    ("xl/SharedStrings.xml", found by the workbook's relationships) and a package with its
    workbook at the top all read as the workbook Excel saved."""
    usual = shared_strings(formats.xlsx_bytes())
    assert "xl/sharedStrings.xml" in zipfile.ZipFile(io.BytesIO(usual)).namelist()
    want = extract("budget.xlsx", usual).text()
    backslashed = rewritten(usual, lambda n, b: (n.replace("/", "\\") if n.startswith("xl/") else n, b))
    cased = rewritten(usual, lambda n, b: ("xl/SharedStrings.xml" if n == "xl/sharedStrings.xml" else n,
                                          b.replace(b'Target="sharedStrings.xml"', b'Target="SharedStrings.xml"')))

    def flat(name, body):  # every part of xl/ at the top, the relationships pointing there
        if name == "_rels/.rels":
            return name, body.replace(b"xl/workbook.xml", b"workbook.xml")
        if name == "xl/_rels/workbook.xml.rels":
            return "_rels/workbook.xml.rels", body.replace(b"/xl/", b"/")
        return (name[3:] if name.startswith("xl/") else name), body.replace(b"/xl/", b"/")
    top = rewritten(usual, flat)
    for data in (backslashed, cased, top):
        assert extract("budget.xlsx", data).text() == want
    assert "Captain Nemo" in want


def test_a_password_protected_opendocument_file_is_refused_as_such():
    manifest = ('<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
                '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x"/>'
                "</manifest:file-entry></manifest:manifest>")
    data = formats.with_member(formats.with_member(formats.ods_bytes(), "META-INF/manifest.xml", manifest),
                               "content.xml", bytes(range(256)) * 4)
    with pytest.raises(Encrypted, match="password"):
        extract("stock.ods", data)


def test_a_title_above_a_sheets_header_row_is_text_and_the_header_is_the_header():
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Bookings"
    ws.append(["Harbour bookings for March"])
    ws.append([])
    ws.append(["Berth", "Boat", "Skipper"])
    ws.append(["B4", "Sea Otter", "Ines Duarte"])
    buf = io.BytesIO()
    wb.save(buf)
    doc = extract("harbour.xlsx", buf.getvalue())
    assert doc.sections[0].text == ("Harbour bookings for March\n\n| Berth | Boat | Skipper |\n|---|---|---|\n"
                                    "| B4 | Sea Otter | Ines Duarte |"), doc.sections[0].text


def test_cells_read_as_excel_shows_them():
    """Numbers at Excel's 15 significant digits (0.1 + 0.2 is stored as 0.30000000000000004),
    dates of a workbook counted from 1904 (old Mac Excel), Japanese text without its phonetic
    guide, and ``_x000D_`` as the character it escapes."""
    from datetime import date

    from openpyxl import Workbook
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    wb = Workbook()
    wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.append(["Item", "Share", "Due", "Name"])
    ws.append(["Ropes", 0.1 + 0.2, date(2021, 3, 15), "NAME"])
    buf = io.BytesIO()
    wb.save(buf)
    sst = ('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           '<si><r><t>\u6771\u4eac</t></r><rPh sb="0" eb="2"><t>\u30c8\u30a6\u30ad\u30e7\u30a6</t></rPh></si>'
           '<si><t>Line_x000D_ two</t></si></sst>')

    def change(name, body):
        if name == "xl/worksheets/sheet1.xml":
            body = body.replace(b'<c r="D2" t="inlineStr"><is><t>NAME</t></is></c>',
                                b'<c r="D2" t="s"><v>0</v></c><c r="E2" t="s"><v>1</v></c>')
        if name == "xl/_rels/workbook.xml.rels":
            body = body.replace(b"</Relationships>", b'<Relationship Type="http://schemas.openxmlformats.org/'
                                b'officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml" '
                                b'Id="rId99"/></Relationships>')
        return name, body
    data = formats.with_member(rewritten(buf.getvalue(), change), "xl/sharedStrings.xml", sst)
    text = extract("share.xlsx", data).text()
    assert "| Ropes | 0.3 | 2021-03-15 | \u6771\u4eac | Line two |" in text, text


def test_a_workbook_whose_cells_share_one_huge_string_is_capped_by_its_characters():
    """Apache POI's poc-shared-strings.xlsx: 14 KB packed, 30,000 cells each showing one shared
    string of 1 MB, 30 GB of text; reading it took all 24 GB of memory and was killed."""
    from readingroom.extract.sheets import MAX_CHARS

    cells = "".join(f'<c r="{col}{r}" t="s"><v>0</v></c>' for r in range(1, 301) for col in ("A", "B", "C"))
    sheet = (f'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             f'{cells}</sheetData></worksheet>')
    sheet = re.sub(r'(<c r="A(\d+)")', r'</row><row r="\2">\1', sheet).replace("<sheetData></row>", "<sheetData>")
    sheet = sheet.replace("</sheetData>", "</row></sheetData>")
    sst = ('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>'
           + "abcdefghij" * 100_000 + "</t></si></sst>")
    data = formats.with_member(shared_strings(formats.xlsx_bytes()), "xl/sharedStrings.xml", sst)
    data = formats.with_member(data, "xl/worksheets/sheet1.xml", sheet)
    assert len(data) < 200_000
    doc = extract("poc.xlsx", data)
    assert doc.notes == [f"poc.xlsx's cells hold more than {MAX_CHARS:,} characters; only the rows before that were read"]
    assert MAX_CHARS // 2 < sum(len(s.text) for s in doc.sections if s.heading_path[0] == "Sheet Q3") < 3 * MAX_CHARS


def test_escaped_utf16_halves_are_one_character_and_a_lone_half_is_no_crash(library):
    """PhpSpreadsheet's issue 4724 workbook: Excel writes a character outside the BMP as two
    escapes, one per UTF-16 half (``_xD801__xDC05_``); read one by one, each half was a lone
    surrogate, and storing the text raised UnicodeEncodeError."""
    from helpers import run
    from readingroom import NewDocument

    sheet = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             '<row r="1"><c r="A1" t="inlineStr"><is><t>Mark</t></is></c><c r="B1" t="inlineStr"><is><t>Note</t></is></c></row>'
             '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c></row></sheetData></worksheet>')
    sst = ('<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           '<si><t>Deseret _xD801__xDC05_ letter</t></si><si><t>half _xD83D_ alone</t></si></sst>')
    data = formats.with_member(shared_strings(formats.xlsx_bytes()), "xl/sharedStrings.xml", sst)
    data = formats.with_member(data, "xl/worksheets/sheet1.xml", sheet)
    assert "| Deseret \U00010405 letter | half \ufffd alone |" in extract("marks.xlsx", data).text()
    [out] = run(library.add([NewDocument("marks.xlsx", data=data)]))
    assert out.status == "added", out.error

