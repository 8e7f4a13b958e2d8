"""Rules applied after fusion: the similarity floor, boosts, a diversity cap, and MMR.

Each rule is a pure function that returns new hits, marking the ones it removes with a
``dropped`` reason so the debug view can say why a candidate is not in the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .fuse import order
from ..records import Hit


def floor_vector_leg(items: Sequence[tuple[int, float]], floor: float
                     ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """Split vector candidates at the floor. Only the vector leg is floored, so a strong
    lexical match is never lost to a weak embedding, and hybrid search stays hybrid."""
    kept = [(c, s) for c, s in items if s >= floor]
    below = [(c, s) for c, s in items if s < floor]
    return kept, below


def field_value(hit: Hit, field: str) -> Any:
    """A hit's value for a boost or cap key: a chunk/document field, or document metadata."""
    if field == "doc":
        return hit.doc_id
    if field == "section":  # the top heading: a chapter or section of the document
        return hit.heading_path[0] if hit.heading_path else None
    if field == "heading":
        return " > ".join(hit.heading_path)
    if field in ("doc_id", "doc_name", "doc_type", "page"):
        return getattr(hit, field)
    return hit.meta.get(field)


@dataclass(frozen=True)
class Boost:
    """Multiply the score of hits whose ``field`` takes one of ``values`` by ``factor``."""

    field: str
    values: tuple
    factor: float
    name: str = ""

    def matches(self, hit: Hit) -> bool:
        v = field_value(hit, self.field)
        if isinstance(v, (list, tuple)):
            return any(x in self.values for x in v)
        return v in self.values

    @classmethod
    def from_dict(cls, d: dict) -> "Boost":
        values = d.get("values", d.get("value"))
        values = tuple(values) if isinstance(values, (list, tuple)) else (values,)
        factor = float(d["factor"])
        if not factor > 0:
            from ..errors import BadInput

            raise BadInput(f"boost factor must be positive, got {factor}")
        return cls(field=str(d["field"]), values=values, factor=factor,
                   name=str(d.get("name") or d["field"]))


def apply_boosts(hits: Sequence[Hit], boosts: Sequence[Boost]) -> list[Hit]:
    """Scores multiplied by every matching boost. Equal boosts keep their fused order:
    multiplying two ordered numbers by the same positive factor cannot swap them."""
    if not boosts:
        return list(hits)
    out = []
    for h in hits:
        applied = {b.name or b.field: b.factor for b in boosts if b.matches(h)}
        factor = 1.0
        for b in boosts:
            if b.matches(h):
                factor *= b.factor
        out.append(h.replaced(boosts=applied, score=h.fused * factor))
    return order(out)


def lift(hits: Sequence[Hit], ids: Sequence[int], to_rank: int) -> list[Hit]:
    """``hits`` (best first) with each of ``ids`` that ranks below ``to_rank`` moved up to just
    below the hit at that rank (its score raised to that hit's; ties keep the higher fused score
    first). Nothing moves when there are no more than ``to_rank`` hits."""
    if not ids or len(hits) <= to_rank:
        return list(hits)
    bar = hits[to_rank - 1].score
    want = set(ids)
    return order(h.replaced(score=bar) if h.chunk_id in want and h.score < bar else h for h in hits)


def diversity_cap(hits: Sequence[Hit], key: str, per_key: int, k: int
                  ) -> tuple[list[Hit], list[Hit]]:
    """The best ``k`` hits with at most ``per_key`` sharing a value of ``key``. A capped hit
    frees its slot for the next one down the list (backfill), so the caller still gets k."""
    kept: list[Hit] = []
    dropped: list[Hit] = []
    counts: dict[Any, int] = {}
    for h in hits:
        if len(kept) >= k:
            break
        v = field_value(h, key)
        v = tuple(v) if isinstance(v, list) else v
        if v is not None and counts.get(v, 0) >= per_key:
            dropped.append(h.replaced(dropped="cap"))
            continue
        counts[v] = counts.get(v, 0) + 1
        kept.append(h)
    return kept, dropped


def mmr(hits: Sequence[Hit], vectors: dict[int, np.ndarray], k: int, lam: float = 0.7) -> list[Hit]:
    """Maximal marginal relevance: trade a hit's score against its similarity to hits
    already chosen. Hits without a vector count as dissimilar to everything."""
    if not hits:
        return []
    scores = np.array([h.score for h in hits], dtype=np.float64)
    rel = scores / scores.max() if scores.max() > 0 else scores
    dim = next((len(v) for v in vectors.values()), 0)
    mat = np.stack([vectors.get(h.chunk_id, np.zeros(dim, np.float32)) for h in hits]) if dim else None
    chosen: list[int] = []
    remaining = list(range(len(hits)))
    while remaining and len(chosen) < k:
        if chosen and mat is not None:
            sim = (mat[remaining] @ mat[chosen].T).max(axis=1)
        else:
            sim = np.zeros(len(remaining))
        value = lam * rel[remaining] - (1 - lam) * sim
        best = remaining[int(np.argmax(value))]  # argmax takes the first: stable ties
        chosen.append(best)
        remaining.remove(best)
    return [hits[i] for i in chosen]
