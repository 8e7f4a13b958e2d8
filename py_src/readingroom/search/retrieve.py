"""The retrieval orchestrator: embed, search both legs, fuse, rerank, merge, pack.

All I/O goes through the ``Index`` (storage seam) and the ``Embedder``; every step in
between is a pure function from the modules named after it. Failures degrade rather
than raise: no vectors means a lexical answer with a ``reason``, no database means an
empty answer with reason ``error``. Exceptions are kept for programming errors.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable


from . import fuse, merge, pack, rerank, reads as search, syntax
from .. import reasons
from ..ingest import pending as meaning_cover
from ..errors import Cancelled, DatabaseUnavailable, EmbedderError, StorageError
from .fts import terms
from .names import Named
from ..store.index import Index
from .options import MAX_QUERY_CHARS, Options
from ..records import Hit, Span
from ..seams import Embedder

SNIPPET_CHARS = 360
NAMES_LATER = "documents' names still being read: the question was searched without them"
EVIDENCE_MIN = 50


@dataclass(frozen=True)
class DocumentCandidate:
    """A document in the ranking of documents, with its best chunk's snippet."""

    doc_id: int
    name: str
    doc_type: str
    score: float
    chunk_id: int
    snippet: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class RetrievalResult:
    """One retrieval: merged spans, documents, evidence with why each was dropped, the packed context and stats."""

    query: str
    results: list[Span] = field(default_factory=list)
    documents: list[DocumentCandidate] = field(default_factory=list)
    evidence: list[Hit] = field(default_factory=list)
    packed: pack.Packed = field(default_factory=pack.Packed)
    reason: str | None = None
    stats: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "results": [s.to_dict() for s in self.results],
            "documents": [d.to_dict() for d in self.documents],
            "evidence": [h.to_dict() for h in self.evidence],
            "packed": self.packed.to_dict(),
            # [n] in the context is citations[n-1]; `result` is its index in `results` (a span
            # the budget skipped moves later citations up, so n-1 is not always that index).
            "citations": [{"n": n, "result": self._result_index(s), "chunk_ids": list(s.chunk_ids),
                           "trimmed": (n - 1) in self.packed.trimmed}
                          for n, s in enumerate(self.packed.spans, start=1)],
            "context": pack.context_text(self.packed),
            "reason": self.reason,
            "message": reasons.message(self.reason, self.stats.get("error")),
            "stats": self.stats,
        }


    def _result_index(self, span: Span) -> int | None:
        for i, r in enumerate(self.results):
            if r.chunk_ids == span.chunk_ids:
                return i
        return None


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


class _Clock:
    def __init__(self) -> None:
        self.t0 = self.last = time.perf_counter()
        self.ms: dict[str, float] = {}

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.ms[stage] = round(self.ms.get(stage, 0.0) + (now - self.last) * 1000, 3)
        self.last = now

    def total(self) -> dict[str, float]:
        return {**self.ms, "total": round((time.perf_counter() - self.t0) * 1000, 3)}


def _per_document(items: list[tuple[int, float]], bases: dict[int, Hit]) -> list[tuple[int, float]]:
    """A leg's ranking of documents: each at its best chunk's place and value."""
    seen: dict[int, float] = {}
    for cid, value in items:
        h = bases.get(cid)
        if h is not None and h.doc_id not in seen:
            seen[h.doc_id] = value
    return list(seen.items())


def documents_of(vec: list[tuple[int, float]], lex: list[tuple[int, float]], bases: dict[int, Hit],
                 ranked: list[Hit], options: Options, unjudged: set[int] = frozenset(),
                 named: list[tuple[int, float]] = ()) -> list[DocumentCandidate]:
    """Each document once, best first. The legs are fused at the document level: a document
    whose best lexical chunk and best vector chunk differ (a long abstract split in two)
    still gets credit from both, as it would if it had not been chunked. ``unjudged``: the
    documents with no vector yet at all (their words count for both legs)."""
    best: dict[int, Hit] = {}
    for h in ranked:  # best chunk of each document, for the snippet and the boosts
        best.setdefault(h.doc_id, h)
    legs = (_per_document(vec, bases), _per_document(lex, bases))
    by_name = {"named": _per_document(named, bases), "name_weight": options.name_weight}
    if options.fusion == "rrf":
        docs = fuse.rrf(*legs, best, k=options.rrf_k, weights=options.weights, unjudged=unjudged, **by_name)
    else:
        docs = fuse.linear(*legs, best, weights=options.weights, how=options.normalisation, unjudged=unjudged, **by_name)
    docs = rerank.apply_boosts(docs, options.boosts)
    return [DocumentCandidate(h.doc_id, h.doc_name, h.doc_type, h.score, h.chunk_id, snippet(h.text))
            for h in docs[: options.documents]]


async def retrieve(index: Index, embedder: Embedder | None, query: str,
                   options: Options = Options(),
                   cancelled: Callable[[], bool] = lambda: False) -> RetrievalResult:
    clock = _Clock()
    text = " ".join(query.split())
    if not text:
        return RetrievalResult(query=query, reason=reasons.EMPTY_QUERY, stats={"timings_ms": clock.total()})
    try:
        if index.is_empty():  # nothing to search: say so rather than search nothing
            return RetrievalResult(query=query, reason=reasons.NO_DOCUMENTS,
                                   stats={"timings_ms": clock.total(), "options": options.to_dict()})
    except DatabaseUnavailable:
        raise  # a server that cannot be reached is the caller's to report (CLI exit 2, serve 503)
    except StorageError as e:
        return RetrievalResult(query=query, reason=reasons.ERROR,
                               stats={"error": str(e), "timings_ms": clock.total()})
    truncated = len(text) > MAX_QUERY_CHARS
    text = text[:MAX_QUERY_CHARS]
    parsed = syntax.parse(text, options.syntax)
    reason = None

    def check() -> None:
        if cancelled():
            raise Cancelled("a newer query replaced this one")

    # The query's embedding is requested first; the lexical leg runs while it is computed.
    pending = None
    source = None  # where the query's vector comes from (query_cache.py), for the debug view
    if options.mode != "lexical":
        if index.mismatch:
            reason = reasons.MODEL_MISMATCH
        elif embedder is None:
            reason = reasons.EMBED_FAILED
        elif hasattr(embedder, "embed_query"):
            pending, source = embedder.embed_query(text)
        else:
            pending, source = embedder.embed([text]), "embedded"
    try:
        lex: list[tuple[int, float]] = []
        if options.mode != "vector":
            lex = search.lexical_candidates(index.store, text, options.candidates, options.filters,
                                            index.lexical_index(), parsed)
        clock.lap("lexical")
        # The lexical candidates' rows are read while the query vector is still being computed
        # (in the page that wait is ~10 ms at 20k chunks); only the vector leg's new ids are
        # read after it.
        bases = search.hits_for(index.store, sorted({c for c, _ in lex}), text=False)
        clock.lap("hydrate")
        qvec = None
        if pending is not None:
            try:
                qvec = (await pending)[0]
            except EmbedderError as e:
                reason = e.kind  # embed_failed, or offline
            clock.lap("embed")
        check()
        vec: list[tuple[int, float]] = []
        floored: list[tuple[int, float]] = []
        named: list[Named] = []
        by_name: list[tuple[int, float]] = []
        names_later = False  # the name leg left out: the warm-up is still reading the names
        matrix = index.vector_matrix() if qvec is not None else None  # read once for both legs below
        if qvec is not None:
            vec = search.vector_candidates(index.store, qvec, options.candidates, options.filters,
                                           matrix, options.ef_search)
            vec, floored = rerank.floor_vector_leg(vec, options.floor)
        clock.lap("vector")
        if qvec is not None:
            names_later = options.name_weight > 0 and index.names_later()
            named, by_name = search.name_candidates(index.store, index.name_index() if options.name_weight > 0
                                                    and not names_later else None,
                                                    qvec, text, options.filters, matrix, options.ef_search)
            clock.lap("names")
        check()
        ids = sorted(({c for c, _ in vec} | {c for c, _ in floored} | {c for c, _ in by_name}) - bases.keys())
        bases.update(search.hits_for(index.store, ids, text=False))  # texts: below, for what is shown
        # a chunk still waiting for its vector has none: MMR counts it as unlike the rest
        mmr_vectors = ({h.chunk_id: v for h in bases.values() if (v := index.vector(h.chunk_id)) is not None}
                       if options.mmr_lambda is not None else {})
        clock.lap("hydrate")
        # Words first, meaning after: the vector leg covers the embedded chunks only; say how
        # much, and count the words of what it could not see for both legs (fuse.py).
        waiting = index.pending_documents() if options.mode != "lexical" and index.has_pending() else None
        meaning = meaning_cover.describe(meaning_cover.coverage(waiting)) if waiting is not None else None
        judged = bool(waiting) and qvec is not None
        unjudged = search.pending_among(index.store, [c for c, _ in lex]) if judged else set()
    except StorageError as e:
        if pending is not None and hasattr(pending, "close"):
            pending.close()  # never awaited: say so to the coroutine rather than leak a warning
        if isinstance(e, DatabaseUnavailable):
            raise
        return RetrievalResult(query=query, reason=reasons.ERROR,
                               stats={"error": str(e), "timings_ms": clock.total()})

    legs = {"named": by_name, "name_weight": options.name_weight}
    if options.fusion == "rrf":
        fused = fuse.rrf(vec, lex, bases, k=options.rrf_k, weights=options.weights, unjudged=unjudged, **legs)
    else:
        fused = fuse.linear(vec, lex, bases, weights=options.weights, how=options.normalisation, unjudged=unjudged, **legs)
    clock.lap("fuse")

    ranked = rerank.apply_boosts(fused, options.boosts)
    if options.lift_vector and vec:
        ranked = rerank.lift(ranked, [c for c, _ in vec[:options.lift_vector]], options.lift_to)
    if options.lift_named and by_name:
        per_doc, _ = rerank.diversity_cap([bases[c] for c, _ in by_name if c in bases], "doc",
                                          options.lift_named, len(by_name))
        ranked = rerank.lift(ranked, [h.chunk_id for h in per_doc], options.lift_to)
    unique, duplicates = merge.drop_duplicates(ranked)
    pool = unique
    if options.mmr_lambda is not None:
        pool = rerank.mmr(unique, mmr_vectors, k=len(unique), lam=options.mmr_lambda)
    if options.cap_key:
        chosen, capped = rerank.diversity_cap(pool, options.cap_key, options.cap_per_key, options.k)
    else:
        chosen, capped = list(pool[: options.k]), []
    clock.lap("rerank")

    # Only what is shown needs its text: the chosen chunks, the evidence list, each listed
    # document's best chunk, and the floored ones (perf, issue 15).
    documents = documents_of(vec, lex, bases, ranked, options,
                             {d for d, _name, _n, done in waiting or () if done == 0} if judged else set(), by_name)
    head = ranked[: max(EVIDENCE_MIN, options.k * 5)]
    try:
        texts = search.texts_for(index.store, {h.chunk_id for h in chosen + head} | {c for c, _ in floored}
                                 | {d.chunk_id for d in documents})
    except DatabaseUnavailable:
        raise
    except StorageError as e:
        return RetrievalResult(query=query, reason=reasons.ERROR, stats={"error": str(e), "timings_ms": clock.total()})
    chosen, head = search.with_texts(chosen, texts), search.with_texts(head, texts)
    documents = [DocumentCandidate(d.doc_id, d.name, d.doc_type, d.score, d.chunk_id, snippet(texts.get(d.chunk_id, "")))
                 for d in documents]
    clock.lap("hydrate")

    spans = merge.drop_duplicate_spans(merge.merge_adjacent(chosen))
    clock.lap("merge")
    packed = pack.pack(spans, options.budget, options.reserve)
    clock.lap("pack")

    in_budget = {c for s in packed.spans for c in s.chunk_ids}
    chosen_ids = {h.chunk_id for h in chosen}
    why = {h.chunk_id: h.dropped for h in duplicates + capped}
    evidence = []
    for h in head:
        reason_dropped = why.get(h.chunk_id)
        if reason_dropped is None and h.chunk_id not in chosen_ids:
            reason_dropped = "rank"
        elif reason_dropped is None and h.chunk_id not in in_budget:
            reason_dropped = "budget"
        evidence.append(h if h.dropped == reason_dropped else h.replaced(dropped=reason_dropped))
    listed = {e.chunk_id for e in evidence}
    for cid, sim in floored:
        if cid in bases and cid not in listed:
            evidence.append(bases[cid].replaced(text=texts.get(cid, ""), vector_sim=sim, dropped="floor"))

    stats = {
        "timings_ms": clock.total(),
        "counts": {"vector": len(vec), "floored": len(floored), "lexical": len(lex), "named": len(by_name),
                   "fused": len(fused), "chosen": len(chosen), "spans": len(spans),
                   "packed": len(packed.spans)},
        "query_truncated": truncated,
        "terms": terms(text),  # the words the lexical leg searched for, for highlighting
        "syntax": parsed.describe(),  # how the text was read; a note when it was read as plain words
        "options": options.to_dict(),
        "model": embedder.model_id if embedder else None,
    }
    if named:  # the documents the question names (names.py), for the debug view
        called = {bases[c].doc_id: bases[c].doc_name for c, _ in by_name if c in bases}
        stats["named"] = [{"doc_id": m.doc_id, "doc_name": called.get(m.doc_id), "share": m.share,
                           "words": list(m.words)} for m in named]
    if names_later:
        stats["names_later"] = NAMES_LATER
    if index.mismatch:
        stats["mismatch"] = index.mismatch
    if meaning is not None:
        stats["meaning"] = meaning
    if source is not None:
        stats["query_vector"] = {"source": source}
    return RetrievalResult(
        query=query, results=spans, documents=documents,
        evidence=evidence, packed=packed, reason=reason, stats=stats,
    )


def get_context(result: RetrievalResult) -> str:
    return pack.context_text(result.packed)


__all__ = ["RetrievalResult", "DocumentCandidate", "retrieve", "get_context"]
