"""A pipe table's data rows: "What was the travel budget in Q3?" is answered by a row.

Every reader (CSV, spreadsheets, Word, HTML, Markdown) writes a table as a Markdown pipe table,
its header row first and a ``|---|`` line under it, and repeats that header in every piece of a
table too long for one chunk (``extract.document``). Rows are not sentences, so the quick answer
used to quote none, and a question whose answer sat in a spreadsheet got "no sentence to quote",
or was refused. Here each data row is a candidate: quoted verbatim (the row's own line, its
header row shown above it), and read by the scorer as the sentence it stands for, each value
with its column's name ("Category: Travel; Quarter: Q3; Amount: 12400; Owner: Alice Moreau").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SEPARATOR = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*")
_PIPE = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class Row:
    """One data row of a pipe table: its line's offsets in the text it came from, its header
    row's text ("" when the table piece has none) and how the scorer reads it."""

    start: int
    end: int
    header: str
    reads: str


def cells(line: str) -> list[str]:
    """A pipe-table line's cells, unescaped: "| a | b \\| c |" -> ["a", "b | c"]."""
    parts = _PIPE.split(line.strip())
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def reading(header: str, row: str) -> str:
    """The row as the sentence it stands for: each non-empty value after its column's name."""
    names = cells(header) if header else []
    out = []
    for i, value in enumerate(cells(row)):
        if not value:
            continue
        name = names[i] if i < len(names) else ""
        out.append(f"{name}: {value}" if name and name != value else value)
    return "; ".join(out)


def rows(text: str, start: int, end: int) -> list[Row]:
    """The data rows of the pipe table in ``text[start:end]`` (a unit the sentence splitter
    read as a table); none when it is not a pipe table (a text table of aligned columns, a
    listing)."""
    lines = []
    at = start
    for line in text[start:end].split("\n"):
        lines.append((at + len(line) - len(line.lstrip()), at + len(line.rstrip()), line))
        at += len(line) + 1
    piped = [(a, b, line) for a, b, line in lines if line.lstrip().startswith("|") and b > a]
    if len(piped) != len([1 for a, b, _ in lines if b > a]):
        return []  # lines that are not rows: not a pipe table
    header = ""
    if len(piped) >= 2 and _SEPARATOR.fullmatch(piped[1][2]):
        header, piped = piped[0][2].strip(), piped[2:]
    return [Row(a, b, header, reading(header, line)) for a, b, line in piped
            if not _SEPARATOR.fullmatch(line) and any(cells(line))]
