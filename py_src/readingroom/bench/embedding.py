"""Embedding set-ups side by side in one page: threads in one worker vs several workers.

The page is cross-origin isolated (build.py serve), so onnxruntime-web may use wasm threads.
Each set-up is a set of the app's own embedding workers (web/workers/embed-worker.js, started
with a name that fixes its thread count and batch size), loaded and warmed once; then the same
chunk texts are embedded by every set-up in turn, the order rotating each round, so on a shared
machine the set-ups see the same load (A/B interleaved). Several workers split the texts into
contiguous shares and embed them at once.
"""

from __future__ import annotations

import os

from . import browser as bb
from .beir import Dataset
from .ingest import chunk_groups
from .stats import summary

# name -> (workers, threads per worker, padded tokens per model call)
SETUPS = {
    "1 worker x 2 threads": (1, 2, 256),
    "1 worker x 2 threads, 1024-token batches": (1, 2, 1024),
    "2 workers x 1 thread": (2, 1, 256),
    "1 worker x 1 thread": (1, 1, 256),
}

_SETUP = """
async ([setups]) => {
  const { rpcClient } = await import('./rpc.js');
  const out = {};
  window.__setups = {};
  for (const [name, [workers, threads, batchTokens]] of Object.entries(setups)) {
    const calls = [];
    for (let w = 0; w < workers; w++) {
      const worker = new Worker('embed-worker.js', { type: 'module', name: `bench workers=1 threads=${threads} batchTokens=${batchTokens}` });
      calls.push(rpcClient(worker));
    }
    const infos = await Promise.all(calls.map((c) => c('start')));
    window.__setups[name] = calls;
    out[name] = infos.map((i) => ({ threads: i.threads, batchTokens: i.batchTokens, loadMs: i.loadMs }));
  }
  return { isolated: self.crossOriginIsolated, cores: navigator.hardwareConcurrency, workers: out };
}
"""

_ROUND = """
async ([name, texts]) => {
  const calls = window.__setups[name];
  const share = Math.ceil(texts.length / calls.length);
  const t0 = performance.now();
  const parts = await Promise.all(calls.map((c, i) => c('embed', { texts: texts.slice(i * share, (i + 1) * share) })));
  const ms = performance.now() - t0;
  return { ms, n: parts.reduce((a, p) => a + p.length / 384, 0) };
}
"""

_TEARDOWN = """
() => { for (const calls of Object.values(window.__setups ?? {})) for (const c of calls) c.failAll(new Error('done')); }
"""


def run(ds: Dataset, n_texts: int = 96, rounds: int = 5, rebuild: bool = True) -> dict:
    groups = chunk_groups(ds.documents()[: n_texts])
    texts = [t for g in groups for t in g][:n_texts]
    load = [os.getloadavg()[0]]
    with bb.session(rebuild) as (browser, url):
        ctx, page, _ = bb.open_app(browser, url)
        setup = page.evaluate(_SETUP, [SETUPS])
        if not setup["isolated"]:
            raise RuntimeError("the bench page is not cross-origin isolated: threads cannot be compared")
        samples: dict[str, list[float]] = {name: [] for name in SETUPS}
        names = list(SETUPS)
        for r in range(rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                got = page.evaluate(_ROUND, [name, texts])
                samples[name].append(got["n"] / (got["ms"] / 1000))
            load.append(os.getloadavg()[0])
        page.evaluate(_TEARDOWN)
        ctx.close()
    return {"texts": len(texts), "rounds": rounds, "cores": setup["cores"], "workers": setup["workers"],
            "chunks_per_s": {name: summary(v) for name, v in samples.items()},
            "samples": {name: [round(x, 2) for x in v] for name, v in samples.items()},
            "load_average_1min": [round(x, 2) for x in load]}
