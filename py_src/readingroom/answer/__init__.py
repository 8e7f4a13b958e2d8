"""The quick answer and the "not in your documents" decision, as pure functions.

``candidates`` (the sentences of the packed passages, placed in their documents), ``features``
(what the scorer sees of each), ``model`` (the two small learned models and their weights),
``quick`` (scoring and picking the 1-3 sentences shown) and ``coverage`` (whether the documents
answer the question at all). ``ask`` is their orchestrator and the only one doing I/O; the
training command (``bench.train_answers``) calls ``prepare`` and ``decide`` exactly as it does.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..search.merge import Piece
from ..search.names import name_text
from ..records import Hit, Span
from .candidates import (MAX_SENTENCES, Candidate, candidates, known_share, lexical_share, passage_sims,
                         weighted_shares)
from . import names
from .coverage import Evidence, covered
from .model import SentenceModel
from .quick import MAX_QUICK, Quick, Scored, score, select


def prepare(question: str, spans: Sequence[Span], pieces: Sequence[Sequence[Piece]],
            evidence: Sequence[Hit], max_sentences: int = MAX_SENTENCES) -> list[Candidate]:
    """The candidate sentences of every packed passage."""
    return candidates(question, spans, pieces, passage_sims(evidence, spans), max_sentences)


def decide(question: str, cands: Sequence[Candidate], query_vec: np.ndarray | None,
           vecs: np.ndarray | None, spans: Sequence[Span], evidence: Sequence[Hit],
           model: SentenceModel | None = None) -> tuple[Scored, Evidence]:
    """The scored candidates and the evidence coverage is decided on."""
    s = score(question, cands, query_vec, vecs, model)
    q = s.question.terms
    sims = [p for p in passage_sims(evidence, spans) if p is not None] if query_vec is not None else []
    # A document the question names (retrieval's name leg, search/names.py) is evidence by its
    # name too: "where did they film the theory of everything" asks about the film's article,
    # whose passages never repeat its title.
    named = {h.doc_id: name_text(h.doc_name) for h in evidence if h.name_rank is not None}
    texts = [h.text for h in evidence] + [sp.text for sp in spans] + list(named.values())
    ev = Evidence(best_logit=s.best_logit,
                  passage_sim=max(sims) if sims else None,
                  sentence_sim=float(s.cos.max()) if s.cos is not None and len(s.cos) else None,
                  words=round(max((lexical_share(q, f"{named.get(sp.doc_id, '')} {sp.text}") for sp in spans),
                                  default=0.0), 4),
                  known=round(known_share(q, texts), 4), missing=names.missing(question, texts))
    return s, ev


__all__ = ["Candidate", "Evidence", "MAX_QUICK", "Quick", "Scored", "candidates", "covered", "decide",
           "lexical_share", "prepare", "score", "select", "weighted_shares"]
