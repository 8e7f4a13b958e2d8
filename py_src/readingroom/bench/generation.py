"""Generated answers: does a small model stay with the sources, and how soon does it answer?

    python -m readingroom.bench.generation quality --model NAME=PATH.gguf [...] --json OUT
    python -m readingroom.bench.generation speed --json OUT [--threads 1 --threads 2]

``quality`` asks each model (served by the test extra's real llama-server on 127.0.0.1, one
thread, temperature 0) the first dozen dev questions of ``bench answers``' answerable set over
the bundled Python reference, each with the sources retrieval packed for it, and scores the
answers: does it cite an existing ``[n]``, a passage of the expected topic, does it contain an
answer phrase, how much of it is copied from the sources, does it repeat itself. It chose the in-page model (see README "Chat").

``speed`` measures the in-page model in headless Chromium through the app itself: prefill and
generation rates at 1 and 2 threads (2 only where the page is cross-origin isolated), from
which the in-page context budget is derived.

``inpage_answer_ms(page, question)`` is the hook ``bench answers`` calls to time the in-page
model on one question in a page that is already open and ready.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from .llama_server import LlamaServer


def questions(n: int = 12) -> list[tuple[str, list[str], list[str]]]:
    """The first ``n`` dev questions of ``bench answers``' answerable set, as (question, expected
    topics, answer phrases): one question list for every answer bench, not a second one here."""
    from .answers import load_set

    dev = [i for i in load_set("answerable") if i["split"] == "dev"][:n]
    return [(i["question"], [_topic(t) for t in i["expected_topics"]], i["answer_phrases"]) for i in dev]


CITATION = re.compile(r"\[(\d+)\]")
WORD = re.compile(r"\w+")


def _topic(doc_name: str) -> str:
    return doc_name.rsplit("/", 1)[-1].removesuffix(".txt")


def score(text: str, passages: list[dict], topics: list[str], phrases: list[str]) -> dict:
    """Plain, model-independent checks of one answer against the passages it was given.

    passages: [{"n", "doc_name", "text"}] as numbered in the prompt.
    """
    by_n = {p["n"]: p for p in passages}
    cited = [int(n) for n in CITATION.findall(text)]
    valid = [n for n in cited if n in by_n]
    words = [w.lower() for w in WORD.findall(text)]
    source_words = [w.lower() for p in passages for w in WORD.findall(p["text"])]
    grams = lambda ws, k: {tuple(ws[i:i + k]) for i in range(len(ws) - k + 1)}  # noqa: E731
    answer_5 = grams(words, 5)
    copied = len(answer_5 & grams(source_words, 5)) / len(answer_5) if answer_5 else 0.0
    distinct = len(answer_5) / max(1, len(words) - 4) if answer_5 else 1.0
    return {
        "cites": bool(valid),
        "cites_expected": any(_topic(by_n[n]["doc_name"]) in topics for n in valid),
        "invalid_citations": sorted(set(cited) - set(valid)),
        "phrase": any(p.lower() in text.lower() for p in phrases),
        "copied": round(copied, 2),       # share of the answer's 5-grams found in the sources
        "repetitive": distinct < 0.6,     # the same 5-grams over and over
        "words": len(words),
    }


# --- the prompt: Library.ask's messages, as the page sends them --------------------------------

async def grounded_prompt(lib, question: str, budget: int) -> tuple[list[dict], list[dict]]:
    """(messages, passages) for a question, exactly as the page would send them."""
    answer = (await lib.ask(question, options={"budget": budget})).to_dict()
    return answer["messages"], _passages(answer)


def _passages(result: dict) -> list[dict]:
    """The [n] passages of a retrieval result, numbered as in its context."""
    results = result.get("results") or []
    included = (result.get("packed") or {}).get("included")
    if not isinstance(included, list):
        return [{"n": i + 1, "doc_name": r["doc_name"], "text": r["text"]} for i, r in enumerate(results)]
    by_ids = {tuple(r.get("chunk_ids") or ()): r for r in results}
    out = []
    for i, ids in enumerate(included):
        r = by_ids.get(tuple(ids))
        if r is not None:
            out.append({"n": i + 1, "doc_name": r["doc_name"], "text": r["text"]})
    return out


def _demo_library():
    """The bundled Python-reference index, opened natively from build.py's cache (a copy)."""
    import shutil
    from .browser import _build_module
    from ..library import Library

    build = _build_module()
    src = build.demo_index() if hasattr(build, "demo_index") else None
    if src is None:
        found = sorted((build.CACHE / "demo").glob("demo-*.sqlite"))
        if not found:
            raise SystemExit("no bundled index in .cache/demo: run `python build.py` once")
        src = found[-1]
    tmp = Path(tempfile.mkdtemp()) / "demo.sqlite"
    shutil.copyfile(src, tmp)
    return Library.open(tmp, model_dir=str(build.model_dir()))


def quality(models: dict[str, Path], budget: int = 600, max_tokens: int = 160) -> dict:
    """Each model answers questions() natively; per-answer scores and a summary per model."""
    lib = _demo_library()
    asked = questions()
    prompts = [asyncio.run(grounded_prompt(lib, q, budget)) for q, _, _ in asked]
    out: dict = {"budget": budget, "max_tokens": max_tokens, "questions": len(asked), "models": {}}
    for name, path in models.items():
        server = LlamaServer(path)
        try:
            rows = []
            for (q, topics, phrases), (messages, passages) in zip(asked, prompts):
                r = server.complete(messages, max_tokens)
                rows.append({"question": q, "answer": r["text"], "prompt_tokens": r["usage"].get("prompt_tokens"),
                             **score(r["text"], passages, topics, phrases)})
                print(f"{name}: {q}\n  -> {r['text'][:300]!r}", file=sys.stderr, flush=True)
        finally:
            server.close()
        n = len(rows)
        out["models"][name] = {
            "summary": {
                "cites": sum(r["cites"] for r in rows) / n,
                "cites_expected": sum(r["cites_expected"] for r in rows) / n,
                "invalid_citations": sum(bool(r["invalid_citations"]) for r in rows) / n,
                "phrase": sum(r["phrase"] for r in rows) / n,
                "copied": round(sum(r["copied"] for r in rows) / n, 2),
                "repetitive": sum(r["repetitive"] for r in rows) / n,
            },
            "answers": rows,
        }
    lib.close()
    return out


# --- the in-page model, in the app --------------------------------------------------------------

_ANSWER = """
async ([question, history, options]) => {
  const rr = window.readingroom;
  const t0 = performance.now();
  const answer = await rr.ask(question, {...options, history});
  const asked = performance.now();
  const run = await rr.chat.generate(answer.messages, {transport: 'wllama'});
  return {retrieval_ms: asked - t0, first_token_ms: run.firstTokenMs, total_ms: run.totalMs,
          prompt_tokens: run.promptTokens, text: run.text, threads: run.threads,
          prefill_tps: run.prefillTps, generate_tps: run.generateTps};
}
"""


def inpage_answer_ms(page, question: str, history: list | tuple = (), options: dict | None = None) -> dict:
    """Time the in-page model on one question, in an open, ready page of the app.

    Returns {"first_token_ms", "total_ms"} (from handing the prompt to the model; the model is
    loaded first if needed, so the first call includes loading) plus "retrieval_ms",
    "prompt_tokens", "threads", "prefill_tps", "generate_tps" and the answer "text".
    The budget is the in-page transport's own (chat.budget('wllama')) unless options say otherwise.
    """
    opts = dict(options or {})
    if "model_budget" not in opts:  # the model's own context; the quick answer keeps the whole one
        opts["model_budget"] = page.evaluate("() => window.readingroom.chat.budget('wllama')")
    page.evaluate("() => window.readingroom.chat.load('wllama')")
    return page.evaluate(_ANSWER, [question, list(history), opts])


_RATES = """
async ([prompts]) => {
  const chat = window.readingroom.chat;
  await chat.load('wllama');
  const out = [];
  await chat.generate([{role: 'user', content: 'Hello'}], {transport: 'wllama', maxTokens: 2});  // warm-up
  for (const messages of prompts) out.push(await chat.generate(messages, {transport: 'wllama', maxTokens: 32}));
  return {threads: out[0]?.threads, isolated: self.crossOriginIsolated, runs: out};
}
"""


def speed(isolated_url: str | None, plain_url: str, budgets=(150, 300, 600, 1200)) -> dict:
    """Prefill/generation rates of the in-page model, not isolated (1 thread) and isolated (2)."""
    from . import browser as bb

    lib = _demo_library()
    q = questions(1)[0][0]
    prompts = [asyncio.run(grounded_prompt(lib, q, b))[0] for b in budgets]
    lib.close()
    out = {}
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=bb.CHROMIUM, args=bb.ARGS, headless=True)
        try:
            for label, url in (("isolated", isolated_url), ("not_isolated", plain_url)):
                if url is None:
                    continue
                ctx, page, _ = bb.open_app(browser, url)
                r = page.evaluate(_RATES, [prompts])
                out[label] = {"threads": r["threads"], "crossOriginIsolated": r["isolated"],
                              "runs": [{"budget": b, "prompt_tokens": x["promptTokens"],
                                        "prefill_tps": round(x["prefillTps"], 1),
                                        "generate_tps": round(x["generateTps"], 1),
                                        "first_token_ms": round(x["firstTokenMs"]),
                                        "total_ms": round(x["totalMs"])}
                                       for b, x in zip(budgets, r["runs"])]}
                print(json.dumps({label: out[label]}), file=sys.stderr, flush=True)
                ctx.close()
        finally:
            browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m readingroom.bench.generation", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--model", action="append", required=True, help="NAME=PATH.gguf (repeatable)")
    q.add_argument("--budget", type=int, default=600)
    q.add_argument("--max-tokens", type=int, default=160)
    s = sub.add_parser("speed")
    s.add_argument("--no-build", action="store_true")
    for x in (q, s):
        x.add_argument("--json", type=Path, required=True)
    args = p.parse_args(argv)
    from .__main__ import machine

    result: dict = {"machine": machine(), "command": " ".join(sys.argv)}
    if args.cmd == "quality":
        models = {}
        for spec in args.model:
            name, _, path = spec.partition("=")
            models[name] = Path(path)
        result["quality"] = quality(models, args.budget, args.max_tokens)
        for name, m in result["quality"]["models"].items():
            print(name, json.dumps(m["summary"]))
    else:
        from . import browser as bb

        build = bb._build_module()
        bb.dist(not args.no_build)
        servers = [build.serve(build.EMPTY_DIST, 0, isolation=iso) for iso in (True, False)]
        urls = [f"http://127.0.0.1:{s[0].server_address[1]}/" for s in servers]
        try:
            result["speed"] = speed(urls[0], urls[1])
        finally:
            for s in servers:
                s[0].shutdown()
                s[0].server_close()
    result["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
