"""Text out of HTML and PDF files, as the chunker wants it.

HTML becomes Markdown-like text: scripts, styles and other non-content elements are
dropped, block elements end lines, and ``<h1>``–``<h6>`` become ``#`` headings so HTML
gets the same heading-aware chunking as Markdown. It runs in Python on both sides, so a
page's text is the same natively and in the browser. PDFs are read natively with pypdf;
the browser extracts per-page text with pdf.js and hands the pages over.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .errors import BadInput, EmptyDocument

_SKIP = {"script", "style", "noscript", "template", "head", "svg", "iframe", "object"}
_BLOCK = {"p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "li",
          "ul", "ol", "table", "tr", "blockquote", "pre", "br", "hr", "dd", "dt", "figure",
          "figcaption", "h1", "h2", "h3", "h4", "h5", "h6"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source",
         "track", "wbr"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _SKIP:
            if tag not in _VOID:
                self.skip += 1
            return
        if tag in _BLOCK:
            self.parts.append("\n\n")
        if re.fullmatch(r"h[1-6]", tag) and not self.skip:
            self.parts.append("#" * int(tag[1]) + " ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def pdf_pages(name: str, data: bytes) -> list[str]:
    """Text per page (natively, with pypdf); a clear reason for PDFs we cannot read."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as e:  # pragma: no cover - packaging error
        raise BadInput("reading PDFs natively needs pypdf: pip install 'readingroom[native]'") from e
    import io

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise BadInput(f"{name} is encrypted; remove the password and add it again")
            except (NotImplementedError, Exception) as e:  # noqa: BLE001 - pypdf raises several types
                if isinstance(e, BadInput):
                    raise
                raise BadInput(f"{name} is encrypted; remove the password and add it again") from e
        pages = [(page.extract_text() or "") for page in reader.pages]
    except BadInput:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as e:
        raise BadInput(f"{name} is not a readable PDF ({type(e).__name__}: {e})") from e
    if not any(p.strip() for p in pages):
        raise EmptyDocument(f"{name} has no text layer (scanned images?); OCR is not supported")
    return pages
