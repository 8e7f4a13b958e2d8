"""Quality regression on the SciFact train split (the tuning split; never the test split).

All 809 judged questions, asked of every judged abstract and 400 others spread evenly over the
corpus (965 of 5,183 documents): CI runs on a fresh machine, where embedding the whole corpus
(13,724 chunks) took 7-8 minutes, and the 1,000 others this test used before (4,293 chunks)
6 minutes 17 s of a 92-minute run on a slower machine (2026-12-01). The whole corpus is
``bench quality``'s (README, Numbers). The index is embedded once per machine and cached
(~/.cache/readingroom/bench, keyed by model, chunker and corpus hash). The floors sit just under
what was measured on this subset, so a real regression fails and noise does not.
"""

import pytest

from helpers import SCIFACT
from readingroom.bench import beir, quality

DISTRACTORS = 400
# Measured 2026-12-01 on the subset (809 train queries, 2,712 chunks; 266 s to embed and ask at
# load ~1.5): nDCG@10 lexical 0.7827, vector 0.8148, hybrid 0.8235. (With 1,000 others,
# 2026-11-28: 0.7680, 0.7752, 0.7991; the whole corpus that day: 0.6815, 0.6815, 0.7212.)
FLOORS = {"lexical": 0.774, "vector": 0.806, "hybrid": 0.815}


def scifact_train() -> beir.Dataset:
    if not SCIFACT.exists():
        pytest.fail(f"{SCIFACT} is missing: the shared SciFact dataset must sit beside the repo")
    return beir.load(SCIFACT, "train")


@pytest.fixture(scope="module")
def scifact_results(model_dir):
    return quality.run_native(scifact_train().subset(DISTRACTORS), str(model_dir))


@pytest.mark.parametrize("method", ["lexical", "vector", "hybrid"])
def test_scifact_ndcg_floor(scifact_results, method):
    assert scifact_results[method]["ndcg@10"] >= FLOORS[method], scifact_results[method]


def test_the_subset_keeps_every_judged_abstract_and_the_same_others_each_time():
    ds = scifact_train()
    sub = ds.subset(DISTRACTORS)
    judged = {d for rel in ds.qrels.values() for d in rel if d in ds.corpus}
    assert judged <= sub.corpus.keys() and len(sub.corpus) == len(judged) + DISTRACTORS
    assert all(sub.corpus[d] == ds.corpus[d] for d in sub.corpus)
    assert (sub.queries, sub.qrels) == (ds.queries, ds.qrels)
    assert sub == ds.subset(DISTRACTORS) and sub.corpus_hash not in (ds.corpus_hash, ds.subset(999).corpus_hash)


def test_hybrid_beats_each_leg(scifact_results):
    h = scifact_results["hybrid"]["ndcg@10"]
    assert h > scifact_results["lexical"]["ndcg@10"] and h > scifact_results["vector"]["ndcg@10"]
    assert scifact_results["hybrid"]["recall@100"] >= scifact_results["lexical"]["recall@100"]
