"""Ranking metrics as BEIR computes them through trec_eval: nDCG with linear gain (the
grade itself) and a log2 discount; recall and MRR over documents graded above zero."""

from __future__ import annotations

import math
from typing import Mapping, Sequence


def ndcg_at(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    dcg = sum(qrels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((r for r in qrels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    relevant = {d for d, r in qrels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(ranked[:k])) / len(relevant)


def mrr_at(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if qrels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def summarise(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> dict:
    """Mean metrics over the queries that have judgements (as BEIR reports them)."""
    qids = [q for q in qrels if q in runs]
    if not qids:
        return {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0, "queries": 0}

    def mean(f) -> float:
        return round(sum(f(runs[q], qrels[q]) for q in qids) / len(qids), 6)

    return {
        "ndcg@10": mean(lambda r, q: ndcg_at(r, q, 10)),
        "recall@10": mean(lambda r, q: recall_at(r, q, 10)),
        "recall@100": mean(lambda r, q: recall_at(r, q, 100)),
        "mrr@10": mean(lambda r, q: mrr_at(r, q, 10)),
        "queries": len(qids),
    }
