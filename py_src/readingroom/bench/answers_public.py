"""``bench answers --qa-data DIR``: the quick answer on public question sets, natively.

* ``squad``: SQuAD v1.1 dev, 25 questions of each of 12 articles (300), over those 12 articles
  indexed as documents. Reserved for checking: the answer models never trained, tuned or
  calibrated on it.
* ``wikiqa``: WikiQA's test split (questions people typed into a search engine), its answerable
  questions over all of its articles. Held out from training.
* ``heldback``: the held-back quarter of the training articles (WikiQA train/dev and SelQA), the
  source sets' own held-back figures; ``heldback-NAME`` the same for each other training group
  of ``qa_data.TRAIN_GROUPS``.

Per set: answer in the quick answer (an answer span, or the labelled answer sentence, inside
the 1-3 sentences shown), the expected article cited by the quick answer and among the top 3
sources, false refusals, and ask() p50/p95. A library per set is built once and cached.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ..aio import run as run_sync
from ..ingest.add import NewDocument
from . import qa_data
from .stats import load_average as load, summary

PUBLIC_SETS = ("squad", "wikiqa", "heldback") + tuple(f"heldback-{g}" for g in qa_data.TRAIN_GROUPS if g != "wiki")


def items_of(name: str, root: Path) -> tuple[list[qa_data.Item], dict[str, str]]:
    if name == "squad":
        return qa_data.squad_subset(root)
    if name == "wikiqa":
        items, docs = qa_data.load(root, (qa_data.WIKIQA_TEST,))
        return [i for i in items if i.answerable], docs
    group = "wiki" if name == "heldback" else name.removeprefix("heldback-")
    if name.startswith("heldback") and group in qa_data.TRAIN_GROUPS:
        items, docs, (_, held, _) = qa_data.split_group(root, group)
        return [i for i in items if i.title in held and i.answerable], {t: docs[t] for t in held}
    raise ValueError(f"unknown public set {name!r}: choose from {', '.join(PUBLIC_SETS)}")


def library(name: str, docs: dict[str, str], into: Path):
    """A scratch copy of the set's cached native library (built on first use)."""
    from ..library import Library

    from .quality import cache_dir

    folder = cache_dir() / "answers-public"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256("\n".join(f"{t}\n{x}" for t, x in sorted(docs.items())).encode()).hexdigest()[:12]
    cached = folder / f"{name}-{digest}.sqlite"
    if not cached.exists():
        tmp = cached.with_suffix(".part")
        tmp.unlink(missing_ok=True)
        lib = Library.open(tmp)
        t0 = time.time()
        run_sync(lib.add([NewDocument(name=t, text=x, doc_type="txt") for t, x in sorted(docs.items())]))
        lib.close()
        tmp.replace(cached)
        print(f"  {name}: indexed {len(docs)} articles in {time.time() - t0:.0f} s", file=sys.stderr)
    target = into / cached.name
    shutil.copyfile(cached, target)
    return Library.open(target)


def record(item: qa_data.Item, answer: dict, ms: float) -> dict:
    quick = answer.get("quick") or []
    docs = [d["name"] for d in (answer.get("documents") or [])[:3]]
    return {"id": item.id, "covered": bool(answer.get("covered")), "ms": round(ms, 2),
            "phrase": any(item.holds_answer(q["text"]) for q in quick)
            or item.holds_answer(" ".join(q["text"] for q in quick)),
            "cited_expected": any(q["doc_name"] == item.title for q in quick),
            "top3_expected": item.title in docs, "quick": [q["text"] for q in quick]}


def evaluate(name: str, root: Path, limit: int | None = None) -> dict:
    items, docs = items_of(name, root)
    items = items[:limit] if limit else items
    with tempfile.TemporaryDirectory(prefix="rr-public-") as tmp:
        lib = library(name, docs, Path(tmp))
        try:
            l0 = load()
            run_sync(lib.ask("How do I warm up?"))
            recs = []
            for it in items:
                t0 = time.perf_counter()
                a = run_sync(lib.ask(it.question)).to_dict()
                recs.append(record(it, a, (time.perf_counter() - t0) * 1000))
            chunks = lib.status().get("chunks")
        finally:
            lib.close()
    n = len(recs) or 1
    rate = lambda k: round(sum(r[k] for r in recs) / n, 4)  # noqa: E731
    return {"questions": len(recs), "articles": len(docs), "chunks": chunks, "phrase": rate("phrase"),
            "cited_expected": rate("cited_expected"), "top3_expected": rate("top3_expected"),
            "false_refusals": round(1 - rate("covered"), 4), "latency_ms": summary([r["ms"] for r in recs]),
            "load": [l0, load()], "records": recs}


def rows(d: dict) -> list[list[str]]:
    """Report rows: set, questions, answer in quick answer, cites expected, top 3, false refusals, p50/p95."""
    out = []
    for name in PUBLIC_SETS:
        s = d.get(name)
        if not s:
            continue
        lat = s["latency_ms"]
        out.append([name, str(s["questions"]), f"{s['phrase']:.1%}", f"{s['cited_expected']:.1%}",
                    f"{s['top3_expected']:.1%}", f"{s['false_refusals']:.1%}",
                    f"{lat.get('p50', 0):.0f} / {lat.get('p95', 0):.0f} ms",
                    f"{s['load'][0][0]:.1f}→{s['load'][1][0]:.1f}"])
    return out


HEADERS = ["set", "questions", "answer in quick answer", "cites expected", "expected in top 3",
           "false refusals", "ask p50 / p95", "load"]
