"""PDFs: natively, pypdf reads each page's text and the bookmark outline; in the page,
pdf.js does (``web/api/pdf.js``). Both hand the same two things to ``pdfclean.document``,
which does everything else in Python, so the clean-up is one implementation."""

from __future__ import annotations

import contextlib
import io
import logging

from ..errors import ArchiveTooLarge, BadInput, Encrypted
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


def pdf_pages(name: str, data: bytes, fonts: list | None = None,
              unreadable: set[int] | None = None) -> tuple[list[str], list[tuple[int, str, int]]]:
    """Text per page and the outline (natively, with pypdf); a reason for PDFs we cannot read.
    ``fonts``, when given, receives each page's (text, font height) runs; ``unreadable`` the
    numbers of pages whose contents pypdf could not decode (they count as pages without text;
    when every page is so, the file is not a readable PDF)."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import DependencyError, DeprecationError, PyPdfError
    except ImportError as e:  # pragma: no cover - packaging error
        raise BadInput("reading PDFs natively needs pypdf: pip install 'readingroom[native]'") from e
    damaged = (PyPdfError, DependencyError, DeprecationError, ValueError, KeyError, TypeError, OSError,
               AttributeError, IndexError, RecursionError)
    failed: list[tuple[int, Exception]] = []

    def page_text(n: int, page) -> tuple[str, list]:
        try:
            return _page_text(page)
        except damaged as e:  # one damaged page (a fuzzed stream, a filter pypdf dropped) is not the file
            failed.append((n, e))
            return "", []

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
        read = [page_text(n, page) for n, page in enumerate(reader.pages, start=1)]
        if read and len(failed) == len(read):
            raise failed[0][1]
        pages = [text for text, _runs in read]
        if fonts is not None:
            fonts.extend(runs for _text, runs in read)
        outline = _outline(reader)
    except BadInput:
        raise
    except damaged as e:
        if type(e).__name__ == "LimitReachedError" and any(w in str(e).lower() for w in ("memory", "decompress")):
            raise ArchiveTooLarge(f"{name} holds a stream or picture that would unpack past the memory limit (a "
                                  "decompression bomb, or a picture too large to read); it was not read") from e
        raise BadInput(f"{name} is not a readable PDF ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})") from e
    if unreadable is not None:
        unreadable.update(n for n, _e in failed)
    return pages, outline


RENDER_DPI = 300  # as the page renders a page for OCR (web/api/files.js)
MAX_RENDER_PIXELS = 40_000_000  # an A4 page at 300 dpi is 8.7 million; a poster is scaled down to this


def read_scanned(name: str, data: bytes, pages: list[str]) -> tuple[list[str], set[int]]:
    """Pages without a text layer read by OCR (natively, with tesseract): each page as it is
    drawn, rendered at 300 dpi by PDFium as the page renders it with pdf.js (a scan stored in
    strips, text drawn as outlines, a JBIG2 scan, a filled form's fields); without PDFium, or
    for a page it cannot draw, the page's largest picture. One page is drawn at a time.
    Returns the pages with that text in, and the numbers of the pages OCR read."""
    from pypdf import PdfReader

    from . import ocr

    empty = [i for i, p in enumerate(pages) if not p.strip()]
    if not empty or not ocr.available():
        return pages, set()
    out, read = list(pages), set()
    reader = None
    with _drawing(data) as draw:
        for i in empty:
            png = draw(i)
            if png is None:
                reader = reader or PdfReader(io.BytesIO(data))
                png = _largest_picture(reader, i)
            if png is None:
                continue
            out[i] = ocr.read_pages(f"{name} page {i + 1}", png)[0]
            read.add(i + 1)
    return out, read


@contextlib.contextmanager
def _drawing(data: bytes):
    """A function drawing page ``i`` (0-based) of the PDF in grey at ``RENDER_DPI`` (at most
    ``MAX_RENDER_PIXELS``) as PNG bytes, by PDFium (pypdfium2), the document opened once; it
    gives None without PDFium, or for a page PDFium cannot draw."""
    doc = None
    try:
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(data)
        doc.init_forms()  # a filled form's fields are drawn, as pdf.js draws them
    except Exception:  # noqa: BLE001 - not installed (the page), or PDFium's own errors: pypdf's reading stands
        doc = None
    try:
        yield (lambda i: _draw(doc, i)) if doc is not None else (lambda i: None)
    finally:
        if doc is not None:
            doc.close()


def _draw(doc, i: int) -> bytes | None:
    try:
        page = doc[i]
        try:
            width, height = page.get_size()  # points
            scale = RENDER_DPI / 72
            if width * height * scale * scale > MAX_RENDER_PIXELS:
                scale = (MAX_RENDER_PIXELS / max(1.0, width * height)) ** 0.5
            picture = page.render(scale=scale, grayscale=True, may_draw_forms=True).to_pil()
        finally:
            page.close()
        buf = io.BytesIO()
        picture.save(buf, "PNG")
        return buf.getvalue()
    except Exception:  # noqa: BLE001 - a page PDFium cannot draw is no picture
        return None


def _largest_picture(reader, i: int) -> bytes | None:
    """Page ``i``'s largest picture as PNG bytes; None when it has none pypdf and Pillow can
    decode (a JBIG2 scan without the jbig2dec program, a damaged stream): no text either."""
    try:
        pictures = [im.image for im in reader.pages[i].images]
        pictures = [p for p in pictures if p is not None]
        if not pictures:
            return None
        best = max(pictures, key=lambda p: p.width * p.height)
        if best.mode not in ("1", "L", "RGB", "RGBA"):
            best = best.convert("RGB")  # a CMYK or palette scan: PNG holds neither as it is
        buf = io.BytesIO()
        best.save(buf, "PNG")
        return buf.getvalue()
    except Exception:  # noqa: BLE001 - pypdf and Pillow raise many types for pictures they cannot decode
        return None


def read(name: str, data: bytes) -> Document:
    fonts: list = []
    unreadable: set[int] = set()
    pages, outline = pdf_pages(name, data, fonts, unreadable)
    pages, scanned = read_scanned(name, data, pages)
    # a damaged page OCR read from PDFium's drawing is a page; one it found nothing on stays damaged
    return document(name, pages, outline, scanned, fonts, {n for n in unreadable if not pages[n - 1].strip()})
