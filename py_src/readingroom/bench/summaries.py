"""``python -m readingroom.bench summaries --data DIR``: the extractive summary against Lead-k and
TextRank on a public summarisation set, and the routing of whole-document questions.

The set is SumPubMed (github.com/vgupta123/sumpubmed: ``text/text_N.txt`` article bodies with
their section headings, ``abstract/abstract_N.txt`` the reference; see /work/sum-data/SOURCES.md
for the commit and sha256s). Its text is lower-cased, which no sentence splitter can read, so the
loader capitalises the first letter of each line and after ". " (the same text for all three
methods); an upper-case line (BACKGROUND, RESULTS, CONCLUSIONS) is a heading, and a line of at
most eight words without a full stop a sub-heading under it.

Two parts, reported apart: articles 1-50 are the development part (the summariser's weights,
``extractive.W``, were chosen looking at them) and 51-100 the report part (never looked at while
choosing); ``--dev-last`` moves the line.

Each article is added to an in-memory library with the real model (indexing computes its
summary); k is our summary's length, and Lead-k (the first k quotable sentences) and TextRank
(PageRank over the TF-IDF cosines of the same sentences, top k in document order) are made from
the same sentences with the same k. ROUGE-1/2/L F1 on lower-cased word tokens (written here: the
formulas are short). ``--index-cost N`` adds N articles to two libraries, with and without the
summary kept as they are indexed; ``--browser PDF`` times a long document's summary in the page
(``summaries_page``). Every figure is printed with the load average.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from ..aio import run
from ..summarise import centrality, extractive, route as _route
from .stats import load_average

ROUTING = Path(__file__).parent / "data" / "summaries" / "routing.json"
_TOK = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    return _TOK.findall(text.lower())


def _f(overlap: int, a: int, b: int) -> float:
    if not overlap or not a or not b:
        return 0.0
    p, r = overlap / a, overlap / b
    return 2 * p * r / (p + r)


def rouge_n(cand: list[str], ref: list[str], n: int) -> float:
    def grams(t):
        out: dict = {}
        for i in range(len(t) - n + 1):
            g = tuple(t[i:i + n])
            out[g] = out.get(g, 0) + 1
        return out

    c, r = grams(cand), grams(ref)
    return _f(sum(min(k, r.get(g, 0)) for g, k in c.items()), sum(c.values()), sum(r.values()))


def rouge_l(cand: list[str], ref: list[str]) -> float:
    """Summary-level LCS F1 over the whole token sequences."""
    if not cand or not ref:
        return 0.0
    prev = [0] * (len(ref) + 1)
    for x in cand:
        cur = [0]
        for j, y in enumerate(ref):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return _f(prev[-1], len(cand), len(ref))


def scores(cand: str, ref: str) -> dict:
    c, r = tokens(cand), tokens(ref)
    return {"rouge1": rouge_n(c, r, 1), "rouge2": rouge_n(c, r, 2), "rougeL": rouge_l(c, r)}


def readable(text: str) -> str:
    """SumPubMed's lower-cased text with sentence starts capitalised and short lines as headings."""
    lines = []
    for line in text.splitlines():
        s = line.strip()
        if s and re.fullmatch(r"[A-Z ]+", s):  # BACKGROUND, RESULTS, CONCLUSIONS: the article's sections
            lines.append(f"\n# {s[:1]}{s[1:].lower()}\n")
            continue
        if s and len(s.split()) <= 8 and not s.endswith("."):  # a sub-heading (lower-cased in the set)
            lines.append(f"\n## {s[:1].upper()}{s[1:]}\n")
            continue
        s = re.sub(r"(\.\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), s)
        lines.append(s[:1].upper() + s[1:])
    return "\n".join(lines)


def reference(text: str) -> str:
    return " ".join(l for l in text.splitlines() if not re.fullmatch(r"[A-Z ]+", l.strip()) and "copyright" not in l)


def textrank(cands, k: int, damping: float = 0.85) -> list:
    n = len(cands)
    if n <= k:
        return list(cands)
    m = np.array([[centrality.cosine(a.vec, b.vec) if i != j else 0.0 for j, b in enumerate(cands)]
                  for i, a in enumerate(cands)], dtype=np.float64)
    rows = m.sum(axis=1, keepdims=True)
    m = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    r = np.full(n, 1.0 / n)
    for _ in range(50):
        r = (1 - damping) / n + damping * (m.T @ r)
    top = sorted(np.argsort(-r)[:k])
    return [cands[i] for i in top]


def baselines(parts, k: int) -> tuple[str, str]:
    keys = extractive.section_keys(parts, k)
    cands, _ = extractive.candidates(parts, keys)
    bags = [centrality.bag(c.text) for c in cands]
    idf = centrality.idf_of(bags)
    for c, b in zip(cands, bags):
        c.vec = centrality.weigh(b, idf)
    return " ".join(c.text for c in cands[:k]), " ".join(c.text for c in textrank(cands, k))


DEV_LAST = 50  # SumPubMed articles 1-50: the development part; 51-100: the report part


def articles(data: Path, limit: int) -> list[tuple[int, Path]]:
    paths = sorted((data / "text").glob("text_*.txt"), key=lambda p: int(p.stem.split("_")[1]))
    return [(int(p.stem.split("_")[1]), p) for p in paths][:limit]


def _means(rows: list[dict]) -> dict:
    return {m: {r: float(np.mean([row[m][r] for row in rows])) for r in ("rouge1", "rouge2", "rougeL")}
            for m in ("ours", "lead", "textrank")}


def summaries(data: Path, limit: int, dev_last: int = DEV_LAST, model_dir: str | None = None) -> dict:
    """ROUGE of ours, Lead-k and TextRank per article, and the means of each part: development
    (articles 1..``dev_last``: the summariser's weights were chosen looking at these) and
    report (the rest: never looked at while choosing)."""
    from .. import Library, NewDocument
    from ..search.reads import hits_for

    lib = Library.open(":memory:", model_dir=model_dir)
    rows, times = [], []
    for n, path in articles(data, limit):
        ref = reference((data / "abstract" / path.name.replace("text_", "abstract_")).read_text())
        t0 = time.perf_counter()
        [out] = run(lib.add([NewDocument(path.name.replace(".txt", ".md"), text=readable(path.read_text()), doc_type="md")]))
        add_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        s = run(lib.summarise([out.doc_id])).to_dict()
        times.append({"add_s": add_s, "summary_open_ms": (time.perf_counter() - t1) * 1000})
        ours = [r["text"] for r in s["results"][: s["summary"]["points"]]]
        ids = [r[0] for r in lib.index.store.query(lib.index.sql.DOC_CHUNK_IDS, (out.doc_id,))]
        hits = hits_for(lib.index.store, ids)
        parts = [extractive.Part(h.chunk_id, h.chunk_index, h.text, h.start, h.heading_path, h.page, h.token_count)
                 for h in (hits[i] for i in ids)]
        lead, tr = baselines(parts, max(1, len(ours)))
        rows.append({"n": n, "doc": path.name, "k": len(ours), "texts": {"ours": ours, "lead": lead, "textrank": tr},
                     "ours": scores(" ".join(ours), ref), "lead": scores(lead, ref), "textrank": scores(tr, ref)})
    lib.close()
    split = {"development": [r for r in rows if r["n"] <= dev_last], "report": [r for r in rows if r["n"] > dev_last]}
    parts_out = {}
    for name, part in split.items():
        if part:
            parts_out[name] = {"articles": f"{part[0]['n']}-{part[-1]['n']}", "documents": len(part),
                               "mean": _means(part), "mean_k": float(np.mean([r["k"] for r in part]))}
    return {"documents": len(rows), "dev_last": dev_last, "parts": parts_out,
            "add_s_median": float(np.median([t["add_s"] for t in times])) if times else 0.0,
            "summary_open_ms_median": float(np.median([t["summary_open_ms"] for t in times])) if times else 0.0,
            "rows": rows}


def routing(path: Path = ROUTING) -> dict:
    spec = json.loads(path.read_text())
    docs = [_route.DocRef(i + 1, d["name"], d.get("title", "")) for i, d in enumerate(spec["documents"])]
    by_name = {d.name: d.id for d in docs}
    wrong = []
    for q in spec["questions"]:
        r = _route.route(q["q"], docs, [by_name[n] for n in q.get("scope", [])])
        want_ids = tuple(by_name[n] for n in q.get("docs", []))
        ok = r.kind == q["kind"] and (r.reason or None) == q.get("reason") and (
            q["kind"] == _route.PASSAGES or r.doc_ids == want_ids or (q.get("reason") and not want_ids))
        if not ok:
            wrong.append({"q": q["q"], "want": q, "got": r.to_dict()})
    n = len(spec["questions"])
    return {"questions": n, "correct": n - len(wrong), "share": (n - len(wrong)) / n, "wrong": wrong}


def _print_summaries(s: dict) -> None:
    print(f"summaries: {s['documents']} SumPubMed articles; development part = articles 1-{s['dev_last']} "
          f"(the summariser's weights were chosen on these), report part = the rest (never tuned on)")
    print("| part | method | ROUGE-1 | ROUGE-2 | ROUGE-L |\n|---|---|---|---|---|")
    for name, part in s["parts"].items():
        for m, label in (("ours", "ours (extractive)"), ("lead", "Lead-k"), ("textrank", "TextRank")):
            v = part["mean"][m]
            print(f"| {name} ({part['articles']}, {part['documents']} docs, mean k {part['mean_k']:.1f}) | {label} | "
                  f"{v['rouge1']:.4f} | {v['rouge2']:.4f} | {v['rougeL']:.4f} |")
    print(f"native: add (index + summary) median {s['add_s_median']:.2f} s; summary opens in "
          f"{s['summary_open_ms_median']:.1f} ms (median)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m readingroom.bench summaries")
    p.add_argument("--data", type=Path, help="SumPubMed's text/ and abstract/ (see the module's doc)")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--dev-last", type=int, default=DEV_LAST, help="the last article of the development part")
    p.add_argument("--index-cost", type=int, metavar="N", default=0,
                   help="also add the first N articles with and without the summary precomputation")
    p.add_argument("--browser", type=Path, metavar="PDF", help="time a long document's summary in the page")
    p.add_argument("--no-build", action="store_true", help="with --browser: serve the dist/ already built")
    p.add_argument("--routing", type=Path, default=ROUTING, help="the question set (JSON)")
    p.add_argument("--json", type=Path, default=Path("bench-results/summaries.json"))
    args = p.parse_args(argv)
    load0 = load_average()
    out: dict = {"routing": routing(args.routing)}
    if args.data and args.limit > 0:
        out["summaries"] = summaries(args.data, args.limit, args.dev_last)
    if args.data and args.index_cost:
        from .summaries_cost import index_cost

        out["index_cost"] = index_cost(args.data, args.index_cost)
    if args.browser:
        from .summaries_page import page_timing

        out["page"] = page_timing(args.browser, rebuild=not args.no_build)
    out["load_average"] = {"start": load0, "end": load_average()}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1))
    r = out["routing"]
    print(f"routing: {r['correct']} of {r['questions']} ({r['share']:.1%})")
    for w in r["wrong"]:
        print(f"  wrong: {w['q']!r} -> {w['got']['kind']} {w['got']['reason']} {w['got']['doc_ids']}")
    if "summaries" in out:
        _print_summaries(out["summaries"])
    if "index_cost" in out:
        c = out["index_cost"]
        print(f"indexing cost: {c['documents']} articles added with the summary {c['with_s']:.2f} s, without "
              f"{c['without_s']:.2f} s: {c['slowdown']:+.1%} (A/B, exposed to the machine's load); time inside the "
              f"summary's computation and write {c['keep_s']:.2f} s = {c['keep_share']:.1%} of the indexing time "
              f"(load average {load_average()})")
    if "page" in out:
        g = out["page"]
        print(f"page: {g['document']} ({g['pages']} pages, {g['chunks']} chunks, indexed natively in {g['index_s']} s): "
              f"Summarise clicked to outline on screen {g['ask_to_screen_ms']} ms median (each: {g['runs_ms']}); "
              f"'Summarise {g['document']}' asked in words: {g['asked_in_words_ms']} ms; native: the stored summary "
              f"{g['native_ms']:.1f} ms, computed from the chunks {g['native_compute_ms']:.1f} ms "
              f"(load average {g['load_average']})")
    print(f"load average: {load0} -> {out['load_average']['end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
