"""Headings from font size, for a PDF without a bookmark outline.

Pure, and the same on both sides: pypdf (natively) and pdf.js (in the page) give each page's
text as runs ``(text, font height)``, a run's text possibly holding line ends. A line set in a
clearly larger font than the body (the size most of the document's letters have), short, with
two letters at least (an index's "A" is no heading), not a table of contents' entry (dot leaders) and not repeated on many pages,
is a heading; its level is the rank
of its size among the heading sizes (largest first). A heading wrapped onto two lines (the next
line in the same size, not a numbered heading of its own, the first not ending a sentence) is
one title. The result has the outline's shape,
``(level, title, page)``, so ``pdfclean`` cuts the pages at those titles as at bookmarks.
"""

from __future__ import annotations

import re
from collections import Counter

LARGER = 1.2  # a heading's font is at least this many times the body's
MAX_CHARS = 90  # a longer line is a paragraph set large, not a heading
MAX_LEVELS = 3
_LETTERS = re.compile(r"[^\W\d_]")
_LEADER = re.compile(r"(?:\s?\.){4,}")  # a table of contents' entry ("2 Methods . . . . 8"), set large
_ENDS = re.compile(r"[.!?:;]$")
_NUMBERED = re.compile(r"(?:\d+(?:\.\d+)*[.)]?|[IVX]+[.)]|[A-Z][.)])\s")  # "2.1 Data", "IV. Results", "B) Notes"


def lines(runs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """A page's runs as lines: (text, the largest font height of its non-blank runs)."""
    out: list[tuple[str, float]] = []
    text, size = "", 0.0
    for piece, height in runs:
        parts = str(piece).split("\n")
        for k, part in enumerate(parts):
            if k:
                out.append((text, size))
                text, size = "", 0.0
            text += part
            if part.strip():
                size = max(size, float(height or 0))
    out.append((text, size))
    return [(" ".join(t.split()), s) for t, s in out if t.strip()]


def _size(height: float) -> float:
    return round(height * 2) / 2  # half-point steps: the same size read twice may differ a little


def _joined(lines: list[tuple[int, int, str, float]]) -> list[tuple[int, str, float]]:
    """(page, title, size): a candidate line and the next, on the same page and in the same size,
    are one wrapped title unless the first ends a sentence or the second is numbered ("2.1 Data")."""
    out: list[tuple[int, int, str, float]] = []
    for n, i, text, size in lines:
        if out:
            pn, pi, ptext, psize = out[-1]
            if (pn, pi + 1, psize) == (n, i, size) and not _ENDS.search(ptext) and not _NUMBERED.match(text) \
                    and len(ptext) + len(text) < MAX_CHARS * 1.5:
                out[-1] = (n, i, f"{ptext} {text}", size)
                continue
        out.append((n, i, text, size))
    return [(n, text, size) for n, _i, text, size in out]


def font_outline(pages: list[list[tuple[str, float]]]) -> list[tuple[int, str, int]]:
    """(level, title, 1-based page) for the lines set clearly larger than the body."""
    per_page = [lines(runs) for runs in pages]
    letters = Counter()
    for page in per_page:
        for text, size in page:
            letters[_size(size)] += len(text)
    letters.pop(0.0, None)
    if not letters:
        return []
    body = letters.most_common(1)[0][0]
    candidates = _joined([(n, i, text, _size(size)) for n, page in enumerate(per_page, start=1)
                          for i, (text, size) in enumerate(page)
                          if _size(size) >= body * LARGER and len(text) <= MAX_CHARS
                          and len(_LETTERS.findall(text)) >= 2 and not _LEADER.search(text)])
    repeated = Counter(text.lower() for _n, text, _s in candidates)
    need = 3 if len(pages) > 4 else len(pages) + 1  # a running head in large type is no heading
    candidates = [c for c in candidates if repeated[c[1].lower()] < need]
    sizes = sorted({s for _n, _t, s in candidates}, reverse=True)
    level = {s: min(i + 1, MAX_LEVELS) for i, s in enumerate(sizes)}
    return [(level[s], text, n) for n, text, s in candidates]
