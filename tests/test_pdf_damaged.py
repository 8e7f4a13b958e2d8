"""PDFs as other programs damage them (found in pdf.js's own test corpus): one page whose
contents cannot be decoded is left out and said so while the rest is read; a scan whose
picture cannot be decoded, or is in a colour model PNG cannot hold, is no crash; a file none
of whose pages can be read is refused with a reason."""

from __future__ import annotations

import io

from helpers import run
from readingroom import NewDocument
from readingroom.extract import pdf

FIRST = "The keeper lit the lamp at dusk and wound the clockwork of the fog signal."
SECOND = "The supply boat came on Thursdays with oil, flour and letters."


def written(objects: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1; the first is the catalog), with its cross-reference
    table: what a writer leaves, byte for byte."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, obj)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def stream(body: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d%s >>\nstream\n%s\nendstream" % (len(body), extra, body)


def damaged(texts: list[str], pages: list[int], data: bytes = b"\xff\xff\xff\xff",
            filter_name: str = "/LZWDecode") -> bytes:
    """A PDF of one line of text a page in which the content streams of ``pages`` (0-based)
    hold ``data`` under a filter it does not decode under: what a truncated download or a
    broken writer leaves."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
                   b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(len(texts))), len(texts)),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, text in enumerate(texts):
        body, filtered = (data, b" /Filter " + filter_name.encode()) if i in pages else (
            b"BT /F1 11 Tf 40 760 Td (" + text.encode("latin-1") + b") Tj ET", b"")
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i))
        objects.append(stream(body, filtered))
    return written(objects)


def test_a_page_that_cannot_be_decoded_is_left_out_and_the_rest_is_read(library):
    data = damaged([FIRST, SECOND], [1])
    [out] = run(library.add([NewDocument("log.pdf", data=data)]))
    assert out.status == "added", out.error
    assert any("page 2 could not be read" in n for n in out.notes), out.notes
    hits = run(library.retrieve("when did the keeper light the lamp")).results
    assert hits and "lit the lamp at dusk" in hits[0].text
    assert not run(library.retrieve("supply boat flour letters", {"mode": "lexical"})).results


def test_a_filter_the_reader_no_longer_knows_damages_a_page_not_the_file():
    # "/A85", an abbreviation pypdf 7 refuses with its own error type (poppler-395-0-fuzzed.pdf)
    doc = pdf.read("old.pdf", damaged([FIRST, SECOND], [0], b'<~87cURD]i,"Ebo80~>', "/A85"))
    assert "supply boat came on Thursdays" in doc.text() and "keeper" not in doc.text()
    assert doc.notes == ["old.pdf: page 1 could not be read (its contents are damaged); it was left out"]


def test_a_file_none_of_whose_pages_can_be_read_is_refused_with_a_reason(library):
    data = damaged([FIRST, SECOND], [0, 1])
    [out] = run(library.add([NewDocument("ruin.pdf", data=data)]))
    assert out.status == "error" and out.error["type"] == "bad_input"
    assert "ruin.pdf is not a readable PDF" in out.error["message"]
    assert library.status()["documents"] == 0


def test_a_scan_in_cmyk_is_read_by_ocr_not_a_crash():
    from PIL import Image, ImageDraw, ImageFont

    from readingroom.extract import ocr

    picture = Image.new("RGB", (1400, 300), "white")
    font = ImageFont.load_default(size=64)
    ImageDraw.Draw(picture).text((40, 100), "Lamp oil ordered in May", fill="black", font=font)
    buf = io.BytesIO()
    picture.convert("CMYK").save(buf, "JPEG", quality=95)
    from fpdf import FPDF

    doc = FPDF()
    doc.add_page()
    doc.image(io.BytesIO(buf.getvalue()), x=10, y=10, w=190)
    data = bytes(doc.output())
    assert ocr.available(), "OCR tests need Debian's tesseract-ocr and tesseract-ocr-eng (build.py test installs them)"
    got = pdf.read("cmyk.pdf", data)
    assert "oil ordered" in got.text().lower(), got.text()


def test_a_file_whose_readable_pages_hold_no_text_says_some_pages_were_damaged():
    import pytest

    from readingroom.errors import EmptyDocument
    from readingroom.extract.pdfclean import document

    with pytest.raises(EmptyDocument, match=r"x.pdf: 2 of its 3 pages could not be read \(their contents are damaged\)"):
        document("x.pdf", ["", "", " "], unreadable={1, 2})


def test_a_page_that_would_inflate_past_the_memory_limit_is_a_bomb_not_an_exhausted_machine(library):
    import zlib

    bomb = zlib.compress(b" " * 100_000_000, 9)  # ~100 KB that inflate to 100 MB, past pypdf's 75 MB
    data = damaged([FIRST], [0], bomb, "/FlateDecode")
    assert len(data) < 200_000
    [out] = run(library.add([NewDocument("bomb.pdf", data=data)]))
    assert out.status == "error" and out.error["type"] == "zip_bomb", out.error
    assert "would unpack past the memory limit" in out.error["message"]
    assert library.status()["documents"] == 0


def test_a_scan_stored_in_strips_is_read_whole_as_the_page_draws_it():
    """Scanners store a page in strips (one picture each); OCR of the largest picture alone read
    one strip. Natively the page is now drawn by PDFium at 300 dpi, as the page draws it with
    pdf.js, so OCR reads what a person sees."""
    import formats_extra
    from fpdf import FPDF

    from readingroom.extract import ocr

    assert ocr.available(), "OCR tests need Debian's tesseract-ocr and tesseract-ocr-eng (build.py test installs them)"
    doc = FPDF()
    doc.add_page()
    top, bottom = formats_extra.SCAN_LINES[:2], formats_extra.SCAN_LINES[2:]
    doc.image(io.BytesIO(formats_extra.scan_png(top)), x=10, y=10, w=190)
    doc.image(io.BytesIO(formats_extra.scan_png(bottom)), x=10, y=60, w=190)
    text = " ".join(pdf.read("strips.pdf", bytes(doc.output())).text().split())
    assert "Klinkhammer" in text and "sluice gate now closes fully" in text, text


def test_font_heights_a_damaged_page_gives_as_nothing_are_no_exception():
    """pdf.js's text runs of a fuzzed page (poppler-90-0-fuzzed.pdf) carry a NaN height, which
    reaches Python as null: float(None) raised TypeError in the page, an untyped error."""
    from readingroom.extract.pdfclean import document

    fonts = [[("Harbour log\n", None), ("The keeper lit the lamp at dusk.\n", float("nan")), ("Tide: high.", "x")]]
    doc = document("f.pdf", ["Harbour log\nThe keeper lit the lamp at dusk.\nTide: high."], [], None, fonts)
    assert "The keeper lit the lamp at dusk." in doc.text()


def test_a_filled_forms_fields_are_read_by_ocr_of_the_page_as_drawn():
    """A form filled in on screen holds its values in fields, drawn over a page that may have no
    text of its own: pypdf reads no text there; PDFium draws the fields (``init_forms``) as
    pdf.js does in the page, and OCR reads them."""
    from readingroom.extract import ocr

    assert ocr.available(), "OCR tests need Debian's tesseract-ocr and tesseract-ocr-eng (build.py test installs them)"
    value = b"Harbour permit 4417 for Tobias Klinkhammer"
    look = b"/Tx BMC BT /Helv 20 Tf 0 g 4 10 Td (" + value + b") Tj ET EMC"
    data = written([
        b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /DA (/Helv 20 Tf 0 g) "
        b"/DR << /Font << /Helv 6 0 R >> >> >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>",
        b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (permit) /V (" + value + b") /DA (/Helv 20 Tf 0 g) "
        b"/Rect [40 700 572 740] /F 4 /P 3 0 R /AP << /N 5 0 R >> >>",
        stream(look, b" /Type /XObject /Subtype /Form /BBox [0 0 532 40] /Resources << /Font << /Helv 6 0 R >> >>"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ])
    doc = pdf.read("permit.pdf", data)
    assert "4417" in doc.text() and "Klinkhammer" in doc.text(), doc.text()
