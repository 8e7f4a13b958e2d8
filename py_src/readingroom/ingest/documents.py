"""A document as the caller hands it over, and ``prepare``: its text read (``extract``),
checked against the limits a person can be told about, and chunked."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .chunking import ChunkSettings, chunk_sections, chunk_text
from ..errors import BadInput, DocumentTooLarge, EmptyDocument, NotText
from ..extract import FORMATS, READ_AS_TEXT, Document, from_bytes, from_text, type_of, unsupported
from ..extract import text as text_format
from ..extract.document import whole, whole_characters
from ..extract.pdfclean import document as pdf_document
from ..records import Chunk

# Limits a person can be told about: text beyond 10 MB would take the in-browser embedder
# (about 10 chunks a second) the better part of an hour; a file (PDF, Office, EPUB) may be
# larger than its text, so raw files get more room.
MAX_TEXT_BYTES = text_format.MAX_TEXT_BYTES
MAX_FILE_BYTES = 100 * 1024 * 1024
TEXT_TYPES = tuple(sorted(set(FORMATS.values())))


@dataclass(frozen=True)
class NewDocument:
    """A document as the caller hands it over: its text already decoded, or raw bytes.
    ``pages`` (with ``outline``: ``(level, title, page)`` bookmarks) is a PDF read elsewhere
    (pdf.js in the page)."""

    name: str
    text: str | None = None
    data: bytes | None = None
    doc_type: str | None = None
    meta: dict = field(default_factory=dict)
    pages: tuple[str, ...] | None = None  # for PDFs: text per page, 1-based in order
    outline: tuple[tuple[int, str, int], ...] = ()
    scanned: tuple[int, ...] = ()  # PDF pages whose text OCR read (in the page)
    unreadable: tuple[int, ...] = ()  # PDF pages the page's reader could not decode (damaged)
    fonts: tuple = ()  # PDF pages as (text, font height) runs: headings when there is no outline
    ocr_pages: tuple[str, ...] | None = None  # a picture's text per page, read by OCR in the page


def doc_type_of(name: str, given: str | None) -> str:
    return type_of(name, given)



def document_hash(text: str, meta: dict) -> str:
    """What "unchanged" means: the same text (as extracted) and the same metadata."""
    return hashlib.sha256((text + repr(sorted(meta.items()))).encode("utf-8")).hexdigest()


def _extracted(doc: NewDocument, doc_type: str) -> Document:
    if doc.pages is not None:
        return pdf_document(doc.name, list(doc.pages), list(doc.outline), set(doc.scanned), list(doc.fonts),
                            set(doc.unreadable))
    if doc.ocr_pages is not None:
        from ..extract.ocr import from_pages  # only when the page sends a picture's words

        return from_pages(doc.name, list(doc.ocr_pages), doc_type)
    if doc.text is not None:
        given = whole_characters(doc.text)
        if len(given.encode("utf-8")) > MAX_TEXT_BYTES:
            raise DocumentTooLarge(f"{doc.name} is over the {MAX_TEXT_BYTES // 2**20} MB text limit")
        return from_text(doc.name, given, doc_type)
    data = doc.data or b""
    if doc_type == "pdf" and doc.data is None:
        raise BadInput(f"{doc.name}: a PDF needs its bytes or its pages")
    if len(data) > MAX_FILE_BYTES:
        raise DocumentTooLarge(f"{doc.name} is {len(data) / 2**20:.0f} MB; the limit for files is {MAX_FILE_BYTES // 2**20} MB")
    return from_bytes(doc.name, data, doc_type)


def prepare_document(doc: NewDocument, settings: ChunkSettings) -> tuple[Document, str, list[Chunk]]:
    """The extracted document, its text and its chunks, or a ``BadInput`` saying why not."""
    if not doc.name or not doc.name.strip():
        raise BadInput("a document needs a name")
    doc_type = doc_type_of(doc.name, doc.doc_type)
    if doc_type not in FORMATS.values():
        raise unsupported(doc.name, doc_type)
    # whatever a reader let through, text stored is whole characters (a lone surrogate cannot be UTF-8)
    extracted = whole(_extracted(doc, doc_type))
    if doc_type in READ_AS_TEXT:  # Markdown is cut at its own headings by the chunker
        text = extracted.text()
        chunks = chunk_text(text, doc_type, settings)
    else:
        text, chunks = chunk_sections(extracted.sections, settings)
    if len(text.encode("utf-8")) > MAX_TEXT_BYTES:
        raise DocumentTooLarge(f"{doc.name} has over {MAX_TEXT_BYTES // 2**20} MB of text")
    if "\x00" in text[:65536]:  # text that arrived decoded (the browser) but is binary
        raise NotText(f"{doc.name} looks like a binary file, not text")
    if not text.strip() or not chunks:
        if doc_type == "pdf":
            raise EmptyDocument(f"{doc.name} has no text layer and no words OCR could read")
        raise EmptyDocument(f"{doc.name} has no text to index")
    return extracted, text, chunks


def prepare(doc: NewDocument, settings: ChunkSettings) -> tuple[str, str, list[Chunk]]:
    """The document's type, its text and its chunks, or a ``BadInput`` saying why not."""
    extracted, text, chunks = prepare_document(doc, settings)
    return extracted.doc_type, text, chunks
