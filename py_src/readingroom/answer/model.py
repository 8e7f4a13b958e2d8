"""The learned parts of the quick answer, scored with numpy in both runtimes.

``weights.json`` (beside this module, ~0.1 MB) holds two small models trained natively by
``python -m readingroom.bench.train_answers`` on public question-answering sets (never on this
project's own evaluation sets; sources, sha256 and figures are in the file itself):

* the **sentence scorer**: a one-hidden-layer network over ``features.NAMES``, trained so that,
  among a question's candidate sentences, a softmax puts its weight on the ones holding the
  answer. One of its features is a **learned match** of the question's and the sentence's
  embeddings (``u`` and ``v``, two projections to 16 dimensions learned on the same data): the
  cosine says how alike two texts are, the match how much one answers the other. Its output
  is a logit per sentence; ``probabilities`` turns a question's logits into the share each
  sentence gets.
* the **coverage model**: a logistic regression over a few per-question numbers (the best
  sentence's logit, the best sentence and passage cosines, the best word share), whose
  probability says whether the documents answer the question at all; ``threshold`` was chosen
  on a held-back part of the public data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).with_name("weights.json")


@dataclass(frozen=True)
class SentenceModel:
    """The learned sentence scorer (weights.json): standardised features, one tanh layer, one logit."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray  # (features, hidden)
    b1: np.ndarray
    w2: np.ndarray  # (hidden,)
    b2: float
    lo: np.ndarray | None = None  # each feature's range in the training rows (0.1 and 99.9 percentiles)
    hi: np.ndarray | None = None
    u: np.ndarray | None = None  # (dim, rank): the question's side of the learned match
    v: np.ndarray | None = None  # (dim, rank): the sentence's side

    def match(self, query_vec: np.ndarray | None, vecs: np.ndarray | None) -> np.ndarray | None:
        """The learned question-to-sentence match of each candidate (``features`` "match"):
        both embeddings projected to a few dimensions learned on public QA data, where a
        question lands near the sentences that answer it rather than near the ones that only
        say the same words. None without vectors, without the projections, or for vectors of
        another size than they were learned on."""
        if self.u is None or self.v is None or query_vec is None or vecs is None:
            return None
        q, s = np.asarray(query_vec, dtype=np.float64), np.asarray(vecs, dtype=np.float64)
        if q.shape != (self.u.shape[0],) or s.ndim != 2 or (len(s) and s.shape[1] != self.v.shape[0]):
            return None
        return (s @ self.v) @ (q @ self.u) if len(s) else np.zeros(0)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """One logit per row. A feature beyond what training saw is read as the edge of that
        range: the reference's sentences quote code names ("__mul__()") at 40 times Wikipedia's
        share of code marks, where the network's output means nothing."""
        if len(x) == 0:
            return np.zeros(0, dtype=np.float64)
        x = np.asarray(x, dtype=np.float64)
        if self.lo is not None and self.hi is not None:
            x = np.clip(x, self.lo, self.hi)
        z = (x - self.mean) / self.scale
        return np.tanh(z @ self.w1 + self.b1) @ self.w2 + self.b2


@dataclass(frozen=True)
class CoverageModel:
    """The learned coverage model (weights.json): logistic regression and the threshold it was calibrated to."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    w: np.ndarray
    b: float
    threshold: float  # probability at or above which the question counts as covered

    def probability(self, x: np.ndarray) -> float:
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        return float(1.0 / (1.0 + np.exp(-(z @ self.w + self.b))))


def probabilities(logits: np.ndarray) -> np.ndarray:
    """Softmax over one question's candidates."""
    if len(logits) == 0:
        return np.zeros(0)
    e = np.exp(logits - np.max(logits))
    return e / e.sum()


def _arr(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float64)


def from_dict(d: dict) -> tuple[SentenceModel, CoverageModel]:
    s, c = d["sentence"], d["coverage"]
    sentence = SentenceModel(tuple(s["names"]), _arr(s["mean"]), _arr(s["scale"]), _arr(s["w1"]),
                             _arr(s["b1"]), _arr(s["w2"]), float(s["b2"]),
                             _arr(s["lo"]) if "lo" in s else None, _arr(s["hi"]) if "hi" in s else None,
                             _arr(s["u"]) if "u" in s else None, _arr(s["v"]) if "v" in s else None)
    coverage = CoverageModel(tuple(c["names"]), _arr(c["mean"]), _arr(c["scale"]), _arr(c["w"]),
                             float(c["b"]), float(c["threshold"]))
    return sentence, coverage


@lru_cache(maxsize=1)
def load() -> tuple[SentenceModel, CoverageModel]:
    """The shipped models (read once per process)."""
    return from_dict(json.loads(WEIGHTS.read_text("utf-8")))
