"""Office files as other writers save them, natively (the page runs the same readers under
Pyodide): Strict Open XML, a main part under another name, Word's tracked changes, which are
read as accepted (deleted and moved-away text is not the document's text), drop caps and text
boxes, merged table cells, and OpenDocument's numbered lists with their headers. Workbooks:
test_sheet_variants.py."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

import formats
from formats_extra import rewritten
from readingroom.extract import extract

TRANSITIONAL = {
    b"http://schemas.openxmlformats.org/wordprocessingml/2006/main": b"http://purl.oclc.org/ooxml/wordprocessingml/main",
    b"http://schemas.openxmlformats.org/spreadsheetml/2006/main": b"http://purl.oclc.org/ooxml/spreadsheetml/main",
    b"http://schemas.openxmlformats.org/presentationml/2006/main": b"http://purl.oclc.org/ooxml/presentationml/main",
    b"http://schemas.openxmlformats.org/drawingml/2006/main": b"http://purl.oclc.org/ooxml/drawingml/main",
    b"http://schemas.openxmlformats.org/officeDocument/2006/relationships": b"http://purl.oclc.org/ooxml/officeDocument/relationships",
}


def strict(data: bytes) -> bytes:
    """The file as "Strict Open XML": the same parts, the ISO strict namespaces (also in the
    relationship types, ".../officeDocument/relationships/officeDocument")."""
    def change(name, body):
        if name.endswith((".xml", ".rels")):
            for old, new in TRANSITIONAL.items():
                body = body.replace(old, new)
        return name, body
    return rewritten(data, change)


def test_strict_open_xml_files_read_as_their_transitional_twins():
    for name, make in (("report.docx", formats.docx_bytes), ("budget.xlsx", formats.xlsx_bytes),
                       ("deck.pptx", formats.pptx_bytes)):
        usual = make()
        assert b"purl.oclc.org" in zipfile.ZipFile(io.BytesIO(strict(usual))).read("_rels/.rels")
        a, b = extract(name, usual), extract(name, strict(usual))
        assert [(s.heading_path, s.text) for s in b.sections] == [(s.heading_path, s.text) for s in a.sections], name
        assert a.sections, name


def test_a_main_part_under_another_name_is_found_by_the_package_relationships():
    def change(name, body):
        if name == "word/document.xml":
            return "word/document2.xml", body
        if name == "word/_rels/document.xml.rels":
            return "word/_rels/document2.xml.rels", body
        if name == "_rels/.rels":
            return name, body.replace(b'Target="word/document.xml"', b'Target="/word/document2.xml"')
        if name == "[Content_Types].xml":
            return name, body.replace(b"/word/document.xml", b"/word/document2.xml")
        return name, body
    usual = formats.docx_bytes()
    moved = rewritten(usual, change)
    assert "word/document.xml" not in zipfile.ZipFile(io.BytesIO(moved)).namelist()
    assert extract("report.docx", moved).text() == extract("report.docx", usual).text()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def word_text(name: str, document_xml: str) -> str:
    """The text read from a .docx whose document part is ``document_xml``."""
    return extract(name, formats.with_member(formats.docx_bytes(), "word/document.xml", document_xml)).text()

TRACKED = f"""<w:document {W}><w:body>
<w:p><w:r><w:t xml:space="preserve">The lease runs </w:t></w:r>
  <w:del w:id="1" w:author="A"><w:r><w:delText xml:space="preserve">five </w:delText></w:r></w:del>
  <w:ins w:id="2" w:author="A"><w:r><w:t xml:space="preserve">seven </w:t></w:r></w:ins>
  <w:r><w:t>years.</w:t></w:r></w:p>
<w:p><w:moveFromRangeStart w:id="3" w:author="A" w:name="move1"/></w:p>
<w:p><w:moveFrom w:id="4" w:author="A"><w:r><w:t>The deposit is held by the notary.</w:t></w:r></w:moveFrom></w:p>
<w:moveFromRangeEnd w:id="3"/>
<w:p><w:r><w:t>Rent is due monthly.</w:t></w:r></w:p>
<w:p><w:moveToRangeStart w:id="5" w:author="A" w:name="move1"/></w:p>
<w:p><w:moveTo w:id="6" w:author="A"><w:r><w:t>The deposit is held by the notary.</w:t></w:r></w:moveTo></w:p>
<w:p><w:moveToRangeEnd w:id="5"/></w:p>
<w:p><w:pPr><w:rPr><w:del w:id="8" w:author="A"/></w:rPr></w:pPr><w:r><w:t>Pets are</w:t></w:r></w:p>
<w:p><w:r><w:t>allowed on the ground floor.</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Room</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Rent</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:trPr><w:del w:id="7" w:author="A"/></w:trPr><w:tc><w:p><w:r><w:t>Attic</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>300</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>Cellar</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>200</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>"""


def test_tracked_changes_are_read_as_accepted():
    text = word_text("lease.docx", TRACKED)
    assert text == ("The lease runs seven years.\n\nRent is due monthly.\n\n"
                    "The deposit is held by the notary.\n\nPets are allowed on the ground floor.\n\n"
                    "| Room | Rent |\n|---|---|\n| Cellar | 200 |"), text
    assert not re.search(r"five|Attic", text)


MC = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
LAID_OUT = f"""<w:document {W} {MC}><w:body>
<w:p><w:pPr><w:framePr w:dropCap="drop" w:lines="3"/></w:pPr><w:r><w:t>T</w:t></w:r></w:p>
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>he harbour opens at dawn.</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">See the box. </w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>SECRET NOTE </w:t></w:r>
  <w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t xml:space="preserve">Shown. </w:t></w:r><w:r><mc:AlternateContent>
  <mc:Choice Requires="wps"><w:drawing><w:txbxContent>
    <w:p><w:r><w:t>Tide tables</w:t></w:r></w:p><w:p><w:r><w:t>High water at noon.</w:t></w:r></w:p>
  </w:txbxContent></w:drawing></mc:Choice>
  <mc:Fallback><w:pict><w:txbxContent>
    <w:p><w:r><w:t>Tide tables</w:t></w:r></w:p><w:p><w:r><w:t>High water at noon.</w:t></w:r></w:p>
  </w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Pier</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Depth</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>North</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>old</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc>
<w:tc><w:p><w:r><w:t>9 m</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>
  <w:p><w:r><w:t>dredged</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>
  <mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>dredged</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback>
  </mc:AlternateContent></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>"""


def test_drop_caps_text_boxes_and_tab_stops_read_as_the_page_shows_them():
    """A drop cap is the first letter of its paragraph; hidden text is not read; a text box's
    paragraphs are lines of their own, read once (Word keeps an older copy of each box for old readers); a paragraph's
    tab stops are not tabs in its text."""
    text = word_text("harbour.docx", LAID_OUT)
    assert text == ("The harbour opens at dawn.\n\nSee the box. Shown. \nTide tables\nHigh water at noon.\n\n"
                    "| Pier | Depth |\n|---|---|\n| North old | 9 m dredged |"), text


ODF = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
       'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"')
ODT_LISTS = f"""<office:document-content {ODF} office:version="1.3">
<office:automatic-styles>
  <text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/>
    <text:list-level-style-bullet text:level="2" text:bullet-char="*"/></text:list-style>
  <text:list-style style:name="L2"><text:list-level-style-number text:level="1" text:start-value="4" style:num-format="1"/></text:list-style>
</office:automatic-styles>
<office:body><office:text>
<text:list xml:id="a" text:style-name="L1">
  <text:list-header><text:p>Steps to open the lighthouse</text:p></text:list-header>
  <text:list-item><text:p>Unlock the gate</text:p><text:p>The key hangs in the shed.</text:p></text:list-item>
  <text:list-item><text:p>Climb the stairs</text:p>
    <text:list><text:list-item><text:p>Mind the loose step</text:p></text:list-item></text:list></text:list-item>
</text:list>
<text:p>Then wait for dusk.</text:p>
<text:list text:continue-numbering="true" text:style-name="L1"><text:list-item><text:p>Light the lamp</text:p></text:list-item></text:list>
<text:list text:style-name="L2"><text:list-item><text:p>Log the hour</text:p></text:list-item></text:list>
</office:text></office:body></office:document-content>"""


def test_opendocument_lists_keep_their_headers_numbers_and_continued_numbering():
    text = extract("keeper.odt", formats.with_member(formats.odt_bytes(), "content.xml", ODT_LISTS)).text()
    assert text == ("Steps to open the lighthouse\n\n1. Unlock the gate\n\n   The key hangs in the shed.\n\n"
                    "2. Climb the stairs\n\n  - Mind the loose step\n\nThen wait for dusk.\n\n"
                    "3. Light the lamp\n\n4. Log the hour"), text


CONTROLS = f"""<w:document {W}><w:body>
<w:p><w:r><w:t>Form 7</w:t></w:r><w:r><w:noBreakHyphen/></w:r><w:r><w:t>B, filled in.</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Field</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Value</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>Applicant</w:t></w:r></w:p></w:tc>
  <w:sdt><w:sdtPr><w:alias w:val="Name"/></w:sdtPr><w:sdtContent>
    <w:tc><w:p><w:r><w:t>Ada Byron</w:t></w:r></w:p></w:tc></w:sdtContent></w:sdt></w:tr>
<w:sdt><w:sdtContent><w:tr><w:tc><w:p><w:r><w:t>Town</w:t></w:r></w:p></w:tc>
  <w:tc><w:p><w:r><w:t>Marlow</w:t></w:r></w:p></w:tc></w:tr></w:sdtContent></w:sdt>
</w:tbl></w:body></w:document>"""


def test_content_controls_in_tables_keep_their_cells_in_their_columns():
    """Forms wrap cells and rows in content controls; a wrapped cell was dropped, and the
    cells after it moved a column to the left."""
    text = word_text("form.docx", CONTROLS)
    assert text == ("Form 7-B, filled in.\n\n| Field | Value |\n|---|---|\n"
                    "| Applicant | Ada Byron |\n| Town | Marlow |"), text


MERGED = f"""<w:document {W}><w:body><w:tbl>
<w:tr><w:tc><w:p><w:r><w:t>Line</w:t></w:r></w:p></w:tc><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr>
  <w:p><w:r><w:t>Opened</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Zone</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>District</w:t></w:r></w:p></w:tc>
  <w:tc><w:p><w:r><w:t>1868</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>May</w:t></w:r></w:p></w:tc>
  <w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc><w:tc><w:p><w:r><w:t>1871</w:t></w:r></w:p></w:tc>
  <w:tc><w:p><w:r><w:t>June</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>2</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr><w:tc><w:p><w:r><w:t>1880</w:t></w:r></w:p></w:tc>
  <w:tc><w:p><w:r><w:t>July</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>3</w:t></w:r></w:p></w:tc></w:tr>
</w:tbl></w:body></w:document>"""


def test_merged_word_cells_keep_later_cells_under_their_headers():
    """Word's merged cells: one spanning grid columns (gridSpan) is followed by empty ones, one
    merged down (vMerge) stands in each row, and a row that skips grid columns (gridBefore)
    starts with empty cells; before, later cells moved left under the wrong header."""
    assert word_text("lines.docx", MERGED) == (
        "| Line | Opened |  | Zone |\n|---|---|---|---|\n| District | 1868 | May | 1 |\n"
        "| District | 1871 | June | 2 |\n|  | 1880 | July | 3 |")


def test_a_pictures_alt_text_is_read_where_it_stands_and_a_machines_guess_is_not():
    from docx import Document
    from pptx import Presentation
    from pptx.util import Inches

    doc = Document()
    p = doc.add_paragraph("The tower ")
    p.add_run().add_picture(io.BytesIO(formats.png_bytes()))
    p.add_run(" stands on the point.")
    doc.add_paragraph().add_run().add_picture(io.BytesIO(formats.png_bytes()))
    props = [el for el in doc.element.body.iter() if el.tag.endswith("}docPr")]
    props[0].set("descr", "The lighthouse at dawn, painted red and white")
    props[1].set("descr", "A picture containing sky\n\nDescription automatically generated")
    buf = io.BytesIO()
    doc.save(buf)
    text = extract("tower.docx", buf.getvalue()).text()
    assert text == "The tower [Picture: The lighthouse at dawn, painted red and white] stands on the point.", text

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    pic = slide.shapes.add_picture(io.BytesIO(formats.png_bytes()), Inches(1), Inches(1))
    assert pic._element.nvPicPr.cNvPr.get("descr").endswith(".png")  # python-pptx writes the file name
    pic._element.nvPicPr.cNvPr.set("descr", "Keeper's log, page one")
    buf = io.BytesIO()
    prs.save(buf)
    assert extract("log.pptx", buf.getvalue()).sections[0].text == "[Picture: Keeper's log, page one]"
    odt = (f'<office:document-content {ODF} xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
           'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
           'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3"><office:body><office:text>'
           '<text:p>The tower<draw:frame draw:name="Image1"><draw:image xlink:href="Pictures/a.png"/>'
           '<svg:title>Image1</svg:title><svg:desc>The lighthouse at dawn</svg:desc></draw:frame> stands on the point.</text:p>'
           '</office:text></office:body></office:document-content>')
    text = extract("tower.odt", formats.with_member(formats.odt_bytes(), "content.xml", odt)).text()
    assert text == "The tower [Picture: The lighthouse at dawn] stands on the point.", text


@pytest.mark.parametrize("make, made, name, main, template", [
    ("docx_bytes", "report.docx", "letter.dotx", "wordprocessingml.document.main+xml", "wordprocessingml.template.main+xml"),
    ("xlsx_bytes", "budget.xlsx", "budget.xltx", "spreadsheetml.sheet.main+xml", "spreadsheetml.template.main+xml"),
    ("pptx_bytes", "deck.pptx", "deck.potx", "presentationml.presentation.main+xml", "presentationml.template.main+xml"),
    ("odt_bytes", "notes.odt", "notes.ott", "opendocument.text", "opendocument.text-template"),
])
def test_a_template_is_read_as_the_document_it_makes(make, made, name, main, template):
    """Office and OpenDocument templates (.dotx, .xltx, .potx, .ott, …: Open-XML-SDK's test files
    held 80 .dotx) are the same packages with another content type; they were refused as an
    unknown extension."""
    data = getattr(formats, make)()
    member = "mimetype" if make == "odt_bytes" else "[Content_Types].xml"
    z = zipfile.ZipFile(io.BytesIO(data))
    body = z.read(member).decode()
    assert main in body
    as_template = formats.with_member(data, member, body.replace(main, template))
    doc = extract(name, as_template)
    assert doc.doc_type == extract(made, data).doc_type and doc.text() == extract(made, data).text() != ""
