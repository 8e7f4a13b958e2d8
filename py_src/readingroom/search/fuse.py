"""Fusion of the vector and lexical legs into one ranked list.

Reciprocal Rank Fusion needs no calibration between cosine similarities and BM25 scores,
which live on unrelated scales; the linear blend is there for callers who want to weigh
the legs by their scores, after normalising each leg.

Words first, meaning after: while a document is being embedded, its chunks without a vector
yet (``unjudged``) cannot be found by the vector leg at all. Were their words counted once,
an exact match in a new file would rank below any chunk that merely has a vector; so their
lexical contribution counts for both legs (scaled by the weights' sum over the lexical
weight), as if meaning agreed with words, until their vectors arrive.
"""

from __future__ import annotations

import math
from typing import Collection, Literal, Sequence

from ..records import Hit

Normalisation = Literal["minmax", "zscore", "sigmoid", "none"]


def _combine(bases: dict[int, Hit], legs, unjudged: Collection[int] = (), weights=(1.0, 1.0)) -> list[Hit]:
    """Sum each leg's contribution per chunk, keeping every leg's rank and raw score.
    ``legs`` is ``[(leg, [(chunk_id, value)], [contribution per rank])]``, ``leg`` one of
    "vector", "lexical" and "name" (names.py: the chunks of documents the question names, by
    meaning); the ids in ``unjudged`` have no vector yet, and their lexical contribution stands
    for both legs."""
    fields: dict[int, dict] = {}
    both = (weights[0] + weights[1]) / weights[1] if unjudged and weights[1] > 0 else 1.0
    for leg, items, contributions in legs:
        for rank, ((cid, value), c) in enumerate(zip(items, contributions), start=1):
            if cid not in bases:
                continue
            f = fields.setdefault(cid, {"fused": 0.0})
            if leg == "vector":
                f["vector_rank"], f["vector_sim"] = rank, value
            elif leg == "lexical":
                f["lexical_rank"], f["lexical_score"] = rank, value
            else:
                f["name_rank"] = rank
            f["fused"] += c * both if leg == "lexical" and cid in unjudged else c
    return order(bases[cid].replaced(score=f["fused"], **f) for cid, f in fields.items())


def rrf(vector: Sequence[tuple[int, float]], lexical: Sequence[tuple[int, float]],
        bases: dict[int, Hit], k: int = 60, weights: tuple[float, float] = (1.0, 1.0),
        unjudged: Collection[int] = (), named: Sequence[tuple[int, float]] = (),
        name_weight: float = 0.0) -> list[Hit]:
    """Hits scored by sum of ``w / (k + rank)`` over the legs that found them (``named``:
    the name leg, weighed ``name_weight``)."""
    return _combine(bases, [
        ("vector", vector, [weights[0] / (k + r) for r in range(1, len(vector) + 1)]),
        ("lexical", lexical, [weights[1] / (k + r) for r in range(1, len(lexical) + 1)]),
        ("name", named, [name_weight / (k + r) for r in range(1, len(named) + 1)]),
    ], unjudged, weights)


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
           how: Normalisation = "minmax", unjudged: Collection[int] = (),
           named: Sequence[tuple[int, float]] = (), name_weight: float = 0.0) -> list[Hit]:
    """Hits scored by a weighted sum of each leg's normalised score (0 where a leg missed;
    the name leg's value is its chunks' cosine, normalised with the vector leg's)."""
    return _combine(bases, [
        ("vector", vector, [weights[0] * v for v in normalise([v for _, v in vector], how)]),
        ("lexical", lexical, [weights[1] * v for v in normalise([v for _, v in lexical], how)]),
        ("name", named, [name_weight * v for v in normalise([v for _, v in named], how)]),
    ], unjudged, weights)


def order(hits) -> list[Hit]:
    """Best first; ties broken by chunk id so the same input always gives the same output."""
    return sorted(hits, key=lambda h: (-h.score, -h.fused, h.chunk_id))
