"""Generated answers for ``bench answers``: per transport, the time to the first token and to
the whole answer, and how many generated sentences the citation check flags unsupported.

Transports measured here:
- ``sources_only``: no model; the quick answer is what the person reads, so its first token
  is the quick answer itself. Its sentences (with their ``[n]``) go through the same check,
  a sanity figure for the checker (verbatim sentences should pass).
- ``server``: an OpenAI-compatible ``/v1/chat/completions`` server (``--llm URL``), sent
  ``answer.messages`` exactly, streamed by the CLI's own client (``readingroom.answer.llm``);
  ``server_brief``: the same server sent ``answer.brief_messages`` (the quick answer's sentences
  as notes, what the in-page model is sent), so the in-page model's prompt can be measured on
  the same GGUF natively.
- ``inpage``: the in-page model, through ``inpage_model(page, answers)`` (see there).
"""

from __future__ import annotations

import time

from ..aio import run as run_sync
from ..answer.llm import LlmError, stream_chat
from . import answer_scores as sc
from .stats import load_average, summary


def timed_chat(url: str, messages: list[dict], model: str | None = None) -> dict:
    """One answer streamed by the CLI's own client: the text, ms to the first piece, ms in all."""
    t0 = time.perf_counter()
    first = None
    parts: list[str] = []
    for piece in stream_chat(url, messages, model):
        if first is None:
            first = (time.perf_counter() - t0) * 1000
        parts.append(piece)
    total = (time.perf_counter() - t0) * 1000
    return {"text": "".join(parts), "first_token_ms": first if first is not None else total, "total_ms": total}


def cited(quote: str, n: int) -> str:
    """A quote as a written answer would cite it: ``[n]`` after each of its sentences (a quote
    that reads on into the next sentence is two claims, each from passage n)."""
    from ..text.sentences import split

    parts = [u.text for u in split(quote, labels=False)] or [quote]
    return " ".join(f"{p} [{n}]" for p in parts)


def checked(checks: list[dict]) -> dict:
    sentences = sum(len(c["sentences"]) for c in checks)
    unsupported = sum(c["unsupported"] for c in checks)
    return {"answers": len(checks), "sentences": sentences, "unsupported": unsupported,
            "unsupported_rate": round(100.0 * unsupported / sentences, 1) if sentences else None,
            "invalid_citations": sum(len(c["invalid_citations"]) for c in checks)}


def _transport(rows: list[dict], checks: list[dict], l0: list[float], l1: list[float]) -> dict:
    return {"first_token_ms": summary([r["first_token_ms"] for r in rows]),
            "total_ms": summary([r["total_ms"] for r in rows]),
            "first_token_from_ask_ms": summary([r["ask_ms"] + r["first_token_ms"] for r in rows]),
            "total_from_ask_ms": summary([r["ask_ms"] + r["total_ms"] for r in rows]),
            **checked(checks), "load": [l0, l1]}


def transports(lib, ask, items: list[dict], llm: str | None, model: str | None = None) -> dict:
    """``sources_only`` always, ``server`` with ``llm``, over ``items`` (answerable questions)."""
    out: dict = {}
    asked = [ask(it["question"], []) for it in items]
    l0 = load_average()
    rows, checks = [], []
    for a, ms in asked:
        text = " ".join(cited(q["text"], q["n"]) for q in a.get("quick") or [])
        rows.append({"ask_ms": 0.0, "first_token_ms": ms, "total_ms": ms})
        if text:
            checks.append(run_sync(lib.check_answer(text, sc.passages(a))))
    out["sources_only"] = _transport(rows, checks, l0, load_average())
    for key, name in (("messages", "server"), ("brief_messages", "server_brief")):
        if not llm:
            break
        l0 = load_average()
        rows, checks, errors = [], [], []
        for a, ms in asked:
            if not a.get(key):
                continue
            try:
                g = timed_chat(llm, a[key], model)
            except LlmError as e:
                errors.append(str(e))
                continue
            rows.append({"ask_ms": ms, **g})
            seen = sc.passages(a)[: None if key == "brief_messages" else a.get("model_passages") or None]
            checks.append(run_sync(lib.check_answer(g["text"], seen)))
        out[name] = {"url": llm, "prompt": key, "errors": errors,
                     **(_transport(rows, checks, l0, load_average()) if rows else {})}
    return out


# The in-page model, through the page's own chat API (web/chat/automation.js):
#   window.readingroom.chat.generate(messages, {transport: "wllama"})
#     -> {text, firstTokenMs, totalMs, threads, promptTokens, ...}
# The answer's text is then checked in the page with window.readingroom.checkAnswer against
# the passages the model was sent, as the page itself does.
_HAS_HOOK = "() => typeof window.readingroom?.chat?.generate === 'function'"
# One question as the page asks it for the in-page model: its own small context (model_budget),
# the model loaded first, then timed from handing it the messages (web/chat/automation.js).
_TIME = """
async (question) => {
  const rr = window.readingroom;
  await rr.chat.load('wllama');
  const answer = await rr.ask(question, {model_budget: rr.chat.budget('wllama')});
  const sent = answer.brief_messages?.length ? answer.brief_messages : answer.messages;
  const run = await rr.chat.generate(sent, {transport: 'wllama'});
  return {answer, text: run.text, first_token_ms: run.firstTokenMs, total_ms: run.totalMs,
          threads: run.threads, prompt_tokens: run.promptTokens};
}
"""
_CHECK = "([t, p]) => window.readingroom.checkAnswer(t, p)"


def inpage_model(page, answers: list[dict]) -> dict:
    """First-token and whole-answer time of the in-page model over the questions of ``answers``
    (Answer JSON from the page), each asked again with the in-page model's own context budget,
    with the page's isolation state and the citation check of each written answer."""
    isolated = page.evaluate("() => self.crossOriginIsolated")
    if not page.evaluate(_HAS_HOOK):
        return {"measured": False, "cross_origin_isolated": isolated,
                "why": "the page has no window.readingroom.chat.generate"}
    rows, checks = [], []
    l0 = load_average()
    for a in answers:
        if not a.get("messages"):
            continue
        g = page.evaluate(_TIME, a["question"])
        sent = g.pop("answer")
        seen = sc.passages(sent)[: None if sent.get("brief_messages") else sent.get("model_passages") or None]
        rows.append({"ask_ms": 0.0, **g})
        checks.append(page.evaluate(_CHECK, [g.get("text") or "", seen]))
    res = _transport(rows, checks, l0, load_average()) if rows else {}
    return {"measured": bool(rows), "cross_origin_isolated": isolated, **res}
