"""Do the documents cover the question at all? The "not in your documents" decision.

Retrieval always returns something: fused ranks are relative, so the best of a bad lot
still comes first. Whether that best is any good is decided here from absolute evidence:
the cosine of the best passage and of the best sentence to the query, and the share of
the question's words the best passages contain. Thresholds were calibrated on answerable
and unanswerable questions over the bundled Python reference (see tests/test_coverage.py
and bench/data/answers); the numbers and how they were found are in the report there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .records import Hit

# Calibrated on the bundled corpus; see the module docstring.
PASSAGE_SIM = 0.50  # a passage this close to the question covers it by itself
SENTENCE_SIM = 0.42  # or a sentence this close ...
WORDS = 0.5  # ... that the passages back with this share of the question's words
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


def covered(ev: Evidence) -> bool:
    if ev.passage_sim is None and ev.sentence_sim is None:
        return ev.words >= LEXICAL_ONLY_WORDS
    if ev.passage_sim is not None and ev.passage_sim >= PASSAGE_SIM:
        return True
    return (ev.sentence_sim or 0.0) >= SENTENCE_SIM and ev.words >= WORDS
