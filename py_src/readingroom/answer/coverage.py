"""Do the documents cover the question at all? The "not in your documents" decision.

Retrieval always returns something: fused ranks are relative, so the best of a bad lot still
comes first. Whether that best is any good is decided from absolute evidence by the learned
coverage model (``model.CoverageModel``): the sentence model's best logit (does any sentence
answer it?), the best sentence's and the best packed passage's cosine to the question, the
best share of the question's words in one passage, and the share of its words found anywhere in
what retrieval brought back (a document the question names, retrieval's name leg, counts its
name among its words: its passages seldom repeat it). Its threshold was set on a held-back part
of the public training data (see ``weights.json``), not on this project's question sets. One
input says whether the question gives a name (code, a proper name) that nothing retrieval
brought back mentions (``names.py``); a missing name that is surely code ("asyncio.gather",
"C++") is not covered whatever the model says: identifiers are not misspelt into other words
the way "Tuscon" or "Burma" are.

Without vectors (the model is down, or the index was made by another model) there are no
cosines and no sentence model worth trusting: words alone decide, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import CoverageModel, load
from .names import is_code

LEXICAL_ONLY_WORDS = 0.75  # no vectors: the share of the question's words one passage must hold
NAMES = ("best_logit", "sentence_sim", "passage_sim", "words", "known", "missing")


@dataclass(frozen=True)
class Evidence:
    """What the coverage model reads to decide whether the documents answer a question."""

    best_logit: float | None  # the sentence model's best logit (None: no candidate sentence)
    passage_sim: float | None  # best cosine of a packed passage (None: no vectors)
    sentence_sim: float | None  # best cosine of a candidate sentence
    words: float  # best share of the question's words in one packed passage
    known: float = 1.0  # share of the question's words anywhere in what retrieval brought back
    missing: str = ""  # a name the question gives that nothing retrieval brought back mentions (names.py)

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def row(self) -> list[float]:
        return [self.best_logit if self.best_logit is not None else -10.0,
                self.sentence_sim or 0.0, self.passage_sim or 0.0, self.words, self.known, float(bool(self.missing))]


def probability(ev: Evidence, model: CoverageModel | None = None) -> float | None:
    """The model's probability that the documents answer the question; None without vectors."""
    if ev.passage_sim is None and ev.sentence_sim is None:
        return None
    m = model or load()[1]
    return m.probability(np.asarray(ev.row()))


def covered(ev: Evidence, model: CoverageModel | None = None) -> bool:
    if ev.missing and is_code(ev.missing):
        return False  # "asyncio.gather", "C++" in a library that never mentions them
    p = probability(ev, model)
    if p is None:
        return ev.words >= LEXICAL_ONLY_WORDS
    return p >= (model or load()[1]).threshold
