"""The quick answer: the 1-3 sentences of the packed passages that best answer the question.

Shown the moment retrieval returns, before (or instead of) any language model, so it must be
fast and it must never say what the documents do not: every sentence is a verbatim extract,
with its ``[n]`` and its place in the document (so the reader can highlight it); a table row
comes with its table's header row (``header``). Sentences are
scored by the learned sentence model (``model``) over ``features``; the best is shown, and up
to two more whose share of the softmax is close to the best's.

A yes/no question ("Can I...", "Is it...") is decided by a sentence that says what can or
cannot be, must, only or never is: among the sentences the model scores near the best, such a
sentence on the question's terms comes first, ahead of a definition of the topic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import features as F
from .candidates import Candidate, leads_in
from .conditions import asked_condition, condition_share
from .model import SentenceModel, load, probabilities

MAX_QUICK = 3
CONTINUE_BELOW = 120  # the best sentence, when shorter, is quoted with the one after it (answer_curves.continue_curve on held-back public data)
KEEP_SHARE = 0.05  # a 2nd/3rd sentence needs this share of the best one's probability (chosen by answer_curves.keep_curve on held-back public data)
YESNO_REACH = 1.0  # a deciding sentence within this many logits of the best leads a yes/no answer
YESNO_TERMS = 0.34  # ...if it holds at least a third of the question's terms
CONDITION_REACH = 4.0  # a sentence stating the question's condition leads from this many logits below the best
CONDITION_SHARE = 0.5  # ...if one of its condition clauses holds at least half of the condition's terms


@dataclass(frozen=True)
class Quick:
    """One quoted sentence of the quick answer, with its citation number and its place in the document."""

    text: str
    n: int
    doc_name: str
    doc_id: int
    chunk_id: int
    start: int
    end: int
    score: float  # the sentence model's logit
    header: str = ""  # a table row's header row, verbatim from the same table ("" for a sentence)
    reads: str = ""  # a table row as a sentence ("Column: value; ..."), for a model's notes

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        del d["reads"]  # the model's notes are built from it here; the page shows text and header
        return d


@dataclass(frozen=True)
class Scored:
    """A question's candidates with their features and the model's view of them."""

    question: F.Question
    cands: list[Candidate]
    features: np.ndarray
    logits: np.ndarray
    cos: np.ndarray | None  # each sentence's cosine to the question (None: no vectors)

    @property
    def best_logit(self) -> float | None:
        return float(self.logits.max()) if len(self.logits) else None


def score(question: str, cands: Sequence[Candidate], query_vec: np.ndarray | None,
          vecs: np.ndarray | None, model: SentenceModel | None = None) -> Scored:
    """Features and logits of every candidate (without vectors: cosines are zero, words lead)."""
    q = F.Question.of(question)
    cos = (np.asarray(vecs, dtype=np.float64) @ np.asarray(query_vec, dtype=np.float64)
           if query_vec is not None and vecs is not None and len(cands) else None)
    m = model or load()[0]
    x = F.matrix(q, cands, cos, m.match(query_vec, vecs) if cos is not None else None)
    return Scored(q, list(cands), x, m.logits(x), cos)


def _lead(s: Scored, idx: list[int], reach: float, leads) -> list[int] | None:
    """``idx`` with the first candidate within ``reach`` logits of the best for which
    ``leads(i)`` holds put first; None when there is none."""
    top = s.logits[idx[0]]
    for i in idx:
        if top - s.logits[i] > reach:
            break
        if leads(i):
            return [i] + [j for j in idx if j != i]
    return None


def order(s: Scored) -> list[int]:
    """Candidates best first. A question about a condition ("What happens if...") is led by the
    sentence near the best whose own condition clause states it (``conditions``); failing
    that, a yes/no question by a deciding sentence near the best."""
    idx = sorted(range(len(s.cands)), key=lambda i: -s.logits[i])
    if not idx:
        return idx
    condition = asked_condition(s.question.text)
    if condition:
        best = condition_share(condition, s.cands[idx[0]].text)

        def states(i: int) -> bool:  # holds the condition, and more of it than the best sentence
            got = condition_share(condition, s.cands[i].text)
            return got >= CONDITION_SHARE and got > best

        led = _lead(s, idx, CONDITION_REACH, states)
        if led:
            return led
    if s.question.kind == "yesno":
        decides, share = F.NAMES.index("decides"), F.NAMES.index("share")
        if s.features[idx[0], decides]:
            return idx  # the best sentence already decides it
        led = _lead(s, idx, YESNO_REACH, lambda i: bool(s.features[i, decides]) and s.features[i, share] >= YESNO_TERMS)
        if led:
            return led
    return idx


def _quote(c: Candidate, first: bool, continue_below: int) -> tuple[str, int]:
    """The words quoted for a chosen sentence and where they end: the best one, when short, with
    the sentence that follows it in the same paragraph (a reference's "Remove and return a pair."
    says what; "Pairs are returned in LIFO order." says which), and one that leads in with a colon
    with what it introduces ("...the function rm is available:" and the command)."""
    if first and c.after and (len(c.text) < continue_below or leads_in(c.text)):
        return c.text + c.after, c.after_end
    return c.text, c.end


def select(s: Scored, limit: int = MAX_QUICK, continue_below: int | None = None) -> list[Quick]:
    """The best sentence, and up to ``limit - 1`` more with at least ``KEEP_SHARE`` of its
    probability that do not repeat a chosen one; best first."""
    below = CONTINUE_BELOW if continue_below is None else continue_below
    if not s.cands:
        return []
    p = probabilities(s.logits)
    ranked = order(s)
    best = p[ranked[0]]
    chosen: list[Quick] = []
    for i in ranked:
        c = s.cands[i]
        if chosen and (p[i] < KEEP_SHARE * best or len(chosen) >= limit):
            break
        if any(q.doc_id == c.doc_id and q.start < c.end and c.start < q.end for q in chosen):
            continue  # the same words through two overlapping passages
        if any(" ".join(c.text.split()) in " ".join(q.text.split()) for q in chosen):
            continue
        text, end = _quote(c, not chosen, below)
        chosen.append(Quick(text, c.n, c.doc_name, c.doc_id, c.chunk_id, c.start, end,
                            round(float(s.logits[i]), 4), c.header, c.reads))
    return chosen
