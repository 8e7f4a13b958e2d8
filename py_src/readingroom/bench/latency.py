"""Hot-path latency, start-up time and ingestion throughput in headless Chromium."""

from __future__ import annotations

import time
from collections import Counter

from . import browser as bb
from .beir import Dataset
from .corpus import scaled_index
from .natural import natural_index, term_stats
from .quality import build_index, cache_dir
from .stats import load_average, summary

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

# The same questions again (each with " ?" added, so the query cache has none of them), each
# typed ahead first as the composer does while a person types (window.readingroom.typeAhead),
# then asked: the time after Enter when the question's vector is ready.
_RUN_TYPED_AHEAD = """
async ([queries, options]) => {
  const rr = window.readingroom;
  const out = [];
  for (const q of queries) {
    const text = `${q} ?`;
    await rr.typeAhead(text);
    const t0 = performance.now();
    const r = await rr.query(text, options);
    out.push({total: performance.now() - t0, stages: r.stats.timings_ms, source: r.stats.query_vector?.source ?? null});
  }
  return out;
}
"""


_FIRST_QUERY = """
async (q) => {
  const t0 = performance.now();
  const r = await window.readingroom.query(q);
  return {total: performance.now() - t0, stages: r.stats.timings_ms};
}
"""
# The tab's memory after the queries: Pyodide's wasm heap and sqlite-wasm's, in bytes, and
# the JavaScript heaps of the page and each worker (measureUserAgentSpecificMemory: it runs
# with the next garbage collection, so it may take ~20 s; wasm memories are not in it).
_MEMORY = """
async () => {
  const m = await window.readingroom.debug.memory();
  const out = {pyodide_heap_bytes: m.heapBytes, sqlite_heap_bytes: m.sqliteHeapBytes};
  if (self.crossOriginIsolated && performance.measureUserAgentSpecificMemory) {
    const js = await Promise.race([performance.measureUserAgentSpecificMemory(),
                                   new Promise((r) => setTimeout(() => r(null), 60000))]);
    if (js) {
      out.js_heap_bytes = {};
      for (const b of js.breakdown) {
        const name = b.attribution.map((a) => a.url.split('/').pop().split('?')[0] || a.scope).join(',') || 'other';
        out.js_heap_bytes[name] = (out.js_heap_bytes[name] ?? 0) + b.bytes;
      }
    }
  }
  return out;
}
"""


def matrices(index_path, queries: list[str]) -> dict:
    """What the page's in-memory legs hold for this index after these queries, computed
    natively on the same file (the matrices are built the same way on both sides)."""
    from .._compat import open_store
    from ..store.index import Index, Provenance
    from ..model_files import DIM, MODEL_ID
    from ..records import Filters
    from ..search.reads import lexical_candidates

    index = Index(open_store(index_path), Provenance(MODEL_ID, DIM))
    try:
        m = index.vector_matrix()
        lexicon = index.lexical_index()
        for q in queries:
            lexical_candidates(index.store, q, 100, Filters(), lexicon)
        vector_bytes = 0 if m is None else sum(a.nbytes for a in (m.ids, m.rows, m.codes, m.scales, m.bits)
                                                if a is not None)
        return {"vector_kind": m.kind if m is not None else "vec0", "vector_matrix_bytes": vector_bytes,
                "lexical_bytes": 0 if lexicon is None else lexicon.nbytes}
    finally:
        index.store.close()


def query_latency(page, queries: list[str], options: dict | None = None, warmup: int = 10) -> dict:
    warmup = min(warmup, len(queries) // 2)  # a fixture's few queries are still timed
    return _stages(page.evaluate(_RUN_QUERIES, [queries, options or {}, warmup]))


def typed_ahead_latency(page, queries: list[str], options: dict | None = None) -> dict:
    """Per stage, each question typed ahead before it is asked (``_RUN_TYPED_AHEAD``), and where
    each query's vector came from (``typed_ahead`` when the type-ahead did its work)."""
    runs = page.evaluate(_RUN_TYPED_AHEAD, [queries, options or {}])
    return {"stages": _stages(runs), "vector_sources": dict(Counter(str(r["source"]) for r in runs))}


def _stages(runs: list[dict]) -> dict:
    stages: dict[str, list[float]] = {}
    for r in runs:
        for name, ms in r["stages"].items():
            stages.setdefault("python_total" if name == "total" else name, []).append(ms)
        stages.setdefault("total", []).append(r["total"])
    return {name: summary(v) for name, v in stages.items()}


# The phases of a start, once the worker has imported numpy too (right after ready; at most 30 s).
_PHASES = """
async () => {
  const until = performance.now() + 30000;
  let s = await window.readingroom.status();
  while (s.timings?.retrievalWorker?.numpy === undefined && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    s = await window.readingroom.status();
  }
  const t = s.timings ?? {};
  return {...t, embedderLoadMs: s.embedder?.loadMs ?? null, crossOriginIsolated: s.crossOriginIsolated,
          embedThreads: s.embedThreads};
}
"""


def phase_lines(visit: str, phases: dict) -> list[str]:
    """One visit's start-up as lines to print: every phase in the order it happened (ms since
    navigation; the retrieval worker's on the page's clock), then the load average beside it."""
    marks = {**{k: v for k, v in phases.items() if k in ("library", "python", "model", "ready")},
             **{f"worker.{k}": v for k, v in (phases.get("retrievalWorker") or {}).items()}}
    order = sorted((v, k) for k, v in marks.items() if isinstance(v, (int, float)))
    return [f"{visit}: load average {phases.get('load_average')}, embedder load {phases.get('embedderLoadMs')} ms",
            *(f"  {v:>7.0f} ms  {k}" for v, k in order)]


def startup(browser, url: str, reps: int = 1) -> tuple[dict, dict]:
    """Cold first visit (fresh context: empty HTTP cache, OPFS and service worker), warm reload
    (same context, right after) and a second reload, ``reps`` times; returns (medians in ms,
    per-visit phases), and prints each visit's phases as it goes.

    The warm reload is the first one served by the service worker's cache; the browser compiles
    the wasm it serves afresh then and keeps the compiled code for the visits after it, so the
    second reload is what later visits look like. The target is checked on the first."""
    cold, warm, again, phases = [], [], [], {}
    for rep in range(reps):
        ctx, page, ms = bb.open_app(browser, url)
        cold.append(ms)
        phases[f"cold{rep + 1}"] = {**page.evaluate(_PHASES), "load_average": load_average()}
        print("\n".join(phase_lines(f"cold{rep + 1}", phases[f"cold{rep + 1}"])), flush=True)
        for name, samples in ((f"warm{rep + 1}", warm), (f"again{rep + 1}", again)):
            page.reload()
            samples.append(bb.ready_ms(page))
            phases[name] = {**page.evaluate(_PHASES), "load_average": load_average()}
            print("\n".join(phase_lines(name, phases[name])), flush=True)
        ctx.close()
    med = lambda v: round(sorted(v)[len(v) // 2], 1)  # noqa: E731
    # numpy comes in right after ready (readingroom._lazy_numpy): when a warm reload had it
    numpy_in = [w for k, p in phases.items() if k.startswith("warm")
                if (w := (p.get("retrievalWorker") or {}).get("numpy")) is not None]
    return ({"cold_first_visit": med(cold), "warm_reload": med(warm), "second_reload": med(again),
             "warm_numpy_in": med(numpy_in) if numpy_in else None,
             "cold_samples": [round(x) for x in cold], "warm_samples": [round(x) for x in warm],
             "second_samples": [round(x) for x in again]}, phases)


_SEARCH = "async () => (await window.readingroom.status()).search"


def _open(page, query: str, then: str, timeout_s: float = 3600) -> dict:
    """The first query (answered while the in-memory legs load in the background, or loading
    them itself past 200k chunks), then the wait until the warm-up has loaded them (it ends
    with the common terms' postings): the time to open; then the first query after it
    (``then``: words it may not have preloaded), to set beside the warm p50."""
    t0 = time.perf_counter()
    first = page.evaluate(_FIRST_QUERY, query)
    while True:
        search = page.evaluate(_SEARCH)
        done = search and search["state"] == "ready" and "warm_up" in search["load_ms"]
        if done or time.perf_counter() - t0 > timeout_s:
            break
        time.sleep(0.5)
    ready_s = round(time.perf_counter() - t0, 2)
    return {"first_query_ms": first, "search_ready_s": ready_s, "search": search,
            "first_query_after_warm_up_ms": page.evaluate(_FIRST_QUERY, then)}


def measure_size(browser, url: str, idx, queries: list[str]) -> dict:
    """One index size in a fresh profile on disk (see ``browser.normal_profile``): import it,
    open it, time the queries, then reload the page and open the stored library again, as a
    person's next visit would. The tab's memory is read after the queries and after reopening."""
    size = idx.stat().st_size
    with bb.normal_profile(browser, url) as (_ctx, page, _, profile):
        t0 = time.perf_counter()
        try:
            status = bb.import_index(page, idx)
        except Exception as e:  # the page's typed error (e.g. no room to store it): say it, go on
            return {"file_bytes": size, "error": str(e).splitlines()[0], "load_average": load_average()}
        imported = time.perf_counter() - t0
        opened = _open(page, queries[0], queries[1 % len(queries)])
        out = {"chunks": status["chunks"], "file_bytes": size, "import_s": round(imported, 2), **opened,
               "open_s": round(imported + opened["search_ready_s"], 2),
               "stages": query_latency(page, queries),
               "typed_ahead": typed_ahead_latency(page, queries[min(10, len(queries) // 2):]),
               "memory": {**page.evaluate(_MEMORY), "tab": bb.renderer_memory(profile),
                          **matrices(idx, queries)},
               "load_average": load_average()}
        page.reload()
        ready = bb.ready_ms(page)
        again = _open(page, queries[1 % len(queries)], queries[2 % len(queries)])
        out["reopen"] = {"ready_ms": round(ready, 1), **again,
                         "total_s": round(ready / 1000 + again["search_ready_s"], 2)}
        out["memory"]["tab_after_reopen"] = bb.renderer_memory(profile)
        return out


def run(ds: Dataset, sizes: list[int], n_queries: int = 120, rebuild: bool = True,
        startup_reps: int = 1, with_startup: bool = True, corpus: str = "repeated") -> dict:
    """``corpus``: "repeated" (SciFact copied to each size, corpus.py) or "natural" (generated
    passages with natural term statistics, natural.py; their postings are reported too)."""
    source, _ = build_index(ds)
    queries = list(ds.queries.values())[:n_queries]
    warmup = min(10, len(queries) // 2)
    out: dict = {"queries": len(queries) - warmup, "warmup": warmup, "corpus": corpus, "sizes": {}}
    with bb.session(rebuild) as (browser, url):
        if with_startup:
            out["startup_ms"], out["startup_phases"] = startup(browser, url, startup_reps)
        out["snapshot"] = bool(_manifest().get("pyodide_snapshot"))
        for n in sizes:
            if corpus == "natural":
                t0 = time.perf_counter()
                idx = natural_index(source, n, cache_dir() / f"{source.stem}-natural{n}.sqlite")
                built_s = round(time.perf_counter() - t0, 1)
                stats = term_stats(idx, queries, source)
                print(f"natural corpus of {n} chunks: {built_s} s (0: cached), {stats}", flush=True)
                out["sizes"][str(n)] = {"corpus_build_s": built_s, "terms": stats,
                                        **measure_size(browser, url, idx, queries)}
            else:
                idx = scaled_index(source, n, cache_dir() / f"{source.stem}-x{n}.sqlite")
                out["sizes"][str(n)] = measure_size(browser, url, idx, queries)
            size = out["sizes"][str(n)]
            if "stages" in size:
                plain, typed = size["stages"]["total"], size["typed_ahead"]["stages"]["total"]
                print(f"{n} chunks: after Enter p50 {plain['p50']:.1f} / p95 {plain['p95']:.1f} ms; typed ahead "
                      f"p50 {typed['p50']:.1f} / p95 {typed['p95']:.1f} ms {size['typed_ahead']['vector_sources']}",
                      flush=True)
    return out


def _manifest() -> dict:
    import json

    path = bb._build_module().EMPTY_DIST / "build-manifest.json"
    return json.loads(path.read_text()) if path.exists() else {}
