"""Reading text in pictures (OCR) natively: Debian's ``tesseract-ocr`` 5.3.0 with its English
model (``tesseract-ocr-eng``), whose file is checked against its sha256 before first use.

Images (.png, .jpg, .jpeg, .tif, .tiff) become one section per page (a TIFF may hold several);
a PDF page without a text layer is drawn by PDFium and read (``pdf.read_scanned``). A page where
OCR finds no words is reported in the document's notes, never stored empty. In the page there is
no tesseract binary: tesseract.js reads pictures and drawn pages in JavaScript and hands their
words to ``from_pages`` (``read_pages`` there says so with a typed refusal).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import places
from ..errors import BadInput, EmptyDocument, OcrModelMismatch, OcrUnavailable, WrongType
from .document import Document, Section
from .ocr_text import readable

# Debian bookworm's tesseract-ocr-eng 1:4.1.0-2 (tessdata_fast "eng"), as installed.
MODEL_SHA256 = "7d4322bd2a7749724879683fc3912cb542f19906c83bcc1a52132556427170b2"
MODEL_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata")
IMAGE_SIGNATURES = {"png": (b"\x89PNG",), "jpg": (b"\xff\xd8\xff",),
                    "tiff": (b"II*\x00", b"MM\x00*")}
_checked: set[str] = set()


def _model_dir() -> str:
    explicit = os.environ.get("READINGROOM_TESSDATA")
    for d in ([explicit] if explicit else []) + list(MODEL_DIRS):
        if d and Path(d, "eng.traineddata").exists():
            return d
    raise OcrUnavailable("reading text in pictures needs Debian's tesseract-ocr-eng "
                         "(apt-get install tesseract-ocr tesseract-ocr-eng)")


def check_model(directory: str) -> None:
    path = Path(directory, "eng.traineddata")
    if str(path) in _checked:
        return
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise OcrModelMismatch(f"the OCR language file {path} fails its check (sha256 {digest[:12]}…, "
                               f"expected {MODEL_SHA256[:12]}…); reinstall tesseract-ocr-eng")
    _checked.add(str(path))


def available() -> bool:
    return shutil.which("tesseract") is not None


def read_pages(name: str, image: bytes) -> list[str]:
    """The text of each page of an image file (``\\f`` between pages, as tesseract writes)."""
    if sys.platform == "emscripten":
        raise OcrUnavailable(f"{name}: reading text in pictures (OCR) is not built into the page yet; "
                             "the command line reads it (readingroom index)")
    if not available():
        raise OcrUnavailable(f"{name}: reading text in pictures (OCR) needs tesseract, which is "
                             "not installed here (apt-get install tesseract-ocr tesseract-ocr-eng)")
    directory = _model_dir()
    check_model(directory)
    with tempfile.TemporaryDirectory(prefix="readingroom-ocr-") as tmp:
        src = Path(tmp, "image")
        src.write_bytes(image)
        try:
            proc = subprocess.run(["tesseract", str(src), "stdout", "--tessdata-dir", directory, "-l", "eng"],
                                  capture_output=True, timeout=300, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        except subprocess.TimeoutExpired as e:
            raise BadInput(f"{name}: OCR took over 5 minutes and was stopped") from e
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["unknown error"]
        raise BadInput(f"{name}: the picture could not be read ({why[0]})")
    return proc.stdout.decode("utf-8", "replace").split("\f")


def document(name: str, pages: list[str]) -> Document:
    """OCR'd pages as sections (``page`` set, marked as read by OCR); empty pages noted."""
    sections, notes = [], []
    for number, text in enumerate(pages, start=1):
        text = readable("\n".join(line.rstrip() for line in text.strip().split("\n")))
        if any(ch.isalnum() for ch in text):
            sections.append(Section((places.OCR,), text, page=number))
        else:
            notes.append(f"{name}: OCR found no words on page {number}; nothing of it was stored")
    return Document("image", sections, notes=notes, pages=len(pages))


def read_image(name: str, data: bytes, doc_type: str) -> Document:
    if not data.startswith(IMAGE_SIGNATURES.get(doc_type, ())):
        raise WrongType(f"{name} is not a {doc_type.upper()} image; check its extension")
    pages = [p for p in read_pages(name, data)]
    if len(pages) > 1 and not pages[-1].strip():
        pages = pages[:-1]  # tesseract ends its output with a form feed
    return from_pages(name, pages, doc_type)


def from_pages(name: str, pages: list[str], doc_type: str) -> Document:
    """A picture's document from the words OCR read on each of its pages (here or in the page)."""
    doc = document(name, pages)
    doc.doc_type = doc_type
    if not doc.sections:
        raise EmptyDocument(f"{name}: OCR found no words in this picture")
    return doc
