"""Adding documents: decode, chunk, embed, then store in one transaction.

The slow part (embedding) happens before the transaction opens, so a dead embedder or a
closed tab leaves the database exactly as it was; the write itself replaces all of a
document's chunks, vectors and FTS rows at once or not at all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .chunking import ChunkSettings, chunk_text, embedding_text
from .errors import BadInput, Cancelled, DocumentTooLarge, EmptyDocument, NotText, ReadingRoomError
from .extract import html_to_text, pdf_pages
from .index import Index
from .merge import text_hash
from .records import Chunk
from .seams import Embedder

# Limits a person can be told about: text beyond 10 MB would take the in-browser embedder
# (about 10 chunks a second) the better part of an hour; a PDF file may be larger than its
# text, so raw files get more room.
MAX_TEXT_BYTES = 10 * 1024 * 1024
MAX_FILE_BYTES = 100 * 1024 * 1024
TEXT_TYPES = ("md", "txt", "html", "pdf")
EMBED_BATCH = 32


@dataclass(frozen=True)
class NewDocument:
    """A document as the caller hands it over: its text already decoded, or raw bytes."""

    name: str
    text: str | None = None
    data: bytes | None = None
    doc_type: str | None = None
    meta: dict = field(default_factory=dict)
    pages: tuple[str, ...] | None = None  # for PDFs: text per page, 1-based in order


@dataclass(frozen=True)
class Outcome:
    name: str
    status: str  # added | replaced | unchanged | error
    doc_id: int | None = None
    chunks: int = 0
    error: dict | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def doc_type_of(name: str, given: str | None) -> str:
    if given:
        t = given.lower().lstrip(".")
        return {"markdown": "md", "text": "txt", "htm": "html"}.get(t, t)
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else "txt"
    return {"markdown": "md", "htm": "html", "text": "txt"}.get(ext, ext)


def decode(name: str, data: bytes) -> str:
    """Strict UTF-8 (a BOM is allowed); anything else is refused with a reason."""
    if len(data) > MAX_TEXT_BYTES:
        raise DocumentTooLarge(f"{name} is {len(data) / 2**20:.0f} MB of text; the limit is {MAX_TEXT_BYTES // 2**20} MB")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise NotText(f"{name} is UTF-16 text; save it as UTF-8 and add it again")
    if b"\x00" in data[:65536]:
        raise NotText(f"{name} looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NotText(f"{name} is not UTF-8 text (bad byte at position {e.start})") from e


def document_hash(text: str, meta: dict) -> str:
    """What "unchanged" means: the same text (as extracted) and the same metadata."""
    return hashlib.sha256((text + repr(sorted(meta.items()))).encode("utf-8")).hexdigest()


def prepare(doc: NewDocument, settings: ChunkSettings) -> tuple[str, str, list[Chunk]]:
    """The document's type, its text and its chunks, or a ``BadInput`` saying why not."""
    if not doc.name or not doc.name.strip():
        raise BadInput("a document needs a name")
    doc_type = doc_type_of(doc.name, doc.doc_type)
    if doc_type not in TEXT_TYPES:
        raise BadInput(f"{doc.name}: .{doc_type} files are not supported (use {', '.join(TEXT_TYPES)})")
    pages = doc.pages
    if pages is None and doc_type == "pdf":
        if doc.data is None:
            raise BadInput(f"{doc.name}: a PDF needs its bytes or its pages")
        if len(doc.data) > MAX_FILE_BYTES:
            raise DocumentTooLarge(f"{doc.name} is {len(doc.data) / 2**20:.0f} MB; the limit for files is {MAX_FILE_BYTES // 2**20} MB")
        pages = tuple(pdf_pages(doc.name, doc.data))
    if pages is not None:
        if sum(len(p.encode("utf-8")) for p in pages) > MAX_TEXT_BYTES:
            raise DocumentTooLarge(f"{doc.name} has over {MAX_TEXT_BYTES // 2**20} MB of text")
        chunks: list[Chunk] = []
        for number, page_text in enumerate(pages, start=1):
            chunks += chunk_text(page_text, "txt", settings, page=number, base_index=len(chunks))
        text = "\f".join(pages)
    else:
        text = doc.text if doc.text is not None else decode(doc.name, doc.data or b"")
        if len(text.encode("utf-8")) > MAX_TEXT_BYTES:
            raise DocumentTooLarge(f"{doc.name} is over the {MAX_TEXT_BYTES // 2**20} MB text limit")
        if doc_type == "html":
            text = html_to_text(text)  # offsets then refer to the extracted text
        chunks = chunk_text(text, "md" if doc_type == "html" else doc_type, settings)
    if "\x00" in text[:65536]:  # text that arrived decoded (the browser) but is binary
        raise NotText(f"{doc.name} looks like a binary file, not text")
    if not text.strip() or not chunks:
        if doc_type == "pdf":
            raise EmptyDocument(f"{doc.name} has no text layer (scanned images?); OCR is not supported")
        raise EmptyDocument(f"{doc.name} has no text to index")
    return doc_type, text, chunks


async def add_documents(index: Index, embedder: Embedder, docs: Sequence[NewDocument],
                        settings: ChunkSettings = ChunkSettings(),
                        progress: Callable[[dict], None] = lambda e: None,
                        cancelled: Callable[[], bool] = lambda: False,
                        then: Sequence[str] = ()) -> list[Outcome]:
    """Add or replace each document; one bad document never stops the others.

    The names still to do are recorded in the index as the work goes (with each stored
    document, in its transaction), so if the process dies the next session can say which
    files did not finish. ``then`` names what the caller's larger run still has to do after
    these documents (the CLI adds one file at a time): the record keeps them, so a kill
    between two calls still names every file not yet done. A normal end, a cancel or an
    error leaves the record at ``then`` (empty: cleared)."""
    outcomes: list[Outcome] = []
    names = [d.name for d in docs]
    if not names:
        return outcomes
    then = list(then)
    index.set_unfinished(names + then)
    try:
        for i, doc in enumerate(docs):
            rest = names[i + 1 :] + then
            try:
                outcome = await _add_one(index, embedder, doc, settings, progress, i, len(docs),
                                         cancelled, rest)
                outcomes.append(outcome)
            except ReadingRoomError as e:
                outcomes.append(Outcome(name=doc.name, status="error", error=e.to_dict()))
                if e.kind == "cancelled":
                    break
            if outcomes[-1].status != "added" and outcomes[-1].status != "replaced":
                index.set_unfinished(rest)  # nothing stored, so no transaction recorded it
            progress({"event": "document", "done": i + 1, "total": len(docs), "name": doc.name,
                      "status": outcomes[-1].status})
    finally:
        try:
            index.set_unfinished(then)
        except ReadingRoomError:
            pass  # storage gone: the record stays and the next session reports it
    return outcomes


async def _add_one(index: Index, embedder: Embedder, doc: NewDocument, settings: ChunkSettings,
                   progress: Callable[[dict], None], i: int, n: int,
                   cancelled: Callable[[], bool], after: Sequence[str] = ()) -> Outcome:
    index.require_compatible()
    doc_type, text, chunks = prepare(doc, settings)
    digest = document_hash(text, doc.meta)
    existing = index.find(doc.name)
    if existing and existing[1] == digest:
        if existing[2] != doc.meta.get("source_type"):
            # The same text was there as part of the bundled set: added by the user, it is
            # theirs now, and a later bundle version must not take it away.
            index.set_source(existing[0], doc.meta.get("source_type"))
        return Outcome(name=doc.name, status="unchanged", doc_id=existing[0], chunks=len(chunks))
    inputs = [embedding_text(c) for c in chunks]
    vectors = []
    for b in range(0, len(inputs), EMBED_BATCH):
        if cancelled():
            raise Cancelled(f"adding {doc.name} was cancelled; nothing of it was stored")
        vectors.append(await embedder.embed(inputs[b : b + EMBED_BATCH]))
        progress({"event": "chunks", "name": doc.name, "document": i + 1, "documents": n,
                  "done": min(b + EMBED_BATCH, len(inputs)), "total": len(inputs)})
    doc_id = index.replace_document(
        name=doc.name, doc_type=doc_type, content_hash=digest, size=len(text.encode("utf-8")),
        meta=dict(doc.meta), chunks=chunks, vectors=np.concatenate(vectors),
        text_hashes=[text_hash(c.text) for c in chunks], unfinished=after,
    )
    return Outcome(name=doc.name, status="replaced" if existing else "added", doc_id=doc_id,
                   chunks=len(chunks))
