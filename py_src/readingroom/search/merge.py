"""Stitch adjacent chunks into spans, and drop exact duplicates.

Chunks overlap by design (so a sentence cut at a boundary is whole in one of them); shown
side by side they would repeat text. Because every chunk is an exact slice of its source,
two neighbours can be joined by character offsets with nothing repeated and nothing lost.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from ..text import tokens
from ..records import Hit, Span


def text_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:32]


def drop_duplicates(hits: Sequence[Hit]) -> tuple[list[Hit], list[Hit]]:
    """Keep the first (best) hit of each distinct text; mark the rest ``duplicate``."""
    seen: set[str] = set()
    kept, dropped = [], []
    for h in hits:
        if h.text_hash in seen:
            dropped.append(h.replaced(dropped="duplicate"))
        else:
            seen.add(h.text_hash)
            kept.append(h)
    return kept, dropped


def _joinable(a: Hit, b: Hit) -> bool:
    return (a.doc_id == b.doc_id and a.page == b.page
            and (b.chunk_index == a.chunk_index + 1 or b.start <= a.end))


@dataclass(frozen=True)
class Piece:
    """Where a stretch of a span's text comes from: ``span.text[at:at + (end - start)]`` is
    the document's ``[start, end)``, taken from chunk ``chunk_id``."""

    at: int
    start: int
    end: int
    chunk_id: int


GAP = "\n\n"  # between neighbours that do not overlap: text the document does not have


def pieces(run: Sequence[Hit]) -> list[Piece]:
    """The pieces a run of neighbouring hits (in document order) joins into: an overlapping
    neighbour adds only what is new; one after a gap adds ``GAP`` first."""
    out: list[Piece] = []
    at, end = 0, None
    for h in run:
        if end is None:
            out.append(Piece(0, h.start, h.end, h.chunk_id))
        elif h.start < end:
            if h.end <= end:
                continue
            out.append(Piece(at, end, h.end, h.chunk_id))
        else:
            at += len(GAP)
            out.append(Piece(at, h.start, h.end, h.chunk_id))
        at += out[-1].end - out[-1].start
        end = out[-1].end
    return out


def joined(run: Sequence[Hit]) -> str:
    by_id = {h.chunk_id: h for h in run}
    text = ""
    for p in pieces(run):
        h = by_id[p.chunk_id]
        text += GAP * (p.at > len(text)) + h.text[p.start - h.start:p.end - h.start]
    return text


def to_document(ps: Sequence[Piece], at: int, end: bool = False) -> tuple[int, int] | None:
    """(document offset, chunk id) of span-text offset ``at``: of the character there, or with
    ``end`` of the end of the character before it; None inside a ``GAP``."""
    for p in ps:
        length = p.end - p.start
        if (p.at < at <= p.at + length) if end else (p.at <= at < p.at + length):
            return p.start + (at - p.at), p.chunk_id
    return None


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
    text, end = joined(run), max(h.end for h in run)
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
        text_hash=text_hash(text), meta=first.meta,
        # one whole chunk: the count stored with it (the same estimate, made at indexing)
        token_count=first.token_count if len(run) == 1 and text == first.text and first.token_count
        else tokens.estimate(text),
    )


def drop_duplicate_spans(spans: Sequence[Span]) -> list[Span]:
    seen: set[str] = set()
    out = []
    for s in spans:
        if s.text_hash not in seen:
            seen.add(s.text_hash)
            out.append(s)
    return out
