"""``bench answers``: how good and how fast the answers are, on question sets kept beside this module.

The sets (``data/answers/*.json``) are written over the bundled Python reference: answerable
questions with the topics that answer them and short verbatim answer phrases (and the same for
questions asked the way people talk, ``paraphrased``), follow-up pairs
that only make sense in a conversation, and questions the reference does not cover. Each item
is ``split`` dev (for calibration) or test (held out, reported separately). SciFact train
claims, asked as "does the literature support this?", run over the cached SciFact index.

Every question goes through the public API only: ``Library.ask`` natively and
``window.readingroom.ask`` in the page return the same JSON, so one scorer
(``answer_scores``) serves both sides. The load average is recorded around every figure.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..aio import run as run_sync
from . import answer_scores as sc
from . import generate
from .stats import load_average as load

DATA = Path(__file__).resolve().parent / "data" / "answers"
SETS = ("answerable", "paraphrased", "followups", "unanswerable")
ANSWERABLE = ("answerable", "paraphrased")  # sets of questions the reference answers
# conversation: the answerable and paraphrased questions each asked after the one before it in
# its set, as a person asks one question after another in one conversation
PY_SETS = SETS + ("conversation",)
ALL_SETS = PY_SETS + ("scifact", "manuals")  # manuals: real PDFs, natively (answers_manuals)
SCIFACT_QUESTION = "Does the literature support this? {claim}"

Asker = Callable[[str, list], tuple[dict, float]]  # (question, history) -> (Answer JSON, ms)


def load_set(name: str) -> list[dict]:
    """The items of one question set (``answerable``, ``paraphrased``, ``followups`` or
    ``unanswerable``)."""
    if name not in SETS:
        raise ValueError(f"unknown question set {name!r}: choose from {', '.join(SETS)}")
    return json.loads((DATA / f"{name}.json").read_text("utf-8"))["items"]


def parse_sets(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in names if s not in ALL_SETS]
    if bad or not names:
        raise ValueError(f"unknown question set {', '.join(bad) or '(none)'}: choose from {', '.join(ALL_SETS)}")
    return names


def _limited(items: list, limit: int | None) -> list:
    return items[:limit] if limit else items


WARMUP = 3  # questions asked first and not counted: model, caches and JIT warm, as for a person's second question


def warm_up(ask: Asker) -> None:
    for q in ("How do I warm up?", "What is a warm start?", "Is it warm yet?")[:WARMUP]:
        ask(q, [])


def ask_answerable(ask: Asker, items: list[dict]) -> tuple[list[dict], dict]:
    """Each question of a set the documents answer, asked once: its records and their rates."""
    rs = []
    for it in items:
        a, ms = ask(it["question"], [])
        rs.append(sc.record(it, a, ms, it["expected_topics"], it["answer_phrases"]))
    return rs, {k: sc.rate(rs, k) for k in ("phrase", "cited_expected", "top3_expected", "covered")}


def ask_in_conversation(ask: Asker, sets: dict[str, list[dict]]) -> list[dict]:
    """Each question of the answerable sets asked after the one before it in its set (the
    earlier question, the query it became and its quick answer as the conversation), as a
    person asks one question after another: a question that stands alone must be searched as
    asked (``rewritten`` records when it was not), and answered as well as when asked alone."""
    rs = []
    for items in sets.values():
        for before, it in zip(items, items[1:]):
            a0, _ms = ask(before["question"], [])
            turn = {"question": before["question"], "answer": sc.quick_text(a0) or None,
                    "standalone_query": a0.get("standalone_query")}
            a, ms = ask(it["question"], [turn])
            r = sc.record(it, a, ms, it["expected_topics"], it["answer_phrases"])
            searched = " ".join((a.get("standalone_query") or it["question"]).split())
            rs.append({**r, "searched": searched, "rewritten": searched != " ".join(it["question"].split())})
    return rs


def evaluate(ask: Asker, sets: list[str], limit: int | None = None,
             log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> dict:
    """The figures for the Python-reference sets through one asker, with per-question records."""
    out: dict = {"records": {}}
    if sets:
        warm_up(ask)
    recs = out["records"]
    for name in (s for s in ANSWERABLE if s in sets):
        l0 = load()
        recs[name], out[name] = ask_answerable(ask, _limited(load_set(name), limit))
        out[name]["load"] = [l0, load()]
        log(f"  {name}: {len(recs[name])} asked (load {l0[0]:.1f}→{load()[0]:.1f})")
    if "conversation" in sets:
        l0 = load()
        rs = ask_in_conversation(ask, {name: _limited(load_set(name), limit) for name in ANSWERABLE})
        recs["conversation"] = rs
        out["conversation"] = {"phrase": sc.rate(rs, "phrase"), "rewritten": sc.rate(rs, "rewritten"),
                               "load": [l0, load()]}
        log(f"  conversation: {len(rs)} asked after another (load {l0[0]:.1f}→{load()[0]:.1f})")
    if "followups" in sets:
        l0 = load()
        firsts, with_h, alone = [], [], []
        for it in _limited(load_set("followups"), limit):
            a1, ms1 = ask(it["first"], [])
            firsts.append(sc.record(it, a1, ms1))
            turn = {"question": it["first"], "answer": sc.quick_text(a1) or None,
                    "standalone_query": a1.get("standalone_query")}
            a, ms = ask(it["followup"], [turn])
            with_h.append(sc.record(it, a, ms, it["expected_topics"], it["answer_phrases"]))
            a, ms = ask(it["followup"], [])
            alone.append(sc.record(it, a, ms, it["expected_topics"], it["answer_phrases"]))
        recs.update({"followup_firsts": firsts, "followups_with_history": with_h, "followups_alone": alone})
        out["followups"] = {"with_history": sc.rate(with_h, "top3_expected"), "alone": sc.rate(alone, "top3_expected"),
                            "phrase_with_history": sc.rate(with_h, "phrase"),
                            "cited_with_history": sc.rate(with_h, "cited_expected"), "load": [l0, load()]}
        log(f"  followups: {len(with_h)} pairs (load {l0[0]:.1f}→{load()[0]:.1f})")
    if "unanswerable" in sets:
        l0 = load()
        rs = []
        for it in _limited(load_set("unanswerable"), limit):
            a, ms = ask(it["question"], [])
            rs.append(sc.record(it, a, ms))
        recs["unanswerable"] = rs
        out["unanswerable"] = {"covered": sc.rate(rs, "covered"), "load": [l0, load()]}
        log(f"  unanswerable: {len(rs)} asked (load {l0[0]:.1f}→{load()[0]:.1f})")
    asked = [r for name in ANSWERABLE for r in recs.get(name, [])]
    if asked and "unanswerable" in recs:
        out["refusal"] = sc.refusal(asked, recs["unanswerable"])
    timed = [r for rs in recs.values() for r in rs]
    if timed:
        out["latency_ms"] = sc.latency(timed)
    return out


def evaluate_scifact(ask: Asker, ds, limit: int | None = None) -> dict:
    """SciFact claims asked as questions; gold is the claim's qrels documents."""
    l0 = load()
    qids = _limited([q for q in ds.qrels if q in ds.queries], limit)
    warm_up(ask)
    rs = []
    for q in qids:
        a, ms = ask(SCIFACT_QUESTION.format(claim=ds.queries[q]), [])
        rs.append(sc.record({"id": q, "split": "claims"}, a, ms, ds.qrels[q]))  # neither dev nor test
    return {"cited_expected": sc.rate(rs, "cited_expected"), "top3_expected": sc.rate(rs, "top3_expected"),
            "covered": sc.rate(rs, "covered"), "latency_ms": sc.latency(rs), "load": [l0, load()], "records": rs}


# --- the bundled corpus ----------------------------------------------------------------------

def demo_index() -> Path:
    """build.py's cached native index of the bundled corpus (built once if missing)."""
    from .browser import _build_module

    return _build_module().demo_index()


def scratch_copy(path: Path, into: Path) -> Path:
    """Asking must never write into a cached index: each run opens its own copy."""
    target = into / path.name
    shutil.copyfile(path, target)
    return target


def native_asker(lib) -> Asker:
    def ask(question: str, history: list) -> tuple[dict, float]:
        t0 = time.perf_counter()
        answer = run_sync(lib.ask(question, history))
        ms = (time.perf_counter() - t0) * 1000
        return answer.to_dict(), ms
    return ask


def run_native(sets: list[str], limit: int | None, ds=None, llm: str | None = None,
               llm_limit: int = 20, llm_model: str | None = None) -> dict:
    from ..library import Library
    from . import quality

    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="rr-answers-") as tmp:
        py_sets = [s for s in sets if s in PY_SETS]
        if py_sets or llm:
            lib = Library.open(scratch_copy(demo_index(), Path(tmp)))
            try:
                out["chunks"] = lib.status().get("chunks")
                out.update(evaluate(native_asker(lib), py_sets, limit))
                if "answerable" in sets or llm:
                    items = _limited(load_set("answerable"), limit)[:llm_limit]
                    out["transports"] = generate.transports(lib, native_asker(lib), items, llm, llm_model)
            finally:
                lib.close()
        if "scifact" in sets:
            path, _ = quality.build_index(ds)
            lib = Library.open(scratch_copy(path, Path(tmp)))
            try:
                out["scifact"] = evaluate_scifact(native_asker(lib), ds, limit)
                out["scifact"]["chunks"] = lib.status().get("chunks")
            finally:
                lib.close()
    if "manuals" in sets:
        from . import answers_manuals

        out["manuals"] = answers_manuals.evaluate(limit)
    return out


# --- in the page -----------------------------------------------------------------------------

_ASK_JS = """
async ([question, history]) => {
  const t0 = performance.now();
  const answer = await window.readingroom.ask(question, {history});
  return [answer, performance.now() - t0];
}
"""


def run_browser(sets: list[str], limit: int | None, rebuild: bool = True, ds=None, scale: int | None = None) -> dict:
    """The same sets through ``window.readingroom.ask`` in headless Chromium, on the same index
    imported into the page; the in-page model's timings through ``inpage_model``."""
    from . import browser as bb

    py_sets = [s for s in sets if s in PY_SETS]
    out: dict = {}
    with bb.session(rebuild) as (browser, url):
        ctx, page, _ = bb.open_app(browser, url)
        try:
            if not page.evaluate("() => typeof window.readingroom.ask === 'function'"):
                return {"error": "this build of the page has no window.readingroom.ask"}
            status = bb.import_index(page, demo_index())
            out["chunks"] = (status or {}).get("chunks")
            out["cross_origin_isolated"] = page.evaluate("() => self.crossOriginIsolated")

            def ask(question: str, history: list) -> tuple[dict, float]:
                answer, ms = page.evaluate(_ASK_JS, [question, history])
                return answer, ms

            out.update(evaluate(ask, py_sets, limit))
            items = _limited(load_set("answerable"), limit)[:5]
            out["inpage_model"] = generate.inpage_model(page, [ask(it["question"], [])[0] for it in items])
        finally:
            ctx.close()
        if ds is not None and scale:
            from .answers_scale import ask_at_scale

            out["scaled"] = ask_at_scale(browser, url, ds, scale, limit or 60)
    for name in ("scifact", "manuals"):
        if name in sets:
            out[name] = {"error": f"{name} runs natively only (the same Python answers in the page)"}
    return out


# --- what is printed and reported ------------------------------------------------------------

def tables(ans: dict) -> str:
    """The figures as two Markdown tables (quality, timing), each with its load average."""
    from .report import table

    q, t = [], []
    notes = []
    for side in ("native", "browser"):
        d = ans.get(side)
        if not d:
            continue
        if d.get("error"):
            notes.append(f"{side}: {d['error']}")
            continue
        q += sc.quality_rows(side, d)
        t += sc.timing_rows(side, d)
        im = d.get("inpage_model")
        if im and not im.get("measured"):
            notes.append(f"{side}: in-page model not measured: {im.get('why')}")
        for name in ("scifact", "manuals"):
            if (d.get(name) or {}).get("error"):
                notes.append(f"{side}: {d[name]['error']}")
    if "differences" in ans:
        diff = ans["differences"]
        notes.append(f"native and page: {len(diff)} questions answered differently" + (": " + "; ".join(diff[:5]) if diff
                     else " (the same quick answer and sources for every question)"))
    parts = [table(sc.QUALITY_HEADERS, q)] if q else []
    if t:
        parts.append(table(sc.TIMING_HEADERS, t))
    if ans.get("public"):
        from .answers_public import HEADERS, rows

        parts.append(table(HEADERS, rows(ans["public"])))
    parts += [f"- {n}" for n in notes]
    return "\n\n".join(parts)


def run(sets: list[str], limit: int | None, native: bool, browser: bool, ds=None, rebuild: bool = True,
        llm: str | None = None, llm_limit: int = 20, llm_model: str | None = None, scale: int | None = None) -> dict:
    out: dict = {"sets": sets, "limit": limit}
    if native:
        print("answers, natively:", file=sys.stderr)
        out["native"] = run_native(sets, limit, ds, llm, llm_limit, llm_model)
    if browser:
        print("answers, in headless Chromium:", file=sys.stderr)
        out["browser"] = run_browser(sets, limit, rebuild, ds, scale)
    if native and browser:
        out["differences"] = differences(out["native"], out["browser"])
        if out["differences"]:
            print(f"native and page answers differ on {len(out['differences'])} questions", file=sys.stderr)
    return out


def differences(native: dict, browser: dict) -> list[str]:
    """Questions whose quick answer covered or cited other documents in the page than natively
    (the same Python answers both, so any difference is a bug or a numeric edge worth a look)."""
    out = []
    for key, recs in (native.get("records") or {}).items():
        other = {r["id"]: r for r in (browser.get("records") or {}).get(key, [])}
        for r in recs:
            b = other.get(r["id"])
            if b and (b["covered"], b["cited"]) != (r["covered"], r["cited"]):
                out.append(f"{key} {r['id']}: native {r['cited'] or 'refused'} vs page {b['cited'] or 'refused'}")
    return out
