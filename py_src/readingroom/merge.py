"""Stitch adjacent chunks into spans, and drop exact duplicates.

Chunks overlap by design (so a sentence cut at a boundary is whole in one of them); shown
side by side they would repeat text. Because every chunk is an exact slice of its source,
two neighbours can be joined by character offsets with nothing repeated and nothing lost.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Sequence

from . import tokens
from .records import Hit, Span


def text_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:32]


def drop_duplicates(hits: Sequence[Hit]) -> tuple[list[Hit], list[Hit]]:
    """Keep the first (best) hit of each distinct text; mark the rest ``duplicate``."""
    seen: set[str] = set()
    kept, dropped = [], []
    for h in hits:
        if h.text_hash in seen:
            dropped.append(replace(h, dropped="duplicate"))
        else:
            seen.add(h.text_hash)
            kept.append(h)
    return kept, dropped


def _joinable(a: Hit, b: Hit) -> bool:
    return (a.doc_id == b.doc_id and a.page == b.page
            and (b.chunk_index == a.chunk_index + 1 or b.start <= a.end))


def _join_text(text: str, end: int, nxt: Hit) -> tuple[str, int]:
    if nxt.start < end:  # overlap: append only what is new
        if nxt.end <= end:
            return text, end
        return text + nxt.text[end - nxt.start:], nxt.end
    return text + "\n\n" + nxt.text, nxt.end  # a whitespace gap between neighbours


def merge_adjacent(hits: Sequence[Hit]) -> list[Span]:
    """Spans of neighbouring hits in the same document (and page), best span first."""
    groups: dict[tuple, list[Hit]] = {}
    for h in hits:
        groups.setdefault((h.doc_id, h.page), []).append(h)
    spans: list[Span] = []
    for group in groups.values():
        group.sort(key=lambda h: (h.chunk_index, h.start))
        run = [group[0]]
        for h in group[1:]:
            if _joinable(run[-1], h):
                run.append(h)
            else:
                spans.append(_span(run))
                run = [h]
        spans.append(_span(run))
    return sorted(spans, key=lambda s: (-s.score, s.doc_id, s.chunk_index))


def _span(run: list[Hit]) -> Span:
    text, end = run[0].text, run[0].end
    for h in run[1:]:
        text, end = _join_text(text, end, h)
    paths: list[tuple[str, ...]] = []
    for h in run:
        if h.heading_path not in paths:
            paths.append(h.heading_path)
    pages = [h.page for h in run if h.page is not None]
    first = run[0]
    return Span(
        doc_id=first.doc_id, doc_name=first.doc_name, doc_type=first.doc_type,
        chunk_ids=tuple(h.chunk_id for h in run), text=text, start=first.start, end=end,
        score=max(h.score for h in run), chunk_index=min(h.chunk_index for h in run),
        page=min(pages) if pages else None, heading_paths=tuple(paths),
        text_hash=text_hash(text), token_count=tokens.estimate(text), meta=first.meta,
    )


def drop_duplicate_spans(spans: Sequence[Span]) -> list[Span]:
    seen: set[str] = set()
    out = []
    for s in spans:
        if s.text_hash not in seen:
            seen.add(s.text_hash)
            out.append(s)
    return out
