"""Do the documents cover the question at all? The "not in your documents" decision.

Retrieval always returns something: fused ranks are relative, so the best of a bad lot still
comes first. Whether that best is any good is decided from absolute evidence by the learned
coverage model (``model.CoverageModel``): the sentence model's best logit (does any sentence
answer it?), the best sentence's and the best packed passage's cosine to the question, the
best share of the question's words in one passage, and the share of its words found anywhere in
what retrieval brought back. Its threshold was set on a held-back part
of the public training data (see ``weights.json``), not on this project's question sets.

Without vectors (the model is down, or the index was made by another model) there are no
cosines and no sentence model worth trusting: words alone decide, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import CoverageModel, load

LEXICAL_ONLY_WORDS = 0.75  # no vectors: the share of the question's words one passage must hold
NAMES = ("best_logit", "sentence_sim", "passage_sim", "words", "known")


@dataclass(frozen=True)
class Evidence:
    best_logit: float | None  # the sentence model's best logit (None: no candidate sentence)
    passage_sim: float | None  # best cosine of a packed passage (None: no vectors)
    sentence_sim: float | None  # best cosine of a candidate sentence
    words: float  # best share of the question's words in one packed passage
    known: float = 1.0  # share of the question's words anywhere in what retrieval brought back

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def row(self) -> list[float]:
        return [self.best_logit if self.best_logit is not None else -10.0,
                self.sentence_sim or 0.0, self.passage_sim or 0.0, self.words, self.known]


def probability(ev: Evidence, model: CoverageModel | None = None) -> float | None:
    """The model's probability that the documents answer the question; None without vectors."""
    if ev.passage_sim is None and ev.sentence_sim is None:
        return None
    m = model or load()[1]
    return m.probability(np.asarray(ev.row()))


def covered(ev: Evidence, model: CoverageModel | None = None) -> bool:
    p = probability(ev, model)
    if p is None:
        return ev.words >= LEXICAL_ONLY_WORDS
    return p >= (model or load()[1]).threshold
