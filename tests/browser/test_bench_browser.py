"""The benchmark command's browser half, end to end on a tiny BEIR fixture: the corpus is
embedded in the browser, queried through the real app, and must score as natively."""

import json

import beir_fixture


def test_quality_native_and_browser_agree_on_a_tiny_fixture(site, tmp_path, model_dir):
    _, res = beir_fixture.run_bench(tmp_path, model_dir, "quality", "--embed-in-browser", "--no-build")
    q = res["quality"]
    assert q["differences"] == []
    assert q["browser"]["index"]["embedded_in_browser"] is True
    for m in ("lexical", "vector", "hybrid"):
        assert q["browser"][m]["queries"] == 4
    assert q["browser"]["hybrid"]["recall@10"] == 1.0


def test_peer_on_a_tiny_fixture_scores_orama_with_the_same_metrics(site, tmp_path, model_dir):
    _, res = beir_fixture.run_bench(tmp_path, model_dir, "peer", "--no-build", timeout=600)
    p = res["peer"]
    assert p["chunks"] == p["imported_chunks"] == 6 and p["queries"] == 4 and p["timed_queries"] == 2
    for name in ("ours", "orama", "orama_stemmed"):
        assert p[name]["hybrid"]["queries"] == 4
        assert p[name]["latency_ms"]["n"] == 2 and p[name]["latency_ms"]["p50"] > 0
    # Same vectors on both sides: the vector legs rank identically.
    for key in ("ndcg@10", "recall@10"):
        assert p["orama"]["legs"]["vector"][key] == p["ours"]["legs"]["vector"][key]
    assert p["ours"]["hybrid"]["recall@10"] == 1.0
    # PGlite + pgvector on the same chunks and vectors: every row scored, timed and compared.
    pg = p["pglite"]
    assert pg["cold_start_ms"] > 0 and pg["insert_ms"] > 0 and pg["hnsw_build_ms"] > 0
    assert pg["renderer_rss_mb"]["peak"] > 50 and len(pg["load_average"]) == 3
    for name in ("hnsw_ef40", "hnsw_ef96", "exact", "hybrid"):
        assert pg[name]["quality"]["queries"] == 4 and pg[name]["latency_ms"]["n"] == 2
        assert pg[name]["ratio"]["p50_pglite_over_ours"] > 0
    # Exact cosine over the very same vectors ranks as Reading Room's vector leg does.
    assert pg["exact"]["quality"]["ndcg@10"] == p["ours"]["legs"]["vector"]["ndcg@10"]
    report = (tmp_path / "report" / "report.md").read_text()
    assert "Orama" in report and "PGlite" in report


def test_peer_at_a_scaled_size_scores_copies_as_the_documents_they_copy(site, tmp_path, model_dir):
    _, res = beir_fixture.run_bench(tmp_path, model_dir, "peer", "--passages", "15", "--no-build", timeout=600)
    p = res["peer"]
    assert p["scaled"] is True and p["chunks"] == p["imported_chunks"] == 15
    # Copies have jittered vectors: each system still finds the relevant source documents.
    assert p["ours"]["hybrid"]["recall@10"] == 1.0
    assert p["pglite"]["exact"]["quality"]["recall@10"] == 1.0 and p["orama"]["hybrid"]["queries"] == 4


def test_startup_is_measured_per_phase_and_uses_the_snapshot(site, tmp_path, model_dir):
    import build

    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "latency", "--startup-only", "--no-build", timeout=600)
    lat = res["latency"]
    assert lat["startup_ms"]["cold_first_visit"] > 0 and lat["startup_ms"]["warm_reload"] > 0
    assert lat["startup_ms"]["second_reload"] > 0  # what later visits see, beside the first reload
    for visit in ("cold1", "warm1", "again1"):
        worker = lat["startup_phases"][visit]["retrievalWorker"]
        assert {"pyodide", "site", "wheel", "database", "import", "open"} <= set(worker)
        assert lat["startup_phases"][visit]["library"] <= lat["startup_phases"][visit]["ready"]
        # each visit's phases are printed in order, with the load average beside them
        assert f"{visit}: load average [" in proc.stdout and "ms  worker.snapshot" in proc.stdout
        manifest = json.loads((build.EMPTY_DIST / "build-manifest.json").read_text())
        if manifest.get("pyodide_snapshot"):
            assert "snapshot" in worker and "snapshotFailed" not in worker
    assert "cold first visit to ready" in proc.stdout
