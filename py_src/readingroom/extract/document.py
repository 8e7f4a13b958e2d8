"""What every format's reader returns: a document as sections, each with its heading path.

A section's text is plain text in which a table is a Markdown pipe table (one line per row,
the header row first), lists keep their markers, and a blank line ends a paragraph. The
chunker never cuts inside a paragraph that fits, so a table that fits stays in one chunk;
``split_rows`` cuts a longer one by rows and repeats its header row in every piece. A table
too wide for its header and one row to fit (a sheet of twenty columns) is first cut by
columns (``column_groups``), each piece keeping the first column, so that no row is cut
inside and every value stays under its header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..text import tokens

# Rows of a table piece are measured against this many tokens: the chunker's target (200)
# less room for the heading path the embedder reads in front of it.
TABLE_PIECE_TOKENS = 180


@dataclass(frozen=True)
class Section:
    """Extracted text under one heading path (and the page it starts on, for PDFs)."""

    heading_path: tuple[str, ...]
    text: str
    page: int | None = None


@dataclass
class Document:
    """``doc_type`` is what the file is (docx, xlsx, py ...). Markdown and plain text come as
    one section the chunker cuts itself (``READ_AS_TEXT``: Markdown at its own ``#`` headings)."""

    doc_type: str
    sections: list[Section] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was capped or left out, in words
    pages: int | None = None  # PDF pages, slides or sheets: the unit the bench counts

    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


_FILE_NAME = re.compile(r"\S+\.(png|jpe?g|gif|bmp|tiff?|emf|wmf|svg|webp)", re.I)  # what a tool put there by itself
_MACHINE_WRITTEN = re.compile(r"(description automatically generated|ai-generated content may be incorrect)\.?\s*$", re.I)


def picture_text(description: str | None) -> str:
    """A picture's alternative text as its author wrote it ("[Picture: the keeper's cottage in
    1902]"); "" without one, or when a program wrote it by itself: Office's guess ("A picture
    containing text Description automatically generated"), or the picture's file name."""
    text = " ".join((description or "").split())
    return "" if not text or _MACHINE_WRITTEN.search(text) or _FILE_NAME.fullmatch(text) else f"[Picture: {text}]"


_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_characters(text: str) -> str:
    """``text`` with UTF-16 surrogate halves paired into the characters they stand for (an
    Excel escape pair ``_xD801__xDC05_``, a JSON ``"\\ud83d\\ude00"``) and a half left alone made
    U+FFFD: no such text can be stored as UTF-8, or shown."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def whole(doc: Document) -> Document:
    """A copy of ``doc`` whose sections' text is whole characters (``whole_characters``): what
    ``extract`` returns and what is stored, whatever a reader let through. ``doc`` itself is
    left as it was (``doc`` when nothing needed mending)."""
    sections = [s if (t := whole_characters(s.text)) is s.text else replace(s, text=t) for s in doc.sections]
    if all(a is b for a, b in zip(sections, doc.sections)):
        return doc
    return replace(doc, sections=sections, notes=list(doc.notes))


def set_in(before: str, words: str, after: str) -> str:
    """``words`` (a picture's "[Picture: …]") as they stand between ``before`` and ``after``:
    a space on either side unless the text there ends or starts with one already."""
    return ("" if not before or before[-1].isspace() else " ") + words + ("" if not after or after[0].isspace() else " ")


def cell_text(value: str) -> str:
    """A cell's text on one line, its pipes escaped so the row stays a row."""
    return " ".join(str(value).split()).replace("|", "\\|")


def table_lines(rows: list[list[str]]) -> list[str]:
    """Rows (the first is the header) as Markdown pipe-table lines, the separator included."""
    if not rows:
        return []
    width = max(len(r) for r in rows)
    padded = [[cell_text(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(r) + " |" for r in padded]
    return [lines[0], "|" + "---|" * width] + lines[1:]


def split_rows(header: list[str], costs: list[int], budget: int = TABLE_PIECE_TOKENS) -> list[tuple[int, int]]:
    """Ranges ``[a, b)`` of a table's body lines, given each line's token estimate
    (``costs``: ``line_costs``, or ``tokens.estimate`` of each line), each of which fits
    ``budget`` tokens with the ``header`` lines in front; a row too long on its own gets a
    piece of its own."""
    head = tokens.estimate("\n".join(header))
    pieces, start, used = [], 0, head
    for i, cost in enumerate(costs):
        n = cost + 1
        if i > start and used + n > budget:
            pieces.append((start, i))
            start, used = i, head
        used += n
    if start < len(costs):
        pieces.append((start, len(costs)))
    return pieces


def cell_costs(rows: list[list[str]]) -> list[list[int]]:
    """Each cell's tokens in its pipe-table line, its "|" included (a short row's missing
    cells cost their "|" alone): a line's estimate is its cells' and one for the last "|"."""
    width = max((len(r) for r in rows), default=0)
    return [[tokens.estimate(cell_text(r[c])) + 1 if c < len(r) else 1 for c in range(width)] for r in rows]


def line_costs(costs: list[list[int]], cols: list[int]) -> list[int]:
    """The token estimate of each row's pipe-table line kept to the columns ``cols``."""
    return [sum(row[c] for c in cols) + 1 for row in costs]


def columns_of(rows: list[list[str]], cols: list[int]) -> list[list[str]]:
    """``rows`` kept to the columns ``cols`` (a short row's missing cells empty)."""
    return [[r[c] if c < len(r) else "" for c in cols] for r in rows]


def column_groups(rows: list[list[str]], budget: int = TABLE_PIECE_TOKENS,
                  costs: list[list[int]] | None = None) -> list[list[int]]:
    """The columns of a table (``rows[0]`` its header) in groups whose header and longest row
    fit ``budget`` together, each led by the first column, which names the row ("Gull Rock");
    one group of them all when the table fits as it is. A column too long to fit even beside
    the first is a group of its own with it. ``costs``: ``cell_costs(rows)``, if the caller
    has them."""
    width = max((len(r) for r in rows), default=0)
    if width <= 2 or len(rows) < 2:
        return [list(range(width))]
    # a row's line costs its cells' tokens and one more "|"; the separator 4 a column
    cost = costs if costs is not None else cell_costs(rows)
    if sum(cost[0]) + 1 + 1 + 4 * width + max(sum(row) for row in cost[1:]) + 1 <= budget:
        return [list(range(width))]
    lead = [row[0] for row in cost]
    groups: list[list[int]] = []
    group: list[int] = []
    sums = list(lead)
    for c in range(1, width):
        grown = [s + row[c] for s, row in zip(sums, cost)]
        if group and grown[0] + 1 + 1 + 4 * (len(group) + 2) + max(grown[1:]) + 1 > budget:
            groups.append([0] + group)
            group, grown = [], [first + row[c] for first, row in zip(lead, cost)]
        group.append(c)
        sums = grown
    groups.append([0] + group)
    return groups


def table_blocks(rows: list[list[str]], budget: int = TABLE_PIECE_TOKENS, lines: list[str] | None = None) -> str:
    """Rows of cells (the first the header) as a pipe table: ``table_text``, once per column
    group when the table is too wide (``column_groups``). ``lines``: the table as its author
    wrote it (a Markdown table), kept as it is when it needs no cut by columns."""
    costs = cell_costs(rows)
    groups = column_groups(rows, budget, costs)
    if len(groups) == 1 and lines is not None:  # measured as written: the author's spacing costs too
        return table_text(lines, [tokens.estimate(line) for line in lines[2:]], budget)
    return "\n\n".join(table_text(table_lines(rows if len(groups) == 1 else columns_of(rows, cols)),
                                   line_costs(costs, cols)[1:], budget) for cols in groups)


def table_text(lines: list[str], costs: list[int], budget: int = TABLE_PIECE_TOKENS) -> str:
    """A pipe table's lines as one paragraph when it fits, else as pieces split by rows,
    each with the header and separator lines repeated, a blank line between pieces.
    ``costs``: the body lines' token estimates (``line_costs``, or ``tokens.estimate`` of each)."""
    if len(lines) <= 2:
        return "\n".join(lines)
    header, body = lines[:2], lines[2:]
    if tokens.estimate("\n".join(header)) + sum(costs) <= budget:
        return "\n".join(lines)
    return "\n\n".join("\n".join(header + body[a:b]) for a, b in split_rows(header, costs, budget))
