"""Every format a person's library holds, read into one shape: ``extract(name, data)`` gives
a ``Document`` (sections with heading paths, pages, tables as pipe tables).

One module per format, all pure Python over the standard library (``zipfile``,
``xml.etree``, ``html.parser``, ``csv``), so the very same code reads a file natively and
under Pyodide in the page, and nothing is loaded before the first such file arrives. PDFs
are the one exception: their text per page comes from pypdf natively and pdf.js in the page,
and ``pdfclean`` does the rest on both sides.
"""

from __future__ import annotations

from ..errors import EmptyDocument, Unsupported
from .document import Document, Section, whole

# extension -> the type recorded for the document
FORMATS = {
    "md": "md", "markdown": "md", "txt": "txt", "text": "txt", "html": "html", "htm": "html", "xhtml": "html", "xht": "html",
    "pdf": "pdf", "docx": "docx", "docm": "docx", "pptx": "pptx", "pptm": "pptx",
    "xlsx": "xlsx", "xlsm": "xlsx", "ods": "ods", "csv": "csv", "tsv": "tsv", "odt": "odt",
    "odp": "odp", "epub": "epub", "rtf": "rtf",
    # templates are the same packages under another extension: read as the documents they make
    "dotx": "docx", "dotm": "docx", "xltx": "xlsx", "xltm": "xlsx", "potx": "pptx", "potm": "pptx",
    "ott": "odt", "ots": "ods", "otp": "odp",
    **{ext: ext for ext in ("py", "js", "ts", "java", "go", "rs", "c", "h", "cpp", "json", "yaml",
                            "toml", "rst", "org", "tex")},
    "yml": "yaml", "png": "png", "jpg": "jpg", "jpeg": "jpg", "tif": "tiff", "tiff": "tiff",
}
TEXT_TYPES = {"md", "txt", "html", "csv", "tsv", "py", "js", "ts", "java", "go", "rs", "c", "h",
              "cpp", "json", "yaml", "toml", "rst", "org", "tex"}
BINARY_TYPES = {"pdf", "docx", "pptx", "xlsx", "ods", "odt", "odp", "epub", "rtf", "png", "jpg", "tiff"}
READ_AS_TEXT = {"md", "txt"}  # chunked by the plain chunker (no sections of their own)
SUPPORTED = ("Markdown, text, HTML, PDF, Word, PowerPoint, Excel, OpenDocument, EPUB, RTF, CSV/TSV, "
             "source files and pictures")


def extension(name: str) -> str:
    leaf = name.replace("\\", "/").rsplit("/", 1)[-1]
    return leaf.rsplit(".", 1)[-1].lower() if "." in leaf else ""


def type_of(name: str, given: str | None = None) -> str:
    """The document type for a name (and the type a caller gave, if any)."""
    if given:
        t = given.lower().lstrip(".")
        return FORMATS.get(t, t)
    ext = extension(name)
    return FORMATS.get(ext, ext) if ext else "txt"


# Older and other programs' formats, each with what to save it as (web/api/files.js has the same table)
OLDER = {
    "doc": ("a Word 97–2003 document", "docx"), "dot": ("a Word 97–2003 template", "docx"),
    "xls": ("an Excel 97–2003 workbook", "xlsx"), "xlt": ("an Excel 97–2003 template", "xlsx"),
    "xlsb": ("an Excel binary workbook", "xlsx"),
    "ppt": ("a PowerPoint 97–2003 presentation", "pptx"), "pps": ("a PowerPoint 97–2003 slide show", "pptx"),
    "pot": ("a PowerPoint 97–2003 template", "pptx"),
    "pages": ("an Apple Pages document", "docx"), "numbers": ("an Apple Numbers spreadsheet", "xlsx"),
    "key": ("an Apple Keynote presentation", "pptx"),
}


def why_unread(doc_type: str) -> str:
    """Why a file of this extension is not read, and for a format another program can convert,
    what to save it as."""
    if doc_type in OLDER:
        what, new = OLDER[doc_type]
        return (f"{what} (.{doc_type}), which Reading Room does not read: save it as .{new} (or PDF) "
                "in the program that made it")
    kind = f".{doc_type} files" if doc_type else "files without an extension"
    return f"{kind} are not read (Reading Room reads {SUPPORTED})"


def unsupported(name: str, doc_type: str) -> Unsupported:
    return Unsupported(f"{name}: {why_unread(doc_type)}")


def from_text(name: str, text: str, doc_type: str) -> Document:
    """A document whose text is already decoded (the page decodes text files itself)."""
    if doc_type in ("csv", "tsv"):
        from .sheets import read_delimited

        return read_delimited(name, text, doc_type)
    if doc_type not in TEXT_TYPES:
        raise unsupported(name, doc_type)
    from .text import read_text

    return read_text(name, text, doc_type)


def from_bytes(name: str, data: bytes, doc_type: str) -> Document:
    """A document from a file's bytes; a typed ``BadInput`` with a sentence when it cannot be."""
    if doc_type in TEXT_TYPES:
        from .text import decoded

        text, note = decoded(name, data)
        doc = from_text(name, text, doc_type)
        doc.notes.extend([note] if note else [])
        return doc
    if not data:
        raise EmptyDocument(f"{name} is empty")
    if doc_type == "pdf":
        from . import pdf

        return pdf.read(name, data)
    if doc_type == "docx":
        from . import docx

        return docx.read(name, data)
    if doc_type == "pptx":
        from . import pptx

        return pptx.read(name, data)
    if doc_type == "xlsx":
        from .sheets import read_xlsx

        return read_xlsx(name, data)
    if doc_type in ("odt", "odp", "ods"):
        from . import odf

        return odf.read(name, data, doc_type)
    if doc_type == "epub":
        from . import epub

        return epub.read(name, data)
    if doc_type == "rtf":
        from . import rtf

        return rtf.read(name, data)
    if doc_type in ("png", "jpg", "tiff"):
        from . import ocr

        return ocr.read_image(name, data, doc_type)
    raise unsupported(name, doc_type)


def extract(name: str, data: bytes, doc_type: str | None = None) -> Document:
    """``(name, bytes) -> Document``: the one entry point, natively and in the page; its text
    is whole characters (no lone UTF-16 surrogate half, which cannot be stored or shown)."""
    return whole(from_bytes(name, data, type_of(name, doc_type)))


__all__ = ["Document", "Section", "FORMATS", "extract", "from_bytes", "from_text", "type_of"]
