"""Quotable pieces of a sentence too long to quote whole.

A run-on sentence longer than ``candidates.MAX_CHARS`` (a legal clause, a transcript without
full stops, a list strung together with commas, a paragraph the splitter could not cut) used
to give the quick answer nothing to quote: a question whose answer sat inside it was told the
passages "hold no sentence to quote". Cut at its clause marks instead (a comma, semicolon or
colon and the space after it, or a dash between spaces) into pieces of at most ``CLAUSE_CHARS``,
each still a verbatim extract that the scorer weighs like any sentence; where a clause is itself
longer than that, it is cut before the last joining word that fits ("and", "or", "which"...),
else at the last space. A single "word" longer than a piece (a
URL, an encoded blob) is passed over.
"""

from __future__ import annotations

import re

CLAUSE_CHARS = 300  # about two lines of the answer pane, the length of a long sentence
_BREAK = re.compile(r"[,;:](?=\s)|\s(?=[\u2013\u2014]\s)")  # a piece may end right after one of these
_SOFT = re.compile(r"\s(?=(?:and|or|but|which|while|whereas|where|then|so)\s)", re.I)  # else before a joining word
_SPACE = re.compile(r"\s")


def pieces(text: str, start: int = 0, end: int | None = None, limit: int = CLAUSE_CHARS) -> list[tuple[int, int]]:
    """(start, end) offsets in ``text`` of consecutive pieces of ``text[start:end]``, each at
    most ``limit`` characters with no space at either edge; together they cover every word of
    it but a word longer than ``limit``."""
    end = len(text) if end is None else end
    breaks = [m.end() for m in _BREAK.finditer(text, start, end)]
    out: list[tuple[int, int]] = []
    at, b = start, 0
    while True:
        while at < end and text[at].isspace():
            at += 1
        if at >= end:
            return out
        if end - at <= limit:
            out.append((at, _trim(text, at, end)))
            return out
        while b < len(breaks) and breaks[b] <= at:
            b += 1
        cut = at
        while b < len(breaks) and breaks[b] - at <= limit:
            cut = breaks[b]
            b += 1
        if cut == at:  # no clause mark within reach: before the last joining word, or space, that fits
            soft = [m.start() for m in _SOFT.finditer(text, at + 1, min(end, at + limit + 1))]
            space = soft[-1] if soft else max(text.rfind(c, at, at + limit + 1) for c in " \n\t")
            if space <= at:  # one word longer than a piece
                nxt = _SPACE.search(text, at, end)
                at = nxt.start() if nxt else end
                continue
            cut = space
        out.append((at, _trim(text, at, cut)))
        at = cut


def _trim(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end
