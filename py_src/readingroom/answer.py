"""The quick answer: the 1-3 sentences of the top passages that best answer the question.

Shown the moment retrieval returns, before (or instead of) any language model, so it must
be fast and it must never say what the documents do not: every sentence is a verbatim
extract, with its ``[n]`` and its place in the document (so the reader can highlight it).
Sentences are scored by the embedding model (cosine to the query, one batched call made by
the orchestrator) combined with how many of the question's words they contain: the
embedding alone likes generic sentences on the right topic, words alone like any sentence
that repeats the question.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import sentences
from .fts import terms
from .merge import Piece, to_document
from .records import Span

MAX_SPANS = 4  # sentences come from the top passages only: [1]..[4]
MAX_SENTENCES = 24  # one embedding batch; 40 found no more answers on the answers sets than 24
MIN_WORDS = 4  # "See below." answers nothing
MAX_CHARS = 600  # a sentence longer than this is a paragraph the splitter could not cut
# Tuned on the dev split of bench/data/answers (answer phrase in the quick answer; see
# tests/test_answer.py for the figures): idf-weighted word share next to cosine, a little
# for retrieval's order, and a lead-in ending in ":" (its answer is the code that follows)
# a little less.
LEXICAL_WEIGHT = 0.25
RANK_BONUS = 0.05  # per place before [4]
LEAD_IN_PENALTY = 0.05
KEEP_RATIO = 0.8  # a 2nd/3rd sentence must score this close to the best
MAX_QUICK = 3


@dataclass(frozen=True)
class Candidate:
    """One sentence of a packed passage, placed in its document."""

    text: str
    n: int  # the passage's [n] in the context
    doc_name: str
    doc_id: int
    chunk_id: int
    start: int  # document offsets, like a Hit's or Span's
    end: int
    lexical: float = 0.0  # share of the query's terms it contains


@dataclass(frozen=True)
class Quick:
    text: str
    n: int
    doc_name: str
    doc_id: int
    chunk_id: int
    start: int
    end: int
    score: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


_WORD = re.compile(r"\w+", re.UNICODE)


def _stem(word: str) -> str:
    """Crude and symmetric: "arguments"/"argument", "defined"/"define" meet at 5+ letters."""
    return word[:5] if len(word) > 5 and word.isascii() else word


def lexical_share(query_terms: Sequence[str], text: str) -> float:
    """The share of the query's terms (crudely stemmed) that ``text`` contains."""
    if not query_terms:
        return 0.0
    have = {_stem(w) for w in _WORD.findall(text.lower())}
    wanted = {_stem(t) for t in query_terms}
    return len(wanted & have) / len(wanted)


def weighted_shares(query_terms: Sequence[str], texts: Sequence[str]) -> list[float]:
    """Each text's share of the query's terms, a term weighted by its rarity among ``texts``
    (in a passage about functions, "function" says little; "default" says a lot)."""
    wanted = list(dict.fromkeys(_stem(t) for t in query_terms))
    if not wanted or not texts:
        return [0.0] * len(texts)
    have = [{_stem(w) for w in _WORD.findall(t.lower())} for t in texts]
    weight = {t: math.log(1 + len(texts) / (1 + sum(t in h for h in have))) for t in wanted}
    total = sum(weight.values())
    return [sum(weight[t] for t in wanted if t in h) / total for h in have]


def candidates(query: str, spans: Sequence[Span], pieces: Sequence[Sequence[Piece]],
               max_spans: int = MAX_SPANS, max_sentences: int = MAX_SENTENCES) -> list[Candidate]:
    """Prose sentences of the first ``max_spans`` passages, at most ``max_sentences``: each
    passage's best by words first, taken in turns so every passage gets a share."""
    q = terms(query)
    per_span: list[list[Candidate]] = []
    for i, (span, ps) in enumerate(zip(spans[:max_spans], pieces)):
        found = []
        for s in sentences.split(span.text):
            if s.kind not in (sentences.PROSE, sentences.ITEM):
                continue
            if len(s.text.split()) < MIN_WORDS or len(s.text) > MAX_CHARS:
                continue
            a, b = to_document(ps, s.start), to_document(ps, s.end, end=True)
            if a is None or b is None or b[0] - a[0] != s.end - s.start:
                continue  # it crosses text the document does not have: not verbatim
            found.append(Candidate(s.text, i + 1, span.doc_name, span.doc_id, a[1], a[0], b[0],
                                   lexical_share(q, s.text)))
        found.sort(key=lambda c: -c.lexical)  # stable: ties keep document order
        per_span.append(found)
    out: list[Candidate] = []
    depth = 0
    while len(out) < max_sentences and any(depth < len(f) for f in per_span):
        for f in per_span:
            if depth < len(f) and len(out) < max_sentences:
                out.append(f[depth])
        depth += 1
    return out


def scores(query: str, cands: Sequence[Candidate], query_vec: np.ndarray | None,
           vecs: np.ndarray | None) -> list[float]:
    """Cosine (vectors are unit length) plus the weighted word share, plus a little for
    rank, minus a little for a lead-in. Without vectors, words and rank alone."""
    shares = weighted_shares(terms(query), [c.text for c in cands])
    out = []
    for i, c in enumerate(cands):
        cos = float(vecs[i] @ query_vec) if query_vec is not None and vecs is not None else 0.0
        lead_in = LEAD_IN_PENALTY if c.text.rstrip().endswith(":") else 0.0
        out.append(cos + LEXICAL_WEIGHT * shares[i] + RANK_BONUS * max(0, MAX_SPANS - c.n) - lead_in)
    return out


def select(cands: Sequence[Candidate], score: Sequence[float], limit: int = MAX_QUICK) -> list[Quick]:
    """The best sentence, and up to ``limit - 1`` more that score nearly as well and do not
    repeat a chosen one; best first."""
    order = sorted(range(len(cands)), key=lambda i: -score[i])
    chosen: list[Quick] = []
    for i in order:
        c = cands[i]
        if chosen and (score[i] < KEEP_RATIO * chosen[0].score or len(chosen) >= limit):
            break
        if any(q.doc_id == c.doc_id and q.start < c.end and c.start < q.end for q in chosen):
            continue  # the same words through two overlapping passages
        if any(" ".join(q.text.split()) == " ".join(c.text.split()) for q in chosen):
            continue
        chosen.append(Quick(c.text, c.n, c.doc_name, c.doc_id, c.chunk_id, c.start, c.end,
                            round(score[i], 4)))
    return chosen
