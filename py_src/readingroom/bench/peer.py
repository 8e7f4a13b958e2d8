"""Orama, the in-browser search library people reach for, on the same chunks, vectors and
queries, in the same Chromium session, side by side with Reading Room.

Fairness:
- the same chunk texts and vectors (read from the index Reading Room imports), the same
  queries in the same order, and the same depth: 300 chunks per query, rolled up to at most
  100 documents, scored by the same ``metrics`` code;
- each query is embedded by the same warmed embedding worker for both: Reading Room embeds it
  inside ``query()``; for Orama the page calls ``readingroom.embed()`` (same worker, same
  model), so neither gets a cached vector the other does not;
- who runs first alternates per query, and the first ``warmup`` queries are not timed for
  either; all timings are performance.now() in the page;
- Orama runs its documented hybrid mode (``mode: 'hybrid'``, default weights, full-text over
  the chunk text only, vector similarity threshold 0 so it is not cut off).

Latency is reported end to end (embedding included, as a user sees it: the headline) and as
``search_ms``: for Orama the search() call alone; for Reading Room the total minus the time
Python waited for the query vector. Reading Room posts the embedding request first and runs
its lexical leg while the vector is computed, so its ``embed_ms`` is only the wait left over
and its ``search_ms`` includes work that overlapped the embedding.
"""

from __future__ import annotations

import json
import shutil
import time

import numpy as np

from . import browser as bb
from . import metrics, peer_pglite
from .beir import Dataset
from .corpus import read_chunks, scaled_index
from .quality import EVAL_OPTIONS, build_index, cache_dir
from .stats import summary
from ..search.fts import STOPWORDS
from ..model_files import DIM

ORAMA_VERSION = "3.1.18"

_PEER = """
async ([moduleUrl, chunksUrl, vectorsUrl, queries, ours, depth, warmup, legs, variants]) => {
  const orama = await import(moduleUrl);
  const meta = await (await fetch(chunksUrl)).json();
  const vectors = new Float32Array(await (await fetch(vectorsUrl)).arrayBuffer());
  const dim = meta.dim;
  const dbs = {};
  const loadMs = {};
  for (const [name, config] of Object.entries(variants)) {
    const t0 = performance.now();
    // Only the text is searchable (the document name is kept outside Orama, by chunk id).
    const db = orama.create({ schema: { text: 'string', embedding: `vector[${dim}]` }, ...config });
    const docs = meta.texts.map((text, i) => ({
      id: String(i), text, embedding: Array.from(vectors.subarray(i * dim, (i + 1) * dim)),
    }));
    await orama.insertMultiple(db, docs, 1000);
    loadMs[name] = performance.now() - t0;
    dbs[name] = db;
  }
  const rr = window.readingroom;
  const rollUp = (hits) => {
    const names = [];
    for (const h of hits) {
      const name = meta.docs[Number(h.id)];
      if (!names.includes(name)) names.push(name);
    }
    return names.slice(0, 100);
  };
  const oramaSearch = (db, mode, text, vec) => orama.search(db, {
    mode, term: text, properties: ['text'], vector: { value: vec, property: 'embedding' },
    similarity: 0.0, limit: depth, includeVectors: false,
  });
  const out = { loadMs, runs: { ours: {} }, legs: { ours: {} }, timed: [] };
  for (const name of Object.keys(dbs)) { out.runs[name] = {}; out.legs[name] = {}; }
  for (const [i, [qid, text]] of queries.entries()) {
    const t = {};
    const runOrama = async () => {
      const e0 = performance.now();
      const [vec] = await rr.embed([text]);
      t.orama_embed = performance.now() - e0;
      for (const [name, db] of Object.entries(dbs)) {
        const s0 = performance.now();
        const res = await oramaSearch(db, 'hybrid', text, vec);
        t[name] = performance.now() - s0;
        out.runs[name][qid] = rollUp(res.hits);
      }
      return vec;
    };
    const runOurs = async () => {
      const o0 = performance.now();
      const r = await rr.query(text, ours);
      t.ours = performance.now() - o0;
      t.ours_embed = r.stats.timings_ms.embed ?? 0;
      t.reason = r.reason;
      out.runs.ours[qid] = r.documents.map((d) => d.name);
    };
    // Alternate who goes first, so neither always runs right after the other's work.
    let vec;
    if (i % 2 === 0) { vec = await runOrama(); await runOurs(); } else { await runOurs(); vec = await runOrama(); }
    if (i >= warmup) out.timed.push(t);
    if (!legs) continue;
    // Each leg alone (untimed): a check that both see the same vectors, and where quality comes from.
    for (const [name, db] of Object.entries(dbs)) {
      for (const mode of ['fulltext', 'vector']) {
        (out.legs[name][mode] ??= {})[qid] = rollUp((await oramaSearch(db, mode, text, vec)).hits);
      }
    }
    for (const mode of ['lexical', 'vector']) {
      (out.legs.ours[mode] ??= {})[qid] = (await rr.query(text, { ...ours, mode })).documents.map((d) => d.name);
    }
  }
  return out;
}
"""

# Orama as shipped, and Orama given the text processing Reading Room's FTS5 side has (English
# stemming, the same stop words), so a quality gap is not just a tokenizer default.
ORAMA_VARIANTS = {
    "orama": {},
    "orama_stemmed": {"components": {"tokenizer": {"language": "english", "stemming": True,
                                                   "stopWords": sorted(STOPWORDS)}}},
}


def publish_orama() -> str:
    src = bb.REPO / "node_modules" / "@orama" / "orama" / "dist" / "browser"
    if not src.exists():
        raise SystemExit("@orama/orama is not installed: run `npm ci --ignore-scripts` (build.py does)")
    dest = bb._build_module().EMPTY_DIST / "bench" / "orama"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    return "./bench/orama/index.js"


def _base_names(runs: dict) -> dict:
    """Rankings of a scaled corpus (copies named ``name#c``, corpus.py) as the source
    documents they copy, each once, in order: copies of a relevant document count as it."""
    out = {}
    for qid, names in runs.items():
        seen: list[str] = []
        for name in names:
            base = name.split("#", 1)[0]
            if base not in seen:
                seen.append(base)
        out[qid] = seen
    return out


def run(ds: Dataset, rebuild: bool = True, n_queries: int | None = None, warmup: int = 10,
        legs: bool = True, pglite: bool = True, passages: int | None = None) -> dict:
    """``passages``: the corpus repeated to that many chunks (corpus.py ``scaled_index``:
    copies with jittered vectors) instead of SciFact as it is; each system's ranking is then
    scored by the documents its hits copy."""
    source, _ = build_index(ds)
    if passages:
        source = scaled_index(source, passages, cache_dir() / f"{source.stem}-x{passages}.sqlite")
    chunks = read_chunks(source)
    meta = {"dim": DIM, "docs": [c["doc"] for c in chunks], "texts": [c["text"] for c in chunks]}
    chunks_json = cache_dir() / f"{source.stem}-peer-chunks.json"
    vectors_bin = cache_dir() / f"{source.stem}-peer-vectors.f32"
    if not chunks_json.exists() or not vectors_bin.exists():
        np.concatenate([np.frombuffer(c["vector"], np.float32) for c in chunks]).tofile(vectors_bin)
        chunks_json.write_text(json.dumps(meta))
    qids = [q for q in ds.qrels if q in ds.queries][: n_queries or None]
    queries = [[q, ds.queries[q]] for q in qids]
    warmup = min(warmup, len(queries) // 2)
    ours_opts = {**EVAL_OPTIONS, "mode": "hybrid"}
    depth = EVAL_OPTIONS["candidates"]
    with bb.session(rebuild) as (browser, url):
        module = publish_orama()
        ctx, page, _ = bb.open_app(browser, url)
        t0 = time.perf_counter()
        status = bb.import_index(page, source)
        import_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        chunks_url, vectors_url = bb.publish(chunks_json, chunks_json.name), bb.publish(vectors_bin, vectors_bin.name)
        r = page.evaluate(_PEER, [module, chunks_url, vectors_url, queries, ours_opts,
                                  depth, warmup, legs, ORAMA_VARIANTS])
        seconds = time.perf_counter() - t0
        # PGlite + pgvector, the plan's stack, in the same page on the same data (peer_pglite.py).
        pg = (peer_pglite.run(page, chunks_url, vectors_url, queries, depth, warmup, ds.qrels,
                              _base_names if passages else (lambda runs: runs)) if pglite else None)
        ctx.close()
    if passages:
        r["runs"] = {name: _base_names(v) for name, v in r["runs"].items()}
        r["legs"] = {name: {m: _base_names(v) for m, v in legs_.items()} for name, legs_ in r["legs"].items()}
    timed = r["timed"]
    ours_total = summary(t["ours"] for t in timed)
    ours_search = summary(t["ours"] - t["ours_embed"] for t in timed)
    out: dict = {
        "orama_version": ORAMA_VERSION,
        "chunks": len(chunks),
        "scaled": bool(passages),
        "imported_chunks": status.get("chunks"),
        "queries": len(queries),
        "timed_queries": len(timed),
        "warmup": warmup,
        "depth_chunks": depth,
        "ours_import_s": round(import_s, 2),
        "ours": {"hybrid": metrics.summarise(r["runs"]["ours"], ds.qrels), "latency_ms": ours_total,
                 "search_ms": ours_search, "embed_ms": summary(t["ours_embed"] for t in timed),
                 "reasons": sorted({t["reason"] for t in timed if t["reason"]})},
        "seconds": round(seconds, 1),
    }
    for name, config in ORAMA_VARIANTS.items():
        search = summary(t[name] for t in timed)
        total = summary(t[name] + t["orama_embed"] for t in timed)
        q = metrics.summarise(r["runs"][name], ds.qrels)
        out[name] = {"config": config or "defaults", "hybrid": q, "latency_ms": total, "search_ms": search,
                     "embed_ms": summary(t["orama_embed"] for t in timed), "load_ms": round(r["loadMs"][name], 1),
                     "ratio": {
                         "p50_orama_over_ours": _ratio(total["p50"], ours_total["p50"]),
                         "p95_orama_over_ours": _ratio(total["p95"], ours_total["p95"]),
                         "search_p50_orama_over_ours": _ratio(search["p50"], ours_search["p50"]),
                         "search_p95_orama_over_ours": _ratio(search["p95"], ours_search["p95"]),
                         "ndcg_ours_minus_orama": round(out["ours"]["hybrid"]["ndcg@10"] - q["ndcg@10"], 4)}}
    out["ratio"] = out["orama"]["ratio"]  # Orama as shipped: the headline
    if pg is not None:
        out["pglite"] = peer_pglite.with_ratios(pg, out["ours"])
    if legs:
        for name in ("ours", *ORAMA_VARIANTS):
            out[name]["legs"] = {m: metrics.summarise(v, ds.qrels) for m, v in r["legs"][name].items()}
    return out


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None
