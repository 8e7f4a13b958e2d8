"""Where a passage is, in the file's own terms: "report.docx · 2.3 Costs",
"deck.pptx · slide 7 (notes)", "budget.xlsx · sheet Q3 · rows 2–40", "manual.pdf · page 4".

The readers (``extract/``) write these places into a chunk's heading path with the helpers
below, so the one schema carries them and the label is a pure function of a stored chunk.
"""

from __future__ import annotations

import re

NOTES = "Speaker notes"
OCR = "Read by OCR"  # the last element of the heading path of text read from a picture
_SLIDE = re.compile(r"^Slide (\d+)(?:: .*)?$")
_SHEET = re.compile(r"^Sheet (.+)$")
_ROWS = re.compile(r"^Rows (\d+)–(\d+)$")
_COLUMNS = re.compile(r"^Columns ([A-Z]+(?:[–, ]+[A-Z]+)*)$")


def slide_heading(number: int, title: str) -> str:
    return f"Slide {number}: {title}" if title else f"Slide {number}"


def sheet_heading(name: str) -> str:
    return f"Sheet {name}"


def rows_heading(first: int, last: int) -> str:
    return f"Rows {first}–{last}"


def column_letters(index: int) -> str:
    """A sheet's column by its 0-based index, as spreadsheets name it: 0 -> A, 26 -> AA."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def columns_heading(columns: list[int]) -> str:
    """A piece of a wide sheet's columns (0-based, ascending): "Columns A, P–T"."""
    runs: list[list[int]] = []
    for c in columns:
        if runs and c == runs[-1][-1] + 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return "Columns " + ", ".join(column_letters(r[0]) + (f"–{column_letters(r[-1])}" if len(r) > 1 else "")
                                  for r in runs)


def without_rows(heading_path) -> tuple[str, ...]:
    """A heading path without the "Rows 2–40" (and "Columns A, P–T") a piece of a long (or wide)
    table adds: the table's own place."""
    return tuple(h for h in heading_path or () if not _ROWS.match(h) and not _COLUMNS.match(h))


def label(doc_name: str, doc_type: str, heading_path, page: int | None = None) -> str:
    """The place of a chunk or span: the file's base name, then where in it."""
    base = re.split(r"[\\/]", doc_name)[-1] if doc_name else ""
    path = list(heading_path or ())
    ocr = OCR in path
    path = [p for p in path if p != OCR]
    parts: list[str] = []
    if doc_type in ("pptx", "odp") and path and _SLIDE.match(path[0]):
        where = f"slide {_SLIDE.match(path[0]).group(1)}"
        parts.append(where + (" (notes)" if NOTES in path[1:] else ""))
    elif path and _SHEET.match(path[0]):
        parts.append(f"sheet {_SHEET.match(path[0]).group(1)}")
        parts += [f"rows {m.group(1)}–{m.group(2)}" for m in map(_ROWS.match, path[1:]) if m]
        parts += [f"columns {m.group(1)}" for m in map(_COLUMNS.match, path[1:]) if m]
    else:
        if page is not None:
            parts.append(f"page {page}" + (" (OCR)" if ocr else ""))
        elif ocr:
            parts.append("OCR")
        if path:
            m = _ROWS.match(path[-1])
            parts.append(f"rows {m.group(1)}–{m.group(2)}" if m else path[-1])
    return " · ".join([base] + parts)
