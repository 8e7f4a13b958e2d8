"""Questions a table answers, on tables nobody here wrote: WikiTableQuestions, natively.

``python -m readingroom.bench.answers_tables --wtq DIR --json out.json`` takes the first
``--tables`` tables (in the order their first question appears) of WikiTableQuestions'
*pristine unseen tables* split (``data/pristine-unseen-tables.tsv``, Pasupat & Liang 2015,
CC BY-SA 4.0; a checkout of ``ppasupat/WikiTableQuestions`` with its ``data/`` and ``csv/``),
indexes each table's CSV file through the real CSV reader into one library, and asks every
question about those tables through ``Library.ask``. Nothing here was trained, tuned or
calibrated on it: the quick answer's scorer was learned from prose (docs/answer-model.md).

Per question: the answer (every one of its target values) in the quick answer's rows, in its
first row; the question's table cited and among the top 3 sources; refused. Many WikiTableQuestions
questions need a count, a sum or a comparison ("how many...", "which ... the most"), which no
quoted row can state; so the figures are also given for the questions whose answer is a cell
of their table ("cell answers"). The baseline: the row of passage [1] sharing most words with
the question (the same retrieval, no scorer).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from ..aio import run as run_sync
from ..text import table_rows
from ..ingest.add import NewDocument
from .stats import load_average as load, summary

SPLIT = "data/pristine-unseen-tables.tsv"
_WORD = re.compile(r"\w+")
_STOP = frozenset("the a an of in on at to for is was were are what which who how many much did does do "
                  "and or by with from that this as be it its their than after before".split())


def norm(text: str) -> str:
    return " ".join(text.lower().replace("\u2013", "-").split())


def questions(root: Path, tables: int, split: str = SPLIT) -> tuple[list[dict], list[str]]:
    """The questions about the first ``tables`` tables of the split, and those tables' paths."""
    chosen: list[str] = []
    out = []
    with open(root / split, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            path = row["context"]
            if path not in chosen:
                if len(chosen) >= tables:
                    continue
                chosen.append(path)
            out.append({"id": row["id"], "question": row["utterance"], "table": path,
                        "answers": [a for a in row["targetValue"].split("|") if a.strip()]})
    return out, chosen


def doc_name(path: str) -> str:
    return path.removeprefix("csv/").replace("/", "-")  # csv/203-csv/733.csv -> 203-csv-733.csv


def cells_of(raw: bytes) -> set[str]:
    return {norm(c) for row in csv.reader(io.StringIO(raw.decode("utf-8", "replace"))) for c in row}


def holds(text: str, answers: list[str]) -> bool:
    t = norm(text)
    return bool(answers) and all(norm(a) in t for a in answers)


def baseline_row(question: str, passage: str) -> str:
    """The row of a passage sharing most (non-stop) words with the question; "" when it has none."""
    want = {w for w in _WORD.findall(question.lower()) if w not in _STOP}
    best, score = "", 0
    for r in table_rows.rows(passage, 0, len(passage)):
        got = len(want & set(_WORD.findall(passage[r.start:r.end].lower())))
        if got > score:
            best, score = passage[r.start:r.end], got
    return best


def record(item: dict, answer: dict, ms: float, cell: bool) -> dict:
    quick = answer.get("quick") or []
    results = answer.get("results") or []
    first = results[0]["text"] if results else ""
    return {"id": item["id"], "ms": round(ms, 2), "cell": cell, "covered": bool(answer.get("covered")),
            "answer": holds(" ".join(q["text"] for q in quick), item["answers"]),
            "first": bool(quick) and bool(quick[0].get("header")) and holds(quick[0]["text"], item["answers"]),
            "baseline": holds(baseline_row(item["question"], first), item["answers"]),
            "cited": any(q["doc_name"] == doc_name(item["table"]) for q in quick),
            "top3": doc_name(item["table"]) in [d["name"] for d in (answer.get("documents") or [])[:3]],
            "quick": [q["text"] for q in quick]}


def figures(recs: list[dict]) -> dict:
    n = len(recs) or 1
    rate = lambda k: round(sum(r[k] for r in recs) / n, 4)  # noqa: E731
    return {"questions": len(recs), "answer": rate("answer"), "first_row": rate("first"),
            "baseline": rate("baseline"), "cited": rate("cited"), "top3": rate("top3"),
            "refused": round(1 - rate("covered"), 4)}


def evaluate(root: Path, tables: int, split: str = SPLIT) -> dict:
    from ..library import Library

    items, paths = questions(root, tables, split)
    raws = {p: (root / p).read_bytes() for p in paths}
    cells = {p: cells_of(raw) for p, raw in raws.items()}  # each table's cells, read once
    with tempfile.TemporaryDirectory(prefix="rr-tables-") as tmp:
        lib = Library.open(Path(tmp) / "tables.sqlite")
        try:
            t0 = time.time()
            outcomes = run_sync(lib.add([NewDocument(doc_name(p), data=raws[p]) for p in paths]))
            added = sum(o.status == "added" for o in outcomes)
            index_s = round(time.time() - t0, 1)
            l0 = load()
            recs = []
            for it in items:
                t1 = time.perf_counter()
                a = run_sync(lib.ask(it["question"])).to_dict()
                cell = all(norm(x) in cells[it["table"]] for x in it["answers"])
                recs.append(record(it, a, (time.perf_counter() - t1) * 1000, cell))
            chunks = lib.status().get("chunks")
        finally:
            lib.close()
    return {"split": split, "split_sha256": hashlib.sha256((root / split).read_bytes()).hexdigest(),
            "tables": len(paths), "tables_added": added, "chunks": chunks, "index_s": index_s,
            "all": figures(recs), "cell_answers": figures([r for r in recs if r["cell"]]),
            "latency_ms": summary([r["ms"] for r in recs]), "load": [l0, load()], "records": recs}


def table(d: dict) -> str:
    lines = ["| questions | n | answer in the quick answer's rows | in its first row | baseline (passage [1]'s row with most question words) | table cited | table in top 3 | refused |",
             "|---|---|---|---|---|---|---|---|"]
    for key, label in (("all", "all"), ("cell_answers", "answer is a cell of the table")):
        f = d[key]
        lines.append(f"| {label} | {f['questions']} | {f['answer']:.1%} | {f['first_row']:.1%} | {f['baseline']:.1%} | "
                     f"{f['cited']:.1%} | {f['top3']:.1%} | {f['refused']:.1%} |")
    lat = d["latency_ms"]
    lines.append(f"\n{d['tables']} tables ({d['chunks']} chunks, indexed in {d['index_s']} s); ask p50 / p95 "
                 f"{lat['p50']:.0f} / {lat['p95']:.0f} ms; load {d['load'][0][0]:.1f} → {d['load'][1][0]:.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m readingroom.bench.answers_tables", description=__doc__.split("\n")[0])
    ap.add_argument("--wtq", required=True, type=Path, help="a WikiTableQuestions checkout (data/, csv/)")
    ap.add_argument("--tables", type=int, default=100, help="how many tables of the split (default 100)")
    ap.add_argument("--split", default=SPLIT, help=f"the questions file, in the checkout (default {SPLIT}, "
                    "which is reported only; data/random-split-1-dev.tsv is for looking at failures)")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args(argv)
    if not (args.wtq / args.split).exists():
        print(f"{args.wtq / args.split} not found: give a WikiTableQuestions checkout with --wtq", file=sys.stderr)
        return 2
    d = evaluate(args.wtq, args.tables, args.split)
    args.json.write_text(json.dumps(d, indent=1))
    print(table(d))
    return 0


if __name__ == "__main__":
    from .._threads import one_blas_thread

    one_blas_thread()
    raise SystemExit(main())
