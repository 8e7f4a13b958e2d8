"""Issue 23's targets, read from ``bench latency --store postgres`` results: each as (name,
measured, goal, unit, at_least), for ``report.targets``. Recall is the held-back queries'
(those not used to choose the default ``ef_search``: ``pg_bench.CALIBRATION``)."""

from __future__ import annotations

from ..search.options import Options
from .report import _get

SIZE = "1000000"  # the targets are set at a million chunks


def targets(section: dict | None) -> list[tuple[str, float | None, float, str, bool]]:
    pg = (section or {}).get("latency_postgres") or {}
    one = _get(pg, "sizes", SIZE) or {}
    recall = _get(one, "recall_at_10", "held_back", str(Options.ef_search))
    ndcg = [_get(pg, "scifact", store, "hybrid") for store in ("postgres", "sqlite")]
    gap = abs(ndcg[0] - ndcg[1]) if None not in ndcg else None
    return [
        ("Postgres 1M: search p95 through serve", _get(one, "search_serve_ms", "p95"), 100, "ms", False),
        ("Postgres 1M: ask p95 through serve", _get(one, "ask_serve_ms", "p95"), 400, "ms", False),
        ("Postgres 1M: searches/s, 16 clients through serve", _get(one, "throughput", "searches_per_s"), 20,
         "searches/s", True),
        (f"Postgres 1M: HNSW recall@10 at the default ef_search ({Options.ef_search}), held-back queries",
         recall, 0.95, "", True),
        ("Postgres: SciFact hybrid nDCG@10, difference from the SQLite store", gap, 0.005, "", False),
    ]
