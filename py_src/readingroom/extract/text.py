"""Plain text, Markdown, and source and data files (read as text, their type recorded).

Markdown keeps its own ``#`` headings; its pipe tables are kept whole, or cut by rows with
the header repeated, like every other table. Decoding (``decoded``): UTF-8, UTF-16 with its
BOM, else Windows-1252 with a note; the page decodes UTF-8 itself and hands Python the bytes of
anything else, so both sides decode alike."""

from __future__ import annotations

import re

from ..errors import DocumentTooLarge, NotText
from .document import Document, Section, table_blocks
from .html import html_to_text, sections as html_sections

MAX_TEXT_BYTES = 10 * 1024 * 1024
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|(\s*:?-+:?\s*\|)+\s*$")


MAX_ACCENTED = 0.3  # of a Windows-1252 text's letters (French or German prose: a few in a hundred)
_CONTROLS = re.compile(r"[\x01-\x08\x0b\x0e-\x19\x1b-\x1f]")  # not in text (\x1a: old DOS files end with it)


def decoded(name: str, data: bytes) -> tuple[str, str | None]:
    """A text file's text, and a note when it was not UTF-8: UTF-8 (a BOM allowed); UTF-16
    with its BOM (Excel's "Unicode text"); else Windows-1252, which Excel and Notepad on
    Western Windows write (said in the note); anything else is refused with a reason."""
    if len(data) > MAX_TEXT_BYTES:
        raise DocumentTooLarge(f"{name} is {len(data) / 2**20:.0f} MB of text; the limit is {MAX_TEXT_BYTES // 2**20} MB")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError as e:
            raise NotText(f"{name} starts as UTF-16 text but is damaged at byte {e.start}") from e
    if b"\x00" in data[:65536]:
        raise NotText(f"{name} looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        refusal = NotText(f"{name} is not UTF-8 text (bad byte at position {e.start}), nor Windows-1252 "
                          "text; save it as UTF-8 and add it again")
        text = data.decode("cp1252", errors="replace")
        undefined = text.count("\ufffd")  # the five bytes Windows-1252 leaves undefined
        if undefined > max(1, len(data) // 10_000):
            raise refusal from e
        letters = [c for c in text if c.isalpha()]
        foreign = sum(1 for c in letters if ord(c) > 0x7f)
        # Western text is mostly ASCII letters with some accented ones; Cyrillic or Greek
        # in their own code pages would read as a run of accented letters (mojibake): refused.
        if _CONTROLS.search(text) or not letters or foreign > MAX_ACCENTED * len(letters):
            raise refusal from e
        return text, f"{name} is not UTF-8; it was read as Windows-1252 (Western European) text" + (
            f", and {undefined} byte{'s' * (undefined > 1)} that it does not define became \ufffd" if undefined else "")


def _cells(line: str) -> list[str]:
    """A pipe-table line's cells, their escaped pipes read as pipes."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def markdown_tables(text: str) -> str:
    """Every pipe table (a header row, a separator row, then rows) outside code fences made
    whole-or-split by rows, header repeated (and cut by columns first when too wide for a row
    to fit); everything else left exactly as it was."""
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
            rows = [_cells(row) for row in [lines[i]] + lines[i + 2:j]]
            # as written; a table too wide for a row to fit by columns, written as every table is
            out.append(table_blocks(rows, lines=lines[i:j]))
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def read_text(name: str, text: str, doc_type: str) -> Document:
    if doc_type == "html":
        # a page of nothing but menus (a site map) is read with them
        return Document("html", html_sections(html_to_text(text) or html_to_text(text, navigation=True)))
    if doc_type == "md":
        return Document("md", [Section((), markdown_tables(text))])
    return Document(doc_type, [Section((), text)])
