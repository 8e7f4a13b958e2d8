"""The ingest and embedding benches run in the page on a tiny fixture and say how the page embeds
(isolation, backend, threads) beside every figure."""

from __future__ import annotations

import beir_fixture


def test_ingest_compares_the_isolated_and_the_plain_page_in_one_run(site, tmp_path, model_dir):
    """Half the fixture's documents are added on each page; the other half are added while the
    queries are asked again; a two-page generated PDF goes through the file path."""
    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "ingest", "--browser", "--docs", "3",
                                       "--pdf-pages", "2", "--no-build")
    ing = res["ingest"]
    isolated, plain = ing["browser"], ing["browser_not_isolated"]
    assert isolated["cross_origin_isolated"] is True and plain["cross_origin_isolated"] is False
    assert isolated["backend"] == plain["backend"] == "wasm"
    assert isolated["threads"] >= 1 and plain["threads"] >= 1
    for side in (isolated, plain):
        assert side["chunks"] == ing["chunks"] and side["errors"] == [] and len(side["load_average"]) == 3
    during = ing["queries_during_ingest"]
    assert during["idle_ms"]["n"] == len(beir_fixture.QUERIES) and during["during_ms"]["n"] >= 1
    assert during["added_chunks"] >= 3 and during["ratio_p50"] > 0
    # Queries on a session of their own, against ingestion sharing it (?queryworker=off), with the
    # tab's memory for each.
    shared = ing["queries_during_ingest_shared_session"]
    assert during["query_worker"] is True and shared["query_worker"] is False
    assert shared["during_ms"]["n"] >= 1 and shared["ratio_p50"] > 0
    assert during["renderer_rss_mb"]["peak"] > 50 and shared["renderer_rss_mb"]["peak"] > 50
    pdf = ing["browser_pdf"]
    assert pdf["pages"] == 2 and pdf["status"] == "added" and pdf["error"] is None and pdf["chunks"] >= 2
    # Words first: the PDF answered a word search before (or as) its last vector was stored.
    assert pdf["word_probes"] >= 1 and pdf["full_hybrid_s"] > 0
    assert pdf["first_word_answer_s"] is None or 0 < pdf["first_word_answer_s"] <= pdf["full_hybrid_s"]
    memory = pdf["renderer_rss_mb"]
    assert memory["samples"] >= 1 and memory["peak"] > 50 and memory["before"] > 50  # MB: the tab is really measured
    report = (tmp_path / "report" / "report.md").read_text()
    assert "not isolated" in report and "while adding it" in report and "more chunks were added" in report
    assert "first word answer" in report and "sharing the query session" in report


def test_embedding_setups_are_measured_side_by_side(site, tmp_path, model_dir):
    _, res = beir_fixture.run_bench(tmp_path, model_dir, "embedding", "--texts", "4", "--rounds", "2", "--no-build")
    emb = res["embedding"]
    assert emb["texts"] == 4 and emb["rounds"] == 2
    assert set(emb["chunks_per_s"]) == {"1 worker x 2 threads", "1 worker x 2 threads, 1024-token batches",
                                        "2 workers x 1 thread", "1 worker x 1 thread"}
    assert all(v["n"] == 2 and v["p50"] > 0 for v in emb["chunks_per_s"].values())
    assert [w["threads"] for w in emb["workers"]["2 workers x 1 thread"]] == [1, 1]
    assert len(emb["load_average_1min"]) == 3
