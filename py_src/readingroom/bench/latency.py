"""Hot-path latency, start-up time and ingestion throughput in headless Chromium."""

from __future__ import annotations

import time

from . import browser as bb
from .beir import Dataset
from .corpus import scaled_index
from .quality import build_index, cache_dir
from .stats import summary

# Runs inside the page: every query timed with performance.now() around the public API.
_RUN_QUERIES = """
async ([queries, options, warmup]) => {
  const rr = window.readingroom;
  for (const q of queries.slice(0, warmup)) await rr.query(q, options);
  const out = [];
  for (const q of queries.slice(warmup)) {
    const t0 = performance.now();
    const r = await rr.query(q, options);
    const total = performance.now() - t0;
    out.push({total, stages: r.stats.timings_ms, results: r.results.length, reason: r.reason});
  }
  return out;
}
"""


def query_latency(page, queries: list[str], options: dict | None = None, warmup: int = 10) -> dict:
    runs = page.evaluate(_RUN_QUERIES, [queries, options or {}, warmup])
    stages: dict[str, list[float]] = {}
    for r in runs:
        for name, ms in r["stages"].items():
            stages.setdefault("python_total" if name == "total" else name, []).append(ms)
        stages.setdefault("total", []).append(r["total"])
    return {name: summary(v) for name, v in stages.items()}


def run(ds: Dataset, sizes: list[int], n_queries: int = 120, rebuild: bool = True) -> dict:
    source, _ = build_index(ds)
    queries = list(ds.queries.values())[:n_queries]
    out: dict = {"queries": len(queries) - 10, "warmup": 10, "sizes": {}}
    with bb.session(rebuild) as (browser, url):
        ctx, page, cold = bb.open_app(browser, url)
        page.reload()
        warm = bb.ready_ms(page)
        out["startup_ms"] = {"cold_first_visit": round(cold, 1), "warm_reload": round(warm, 1)}
        ctx.close()
        for n in sizes:
            idx = scaled_index(source, n, cache_dir() / f"{source.stem}-x{n}.sqlite")
            ctx, page, _ = bb.open_app(browser, url)
            t0 = time.perf_counter()
            status = bb.import_index(page, idx)
            imported = time.perf_counter() - t0
            out["sizes"][str(n)] = {"chunks": status["chunks"], "import_s": round(imported, 2),
                                    "stages": query_latency(page, queries)}
            ctx.close()
    return out
