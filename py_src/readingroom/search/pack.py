"""Pack spans into the context budget handed to the chat model.

Highest score first; a span that fits goes in whole. Only when nothing else fits whole is
the best remaining span trimmed at a sentence boundary to fill the space left. Every
count, the citation header included, comes from one counter, so what the packer says
fits does fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..text import tokens
from ..records import Span

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
MIN_TRIM_TOKENS = 24  # a trimmed piece smaller than this helps nobody


@dataclass(frozen=True)
class Packed:
    """The spans that fit the token budget, in citation order, and what was trimmed or left out."""

    spans: list[Span] = field(default_factory=list)  # in citation order: [1], [2], ...
    trimmed: list[int] = field(default_factory=list)  # positions in ``spans``
    dropped: list[Span] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0

    def to_dict(self) -> dict:
        return {
            "included": [list(s.chunk_ids) for s in self.spans],
            "trimmed": self.trimmed,
            "dropped": [list(s.chunk_ids) for s in self.dropped],
            "tokens": self.tokens,
            "budget": self.budget,
        }


def header(n: int, span: Span) -> str:
    where = span.doc_name
    if span.page is not None:
        where += f", page {span.page}"
    if span.heading_paths and span.heading_paths[0]:
        where += " — " + " > ".join(span.heading_paths[0])
    return f"[{n}] {where}\n"


def block(n: int, span: Span) -> str:
    return header(n, span) + span.text + "\n\n"


def trim_to(span: Span, limit: int, count: Callable[[str], int], n: int) -> Span | None:
    """The longest prefix of ``span`` ending at a sentence boundary whose block fits."""
    ends = [m.start() for m in _SENTENCE_END.finditer(span.text)]
    best = None
    for end in ends:
        cut = replace(span, text=span.text[:end].rstrip(), trimmed=True)
        if count(block(n, cut)) > limit:
            break
        best = cut
    if best is None:
        return None
    return replace(best, end=span.start + len(best.text), token_count=count(best.text))


def _cost(n: int, span: Span, count: Callable[[str], int]) -> int:
    """``count(block(n, span))``; the estimate adds up over whitespace, so a span's own count
    (made once, when it was merged) is reused instead of reading its text again."""
    if count is tokens.estimate and span.token_count:
        return count(header(n, span)) + span.token_count
    return count(block(n, span))


def pack(spans: Sequence[Span], budget: int = 1200, reserve: int = 0,
         count: Callable[[str], int] = tokens.estimate) -> Packed:
    limit = max(0, budget - reserve)
    chosen: list[Span] = []
    used = 0
    skipped: list[Span] = []
    for s in spans:
        cost = _cost(len(chosen) + 1, s, count)
        if used + cost <= limit:
            chosen.append(s)
            used += cost
        else:
            skipped.append(s)
    trimmed: list[int] = []
    if skipped and limit - used >= MIN_TRIM_TOKENS:
        first = skipped[0]
        cut = trim_to(first, limit - used, count, len(chosen) + 1)
        if cut is not None:
            trimmed.append(len(chosen))
            chosen.append(cut)
            used += count(block(len(chosen), cut))
            skipped = skipped[1:]
    return Packed(spans=chosen, trimmed=trimmed, dropped=skipped, tokens=used, budget=limit)


def prefix(packed: Packed, budget: int, count: Callable[[str], int] = tokens.estimate) -> Packed:
    """The first passages of ``packed`` that fit ``budget``, keeping their numbers: a small
    model is sent [1]..[m] of the same context the page shows, so its citations still point
    at the same sources. The next passage is trimmed into the room left, as ``pack`` does."""
    if budget >= packed.tokens:
        return replace(packed, budget=budget)
    chosen: list[Span] = []
    used = 0
    for s in packed.spans:
        cost = _cost(len(chosen) + 1, s, count)
        if used + cost > budget:
            cut = trim_to(s, budget - used, count, len(chosen) + 1) if budget - used >= MIN_TRIM_TOKENS else None
            if cut is not None:
                chosen.append(cut)
                used += count(block(len(chosen), cut))
            break
        chosen.append(s)
        used += cost
    trimmed = [i for i in range(len(chosen)) if chosen[i].trimmed]
    return Packed(spans=chosen, trimmed=trimmed, dropped=packed.spans[len(chosen):], tokens=used,
                  budget=budget)


def context_text(packed: Packed) -> str:
    """The string the chat transport receives; ``[n]`` maps to ``packed.spans[n-1]``."""
    return "".join(block(i, s) for i, s in enumerate(packed.spans, start=1)).rstrip() + ("\n" if packed.spans else "")
