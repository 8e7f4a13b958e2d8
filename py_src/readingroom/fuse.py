"""Fusion of the vector and lexical legs into one ranked list.

Reciprocal Rank Fusion needs no calibration between cosine similarities and BM25 scores,
which live on unrelated scales; the linear blend is there for callers who want to weigh
the legs by their scores, after normalising each leg.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Literal, Sequence

from .records import Hit

Normalisation = Literal["minmax", "zscore", "sigmoid", "none"]


def rrf(vector: Sequence[tuple[int, float]], lexical: Sequence[tuple[int, float]],
        bases: dict[int, Hit], k: int = 60, weights: tuple[float, float] = (1.0, 1.0)) -> list[Hit]:
    """Hits scored by sum of ``w / (k + rank)`` over the legs that found them."""
    scored: dict[int, Hit] = {}

    def leg(items: Sequence[tuple[int, float]], w: float, is_vector: bool) -> None:
        for rank, (cid, value) in enumerate(items, start=1):
            if cid not in bases:
                continue
            h = scored.get(cid, bases[cid])
            if is_vector:
                h = replace(h, vector_rank=rank, vector_sim=value)
            else:
                h = replace(h, lexical_rank=rank, lexical_score=value)
            scored[cid] = replace(h, fused=h.fused + w / (k + rank))

    leg(vector, weights[0], True)
    leg(lexical, weights[1], False)
    return order(replace(h, score=h.fused) for h in scored.values())


def normalise(values: Sequence[float], how: Normalisation) -> list[float]:
    if not values or how == "none":
        return list(values)
    if how == "minmax":
        lo, hi = min(values), max(values)
        return [1.0 if hi == lo else (v - lo) / (hi - lo) for v in values]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    z = [0.0 if sd == 0 else (v - mean) / sd for v in values]
    if how == "zscore":
        return z
    return [1.0 / (1.0 + math.exp(-x)) for x in z]  # sigmoid of the z-score


def linear(vector: Sequence[tuple[int, float]], lexical: Sequence[tuple[int, float]],
           bases: dict[int, Hit], weights: tuple[float, float] = (0.5, 0.5),
           how: Normalisation = "minmax") -> list[Hit]:
    """Hits scored by a weighted sum of each leg's normalised score (0 where a leg missed)."""
    scored: dict[int, Hit] = {}
    for is_vector, items, w in ((True, vector, weights[0]), (False, lexical, weights[1])):
        norm = normalise([v for _, v in items], how)
        for rank, ((cid, value), nv) in enumerate(zip(items, norm), start=1):
            if cid not in bases:
                continue
            h = scored.get(cid, bases[cid])
            if is_vector:
                h = replace(h, vector_rank=rank, vector_sim=value)
            else:
                h = replace(h, lexical_rank=rank, lexical_score=value)
            scored[cid] = replace(h, fused=h.fused + w * nv)
    return order(replace(h, score=h.fused) for h in scored.values())


def order(hits) -> list[Hit]:
    """Best first; ties broken by chunk id so the same input always gives the same output."""
    return sorted(hits, key=lambda h: (-h.score, -h.fused, h.chunk_id))
