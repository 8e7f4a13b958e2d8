"""Metric code against examples worked by hand."""

import math

import pytest

from readingroom.bench import metrics


def test_ndcg_hand_computed():
    qrels = {"a": 1, "b": 2}
    # ranks: x(0), b(2), a(1): DCG = 2/log2(3) + 1/log2(4); ideal: b then a = 2/1 + 1/log2(3)
    dcg = 2 / math.log2(3) + 1 / 2
    idcg = 2 / 1 + 1 / math.log2(3)
    assert metrics.ndcg_at(["x", "b", "a"], qrels, 10) == pytest.approx(dcg / idcg)
    assert metrics.ndcg_at(["b", "a"], qrels, 10) == pytest.approx(1.0)
    assert metrics.ndcg_at(["x"], qrels, 10) == 0.0
    assert metrics.ndcg_at(["x", "a"], qrels, 1) == 0.0


def test_recall_and_mrr_hand_computed():
    qrels = {"a": 1, "b": 1, "c": 0}
    assert metrics.recall_at(["a", "c", "x"], qrels, 10) == 0.5
    assert metrics.recall_at(["c", "b", "a"], qrels, 2) == 0.5
    assert metrics.mrr_at(["x", "c", "b"], qrels, 10) == pytest.approx(1 / 3)
    assert metrics.mrr_at(["x"] * 10 + ["a"], qrels, 10) == 0.0


def test_summarise_averages_over_judged_queries():
    runs = {"q1": ["a"], "q2": ["x"], "q3": ["a"]}
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}}
    s = metrics.summarise(runs, qrels)
    assert s["queries"] == 2 and s["ndcg@10"] == pytest.approx(0.5) and s["mrr@10"] == 0.5


def test_against_pytrec_eval():
    import pytrec_eval
    qrels = {"q": {"a": 1, "b": 2, "c": 1}}
    run = {"q": {"x": 5.0, "b": 4.0, "c": 3.0, "y": 2.0, "a": 1.0}}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})
    ref = ev.evaluate(run)["q"]
    ranked = sorted(run["q"], key=lambda d: -run["q"][d])
    assert metrics.ndcg_at(ranked, qrels["q"], 10) == pytest.approx(ref["ndcg_cut_10"])
    assert metrics.recall_at(ranked, qrels["q"], 100) == pytest.approx(ref["recall_100"])
