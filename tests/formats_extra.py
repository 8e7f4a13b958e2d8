"""Larger files for ``bench ingest --formats`` and pictures of text for the OCR tests, made at
run time like those of ``formats`` (python-docx, python-pptx, openpyxl, ebooklib, Pillow, fpdf2)."""

from __future__ import annotations

import functools
import io
import zipfile

from formats import FILLER, report_pdf


def docx_pages(pages: int = 50) -> bytes:
    """A long report: ``pages`` pages of about 450 words, a heading each (for the bench)."""
    import docx

    d = docx.Document()
    for n in range(1, pages + 1):
        d.add_heading(f"Part {n}", 1)
        for _ in range(6):
            d.add_paragraph(f"Part {n} discusses item {n * 7} in detail. " + FILLER * 2)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


# Sized files for ``bench ingest --formats``: (name, bytes, units, unit) per format.
def deck(slides: int) -> bytes:
    from pptx import Presentation

    prs = Presentation()
    for n in range(1, slides + 1):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = f"Topic {n}"
        slide.placeholders[1].text = f"Point {n}: " + FILLER
        slide.notes_slide.notes_text_frame.text = f"Say more about point {n}. " + FILLER
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


def workbook(sheets: int, rows: int) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    for s in range(1, sheets + 1):
        ws = wb.create_sheet(f"Sheet{s}")
        ws.append(["Region", "Manager", "Revenue", "Remark"])
        for n in range(rows):
            ws.append([f"Region {n}", f"Manager {s}-{n}", n * 17, "on track" if n % 3 else "late"])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def book(chapters: int) -> bytes:
    from ebooklib import epub

    b = epub.EpubBook()
    b.set_identifier("rr-bench")
    b.set_title("Bench book")
    b.set_language("en")
    items = []
    for n in range(1, chapters + 1):
        c = epub.EpubHtml(title=f"Chapter {n}", file_name=f"c{n}.xhtml", lang="en")
        c.content = f"<h1>Chapter {n}</h1>" + "".join(f"<p>Scene {k} of chapter {n}. {FILLER}</p>" for k in range(8))
        b.add_item(c)
        items.append(c)
    b.toc, b.spine = items, ["nav"] + items
    b.add_item(epub.EpubNcx())
    b.add_item(epub.EpubNav())
    buf = io.BytesIO()
    epub.write_epub(buf, b)
    return buf.getvalue()


def bench_files() -> list[tuple[str, bytes, int, str]]:
    return [("report.docx", docx_pages(50), 50, "pages"), ("deck.pptx", deck(30), 30, "slides"),
            ("budget.xlsx", workbook(5, 200), 5, "sheets"), ("book.epub", book(20), 20, "chapters"),
            ("guide.pdf", report_pdf(two_column=True), 6, "pages")]


def scan_png(lines: list[str], a4: bool = False) -> bytes:
    """Text rendered into a picture (DejaVu Sans, Debian's fonts-dejavu-core); ``a4``: a
    full A4 page at 300 dpi with the lines spread over it."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 40)
    size = (2480, 3508) if a4 else (1600, 120 + 70 * len(lines))
    img = Image.new("L", size, 255)
    draw = ImageDraw.Draw(img)
    for n, line in enumerate(lines):
        draw.text((150, 150 + n * (70 if not a4 else 3200 // max(1, len(lines)))), line, fill=0, font=font)
    buf = io.BytesIO()
    img.save(buf, "PNG", dpi=(300, 300))
    return buf.getvalue()


SCAN_LINES = ["Inspection report for the old mill", "The waterwheel was repaired by Tobias Klinkhammer",
              "in the spring, and the sluice gate now closes fully."]
PICTURE_LINES = ["Invoice from the village bakery", "Henrietta Pfannkuchen ordered forty sacks of rye flour."]


def scan_pdf() -> bytes:
    """Page 1 has a text layer; page 2 is only a picture of text (a scan); page 3 is blank."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, "Cover letter. The inspection report follows on the next page.")
    pdf.add_page()
    pdf.image(io.BytesIO(scan_png(SCAN_LINES)), x=10, y=10, w=190)
    pdf.add_page()
    pdf.image(io.BytesIO(scan_png([])), x=10, y=10, w=190)
    return bytes(pdf.output())


def headed_pdf() -> bytes:
    """No bookmarks: a title at 22 pt, two sections at 16 pt with a subsection at 14 pt, body
    text at 11 pt, and a running head at 11 pt on every page."""
    from fpdf import FPDF

    pdf = FPDF()
    body = "The survey counted the birds along the coast in the spring. " * 8
    for n, (title, head, sub) in enumerate([("Coastal Birds Survey", "Gulls and terns", "Nesting sites"),
                                            (None, "Puffins", "Burrows")], start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        pdf.cell(0, 6, "Coastal birds survey report", new_x="LMARGIN", new_y="NEXT")
        if title:
            pdf.set_font("Helvetica", "B", size=22)
            pdf.cell(0, 12, title, new_x="LMARGIN", new_y="NEXT")
        for text, size in ((head, 16), (sub, 14)):
            pdf.set_font("Helvetica", "B", size=size)
            pdf.cell(0, 9, text, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", size=11)
            pdf.multi_cell(0, 6, f"{text}: {body}", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def wrapped_heading_pdf() -> bytes:
    """No bookmarks: a 16 pt heading wrapped onto two lines, then another on one line."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    for head, body, width in (("Effects of winter storms on the nesting colonies",
                               "The storms of January flooded the lower burrows. ", 70),
                              ("Counts", "Four hundred pairs nested on the cliffs. ", 0)):
        pdf.set_font("Helvetica", "B", size=16)
        pdf.multi_cell(width, 8, head, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, body * 6, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@functools.cache
def formatted_million_cells() -> bytes:
    """A 1,000,000-cell sheet as spreadsheets often are: a small table (rows 1-21) and then a
    formatted but empty range down to row 100,000 (10 columns), each cell stored with its style.
    Made once per run (the native and the page test read the same bytes)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Ledger")
    ws.append(["Harbour", "Keeper"] + [f"Note {c}" for c in range(3, 11)])
    for r in range(1, 21):
        ws.append([f"Harbour {r}", f"Keeper Aldous Feverfew {r}"] + ["" for _ in range(8)])
    bold = Font(bold=True)
    for _ in range(100_000 - 21):
        row = []
        for _c in range(10):
            cell = WriteOnlyCell(ws)
            cell.font = bold
            row.append(cell)
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def rewritten(data: bytes, change) -> bytes:
    """The package with every member passed through ``change(name, bytes) -> (name, bytes)``."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            name, body = change(info.filename, src.read(info))
            z.writestr(name, body)
    return out.getvalue()
