"""What OCR reads in a photograph is noise, not a document: a picture or a scanned page whose
OCR text is not words is "OCR found no words", like a blank page, natively and in the page
(both hand OCR's text to the same Python)."""

from __future__ import annotations

import pytest

from readingroom.errors import EmptyDocument
from readingroom.extract.ocr import from_pages
from readingroom.extract.ocr_text import readable
from readingroom.extract.pdfclean import document

# What tesseract.js read in py-pdf/sample-files' 023-cmyk-image.pdf, a photo of clouds over a forest.
PHOTO = "EE cS :\n: be a ho i STE\net : il Me\nLa \u2122 fy 5 Po: 5 a\na or 2 isis,\n+\nog\ni Be\n3 ;"


@pytest.mark.parametrize("text", [
    "Invoice from the village bakery\nHenrietta Pfannkuchen ordered forty sacks of rye flour.",
    "ANNUAL REPORT 2024", "Total 120.00 45.00 12/03/2024 VAT 19%", "\u201cHello,\u201d said Mrs. O\u2019Brien-Smith.",
])
def test_text_reads_as_words(text):
    assert readable(text) == text


@pytest.mark.parametrize("text", [PHOTO, "", "a", "\u2014 | ~", "I 1 | ~ ."])
def test_noise_reads_as_nothing(text):
    assert readable(text) == ""


def test_a_photo_is_not_stored_as_words():
    with pytest.raises(EmptyDocument, match="OCR found no words"):
        from_pages("clouds.jpg", [PHOTO], "jpg")
    doc = from_pages("two.png", ["The harbour opens at dawn.", PHOTO], "png")
    assert [s.page for s in doc.sections] == [1] and doc.notes == [
        "two.png: OCR found no words on page 2; nothing of it was stored"]


def test_a_scanned_page_of_a_photo_is_a_page_without_words():
    doc = document("album.pdf", ["A text page.", PHOTO], scanned={2})
    assert [s.page for s in doc.sections] == [1]
    assert doc.notes == ["album.pdf: page 2 has no text (OCR found no words)"]
    kept = document("album.pdf", ["A text page.", PHOTO])  # a text layer is the document's own text
    assert [s.page for s in kept.sections] == [1, 2]
    with pytest.raises(EmptyDocument, match="OCR found no words"):
        document("sky.pdf", [PHOTO], scanned={1})
