"""PGlite (Postgres compiled to wasm) with pgvector, the stack the retrieval plan this project grew
from chose for the browser, beside Reading Room and Orama in ``bench peer``: the same page, the
same chunks and MiniLM vectors (read from the index Reading Room imports), the same queries,
each embedded by the app's own warmed embedding worker (``readingroom.embed``), the same depth
(300 chunks rolled up to at most 100 documents) and the same ``metrics``.

What runs in the page (npm ``@electric-sql/pglite`` and ``@electric-sql/pglite-pgvector``,
pinned in package.json, published from node_modules into the bench's site, never shipped):

- schema: ``chunks(id int primary key, doc text, text text, tsv tsvector, embedding vector(384))``,
  filled in batches of ``BATCH`` rows through ``unnest`` (``tsv`` by ``to_tsvector('english')``),
  then ``hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)`` and
  ``gin (tsv)``; each step timed;
- rows: HNSW at ``hnsw.ef_search`` 40 and 96, an exact scan (the same ``ORDER BY`` with
  index scans off), and a hybrid: HNSW (ef_search 40) and ``ts_rank_cd`` over the query's
  words OR-ed (``plainto_tsquery`` ANDs them, and a question's words are rarely all in one
  abstract) fused with RRF (k = 60), as Reading Room fuses its legs;
- end to end is the query's embedding plus the search; ``search_ms`` the statement alone.

PGlite runs after the Reading Room and Orama rounds in the same page (its queries are not
interleaved with theirs), so the page has Reading Room's index loaded meanwhile; the tab's
memory is read before PGlite starts and after its index is built.
"""

from __future__ import annotations

import shutil

from . import browser as bb
from . import metrics
from .stats import summary

PGLITE_VERSION = "0.5.14"
PGVECTOR_VERSION = "0.0.15"
BATCH = 1000
RRF_K = 60
EF_SEARCH = (40, 96)

_PGLITE = """
async ([pgliteUrl, vectorUrl, chunksUrl, vectorsUrl, queries, depth, warmup, batch, efs, rrfK]) => {
  const rr = window.readingroom;
  const t0 = performance.now();
  const { PGlite } = await import(pgliteUrl);
  const { vector } = await import(vectorUrl);
  const db = await PGlite.create({ extensions: { vector } });
  const coldMs = performance.now() - t0;
  const meta = await (await fetch(chunksUrl)).json();
  const vectors = new Float32Array(await (await fetch(vectorsUrl)).arrayBuffer());
  const dim = meta.dim;
  const asVector = (v) => '[' + Array.from(v).join(',') + ']';
  const steps = {};
  let s0 = performance.now();
  await db.exec(`CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE chunks (id int PRIMARY KEY, doc text NOT NULL, text text NOT NULL,
                         tsv tsvector NOT NULL, embedding vector(${dim}) NOT NULL);`);
  for (let at = 0; at < meta.texts.length; at += batch) {
    const ids = [], docs = [], texts = [], vecs = [];
    for (let i = at; i < Math.min(meta.texts.length, at + batch); i++) {
      ids.push(i); docs.push(meta.docs[i]); texts.push(meta.texts[i]);
      vecs.push(asVector(vectors.subarray(i * dim, (i + 1) * dim)));
    }
    await db.query(`INSERT INTO chunks (id, doc, text, tsv, embedding)
      SELECT i, d, t, to_tsvector('english', t), v::vector
      FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS u(i, d, t, v)`, [ids, docs, texts, vecs]);
  }
  steps.insert_ms = performance.now() - s0;
  s0 = performance.now();
  await db.exec('CREATE INDEX chunks_hnsw ON chunks USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)');
  steps.hnsw_build_ms = performance.now() - s0;
  s0 = performance.now();
  await db.exec('CREATE INDEX chunks_tsv ON chunks USING gin (tsv); ANALYZE chunks;');
  steps.gin_build_ms = performance.now() - s0;
  s0 = performance.now();
  const second = await PGlite.create({ extensions: { vector } });
  steps.second_start_ms = performance.now() - s0;
  await second.close();

  const knn = `SELECT doc FROM chunks ORDER BY embedding <=> $1::vector LIMIT ${depth}`;
  // The query's own lexemes OR-ed, as a tsquery (cast, not parsed again: a stem is not stemmed twice).
  const words = `(SELECT coalesce(string_agg(quote_literal(lexeme), ' | '), '')::tsquery
                  FROM unnest(to_tsvector('english', $2)))`;
  const hybrid = `WITH v AS (
      SELECT id, row_number() OVER (ORDER BY d, id) AS r
      FROM (SELECT id, embedding <=> $1::vector AS d FROM chunks ORDER BY d LIMIT ${depth}) k),
    q AS (SELECT ${words} AS q),
    l AS (
      SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS r
      FROM (SELECT c.id, ts_rank_cd(c.tsv, q.q) AS rank FROM chunks c, q WHERE c.tsv @@ q.q
            ORDER BY rank DESC, c.id LIMIT ${depth}) m),
    f AS (SELECT id, sum(1.0 / (${rrfK} + r)) AS s FROM (SELECT * FROM v UNION ALL SELECT * FROM l) b GROUP BY id)
    SELECT c.doc FROM f JOIN chunks c ON c.id = f.id ORDER BY f.s DESC, f.id LIMIT ${depth}`;
  const configs = {};
  for (const ef of efs) configs[`hnsw_ef${ef}`] = { sql: knn, set: `SET hnsw.ef_search = ${ef}; SET enable_indexscan = on;` };
  configs.exact = { sql: knn, set: 'SET enable_indexscan = off;' };
  configs.hybrid = { sql: hybrid, set: `SET hnsw.ef_search = ${efs[0]}; SET enable_indexscan = on;`, text: true };
  const rollUp = (rows) => {
    const names = [];
    for (const { doc } of rows) if (!names.includes(doc)) names.push(doc);
    return names.slice(0, 100);
  };
  const out = { coldMs, steps, runs: {}, timed: [] };
  for (const name of Object.keys(configs)) out.runs[name] = {};
  for (const [i, [qid, text]] of queries.entries()) {
    const e0 = performance.now();
    const [vec] = await rr.embed([text]);
    const t = { embed: performance.now() - e0 };
    const v = asVector(vec);
    for (const [name, c] of Object.entries(configs)) {
      await db.exec(c.set);
      const q0 = performance.now();
      const res = await db.query(c.sql, c.text ? [v, text] : [v]);
      t[name] = performance.now() - q0;
      out.runs[name][qid] = rollUp(res.rows);
    }
    if (i >= warmup) out.timed.push(t);
  }
  await db.close();
  return out;
}
"""


def publish() -> tuple[str, str]:
    """PGlite and its pgvector extension, copied into the bench's site from node_modules."""
    modules = bb.REPO / "node_modules" / "@electric-sql"
    urls = []
    for package in ("pglite", "pglite-pgvector"):
        src = modules / package / "dist"
        if not src.exists():
            raise SystemExit(f"@electric-sql/{package} is not installed: run `npm ci --ignore-scripts` (build.py does)")
        dest = bb._build_module().EMPTY_DIST / "bench" / package
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("*.map", "*.cjs", "*.d.ts", "*.d.cts"))
        urls.append(f"./bench/{package}/index.js")
    return urls[0], urls[1]


def run(page, chunks_url: str, vectors_url: str, queries: list, depth: int, warmup: int, qrels: dict,
        names=lambda runs: runs) -> dict:
    """The PGlite rows, measured in ``page`` (Reading Room's bench page); ``with_ratios`` adds
    the comparison with Reading Room's row. HNSW gives at most ``ef_search`` rows per query
    (pgvector without iterative scans, as the plan configured it), which caps those rows'
    Recall@100; the exact row has no such cap."""
    import os

    pglite_url, vector_url = publish()
    before = bb.renderer_rss_mb()
    with bb.PeakMemory() as peak:
        r = page.evaluate(_PGLITE, [pglite_url, vector_url, chunks_url, vectors_url, queries, depth, warmup,
                                    BATCH, list(EF_SEARCH), RRF_K])
    timed = r["timed"]
    out: dict = {"pglite_version": PGLITE_VERSION, "pgvector_package_version": PGVECTOR_VERSION,
                 "cold_start_ms": round(r["coldMs"], 1),
                 **{k: round(v, 1) for k, v in r["steps"].items()},
                 "renderer_rss_mb": {"before": before, "peak": peak.peak_mb, "samples": peak.samples},
                 "embed_ms": summary(t["embed"] for t in timed),
                 "load_average": [round(x, 2) for x in os.getloadavg()]}
    for name in r["runs"]:
        search = summary(t[name] for t in timed)
        total = summary(t[name] + t["embed"] for t in timed)
        out[name] = {"search_ms": search, "latency_ms": total,
                     "quality": metrics.summarise(names(r["runs"][name]), qrels)}
    return out


ROWS = tuple(f"hnsw_ef{ef}" for ef in EF_SEARCH) + ("exact", "hybrid")


def with_ratios(rows: dict, ours: dict) -> dict:
    """Each PGlite row's ratios to Reading Room's (``latency_ms``, ``search_ms``, ``hybrid``)."""
    for name in ROWS:
        row = rows[name]
        row["ratio"] = {
            "p50_pglite_over_ours": _ratio(row["latency_ms"]["p50"], ours["latency_ms"]["p50"]),
            "p95_pglite_over_ours": _ratio(row["latency_ms"]["p95"], ours["latency_ms"]["p95"]),
            "search_p50_pglite_over_ours": _ratio(row["search_ms"]["p50"], ours["search_ms"]["p50"]),
            "ndcg_ours_minus_pglite": round(ours["hybrid"]["ndcg@10"] - row["quality"]["ndcg@10"], 4)}
    return rows


def table(rows: dict, ours: dict) -> str:
    """The report's PGlite section (markdown), Reading Room's hybrid row first."""
    from .report import table as md_table

    lines = [f"\n### PGlite {rows['pglite_version']} + pgvector (package {rows['pgvector_package_version']})\n",
             f"Cold start {rows['cold_start_ms']} ms (module, wasm, initdb; a second instance "
             f"{rows.get('second_start_ms')} ms); bulk insert {rows['insert_ms']} ms, HNSW build "
             f"{rows['hnsw_build_ms']} ms, GIN build {rows['gin_build_ms']} ms; tab memory "
             f"{rows['renderer_rss_mb']['before']} MB before, peak {rows['renderer_rss_mb']['peak']} MB; "
             f"load {rows['load_average']}. HNSW returns at most ef_search rows, which caps its R@100.\n"]
    body = [["ours (hybrid)", ours["hybrid"]["ndcg@10"], ours["hybrid"]["recall@100"], ours["latency_ms"]["p50"],
             ours["latency_ms"]["p95"], ours["search_ms"]["p50"], "—"]]
    for name in ROWS:
        x = rows[name]
        body.append([f"pglite {name}", x["quality"]["ndcg@10"], x["quality"]["recall@100"], x["latency_ms"]["p50"],
                     x["latency_ms"]["p95"], x["search_ms"]["p50"], x["ratio"]["p50_pglite_over_ours"]])
    lines.append(md_table(["system", "nDCG@10", "R@100", "p50 ms (with embed)", "p95 ms (with embed)",
                           "search p50 ms", "p50 × ours"], body))
    return "\n".join(lines) + "\n"


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None
