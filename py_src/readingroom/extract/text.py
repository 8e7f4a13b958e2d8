"""Plain text, Markdown, and source and data files (read as text, their type recorded).

Markdown keeps its own ``#`` headings; its pipe tables are kept whole, or cut by rows with
the header repeated, like every other table. Decoding is strict UTF-8 (``decode``)."""

from __future__ import annotations

import re

from ..errors import DocumentTooLarge, NotText
from .document import Document, Section, table_text
from .html import html_to_text

MAX_TEXT_BYTES = 10 * 1024 * 1024
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|(\s*:?-+:?\s*\|)+\s*$")


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


def markdown_tables(text: str) -> str:
    """Every pipe table (a header row, a separator row, then rows) outside code fences made
    whole-or-split by rows, header repeated; everything else left exactly as it was."""
    lines = text.split("\n")
    out: list[str] = []
    i, fenced = 0, False
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fenced = not fenced
        if (not fenced and _TABLE_ROW.match(line) and i + 1 < len(lines)
                and _SEPARATOR.match(lines[i + 1])):
            j = i + 2
            while j < len(lines) and _TABLE_ROW.match(lines[j]):
                j += 1
            out.append(table_text(lines[i:j]))
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def read_text(name: str, text: str, doc_type: str) -> Document:
    if doc_type == "html":
        return Document("html", [Section((), html_to_text(text))], markdown=True)
    if doc_type == "md":
        return Document("md", [Section((), markdown_tables(text))], markdown=True)
    return Document(doc_type, [Section((), text)])
