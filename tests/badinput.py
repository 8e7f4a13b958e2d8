"""The bad-input corpus: generated inputs with the exact outcome each must get.

Used by the native suite (the Python API) and by the browser suite (the same documents
and queries through the app). Nothing here is a checked-in binary: PDFs are made with
fpdf2 and then broken on purpose.
"""

from __future__ import annotations

import io
import zipfile


def pdf_bytes(pages: list[str], encrypt: bool = False, image_only: bool = False) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        if image_only:
            pdf.rect(20, 20, 100, 60, style="F")  # drawn content, no text layer
        else:
            pdf.multi_cell(0, 8, text)
    if encrypt:
        pdf.set_encryption(owner_password="owner", user_password="secret")
    return bytes(pdf.output())


def zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a.txt", "hello " * 1000)
    return buf.getvalue()


# (case id, document kwargs for NewDocument, expected status, error type or None, message part)
DOCUMENTS = [
    ("latin1", dict(name="latin1.txt", data="café crème".encode("latin-1")), "added", None, None),
    ("utf16-bom", dict(name="u16.txt", data="hello".encode("utf-16")), "added", None, None),
    ("cyrillic-cp1251", dict(name="ru.txt", data="Привет, это текст о библиотеках.".encode("cp1251")), "error", "not_text",
     "not UTF-8"),
    ("nul-bytes", dict(name="nul.md", data=b"text\x00with\x00nuls"), "error", "not_text", "binary"),
    ("png-as-txt", dict(name="photo.txt", data=b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)), "error", "not_text", "binary"),
    ("zip-as-md", dict(name="archive.md", data=zip_bytes()), "error", "not_text", None),
    ("half-binary", dict(name="half.txt", data=b"plain text " * 50 + bytes(range(256))), "error", "not_text", None),
    ("empty", dict(name="empty.txt", data=b""), "error", "empty_document", "no text"),
    ("whitespace", dict(name="blank.md", text=" \n\t \n"), "error", "empty_document", "no text"),
    ("unsupported", dict(name="program.exe", text="MZ"), "error", "unsupported", "are not read"),
    ("older-word", dict(name="minutes.doc", data=b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)), "error", "unsupported",
     "minutes.doc: a Word 97–2003 document (.doc), which Reading Room does not read: save it as .docx (or PDF)"),
    ("no-name", dict(name="  ", text="text"), "error", "bad_input", "needs a name"),
    ("too-large", dict(name="big.txt", data=b"word " * (2 * 1024 * 1024 + 10)), "error", "too_large", "limit"),
    ("pdf-empty-file", dict(name="zero.pdf", data=b""), "error", "empty_document", "is empty"),
    ("pdf-truncated", dict(name="cut.pdf", data=None), "error", "bad_input", "not a readable PDF"),
    ("pdf-encrypted", dict(name="locked.pdf", data=None), "error", "encrypted", "encrypted"),
    ("pdf-image-only", dict(name="scan.pdf", data=None), "error", "empty_document", "no text layer"),
    ("pdf-not-a-pdf", dict(name="fake.pdf", data=b"<html>not a pdf</html>"), "error", "bad_input", "not a readable PDF"),
    ("rtl", dict(name="rtl.txt", text="مرحبا بالعالم. هذا نص عربي عن المكتبات."), "added", None, None),
    ("emoji", dict(name="emoji.md", text="# Party 🎉\n\nCake 🍰 and balloons 🎈🎈 for everyone 👩‍👩‍👧."), "added", None, None),
    ("combining", dict(name="combining.txt", text="Cafe\u0301 na\u0131\u0308ve Z\u0335\u0321a\u0337l\u0334g\u0336o text."), "added", None, None),
    ("control-chars", dict(name="ctrl.txt", text="bell\x07 form\x0c feed\x1b[31m escape text"), "added", None, None),
    ("one-long-word", dict(name="long.txt", text="x" * 20000), "added", None, None),
    ("nested-md", dict(name="nested.md", text="".join("  " * i + "- level " + str(i) + "\n" for i in range(300)) + ">" * 200 + " quote"), "added", None, None),
    ("html-payload", dict(name="xss.html", text="<h1>Title</h1><p>Body <img src=x onerror=alert(1)></p><script>alert(2)</script>"), "added", None, None),
    ("bom-utf8", dict(name="bom.txt", data="\ufeffhello with a BOM".encode("utf-8")), "added", None, None),
]


# Where the page itself refuses a file before Python sees it (its UTF-8 decoder, its file-type
# gate, pdf.js), the browser's outcome is its own: case id -> (error type, message part).
BROWSER_OUTCOMES = {
    "empty": ("empty_document", "is empty"),
    "unsupported": ("unsupported", ".exe files are not read"),
    "older-word": ("unsupported", "minutes.doc: a Word 97–2003 document (.doc), which Reading Room does not read: "
                   "save it as .docx (or PDF)"),
    "no-name": ("unsupported", "files without an extension are not read"),
    "pdf-empty-file": ("empty_document", "is empty"),
    "pdf-truncated": ("not_pdf", "is not a readable PDF"),
    "pdf-encrypted": ("encrypted", "protected by a password"),
    "pdf-not-a-pdf": ("not_pdf", "is not a readable PDF"),
}


def case_bytes(case_id: str, kwargs: dict) -> bytes:
    """The file a user would drop for a document case."""
    if kwargs.get("data", "") is None:
        return pdf_case_data(case_id) or b""
    if kwargs.get("data") is not None:
        return kwargs["data"]
    return kwargs["text"].encode("utf-8")


def pdf_case_data(case_id: str) -> bytes | None:
    if case_id == "pdf-truncated":
        return pdf_bytes(["A page of text.", "Another page."])[:300]
    if case_id == "pdf-encrypted":
        return pdf_bytes(["Secret text."], encrypt=True)
    if case_id == "pdf-image-only":
        return pdf_bytes(["ignored"], image_only=True)
    return None


QUERIES = [
    ("empty", "", "empty_query"),
    ("spaces", "    ", "empty_query"),
    ("newlines-tabs", "\n\t\r\n", "empty_query"),
    ("100kb", "tea " * 25_000, None),
    ("control-chars", "\x00\x01\x07tea\x1b[0m", None),
    ("quote", '"', None),
    ("unbalanced-quote", '"unbalanced tea', None),
    ("near", "NEAR(tea", None),
    ("star", "*", None),
    ("prefix-star", "te*", None),
    ("minus", "-tea", None),
    ("colon", "text:tea", None),
    ("caret", "^tea", None),
    ("or", "OR", None),
    ("and-not", "tea AND NOT coffee", None),
    ("parens", "((tea)", None),
    ("close-paren", "tea)", None),
    ("braces", "{tea}", None),
    ("rtl-query", "المكتبات", None),
    ("emoji-query", "🎉🍰", None),
    ("sql-ish", "'; DROP TABLE chunks; --", None),
    ("html-query", "<script>alert(1)</script>", None),
]

BAD_OPTIONS = [
    ({"k": 0}, "k must be"),
    ({"k": "ten"}, "k must be"),
    ({"candidates": 100000}, "at most 4096"),
    ({"mode": "magic"}, "mode must be"),
    ({"fusion": "avg"}, "fusion must be"),
    ({"weights": "heavy"}, "bad option"),
    ({"filters": {"colour": ["red"]}}, "unknown filter"),
    ({"filters": {"doc_ids": ["x"]}}, "whole numbers"),
    ({"boosts": [{"field": "author", "values": ["a"], "factor": -1}]}, "positive"),
    ({"mmr_lambda": 3}, "between 0 and 1"),
    ({"surprise": 1}, "unknown option"),
]

# Library states every read must answer with a reason and a sentence, never an exception:
# (case id, what was done to the library). Used natively and in the page.
EMPTY_STATES = [
    ("new", "nothing was ever added"),
    ("emptied", "documents were added, then every one deleted"),
]
