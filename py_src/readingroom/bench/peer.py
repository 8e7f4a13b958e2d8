"""Orama, the in-browser search library people reach for, on the same chunks, vectors and
queries, in the same Chromium session, side by side with Reading Room.

Fairness: both get the same query embedding from the same warmed embedding worker (timed
once, outside either search), the same chunk texts and vectors, the same queries in the
same order, and the same depth (300 chunks, rolled up to 100 documents). Each system's
search is timed with performance.now() inside the page.
"""

from __future__ import annotations

import json
import shutil
import time

import numpy as np

from . import browser as bb
from . import metrics
from .beir import Dataset
from .corpus import read_chunks
from .quality import EVAL_OPTIONS, build_index, cache_dir
from .stats import summary

ORAMA_VERSION = "3.1.18"

_PEER = """
async ([moduleUrl, chunksUrl, vectorsUrl, queries, ours, depth]) => {
  const orama = await import(moduleUrl);
  const meta = await (await fetch(chunksUrl)).json();
  const vectors = new Float32Array(await (await fetch(vectorsUrl)).arrayBuffer());
  const dim = meta.dim;
  const t0 = performance.now();
  const db = orama.create({ schema: { doc: 'string', text: 'string', embedding: `vector[${dim}]` } });
  const docs = meta.docs.map((doc, i) => ({
    id: String(i), doc, text: meta.texts[i], embedding: Array.from(vectors.subarray(i * dim, (i + 1) * dim)),
  }));
  await orama.insertMultiple(db, docs, 1000);
  const loadMs = performance.now() - t0;
  const rr = window.readingroom;
  const out = { loadMs, orama: {}, ours: {}, oramaMs: [], oursMs: [], embedMs: [] };
  for (const [i, [qid, text]] of queries.entries()) {
    const e0 = performance.now();
    const [vec] = await rr.embed([text]);
    const embedMs = performance.now() - e0;
    const s0 = performance.now();
    const res = await orama.search(db, {
      mode: 'hybrid', term: text, vector: { value: vec, property: 'embedding' },
      similarity: 0.0, limit: depth, includeVectors: false,
    });
    const oramaMs = performance.now() - s0;
    const names = [];
    for (const h of res.hits) if (!names.includes(h.document.doc)) names.push(h.document.doc);
    out.orama[qid] = names.slice(0, 100);
    const o0 = performance.now();
    const r = await rr.query(text, ours);
    const oursMs = performance.now() - o0;
    out.ours[qid] = r.documents.map((d) => d.name);
    if (i >= 10) { out.oramaMs.push(oramaMs + embedMs); out.oursMs.push(oursMs); out.embedMs.push(embedMs); }
  }
  return out;
}
"""


def publish_orama() -> str:
    src = bb.REPO / "node_modules" / "@orama" / "orama" / "dist" / "browser"
    if not src.exists():
        raise SystemExit("@orama/orama is not installed: run `npm ci --ignore-scripts` (build.py does)")
    dest = bb._build_module().DIST / "bench" / "orama"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest)
    return "./bench/orama/index.js"


def run(ds: Dataset, rebuild: bool = True, n_queries: int | None = None) -> dict:
    source, _ = build_index(ds)
    chunks = read_chunks(source)
    meta = {"dim": 384, "docs": [c["doc"] for c in chunks], "texts": [c["text"] for c in chunks]}
    chunks_json = cache_dir() / f"{source.stem}-peer-chunks.json"
    vectors_bin = cache_dir() / f"{source.stem}-peer-vectors.f32"
    if not chunks_json.exists():
        chunks_json.write_text(json.dumps(meta))
        np.concatenate([np.frombuffer(c["vector"], np.float32) for c in chunks]).tofile(vectors_bin)
    qids = [q for q in ds.qrels if q in ds.queries][: n_queries or None]
    queries = [[q, ds.queries[q]] for q in qids]
    ours_opts = {**EVAL_OPTIONS, "mode": "hybrid"}
    with bb.session(rebuild) as (browser, url):
        module = publish_orama()
        ctx, page, _ = bb.open_app(browser, url)
        bb.import_index(page, source)
        t0 = time.perf_counter()
        r = page.evaluate(_PEER, [module, bb.publish(chunks_json, chunks_json.name),
                                  bb.publish(vectors_bin, vectors_bin.name), queries, ours_opts,
                                  EVAL_OPTIONS["candidates"]])
        seconds = time.perf_counter() - t0
        ctx.close()
    ours_q = metrics.summarise(r["ours"], ds.qrels)
    orama_q = metrics.summarise(r["orama"], ds.qrels)
    ours_ms, orama_ms = summary(r["oursMs"]), summary(r["oramaMs"])
    return {
        "orama_version": ORAMA_VERSION,
        "chunks": len(chunks),
        "queries": len(queries),
        "orama_load_ms": round(r["loadMs"], 1),
        "ours": {"hybrid": ours_q, "latency_ms": ours_ms},
        "orama": {"hybrid": orama_q, "latency_ms": orama_ms, "embed_ms": summary(r["embedMs"])},
        "ratio": {
            "p50_orama_over_ours": round(orama_ms["p50"] / ours_ms["p50"], 2),
            "ndcg_ours_minus_orama": round(ours_q["ndcg@10"] - orama_q["ndcg@10"], 4),
        },
        "seconds": round(seconds, 1),
    }
