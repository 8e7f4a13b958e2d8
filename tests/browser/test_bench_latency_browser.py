"""``bench latency --chunks N`` end to end on a tiny BEIR fixture: the index is imported into
the page in a profile on disk (the path the million-chunk index takes), opened, queried,
reopened after a reload, and the tab's memory is reported with its parts."""

import beir_fixture


def test_latency_imports_opens_and_measures_an_index_size(site, tmp_path, model_dir):
    proc, res = beir_fixture.run_bench(tmp_path, model_dir, "latency", "--chunks", "40", "--no-startup",
                                       "--no-build", timeout=900)
    lat = res["latency"]
    assert "startup_ms" not in lat
    size = lat["sizes"]["40"]
    assert "error" not in size, size
    assert size["chunks"] == 40 and size["file_bytes"] > 0
    assert size["open_s"] >= size["import_s"] > 0
    assert size["search"]["state"] == "ready" and size["reopen"]["search"]["state"] == "ready"
    assert size["stages"]["total"]["n"] == lat["queries"] == 2 and size["stages"]["total"]["p95"] > 0
    # The same questions typed ahead first: every one finds its vector ready.
    typed = size["typed_ahead"]
    assert typed["stages"]["total"]["n"] == 2 and typed["vector_sources"] == {"typed_ahead": 2}, typed
    assert "chunks: after Enter p50" in proc.stdout
    assert size["reopen"]["ready_ms"] > 0 and size["reopen"]["first_query_ms"]["total"] > 0
    assert size["first_query_after_warm_up_ms"]["total"] > 0 and size["reopen"]["first_query_after_warm_up_ms"]["total"] > 0
    memory = size["memory"]
    # The tab (its renderer processes) holds the retrieval worker's heaps and more.
    assert memory["tab"]["pss_bytes"] > memory["pyodide_heap_bytes"] + memory["sqlite_heap_bytes"] > 0
    assert memory["tab_after_reopen"]["pss_bytes"] > 0
    assert memory["js_heap_bytes"]["embed-worker.js"] > 0 and memory["js_heap_bytes"]["retrieval-worker.js"] > 0
    assert memory["vector_matrix_bytes"] > 0 and len(size["load_average"]) == 3
    assert "tab memory (renderer PSS) at 1M chunks" in proc.stdout
