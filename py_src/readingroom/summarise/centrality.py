"""How central each sentence and each chunk is to its document: the measures the extractive
summary weighs (pure functions over words and vectors; nothing is embedded here).

- ``bag``/``weigh``/``cosine``: a sentence's porter-stemmed words without stopwords, as a
  TF-IDF vector of unit length, and the cosine of two such vectors;
- ``graph_rank``: the stationary rank of each sentence in the graph whose edges are the
  sentences' word cosines (a random walk that follows shared words, as TextRank and LexRank
  do): a sentence many others say something of is central, whatever its chunk;
- ``embedding``: each chunk's cosine to the document's mean vector and to its section's.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Sequence

import numpy as np

from ..search.fts import STOPWORDS
from ..search.porter import stem

_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
DAMPING = 0.85


@lru_cache(maxsize=50_000)
def _stem(w: str) -> str:
    return stem(w) or w


def bag(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in _WORD.findall(text.lower()):
        if w not in STOPWORDS:
            s = _stem(w)
            out[s] = out.get(s, 0) + 1
    return out


def idf_of(bags: Sequence[dict[str, int]]) -> dict[str, float]:
    df: dict[str, int] = {}
    for b in bags:
        for t in b:
            df[t] = df.get(t, 0) + 1
    return {t: math.log(1 + len(bags) / d) for t, d in df.items()}


def weigh(b: dict[str, int], idf: dict[str, float]) -> dict[str, float]:
    v = {t: (1 + math.log(c)) * idf.get(t, 0.0) for t, c in b.items()}
    n = math.sqrt(sum(x * x for x in v.values())) or 1.0
    return {t: x / n for t, x in v.items()}


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(x * b.get(t, 0.0) for t, x in a.items())


def graph_rank(vecs: Sequence[dict[str, float]], damping: float = DAMPING, rounds: int = 40) -> np.ndarray:
    """Each sentence's rank in the graph whose edge weights are the sentences' word cosines
    (no self-loops), scaled to a maximum of 1. The n-by-n graph is never built: with the
    sentences' unit vectors as the rows of a sparse matrix M, the graph is M Mᵀ less its
    diagonal, so each step of the walk costs two passes over the nonzero weights (a
    300-page manual's ten thousand sentences rank in milliseconds, in the page too)."""
    n = len(vecs)
    if n == 0:
        return np.zeros(0)
    cols: dict[str, int] = {}
    rows_, cols_, vals_ = [], [], []
    for i, v in enumerate(vecs):
        for t, x in v.items():
            rows_.append(i)
            cols_.append(cols.setdefault(t, len(cols)))
            vals_.append(x)
    rows, cols_a, vals = np.array(rows_, dtype=np.intp), np.array(cols_, dtype=np.intp), np.array(vals_)  # intp: 32 bits in the page
    self_sim = np.bincount(rows, weights=vals * vals, minlength=n)

    def times_graph(x: np.ndarray) -> np.ndarray:  # (M Mᵀ - diag) x
        across = np.bincount(cols_a, weights=vals * x[rows], minlength=len(cols))
        return np.bincount(rows, weights=vals * across[cols_a], minlength=n) - self_sim * x

    degree = times_graph(np.ones(n))
    live = degree > 1e-12
    r = np.full(n, 1.0 / n)
    for _ in range(rounds):
        spread = np.where(live, r / np.where(live, degree, 1.0), 0.0)
        r = (1 - damping) / n + damping * times_graph(spread)
    top = float(r.max())
    return r / top if top > 0 else r


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


def embedding(indices: Sequence[int], keys: Sequence, vectors) -> tuple[dict[int, float], dict[int, float]]:
    """Each chunk's cosine to the document's mean vector and to its section's (by the chunk's
    index; empty without vectors)."""
    if vectors is None or len(vectors) != len(indices) or not len(indices):
        return {}, {}
    m = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = m / np.where(norms == 0, 1, norms)
    doc = m @ _unit(m.mean(axis=0))
    sec: dict[int, float] = {}
    groups: dict = {}
    for row, key in enumerate(keys):
        groups.setdefault(key, []).append(row)
    for rows in groups.values():
        sims = m[rows] @ _unit(m[rows].mean(axis=0))
        for r, s in zip(rows, sims):
            sec[indices[r]] = float(s)
    return {i: float(s) for i, s in zip(indices, doc)}, sec
