"""Scoring for ``bench answers``: pure functions from an ``Answer.to_dict()`` (native or from
the page, the same JSON) and a question's expectations to per-question records, and from
records to the figures the report states, per split (dev is what calibration saw, test is
held out).
"""

from __future__ import annotations

import re
from typing import Iterable

from .stats import summary

SPLITS = ("all", "dev", "test")


def normalise(text: str) -> str:
    """The form answer phrases are matched in: lower case, one space for any run of whitespace,
    a line-broken hyphenation joined, and the reference's code quotes, emphasis stars and
    typographic quotes dropped, so a phrase matches the sentence it was copied from and a
    model's plain rewording of the same words alike."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", "").replace("\u201d", "")
    text = re.sub(r"-\n\s*", "-", text)
    text = text.replace('"', "").replace("*", "")
    return re.sub(r"\s+", " ", text).strip().lower()


def phrase_found(text: str, phrases: Iterable[str]) -> bool:
    """Whether any of the answer phrases occurs in ``text``."""
    t = normalise(text)
    return any(normalise(p) in t for p in phrases)


def quick_text(answer: dict) -> str:
    return " ".join(q["text"] for q in answer.get("quick") or [])


def sources(answer: dict, n: int = 3) -> list[str]:
    """The first ``n`` source documents, best first, each once."""
    return [d["name"] for d in (answer.get("documents") or [])[:n]]


def passages(answer: dict) -> list[dict]:
    """The ``[n]`` passages a generative transport was given, as ``check_answer`` takes them."""
    results = answer.get("results") or []
    by_chunks = {tuple(r["chunk_ids"]): r for r in results}
    out = []
    for c in answer.get("citations") or []:
        r = results[c["result"]] if c.get("result") is not None else by_chunks.get(tuple(c["chunk_ids"]))
        if r is not None:
            out.append({"n": c["n"], "text": r["text"]})
    return out


def record(item: dict, answer: dict, ms: float, expected: Iterable[str] = (),
           phrases: Iterable[str] = ()) -> dict:
    """One asked question: what was searched, what the quick answer cited, whether it holds an
    answer phrase, whether an expected document is among the top three sources."""
    expected = set(expected)
    cited = [q["doc_name"] for q in answer.get("quick") or []]
    top = sources(answer)
    cov = ((answer.get("stats") or {}).get("answer") or {}).get("coverage")
    return {"id": item.get("id"), "split": item.get("split", "dev"), "ms": round(ms, 2),
            "standalone_query": answer.get("standalone_query"), "covered": bool(answer.get("covered")),
            "reason": answer.get("reason"), "quick": quick_text(answer), "cited": cited, "top3": top,
            "cited_expected": bool(expected & set(cited)), "top3_expected": bool(expected & set(top)),
            "phrase": phrase_found(quick_text(answer), phrases) if phrases else None,
            "coverage": cov}


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def rate(records: list[dict], key: str) -> dict:
    """Share of records whose ``key`` is true, in percent, for all / dev / test, with counts."""
    out = {}
    for s in SPLITS:
        rs = [r for r in records if s == "all" or r["split"] == s]
        out[s] = _pct(sum(bool(r[key]) for r in rs), len(rs))
        out[f"n_{s}"] = len(rs)
    return out


def refusal(answerable: list[dict], unanswerable: list[dict]) -> dict:
    """Refusal (``covered`` false) as a classifier of unanswerable questions: precision is the
    share of refusals that were right, recall the share of unanswerable questions refused."""
    out = {}
    for s in SPLITS:
        a = [r for r in answerable if s == "all" or r["split"] == s]
        u = [r for r in unanswerable if s == "all" or r["split"] == s]
        right = sum(not r["covered"] for r in u)
        wrong = sum(not r["covered"] for r in a)
        out[s] = {"precision": _pct(right, right + wrong), "recall": _pct(right, len(u)),
                  "refused_unanswerable": right, "refused_answerable": wrong,
                  "answerable": len(a), "unanswerable": len(u)}
    return out


def latency(records: Iterable[dict]) -> dict:
    return summary([r["ms"] for r in records])


# --- the report ------------------------------------------------------------------------------

def load_text(load: list | None) -> str:
    """``start→end`` 1-minute load average of a figure's run."""
    if not load or not load[0]:
        return "?"
    return f"{load[0][0]:.1f}→{load[1][0]:.1f}" if len(load) > 1 and load[1] else f"{load[0][0]:.1f}"


QUALITY_HEADERS = ["figure", "all", "dev", "test", "n", "load"]


def quality_rows(name: str, side: dict) -> list[list]:
    """Rows (figure, all, dev, test, n, load) for one side (native or browser)."""
    rows = []

    def pct(x):
        return "—" if x is None else f"{x:.1f}%"

    def add(label: str, r: dict | None, load):
        if r:
            rows.append([f"{name}: {label}"] + [pct(r[s]) for s in SPLITS] + [r["n_all"], load_text(load)])

    a = side.get("answerable") or {}
    add("answer phrase in the quick answer", a.get("phrase"), a.get("load"))
    add("expected topic cited by the quick answer", a.get("cited_expected"), a.get("load"))
    add("expected topic in top-3 sources", a.get("top3_expected"), a.get("load"))
    add("answerable questions refused", _refused(a.get("covered")), a.get("load"))
    p = side.get("paraphrased") or {}
    add("paraphrased: answer phrase in the quick answer", p.get("phrase"), p.get("load"))
    add("paraphrased: expected topic cited by the quick answer", p.get("cited_expected"), p.get("load"))
    add("paraphrased: expected topic in top-3 sources", p.get("top3_expected"), p.get("load"))
    add("paraphrased: refused", _refused(p.get("covered")), p.get("load"))
    c = side.get("conversation") or {}
    add("asked after another question: answer phrase in the quick answer", c.get("phrase"), c.get("load"))
    add("asked after another question: searched with words of the earlier one", c.get("rewritten"), c.get("load"))
    f = side.get("followups") or {}
    add("follow-up hit@3 with the conversation", f.get("with_history"), f.get("load"))
    add("follow-up hit@3 asked alone", f.get("alone"), f.get("load"))
    add("follow-up answer phrase with the conversation", f.get("phrase_with_history"), f.get("load"))
    ref = side.get("refusal")
    if ref:
        load = [a.get("load", [None])[0], ((side.get("unanswerable") or {}).get("load") or [None, None])[1]]
        for k in ("precision", "recall"):
            rows.append([f"{name}: refusal {k}"] + [pct(ref[s][k]) for s in SPLITS]
                        + [ref["all"]["answerable"] + ref["all"]["unanswerable"], load_text(load)])
    m = side.get("manuals") or {}
    if "records" in m:
        which = f" over {', '.join(m['manuals'])} only" if m.get("partial") else ""
        add(f"R manuals (real PDFs{which}): answer phrase in the quick answer", m.get("phrase"), m.get("load"))
        add("R manuals: expected manual cited by the quick answer", m.get("cited_expected"), m.get("load"))
        add("R manuals: expected manual in top-3 sources", m.get("top3_expected"), m.get("load"))
        add("R manuals: refused", _refused(m.get("covered")), m.get("load"))
    sf = side.get("scifact")
    if sf and "records" in sf:
        add("SciFact claims: quick answer cites a qrels document", sf.get("cited_expected"), sf.get("load"))
        add("SciFact claims: qrels document in top-3 sources", sf.get("top3_expected"), sf.get("load"))
        add("SciFact claims: covered (not refused)", sf.get("covered"), sf.get("load"))
    return rows


def _refused(covered: dict | None) -> dict | None:
    """The share refused, from the share covered."""
    if not covered:
        return None
    return {**covered, **{s: None if covered[s] is None else round(100.0 - covered[s], 1) for s in SPLITS}}


TIMING_HEADERS = ["side", "what", "p50 ms", "p95 ms", "n", "unsupported sentences", "load"]


def _ms(x) -> str:
    return "—" if x is None or x != x else f"{x:,.1f}"


def timing_rows(name: str, side: dict) -> list[list]:
    """Rows for the quick answer's latency and each transport's generation."""
    rows = []
    lat = side.get("latency_ms")
    if lat:
        loads = [v.get("load") for v in (side.get(k) for k in ("answerable", "paraphrased", "followups", "unanswerable")) if v]
        load = [loads[0][0], loads[-1][1]] if loads else None
        rows.append([name, f"quick answer ({side.get('chunks')} chunks)", _ms(lat["p50"]), _ms(lat["p95"]), lat["n"], "—",
                     load_text(load)])
    m = side.get("manuals") or {}
    if m.get("latency_ms"):
        lat = m["latency_ms"]
        rows.append([name, f"quick answer, R manuals ({m.get('chunks')} chunks)", _ms(lat["p50"]), _ms(lat["p95"]), lat["n"],
                     "—", load_text(m.get("load"))])
    sf = side.get("scifact") or {}
    if sf.get("latency_ms"):
        lat = sf["latency_ms"]
        rows.append([name, f"quick answer, SciFact ({sf.get('chunks')} chunks)", _ms(lat["p50"]), _ms(lat["p95"]), lat["n"],
                     "—", load_text(sf.get("load"))])
    sc_ = side.get("scaled") or {}
    if sc_.get("latency_ms"):
        lat = sc_["latency_ms"]
        rows.append([name, f"quick answer, SciFact claims ({sc_.get('chunks')} chunks)", _ms(lat["p50"]), _ms(lat["p95"]),
                     lat["n"], "—", load_text(sc_.get("load"))])
    tr = dict(side.get("transports") or {})
    if side.get("inpage_model", {}).get("measured"):
        tr["inpage"] = side["inpage_model"]
    for t, d in tr.items():
        if "first_token_ms" not in d:
            rows.append([name, f"{t}: not measured ({'; '.join(d.get('errors') or [])[:120]})", "—", "—", 0, "—", "?"])
            continue
        bad = "—" if d.get("unsupported_rate") is None else f"{d['unsupported']}/{d['sentences']} ({d['unsupported_rate']}%)"
        for what, key in (("first token from asking", "first_token_from_ask_ms"),
                          ("whole answer from asking", "total_from_ask_ms")):
            rows.append([name, f"{t}: {what}", _ms(d[key]["p50"]), _ms(d[key]["p95"]), d[key]["n"], bad, load_text(d.get("load"))])
    return rows


def targets(section: dict | None) -> list[tuple[str, float | None, float, str, bool]]:
    """Issue 12's targets as (name, measured, target, unit, at_least)."""
    ans = (section or {}).get("answers") or {}
    side = ans.get("browser") or ans.get("native") or {}
    where = "in the page" if ans.get("browser") else "natively"

    def g(*keys):
        d = side
        for k in keys:
            d = d.get(k) if isinstance(d, dict) else None
        return d

    lat = g("latency_ms", "p50")
    chunks = side.get("chunks")
    return [
        (f"quick answer p50 {where} ({chunks} chunks; the target is at 20k)", lat, 1000, "ms", False),
        ("answer phrase in the quick answer", g("answerable", "phrase", "all"), 70, "%", True),
        ("expected topic cited by the quick answer", g("answerable", "cited_expected", "all"), 85, "%", True),
        ("follow-up hit@3 with the conversation", g("followups", "with_history", "all"), 90, "%", True),
        ("refusal precision", g("refusal", "all", "precision"), 90, "%", True),
    ]
