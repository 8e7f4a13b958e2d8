"""Two documents side by side: each one's summary points, paired by similarity, with what only
one of them says listed apart.

Pure: the caller gives the points and a similarity matrix (the cosines of the points'
embeddings, or of their words when no model is at hand, ``word_similarity``). Pairs are made
greedily, the closest first, each point in at most one pair, and only above ``threshold``; a
pair is shown in the order of the first document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .extractive import Point, bag, cosine

THRESHOLD = 0.55  # embedding cosine above which two points say much the same (MiniLM scale)
WORD_THRESHOLD = 0.25  # the same for the words-only fallback


@dataclass
class Comparison:
    """Two documents' points matched by meaning, and those only one of them has."""

    pairs: list[tuple[int, int, float]] = field(default_factory=list)  # (index in a, index in b, sim)
    only_a: list[int] = field(default_factory=list)
    only_b: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"pairs": [{"a": a, "b": b, "similarity": round(s, 4)} for a, b, s in self.pairs],
                "only_a": self.only_a, "only_b": self.only_b}


def word_similarity(a: Sequence[Point], b: Sequence[Point]) -> np.ndarray:
    """Cosines of the points' word counts (stems, stopwords dropped), when no embedder answers."""
    def unit(p: Point) -> dict[str, float]:
        v = {t: float(c) for t, c in bag(p.text).items()}
        n = float(np.sqrt(sum(x * x for x in v.values()))) or 1.0
        return {t: x / n for t, x in v.items()}

    va, vb = [unit(p) for p in a], [unit(p) for p in b]
    return np.array([[cosine(x, y) for y in vb] for x in va], dtype=np.float32).reshape(len(a), len(b))


def vector_similarity(va: np.ndarray, vb: np.ndarray) -> np.ndarray:
    def norm(m):
        m = np.asarray(m, dtype=np.float32)
        n = np.linalg.norm(m, axis=1, keepdims=True) if m.size else m
        return m / np.where(n == 0, 1, n) if m.size else m

    a, b = norm(va), norm(vb)
    return a @ b.T if a.size and b.size else np.zeros((len(va), len(vb)), np.float32)


def pair(sim: np.ndarray, threshold: float = THRESHOLD) -> Comparison:
    """Greedy one-to-one pairing on ``sim`` (rows: the first document's points)."""
    sim = np.asarray(sim, dtype=np.float32)
    rows, cols = sim.shape if sim.ndim == 2 else (0, 0)
    order = sorted(((float(sim[i, j]), i, j) for i in range(rows) for j in range(cols)), reverse=True)
    used_a: set[int] = set()
    used_b: set[int] = set()
    out = Comparison()
    for s, i, j in order:
        if s < threshold:
            break
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        out.pairs.append((i, j, s))
    out.pairs.sort(key=lambda t: (t[0], t[1]))
    out.only_a = [i for i in range(rows) if i not in used_a]
    out.only_b = [j for j in range(cols) if j not in used_b]
    return out
