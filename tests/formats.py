"""Files of every format, made at test time by the libraries that write them (python-docx,
python-pptx, openpyxl, odfpy, ebooklib, fpdf2), each holding one fact found nowhere else:
a table cell, a slide's speaker note, a later chapter. Shared by the native tests and the
browser tests (which drop the same bytes into the page). Nothing here is a checked-in binary.
"""

from __future__ import annotations

import io
import zipfile

FILLER = ("Quarterly planning covers staffing, travel and the office move. " * 3).strip()


def docx_bytes() -> bytes:
    import docx

    d = docx.Document()
    d.add_heading("Annual report", 1)
    d.add_paragraph(FILLER)
    d.add_heading("Costs", 2)
    listed = d.add_paragraph("The costs are listed below.")
    d.add_comment(listed.runs, text="Check the toner price with Ingrid.", author="RR")
    d.add_paragraph("Rent goes first", style="List Bullet")
    d.add_paragraph("Salaries come second", style="List Number")
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Item", "Amount"
    for item, amount in [("Printer toner", "120 EUR"), ("Zeppelin hangar rental", "9,431 EUR"),
                         ("Coffee", "80 EUR")]:
        row = table.add_row().cells
        row[0].text, row[1].text = item, amount
    d.add_heading("Outlook", 2)
    d.add_paragraph("Next year we expect growth in the northern region.")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def pptx_bytes(image_only: bool = False) -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    if image_only:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1), Inches(1))
    else:
        for n, (title, body, notes) in enumerate([
                ("Welcome", "Agenda for the offsite", "Greet everyone warmly."),
                ("Budget", "Numbers for the year", "Mention that the llama sanctuary donation is 500 euros."),
                ("Close", "Questions and answers", "")], start=1):
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = title
            slide.placeholders[1].text = body
            if notes:
                slide.notes_slide.notes_text_frame.text = notes
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def xlsx_bytes(cells: int = 0) -> bytes:
    from openpyxl import Workbook

    wb = Workbook(write_only=bool(cells))
    if cells:
        ws = wb.create_sheet("Big")
        for r in range(cells // 100 + 1):
            ws.append([r * 100 + c for c in range(100)])
    else:
        ws = wb.active
        ws.title = "Q3"
        ws.append(["Region", "Manager", "Revenue"])
        for n in range(1, 80):
            ws.append([f"Region {n}", f"Manager {n}", n * 1000])
        ws.append(["Atlantis", "Captain Nemo", 777777])
        other = wb.create_sheet("Notes")
        other.append(["Topic", "Remark"])
        other.append(["Audit", "Done in October"])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def csv_text() -> str:
    rows = ["city,river,population"] + [f"City {n},River {n},{n * 100}" for n in range(1, 60)]
    return "\n".join(rows + ["Timbuktu,Niger,32460"]) + "\n"


def odt_bytes() -> bytes:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Field notes"))
    doc.text.addElement(P(text=FILLER))
    doc.text.addElement(H(outlinelevel=2, text="Birds"))
    doc.text.addElement(P(text="We counted forty-two puffins on the northern cliff."))
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def ods_bytes() -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    table = Table(name="Inventory")
    for row in [("Part", "Count"), ("Bolts", "300"), ("Flux capacitors", "3")]:
        tr = TableRow()
        for value in row:
            cell = TableCell()
            cell.addElement(P(text=value))
            tr.addElement(cell)
        table.addElement(tr)
    doc.spreadsheet.addElement(table)
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def odp_bytes() -> bytes:
    from odf.draw import Frame, Page, TextBox
    from odf.namespaces import PRESENTATIONNS
    from odf.opendocument import OpenDocumentPresentation
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout
    from odf.text import P

    doc = OpenDocumentPresentation()
    layout = PageLayout(name="L")
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="M", pagelayoutname=layout)
    doc.masterstyles.addElement(master)
    page = Page(masterpagename=master)
    doc.presentation.addElement(page)
    title = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
    title.setAttrNS(PRESENTATIONNS, "class", "title")
    box = TextBox()
    box.addElement(P(text="Roadmap"))
    title.addElement(box)
    page.addElement(title)
    notes = Notes()
    frame = Frame(width="20cm", height="10cm", x="1cm", y="1cm")
    frame.setAttrNS(PRESENTATIONNS, "class", "notes")
    nbox = TextBox()
    nbox.addElement(P(text="Remind the team that the lighthouse launch slips to May."))
    frame.addElement(nbox)
    notes.addElement(frame)
    page.addElement(notes)
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


def epub_bytes(drm: bool = False) -> bytes:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("rr-test")
    book.set_title("A small book")
    book.set_language("en")
    chapters = []
    for n, (title, text) in enumerate([("The harbour", FILLER), ("The storm", FILLER),
                                       ("The lighthouse keeper", "The keeper's cat was named Bartholomew.")], 1):
        c = epub.EpubHtml(title=title, file_name=f"ch{n}.xhtml", lang="en")
        c.content = f"<h1>{title}</h1><p>{text}</p>"
        book.add_item(c)
        chapters.append(c)
    book.toc = chapters
    book.spine = ["nav"] + chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    buf = io.BytesIO()
    epub.write_epub(buf, book)
    data = buf.getvalue()
    if drm:
        data = with_member(data, "META-INF/encryption.xml", (
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
            'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
            '<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
            '<enc:CipherData><enc:CipherReference URI="EPUB/ch3.xhtml"/></enc:CipherData>'
            '</enc:EncryptedData></encryption>'))
    return data


def rtf_bytes() -> bytes:
    return (rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times;}}{\colortbl;\red0\green0\blue0;}"
            rb"\f0 Minutes of the meeting\par The caf\'e9 opens at seven.\par "
            rb"{\*\generator Test;}The treasurer is \u8220?Ms Okafor\u8221?.\par}")


def png_bytes() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (64, 32), (200, 30, 30)).save(buf, "PNG")
    return buf.getvalue()


def with_member(data: bytes, member: str, content: str | bytes, drop: str | None = None) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            if info.filename not in (member, drop):
                z.writestr(info, src.read(info))
        z.writestr(member, content)
    return out.getvalue()


def zip_bomb(kind_member: str = "word/document.xml") -> bytes:
    """A .docx whose document part unpacks to 300 MB of zeros (about 300 KB packed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open(kind_member, "w", force_zip64=True) as f:
            chunk = b"\0" * 2**20
            for _ in range(300):
                f.write(chunk)
    return out.getvalue()


# Each good format: file name, bytes, a question, a phrase only that file's answer holds,
# and the place its citation names.
def good_files() -> list[tuple[str, bytes, str, str, str]]:
    return [
        ("report.docx", docx_bytes(), "How much was the zeppelin hangar rental?", "9,431 EUR",
         "report.docx · Costs"),
        ("deck.pptx", pptx_bytes(), "How much is the llama sanctuary donation?", "500 euros",
         "deck.pptx · slide 2 (notes)"),
        ("budget.xlsx", xlsx_bytes(), "Who manages Atlantis?", "Captain Nemo", "budget.xlsx · sheet Q3 · rows"),
        ("cities.csv", csv_text().encode(), "Which river flows through Timbuktu?", "Niger", "cities.csv · rows"),
        ("notes.odt", odt_bytes(), "How many puffins were counted?", "forty-two puffins", "notes.odt · Birds"),
        ("stock.ods", ods_bytes(), "How many flux capacitors are there?", "Flux capacitors", "stock.ods · sheet Inventory"),
        ("plan.odp", odp_bytes(), "When does the lighthouse launch?", "slips to May", "plan.odp · slide 1 (notes)"),
        ("book.epub", epub_bytes(), "What was the keeper's cat called?", "Bartholomew",
         "book.epub · The lighthouse keeper"),
        ("minutes.rtf", rtf_bytes(), "Who is the treasurer?", "Ms Okafor", "minutes.rtf"),
        ("tool.py", b'def greet():\n    """Say hello to the walrus named Wilhelmina."""\n    return 1\n',
         "What is the walrus named?", "Wilhelmina", "tool.py"),
    ]


def encrypted_docx() -> bytes:
    """A .docx with a password, as Office writes it (msoffcrypto-tool's ECMA-376 agile encryption)."""
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(docx_bytes())).encrypt("secret", out)
    return out.getvalue()


def macro_enabled(data: bytes, kind: str) -> bytes:
    """A .docm / .xlsm: the same file with a VBA project part and the macro-enabled type."""
    main = {"docm": ("word/document.xml", "application/vnd.ms-word.document.macroEnabled.main+xml"),
            "xlsm": ("xl/workbook.xml", "application/vnd.ms-excel.sheet.macroEnabled.main+xml")}[kind]
    types = zipfile.ZipFile(io.BytesIO(data)).read("[Content_Types].xml").decode()
    types = types.replace(f'PartName="/{main[0]}" ContentType="', f'PartName="/{main[0]}" ContentType="{main[1]}" X="')
    data = with_member(data, "[Content_Types].xml", types)
    return with_member(data, ("word" if kind == "docm" else "xl") + "/vbaProject.bin", b"\xd0\xcf\x11\xe0" + bytes(512))


# Bad inputs: (file name, bytes maker, expected error type or None when it must be added,
# a phrase of the message).
BAD = [
    ("broken.docx", lambda: docx_bytes()[:2000], "corrupt", "damaged"),
    ("bomb.docx", zip_bomb, "zip_bomb", "zip bomb"),
    ("locked.docx", encrypted_docx, "encrypted", "password"),
    ("drm.epub", lambda: epub_bytes(drm=True), "encrypted", "DRM"),
    ("nameless.epub", lambda: with_member(epub_bytes(), "META-INF/container.xml", "<container/>"), "corrupt",
     "names no package file"),
    ("pictures.pptx", lambda: pptx_bytes(image_only=True), "empty_document", "only pictures"),
    ("lying.docx", lambda: b"%PDF-1.4\n" + bytes(100), "wrong_type", "is a PDF"),
    ("sheet.docx", lambda: xlsx_bytes(), "wrong_type", "is an Excel workbook"),
    ("empty.xlsx", lambda: b"", "empty_document", "is empty"),
    ("macros.docm", lambda: macro_enabled(docx_bytes(), "docm"), None, ""),
    ("macros.xlsm", lambda: macro_enabled(xlsx_bytes(), "xlsm"), None, ""),
]


def report_pdf(two_column: bool = False) -> bytes:
    """Five pages with a running head, a page-number footer, an outline, a word broken at a
    line end and (``two_column``) a page in two columns."""
    from fpdf import FPDF

    class Report(FPDF):
        def header(self):
            self.set_font("Helvetica", size=9)
            self.cell(0, 8, "Field Guide to Northern Birds", new_x="LMARGIN", new_y="NEXT")

        def footer(self):
            self.set_y(-15)
            self.set_font("Helvetica", size=9)
            self.cell(0, 8, f"Page {self.page_no()}", align="C")

    pdf = Report()
    pdf.set_font("Helvetica", size=11)
    chapters = [("1 Owls", "Owls hunt at night and swallow their prey whole."),
                ("2 Gulls", "Gulls nest on cliffs and follow fishing boats."),
                ("3 Puffins", "Puffins carry up to twenty fish in their beaks."),
                ("4 Terns", "Arctic terns fly from pole to pole every year."),
                ("5 Ravens", "Ravens solve puzzles that stump most other birds.")]
    for title, fact in chapters:
        pdf.add_page()
        pdf.start_section(title)
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        for line in [fact, "Watchers note the differ-", "ences between young and adult birds.",
                     f"Plumage notes for {title[2:].lower()} follow in the appendix."]:
            pdf.cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
    if two_column:
        pdf.add_page()
        pdf.start_section("6 Two columns")
        left = "LEFTCOLUMN starts here. " + "Waders probe the mud for worms. " * 30
        right = "RIGHTCOLUMN starts here. " + "Divers stay under water for minutes. " * 30
        with pdf.text_columns(ncols=2) as cols:
            cols.write(left)
            cols.new_column()
            cols.write(right)
    return bytes(pdf.output())
