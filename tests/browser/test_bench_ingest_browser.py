"""The ingest and embedding benches run in the page on a tiny fixture and say how the page embeds
(isolation, backend, threads) beside every figure."""

from __future__ import annotations

import beir_fixture


def test_ingest_compares_the_isolated_and_the_plain_page_in_one_run(site, tmp_path, model_dir):
    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "ingest", "--browser", "--docs", "6",
                                       "--pdf-pages", "0", "--no-build")
    ing = res["ingest"]
    isolated, plain = ing["browser"], ing["browser_not_isolated"]
    assert isolated["cross_origin_isolated"] is True and plain["cross_origin_isolated"] is False
    assert isolated["backend"] == plain["backend"] == "wasm"
    assert isolated["threads"] >= 1 and plain["threads"] >= 1
    for side in (isolated, plain):
        assert side["chunks"] == ing["chunks"] and side["errors"] == [] and len(side["load_average"]) == 3
    assert "not isolated" in (tmp_path / "report" / "report.md").read_text()


def test_embedding_setups_are_measured_side_by_side(site, tmp_path, model_dir):
    _, res = beir_fixture.run_bench(tmp_path, model_dir, "embedding", "--texts", "4", "--rounds", "2", "--no-build")
    emb = res["embedding"]
    assert emb["texts"] == 4 and emb["rounds"] == 2
    assert set(emb["chunks_per_s"]) == {"1 worker x 2 threads", "1 worker x 2 threads, 1024-token batches",
                                        "2 workers x 1 thread", "1 worker x 1 thread"}
    assert all(v["n"] == 2 and v["p50"] > 0 for v in emb["chunks_per_s"].values())
    assert [w["threads"] for w in emb["workers"]["2 workers x 1 thread"]] == [1, 1]
    assert len(emb["load_average_1min"]) == 3
