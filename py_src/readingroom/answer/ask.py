"""``ask``: a question (and the conversation before it) in, an answer a person can trust out.

The orchestrator of the answer modules, and the only one of them that does I/O: it turns
a follow-up into a standalone query (``followup``), retrieves, embeds the candidate
sentences of the top passages in one batch, picks the quick answer (``answer``), decides
whether the documents cover the question at all (``coverage``) and builds what a
generative transport would be sent (``prompt``). ``check_answer`` checks a generated
answer's citations (``citations``). Like retrieval, failures degrade into a ``reason``
and a message a person can act on, never an exception.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .. import answer as _answer, reasons
from . import citations, followup, prompt
from ..search import merge, pack, reads as search
from . import coverage, model as _model
from ..errors import BadInput, Cancelled, EmbedderError
from ..search.options import Options
from ..records import Hit, Span
from ..search.fts import content_words
from ..search.retrieve import RetrievalResult, retrieve
from ..seams import Embedder

# Retrieval's reasons after which there is nothing to answer from.
STOPPED = (reasons.EMPTY_QUERY, reasons.NO_DOCUMENTS, reasons.MERGING, reasons.ERROR)
# Beside the retrieval Options: tokens of earlier turns sent to a model, and a standalone
# query made elsewhere (a server model's rewrite) to search instead of followup's.
# model_budget: tokens of sources a generative model is sent (a small in-page model reads
# slowly); the quick answer still draws on the whole retrieval budget.
ASK_OPTIONS = {"history_budget": prompt.HISTORY_BUDGET, "standalone_query": None, "model_budget": None}
# An answer's retrieval reaches a little deeper than a search's (8 chunks, 3 per document): the
# answering sentence is often in the best document's fourth passage. Chosen on the held-back
# parts of the public QA sets (bench/answers_public.py): answer in the quick answer 82.7 → 83.3 %
# (SelQA + WikiQA), 90.7 → 91.0 (SQuAD), 81.4 → 81.7 (QED), 86.5 → 87.9 (Shifts), false refusals
# unchanged; 12 chunks, 6 per document and 1,800 tokens were lower on both sets tried.
# And it lifts the vector leg's two best chunks to right after the 4th (search/rerank.lift): a
# person's own words ("get rid of variables") share few words with the passage that answers
# them, which lexical x2 ranks below the lexical leg's top ~60. On the held-back public sets the
# same or better (83.3 / 91.0 / 81.7 / 88.1 -> 83.4 / 91.1 / 82.0 / 87.9 %), fewer false refusals
# (0.8 / 2.0 / 7.2 -> 0.7 / 1.9 / 6.9 %); on the R manuals none refused (9.4 % before).
# At most 6 of the 10 from one document (4 before, 2026-11-27): the same four held-back sets,
# weighted by their questions, 4 / 5 / 6 / 10 a document: 87.1 / 87.5 / 87.7 / 87.1 %.
# A caller's own options win.
ASK_RETRIEVAL = {"k": 10, "cap_per_key": 6, "lift_vector": 2, "lift_named": 1}


@dataclass
class Answer:
    """A question's answer: the quick answer's sentences, whether the documents cover it, and the retrieval it drew on."""

    question: str
    standalone_query: str
    retrieval: RetrievalResult
    quick: list[_answer.Quick] = field(default_factory=list)
    covered: bool = False
    reason: str | None = None
    message: str | None = None
    messages: list[dict] = field(default_factory=list)
    brief_messages: list[dict] = field(default_factory=list)  # for a small model: the quick sentences
    model_passages: int = 0  # the model is sent passages [1]..[model_passages]
    model_tokens: int = 0  # of sources it is sent, out of model_budget
    model_budget: int = 0

    def to_dict(self) -> dict:
        d = self.retrieval.to_dict()
        d.pop("reason", None)
        d.pop("message", None)  # the answer's own message, not retrieval's
        return {"question": self.question, "standalone_query": self.standalone_query,
                "quick": [q.to_dict() for q in self.quick], "covered": self.covered,
                "reason": self.reason, "message": self.message, **d, "messages": self.messages,
                "brief_messages": self.brief_messages,
                "model_passages": self.model_passages, "model_tokens": self.model_tokens,
                "model_budget": self.model_budget}


def split_options(options: Options | dict | None) -> tuple[Options, dict]:
    """Retrieval options and the ask-only ones (``ASK_OPTIONS``)."""
    if isinstance(options, Options):
        return options, dict(ASK_OPTIONS)
    d = dict(options or {})
    own = {k: d.pop(k) for k in list(d) if k in ASK_OPTIONS}
    for key in ("history_budget", "model_budget"):
        budget = own.get(key, 0)
        if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
            raise BadInput(f"{key} must be a whole number of tokens, not {budget!r}")
    if not isinstance(own.get("standalone_query") or "", str):
        raise BadInput("standalone_query must be text")
    return Options.from_dict({**ASK_RETRIEVAL, **d}), {**ASK_OPTIONS, **own}


def span_pieces(index, result: RetrievalResult, spans: Sequence[Span]) -> list[list[merge.Piece]]:
    """How each span's text maps onto its document, from its chunks (the evidence holds
    them; any it does not are read back)."""
    hits: dict[int, Hit] = {h.chunk_id: h for h in result.evidence}
    need = [c for s in spans for c in s.chunk_ids if c not in hits]
    if need:
        hits.update(search.hits_for(index.store, need))
    out = []
    for s in spans:
        run = sorted((hits[c] for c in s.chunk_ids if c in hits), key=lambda h: (h.chunk_index, h.start))
        out.append(merge.pieces(run) if len(run) == len(s.chunk_ids) else [])
    return out


async def embed_candidates(embedder: Embedder | None, query: str, cands: Sequence[_answer.Candidate],
                           result: RetrievalResult, cancelled: Callable[[], bool] = lambda: False):
    """(query vector, candidate vectors, the embedder's failure kind or None): one batch."""
    if not cands or embedder is None or result.reason is not None:
        return None, None, None
    if cancelled():
        raise Cancelled("a newer question replaced this one")
    try:
        got = await embedder.embed([query] + [c.scored_text for c in cands])
    except EmbedderError as e:
        return None, None, e.kind
    return got[0], got[1:], None


async def ask(index, embedder: Embedder | None, question: str, history: Sequence[Any] = (),
              options: Options | dict | None = None,
              cancelled: Callable[[], bool] = lambda: False) -> Answer:
    t0 = time.perf_counter()
    ms: dict[str, float] = {}
    since = [t0]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        ms[stage] = round((now - since[0]) * 1000, 3)
        since[0] = now

    opts, own = split_options(options)
    if isinstance(history, (str, bytes, dict)) or not hasattr(history or (), "__iter__"):
        raise BadInput("history must be a list of earlier questions or turns, oldest first")
    q = " ".join(str(question or "").split())
    turns = followup.turns(history)
    given = " ".join((own["standalone_query"] or "").split())
    standalone = (given or followup.standalone_query(q, turns)) if q else ""
    lap("followup")
    result = await retrieve(index, embedder, standalone, opts, cancelled)
    lap("retrieve")
    out = Answer(question=str(question or ""), standalone_query=standalone, retrieval=result,
                 reason=result.reason)
    if not q or out.reason in STOPPED:
        out.reason = reasons.EMPTY_QUERY if not q else out.reason
        out.message = reasons.message(out.reason, result.stats.get("error"))
        return _done(out, ms, t0, None)
    spans = result.packed.spans
    # A question that names nothing ("why?" as a first question, "is it?") has no answer in
    # any document: any sentence quoted for it would be chance, so none is scored. Its
    # sources still show.
    vague = names_nothing(standalone)
    cands = [] if vague else _answer.prepare(standalone, spans, span_pieces(index, result, spans), result.evidence)
    lap("sentences")
    qvec, vecs, failed = await embed_candidates(embedder, standalone, cands, result, cancelled)
    out.reason = failed or out.reason
    lap("embed")
    scored, ev = _answer.decide(standalone, cands, qvec, vecs, spans, result.evidence)
    out.covered = bool(cands) and coverage.covered(ev)
    if vague and out.reason is None:
        out.reason = reasons.VAGUE
    out.quick = _answer.select(scored) if out.covered else []
    if not out.covered and out.reason is None:
        out.reason = reasons.NO_SENTENCE if spans and not cands else reasons.NOT_COVERED
    out.message = reasons.message(out.reason)
    if out.reason == reasons.NOT_COVERED and ev.missing:
        out.message += f" Nothing found mentions “{ev.missing}”."
    if out.reason not in (None, reasons.NOT_COVERED, reasons.NO_SENTENCE, reasons.VAGUE) and not out.covered:
        out.message += " " + reasons.message(reasons.NOT_COVERED)
    sent = result.packed if own["model_budget"] is None else pack.prefix(result.packed, own["model_budget"])
    out.messages = prompt.messages(q, pack.context_text(sent), turns, own["history_budget"])
    out.model_passages, out.model_tokens, out.model_budget = len(sent.spans), sent.tokens, sent.budget
    out.brief_messages = prompt.brief_messages(q, [(s.n, s.reads or s.text) for s in out.quick])
    lap("select")
    return _done(out, ms, t0, ev)


def names_nothing(question: str) -> bool:
    """Nothing to look for: no word but stopwords ("why?", "is it?", "the of and to") and no
    code or symbol either ("What does ** do?", "And !a?", "🚲?" each name something)."""
    return not content_words(question) and not followup.NAMES_BY_MARKS.search(question)


def _done(out: Answer, ms: dict, t0: float, ev: coverage.Evidence | None) -> Answer:
    ms["total"] = round((time.perf_counter() - t0) * 1000, 3)
    out.retrieval.stats = {**out.retrieval.stats,
                           "answer": {"timings_ms": ms, "coverage": (
                               {**ev.to_dict(), "probability": coverage.probability(ev),
                                "threshold": _model.load()[1].threshold}
                               if ev else None)}}
    return out


async def check_answer(embedder: Embedder | None, answer_text: str, passages: Sequence[dict]) -> dict:
    """The citation check of a generated answer against the passages it was given."""
    p = citations.plan(str(answer_text or ""), list(passages or ()))
    vecs = None
    if p.texts and embedder is not None:
        try:
            vecs = await embedder.embed(p.texts)
        except EmbedderError:
            vecs = None
    return citations.judge(p, vecs)


__all__ = ["Answer", "ask", "check_answer"]
