"""Do the documents cover the question at all? The "not in your documents" decision.

Retrieval always returns something: fused ranks are relative, so the best of a bad lot
still comes first. Whether that best is any good is decided here from absolute evidence:
the cosine to the query of the best packed passage and of the best candidate sentence,
plus a little for the share of the question's words the top passages contain.

Calibrated on the dev split of ``bench/data/answers`` over the bundled Python reference
(109 answerable and follow-up questions, 24 unanswerable: other domains and near misses
such as numpy, Django or Rust questions), by a grid over the word weight and the bar:
``max(passage, sentence) + 0.1 * words >= 0.55`` refused 23 of 24 unanswerable and no
answerable one; on the held-out test split (47 and 10) it refused 9 of 10 and no
answerable one. Answerable questions score 0.65-1.1 on it, unanswerable ones 0.0-0.69.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .records import Hit

BAR = 0.55  # see the module docstring
WORD_WEIGHT = 0.1
LEXICAL_ONLY_WORDS = 0.75  # no vectors (model down or another model's index): words alone


@dataclass(frozen=True)
class Evidence:
    passage_sim: float | None  # best cosine of a packed chunk (None: no vectors)
    sentence_sim: float | None  # best cosine of a candidate sentence
    words: float  # best share of the question's words in one packed passage

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def passage_sim(evidence: Sequence[Hit], packed_ids: set[int]) -> float | None:
    sims = [h.vector_sim for h in evidence if h.chunk_id in packed_ids and h.vector_sim is not None]
    return max(sims) if sims else None


def score(ev: Evidence) -> float | None:
    """The number compared with ``BAR``; ``None`` without vectors."""
    sims = [s for s in (ev.passage_sim, ev.sentence_sim) if s is not None]
    return max(sims) + WORD_WEIGHT * ev.words if sims else None


def covered(ev: Evidence) -> bool:
    s = score(ev)
    return ev.words >= LEXICAL_ONLY_WORDS if s is None else s >= BAR
