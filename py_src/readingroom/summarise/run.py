"""Whole-document answers: the orchestration (the only module here that reads the index).

``summarise`` reads each document's stored extract (``stored``), numbers its points as
``[n]`` citations, lays them out under the document's headings (``outline``), pairs two
documents' points for a comparison (``compare``, on the points' embeddings), and builds what a
server model would be sent: the whole text when it fits ``fit_budget`` tokens, otherwise the
section summaries (the points), whose ``[n]`` are checked like any written answer's.

``Summarised.to_dict()`` has every key ``Answer.to_dict()`` has (an answer with no retrieval
behind it: ``results`` are the quoted points, then any whole-text passages a model reads),
plus ``kind``, ``route`` and ``summary``, so the page and the CLI show either the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..search import pack
from ..answer import prompt
from .. import reasons
from ..text import tokens
from ..errors import BadInput, EmbedderError
from ..records import Span
from . import compare as _compare, outline, stored
from .route import COMPARE, PASSAGES, SUMMARY, DocRef, Route, kind_of, route as _route

MAX_DOCS = 20  # documents summarised in one answer; past it the answer says how many were left
FIT_BUDGET = 8_000  # tokens of a server model's context: a document that fits is sent whole
PASSAGE_TOKENS = 400  # a whole text sent to a model is cut into [n] passages of about this size
OPTIONS = {"kind": SUMMARY, "length": None, "fit_budget": FIT_BUDGET, "question": None}

NOTES = {
    "no_prose": "{name} holds no sentence to quote (only code, tables, headings or sentences too long to quote): "
                "read it in the Reader.",
    "one_sentence": "{name} holds only one sentence; here it is.",
    "missing": "Document {id} is not in the library (deleted, or still being indexed: ask again when it is done).",
    "indexing": "{name} is still being indexed; ask again when it is done.",
    "indexing_again": "{name} is being indexed again; this is the summary of the version stored before.",
}


@dataclass
class Summarised:
    """A summary or comparison answer: its outline blocks and the spans its [n] cite."""

    question: str
    kind: str
    route: Route | None = None
    blocks: list[dict] = field(default_factory=list)  # one per document: its outline
    comparison: dict | None = None
    spans: list[Span] = field(default_factory=list)  # [n] -> spans[n-1]
    points: int = 0  # spans[:points] are the quoted points; the rest a model's whole text
    reason: str | None = None
    message: str | None = None
    messages: list[dict] = field(default_factory=list)
    model: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        names = ", ".join(b["doc_name"] for b in self.blocks)
        packed = pack.Packed(spans=self.spans, tokens=sum(s.token_count for s in self.spans),
                             budget=self.model.get("budget", 0))
        return {"kind": self.kind, "question": self.question,
                "standalone_query": f"{self.kind} of: {names}" if names else self.question,
                "route": self.route.to_dict() if self.route else None,
                "summary": {"documents": self.blocks, "comparison": self.comparison, "points": self.points},
                "quick": [], "covered": bool(self.points), "reason": self.reason, "message": self.message,
                "query": self.question, "results": [s.to_dict() for s in self.spans], "documents": [],
                "evidence": [], "packed": packed.to_dict(),
                "citations": [{"n": n, "result": n - 1, "chunk_ids": list(s.chunk_ids), "trimmed": False}
                              for n, s in enumerate(self.spans, start=1)],
                "context": "", "stats": {**self.stats, "route": self.route.to_dict() if self.route else None},
                "messages": self.messages, "brief_messages": [],
                "model_passages": len(self.spans) if self.messages else 0,
                "model_tokens": self.model.get("tokens", 0), "model_budget": self.model.get("budget", 0),
                "model": self.model}


def split_options(options: dict | None) -> dict:
    d = {**OPTIONS, **{k: v for k, v in (options or {}).items() if k in OPTIONS}}
    if d["kind"] not in (SUMMARY, COMPARE):
        raise BadInput(f"kind must be 'summary' or 'compare', not {d['kind']!r}")
    for key in ("length", "fit_budget"):
        v = d[key]
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
            raise BadInput(f"{key} must be a whole number above 0, not {v!r}")
    return d


def doc_refs(index) -> list[DocRef]:
    titles = stored.titles(index)
    return [DocRef(d.id, d.name, titles.get(d.id, "")) for d in index.documents()]


def decide(index, question: str, scope: Sequence[int] = ()) -> Route:
    """The route of a question (documents listed only when its words ask for a whole document)."""
    if kind_of(question) == PASSAGES:
        return Route(PASSAGES, tuple(scope))
    return _route(question, doc_refs(index), scope)


def _span(point: dict, doc_type: str) -> Span:
    return Span(doc_id=point["doc_id"], doc_name=point["doc_name"], doc_type=doc_type,
                chunk_ids=(point["chunk_id"],), text=point["text"], start=point["start"], end=point["end"],
                score=point["score"], chunk_index=point["chunk_index"], page=point["page"],
                heading_paths=(tuple(point["section"]),), text_hash="", token_count=tokens.estimate(point["text"]))


async def summarise(index, embedder, doc_ids: Sequence[int], options: dict | None = None,
                    route: Route | None = None) -> Summarised:
    t0 = time.perf_counter()
    opts = split_options(options)
    question = str(opts["question"] or "")
    out = Summarised(question=question, kind=opts["kind"], route=route)
    ids = list(dict.fromkeys(int(i) for i in doc_ids))
    if index.is_empty():
        out.reason = reasons.NO_DOCUMENTS
        out.message = reasons.message(out.reason)
        return out
    if not ids:
        out.reason, out.message = "which_document", Route(out.kind, (), reason="which_document").message
        return out
    if out.kind == COMPARE and len(ids) < 2:
        out.reason = "same_document" if doc_ids else "which_document"
        out.message = Route(COMPARE, (), reason=out.reason).message
        return out
    notes = []
    if len(ids) > MAX_DOCS or (out.kind == COMPARE and len(ids) > 2):
        keep = 2 if out.kind == COMPARE else MAX_DOCS
        notes.append(f"{'Compared' if out.kind == COMPARE else 'Summarised'} the first {keep} of "
                     f"{len(ids)} documents; choose fewer to see the others.")
        ids = ids[:keep]
    docs = {d.id: d for d in index.documents()}
    unfinished = set(index._unfinished or [])
    n = 1
    for doc_id in ids:
        d = docs.get(doc_id)
        if d is None:
            out.blocks.append({"doc_id": doc_id, "doc_name": f"document {doc_id}", "note": "missing",
                               "message": NOTES["missing"].format(id=doc_id), "sections": [], "points": 0})
            continue
        ex = stored.load(index, doc_id)
        note = "indexing" if ex is None and d.name in unfinished else (ex.note if ex else "no_prose")
        if note is None and d.name in unfinished:
            note = "indexing_again"
        points = ex.points if ex else []
        if opts["length"] and len(points) > opts["length"]:  # the best ones, still in order
            best = sorted(points, key=lambda p: -p.score)[: opts["length"]]
            points = [p for p in points if p in best]
        cited = outline.number(points, n, doc_id, d.name)
        n += len(cited)
        out.spans += [_span(c, d.doc_type) for c in cited]
        out.blocks.append({"doc_id": doc_id, "doc_name": d.name, "doc_type": d.doc_type, "note": note,
                           "message": NOTES[note].format(name=d.name) if note else None,
                           "sections": outline.sections(cited), "points": len(cited),
                           "sentences": ex.sentences if ex else 0, "tokens": ex.tokens if ex else 0})
    out.points = len(out.spans)
    t1 = time.perf_counter()
    if out.kind == COMPARE:
        if len(out.blocks) == 2 and out.blocks[0]["doc_id"] == out.blocks[1]["doc_id"]:
            out.reason = "same_document"
        out.comparison = await _compare_blocks(embedder, out.blocks)
    problems = [b["message"] for b in out.blocks if b.get("message")]
    if not out.points and out.reason is None:
        out.reason = "no_sentence"
    out.message = " ".join(notes + problems) or None
    if out.reason == "no_sentence" and not problems:
        out.message = reasons.message(reasons.NO_SENTENCE)
    _model_messages(index, out, opts["fit_budget"], question)
    out.stats = {"timings_ms": {"summaries": round((t1 - t0) * 1000, 3),
                                "total": round((time.perf_counter() - t0) * 1000, 3)}}
    return out


async def _compare_blocks(embedder, blocks: list[dict]) -> dict:
    a = [p for s in blocks[0]["sections"] for p in s["points"]]
    b = [p for s in blocks[1]["sections"] for p in s["points"]]
    sim, how = None, "words"
    if embedder is not None and a and b:
        try:
            vecs = np.asarray(await embedder.embed([p["text"] for p in a + b]))
            sim, how = _compare.vector_similarity(vecs[: len(a)], vecs[len(a):]), "meaning"
        except EmbedderError:
            sim = None
    if sim is None:
        from .extractive import Point

        pa, pb = ([Point.from_dict(p) for p in xs] for xs in (a, b))
        c = _compare.pair(_compare.word_similarity(pa, pb), _compare.WORD_THRESHOLD)
    else:
        c = _compare.pair(sim)
    return {"a": blocks[0]["doc_id"], "b": blocks[1]["doc_id"], "similarity": how,
            "pairs": [{"a": a[i]["n"], "b": b[j]["n"], "similarity": round(s, 4)} for i, j, s in c.pairs],
            "only_a": [a[i]["n"] for i in c.only_a], "only_b": [b[j]["n"] for j in c.only_b]}


def _model_messages(index, out: Summarised, budget: int, question: str) -> None:
    """Fit or map-reduce: the documents' whole text when it fits ``budget`` (as [n] passages
    after the points), otherwise the points, section by section, as the sources."""
    if not out.points:
        return
    ask = question or (f"Compare {out.blocks[0]['doc_name']} and {out.blocks[1]['doc_name']}."
                       if out.kind == COMPARE else
                       "Summarise " + ", ".join(b["doc_name"] for b in out.blocks) + ".")
    whole = sum(b.get("tokens", 0) for b in out.blocks)
    if whole <= budget:
        from .whole import passages

        extra = passages(index, [b["doc_id"] for b in out.blocks if b.get("points")], PASSAGE_TOKENS)
        first = len(out.spans) + 1
        out.spans += extra
        context = "".join(pack.block(first + i, s) for i, s in enumerate(extra))
        strategy = "whole"
    else:
        context = "".join(pack.block(i + 1, s) for i, s in enumerate(out.spans[: out.points]))
        strategy = "sections"
    out.messages = prompt.messages(ask, context)
    out.model = {"strategy": strategy, "tokens": tokens.estimate(context), "budget": budget,
                 "document_tokens": whole}


def _scope(options) -> tuple[int, ...]:
    f = getattr(options, "filters", None)
    if f is not None:
        return tuple(f.doc_ids)
    f = (options or {}).get("filters") or {} if isinstance(options, dict) else {}
    ids = f.get("doc_ids") or () if isinstance(f, dict) else ()
    return tuple(int(i) for i in ids if isinstance(i, int) and not isinstance(i, bool))


async def answer(index, embedder, question: str, options=None) -> Summarised | None:
    """A whole-document answer when the question asks for one (``route``), else None: the
    caller answers it from passages. The scope is the options' ``filters.doc_ids``."""
    q = " ".join(str(question or "").split())
    if kind_of(q) == PASSAGES or index.is_empty():
        return None
    r = decide(index, q, _scope(options))
    pending = _being_indexed(index, q) if r.reason or r.kind == PASSAGES else None
    if pending:  # "summarise report.pdf" while report.pdf is still being added
        return Summarised(question=str(question), kind=kind_of(q), route=r, reason="indexing",
                          message=NOTES["indexing"].format(name=pending))
    if r.kind == PASSAGES:
        return None
    if r.reason:
        return Summarised(question=str(question), kind=r.kind, route=r, reason=r.reason, message=r.message)
    own = {k: v for k, v in (options or {}).items() if k in ("length", "fit_budget")} if isinstance(options, dict) else {}
    return await summarise(index, embedder, r.doc_ids, {"kind": r.kind, "question": str(question), **own}, route=r)


def _being_indexed(index, question: str) -> str | None:
    """A file the question names that is recorded as still to be indexed and not yet stored."""
    q = question.lower()
    stored_names = {d.name for d in index.documents()}
    for name in index._unfinished or ():
        base = name.rsplit("/", 1)[-1].lower()
        if name not in stored_names and base and base in q:
            return name
    return None
