"""PDFs: natively, pypdf reads each page's text and the bookmark outline; in the page,
pdf.js does (``web/api/pdf.js``). Both hand the same two things to ``pdfclean.document``,
which does everything else in Python, so the clean-up is one implementation."""

from __future__ import annotations

import io
import logging

from ..errors import BadInput, Encrypted
from .document import Document
from .pdfclean import document


def _outline(reader) -> list[tuple[int, str, int]]:
    """(level, title, 1-based page) for every bookmark, in outline order."""
    out: list[tuple[int, str, int]] = []

    def walk(items, level):
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # noqa: BLE001 - a broken bookmark is skipped, not fatal
                continue
            if page is not None and page >= 0:
                out.append((level, str(item.title or "").strip(), page + 1))

    try:
        walk(reader.outline, 1)
    except Exception:  # noqa: BLE001 - pypdf raises several types on damaged outlines
        return []
    return out


def _page_text(page) -> tuple[str, list[tuple[str, float]]]:
    """A page's text, and its runs as (text, font height): the font size scaled by the text
    and transformation matrices' vertical scale."""
    runs: list[tuple[str, float]] = []

    def visit(text, cm, tm, _font, size):
        if text:
            runs.append((text, abs(float(size or 0) * float(tm[3]) * float(cm[3]))))

    return page.extract_text(visitor_text=visit) or "", runs


def pdf_pages(name: str, data: bytes, fonts: list | None = None) -> tuple[list[str], list[tuple[int, str, int]]]:
    """Text per page and the outline (natively, with pypdf); a reason for PDFs we cannot read.
    ``fonts``, when given, receives each page's (text, font height) runs."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as e:  # pragma: no cover - packaging error
        raise BadInput("reading PDFs natively needs pypdf: pip install 'readingroom[native]'") from e
    # pypdf logs what it repairs ("EOF marker not found") as warnings, which Python prints on
    # stderr when nothing is set up to hear them; what cannot be read is reported as BadInput.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception as e:  # noqa: BLE001 - pypdf raises several types
                raise Encrypted(f"{name} is encrypted; remove the password and add it again") from e
            if not ok:
                raise Encrypted(f"{name} is encrypted; remove the password and add it again")
        read = [_page_text(page) for page in reader.pages]
        pages = [text for text, _runs in read]
        if fonts is not None:
            fonts.extend(runs for _text, runs in read)
        outline = _outline(reader)
    except BadInput:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as e:
        raise BadInput(f"{name} is not a readable PDF ({type(e).__name__}: {e})") from e
    return pages, outline


def read_scanned(name: str, data: bytes, pages: list[str]) -> tuple[list[str], set[int]]:
    """Pages without a text layer read by OCR from their largest picture (natively, with
    tesseract): the pages with that text in, and the numbers of the pages OCR read."""
    from pypdf import PdfReader

    from . import ocr

    empty = [i for i, p in enumerate(pages) if not p.strip()]
    if not empty or not ocr.available():
        return pages, set()
    reader = PdfReader(io.BytesIO(data))
    out, read = list(pages), set()
    for i in empty:
        try:
            images = list(reader.pages[i].images)
        except Exception:  # noqa: BLE001 - an image pypdf cannot decode is no text either
            images = []
        if not images:
            continue
        best = max(images, key=lambda im: im.image.width * im.image.height if im.image else 0)
        if best.image is None:
            continue
        buf = io.BytesIO()
        best.image.save(buf, "PNG")
        out[i] = ocr.read_pages(f"{name} page {i + 1}", buf.getvalue())[0]
        read.add(i + 1)
    return out, read


def read(name: str, data: bytes) -> Document:
    fonts: list = []
    pages, outline = pdf_pages(name, data, fonts)
    pages, scanned = read_scanned(name, data, pages)
    return document(name, pages, outline, scanned, fonts)
