"""``bench answers --browser --chunks N``: ask() in the page over a large library.

The quick answer's time grows with the library only through retrieval; what it adds on top
(splitting, embedding and scoring the candidate sentences) does not. So the figure at 20,000
chunks is taken over SciFact repeated to that size, as ``bench latency`` builds it, asking
SciFact claims as questions.
"""

from __future__ import annotations

from .answers import SCIFACT_QUESTION, WARMUP, _ASK_JS
from .stats import load_average as load, summary


def ask_at_scale(browser, url: str, ds, chunks: int, n: int) -> dict:
    """ask() p50/p95 in the page over a ``chunks``-chunk index (SciFact repeated, as bench latency
    builds it), ``n`` SciFact claims asked as questions after a few warm-up ones."""
    from . import browser as bb
    from .corpus import scaled_index
    from .quality import build_index, cache_dir

    source, _ = build_index(ds)
    idx = scaled_index(source, chunks, cache_dir() / f"{source.stem}-x{chunks}.sqlite")
    ctx, page, _ = bb.open_app(browser, url)
    try:
        status = bb.import_index(page, idx)
        bb.wait_until(page, "async () => (await window.readingroom.status()).search?.state === 'ready'", 600, 0.5)
        claims = [SCIFACT_QUESTION.format(claim=c) for c in list(ds.queries.values())[:n + WARMUP]]
        for c in claims[:WARMUP]:
            page.evaluate(_ASK_JS, [c, []])
        l0 = load()
        ms, embed = [], []
        for c in claims[WARMUP:]:
            answer, t = page.evaluate(_ASK_JS, [c, []])
            ms.append(t)
            embed.append(((answer.get("stats") or {}).get("answer") or {}).get("timings_ms", {}).get("embed", 0))
        return {"chunks": (status or {}).get("chunks"), "latency_ms": summary(ms),
                "sentence_embedding_ms": summary(embed), "load": [l0, load()]}
    finally:
        ctx.close()
