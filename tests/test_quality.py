"""Quality regression on the SciFact train split (the tuning split; never the test split).

The corpus is embedded once per machine and cached (~/.cache/readingroom/bench, keyed by
model, chunker and corpus hash); after that this test takes seconds. The floors sit just
under what was measured (see README, Numbers) so a real regression fails and noise does not.
"""

import pytest

from helpers import SCIFACT
from readingroom.bench import beir, quality

# Measured 2026-11-22 (809 train queries): lexical 0.6834, vector 0.6815, hybrid 0.7211.
FLOORS = {"lexical": 0.675, "vector": 0.672, "hybrid": 0.715}


@pytest.fixture(scope="module")
def scifact_results(model_dir):
    if not SCIFACT.exists():
        pytest.fail(f"{SCIFACT} is missing: the shared SciFact dataset must sit beside the repo")
    return quality.run_native(beir.load(SCIFACT, "train"), str(model_dir))


@pytest.mark.parametrize("method", ["lexical", "vector", "hybrid"])
def test_scifact_ndcg_floor(scifact_results, method):
    assert scifact_results[method]["ndcg@10"] >= FLOORS[method], scifact_results[method]


def test_hybrid_beats_each_leg(scifact_results):
    h = scifact_results["hybrid"]["ndcg@10"]
    assert h > scifact_results["lexical"]["ndcg@10"] and h > scifact_results["vector"]["ndcg@10"]
    assert scifact_results["hybrid"]["recall@100"] >= scifact_results["lexical"]["recall@100"]
